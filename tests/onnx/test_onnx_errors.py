"""What cannot export is named (operator, node, attribute) in one error before anything is
written; bad arguments are refused early."""
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import sym


def _two_bad_ops():
    x = sym.var("x")
    y = sym.FullyConnected(x, num_hidden=4, name="fc")
    a = sym.linalg.inverse(sym.reshape(y, shape=(2, 2, 2)), name="inv")
    b = sym.RNN(sym.var("seq"), sym.var("params"), sym.var("h"), sym.var("c"), state_size=4,
                num_layers=1, mode="lstm", lstm_state_clip_min=-1.0, lstm_state_clip_max=1.0,
                lstm_state_clip_nan=True, name="clipnan")
    return sym.Group([a, b])


def test_every_unexportable_part_is_named_and_nothing_is_written(tmp_path):
    path = tmp_path / "bad.onnx"
    net = _two_bad_ops()
    params = {"fc_weight": np.ones((4, 3), np.float32), "fc_bias": np.zeros(4, np.float32)}
    with pytest.raises(mx.onnx.ExportError) as info:
        mx.onnx.export_model(net, params, [(2, 3), (5, 2, 3), (144,), (1, 2, 4), (1, 2, 4)],
                             np.float32, str(path))
    msg = str(info.value)
    assert "operator '_linalg_inverse', node 'inv': no ONNX operator computes it" in msg
    assert "operator 'RNN', node 'clipnan', attribute lstm_state_clip_nan=True" in msg
    assert "2 part(s)" in msg and "nothing was written" in msg
    assert os.listdir(tmp_path) == []


def test_a_failed_export_leaves_an_existing_file_alone(tmp_path):
    path = tmp_path / "keep.onnx"
    path.write_bytes(b"old")
    x = sym.var("x")
    with pytest.raises(mx.onnx.ExportError, match="operator 'gammaln', node 'gl'"):
        mx.onnx.export_model(sym.gammaln(x, name="gl"), {}, [(3, 4)], np.float32, str(path))
    assert path.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["keep.onnx"]


def test_an_unknown_operator_inside_a_loop_body_names_the_path(tmp_path):
    data = sym.var("data")

    def body(x, states):
        y = sym.gammaln(x, name="inner_gammaln") + states[0]
        return y, [y]

    with mx.name.NameManager():  # node names count from 0 whatever ran before
        out, _ = sym.contrib.foreach(body, data, [sym.var("s")])
    with pytest.raises(mx.onnx.ExportError) as info:
        mx.onnx.export_model(out, {}, [(4, 3), (3,)], np.float32, str(tmp_path / "l.onnx"))
    assert "operator 'gammaln'" in str(info.value)
    assert "_foreach0/inner_gammaln" in str(info.value)  # the loop node, then the body's


@pytest.mark.parametrize("kwargs, err, match", [
    (dict(opset_version=12), ValueError, "opset_version must be 13 or newer, got 12"),
    (dict(in_shapes=[(2, 3), (2, 3)]), ValueError, r"one shape per data input \['x'\]"),
    (dict(in_types=[np.float32, np.float32]), ValueError, "one dtype per data input"),
    (dict(bogus=1), TypeError, r"unexpected argument\(s\) \['bogus'\]"),
])
def test_bad_arguments(kwargs, err, match, tmp_path):
    args = dict(in_shapes=[(2, 3)], onnx_file_path=str(tmp_path / "a.onnx"))
    args.update(kwargs)
    with pytest.raises(err, match=match):
        mx.onnx.export_model(sym.relu(sym.var("x")), {}, **args)
    assert os.listdir(tmp_path) == []


def test_sym_and_params_types_are_checked(tmp_path):
    with pytest.raises(TypeError, match="sym must be a Symbol or the path"):
        mx.onnx.export_model(3, {}, [(1,)], np.float32, str(tmp_path / "a.onnx"))
    with pytest.raises(TypeError, match="params must be a dict"):
        mx.onnx.export_model(sym.var("x"), 3, [(1,)], np.float32, str(tmp_path / "a.onnx"))


def test_operator_support_lists_the_converted_operators():
    ops = mx.onnx.get_operator_support()
    for name in ("FullyConnected", "RNN", "_foreach", "_while_loop", "_cond", "Convolution"):
        assert name in ops
    assert "gammaln" not in ops and "sgd_update" not in ops


def test_every_registered_operator_exports_or_says_why():
    from gluonlite.ops import registry
    names = {op.name for op in registry.all_ops() if not op.name.startswith("_CachedOp")}
    converted = set(mx.onnx.get_operator_support())
    why = mx.onnx.not_exported()
    assert not converted & set(why), sorted(converted & set(why))
    assert sorted(names - converted - set(why)) == []
    assert sorted(set(why) - names) == []
