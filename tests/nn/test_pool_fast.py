"""2-D max pooling's phase-at-a-time fast path (gluonlite/ops/pool_fast.py) against the plain
rule (Pooling's in ops/conv.py) with it switched off: outputs and gradients bit for bit over
kernels, strides, paddings and both conventions, with ties, NaN and infinities in the data
and in the head gradient, imperatively and hybridized; and the gradient against finite
differences."""
import itertools

import numpy as np
import pytest

from gluonlite import autograd, gluon, nd
from gluonlite.ops import pool_fast

CASES = [(k, s, pad, conv)
         for k, s, pad, conv in itertools.product(
             [(2, 2), (3, 3), (3, 2)], [(2, 2), (3, 3), (2, 1)], [(0, 0), (1, 1), (1, 0)],
             ["valid", "full"])
         if pad[0] < k[0] and pad[1] < k[1]]


def _data(rng, dtype):
    x = rng.standard_normal((2, 3, 9, 8)).astype(dtype)
    x[0, 0, :3, :3] = 1.0                      # ties: the first equal input takes it
    x[1, 1, 2, 2], x[1, 2, 0, 0], x[0, 2, 1, 1] = np.nan, -np.inf, np.inf
    return x


def _run(x, gy, attrs, hybrid):
    net = gluon.nn.HybridLambda(lambda F, a: F.Pooling(a, pool_type="max", **attrs))
    if hybrid:
        net.hybridize(static_alloc=True)
    a = nd.array(x, dtype=x.dtype)
    a.attach_grad()
    with autograd.record():
        y = net(a)
    y.backward(nd.array(gy, dtype=x.dtype))
    return y.asnumpy(), a.grad.asnumpy()


@pytest.mark.parametrize("kernel, stride, pad, convention", CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("planes", [None, 4], ids=["one-block", "blocks-of-4-planes"])
def test_fast_path_matches_plain_rule_bit_for_bit(kernel, stride, pad, convention, dtype,
                                                  planes, monkeypatch):
    # blocks of 4 of the 2 x 3 channel planes: a full block, then a partial one
    if planes is not None:
        monkeypatch.setattr(pool_fast, "_BLOCK", planes * 9 * 8)
    rng = np.random.default_rng(sum(kernel) * 7 + sum(stride))
    x = _data(rng, dtype)
    attrs = dict(kernel=kernel, stride=stride, pad=pad, pooling_convention=convention)
    shape = nd.Pooling(nd.array(x), pool_type="max", **attrs).shape
    gy = rng.standard_normal(shape).astype(dtype)
    gy.flat[0] = np.inf   # an infinite head gradient: what reaches non-maxima is the rule's
    got = {}
    for on in (True, False):
        monkeypatch.setattr(pool_fast, "ENABLED", on)
        with np.errstate(invalid="ignore"):
            got[on] = _run(x, gy, attrs, hybrid=(dtype == "float32"))
    for a, b in zip(got[True], got[False]):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


def test_the_fast_path_is_taken_where_it_applies(monkeypatch):
    calls = []
    real = pool_fast.max_backward
    monkeypatch.setattr(pool_fast, "max_backward",
                        lambda *a: calls.append(a[3].stride) or real(*a))
    x = nd.array(np.random.default_rng(0).standard_normal((1, 2, 6, 6)))
    x.attach_grad()
    for stride in ((2, 2), (1, 1)):       # stride 1: the plain rule's views are contiguous
        with autograd.record():
            y = nd.Pooling(x, kernel=(3, 3), stride=stride, pool_type="max")
        y.backward()
    assert calls == [(2, 2)]


def test_gradient_matches_finite_differences():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((1, 2, 7, 7))
    w = rng.standard_normal((1, 2, 4, 4))
    a = nd.array(x, dtype="float64")
    a.attach_grad()
    attrs = dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="max")
    with autograd.record():
        y = nd.Pooling(a, **attrs)
    y.backward(nd.array(w, dtype="float64"))

    def f(v):
        return (nd.Pooling(nd.array(v, dtype="float64"), **attrs).asnumpy() * w).sum()
    eps, num = 1e-6, np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, dn = x.copy(), x.copy()
        up[i] += eps
        dn[i] -= eps
        num[i] = (f(up) - f(dn)) / (2 * eps)
    np.testing.assert_allclose(a.grad.asnumpy(), num, rtol=1e-6, atol=1e-9)
