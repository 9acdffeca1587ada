"""libmxnet's subgraph C functions as MXNet's own tests call them (``mxnet.base._LIB``
through ctypes), ``MXNET_SUBGRAPH_BACKEND`` at bind, the ``'default_v2'`` backend, and shape
inference back through a subgraph node."""
import ctypes

import numpy as np
import pytest
from numpy.testing import assert_allclose

import gluonlite as mx
from gluonlite import sym
from gluonlite.base import (MXNetError, SymbolHandle, _LIB, c_str, c_str_array, check_call,
                            mx_uint)
from gluonlite.subgraph import partition_graph

from sgutil import inner_op_names, subgraph_nodes


def _net():
    x = sym.var("x", shape=(2, 3))
    return sym.tanh(sym.exp(x)) + sym.sin(x)


def _outputs(s, arrays, grad_req="null"):
    exe = s.simple_bind(mx.cpu(), grad_req=grad_req)
    for name, value in arrays.items():
        exe.arg_dict[name][:] = value
    return [o.asnumpy() for o in exe.forward()], exe


def _build(s, backend, names):
    out = SymbolHandle()
    check_call(_LIB.MXBuildSubgraphByOpNames(s.handle, c_str(backend), mx_uint(len(names)),
                                             c_str_array(names), ctypes.byref(out)))
    return sym.Symbol(out)


def test_ctypes_helpers():
    assert c_str("exp").value == b"exp"
    assert list(c_str_array(["exp", "tanh"])) == [b"exp", b"tanh"]
    assert mx_uint is ctypes.c_uint and SymbolHandle is ctypes.c_void_p
    assert check_call(0) is None
    with pytest.raises(MXNetError, match="returned -1"):
        check_call(-1)


def test_unknown_c_function_is_named():
    with pytest.raises(AttributeError, match="'MXNDArrayFromDLPack' is not available.*"
                                             "MXBuildSubgraphByOpNames"):
        _LIB.MXNDArrayFromDLPack


@pytest.mark.parametrize("backend", ["default", "default_v2"])
def test_build_subgraph_by_op_names(backend):
    s = _net()
    p = _build(s, backend, ["exp", "tanh"])
    assert inner_op_names(p) == inner_op_names(partition_graph(s, "default", ["exp", "tanh"]))
    assert len(subgraph_nodes(p)) == 1
    assert p.list_inputs() == s.list_inputs()
    x = np.random.RandomState(0).uniform(-1, 1, (2, 3))
    assert_allclose(_outputs(p, {"x": x})[0][0], _outputs(s, {"x": x})[0][0], rtol=1e-6)


def test_symbol_handle_is_spent_once_taken():
    out = SymbolHandle()
    _LIB.MXBuildSubgraphByOpNames(_net().handle, c_str("default"), mx_uint(1),
                                  c_str_array(["exp"]), ctypes.byref(out))
    sym.Symbol(out)
    with pytest.raises(ValueError, match="stands for no object"):
        sym.Symbol(out)


def test_build_rejects_bad_arguments():
    out = SymbolHandle()
    with pytest.raises(TypeError, match="sym_handle must be a Symbol's handle"):
        _LIB.MXBuildSubgraphByOpNames(3, c_str("default"), mx_uint(0), None, ctypes.byref(out))
    with pytest.raises(ValueError, match="no_such_backend"):
        _build(_net(), "no_such_backend", ["exp"])
    with pytest.raises(TypeError, match="op_names.*2 names expected"):
        _LIB.MXBuildSubgraphByOpNames(_net().handle, c_str("default"), mx_uint(2), None,
                                      ctypes.byref(out))
    with pytest.raises(TypeError, match="expected ctypes.byref"):
        _LIB.MXBuildSubgraphByOpNames(_net().handle, c_str("default"), mx_uint(1),
                                      c_str_array(["exp"]), 5)


def test_v2_names_drive_optimize_for_and_hybridize():
    s = _net()
    check_call(_LIB.MXSetSubgraphPropertyOpNamesV2(c_str("default_v2"), mx_uint(2),
                                                   c_str_array(["exp", "tanh"])))
    try:
        p = s.optimize_for("default_v2")
        assert inner_op_names(p) == inner_op_names(partition_graph(s, "default",
                                                                   ["exp", "tanh"]))
        assert len(inner_op_names(p)) == 1 and len(inner_op_names(p)[0]) == 2
        net = mx.gluon.nn.SymbolBlock(s, [sym.var("x")])
        net.hybridize(backend="default_v2")
        x = np.random.RandomState(1).uniform(-1, 1, (2, 3)).astype(np.float32)
        assert_allclose(net(mx.nd.array(x)).asnumpy(), _outputs(s, {"x": x})[0][0], rtol=1e-6)
    finally:
        check_call(_LIB.MXRemoveSubgraphPropertyOpNamesV2(c_str("default_v2")))
    assert subgraph_nodes(s.optimize_for("default_v2")) == []


def test_mxnet_subgraph_backend_at_bind(monkeypatch):
    s = _net()
    x = np.random.RandomState(2).uniform(-1, 1, (2, 3))
    want, plain = _outputs(s, {"x": x})
    assert "_default_subgraph_op" not in plain.debug_str()
    check_call(_LIB.MXSetSubgraphPropertyOpNames(c_str("default"), mx_uint(1),
                                                 c_str_array(["sin"])))
    try:
        monkeypatch.setenv("MXNET_SUBGRAPH_BACKEND", "default")
        got, exe = _outputs(s, {"x": x})
        assert "_default_subgraph_op" in exe.debug_str()
        assert_allclose(got[0], want[0], rtol=1e-6)
        # a hybridized block does not read MXNet's variable, as on MXNet
        net = mx.gluon.nn.SymbolBlock(s, [sym.var("x")])
        net.hybridize()
        assert_allclose(net(mx.nd.array(x)).asnumpy(), want[0], rtol=1e-6)
        monkeypatch.setenv("MXNET_SUBGRAPH_BACKEND", "NONE")
        assert "_default_subgraph_op" not in _outputs(s, {"x": x})[1].debug_str()
    finally:
        check_call(_LIB.MXRemoveSubgraphPropertyOpNames(c_str("default")))


def test_gluonlite_variable_wins_over_mxnets(monkeypatch):
    s = _net()
    monkeypatch.setenv("GLUONLITE_SUBGRAPH_BACKEND", "default")
    monkeypatch.setenv("MXNET_SUBGRAPH_BACKEND", "no_such_backend")   # not read, not refused
    check_call(_LIB.MXSetSubgraphPropertyOpNames(c_str("default"), mx_uint(1),
                                                 c_str_array(["exp"])))
    try:
        exe = s.simple_bind(mx.cpu(), grad_req="null")   # no error for MXNet's name
        assert "_default_subgraph_op" in exe.debug_str()
    finally:
        check_call(_LIB.MXRemoveSubgraphPropertyOpNames(c_str("default")))


def test_mxnet_subgraph_backend_unknown_is_named(monkeypatch):
    monkeypatch.setenv("MXNET_SUBGRAPH_BACKEND", "TensorRT")
    with pytest.raises(ValueError, match="MXNET_SUBGRAPH_BACKEND='TensorRT'.*default"):
        _net().simple_bind(mx.cpu(), grad_req="null")


def test_mxnet_subgraph_backend_inference_only_skipped_with_gradients(monkeypatch):
    x = sym.var("x", shape=(2, 3))
    s = sym.relu(sym.FullyConnected(x, num_hidden=4, name="fc"))
    monkeypatch.setenv("MXNET_SUBGRAPH_BACKEND", "MKLDNN")   # gluonlite's FUSE
    infer = s.simple_bind(mx.cpu(), grad_req="null")
    assert "_sg_fuse" in infer.debug_str()
    train = s.simple_bind(mx.cpu(), grad_req="write")
    assert "_sg_fuse" not in train.debug_str()


@pytest.mark.parametrize("names", [["sin"], ["Convolution"], ["sin", "Convolution"]])
def test_shape_inferred_back_through_a_subgraph_node(names):
    # MXNet's network_structure_6: the weight's channels are known only from the convolution
    # that reads sin's output
    data = sym.var("data1", shape=(3, 3, 10, 10))
    w = sym.var("data2", shape=(1, 0, 2, 2))
    s = sym.Convolution(data=data, weight=sym.sin(w), kernel=(2, 2), num_filter=1)
    p = partition_graph(s, "default", names)
    assert subgraph_nodes(p)
    assert p.infer_shape()[0] == s.infer_shape()[0] == [(3, 3, 10, 10), (1, 3, 2, 2), (1,)]
    rng = np.random.RandomState(3)
    arrays = {n: rng.uniform(-1, 1, shape)
              for n, shape in zip(s.list_arguments(), s.infer_shape()[0])}
    assert_allclose(_outputs(p, arrays)[0][0], _outputs(s, arrays)[0][0], rtol=1e-5)


def test_optimize_for_takes_mxnet_options():
    s = _net()
    a = s.optimize_for("default", op_names=["exp", "tanh"], dedup_subgraph=True)
    b = s.optimize_for("default", None, None, None, None, None, None, False,
                       op_names=["exp", "tanh"], dedup_subgraph=False)
    assert a.tojson() == b.tojson()
    with pytest.raises(TypeError, match="dedup_subgraph must be a bool"):
        s.optimize_for("default", op_names=["exp"], dedup_subgraph="yes")
