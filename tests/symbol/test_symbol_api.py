"""Symbol and Executor as MXNet 1.9.1's: grouping and indexing, attributes (hidden keys),
dtype inference between inputs that share a dtype, every args_grad/grad_req form of bind,
simple_bind's sharing, Executor.reshape/copy_params_from/output_dict, JSON written by MXNet
before 1.0, the fluent methods shared with NDArray. Numbers settled with MXNet 1.9.1."""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd, sym
from gluonlite.ops import fluent

_HERE = os.path.dirname(__file__)


def _graph():
    x, w = sym.var("x"), sym.var("w")
    return sym.elemwise_add(sym.broadcast_mul(x, w, name="mul"), x, name="out")


def _args():
    return {"x": nd.array([1, 2]), "w": nd.array([3, 4])}


def _grads(exe):
    return [None if g is None else g.asnumpy().tolist() for g in exe.grad_arrays]


# ---- structure --------------------------------------------------------------------------
def test_group_indexing_internals_and_children():
    y = _graph()
    g = sym.Group([y, sym.relu(y, name="r")])
    assert g.list_outputs() == ["out_output", "r_output"]
    assert g[1].name == "r" and g["out_output"].name == "out"
    assert g.get_internals().list_outputs() == ["x", "w", "mul_output", "out_output",
                                                "r_output"]
    assert y.get_children().list_outputs() == ["mul_output", "x"]
    assert sym.var("x").get_children() is None
    with pytest.raises(ValueError, match="no output named 'nope'"):
        g["nope"]


def test_hidden_attributes_are_stored_dunder_and_listed_under_both_names():
    x = sym.var("x")
    fc = sym.FullyConnected(x, num_hidden=3, name="fc", attr={"lr_mult": "2"})
    assert fc.attr("lr_mult") == "2"
    assert fc.list_attr() == {"num_hidden": "3", "__lr_mult__": "2", "lr_mult": "2"}
    assert fc.attr_dict()["fc_weight"] == {"num_hidden": "3", "__lr_mult__": "2",
                                           "lr_mult": "2"}
    assert '"__lr_mult__": "2"' in fc.tojson() and '"lr_mult"' not in fc.tojson()
    with pytest.raises(ValueError, match="weight_lr_mult.*deprecated"):
        sym.FullyConnected(x, num_hidden=3, attr={"weight_lr_mult": "2"})


def test_infer_type_fills_inputs_that_must_share_a_dtype():
    y = _graph()
    assert y.infer_type(x="float32") == ([np.float32, np.float32], [np.float32], [])
    assert y.infer_type(w="float16") == ([np.float16, np.float16], [np.float16], [])
    assert y.infer_type_partial() == ([None, None], [None], [])
    assert y.infer_shape_partial(x=(2, 0)) == ([(2, 0), ()], [(2, 0)], [])


def test_ndarray_only_methods_raise_not_implemented_for_symbol():
    for name in ("asnumpy", "asscalar", "copy", "detach", "backward", "wait_to_read"):
        with pytest.raises(mx.base.NotImplementedForSymbol, match=f"Function {name} is not"):
            getattr(sym.var("x"), name)()
    assert "Cast" in sym.var("x").astype("float16").tojson()


def test_fluent_methods_come_from_one_table_for_ndarray_and_symbol():
    for name in fluent.FLUENT:
        if hasattr(nd, name):
            assert hasattr(nd.NDArray, name), name
        if hasattr(sym, name):
            assert hasattr(sym.Symbol, name), name
    assert len(fluent.FLUENT) == len(set(fluent.FLUENT))
    x = nd.array([[1, -2], [3, 4]])
    np.testing.assert_array_equal(x.abs().sum(axis=1).asnumpy(), [3, 7])
    np.testing.assert_allclose(x.norm().asnumpy(), [np.sqrt(30)], rtol=1e-6)
    s = sym.var("x").abs().sum(axis=1)
    np.testing.assert_array_equal(s.eval(x=x)[0].asnumpy(), [3, 7])


# ---- bind -------------------------------------------------------------------------------
def test_bind_args_grad_list_with_none():
    exe = _graph().bind(mx.cpu(), _args(), args_grad=[nd.zeros(2), None])
    exe.forward(is_train=True)
    exe.backward(nd.ones(2))
    assert _grads(exe) == [[4.0, 5.0], None]


def test_bind_args_grad_dict_with_some_names():
    exe = _graph().bind(mx.cpu(), _args(), args_grad={"w": nd.zeros(2)})
    exe.forward(is_train=True)
    exe.backward(nd.ones(2))
    assert _grads(exe) == [None, [1.0, 2.0]]


def test_bind_grad_req_dict_add_accumulates_and_null_skips():
    exe = _graph().bind(mx.cpu(), _args(), args_grad={"w": nd.zeros(2), "x": nd.zeros(2)},
                        grad_req={"x": "null", "w": "add"})
    for _ in range(2):
        exe.forward(is_train=True)
        exe.backward(nd.ones(2))
    assert _grads(exe) == [[0.0, 0.0], [2.0, 4.0]]


def test_bind_grad_req_list():
    exe = _graph().bind(mx.cpu(), _args(), args_grad=[nd.zeros(2), nd.zeros(2)],
                        grad_req=["write", "null"])
    exe.forward(is_train=True)
    exe.backward(nd.ones(2))
    assert _grads(exe) == [[4.0, 5.0], [0.0, 0.0]]


def test_output_dict_and_monitor():
    exe = _graph().bind(mx.cpu(), _args())
    seen = []
    exe.set_monitor_callback(lambda name, arr: seen.append(name))
    exe.forward()
    assert list(exe.output_dict) == ["out_output"]
    assert exe.output_dict["out_output"].asnumpy().tolist() == [4.0, 10.0]
    # MXNet 1.9.1's graph executor reports every operator's output, in graph order
    assert seen == ["mul_output", "out_output"]
    seen.clear()
    exe.set_monitor_callback(lambda name, arr: seen.append(name), monitor_all=True)
    exe.forward()
    assert seen == ["x", "mul_lhs", "w", "mul_rhs", "mul_output", "out_lhs", "x", "out_rhs",
                    "out_output"]


# ---- simple_bind, reshape, copy_params_from -----------------------------------------------
def test_executor_reshape_shares_same_shapes_and_checks_growth():
    y = _graph()
    exe = y.simple_bind(mx.cpu(), x=(2, 3), w=(2, 3))
    exe.arg_dict["x"][:] = 1
    up = exe.reshape(x=(4, 3), w=(4, 3), allow_up_sizing=True)
    assert up.arg_dict["x"].shape == (4, 3) and up.outputs[0].shape == (4, 3)
    with pytest.raises(ValueError, match="argument 'x' would grow from \\(2, 3\\) to \\(4, 3\\)"):
        exe.reshape(x=(4, 3), w=(4, 3))
    down = exe.reshape(x=(1, 3), w=(1, 3))
    assert down.arg_dict["x"].shape == (1, 3) and down.arg_dict["x"].asnumpy().sum() == 3
    same = exe.reshape(x=(2, 3), w=(2, 3))
    assert same.arg_dict["x"] is exe.arg_dict["x"]
    with pytest.raises(ValueError, match="unknown input name"):
        exe.reshape(z=(1,))


def test_copy_params_from():
    exe = _graph().simple_bind(mx.cpu(), x=(2, 3), w=(2, 3))
    exe.copy_params_from({"x": nd.ones((2, 3)), "w": nd.ones((2, 3)) * 2})
    assert exe.forward()[0].asnumpy().tolist() == [[3.0] * 3] * 2
    with pytest.raises(ValueError, match="'q' is not an argument"):
        exe.copy_params_from({"q": nd.ones((2, 3))})
    exe.copy_params_from({"q": nd.ones((2, 3))}, allow_extra_params=True)
    with pytest.raises(ValueError, match="argument 'x' has shape \\(2, 3\\)"):
        exe.copy_params_from({"x": nd.ones((3,))})


def test_simple_bind_shares_named_arguments_with_shared_exec_and_fills_shared_buffer():
    y = _graph()
    first = y.simple_bind(mx.cpu(), x=(2, 3), w=(2, 3))
    second = y.simple_bind(mx.cpu(), x=(2, 3), w=(2, 3), shared_exec=first,
                           shared_arg_names=["w"])
    assert second.arg_dict["w"] is first.arg_dict["w"]
    assert second.arg_dict["x"] is not first.arg_dict["x"]
    buf = {}
    third = y.simple_bind(mx.cpu(), x=(2, 3), w=(2, 3), shared_buffer=buf)
    assert sorted(buf) == ["w", "x"] and buf["x"] is third.arg_dict["x"]
    fourth = y.simple_bind(mx.cpu(), x=(2, 3), w=(2, 3), shared_buffer=buf)
    assert fourth.arg_dict["x"] is third.arg_dict["x"]
    dense_values = y.simple_bind(mx.cpu(), x=(2, 3), w=(2, 3), stype_dict={"x": "csr"})
    assert dense_values.arg_dict["x"].shape == (2, 3)
    with pytest.raises(ValueError, match=r"stype_dict\['x'\]: unknown storage type 'coo'"):
        y.simple_bind(mx.cpu(), x=(2, 3), w=(2, 3), stype_dict={"x": "coo"})


def test_simple_bind_type_dict():
    exe = _graph().simple_bind(mx.cpu(), x=(2,), w=(2,), type_dict={"x": "float64"})
    assert exe.arg_dict["w"].dtype == np.float64 and exe.outputs[0].dtype == np.float64


# ---- JSON written by MXNet before 1.0 ---------------------------------------------------
def test_legacy_json_upgraded_as_mxnet_does():
    with open(os.path.join(_HERE, "..", "fixtures", "ndsym", "expected.json")) as f:
        want = json.load(f)["LEGACY_JSON"]
    s = sym.load(os.path.join(_HERE, "data", "legacy_v08.json"))
    assert s.list_arguments() == want["arguments"]
    assert s.list_auxiliary_states() == want["aux"]
    got_attrs = s.attr_dict()
    for node, attrs in want["attr_dict"].items():
        # MXNet also copies the node's parsed attribute defaults onto the variables it adds;
        # the hidden keys, their plain names and the initializers are what matter.
        for k, v in attrs.items():
            if k.startswith("__") or k in mx.symbol.symbol.HIDDEN_KEYS:
                assert got_attrs[node][k] == v, (node, k)
    exe = s.bind(mx.cpu(), {k: nd.array(v) for k, v in want["inputs"].items()},
                 aux_states={k: nd.array(v) for k, v in want["aux_values"].items()})
    np.testing.assert_allclose(exe.forward()[0].asnumpy(), want["output"], rtol=1e-5,
                               atol=1e-6)


def test_sym_pow_names_nodes_as_mxnet():
    x = sym.var("x")
    with mx.name.NameManager():
        assert [sym.pow(x, 2).name, sym.pow(2, x).name, sym.power(x, x).name] == [
            "_powerscalar0", "_rpowerscalar0", "_power0"]
    assert sym.pow(2, 3) == 8
    np.testing.assert_array_equal(sym.pow(2, x).eval(x=nd.array([1, 3]))[0].asnumpy(), [2, 8])


def test_var_keeps_the_storage_type_as_mxnet_does():
    # MXNet 1.9.1 writes the storage type's code (0 default, 1 row_sparse, 2 csr)
    assert sym.var("x", stype="default").attr("__storage_type__") == "0"
    assert sym.var("x", stype="row_sparse").attr("__storage_type__") == "1"
    assert sym.var("x", stype="csr").attr("__storage_type__") == "2"
    assert sym.var("x").attr("__storage_type__") is None
    with pytest.raises(ValueError, match="var 'x': unknown storage type 'coo'"):
        sym.var("x", stype="coo")


def test_composition_replaces_variables_in_a_copy():
    fc = sym.FullyConnected(sym.var("data"), num_hidden=2, name="fc")
    composed = fc(data=sym.relu(sym.var("x"), name="r"))
    assert composed.list_arguments() == ["x", "fc_weight", "fc_bias"]
    assert fc.list_arguments() == ["data", "fc_weight", "fc_bias"] and composed.name == "fc"
    assert fc(data=sym.var("z"), name="new").name == "new" and fc.name == "fc"
    out = composed.eval(x=nd.array([[-1, 2]]), fc_weight=nd.ones((2, 2)), fc_bias=nd.zeros(2))
    assert out[0].asnumpy().tolist() == [[2.0, 2.0]]
    fc._compose(data=sym.var("q"))
    assert fc.list_arguments() == ["q", "fc_weight", "fc_bias"]
    with pytest.raises(ValueError, match="'nothere' is not a variable of the graph"):
        fc(nothere=sym.var("y"))
    with pytest.raises(TypeError, match="the value for 'q' must be a Symbol"):
        fc(q=1)
    with pytest.raises(TypeError, match="keyword arguments only"):
        fc(sym.var("z"))


def test_executor_reshape_keeps_shapes_the_new_ones_leave_open():
    y = sym.broadcast_add(sym.var("x"), sym.var("b"))
    exe = y.simple_bind(mx.cpu(), x=(2, 3), b=(1, 3))
    exe.arg_dict["b"][:] = 5
    bigger = exe.reshape(x=(4, 3), allow_up_sizing=True)
    assert bigger.arg_dict["b"] is exe.arg_dict["b"]
    assert bigger.forward()[0].shape == (4, 3)
