"""`Context.default_ctx` as a per-thread setting (MXNet 1.x's class property: assigning it
changes this thread's default only), `util._NumpyArrayScope` (per thread), and
`test_utils.rand_sparse_ndarray(..., distribution='powerlaw')` laid out as MXNet 1.9.1's, and
`test_utils.create_sparse_array_zd` (sparse test data that may hold nothing)."""
import threading

import pytest

import gluonlite as mx
from gluonlite.context import Context
from gluonlite.test_utils import rand_sparse_ndarray
from gluonlite.util import _NumpyArrayScope


def test_default_ctx_assignment_is_per_thread():
    seen, ready = [], threading.Event()

    def other():
        with mx.cpu(10):
            ready.wait()
            seen.append(Context.default_ctx)

    thread = threading.Thread(target=other)
    thread.start()
    before = Context.default_ctx
    try:
        Context.default_ctx = Context("cpu", 11)
        assert Context.default_ctx == mx.cpu(11)
        ready.set()
        thread.join()
    finally:
        Context.default_ctx = before
    assert seen == [mx.cpu(10)]
    assert Context.default_ctx == before


def test_default_ctx_rejects_a_non_context():
    with pytest.raises(TypeError, match="expected a Context, got str"):
        Context.default_ctx = "cpu"


def test_numpy_array_scope_is_per_thread():
    from gluonlite.util import is_np_array
    assert _NumpyArrayScope(False)._is_np_array is False
    seen = []
    with _NumpyArrayScope(True):
        assert is_np_array()
        thread = threading.Thread(target=lambda: seen.append(is_np_array()))
        thread.start()
        thread.join()
    assert seen == [False] and not is_np_array()


# Entries per row of MXNet 1.9.1's layout (its test_utils._get_powerlaw_dataset_csr): the
# first column of every row, then 1, 3, 7, ... more leading entries per row until
# int(rows * cols * density) are used; whole rows once the columns run out.
@pytest.mark.parametrize("shape, density, counts", [
    ((32, 10000), 0.01, [2 ** (r + 1) for r in range(10)] + [1133] + [1] * 21),
    ((5, 5), 0.5, [2, 4, 4, 1, 1]),
    ((6, 4), 0.75, [2, 4, 4, 4, 3, 1]),
])
def test_powerlaw_csr_layout(shape, density, counts):
    arr, _ = rand_sparse_ndarray(shape, "csr", density=density, distribution="powerlaw")
    dense = arr.asnumpy()
    assert arr.stype == "csr"
    assert (dense != 0).sum(axis=1).tolist() == counts
    for row, count in enumerate(counts):  # leading entries
        assert (dense[row, :count] != 0).all()


def test_powerlaw_refuses_densities_mxnet_refuses():
    with pytest.raises(ValueError, match="num_rows \\* num_cols \\* density >= 2 \\* num_rows"):
        rand_sparse_ndarray((10, 10), "csr", density=0.1, distribution="powerlaw")
    with pytest.raises(ValueError, match="cannot hold density 1.0"):
        rand_sparse_ndarray((4, 3), "csr", density=1.0, distribution="powerlaw")


def test_create_sparse_array_zd_stores_exactly_the_given_rows():
    from gluonlite.test_utils import create_sparse_array_zd
    arr = create_sparse_array_zd((4, 3), "row_sparse", 0.9, rsp_indices=[3, 1])
    assert arr.stype == "row_sparse" and arr.indices.asnumpy().tolist() == [1, 3]
    dense = arr.asnumpy()
    assert (dense[[0, 2]] == 0).all()
    empty = create_sparse_array_zd((4, 3), "row_sparse", 0.9)
    assert empty.indices.shape == (0,) and not empty.asnumpy().any()
    assert not create_sparse_array_zd((4, 3), "csr", 0.0).asnumpy().any()
    with pytest.raises(ValueError, match="5 rsp_indices for 4 rows"):
        create_sparse_array_zd((4, 3), "row_sparse", 0.5, rsp_indices=[0, 1, 2, 3, 3])
