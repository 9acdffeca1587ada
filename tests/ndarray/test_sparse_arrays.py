"""CSRNDArray and RowSparseNDArray: storage, constructors, conversions, save/load in MXNet's
format (tests/fixtures/sparse_mxnet.params, made by make_sparse_params.py with MXNet 1.9.1),
and the numbers against scipy."""
import os
import pickle

import numpy as np
import pytest
import scipy.sparse as spsp
from hypothesis import given, settings, strategies as st

import gluonlite as mx
from gluonlite import autograd, nd
from gluonlite.base import MXNetError, NotSupportedForSparseNDArray
from gluonlite.ndarray import serialization, sparse

FIX = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures")
A = np.array([[0.5, 0, 0.2], [0, 0, 0], [0.1, 0, 0.3]], np.float32)


def test_row_sparse_holds_only_its_rows():
    rows = np.arange(0, 10 ** 6, 10 ** 4)[:100]
    vals = np.ones((100, 64), np.float32)
    r = sparse.row_sparse_array((vals, rows), shape=(10 ** 6, 64))
    assert r.shape == (10 ** 6, 64) and r.stype == "row_sparse"
    assert r._sdata.nbytes == 100 * 64 * 4 and r._sindices.shape == (100,)
    assert r.indices.dtype == np.int64
    s = nd.sparse.sum(r, axis=0)  # the dense fallback still gives the numbers
    assert s.shape == (64,) and float(s[0].asscalar()) == 100.0


def test_csr_parts_and_conversions():
    c = nd.array(A).tostype("csr")
    assert isinstance(c, sparse.CSRNDArray) and isinstance(c, nd.NDArray)
    assert c.stype == "csr" and nd.array(A).stype == "default"
    assert c.shape == (3, 3) and c.dtype == np.float32 and c.context == mx.cpu()
    np.testing.assert_array_equal(c.indptr.asnumpy(), [0, 2, 2, 4])
    np.testing.assert_array_equal(c.indices.asnumpy(), [0, 2, 0, 2])
    np.testing.assert_array_equal(c.data.asnumpy(), np.array([0.5, 0.2, 0.1, 0.3], np.float32))
    assert c.indptr.dtype == np.int64 and c.indices.dtype == np.int64
    np.testing.assert_array_equal(c.asnumpy(), A)
    np.testing.assert_array_equal(c.asscipy().toarray(), A)
    d = c.tostype("default")
    assert type(d) is nd.NDArray and d.stype == "default"
    np.testing.assert_array_equal(nd.cast_storage(c, stype="default").asnumpy(), A)
    with pytest.raises(ValueError, match="cast_storage from csr to row_sparse"):
        c.tostype("row_sparse")
    with pytest.raises(ValueError, match="csr array must be 2-D"):
        nd.ones((2, 2, 2)).tostype("csr")
    with pytest.raises(ValueError, match="unknown storage type 'coo'"):
        nd.ones((2, 2)).tostype("coo")


def test_row_sparse_parts_and_conversions():
    x = np.zeros((5, 2, 3), np.float32)
    x[[1, 3]] = np.arange(12).reshape(2, 2, 3)
    r = nd.array(x).tostype("row_sparse")
    np.testing.assert_array_equal(r.indices.asnumpy(), [1, 3])
    np.testing.assert_array_equal(r.data.asnumpy(), x[[1, 3]])
    np.testing.assert_array_equal(r.asnumpy(), x)
    np.testing.assert_array_equal(r.tostype("default").asnumpy(), x)
    with pytest.raises(ValueError, match="cast_storage from row_sparse to csr"):
        r.tostype("csr")
    assert r[:] is r
    with pytest.raises(ValueError, match=r"only supports \[:\]"):
        r[1]


def test_constructors_follow_mxnet_forms():
    m = spsp.random(4, 5, density=0.4, format="csr", random_state=3)
    c = sparse.csr_matrix(([1.0, 2.0], [0, 2], [0, 1, 2]), shape=(2, 3))
    np.testing.assert_array_equal(c.asnumpy(), [[1, 0, 0], [0, 0, 2]])
    assert c.dtype == np.float32
    inferred = sparse.csr_matrix(([1.0, 2.0], [1, 4], [0, 1, 1, 2]))
    assert inferred.shape == (3, 5)
    assert sparse.csr_matrix((2, 3)).asnumpy().sum() == 0
    from_scipy = sparse.array(m)
    assert from_scipy.dtype == np.float64
    np.testing.assert_array_equal(from_scipy.asnumpy(), m.toarray())
    np.testing.assert_array_equal(sparse.csr_matrix(m.toarray()).asnumpy(), m.toarray())
    r = sparse.row_sparse_array(([[1.0, 2.0]], [3]), shape=(5, 2))
    np.testing.assert_array_equal(r.asnumpy()[3], [1, 2])
    assert sparse.row_sparse_array(([[1.0, 2.0]], [3])).shape == (4, 2)
    assert sparse.row_sparse_array((4, 3)).shape == (4, 3)
    assert nd.zeros((3, 4), stype="row_sparse").stype == "row_sparse"
    assert nd.zeros((3, 4), stype="csr", dtype="float64").dtype == np.float64
    assert sparse.empty("csr", (2, 2)).asnumpy().sum() == 0
    assert nd.empty((2, 2), stype="row_sparse").stype == "row_sparse"
    # nd.array keeps a sparse source sparse, as MXNet's does
    assert nd.array(m).stype == "csr" and nd.array(m).dtype == np.float64
    assert nd.array(nd.ones((2, 2)).tostype("row_sparse")).stype == "row_sparse"
    z = nd.zeros_like(nd.ones((2, 2)).tostype("row_sparse"))
    assert z.stype == "row_sparse" and z._sdata.shape == (0, 2)
    with pytest.raises(ValueError, match="row_sparse_array: unexpected input type: CSRNDArray"):
        sparse.row_sparse_array(c)
    with pytest.raises(ValueError, match="the source is dense"):
        sparse.array(np.ones((2, 2)))
    with pytest.raises(ValueError, match="shape mismatch"):
        sparse.csr_matrix(np.ones((2, 2)), shape=(3, 3))
    with pytest.raises(TypeError, match="make one with nd.sparse.row_sparse_array"):
        sparse.RowSparseNDArray()


def test_copy_copyto_astype_detach_repr():
    c = nd.array(A).tostype("csr")
    k = c.copy()
    k._sdata[0] = 9
    assert c.asnumpy()[0, 0] == 0.5
    dense = nd.zeros((3, 3))
    assert c.copyto(dense) is dense
    np.testing.assert_array_equal(dense.asnumpy(), A)
    target = nd.zeros((3, 3), stype="csr")
    c.copyto(target)
    np.testing.assert_array_equal(target.asnumpy(), A)
    r = nd.zeros((3, 3), stype="row_sparse")
    nd.array(A).copyto(r)
    assert r.stype == "row_sparse"
    np.testing.assert_array_equal(r.indices.asnumpy(), [0, 2])
    with pytest.raises(TypeError, match="csr array cannot be copied into a row_sparse"):
        c.copyto(r)
    assert c.copyto(mx.cpu()).stype == "csr"
    assert c.astype("float64").dtype == np.float64 and c.astype("float64").stype == "csr"
    assert c.detach().stype == "csr"
    assert repr(c) == "\n<CSRNDArray 3x3 @cpu(0)>"
    assert repr(r) == "\n<RowSparseNDArray 3x3 @cpu(0)>"
    with pytest.raises(NotImplementedError, match="size of a sparse array"):
        c.size
    with pytest.raises(NotSupportedForSparseNDArray):
        c.reshape((9,))
    back = pickle.loads(pickle.dumps(c))
    assert back.stype == "csr"
    np.testing.assert_array_equal(back.asnumpy(), A)


def test_setitem_and_inplace_keep_storage():
    r = nd.array(A).tostype("row_sparse")
    r[:] = 2.0
    assert r.stype == "row_sparse" and (r.asnumpy() == 2).all()
    r[:] = nd.array(A)
    np.testing.assert_array_equal(r.asnumpy(), A)
    r *= 2
    assert r.stype == "row_sparse"
    np.testing.assert_array_equal(r.asnumpy(), 2 * A)
    c = nd.array(A).tostype("csr")
    c += c
    assert c.stype == "csr"
    np.testing.assert_array_equal(c.asnumpy(), 2 * A)
    with pytest.raises(ValueError, match="assigning a number is not supported"):
        c[:] = 1.0
    with pytest.raises(ValueError, match=r"only \[:\] is supported"):
        c[0] = nd.ones((3,))


def test_check_format_names_the_broken_rule():
    sparse.csr_matrix(([1.0, 2.0], [0, 2], [0, 1, 2]), shape=(2, 3)).check_format()
    bad_order = sparse.csr_matrix(([1.0, 2.0], [2, 0], [0, 2, 2]), shape=(2, 3))
    with pytest.raises(MXNetError, match="row 0 must be strictly increasing"):
        bad_order.check_format()
    bad_col = sparse.csr_matrix(([1.0], [5], [0, 1, 1]), shape=(2, 3))
    with pytest.raises(MXNetError,
                       match=r"column index 5 \(entry 0, row 0\) lies outside \[0, 3\)"):
        bad_col.check_format()
    bad_col.check_format(full_check=False)
    with pytest.raises(MXNetError, match="indptr must start at 0"):
        sparse.csr_matrix(([1.0], [0], [0, 2, 2]), shape=(2, 3)).check_format()
    with pytest.raises(MXNetError, match="row indices must be strictly increasing"):
        sparse.row_sparse_array(([[1.0], [2.0]], [3, 1]), shape=(4, 1)).check_format()


def test_load_mxnet_sparse_file_and_save_the_same_bytes(tmp_path):
    path = os.path.join(FIX, "sparse_mxnet.params")
    ref = np.load(os.path.join(FIX, "sparse_mxnet.npz"))
    got = nd.load(path)
    assert sorted(got) == ["csr", "csr_int", "dense", "rsp", "rsp_empty"]
    for k, v in got.items():
        assert v.stype == str(ref[k + "_stype"]), k
        np.testing.assert_array_equal(v.asnumpy(), ref[k])
    np.testing.assert_array_equal(got["csr"].indptr.asnumpy(), ref["csr_indptr"])
    np.testing.assert_array_equal(got["rsp"].indices.asnumpy(), ref["rsp_indices"])
    assert got["csr_int"].dtype == np.int64
    with open(path, "rb") as f:
        mxnet_bytes = f.read()
    # What gluonlite writes for these arrays is byte for byte what MXNet wrote.
    assert serialization.dumps(got) == mxnet_bytes
    out = tmp_path / "again.params"
    nd.save(str(out), got)
    again = nd.load(str(out))
    assert again["rsp"].stype == "row_sparse"
    np.testing.assert_array_equal(again["rsp"].asnumpy(), ref["rsp"])


def test_truncated_sparse_file_is_refused():
    with open(os.path.join(FIX, "sparse_mxnet.params"), "rb") as f:
        buf = f.read()
    with pytest.raises(ValueError, match="truncated"):
        nd.load_frombuffer(buf[:200])


def test_dot_records_the_gradient_to_a_dense_weight():
    c = nd.array(A).tostype("csr")
    w = nd.array(np.arange(6.0).reshape(3, 2))
    w.attach_grad()
    with autograd.record():
        y = nd.sparse.dot(c, w)
    y.backward()
    np.testing.assert_allclose(w.grad.asnumpy(), A.T @ np.ones((3, 2)), rtol=1e-6)
    with autograd.record():
        z = nd.dot(c, w)
        loss = (z * z).sum()
    loss.backward()
    np.testing.assert_allclose(w.grad.asnumpy(), A.T @ (2 * A @ np.arange(6.0).reshape(3, 2)),
                               rtol=1e-5)


def _random_csr(draw_seed, shape, density):
    return spsp.random(*shape, density=density, format="csr", random_state=draw_seed,
                       dtype=np.float64)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10 ** 6), m=st.integers(1, 6), k=st.integers(1, 6),
       n=st.integers(1, 5), density=st.floats(0.0, 1.0), ta=st.booleans())
def test_dot_matches_scipy(seed, m, k, n, density, ta):
    a = _random_csr(seed, (k, m) if ta else (m, k), density)
    b = np.random.RandomState(seed).rand(k, n)
    lhs = sparse.csr_matrix(a)
    got = nd.sparse.dot(lhs, nd.array(b, dtype="float64"), transpose_a=ta)
    want = (a.T if ta else a) @ b
    assert got.stype == ("row_sparse" if ta else "default")
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-12, atol=1e-12)
    d = np.random.RandomState(seed + 1).rand(3, k)
    right = nd.sparse.dot(nd.array(d, dtype="float64"), sparse.csr_matrix(spsp.csr_matrix(b)))
    assert right.stype == "csr"
    np.testing.assert_allclose(right.asnumpy(), d @ b, rtol=1e-12, atol=1e-12)
    right_t = nd.sparse.dot(nd.array(d, dtype="float64"),
                            sparse.csr_matrix(spsp.csr_matrix(b.T)), transpose_b=True)
    np.testing.assert_allclose(right_t.asnumpy(), d @ b, rtol=1e-12, atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10 ** 6), rows=st.integers(1, 8), cols=st.integers(1, 5),
       density=st.floats(0.0, 1.0))
def test_elemwise_and_storage_round_trips_match_dense(seed, rows, cols, density):
    rng = np.random.RandomState(seed)
    x = rng.rand(rows, cols) * (rng.rand(rows, cols) < density)
    y = rng.rand(rows, cols) * (rng.rand(rows, cols) < density)
    for stype in ("csr", "row_sparse"):
        a, b = nd.array(x).tostype(stype), nd.array(y).tostype(stype)
        np.testing.assert_array_equal(a.asnumpy(), x.astype(np.float32))
        for f, g in ((nd.sparse.elemwise_add, np.add), (nd.sparse.elemwise_sub, np.subtract),
                     (nd.sparse.elemwise_mul, np.multiply)):
            out = f(a, b)
            assert out.stype == stype
            np.testing.assert_allclose(out.asnumpy(), g(x, y), rtol=1e-6, atol=1e-7)
            out.check_format()
    r = nd.array(x).tostype("row_sparse")
    kept = nd.sparse.retain(r, nd.array(np.arange(0, rows, 2)))
    want = x.copy()
    want[1::2] = 0
    np.testing.assert_allclose(kept.asnumpy(), want, rtol=1e-6)


def test_sparse_arrays_on_every_context(ctx):
    x = nd.array(A, ctx=ctx)
    c, r = x.tostype("csr"), x.tostype("row_sparse")
    assert c.context == ctx and r.context == ctx
    np.testing.assert_array_equal(c.asnumpy(), A)
    np.testing.assert_array_equal(r.tostype("default").asnumpy(), A)
    w = nd.array(np.ones((3, 2), np.float32), ctx=ctx)
    np.testing.assert_allclose(nd.sparse.dot(c, w).asnumpy(), A @ np.ones((3, 2)), rtol=1e-6)
    np.testing.assert_allclose(nd.exp(r).asnumpy(), np.exp(A), rtol=1e-6)  # dense fallback
    assert (c * 2).stype == "csr" and (c * 2).context == ctx


def test_dense_results_of_sparse_inputs_are_writable():
    r = nd.array(A).tostype("row_sparse")
    d = r.tostype("default")
    d[:] = 1  # a dense array owns its values, whatever it was made from
    assert (d.asnumpy() == 1).all()
    e = nd.expand_dims(r, axis=0)  # dense fallback
    e[:] = 2
    assert (e.asnumpy() == 2).all()
    np.testing.assert_array_equal(r.asnumpy(), A)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int32"])
def test_tostype_csr_keeps_every_dtype_mxnet_stores(dtype):
    """MXNet stores float16 csr arrays too (scipy, which the dense-to-csr conversion used
    before, refuses float16); the stored values are the nonzeros, NaN included, row by row."""
    d = np.array([[0, 1.5, 0], [2, 0, -3], [0, 0, 0]]).astype(dtype)
    x = nd.array(d, dtype=dtype).tostype("csr")
    assert x.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(x.indptr.asnumpy(), [0, 1, 3, 3])
    np.testing.assert_array_equal(x.indices.asnumpy(), [1, 0, 2])
    np.testing.assert_array_equal(x.asnumpy(), d)
    if dtype.startswith("float"):
        y = nd.array([[np.nan, 0]], dtype=dtype).tostype("csr")
        assert y.indices.asnumpy().tolist() == [0] and np.isnan(y.data.asnumpy()[0])
