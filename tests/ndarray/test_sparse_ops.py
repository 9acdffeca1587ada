"""The sparse operators against MXNet 1.9.1: for every call of tests/fixtures/sparse_cases.py,
the storage type, dtype and values MXNet gave (tests/fixtures/sparse_cases_mxnet.json, made
by make_sparse_cases.py), and against scipy / the dense computation."""
import importlib.util
import json
import os

import numpy as np
import pytest
import scipy.sparse as spsp

import gluonlite as mx
from gluonlite import nd

FIX = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures")
_spec = importlib.util.spec_from_file_location("sparse_cases",
                                               os.path.join(FIX, "sparse_cases.py"))
sparse_cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sparse_cases)
with open(os.path.join(FIX, "sparse_cases_mxnet.json")) as _f:
    EXPECTED = json.load(_f)
CALLS = sparse_cases._calls(mx)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_sparse_call_matches_mxnet(name):
    want = EXPECTED[name]
    if want[0] == "error":
        with pytest.raises((ValueError, TypeError)):
            CALLS[name]().asnumpy()
        return
    got = CALLS[name]()
    assert got.stype == want[0], f"{name}: storage {got.stype}, MXNet gives {want[0]}"
    assert np.dtype(got.dtype).name == want[1]
    vals = np.nan_to_num(got.asnumpy().astype(np.float64), nan=1e300)
    np.testing.assert_allclose(vals, np.array(want[2]), rtol=1e-5, atol=1e-6, err_msg=name)


def test_refused_storage_combinations_name_the_operator_and_storage():
    x = nd.array([[1.0, 0.0], [0.0, 2.0]]).tostype("csr")
    with pytest.raises(ValueError, match=r"retain: storage types \(csr\) are not supported"):
        nd.sparse.retain(x, nd.array([0]))
    with pytest.raises(ValueError, match=r"clip: storage types \(csr\) .*a_min <= 0 <= a_max"):
        nd.sparse.clip(x, 0.1, 1.0)
    with pytest.raises(ValueError, match="broadcast_div: division of a csr array by a dense"):
        x / nd.ones((2, 2))
    assert (x / nd.ones((1, 2))).stype == "csr"


def test_dense_layers_take_sparse_inputs_imperative_and_hybridized():
    net = mx.gluon.nn.Dense(3, in_units=4)
    net.initialize()
    x = nd.array(np.eye(4)[:2]).tostype("csr")
    want = np.eye(4)[:2] @ net.weight.data().asnumpy().T + net.bias.data().asnumpy()
    np.testing.assert_allclose(net(x).asnumpy(), want, rtol=1e-6)
    net.hybridize()
    np.testing.assert_allclose(net(x).asnumpy(), want, rtol=1e-6)


def test_scipy_agrees_on_csr_kernels():
    a = spsp.random(5, 4, density=0.4, format="csr", random_state=1, dtype=np.float64)
    b = spsp.random(5, 4, density=0.4, format="csr", random_state=2, dtype=np.float64)
    x, y = nd.sparse.csr_matrix(a), nd.sparse.csr_matrix(b)
    np.testing.assert_allclose((x + y).asscipy().toarray(), (a + b).toarray())
    np.testing.assert_allclose((x - y).asscipy().toarray(), (a - b).toarray())
    np.testing.assert_allclose((x * y).asscipy().toarray(), a.multiply(b).toarray())
    np.testing.assert_allclose(nd.sparse.sum(x, axis=1).asnumpy(),
                               np.asarray(a.sum(axis=1))[:, 0])
    np.testing.assert_allclose(nd.sparse.slice(x, begin=(1, 1), end=(4, 3)).asnumpy(),
                               a[1:4, 1:3].toarray())


def test_getnnz_counts_stored_values():
    # MXNet 1.9.1: getnnz of [[1, 0], [2, 3]] as csr is [3]; per row (axis=1) [1, 2]
    x = nd.array([[1, 0], [2, 3]]).tostype("csr")
    np.testing.assert_array_equal(nd.contrib.getnnz(x).asnumpy(), [3])
    np.testing.assert_array_equal(nd.contrib.getnnz(x, axis=1).asnumpy(), [1, 2])
    assert nd.contrib.getnnz(x).dtype == np.int64
    explicit_zero = nd.sparse.csr_matrix(([0.0, 1.0], [0, 1], [0, 2]), shape=(1, 2))
    np.testing.assert_array_equal(nd.contrib.getnnz(explicit_zero).asnumpy(), [2])
    with pytest.raises(ValueError, match="getnnz takes a csr array"):
        nd.contrib.getnnz(nd.ones((2, 2)).tostype("row_sparse"))


def test_quadratic_and_crop_keep_csr_as_mxnet():
    # MXNet 1.9.1: quadratic of a csr array is csr when c == 0, dense otherwise; crop
    # (slice's alias) with int bounds slices csr rows
    x = nd.array([[0.0, 2.0], [1.0, 0.0], [0.0, 0.0]]).tostype("csr")
    q = nd.contrib.quadratic(x, a=1.0, b=2.0, c=0.0)
    assert q.stype == "csr"
    np.testing.assert_allclose(q.asnumpy(), [[0, 8], [3, 0], [0, 0]])
    assert nd.contrib.quadratic(x, a=1.0, b=0.0, c=1.0).stype == "default"
    rows = nd.crop(x, begin=1, end=3)
    assert rows.stype == "csr"
    np.testing.assert_array_equal(rows.asnumpy(), [[1, 0], [0, 0]])


@pytest.mark.parametrize("fn", ["add", "subtract", "multiply", "divide"])
def test_sparse_arithmetic_refuses_an_operand_that_is_no_array_or_number(fn):
    # MXNet: TypeError; the operator form leaves the choice to Python (NotImplemented)
    r = mx.nd.sparse.row_sparse_array(([[1., 2.]], [1]), shape=(3, 2))
    with pytest.raises(TypeError, match=f"nd.sparse.{fn}: .*got str"):
        getattr(mx.nd.sparse, fn)(r, "a")
    with pytest.raises(TypeError):  # Python's own message, after both sides declined
        r * "a"
    np.testing.assert_allclose(getattr(mx.nd.sparse, fn)(r, 2).asnumpy(),
                               getattr(np, fn)(r.asnumpy(), 2))


def test_square_sum_of_row_sparse_keeps_rows_for_axis_1_keepdims():
    # MXNet 1.9.1's fused kernel: row_sparse for axis=1 with keepdims, dense otherwise
    x = nd.array([[1.0, 2.0], [0.0, 0.0], [3.0, 0.0]]).tostype("row_sparse")
    r = nd._internal._square_sum(x, axis=1, keepdims=True)
    assert r.stype == "row_sparse" and r.shape == (3, 1)
    np.testing.assert_allclose(r.asnumpy().ravel(), [5, 0, 9])
    for axis, keep in ((1, False), (0, True), (0, False)):
        r = nd._internal._square_sum(x, axis=axis, keepdims=keep)
        assert r.stype == "default"
        np.testing.assert_allclose(r.asnumpy(), (x.asnumpy() ** 2).sum(axis=axis, keepdims=keep))
