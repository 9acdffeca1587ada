"""Sparse arrays with parts that break the storage rules: made in code or read from a file,
they end in one MXNetError naming the rule, never in a crash or a wrong number."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from gluonlite import nd
from gluonlite.base import MXNetError

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _csr(indices, indptr):
    shape = (len(indptr) - 1, 3)
    return nd.sparse.csr_matrix((np.ones(len(indices), np.float32), indices, indptr),
                                shape=shape)


@pytest.mark.parametrize("indices, indptr, match", [
    ([0, 3], [0, 1, 2], r"column index 3 \(entry 1, row 1\) lies outside \[0, 3\)"),
    ([0, 300000000], [0, 1, 2], r"column index 300000000 .* outside \[0, 3\)"),
    ([0, -1], [0, 1, 2], r"column index -1"),
    ([0, 1], [0, 2, 1], r"indptr must start at 0 and end at nnz=2, got 0..1"),
    ([0, 1, 2], [0, 2, 1, 3], r"indptr must be non-decreasing, but indptr\[1\]=2 > "
                              r"indptr\[2\]=1"),
    ([2, 0], [0, 2, 2], r"row 0 must be strictly increasing, got 2 then 0"),
    ([1, 1], [0, 2, 2], r"row 0 must be strictly increasing, got 1 then 1"),
])
def test_a_bad_csr_is_refused_at_its_first_use(indices, indptr, match):
    a = _csr(indices, indptr)  # MXNet lets it be made: its tests call check_format on one
    for use in (lambda: nd.sparse.dot(a, nd.ones((3, 2))), a.asnumpy, lambda: a + a,
                lambda: nd.sum(a), a.check_format):
        with pytest.raises(MXNetError, match=match):
            use()


def test_a_bad_csr_crashes_no_process():
    # the case that used to kill the interpreter inside scipy's kernel
    code = textwrap.dedent("""
        from gluonlite import nd
        a = nd.sparse.csr_matrix(([1., 2.], [0, 300000000], [0, 1, 2]), shape=(2, 3))
        try:
            nd.sparse.dot(a, nd.ones((3, 2)))
        except ValueError as e:
            print("refused:", e)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=REPO), timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "refused: csr_matrix: invalid csr array of shape (2, 3)" in proc.stdout


def test_a_row_sparse_with_a_repeated_row_has_no_two_readings():
    r = nd.sparse.row_sparse_array(([[1., 2.], [3., 4.]], [1, 1]), shape=(3, 2))
    with pytest.raises(MXNetError, match=r"1 then 1 \(entries 0, 1: repeated\)"):
        r.asnumpy()
    with pytest.raises(MXNetError, match="repeated"):
        nd.sum(r)
    with pytest.raises(MXNetError, match=r"row index 5 \(entry 1\) lies outside \[0, 3\)"):
        nd.sparse.row_sparse_array(([[1., 2.], [3., 4.]], [1, 5]), shape=(3, 2)).asnumpy()


def test_valid_parts_compute_as_dense():
    a = _csr([0, 2, 1], [0, 2, 2, 3])
    a.check_format()
    np.testing.assert_array_equal(nd.sparse.dot(a, nd.ones((3, 2))).asnumpy(),
                                  a.asnumpy() @ np.ones((3, 2)))
    r = nd.sparse.row_sparse_array(([[1., 2.], [3., 4.]], [0, 2]), shape=(3, 2))
    assert float(nd.sum(r).asscalar()) == 10.0


def test_a_scipy_matrix_with_bad_parts_is_refused():
    import scipy.sparse as spsp
    m = spsp.csr_matrix((np.ones(2), np.array([0, 1]), np.array([0, 1, 2])), shape=(2, 3))
    m.indices[1] = 7  # scipy's constructor checked only the sizes
    with pytest.raises(ValueError, match=r"invalid scipy csr matrix of shape \(2, 3\)"):
        nd.sparse.array(m)


def _patched_file(tmp_path, arr, old, new):
    path = tmp_path / "x.params"
    nd.save(str(path), {"w": arr})
    raw = bytearray(path.read_bytes())
    at = raw.rfind(np.int64(old).tobytes())
    raw[at:at + 8] = np.int64(new).tobytes()
    path.write_bytes(bytes(raw))
    return path


@pytest.mark.parametrize("stype, old, new, match", [
    ("csr", 2, 9, r"array 0 \('w'\), a csr array of shape \(2, 3\): column index 9"),
    ("row_sparse", 2, 1, r"array 0 \('w'\), a row_sparse array of shape \(3, 3\): "
                         r"row indices must be strictly increasing, got 1 then 1"),
    ("row_sparse", 2, 40, r"array 0 \('w'\), a row_sparse array of shape \(3, 3\): "
                          r"row index 40 \(entry 1\) lies outside \[0, 3\)"),
])
def test_load_checks_the_values_of_sparse_parts(tmp_path, stype, old, new, match):
    dense = np.array([[1, 0, 0], [0, 0, 2]] if stype == "csr" else
                     [[0, 0, 0], [1, 0, 0], [0, 0, 2]], np.float32)
    path = _patched_file(tmp_path, nd.array(dense).tostype(stype), old, new)
    with pytest.raises(MXNetError, match=f"{path}: not a valid MXNet NDArray file: " + match):
        nd.load(str(path))
