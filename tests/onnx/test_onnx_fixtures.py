"""MXNet-made models (tests/fixtures/mxnet) exported to ONNX and run in ONNX Runtime: the same
outputs as gluonlite (1e-5) and, where MXNet ran them in inference, as MXNet."""
import os

import numpy as np
import onnx
import pytest
from onnx_check import assert_close, run_onnx

import gluonlite as mx

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "mxnet")
# made under autograd.record(): BatchNorm used the batch's statistics there, so the
# MXNet outputs are not the inference outputs an exported model gives
TRAINING_OUTPUTS = {"cnn_lenet", "cnn_dcgan_gen"}
LOOPS = {"foreach_lstm": "Scan", "while_gru": "Loop", "cond_then": "If"}
NAMES = ["mlp", "bnnet", "cnn_lenet", "cnn_dcgan_gen", "cnn_conv1d", "layer_lstm",
         "layer_gru", "layer_rnn_relu", "foreach_lstm", "while_gru", "cond_then"]


def _load(name):
    io = np.load(os.path.join(HERE, f"{name}-io.npz"))
    ins = [io[f"in{k}"] for k in range(sum(k.startswith("in") for k in io.files))]
    outs = [io[f"out{k}"] for k in range(sum(k.startswith("out") for k in io.files))]
    names = ["data"] if len(ins) == 1 else [f"data{k}" for k in range(len(ins))]
    return dict(zip(names, ins)), outs


@pytest.mark.parametrize("name", NAMES)
def test_fixture_exports_and_runs(name, tmp_path):
    data, mx_outs = _load(name)
    sym_file = os.path.join(HERE, f"{name}-symbol.json")
    params_file = os.path.join(HERE, f"{name}-0000.params")
    order = [nm for nm in mx.sym.load(sym_file).list_inputs() if nm in data]
    path = str(tmp_path / f"{name}.onnx")
    assert mx.onnx.export_model(sym_file, params_file, [data[nm].shape for nm in order],
                                np.float32, path) == path
    got, model = run_onnx(path, [data[nm] for nm in order])
    block = mx.gluon.SymbolBlock.imports(sym_file, list(data), params_file)
    want = block(*[mx.nd.array(data[nm]) for nm in data])
    want = [w.asnumpy() for w in (want if isinstance(want, (list, tuple)) else [want])]
    assert_close(got, want, 1e-5, name)
    if name not in TRAINING_OUTPUTS:
        assert_close(got, mx_outs, 1e-5, f"{name} vs MXNet")
    ops = [n.op_type for n in model.graph.node]
    if name in LOOPS:  # one loop node holding its body, whatever the number of steps
        assert ops.count(LOOPS[name]) == 1
    if name.startswith("layer_"):
        kind = {"layer_lstm": "LSTM", "layer_gru": "GRU", "layer_rnn_relu": "RNN"}[name]
        assert ops.count(kind) == 2 if name != "layer_gru" else ops.count(kind) == 1


def test_params_given_as_arg_and_aux_dicts(tmp_path):
    sym_file = os.path.join(HERE, "bnnet-symbol.json")
    params = mx.nd.load(os.path.join(HERE, "bnnet-0000.params"))
    arg = {k[4:]: v for k, v in params.items() if k.startswith("arg:")}
    aux = {k[4:]: v for k, v in params.items() if k.startswith("aux:")}
    data, mx_outs = _load("bnnet")
    path = str(tmp_path / "bn.onnx")
    mx.onnx.export_model(mx.sym.load(sym_file), [arg, aux], [(5, 4)], np.float32, path,
                         opset_version=17)
    assert onnx.load(path).opset_import[0].version == 17
    got, _ = run_onnx(path, [data["data"]])
    assert_close(got, mx_outs, 1e-5, "bnnet")
