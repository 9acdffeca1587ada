"""GELU's numpy fast path (gluonlite/ops/gelu_fast.py: a block at a time, the forward in
place) against the plain rule (LeakyReLU's in ops/elementwise.py) with it switched off:
outputs and gradients bit for bit over several blocks and a ragged last one, at 0, -0,
infinities and NaN, float32 and float64, imperatively, through a static-alloc plan and as
the epilogue of a fused Dense layer; and the gradient against finite differences."""
import numpy as np
import pytest

from gluonlite import autograd, gluon, nd
from gluonlite.ops import gelu_fast


def _run(x, gy, hybrid, dtype, dense=False):
    if dense:  # Dense + gelu: the inference backend's fused node calls it on its output
        net = gluon.nn.HybridSequential()
        net.add(gluon.nn.Dense(x.shape[1], in_units=x.shape[1], dtype=dtype),
                gluon.nn.GELU())
        net.initialize()
        net[0].weight.set_data(nd.array(np.eye(x.shape[1]), dtype=dtype))
    else:
        net = gluon.nn.HybridLambda(lambda F, a: F.LeakyReLU(a, act_type="gelu"))
    if hybrid:
        net.hybridize(static_alloc=True)
    a = nd.array(x, dtype=dtype)
    a.attach_grad()
    if dense:
        return [net(a).asnumpy()]
    with autograd.record():
        y = net(a)
    y.backward(nd.array(gy, dtype=dtype))
    return [y.asnumpy(), a.grad.asnumpy()]


@pytest.mark.parametrize("mode", ["imperative", "static_alloc", "fused_dense"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fast_path_matches_plain_rule_bit_for_bit(dtype, mode, monkeypatch):
    monkeypatch.setattr(gelu_fast, "BLOCK", 64)   # 11 blocks of 64 over 23 x 29 entries
    rng = np.random.default_rng(6)
    x = rng.standard_normal((23, 29)) * 4
    x.flat[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30]
    gy = rng.standard_normal(x.shape)
    got = {}
    for on in (True, False):
        monkeypatch.setattr(gelu_fast, "ENABLED", on)
        with np.errstate(all="ignore"):
            got[on] = _run(x, gy, mode != "imperative", dtype, dense=mode == "fused_dense")
    for a, b in zip(got[True], got[False]):
        np.testing.assert_array_equal(a, b)


def test_forward_writes_over_its_input():
    x = np.linspace(-3, 3, 1000).astype(np.float32)
    want = gelu_fast.forward(x)
    assert gelu_fast.forward(x, out=x) is x
    np.testing.assert_array_equal(x, want)


def test_fast_gradient_matches_finite_differences(monkeypatch):
    monkeypatch.setattr(gelu_fast, "BLOCK", 8)
    rng = np.random.default_rng(7)
    x = rng.standard_normal(30) * 2
    w = rng.standard_normal(30)
    a = nd.array(x, dtype="float64")
    a.attach_grad()
    with autograd.record():
        y = nd.LeakyReLU(a, act_type="gelu")
    y.backward(nd.array(w, dtype="float64"))
    eps = 1e-6
    def f(v):
        return nd.LeakyReLU(nd.array(v, dtype="float64"), act_type="gelu").asnumpy() * w

    num = (f(x + eps) - f(x - eps)) / (2 * eps)   # elementwise: one difference per entry
    np.testing.assert_allclose(a.grad.asnumpy(), num, rtol=1e-6, atol=1e-9)
