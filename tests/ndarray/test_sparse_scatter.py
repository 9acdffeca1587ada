"""MXNet's scatter operators (`_scatter_elemwise_div`, `_scatter_plus_scalar`,
`_scatter_minus_scalar`): on a sparse left-hand side they compute where it stores values and
keep its storage. The numbers below are MXNet 1.9.1's for the same calls."""
import warnings

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd, sym

LHS = np.array([[0, 0], [2, 4], [0, 0], [1, -3]], np.float32)
RHS = np.array([[1, 2], [4, 0], [1, 1], [0, 0]], np.float32)
INF = np.inf
# MXNet 1.9.1: _scatter_elemwise_div of the row_sparse LHS by RHS in any storage
DIV = [[0.0, 0.0], [0.5, INF], [0.0, 0.0], [INF, -INF]]


@pytest.fixture(autouse=True)
def _quiet_fallbacks():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mx.nd.storage.StorageFallbackWarning)
        yield


@pytest.mark.parametrize("rhs_stype", ["default", "row_sparse", "csr"])
def test_scatter_div_of_row_sparse_keeps_its_rows(rhs_stype):
    y = nd._internal._scatter_elemwise_div(nd.array(LHS).tostype("row_sparse"),
                                           nd.array(RHS).tostype(rhs_stype))
    assert y.stype == "row_sparse"
    np.testing.assert_array_equal(y.indices.asnumpy(), [1, 3])
    np.testing.assert_array_equal(y.asnumpy(), DIV)


@pytest.mark.parametrize("lhs_stype,rhs_stype", [("csr", "default"), ("default", "row_sparse")])
def test_scatter_div_of_csr_or_dense_is_the_dense_division(lhs_stype, rhs_stype):
    y = nd._internal._scatter_elemwise_div(nd.array(LHS).tostype(lhs_stype),
                                           nd.array(RHS).tostype(rhs_stype))
    assert y.stype == "default"
    np.testing.assert_array_equal(y.asnumpy(), DIV)


@pytest.mark.parametrize("name,want_stored,want_dense", [
    ("_scatter_plus_scalar", [[0, 0], [4.5, 6.5], [0, 0], [3.5, -0.5]],
     [[2.5, 2.5], [4.5, 6.5], [2.5, 2.5], [3.5, -0.5]]),
    ("_scatter_minus_scalar", [[0, 0], [-0.5, 1.5], [0, 0], [-1.5, -5.5]],
     [[-2.5, -2.5], [-0.5, 1.5], [-2.5, -2.5], [-1.5, -5.5]])])
def test_scatter_scalar_ops_shift_only_stored_values(name, want_stored, want_dense):
    f = getattr(nd._internal, name)
    for stype in ("row_sparse", "csr"):
        y = f(nd.array(LHS).tostype(stype), 2.5)
        assert y.stype == stype
        np.testing.assert_array_equal(y.asnumpy(), want_stored)
    y = f(nd.array(LHS), 2.5)
    assert y.stype == "default"
    np.testing.assert_array_equal(y.asnumpy(), want_dense)


def test_scatter_scalar_ops_cast_the_scalar_for_integer_data():
    x = nd.array([1, 2], dtype="int32")
    assert nd._internal._scatter_plus_scalar(x, 2.5).asnumpy().tolist() == [3, 4]
    x = nd.array([-3, 2], dtype="int32")
    assert nd._internal._scatter_minus_scalar(x, 2.5).asnumpy().tolist() == [-5, 0]


def test_scatter_ops_in_a_bound_graph_keep_the_sparse_storage():
    """As MXNet's test_sparse_operator.py::test_scatter_ops: the executor runs the operator
    on the row_sparse lhs itself (its missing rows stay missing, never 0/0)."""
    lhs = sym.var("lhs", stype="row_sparse")
    out = sym._internal._scatter_elemwise_div(lhs, sym.var("rhs"))
    exe = out.bind(mx.cpu(), args={"lhs": nd.array(LHS).tostype("row_sparse"),
                                   "rhs": nd.array(RHS)})
    y = exe.forward()[0]
    assert y.stype == "row_sparse"
    np.testing.assert_array_equal(y.indices.asnumpy(), [1, 3])
    np.testing.assert_array_equal(y.asnumpy(), DIV)
    plus = sym._internal._scatter_plus_scalar(sym.var("x", stype="csr"), 9)
    exe = plus.bind(mx.cpu(), args={"x": nd.array(LHS).tostype("csr")})
    y = exe.forward()[0]
    assert y.stype == "csr"
    np.testing.assert_array_equal(y.asnumpy(), np.where(LHS != 0, LHS + 9, 0))


def test_scatter_div_gradients_match_mxnet_and_finite_differences():
    a = nd.array([[1., 2.], [3., 4.]])
    b = nd.array([[2., 4.], [8., 16.]])
    head = nd.array([[1., 2.], [3., 4.]])
    a.attach_grad()
    b.attach_grad()
    with mx.autograd.record():
        y = nd._internal._scatter_elemwise_div(a, b)
    y.backward(head)
    # MXNet 1.9.1
    np.testing.assert_allclose(a.grad.asnumpy(), [[0.5, 0.5], [0.375, 0.25]])
    np.testing.assert_allclose(b.grad.asnumpy(), [[-0.25, -0.25], [-0.140625, -0.0625]])
    mx.test_utils.check_numeric_gradient(
        sym._internal._scatter_elemwise_div(sym.var("l"), sym.var("r")),
        {"l": np.array([[1., 2.], [3., 4.]]), "r": np.array([[2., 4.], [8., 16.]])},
        numeric_eps=1e-3, rtol=1e-2, atol=1e-4)
    mx.test_utils.check_numeric_gradient(sym._internal._scatter_minus_scalar(sym.var("x"), 3.0),
                                         {"x": np.array([[1., 2.], [3., 4.]])},
                                         numeric_eps=1e-3, rtol=1e-2, atol=1e-4)
