"""nd.contrib.hawkesll / sym.contrib.hawkesll: the marked Hawkes log-likelihood and its
gradient, against closed forms and finite differences."""
import math

import numpy as np

import gluonlite as mx
from gluonlite import autograd, nd


def _call(mu, alpha, beta, state, lags, marks, vl, T):
    return nd.contrib.hawkesll(nd.array(mu), nd.array(alpha), nd.array(beta), nd.array(state),
                               nd.array(lags), nd.array(marks).astype("int32"), nd.array(vl),
                               nd.array(T))


def test_closed_forms_of_one_and_two_events():
    mu, alpha, beta = [[1.5, 2.0]], [0.2, 0.3], [1.0, 2.0]
    ll, state = _call(mu, alpha, beta, [[0.0, 0.0]], [[6.0, 2.0]], [[0, 0]], [1], [10.0])
    want = math.log(1.5) - 3.5 * 10 - 0.2 * (1 - math.exp(-4.0))
    np.testing.assert_allclose(ll.asnumpy(), [want], rtol=1e-6)
    np.testing.assert_allclose(state.asnumpy(), [[math.exp(-4.0), 0.0]], rtol=1e-5)
    # a second event of mark 0 at t=8 sees the first one's kernel
    ll, _ = _call(mu, alpha, beta, [[0.0, 0.0]], [[6.0, 2.0]], [[0, 0]], [2], [10.0])
    lam2 = 1.5 + 0.2 * 1.0 * math.exp(-2.0)
    want = math.log(1.5) + math.log(lam2) - 35 - 0.2 * (2 - math.exp(-4.0) - math.exp(-2.0))
    np.testing.assert_allclose(ll.asnumpy(), [want], rtol=1e-6)


def test_gradients_match_finite_differences():
    rng = np.random.RandomState(0)
    args = [rng.uniform(0.5, 1.5, (2, 3)), rng.uniform(0.2, 0.8, 3), rng.uniform(0.5, 2, 3),
            rng.uniform(0, 1, (2, 3))]
    fixed = [np.array([[1.0, 0.5, 2.0, 0.3], [0.2, 0.4, 1.0, 1.0]]),
             np.array([[0, 1, 0, 2], [2, 2, 1, 0]]), np.array([4, 3]), np.array([5.0, 4.0])]
    xs = [nd.array(a, dtype="float64") for a in args]
    for x in xs:
        x.attach_grad()
    with autograd.record():
        ll, _ = nd.contrib.hawkesll(*xs, nd.array(fixed[0], dtype="float64"),
                                    nd.array(fixed[1]).astype("int32"),
                                    nd.array(fixed[2], dtype="float64"),
                                    nd.array(fixed[3], dtype="float64"))
    ll.backward(nd.array([1.0, 2.0], dtype="float64"))

    def total(vals):
        out = nd.contrib.hawkesll(*[nd.array(v, dtype="float64") for v in vals],
                                  nd.array(fixed[0], dtype="float64"),
                                  nd.array(fixed[1]).astype("int32"),
                                  nd.array(fixed[2], dtype="float64"),
                                  nd.array(fixed[3], dtype="float64"))[0].asnumpy()
        return out[0] + 2 * out[1]
    for i, a in enumerate(args):
        num = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            hi = [v.copy() for v in args]
            lo = [v.copy() for v in args]
            hi[i][idx] += 1e-6
            lo[i][idx] -= 1e-6
            num[idx] = (total(hi) - total(lo)) / 2e-6
        np.testing.assert_allclose(xs[i].grad.asnumpy(), num, rtol=1e-5, atol=1e-7)


def test_symbol_form():
    names = ["lda", "alpha", "beta", "state", "lags", "marks", "valid_length", "max_time"]
    out = mx.sym.contrib.hawkesll(*[mx.sym.var(n) for n in names])
    args = dict(lda=nd.ones((1, 2)), alpha=nd.array([0.1, 0.1]), beta=nd.ones(2),
                state=nd.zeros((1, 2)), lags=nd.array([[1.0, 1.0]]),
                marks=nd.array([[1, 0]]).astype("int32"), valid_length=nd.array([2]),
                max_time=nd.array([3.0]))
    got = out.eval(**args)
    want = nd.contrib.hawkesll(*[args[n] for n in names])
    np.testing.assert_allclose(got[0].asnumpy(), want[0].asnumpy(), rtol=1e-6)
