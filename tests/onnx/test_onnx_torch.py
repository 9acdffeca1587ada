"""ONNX models written by `torch.onnx.export` (tests/fixtures/make_torch_onnx.py: nn.LSTM one
and two layers, bidirectional, batch-first, dynamic axes; nn.GRU; nn.RNN; a Conv2d-BatchNorm-
ReLU-MaxPool-Linear stack, with BatchNorm folded and kept; a CNN flattening with
``x.view(x.size(0), -1)`` under a dynamic batch; an Embedding-LSTM-Linear language model;
Conv1d-GELU-LayerNorm at opsets 13 and 17) import as SymbolBlocks that give torch's outputs
(1e-5), imperative and hybridized, and ONNX Runtime agrees on the files."""
import os

import numpy as np
import pytest
from onnx_check import assert_close, run_onnx

import gluonlite as mx

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "torch_onnx")
NAMES = ["lstm", "lstm_2layer_bi", "lstm_batch_first", "lstm_dynamic", "gru", "gru_2layer_bi",
         "rnn_tanh_2layer", "convnet", "convnet_bn", "convnet_view", "convnet_view_dynamic",
         "language_model", "conv1d_layernorm", "conv1d_layernorm_13"]


def _io(name, prefix=""):
    io = np.load(os.path.join(HERE, f"{name}-io.npz"))

    def take(kind):
        keys = sorted((k for k in io.files if k.startswith(prefix + kind)),
                      key=lambda k: int(k[len(prefix + kind):]))
        return [io[k] for k in keys]
    return take("in"), take("out")


def _as_list(y):
    return [v.asnumpy() for v in (y if isinstance(y, (list, tuple)) else [y])]


@pytest.mark.parametrize("name", NAMES)
def test_torch_model_imports(name):
    path = os.path.join(HERE, f"{name}.onnx")
    ins, want = _io(name)
    got_ort, _ = run_onnx(path, ins)
    assert_close(got_ort, want, 1e-5, f"{name} in ONNX Runtime")
    net = mx.onnx.import_to_gluon(path)
    assert isinstance(net, mx.gluon.SymbolBlock)
    feeds = [mx.nd.array(a) for a in ins]
    assert_close(_as_list(net(*feeds)), want, 1e-5, f"{name} imported")
    net.hybridize()
    assert_close(_as_list(net(*feeds)), want, 1e-5, f"{name} imported, hybridized")
    assert_close(_as_list(net(*feeds)), want, 1e-5, f"{name} imported, hybridized, again")


@pytest.mark.parametrize("name", ["lstm_dynamic", "convnet_view_dynamic"])
def test_torch_model_with_dynamic_axes_takes_other_shapes(name):
    path = os.path.join(HERE, f"{name}.onnx")
    ins, want = _io(name, "alt_")
    first_ins, first_want = _io(name)
    assert ins[0].shape != first_ins[0].shape
    net = mx.onnx.import_to_gluon(path)
    net.hybridize()
    assert_close(_as_list(net(*[mx.nd.array(a) for a in first_ins])), first_want, 1e-5,
                 "first shapes")
    assert_close(_as_list(net(*[mx.nd.array(a) for a in ins])), want, 1e-5, "second shapes")


@pytest.mark.parametrize("name", ["lstm_2layer_bi", "convnet_bn"])
def test_torch_model_import_model_binds(name):
    sym, arg, aux = mx.onnx.import_model(os.path.join(HERE, f"{name}.onnx"))
    ins, want = _io(name)
    data = [nm for nm in sym.list_inputs() if nm not in arg and nm not in aux]
    assert len(data) == len(ins), data
    args = {nm: mx.nd.array(a) for nm, a in zip(data, ins)}
    args.update(arg)
    ex = sym.bind(mx.cpu(), {nm: args[nm] for nm in sym.list_arguments()},
                  aux_states={nm: aux[nm] for nm in sym.list_auxiliary_states()},
                  grad_req="null")
    assert_close([o.asnumpy() for o in ex.forward(is_train=False)], want, 1e-5, name)
