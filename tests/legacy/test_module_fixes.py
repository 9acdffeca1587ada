"""What MXNet 1.9.1's test_module.py needed: `sym.var(shape=int)`, `_internal._square_sum`,
csr data in `NDArrayIter` (with last_batch_handle='discard'), and `Module._arg_params` in each
parameter's storage type. Values are MXNet 1.9.1's (printed by it, quoted below)."""
import numpy as np
import pytest

import gluonlite as mx

X = [[0, 0], [1, 2], [0, 0], [3, -4], [0, 0]]


def test_var_with_an_int_shape_is_one_dimensional():
    a = mx.sym.var("a", shape=1)
    assert a.attr("__shape__") == "1"  # MXNet writes str(shape)
    assert a.infer_shape() == ([(1,)], [(1,)], [])
    assert mx.sym.load_json(a.tojson()).infer_shape()[0] == [(1,)]


def test_square_sum_values_and_gradient():
    x = mx.nd.array(X)
    rsp = x.tostype("row_sparse")
    # MXNet 1.9.1: axis=1 keepdims -> [[0], [5], [0], [25], [0]]; axis=0 -> [[10, 20]]
    np.testing.assert_array_equal(
        mx.nd._internal._square_sum(rsp, axis=1, keepdims=True).asnumpy(),
        [[0], [5], [0], [25], [0]])
    np.testing.assert_array_equal(
        mx.nd._internal._square_sum(rsp, axis=0, keepdims=True).asnumpy(), [[10, 20]])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd._internal._square_sum(x, axis=1)
    y.backward(mx.nd.array([1, 2, 3, 4, 5]))
    np.testing.assert_array_equal(x.grad.asnumpy(),
                                  2 * np.asarray(X) * np.array([[1], [2], [3], [4], [5]]))
    s = mx.sym._internal._square_sum(mx.sym.var("v"), axis=1, keepdims=True)
    assert s.infer_shape(v=(5, 2))[1] == [(5, 1)]


def test_ndarrayiter_csr_batches_are_dense_rows():
    c = mx.nd.array(np.arange(40).reshape(10, 4)).tostype("csr")
    it = mx.io.NDArrayIter(c, mx.nd.arange(10), batch_size=3, last_batch_handle="discard")
    firsts = [b.data[0].asnumpy()[:, 0].tolist() for b in it]
    # MXNet 1.9.1: [0, 4, 8], [12, 16, 20], [24, 28, 32] (dense batches), the last dropped
    assert firsts == [[0, 4, 8], [12, 16, 20], [24, 28, 32]]
    assert it.provide_data[0].shape == (3, 4)
    np.random.seed(1)
    it = mx.io.NDArrayIter(c, mx.nd.arange(10), batch_size=3, last_batch_handle="discard",
                           shuffle=True)
    b = next(it)
    np.testing.assert_array_equal(b.data[0].asnumpy()[:, 0], b.label[0].asnumpy() * 4)
    with pytest.raises(NotImplementedError, match="need last_batch_handle='discard', got 'pad'"):
        mx.io.NDArrayIter(c, batch_size=3)


def test_module_arg_params_keep_the_storage_type():
    x = mx.sym.var("data", stype="csr")
    v = mx.sym.var("v", shape=(6, 1), init=mx.init.Uniform(scale=0.1), stype="row_sparse")
    b = mx.sym.var("b_bias", shape=1)
    out = mx.sym.LinearRegressionOutput(mx.sym.broadcast_add(mx.sym.dot(x, v), b),
                                        mx.sym.var("label"), name="out")
    mod = mx.mod.Module(out, data_names=["data"], label_names=["label"])
    mod.bind(data_shapes=[("data", (4, 6))], label_shapes=[("label", (4, 1))])
    mod.init_params()
    params = mod._arg_params
    assert params["v"].stype == "row_sparse" and params["b_bias"].stype == "default"
    assert np.abs(params["v"].asnumpy()).sum() != 0
    np.testing.assert_array_equal(params["v"].asnumpy(), mod.get_params()[0]["v"].asnumpy())
    assert mod._aux_params == {}
