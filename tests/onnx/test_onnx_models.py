"""Hybridized gluon models exported with `mx.onnx.export_block` and run in ONNX Runtime: the
same outputs as gluonlite (1e-5); loops stay one node whatever the number of steps."""
import numpy as np
import onnx
import pytest
from onnx_check import assert_close, export_and_run, run_onnx

import gluonlite as mx
from gluonlite import gluon, nd
from gluonlite.bench.models import CELLS, ForeachRNN, WhileRNN
from gluonlite.symbol.symbol import apply_op


def _export(net, inputs, path, **kwargs):
    net.hybridize()
    want = net(*inputs)
    want = [w.asnumpy() for w in (want if isinstance(want, (list, tuple)) else [want])]
    mx.onnx.export_block(net, str(path), [x.shape for x in inputs], **kwargs)
    got, model = run_onnx(str(path), [x.asnumpy() for x in inputs])
    return got, want, model


def _seeded(shape, seed=0):
    return nd.array(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def test_mlp(tmp_path):
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(16, activation="relu"), gluon.nn.Dropout(0.5),
            gluon.nn.Dense(8, activation="tanh"), gluon.nn.Dense(3))
    net.initialize(mx.init.Xavier())
    got, want, _ = _export(net, [_seeded((4, 10))], tmp_path / "mlp.onnx")
    assert_close(got, want, 1e-5, "mlp")


def test_small_cnn(tmp_path):
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Conv2D(4, 3, padding=1), gluon.nn.BatchNorm(), gluon.nn.Activation("relu"),
            gluon.nn.MaxPool2D(2), gluon.nn.Conv2D(6, 3, strides=2, groups=2),
            gluon.nn.LeakyReLU(0.1), gluon.nn.GlobalAvgPool2D(), gluon.nn.Flatten(),
            gluon.nn.Dense(5))
    net.initialize(mx.init.Xavier())
    net(_seeded((2, 3, 12, 12)))  # shapes known, then give BatchNorm running statistics
    bn = net[1]
    bn.running_mean.set_data(_seeded((4,), 1))
    bn.running_var.set_data(nd.abs(_seeded((4,), 2)) + 0.5)
    got, want, _ = _export(net, [_seeded((2, 3, 12, 12))], tmp_path / "cnn.onnx")
    assert_close(got, want, 1e-5, "cnn")


@pytest.mark.parametrize("loop", ["foreach", "while_loop"])
@pytest.mark.parametrize("cell", sorted(CELLS))
def test_loop_over_cell(loop, cell, tmp_path):
    T, N, C, H = 6, 3, 5, 7
    layer_cls = ForeachRNN if loop == "foreach" else WhileRNN
    net = layer_cls(CELLS[cell](H, input_size=C), T)
    net.initialize(mx.init.Xavier())
    n_states = {"LSTMCell": 2}.get(cell, 1)
    states = [_seeded((N, H), 3 + k) for k in range(n_states)]
    if loop == "while_loop":
        states = [nd.zeros((1,))] + states

    class Wrap(gluon.HybridBlock):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def hybrid_forward(self, F, x, *s):
            return self.inner(x, list(s))

    wrapped = Wrap(net)
    x = _seeded((T, N, C))
    got, want, model = _export(wrapped, [x] + states, tmp_path / "loop.onnx")
    assert_close(got, want, 1e-5, f"{loop} {cell}")
    op = "Scan" if loop == "foreach" else "Loop"
    assert [n.op_type for n in model.graph.node].count(op) == 1


def test_loop_graph_does_not_grow_with_steps(tmp_path):
    sizes = []
    for T in (4, 40):
        net = ForeachRNN(gluon.rnn.LSTMCell(6, input_size=4), T)
        net.initialize()

        class Wrap(gluon.HybridBlock):
            def __init__(self, inner):
                super().__init__()
                self.inner = inner

            def hybrid_forward(self, F, x, h, c):
                return self.inner(x, [h, c])

        w = Wrap(net)
        got, want, model = _export(w, [_seeded((T, 2, 4)), nd.zeros((2, 6)), nd.zeros((2, 6))],
                                   tmp_path / f"t{T}.onnx")
        assert_close(got, want, 1e-5, f"T={T}")
        sizes.append(len(model.graph.node))
    assert sizes[0] == sizes[1]


@pytest.mark.parametrize("mode", ["lstm", "gru", "rnn_tanh"])
def test_fused_bidirectional_stacked_layers(mode, tmp_path):
    layer = {"lstm": gluon.rnn.LSTM, "gru": gluon.rnn.GRU,
             "rnn_tanh": lambda *a, **k: gluon.rnn.RNN(*a, activation="tanh", **k)}[mode]
    net = layer(6, num_layers=2, bidirectional=True, layout="NTC", input_size=4)
    net.initialize(mx.init.Xavier())
    got, want, model = _export(net, [_seeded((3, 5, 4))], tmp_path / "layer.onnx")
    assert_close(got, want, 1e-5, mode)
    kind = {"lstm": "LSTM", "gru": "GRU", "rnn_tanh": "RNN"}[mode]
    assert [n.op_type for n in model.graph.node].count(kind) == 2


@pytest.mark.parametrize("kwargs", [
    dict(projection_size=3),
    dict(projection_size=3, num_layers=2, bidirectional=True),
    dict(state_clip_min=-0.2, state_clip_max=0.2, bidirectional=True),
])
def test_lstm_the_onnx_op_cannot_express_becomes_a_scan(kwargs, tmp_path):
    net = gluon.rnn.LSTM(5, input_size=4, **kwargs)
    net.initialize(mx.init.Xavier())

    class Wrap(gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            self.layer = net

        def hybrid_forward(self, F, x, h, c):
            y, (h2, c2) = self.layer(x, [h, c])
            return y, h2, c2

    states = [_seeded(i["shape"], 1 + k) for k, i in enumerate(net.state_info(2))]
    got, want, model = _export(Wrap(), [_seeded((6, 2, 4))] + states, tmp_path / "p.onnx")
    assert_close(got, want, 1e-5, str(kwargs))
    ops = [n.op_type for n in model.graph.node]
    assert "LSTM" not in ops
    assert ops.count("Scan") == kwargs.get("num_layers", 1) * (
        2 if kwargs.get("bidirectional") else 1)
    if "state_clip_min" in kwargs:  # the clip is reached, so the test can tell
        assert np.abs(want[2]).max() == pytest.approx(0.2)


def test_embedding_lstm_dense_language_model(tmp_path):
    class LM(gluon.HybridBlock):
        def __init__(self, vocab=20, emb=8, hidden=10):
            super().__init__()
            self.embed = gluon.nn.Embedding(vocab, emb)
            self.rnn = gluon.rnn.LSTM(hidden, num_layers=2, input_size=emb)
            self.out = gluon.nn.Dense(vocab, flatten=False, in_units=hidden)

        def hybrid_forward(self, F, tokens, h, c):
            y, (h2, c2) = self.rnn(self.embed(tokens), [h, c])
            return self.out(y), h2, c2

    net = LM()
    net.initialize(mx.init.Xavier())
    tokens = nd.array(np.random.default_rng(0).integers(0, 20, (7, 3)).astype(np.float32))
    got, want, _ = _export(net, [tokens, _seeded((2, 3, 10), 1), _seeded((2, 3, 10), 2)],
                           tmp_path / "lm.onnx", opset_version=17)
    assert_close(got, want, 1e-5, "lm")


def test_export_block_before_a_hybridized_call_is_refused(tmp_path):
    net = gluon.nn.Dense(3)
    net.initialize()
    with pytest.raises(ValueError, match="hybridize"):
        mx.onnx.export_block(net, str(tmp_path / "d.onnx"), [(2, 4)])
    assert not (tmp_path / "d.onnx").exists()


def test_dynamic_batch(tmp_path):
    net = gluon.nn.Dense(3, in_units=4)
    net.initialize()
    net.hybridize()
    net(_seeded((2, 4)))
    path = str(tmp_path / "dyn.onnx")
    mx.onnx.export_block(net, path, [(2, 4)], dynamic=True, dynamic_input_shapes=[(None, 4)])
    dim = onnx.load(path).graph.input[0].type.tensor_type.shape.dim[0]
    assert dim.dim_param and not dim.dim_value
    got, _ = run_onnx(path, [_seeded((5, 4)).asnumpy()])
    assert_close(got, [net(_seeded((5, 4))).asnumpy()], 1e-5, "dynamic")


def test_partitioned_graph_exports_its_subgraphs_inline(tmp_path):
    from onnx_check import export_and_run
    x = mx.sym.var("x")
    y = mx.sym.relu(mx.sym.FullyConnected(x, num_hidden=3, name="fc")) * 2
    part = y.optimize_for("default", op_names=["FullyConnected", "relu"])
    assert "_default_subgraph_op" in [n.op.name for n in part._nodes() if n.op]
    rng = np.random.default_rng(0)
    params = {"fc_weight": rng.standard_normal((3, 4)).astype(np.float32),
              "fc_bias": rng.standard_normal(3).astype(np.float32)}
    got, want, model = export_and_run(part, params, {"x": rng.standard_normal(
        (2, 4)).astype(np.float32)}, tmp_path / "part.onnx")
    assert_close(got, want, 1e-5, "partitioned")
    assert "Gemm" in [n.op_type for n in model.graph.node]


@pytest.mark.parametrize("mode,layers,bi", [("lstm", 2, True), ("gru", 1, True),
                                            ("rnn_tanh", 2, False)])
def test_fused_layer_with_sequence_lengths(mode, layers, bi, tmp_path):
    # use_sequence_length -> ONNX sequence_lens (and back on import): each sequence stops at
    # its length, outputs past it are zero, the final states are its last valid step's
    T, N, C, H = 5, 3, 4, 6
    D = 2 if bi else 1
    lstm = mode == "lstm"
    names = ["data", "params", "h0"] + (["c0"] if lstm else []) + ["lens"]
    out = apply_op("RNN", *[mx.sym.var(nm) for nm in names], state_size=H, num_layers=layers,
                   mode=mode, bidirectional=bi, state_outputs=True, use_sequence_length=True)
    sym = mx.sym.Group([out[k] for k in range(3 if lstm else 2)])
    shapes = {"data": (T, N, C), "h0": (layers * D, N, H), "c0": (layers * D, N, H),
              "lens": (N,)}
    arg_shapes, _, _ = sym.infer_shape(**{k: v for k, v in shapes.items() if k in names})
    n_params = dict(zip(sym.list_arguments(), arg_shapes))["params"]
    rng = np.random.default_rng(3)
    params = {"params": (rng.standard_normal(n_params) * 0.3).astype(np.float32)}
    data = {nm: rng.standard_normal(shapes[nm]).astype(np.float32)
            for nm in names if nm not in ("params", "lens")}
    data["lens"] = np.array([5, 2, 4], np.float32)
    path = tmp_path / "lens.onnx"
    got, want, model = export_and_run(sym, params, data, path)
    assert_close(got, want, 1e-5, mode)
    assert np.all(want[0][2:, 1] == 0) and np.any(want[0][:2, 1] != 0)
    assert all(n.input[4] for n in model.graph.node if n.op_type in ("LSTM", "GRU", "RNN"))
    net = mx.onnx.import_to_gluon(str(path))
    net.hybridize()
    order = [nm for nm in sym.list_inputs() if nm != "params"]
    back = net(*[nd.array(data[nm]) for nm in order])
    assert_close([b.asnumpy() for b in back], want, 1e-5, f"{mode} imported")


def _bn_params(rng, c):
    """Parameters of a BatchNorm named 'bn' with `c` channels, away from 0 and 1."""
    return {"bn_gamma": rng.uniform(0.5, 1.5, c).astype(np.float32),
            "bn_beta": rng.standard_normal(c).astype(np.float32),
            "bn_moving_mean": rng.standard_normal(c).astype(np.float32),
            "bn_moving_var": rng.uniform(0.5, 1.5, c).astype(np.float32)}


def test_fused_graph_exports_its_chain_inline(tmp_path):
    """A graph the FUSE backend partitioned exports each fused node as its operators."""
    from onnx_check import export_and_run
    x = mx.sym.var("x")
    c = mx.sym.Convolution(x, kernel=(3, 3), num_filter=4, pad=(1, 1), name="c")
    y = mx.sym.relu(mx.sym.BatchNorm(c, fix_gamma=False, name="bn") + x)
    part = y.optimize_for("FUSE")
    assert "_sg_fuse" in [n.op.name for n in part._nodes() if n.op]
    rng = np.random.default_rng(1)
    params = {"c_weight": rng.standard_normal((4, 4, 3, 3)).astype(np.float32),
              "c_bias": rng.standard_normal(4).astype(np.float32), **_bn_params(rng, 4)}
    got, want, model = export_and_run(part, params, {"x": rng.standard_normal(
        (2, 4, 5, 5)).astype(np.float32)}, tmp_path / "fused.onnx")
    assert_close(got, want, 1e-5, "fused")
    assert "BatchNormalization" in [n.op_type for n in model.graph.node]


def test_batchnorm_with_relu_exports_as_batchnormalization_and_relu(tmp_path):
    """contrib.BatchNormWithReLU (gluon.nn.BatchNormReLU's operator) exports as its two parts
    and onnxruntime gives its numbers."""
    x = mx.sym.var("x")
    y = mx.sym.contrib.BatchNormWithReLU(x, fix_gamma=False, name="bn")
    rng = np.random.default_rng(2)
    params = _bn_params(rng, 3)
    got, want, model = export_and_run(y, params, {"x": rng.standard_normal(
        (2, 3, 4, 4)).astype(np.float32)}, tmp_path / "bnrelu.onnx")
    assert_close(got, want, 1e-5, "BatchNormWithReLU")
    assert (want[0] == 0).any()
    ops = [n.op_type for n in model.graph.node]
    assert ops.index("BatchNormalization") < ops.index("Relu")
