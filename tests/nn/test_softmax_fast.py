"""softmax's and log_softmax's numpy fast path (gluonlite/ops/softmax_fast.py: one output
array, a block of rows at a time) against the plain rules (ops/nn.py) with it switched off:
outputs and gradients bit for bit, over several blocks and a ragged last one, float32 and
float64, with a temperature, rows holding NaN and infinities, through a static-alloc plan
and imperatively; and the gradients against finite differences."""
import numpy as np
import pytest

from gluonlite import autograd, gluon, nd
from gluonlite.ops import softmax_fast


def _run(name, x, gy, temperature, hybrid, dtype):
    net = gluon.nn.HybridLambda(lambda F, a: getattr(F, name)(a, temperature=temperature))
    if hybrid:
        net.hybridize(static_alloc=True)
    a = nd.array(x, dtype=dtype)
    a.attach_grad()
    with autograd.record():
        y = net(a)
    y.backward(nd.array(gy, dtype=dtype))
    return y.asnumpy(), a.grad.asnumpy()


@pytest.mark.parametrize("hybrid", [False, True], ids=["imperative", "static_alloc"])
@pytest.mark.parametrize("temperature", [None, 2.5])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fast_path_matches_plain_rule_bit_for_bit(dtype, name, temperature, hybrid,
                                                   monkeypatch):
    # blocks of 3 rows of 1000 over 2 x 23 rows: 16 blocks, the last one of 1 row
    monkeypatch.setattr(softmax_fast, "MIN_SIZE", 1)
    monkeypatch.setattr(softmax_fast, "BLOCK_BYTES", 3 * 1000 * np.dtype(dtype).itemsize)
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 23, 1000)) * 6
    x[0, 3, 7] = np.nan
    x[0, 5, :4] = np.inf
    x[1, 2, :] = -np.inf
    x[1, 4, 9] = -np.inf
    gy = rng.standard_normal(x.shape)
    got = {}
    for on in (True, False):
        monkeypatch.setattr(softmax_fast, "ENABLED", on)
        with np.errstate(all="ignore"):
            got[on] = _run(name, x, gy, temperature, hybrid, dtype)
    for what, a, b in zip(("y", "dx"), got[True], got[False]):
        np.testing.assert_array_equal(a, b, err_msg=what)


def test_fast_path_is_taken_where_usable():
    big = np.ones((4, softmax_fast.MIN_SIZE), np.float32)
    assert softmax_fast.usable(np, -1, big, big)
    assert not softmax_fast.usable(np, 0, big)                     # not the last axis
    assert not softmax_fast.usable(np, -1, big[:, ::2])            # not contiguous
    assert not softmax_fast.usable(np, -1, big.astype(np.float16))
    assert not softmax_fast.usable(np, -1, big, big.astype(np.float64))
    assert not softmax_fast.usable(np, -1, big[:1, :100])          # small: the plain rule


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_fast_gradients_match_finite_differences(name, monkeypatch):
    monkeypatch.setattr(softmax_fast, "MIN_SIZE", 1)
    monkeypatch.setattr(softmax_fast, "BLOCK_BYTES", 2 * 7 * 8)
    rng = np.random.default_rng(5)
    x = rng.standard_normal((5, 7))
    w = rng.standard_normal((5, 7))

    def f(v):
        return float((getattr(nd, name)(nd.array(v, dtype="float64"), temperature=1.5)
                      .asnumpy() * w).sum())

    a = nd.array(x, dtype="float64")
    a.attach_grad()
    with autograd.record():
        y = getattr(nd, name)(a, temperature=1.5)
    y.backward(nd.array(w, dtype="float64"))
    eps, num = 1e-6, np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        num[i] = (f(x + d) - f(x - d)) / (2 * eps)
    np.testing.assert_allclose(a.grad.asnumpy(), num, rtol=1e-6, atol=1e-8)
