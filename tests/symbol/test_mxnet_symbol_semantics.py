"""Symbol and Executor behaviours MXNet 1.9.1's test_symbol.py relies on (checked there):
`bool(symbol)` raises NotImplementedForSymbol, symbols pickle, a shape given to infer_shape
replaces the one a variable declares, partly known shapes flow back through elementwise
operators, `_gen_atomic_symbol`, and `Executor.backward` after an inference forward or with
no gradient path."""
import pickle

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd, sym
from gluonlite.base import MXNetError, NotImplementedForSymbol


def test_bool_of_a_symbol_raises_not_implemented_for_symbol():
    with pytest.raises(NotImplementedForSymbol, match=r'__bool__ \(namely operator "bool"\)'):
        bool(sym.var("x"))
    with pytest.raises(MXNetError):
        bool(sym.var("x") + 1)
    with pytest.raises(TypeError, match="no truth value"):
        bool(sym.var("x"))


def test_symbols_pickle_through_their_json():
    x = sym.var("x")
    net = sym.FullyConnected(sym.Activation(x, act_type="relu"), num_hidden=3, name="fc")
    group = sym.Group([net, sym.softmax(net)])
    back = pickle.loads(pickle.dumps([net, group]))
    assert back[0].tojson() == net.tojson() and back[1].tojson() == group.tojson()
    args = {"x": nd.array([[1, -2]]), "fc_weight": nd.array([[1, 1], [2, 0], [0, 3]]),
            "fc_bias": nd.array([0.5, 0, -1])}
    assert np.array_equal(back[0].eval(mx.cpu(), **args)[0].asnumpy(), [[1.5, 2, -1]])


def test_infer_shape_given_shape_replaces_declared():
    a = sym.var("a", shape=(2, 3))
    c = sym.elemwise_add(a, sym.var("b"))
    assert c.infer_shape() == ([(2, 3), (2, 3)], [(2, 3)], [])
    assert c.infer_shape(a=(5, 6)) == ([(5, 6), (5, 6)], [(5, 6)], [])
    with pytest.raises(ValueError, match="elemwise_add"):
        c.infer_shape(a=(5, 6), b=(2, 3))


def test_partial_shape_flows_back_through_cast():
    data = sym.var("data", shape=(1, 0, 0, 0))
    weight = sym.var("weight")
    conv = sym.Convolution(sym.cast(data, dtype="float16"), sym.cast(weight, dtype="float16"),
                           pad=(3, 3), num_filter=64, stride=(2, 2), no_bias=True,
                           kernel=(7, 7))
    args, outs, _ = conv.infer_shape_partial()
    assert dict(zip(conv.list_arguments(), args)) == {"data": (1, 0, 0, 0),
                                                      "weight": (64, 0, 7, 7)}
    assert outs == [(1, 64, 0, 0)]
    # an elementwise chain learns its input's full shape from a later operator
    fc = sym.FullyConnected(sym.relu(sym.var("x") * 2), num_hidden=4, name="fc")
    args, _, _ = fc.infer_shape(fc_weight=(4, 5), x=(3, 5))
    assert args[0] == (3, 5)


def test_gen_atomic_symbol():
    s = sym.RNN(sym.var("data"), sym.var("param"), sym.var("h0"), sym.var("h1"),
                state_size=10, num_layers=2, bidirectional=True, state_outputs=True,
                mode="lstm")
    atom = s._gen_atomic_symbol()
    assert atom.list_arguments() == []
    assert atom.list_outputs() == ["output", "state_output", "statecell_output"]
    assert atom.list_attr() == s.list_attr()
    fc = sym.FullyConnected(sym.var("x"), num_hidden=3, name="fc", attr={"__lr_mult__": "2"})
    assert fc._gen_atomic_symbol().list_attr() == {"num_hidden": "3"}
    with pytest.raises(ValueError, match="_gen_atomic_symbol: 'x' is a variable"):
        sym.var("x")._gen_atomic_symbol()


def test_backward_after_inference_forward():
    x = sym.var("x")
    y = sym.Dropout(x * x, p=0.5)  # identity in inference: the gradient is 2x exactly
    exe = y.simple_bind(mx.cpu(), x=(2, 3))
    exe.forward(x=nd.array([[1, 2, 3], [4, 5, 6]]))
    exe.backward(nd.ones((2, 3)))
    assert np.array_equal(exe.grad_dict["x"].asnumpy(), [[2, 4, 6], [8, 10, 12]])


def test_backward_without_a_gradient_path_writes_zeros():
    x = sym.var("x")
    exe = sym.stop_gradient(x * 3).simple_bind(mx.cpu(), x=(2,))
    exe.grad_dict["x"][:] = 7
    exe.forward(is_train=True, x=nd.array([1, 2]))
    exe.backward()
    assert np.array_equal(exe.grad_dict["x"].asnumpy(), [0, 0])
    # with no forward before it too, as MXNet
    fresh = sym.stop_gradient(x * 3).simple_bind(mx.cpu(), x=(2,))
    fresh.grad_dict["x"][:] = 7
    fresh.backward()
    assert np.array_equal(fresh.grad_dict["x"].asnumpy(), [0, 0])


def _chain():
    data = sym.var("data")
    for _ in range(4):
        data = data * data
    return data


def test_debug_str_reports_memory_as_mxnet():
    shape = (4, 256, 256)  # 1 MB of float32 per value
    train = _chain().simple_bind(mx.cpu(), data=shape)
    infer = _chain().simple_bind(mx.cpu(), data=shape, grad_req="null")
    stopped = sym.stop_gradient(_chain()).simple_bind(mx.cpu(), data=shape)
    mb = [int(e.debug_str().splitlines()[-1].split()[1]) for e in (train, infer, stopped)]
    # training keeps the four products and the input of each for the backward; inference
    # and a graph behind stop_gradient share buffers by liveness (MXNet: the same relation)
    assert mb[0] == 4 and mb[1] == mb[2] < mb[0]
    assert train.debug_str().splitlines()[-1] == "Total 4 MB allocated"


def test_steps_behind_stop_gradient_are_not_differentiated():
    x = sym.var("x")
    y = sym.stop_gradient(x * x) + x * 3
    exe = y.simple_bind(mx.cpu(), x=(2,))
    exe.forward(is_train=True, x=nd.array([1, 2]))
    exe.backward(nd.ones((2,)))
    assert np.array_equal(exe.grad_dict["x"].asnumpy(), [3, 3])
