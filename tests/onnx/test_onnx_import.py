"""`mx.onnx.import_model` / `import_to_gluon`: gluonlite's own exports round-trip (the MXNet
fixtures, loops included), and hand-built ONNX models of the kind torch.onnx.export writes
(LSTM/GRU/Conv with initializers) give ONNX Runtime's outputs; bad files are named."""
import os

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx_check import assert_close, run_onnx

import gluonlite as mx

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "mxnet")
NAMES = ["mlp", "bnnet", "cnn_lenet", "cnn_dcgan_gen", "cnn_conv1d", "layer_lstm",
         "layer_gru", "layer_rnn_relu", "foreach_lstm", "while_gru", "cond_then"]


def _as_list(y):
    return [v.asnumpy() for v in (y if isinstance(y, (list, tuple)) else [y])]


@pytest.mark.parametrize("name", NAMES)
def test_fixture_round_trip(name, tmp_path):
    io = np.load(os.path.join(HERE, f"{name}-io.npz"))
    ins = [io[f"in{k}"] for k in range(sum(k.startswith("in") for k in io.files))]
    names = ["data"] if len(ins) == 1 else [f"data{k}" for k in range(len(ins))]
    data = dict(zip(names, ins))
    sym_file = os.path.join(HERE, f"{name}-symbol.json")
    params_file = os.path.join(HERE, f"{name}-0000.params")
    order = [nm for nm in mx.sym.load(sym_file).list_inputs() if nm in data]
    path = str(tmp_path / f"{name}.onnx")
    mx.onnx.export_model(sym_file, params_file, [data[nm].shape for nm in order], np.float32,
                         path)
    want = _as_list(mx.gluon.SymbolBlock.imports(sym_file, names, params_file)(
        *[mx.nd.array(a) for a in ins]))
    net = mx.onnx.import_to_gluon(path)
    feeds = [mx.nd.array(data[nm]) for nm in order]
    assert_close(_as_list(net(*feeds)), want, 1e-5, f"{name} imported")
    net.hybridize()
    assert_close(_as_list(net(*feeds)), want, 1e-5, f"{name} imported, hybridized")
    sym, arg, aux = mx.onnx.import_model(path)
    assert set(arg) | set(aux) <= set(sym.list_inputs())


def _model(nodes, inputs, outputs, inits, opset=13):
    graph = helper.make_graph(nodes, "g", inputs, outputs,
                              initializer=[numpy_helper.from_array(v, k) for k, v in inits.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _vi(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("direction", ["forward", "bidirectional"])
def test_onnx_recurrent_layer_with_initializers(kind, direction, tmp_path):
    rng = np.random.default_rng(0)
    T, N, C, H = 4, 2, 3, 5
    D = 2 if direction == "bidirectional" else 1
    G = {"LSTM": 4, "GRU": 3, "RNN": 1}[kind]
    inits = {"W": rng.standard_normal((D, G * H, C)).astype(np.float32) * 0.5,
             "R": rng.standard_normal((D, G * H, H)).astype(np.float32) * 0.5,
             "B": rng.standard_normal((D, 2 * G * H)).astype(np.float32) * 0.5}
    ins = ["x", "W", "R", "B", "", "h0"] + (["c0"] if kind == "LSTM" else [])
    outs = ["y", "hn"] + (["cn"] if kind == "LSTM" else [])
    attrs = dict(hidden_size=H, direction=direction)
    if kind == "GRU":
        attrs["linear_before_reset"] = 1
    node = helper.make_node(kind, ins, outs, **attrs)
    inputs = [_vi("x", [T, N, C]), _vi("h0", [D, N, H])] + \
        ([_vi("c0", [D, N, H])] if kind == "LSTM" else [])
    outputs = [_vi("y", [T, D, N, H]), _vi("hn", [D, N, H])] + \
        ([_vi("cn", [D, N, H])] if kind == "LSTM" else [])
    path = str(tmp_path / "rnn.onnx")
    onnx.save(_model([node], inputs, outputs, inits), path)
    feeds = [rng.standard_normal((T, N, C)).astype(np.float32)] + \
        [rng.standard_normal((D, N, H)).astype(np.float32) for _ in inputs[1:]]
    want, _ = run_onnx(path, feeds)
    net = mx.onnx.import_to_gluon(path)
    net.hybridize()
    assert_close(_as_list(net(*[mx.nd.array(f) for f in feeds])), want, 1e-5, kind)


def test_onnx_conv_stack_with_initializers(tmp_path):
    rng = np.random.default_rng(1)
    inits = {"w1": rng.standard_normal((4, 3, 3, 3)).astype(np.float32),
             "b1": rng.standard_normal(4).astype(np.float32),
             "w2": rng.standard_normal((6, 2, 3, 3)).astype(np.float32)}
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Conv", ["p1", "w2"], ["c2"], group=2, strides=[2, 2]),
             helper.make_node("GlobalAveragePool", ["c2"], ["y"])]
    path = str(tmp_path / "conv.onnx")
    onnx.save(_model(nodes, [_vi("x", [2, 3, 10, 10])], [_vi("y", [2, 6, 1, 1])], inits), path)
    x = rng.standard_normal((2, 3, 10, 10)).astype(np.float32)
    want, _ = run_onnx(path, [x])
    net = mx.onnx.import_to_gluon(path)
    assert_close(_as_list(net(mx.nd.array(x))), want, 1e-5, "conv")


def test_unsupported_operators_are_all_named(tmp_path):
    nodes = [helper.make_node("Hardmax", ["x"], ["a"], name="hm"),
             helper.make_node("Relu", ["a"], ["b"]),
             helper.make_node("NonZero", ["b"], ["y"], name="nz")]
    path = str(tmp_path / "bad.onnx")
    onnx.save(_model(nodes, [_vi("x", [2, 3])], [helper.make_tensor_value_info(
        "y", TensorProto.INT64, None)], {}), path)
    with pytest.raises(mx.onnx.ONNXImportError) as info:
        mx.onnx.import_model(path)
    msg = str(info.value)
    assert "ONNX operator 'Hardmax', node 'hm'" in msg and "ONNX operator 'NonZero'" in msg


def test_an_old_opset_is_refused(tmp_path):
    path = str(tmp_path / "old.onnx")
    node = helper.make_node("Relu", ["x"], ["y"])
    onnx.save(_model([node], [_vi("x", [2])], [_vi("y", [2])], {}, opset=11), path)
    with pytest.raises(mx.onnx.ONNXImportError, match="uses opset 11; opsets 13 to"):
        mx.onnx.import_model(path)


def test_a_file_that_is_not_onnx_says_so(tmp_path):
    path = tmp_path / "not.onnx"
    path.write_bytes(b"\x00\x01 this is not a protobuf \xff\xfe")
    with pytest.raises(mx.onnx.ONNXImportError, match="is not an ONNX model"):
        mx.onnx.import_model(str(path))


def _single(op, ins, shapes, out_shape, inits=None, out_type=TensorProto.FLOAT, **attrs):
    node = helper.make_node(op, [nm for nm, _ in ins], ["y"], **attrs)
    inputs = [helper.make_tensor_value_info(nm, t, shapes[k])
              for k, (nm, t) in enumerate(ins) if nm not in (inits or {})]
    out = helper.make_tensor_value_info("y", out_type, out_shape)
    return _model([node], inputs, [out], inits or {})


F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
_X = np.array([[-2.5, -1.5, -0.5, 0.5], [1.5, 2.5, 3.7, -np.inf]], np.float32)
_IDX = np.array([[1, 0], [0, 3]], np.int64)
_SINGLE = {
    "round": (("Round", [("x", F)], [[2, 4]], [2, 4], None, F, {}), [_X]),
    "mod": (("Mod", [("x", I64), ("m", I64)], [[4], [4]], [4], None, I64, {}),
            [np.array([-7, 7, -7, 7]), np.array([3, 3, -3, -3])]),
    "fmod": (("Mod", [("x", I64), ("m", I64)], [[4], [4]], [4], None, I64, {"fmod": 1}),
             [np.array([-7, 7, -7, 7]), np.array([3, 3, -3, -3])]),
    "isinf_negative": (("IsInf", [("x", F)], [[2, 4]], [2, 4], None, B,
                        {"detect_positive": 0}), [_X]),
    "isnan": (("IsNaN", [("x", F)], [[2, 4]], [2, 4], None, B, {}),
              [np.array([[np.nan, 1, 2, np.inf]] * 2, np.float32)]),
    "expand": (("Expand", [("x", F), ("s", I64)], [[2, 1]], [3, 2, 4],
                {"s": np.array([3, 1, 4], np.int64)}, F, {}),
               [np.array([[1.0], [2.0]], np.float32)]),
    "where_broadcast": (("Where", [("c", B), ("x", F), ("z", F)], [[2, 4], [2, 4]], [2, 4],
                         {"z": np.array([7.0], np.float32)}, F, {}),
                        [_X > 0, _X]),
    "scatter_nd": (("ScatterND", [("x", F), ("i", I64), ("u", F)], [[2, 4], [2, 2], [2]],
                    [2, 4], None, F, {}), [_X, _IDX, np.array([10.0, 20.0], np.float32)]),
    "argmax": (("ArgMax", [("x", F)], [[2, 4]], [2], None, I64, {"axis": 1, "keepdims": 0}),
               [_X]),
    "prelu_per_channel": (("PRelu", [("x", F), ("s", F)], [[1, 2, 2, 2]], [1, 2, 2, 2],
                           {"s": np.array([0.1, -2.0], np.float32).reshape(2, 1, 1)}, F, {}),
                          [_X.reshape(1, 2, 2, 2)]),
    "slice_step": (("Slice", [("x", F), ("b", I64), ("e", I64), ("a", I64), ("t", I64)],
                    [[2, 4]], [2, 2], {"b": np.array([3]), "e": np.array([-100]),
                                       "a": np.array([1]), "t": np.array([-2])}, F, {}),
                   [_X]),
    "matmul_3d_2d": (("MatMul", [("x", F), ("w", F)], [[2, 3, 4], [4, 5]], [2, 3, 5], None, F,
                      {}), [np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7,
                            np.arange(20, dtype=np.float32).reshape(4, 5) / 3]),
    "conv_asymmetric_pads": (("Conv", [("x", F), ("w", F)], [[1, 2, 5, 6]], [1, 3, 5, 5],
                              {"w": (np.arange(36, dtype=np.float32).reshape(3, 2, 2, 3) - 18)
                               / 9}, F, {"pads": [0, 1, 1, 0]}),
                             [np.arange(60, dtype=np.float32).reshape(1, 2, 5, 6) / 11 - 2]),
    "maxpool_asymmetric_pads": (("MaxPool", [("x", F)], [[1, 2, 5, 6]], [1, 2, 3, 3], None, F,
                                 {"kernel_shape": [2, 2], "strides": [2, 2],
                                  "pads": [1, 0, 0, 0]}),
                                [-np.arange(60, dtype=np.float32).reshape(1, 2, 5, 6)]),
    "flatten_axis2": (("Flatten", [("x", F)], [[2, 3, 2, 2]], [6, 4], None, F, {"axis": 2}),
                      [np.arange(24, dtype=np.float32).reshape(2, 3, 2, 2)]),
    "flatten_axis0": (("Flatten", [("x", F)], [[2, 3]], [1, 6], None, F, {"axis": 0}),
                      [np.arange(6, dtype=np.float32).reshape(2, 3)]),
    "flatten_axis_rank": (("Flatten", [("x", F)], [[2, 3, 4]], [24, 1], None, F, {"axis": 3}),
                          [np.arange(24, dtype=np.float32).reshape(2, 3, 4)]),
    "flatten_axis_negative": (("Flatten", [("x", F)], [[2, 3, 4]], [6, 4], None, F,
                               {"axis": -1}), [np.arange(24, dtype=np.float32).reshape(2, 3, 4)]),
    "scatter_elements_axis0": (("ScatterElements", [("x", F), ("i", I64), ("u", F)],
                                [[2, 4], [1, 3], [1, 3]], [2, 4], None, F, {"axis": 0}),
                               [_X, np.array([[1, 0, 1]]), np.array([[7.0, 8.0, 9.0]],
                                                                    np.float32)]),
    "scatter_elements": (("ScatterElements", [("x", F), ("i", I64), ("u", F)],
                          [[2, 4], [2, 1], [2, 1]], [2, 4], None, F, {"axis": 1}),
                         [_X, np.array([[3], [1]]), np.array([[10.0], [20.0]], np.float32)]),
}


@pytest.mark.parametrize("case", sorted(_SINGLE))
def test_single_operator_imports_as_onnx_runtime_runs_it(case, tmp_path):
    (op, ins, shapes, out_shape, inits, out_type, attrs), feeds = _SINGLE[case]
    path = str(tmp_path / "m.onnx")
    onnx.save(_single(op, ins, shapes, out_shape, inits, out_type, **attrs), path)
    want, _ = run_onnx(path, feeds)
    net = mx.onnx.import_to_gluon(path)
    args = [mx.nd.array(f, dtype=np.float32 if f.dtype == np.bool_ else f.dtype) for f in feeds]
    for hybrid in (False, True):
        if hybrid:
            net.hybridize()
        got = net(*args).asnumpy()
        tol = 1e-5 if got.dtype.kind == "f" else 0  # sums in another order round apart
        np.testing.assert_allclose(got, want[0].astype(got.dtype), rtol=tol, atol=tol,
                                   err_msg=f"{case} (hybridized={hybrid})")
