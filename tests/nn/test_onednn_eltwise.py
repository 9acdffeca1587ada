"""Activation(act_type='softrelu') as MXNet 1.9.1's CPU build computes it
(gluonlite/ops/onednn_eltwise.py: oneDNN's soft_relu and, for the gradient, its logistic),
bit for bit against MXNet-made numbers (fixtures/make_onednn_eltwise.py), imperatively and
through a static-alloc plan; the gradient against finite differences; other dtypes keep
the plain log(1 + exp(x))."""

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, gluon, nd
from gluonlite.ops import onednn_eltwise

from fixture_makers import maker, reference

make_onednn_eltwise = maker("make_onednn_eltwise")
_REF = reference("onednn_eltwise_mxnet.npz")


def _equal(got, want):
    return (got == want) | (np.isnan(got) & np.isnan(want))


def test_softrelu_and_its_gradient_are_mxnets_bit_for_bit():
    got = make_onednn_eltwise.softrelu(mx)
    for key, value in got.items():
        assert _equal(value, _REF[key]).all(), key
    # what the module is for: the plain formula agrees with oneDNN's on a minority
    x, _ = make_onednn_eltwise.inputs()
    with np.errstate(all="ignore"):
        plain = np.logaddexp(x, np.float32(0))
    assert _equal(plain, _REF["softrelu_y"]).mean() < 0.7


@pytest.mark.parametrize("shape", [(4000,), (40, 100), (2, 4, 5, 5, 20)])
def test_static_alloc_plan_gives_the_imperative_bits(shape):
    x, head = make_onednn_eltwise.inputs()
    n = int(np.prod(shape))
    x, head = x[:n].reshape(shape), head[:n].reshape(shape)
    net = gluon.nn.HybridLambda(lambda F, a: F.Activation(a, act_type="softrelu"))
    results = []
    for hybrid in (False, True):
        if hybrid:
            net.hybridize(static_alloc=True, static_shape=True)
        for _ in range(2):
            a = nd.array(x)
            a.attach_grad()
            with autograd.record():
                y = net(a)
            y.backward(nd.array(head))
            results.append((y.asnumpy(), a.grad.asnumpy()))
    for y, g in results:
        np.testing.assert_array_equal(y, onednn_eltwise.soft_relu(x))
        np.testing.assert_array_equal(g, onednn_eltwise.soft_relu_grad(x, head))


def test_gradient_matches_finite_differences():
    rng = np.random.default_rng(2)
    x = (rng.standard_normal((3, 20)) * 4).astype(np.float32)
    w = rng.standard_normal((3, 20)).astype(np.float32)
    a = nd.array(x)
    a.attach_grad()
    with autograd.record():
        y = nd.Activation(a, act_type="softrelu")
    y.backward(nd.array(w))

    def f(v):
        out = nd.Activation(nd.array(v), act_type="softrelu").asnumpy()
        return float((out.astype(np.float64) * w).sum())

    num, = mx.test_utils.finite_difference(f, [x.copy()], eps=1e-2)
    np.testing.assert_allclose(a.grad.asnumpy(), num, rtol=2e-2, atol=2e-3)


def test_close_to_the_exact_value_and_its_special_values():
    x = np.linspace(-80, 80, 20001).astype(np.float32)
    exact = np.logaddexp(x.astype(np.float64), 0)
    got = onednn_eltwise.soft_relu(x)
    # oneDNN's log of a sum near 1 keeps about 1e-5 absolutely: small results lose their
    # relative accuracy below 0, and far below they come out 0 or a little below it
    # (-1.9e-6), as on MXNet
    pos = x >= 0
    np.testing.assert_allclose(got[pos], exact[pos], rtol=1e-6)
    np.testing.assert_allclose(got[~pos], exact[~pos], rtol=0, atol=1e-5)
    assert (got[x < -20] < 0).any() and (np.abs(got[x < -20]) < 1e-5).all()
    special = onednn_eltwise.soft_relu(np.array([np.inf, -np.inf, np.nan, 100.0], np.float32))
    assert special[0] == np.inf and special[1] == 0 and np.isnan(special[2])
    assert special[3] == 100.0   # beyond log(FLT_MAX): x itself
    np.testing.assert_allclose(onednn_eltwise.logistic(np.array([0.0, 30.0, -30.0], np.float32)),
                               [0.5, 1.0, 9.357623e-14], rtol=1e-6)


def test_other_dtypes_keep_the_plain_formula():
    x = np.random.default_rng(3).uniform(-20, 20, 500)
    y = nd.Activation(nd.array(x, dtype="float64"), act_type="softrelu").asnumpy()
    np.testing.assert_array_equal(y, np.logaddexp(x, 0))
