"""ONNX files whose constants would be built at import: a few hundred bytes must not make
gigabytes; the refusal names the node, the shape and the size."""
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import gluonlite as mx
from gluonlite.onnx import ONNXImportError


def _model(nodes, inits, x_shape=(2, 3)):
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                     list(x_shape))],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                          initializer=inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def _fill(shape, value=1.0):
    return ([helper.make_node("ConstantOfShape", ["s"], ["c"], name="fill",
                              value=helper.make_tensor("v", TensorProto.FLOAT, [1], [value])),
             helper.make_node("Add", ["x", "c"], ["y"], name="add")],
            [numpy_helper.from_array(np.array(shape, np.int64), "s")])


def test_a_constant_of_shape_bomb_is_refused_before_it_is_built(tmp_path):
    path = tmp_path / "bomb.onnx"
    onnx.save(_model(*_fill([100000, 16000]), x_shape=(100000, 16000)), str(path))
    assert path.stat().st_size < 400
    with pytest.raises(ONNXImportError, match=r"'ConstantOfShape', node 'fill': its output 'c' "
                                              r"would be a constant of shape \(100000, 16000\) "
                                              r"and dtype float32 \(6\.0 GiB\)"):
        mx.onnx.import_model(str(path))


def test_the_limit_is_an_argument_and_small_constants_still_fold(tmp_path):
    path = tmp_path / "fill.onnx"
    onnx.save(_model(*_fill([2, 3], 2.0)), str(path))
    with pytest.raises(ONNXImportError, match=r"\(24 bytes\).*expected at most 16 bytes"):
        mx.onnx.import_model(str(path), max_folded_bytes=16)
    net = mx.onnx.import_to_gluon(str(path))
    np.testing.assert_array_equal(net(mx.nd.ones((2, 3))).asnumpy(), np.full((2, 3), 3.0))


def test_a_fold_that_inference_cannot_size_is_checked_once_built(tmp_path):
    # Tile's repeats come from a node shape inference does not evaluate: the size shows
    # only when the value exists, and is refused then
    reps = numpy_helper.from_array(np.array([3, 4], np.int64), "r")
    base = numpy_helper.from_array(np.ones((2, 2), np.float32), "b")
    nodes = [helper.make_node("Mul", ["r", "r"], ["r2"], name="square"),
             helper.make_node("Tile", ["b", "r2"], ["c"], name="tile"),
             helper.make_node("Add", ["x", "c"], ["y"], name="add")]
    path = tmp_path / "tile.onnx"
    onnx.save(_model(nodes, [reps, base], x_shape=(18, 32)), str(path))
    with pytest.raises(ONNXImportError, match=r"'Tile', node 'tile': its output 'c' would be a "
                                              r"constant of shape \(18, 32\)"):
        mx.onnx.import_model(str(path), max_folded_bytes=1000)
    net = mx.onnx.import_to_gluon(str(path))
    assert net(mx.nd.zeros((18, 32))).asnumpy().sum() == 18 * 32


def test_running_out_of_memory_while_folding_is_named_as_such(tmp_path, monkeypatch):
    from gluonlite.onnx import _import

    def out_of_memory(node, values):
        raise MemoryError
    monkeypatch.setattr(_import, "_fold", out_of_memory)  # fault injection
    path = tmp_path / "fill.onnx"
    onnx.save(_model(*_fill([2, 3])), str(path))
    with pytest.raises(ONNXImportError, match=r"'ConstantOfShape', node 'fill': computing its "
                                              r"constant output at import ran out of memory"):
        mx.onnx.import_model(str(path))
