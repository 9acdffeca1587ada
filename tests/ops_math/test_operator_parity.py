"""Behaviours MXNet 1.9.1's own operator tests rely on, against numbers its CPU build made
(fixtures/make_operator_parity.py runs the same code on both), and the errors it raises."""

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd, sym

from fixture_makers import maker, reference

make_parity = maker("make_operator_parity")
_REF = reference("operator_parity_mxnet.npz")


@pytest.mark.parametrize("part", make_parity.PARTS)
def test_matches_mxnet(part):
    got = getattr(make_parity, part)(mx)
    want = {k.split("/", 1)[1]: _REF[k] for k in _REF.files if k.startswith(part + "/")}
    assert sorted(got) == sorted(want)
    for k, w in want.items():
        assert got[k].shape == w.shape and got[k].dtype == w.dtype, k
        np.testing.assert_allclose(got[k], w, rtol=1e-5, atol=1e-6, err_msg=k)


def test_diag_refuses_a_diagonal_past_the_last():
    a = nd.ones((3, 4))
    assert nd.diag(a, k=4).shape == (0,)  # just past the last one: empty, as MXNet
    for k in (5, -4):
        with pytest.raises(mx.MXNetError, match=f"diag: diagonal k={k} does not exist"):
            nd.diag(a, k=k)


def test_gather_nd_refuses_out_of_bound_indices_with_index_error():
    data = nd.array([[0, 1, 2], [3, 4, 5]])
    assert nd.gather_nd(data, nd.array([[1, 0], [-1, -3]])).asnumpy().tolist() == [5, 0]
    for bad in (3, -4):
        with pytest.raises(IndexError, match=f"index {bad} is out of bounds for axis 1"):
            nd.gather_nd(data, nd.array([[0, 1], [0, bad]]))


def test_tile_zero_rep_needs_numpy_shape_semantics():
    x = nd.arange(6).reshape((2, 3))
    with pytest.raises(mx.MXNetError, match="has a 0"):
        nd.tile(x, (1, 0, 3))
    with mx.np_shape(True):
        assert nd.tile(x, (1, 0, 3)).shape == (1, 0, 9)


def test_pooling_same_convention():
    x = nd.array(np.random.rand(1, 1, 10))
    # pad with more entries than spatial axes: the first ones count, as MXNet
    y = nd.Pooling(x, kernel=2, stride=2, pad=(0, 0, 0), pool_type="max",
                   pooling_convention="same")
    assert y.shape == (1, 1, 5)
    with pytest.raises(mx.MXNetError, match="pads by itself"):
        nd.Pooling(x, kernel=2, stride=2, pad=2, pool_type="max", pooling_convention="same")
    with pytest.raises(mx.MXNetError, match="1-D pooling only"):
        nd.Pooling(nd.ones((1, 1, 4, 4)), kernel=(2, 2), pool_type="max",
                   pooling_convention="same")


def test_prelu_refuses_a_gamma_that_does_not_fit_axes_0_and_1():
    with pytest.raises(mx.MXNetError, match=r"gamma of shape \(5,\) does not broadcast"):
        nd.LeakyReLU(nd.ones((3, 4)), nd.ones((5,)), act_type="prelu")


def test_operator_arguments_in_mxnet_type_strings():
    args = mx.operator.get_operator_arguments("Activation")
    assert args.names == ["data", "act_type"]
    assert args.types == ["NDArray-or-Symbol",
                          "{'relu', 'sigmoid', 'softrelu', 'softsign', 'tanh'}, required"]
    fc = mx.operator.get_operator_arguments("FullyConnected")
    assert fc.types[3:] == ["int, required", "boolean, optional, default=0",
                            "boolean, optional, default=1"]


def test_arange_infer_range_alone_needs_stop():
    with pytest.raises(ValueError, match="infer_range=True takes its length"):
        nd.arange(0, infer_range=True)


def test_nd_array_of_a_scalar_is_zero_dimensional():
    for src in (np.ones([]), np.float32(3), 2.5):
        a = nd.array(src)
        assert a.shape == () and a.asscalar() == float(np.asarray(src))
    # arithmetic on such an array (numpy gives scalars for 0-d operands) keeps arrays
    x = nd.array(0.5)
    x.attach_grad()
    with mx.autograd.record():
        y = (1 - x ** 2) * x
    y.backward()
    assert y.shape == () and x.grad.shape == ()
    np.testing.assert_allclose([y.asnumpy(), x.grad.asnumpy()], [0.375, 0.25])


def test_symbol_mod_names_nodes_as_mxnet():
    a, b = sym.var("a"), sym.var("b")
    assert (a % b).list_outputs()[0].startswith("_mod")
    assert (a % 2).list_outputs()[0].startswith("_modscalar")
    assert (2 % a).list_outputs()[0].startswith("_rmodscalar")
