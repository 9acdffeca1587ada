"""LayerNorm's numpy fast path (gluonlite/ops/ln_fast.py: blocks of rows, the output and the
gradient written once) against its plain rule (ops/nn.py) with the fast path switched off:
the output, the saved mean and std, and the three gradients, float32 and float64, through a
static-alloc plan and imperatively, in one block and in blocks that split the rows; the
gradients against finite differences; a row whose mean dwarfs its spread; the axes and
dtypes that take the plain rule."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, gluon, nd
from gluonlite.ops import ln_fast


def _run(x, gamma, beta, gy, hybrid, dtype, eps=1e-5):
    net = gluon.nn.HybridLambda(lambda F, a, g, b: F.LayerNorm(a, g, b, eps=eps,
                                                               output_mean_var=True))
    if hybrid:
        net.hybridize(static_alloc=True)
    arrs = [nd.array(a, dtype=dtype) for a in (x, gamma, beta)]
    for a in arrs:
        a.attach_grad()
    with autograd.record():
        y, mean, std = net(*arrs)
    y.backward(nd.array(gy, dtype=dtype))
    return [y.asnumpy(), mean.asnumpy(), std.asnumpy()] + [a.grad.asnumpy() for a in arrs]


@pytest.mark.parametrize("block", [None, 14, 21],
                         ids=["one_block", "blocks_of_2_rows", "blocks_of_3_rows_last_short"])
@pytest.mark.parametrize("hybrid", [False, True], ids=["imperative", "static_alloc"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fast_path_matches_plain_rule(dtype, hybrid, block, monkeypatch):
    # 2 x 5 rows of 7: blocks of 14 or 21 entries cut them into 2 or 3 rows, the last short
    if block:
        monkeypatch.setattr(ln_fast, "BLOCK", block)
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 5, 7)) * rng.uniform(0.5, 3, (2, 5, 1)) + \
        rng.uniform(-4, 4, (2, 5, 1))
    gamma, beta = rng.standard_normal(7), rng.standard_normal(7)
    gy = rng.standard_normal(x.shape)
    got = {}
    for on in (True, False):
        monkeypatch.setattr(ln_fast, "ENABLED", on)
        got[on] = _run(x, gamma, beta, gy, hybrid, dtype)
    tol = 2e-6 if dtype == "float32" else 1e-13
    names = ["y", "mean", "std", "dx", "dgamma", "dbeta"]
    for name, a, b in zip(names, got[True], got[False]):
        assert a.dtype == b.dtype == np.dtype(dtype), name
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol * max(1.0, np.abs(b).max()),
                                   err_msg=name)


def test_fast_gradients_match_finite_differences(monkeypatch):
    monkeypatch.setattr(ln_fast, "BLOCK", 8)  # rows of 4: two rows a block
    rng = np.random.default_rng(6)
    x, gamma, beta = rng.standard_normal((3, 4)), rng.standard_normal(4), rng.standard_normal(4)
    gy = rng.standard_normal((3, 4))
    dx, dgamma, dbeta = _run(x, gamma, beta, gy, False, "float64", eps=1e-3)[3:]

    def loss(a, g, b):
        mean = a.mean(axis=-1, keepdims=True)
        y = (a - mean) / np.sqrt(a.var(axis=-1, keepdims=True) + 1e-3) * g + b
        return (y * gy).sum()

    h = 1e-6
    for got, k in ((dx, 0), (dgamma, 1), (dbeta, 2)):
        args = [x, gamma, beta]
        num = np.zeros_like(args[k])
        for i in np.ndindex(num.shape):
            up = [a.copy() for a in args]
            down = [a.copy() for a in args]
            up[k][i] += h
            down[k][i] -= h
            num[i] = (loss(*up) - loss(*down)) / (2 * h)
        np.testing.assert_allclose(got, num, rtol=1e-6, atol=1e-8)


def test_large_mean_row_keeps_its_variance():
    """Rows of mean 1e4 and spread 1e-2: the variance is taken about the mean, as the plain
    rule takes it, so nothing cancels."""
    rng = np.random.default_rng(7)
    x = 1e4 + 1e-2 * rng.standard_normal((6, 32))
    outs = [np.empty_like(x), np.empty((6, 1)), np.empty((6, 1))]
    ln_fast.forward_into(outs, x, np.ones(32), np.zeros(32), 0.0)
    np.testing.assert_allclose(outs[2][:, 0] ** 2, x.var(axis=1), rtol=1e-9)
    np.testing.assert_allclose(outs[0].std(axis=1), 1.0, rtol=1e-9)


def test_other_axes_and_mixed_dtypes_take_the_plain_rule():
    p_last = mx.ops.registry.get("LayerNorm").parse({})[0]
    p_mid = mx.ops.registry.get("LayerNorm").parse({"axis": 1})[0]
    x = np.random.default_rng(8).standard_normal((3, 5, 4)).astype(np.float32)
    ones4 = np.ones(4, np.float32)
    assert ln_fast.usable(p_last, np, x, ones4, ones4)
    assert not ln_fast.usable(p_mid, np, x, np.ones(5, np.float32))
    assert not ln_fast.usable(p_last, np, x, ones4.astype(np.float64))
    assert not ln_fast.usable(p_last, np, x[:, :, ::2].copy().T)     # not C-contiguous
    assert not ln_fast.usable(p_last, np, x.astype(np.float16), ones4.astype(np.float16))
    # the plain rule's answer through the operator, for the axis the fast path does not take
    y = nd.LayerNorm(nd.array(x), nd.ones(5), nd.zeros(5), axis=1).asnumpy()
    mean, var = x.mean(axis=1, keepdims=True), x.var(axis=1, keepdims=True)
    np.testing.assert_allclose(y, (x - mean) / np.sqrt(var + 1e-5), rtol=1e-5, atol=1e-6)


def test_static_alloc_plan_over_another_axis_writes_the_plain_rule_into_its_buffers():
    """A compiled plan calls the fast path's `into` form; over axis 1 it falls back to the
    plain rule and copies its outputs into the plan's buffers."""
    rng = np.random.default_rng(9)
    x, gamma, beta = rng.standard_normal((3, 5, 4)), rng.standard_normal(5), \
        rng.standard_normal(5)
    net = gluon.nn.HybridLambda(lambda F, a, g, b: F.LayerNorm(a, g, b, axis=1,
                                                               output_mean_var=True))
    args = [nd.array(a) for a in (x, gamma, beta)]
    want = [o.asnumpy() for o in net(*args)]
    net.hybridize(static_alloc=True)
    for _ in range(2):  # the second call reuses the buffers
        got = [o.asnumpy() for o in net(*args)]
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)
    mean = x.mean(axis=1, keepdims=True)
    np.testing.assert_allclose(got[1], mean, rtol=1e-5, atol=1e-6)


def test_empty_rows_take_the_plain_rule():
    p = mx.ops.registry.get("LayerNorm").parse({})[0]
    assert not ln_fast.usable(p, np, np.zeros((0, 4), np.float32))
    with mx.np_shape(True):  # zero-size arrays exist under NumPy shape semantics only
        y = nd.LayerNorm(nd.zeros((0, 4)), nd.ones(4), nd.zeros(4))
    assert y.shape == (0, 4)
