"""gluon.rnn layers on the fused RNN operator: MXNet 1.9.1's exports load and match (outputs
and gradients), hybridized equals imperative, `_unfuse()` (and its foreach form) equals the
layer, and bad input fails with messages that name the input."""
import json
import os

import numpy as np
import pytest

from gluonlite import autograd, gluon, nd
from gluonlite.gluon import rnn

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "mxnet")
LAYERS = ["layer_lstm", "layer_gru", "layer_rnn_relu"]


def _fixture(name):
    base = os.path.join(FIXTURES, name)
    return base, np.load(base + "-io.npz")


@pytest.mark.parametrize("hybridize", [False, True])
@pytest.mark.parametrize("name", LAYERS)
def test_mxnet_layer_exports_match_outputs_and_gradients(name, hybridize):
    base, io = _fixture(name)
    n_in = sum(k.startswith("in") for k in io.files)
    block = gluon.SymbolBlock.imports(base + "-symbol.json", [f"data{i}" for i in range(n_in)],
                                      base + "-0000.params")
    if hybridize:
        block.hybridize()
    ops = [n["op"] for n in json.load(open(base + "-symbol.json"))["nodes"]]
    assert "RNN" in ops and "_rnn_param_concat" in ops
    xs = [nd.array(io[f"in{i}"]) for i in range(n_in)]
    for x in xs:
        x.attach_grad()
    with autograd.record():
        outs = block(*xs)
    outs = outs if isinstance(outs, (list, tuple)) else [outs]
    autograd.backward(outs, [nd.array(io[f"head{i}"]) for i in range(len(outs))])
    for i, o in enumerate(outs):
        np.testing.assert_allclose(o.asnumpy(), io[f"out{i}"], rtol=1e-4, atol=1e-4)
    for i, x in enumerate(xs):
        np.testing.assert_allclose(x.grad.asnumpy(), io[f"grad_in{i}"], rtol=1e-4, atol=1e-4)
    params = block.collect_params()
    assert sorted(params.keys()) == sorted(k[5:] for k in io.files if k.startswith("grad_") and
                                           not k.startswith("grad_in"))
    for k, p in params.items():
        np.testing.assert_allclose(p.grad().asnumpy(), io["grad_" + k], rtol=1e-4, atol=1e-4,
                                   err_msg=k)


def _layer(cls, **kw):
    layer = cls(5, input_size=3, **kw)
    layer.initialize()
    for p in layer.collect_params().values():  # weights large enough that every path matters
        p.set_data(nd.random.uniform(-0.6, 0.6, shape=p.shape))
    return layer


CASES = [(rnn.LSTM, {"num_layers": 2, "bidirectional": True}),
         (rnn.GRU, {"layout": "NTC"}),
         (rnn.RNN, {"num_layers": 2, "activation": "tanh"}),
         (rnn.LSTM, {"projection_size": 2}),
         (rnn.RNN, {"bidirectional": True})]


def _run(layer, x, states):
    x = x.copy()
    x.attach_grad()
    for s in states:
        s.attach_grad()
    with autograd.record():
        out, new = layer(x, states)
        loss = (out * out).sum() + sum((s * s).sum() for s in new)
    loss.backward()
    grads = {k: p.grad().asnumpy().copy() for k, p in layer.collect_params().items()}
    return ([out.asnumpy()] + [s.asnumpy() for s in new],
            [x.grad.asnumpy()] + [s.grad.asnumpy() for s in states], grads)


@pytest.mark.parametrize("cls,kw", CASES)
def test_hybridized_layer_matches_imperative(cls, kw):
    layer = _layer(cls, **kw)
    x = nd.random.uniform(-1, 1, shape=(4, 2, 3))
    states = [nd.random.uniform(-1, 1, shape=i["shape"]) for i in
              layer.state_info(x.shape[layer._layout.find("N")])]
    want = _run(layer, x, states)
    for flags in ({}, {"static_alloc": True}, {"static_alloc": True, "static_shape": True}):
        layer.hybridize(**flags)
        for _ in range(2):
            got = _run(layer, x, [s.copy() for s in states])
            for a, b in zip(got[0] + got[1], want[0] + want[1]):
                np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
            for k in want[2]:
                np.testing.assert_allclose(got[2][k], want[2][k], rtol=1e-5, atol=1e-6,
                                           err_msg=k)


@pytest.mark.parametrize("cls,kw", [c for c in CASES if "projection_size" not in c[1]])
def test_unfused_cells_and_their_foreach_form_match_the_layer(cls, kw):
    layer = _layer(cls, **kw)
    x = nd.random.uniform(-1, 1, shape=(4, 2, 3))
    batch = x.shape[layer._layout.find("N")]
    states = [nd.random.uniform(-1, 1, shape=i["shape"]) for i in layer.state_info(batch)]
    out, new = layer(x, states)
    stack = layer._unfuse()
    assert set(stack.collect_params().keys()) == set(layer.collect_params().keys())
    # the stack's states: per layer (per direction) [h] or [h, c], from the layer's (L*D, N, H)
    L, D = layer._num_layers, layer._dir
    cell_states = [s[k] for k in range(L * D) for s in states]
    u_out, u_states = stack.unroll(T := x.shape[layer._layout.find("T")], x,
                                   begin_state=cell_states, layout=layer._layout,
                                   merge_outputs=True)
    np.testing.assert_allclose(u_out.asnumpy(), out.asnumpy(), rtol=1e-5, atol=1e-6)
    for i, s in enumerate(new):
        got = np.stack([u_states[k * len(new) + i].asnumpy() for k in range(L * D)])
        np.testing.assert_allclose(got, s.asnumpy(), rtol=1e-5, atol=1e-6)
    if D == 1:  # the foreach form of the same stack, hybridized (one loop node)

        class Loop(gluon.HybridBlock):
            def __init__(self, cell):
                super().__init__()
                self.cell = cell

            def hybrid_forward(self, F, data, *states):
                outs, _ = F.contrib.foreach(lambda d, s: self.cell(d, s), data, list(states))
                return outs

        loop = Loop(stack)
        loop.hybridize(static_alloc=True)
        seq = x if layer._layout == "TNC" else x.swapaxes(0, 1)
        got = loop(seq, *cell_states)
        want = out if layer._layout == "TNC" else out.swapaxes(0, 1)
        np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-6)
        assert T == seq.shape[0]


def test_deferred_input_size_inside_a_hybridized_parent():
    net = gluon.nn.HybridSequential()
    net.add(rnn.LSTM(4, bidirectional=True), gluon.nn.Dense(3))
    net.initialize()
    net.hybridize()
    x = nd.ones((2, 3, 7))
    with autograd.record():
        y = net(x)
    y.backward()
    assert y.shape == (2, 3)
    lstm = net[0]
    assert lstm.l0_i2h_weight.shape == (16, 7) and lstm.r0_i2h_weight.shape == (16, 7)
    assert lstm.l0_i2h_weight.grad().shape == (16, 7)


def test_dropout_between_layers_only_in_training():
    layer = _layer(rnn.GRU, num_layers=2, dropout=0.5)
    x = nd.random.uniform(-1, 1, shape=(6, 3, 3))
    plain = layer(x).asnumpy()
    assert np.array_equal(layer(x).asnumpy(), plain)   # predict mode: no dropout
    with autograd.record():
        a = layer(x)
    with autograd.record():
        b = layer(x)
    assert not np.allclose(a.asnumpy(), b.asnumpy())   # fresh masks per training call
    no_drop = _layer(rnn.GRU, num_layers=2)
    for k, p in layer.collect_params().items():
        no_drop.collect_params()[k.replace(layer.prefix, no_drop.prefix)].set_data(p.data())
    assert np.allclose(no_drop(x).asnumpy(), plain)


def test_saved_parameter_names_are_mxnets(tmp_path):
    layer = _layer(rnn.LSTM, bidirectional=True)
    names = sorted(layer._collect_params_with_prefix().keys())
    assert "_unfused.0.l_cell.i2h_weight" in names and "_unfused.0.r_cell.h2h_bias" in names
    f = str(tmp_path / "lstm.params")
    layer.save_parameters(f)
    other = rnn.LSTM(5, input_size=3, bidirectional=True)
    other.load_parameters(f)
    for k, p in layer.collect_params().items():
        np.testing.assert_array_equal(other.collect_params()[k.replace(
            layer.prefix, other.prefix)].data().asnumpy(), p.data().asnumpy())


def test_export_imports_back(tmp_path):
    layer = _layer(rnn.LSTM, num_layers=2)
    layer.hybridize()
    x = nd.random.uniform(shape=(4, 2, 3))
    states = layer.begin_state(2)
    out, new = layer(x, states)
    sym_file, params_file = layer.export(str(tmp_path / "lstm"))
    block = gluon.SymbolBlock.imports(sym_file, ["data0", "data1", "data2"], params_file)
    got = block(x, *states)
    np.testing.assert_allclose(got[0].asnumpy(), out.asnumpy(), rtol=1e-6)


# ---- bad input ----------------------------------------------------------------------------------
def test_wrong_parameter_length_names_the_layout_arithmetic():
    x, h, c = nd.ones((5, 3, 6)), nd.zeros((4, 3, 8)), nd.zeros((4, 3, 8))
    with pytest.raises(ValueError, match=r"input 'parameters' must have shape \(2688,\) "
                       r"\(weights \(32\*6 \+ 32\*8\)\*2 \+ \(32\*16 \+ 32\*8\)\*2 \+ biases "
                       r"2\*32\*4 = 2688 .*got \(100,\)"):
        nd.RNN(x, nd.zeros((100,)), h, c, state_size=8, num_layers=2, bidirectional=True,
               mode="lstm")


def test_wrong_state_shape_names_the_input():
    x, params = nd.ones((5, 3, 6)), nd.zeros((3 * 8 * (6 + 8 + 2),))
    with pytest.raises(ValueError, match=r"input 'state' must have shape \(1, 3, 8\) "
                       r"\(num_layers\*directions = 1\*1, batch size 3, state_size 8\), "
                       r"got \(1, 2, 8\)"):
        nd.RNN(x, params, nd.zeros((1, 2, 8)), state_size=8, num_layers=1, mode="gru")
    lstm = nd.zeros((4 * 8 * (6 + 8 + 2),))
    with pytest.raises(ValueError, match=r"input 'state_cell' must have shape \(1, 3, 8\)"):
        nd.RNN(x, lstm, nd.zeros((1, 3, 8)), nd.zeros((2, 3, 8)), state_size=8,
               num_layers=1, mode="lstm")


def test_unknown_mode_and_projection_without_lstm():
    x, h = nd.ones((5, 3, 6)), nd.zeros((1, 3, 8))
    with pytest.raises(ValueError, match=r"RNN: argument mode='rnn': expected one of "
                       r"'rnn_relu', 'rnn_tanh', 'lstm', 'gru', got 'rnn'"):
        nd.RNN(x, nd.zeros((10,)), h, state_size=8, num_layers=1, mode="rnn")
    with pytest.raises(ValueError, match=r"RNN: attribute projection_size=4 needs "
                       r"mode='lstm', got mode='gru'"):
        nd.RNN(x, nd.zeros((10,)), h, state_size=8, num_layers=1, mode="gru",
               projection_size=4)


def test_layer_state_errors():
    layer = _layer(rnn.GRU)
    x = nd.ones((3, 2, 3))
    with pytest.raises(ValueError, match=r"invalid recurrent state shape; expected "
                       r"\(1, 2, 5\), got \(1, 3, 5\)"):
        layer(x, [nd.zeros((1, 3, 5))])
    with pytest.raises(ValueError, match="expects 1 state"):
        layer(x, [nd.zeros((1, 2, 5)), nd.zeros((1, 2, 5))])


def test_sequence_length_rows_stop_at_their_length():
    layer = _layer(rnn.LSTM, bidirectional=True, use_sequence_length=True)
    x = nd.random.uniform(-1, 1, shape=(5, 2, 3))
    states = layer.begin_state(2)
    out, new = layer(x, states, nd.array([3, 5]))
    short, short_states = layer(x[:3, 0:1], [s[:, 0:1] for s in states], nd.array([3]))
    np.testing.assert_allclose(out.asnumpy()[:3, 0], short.asnumpy()[:, 0], rtol=1e-5,
                               atol=1e-6)
    assert not out.asnumpy()[3:, 0].any()
    for s, t in zip(new, short_states):
        np.testing.assert_allclose(s.asnumpy()[:, 0], t.asnumpy()[:, 0], rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match=r"sequence_length' must hold lengths in \[1, 5\]"):
        layer(x, states, nd.array([0, 5]))


@pytest.mark.parametrize("clip_nan", [False, True])
def test_state_clip_bounds_the_cell_state_and_clip_nan_stops_a_nan(clip_nan):
    lo, hi = -0.3, 0.2
    layer = _layer(rnn.LSTM, state_clip_min=lo, state_clip_max=hi, state_clip_nan=clip_nan)
    x = np.random.RandomState(3).uniform(-1, 1, (4, 2, 3)).astype(np.float32)
    x[0, 0, 1] = np.nan  # sequence 0's cell state is NaN from its first step on
    _, (h, c) = layer(nd.array(x), layer.begin_state(2))
    c = c.asnumpy()
    assert ((c[:, 1] >= lo) & (c[:, 1] <= hi)).all() and (np.abs(c[:, 1]) < 1).all()
    if clip_nan:
        assert np.isin(c[:, 0], [np.float32(lo), np.float32(hi)]).all()
    else:
        assert np.isnan(c[:, 0]).all()
    free = _layer(rnn.LSTM)
    for k, p in layer.collect_params().items():
        free.collect_params()[k.replace(layer.prefix, free.prefix)].set_data(p.data())
    _, (_, c_free) = free(nd.array(x), free.begin_state(2))
    assert (np.abs(c_free.asnumpy()[:, 1]) > hi).any()  # the bounds were reached


def test_workspace_reuses_only_arrays_nobody_holds():
    from gluonlite.ops.rnn import Workspace
    ws = Workspace()
    a = ws.empty(np, (3, 4), np.float32)
    b = ws.empty(np, (3, 4), np.float32)
    assert a is not b                      # `a` is still held
    ids = id(a), id(b)                     # stable: the workspace keeps both alive
    view = b[1:]
    del a, b
    c = ws.empty(np, (3, 4), np.float32)
    assert id(c) == ids[0]                 # the freed one comes back, not the viewed one
    del view
    assert id(ws.empty(np, (3, 4), np.float32)) == ids[1]  # `c` is held; `b` is free now
    layer = _layer(rnn.LSTM)
    x = nd.random.uniform(-1, 1, shape=(4, 2, 3))
    first = layer(x)
    kept = first.asnumpy().copy()
    second = layer(x * 2)                  # a second call must not write into the first output
    np.testing.assert_array_equal(first.asnumpy(), kept)
    assert not np.allclose(second.asnumpy(), kept)


def test_symbolic_rnn_infers_the_packed_length_states_and_dtypes():
    from gluonlite import sym
    y = sym.RNN(sym.var("data"), sym.var("params"), sym.var("h"), sym.var("c"), state_size=8,
                num_layers=2, bidirectional=True, mode="lstm", state_outputs=True, name="rnn0")
    assert y.list_outputs() == ["rnn0_output", "rnn0_state_output", "rnn0_statecell_output"]
    args, outs, _ = y.infer_shape(data=(5, 3, 6))
    assert dict(zip(y.list_arguments(), args)) == {
        "data": (5, 3, 6),
        "params": ((32 * 6 + 32 * 8) * 2 + (32 * 16 + 32 * 8) * 2 + 2 * 32 * 4,),
        "h": (4, 3, 8), "c": (4, 3, 8)}
    assert outs == [(5, 3, 16), (4, 3, 8), (4, 3, 8)]
    arg_types, out_types, _ = y.infer_type(data=np.float64)
    assert set(arg_types) == {np.float64} and set(out_types) == {np.float64}
    proj = sym.RNN(sym.var("data"), sym.var("params"), sym.var("h"), sym.var("c"),
                   state_size=8, num_layers=1, mode="lstm", projection_size=3,
                   state_outputs=True)
    args, outs, _ = proj.infer_shape(data=(5, 3, 6))
    assert args[1] == (32 * 6 + 32 * 3 + 3 * 8 + 2 * 32,) and outs == [(5, 3, 3), (1, 3, 3),
                                                                        (1, 3, 8)]
