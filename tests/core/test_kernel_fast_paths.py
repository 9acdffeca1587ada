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


@pytest.mark.parametrize("pattern", ["zipf", "all_same", "alternating", "distinct_shuffled"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_scatter_add_of_long_rows_adds_as_add_at_does_bit_for_bit(pattern, dtype):
    # rows of 40 values take one add per occurrence level; each index's rows must be added
    # in their order of appearance, as add.at adds them
    rng = np.random.RandomState(1)
    n = 300
    i = {"zipf": rng.zipf(1.4, n) % 50, "all_same": np.full(n, 7),
         "alternating": np.tile([3, 9], n // 2), "distinct_shuffled": rng.permutation(n)}[pattern]
    rows = (rng.randn(n, 5, 8) * 10 ** rng.uniform(-3, 3, (n, 1, 1))).astype(dtype)
    base = rng.randn(max(n, 50), 8, 5).astype(dtype)
    want, got = base.copy(), base.copy()
    np.add.at(want.swapaxes(1, 2), i, rows)          # a strided view as the target
    scatter_add(np, got.swapaxes(1, 2), i.astype(np.int64), rows)
    np.testing.assert_array_equal(got, want)


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


@pytest.mark.parametrize("idx", [[0, 1, 2, 3], [0, 1, 2], [1, 2, 3, 4], [3, 2, 1, 0], [0, 2, 1, 3],
                                 [0, 1], [0], [-1, 0, 1, 9]])
@pytest.mark.parametrize("with_out", [False, True])
def test_take_summed_over_steps_equals_the_per_step_gradients(idx, with_out):
    """take's gradient summed over a loop's steps (a counted while_loop gathering row i at
    step i takes a copy when the steps visit every row once, in order) equals the sum of
    the per-step gradients, into a given array or a new one."""
    from gluonlite.ops import RunCtx, get
    op = get("take")
    p, _ = op.parse({})
    rng = np.random.RandomState(2)
    a = rng.randn(4, 3, 2)
    steps = np.array(idx, dtype=np.float32).reshape(-1, 1)  # each step's (1,) indices
    g = rng.randn(len(idx), 1, 3, 2)
    rc = RunCtx(True, np)
    want = sum((op.vjp(p, rc, [a, i], [None], [gi], [True, False])[0]
                for i, gi in zip(steps, g)), np.zeros_like(a))
    _, fn = op.fast.summed_grads["a"]
    out = np.full_like(a, 7.0) if with_out else None
    got = fn(p, rc, a, {"indices": steps}, g, out=out)
    assert got is out if with_out else got is not g and not np.shares_memory(got, g)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("idx", [[], [4], [3, 4, 5], [3, 5], [5, 4], [0, 1, 1], [2.0, 3.0, 4.0],
                                 [1.0, 2.5], [0, 1, 3, 4]])
def test_run_start_finds_consecutive_indices(idx):
    """The one test of "a slice will do" that scatter_add, take's summed gradient and a
    counted loop's gather share."""
    from gluonlite.ops.matrix import run_start
    i = np.array(idx)
    consecutive = all(float(b) - float(a) == 1 for a, b in zip(idx, idx[1:]))
    want = (int(idx[0]) if idx else 0) if consecutive else None
    assert run_start(np, i) == want
