"""Kernels' fast paths agree with their general paths: scatter_add (the gradient of take and
Embedding) with numpy's add.at on every index pattern, FullyConnected's dot with matmul."""
import numpy as np
import pytest

from gluonlite import nd, autograd
from gluonlite.ops.matrix import scatter_add


@pytest.mark.parametrize("idx", [[], [3], [2, 3, 4, 5], [5, 1, 3], [1, 4, 1, 1, 0], [4, 3, 2]])
def test_scatter_add_equals_add_at(idx):
    rng = np.random.RandomState(0)
    i = np.array(idx, dtype=np.int64)
    rows = rng.randn(len(idx), 3, 2)
    want, got = rng.randn(6, 3, 2), None
    got = want.copy()
    np.add.at(want, i, rows)
    scatter_add(np, got, i, rows)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_take_gradient_with_repeated_indices_sums_rows():
    a = nd.array(np.arange(12.0).reshape(4, 3))
    a.attach_grad()
    with autograd.record():
        y = nd.take(a, nd.array([1, 3, 1, 1]))
    y.backward(nd.ones((4, 3)))
    np.testing.assert_array_equal(a.grad.asnumpy()[:, 0], [0, 3, 0, 1])


def test_fully_connected_into_a_strided_or_wider_output():
    """The `into` kernel writes with BLAS dot where it can, and falls back to matmul for an
    output dot cannot take (not C-contiguous, or another dtype)."""
    from gluonlite.ops import RunCtx, get
    op = get("FullyConnected")
    p, _ = op.parse({"num_hidden": 4})
    rng = np.random.RandomState(1)
    x, w, b = rng.randn(2, 3), rng.randn(4, 3), rng.randn(4)
    want = x @ w.T + b
    for out in (np.empty((4, 2)).T, np.empty((2, 4), np.float32), np.empty((2, 4))):
        op.forward(p, RunCtx(False, np), [x, w, b], out=[out])
        np.testing.assert_allclose(out, want, rtol=1e-6)
