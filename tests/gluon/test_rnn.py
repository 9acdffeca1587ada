"""RNN cells against numpy equations, layers against loops of cells, unroll, errors, and the
seed models (the blog's ForeachRNN and the benchmark's WhileRNN)."""
import json

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd, gluon, autograd
from gluonlite.gluon import rnn
from gluonlite.test_utils import assert_almost_equal

R = np.random.RandomState(3)


def sig(x):
    return 1 / (1 + np.exp(-x))


def np_rnn(x, h, w):
    return [np.tanh(x @ w["i2h_weight"].T + w["i2h_bias"] + h[0] @ w["h2h_weight"].T
                    + w["h2h_bias"])] * 2


def np_lstm(x, s, w):
    g = x @ w["i2h_weight"].T + w["i2h_bias"] + s[0] @ w["h2h_weight"].T + w["h2h_bias"]
    i, f, c, o = np.split(g, 4, axis=1)
    c2 = sig(f) * s[1] + sig(i) * np.tanh(c)
    h2 = sig(o) * np.tanh(c2)
    return h2, h2, c2


def np_gru(x, s, w):
    a = x @ w["i2h_weight"].T + w["i2h_bias"]
    b = s[0] @ w["h2h_weight"].T + w["h2h_bias"]
    ar, az, an = np.split(a, 3, axis=1)
    br, bz, bn = np.split(b, 3, axis=1)
    r, z = sig(ar + br), sig(az + bz)
    n = np.tanh(an + r * bn)
    h = (1 - z) * n + z * s[0]
    return h, h


def _weights(cell):
    return {k: v.data().asnumpy() for k, v in cell._reg_params.items()}


@pytest.mark.parametrize("cls,ref,n_states", [(rnn.RNNCell, np_rnn, 1),
                                              (rnn.LSTMCell, np_lstm, 2),
                                              (rnn.GRUCell, np_gru, 1)])
def test_cell_matches_numpy(cls, ref, n_states, on_ctx):
    cell = cls(5, input_size=3)
    cell.initialize(mx.init.Uniform(0.5))
    x = R.uniform(-1, 1, (2, 3)).astype(np.float32)
    states = [R.uniform(-1, 1, (2, 5)).astype(np.float32) for _ in range(n_states)]
    out, new = cell(nd.array(x), [nd.array(s) for s in states])
    want = ref(x, states, _weights(cell))
    np.testing.assert_allclose(out.asnumpy(), want[0], rtol=1e-5, atol=1e-6)
    for got, w in zip(new, want[1:]):
        np.testing.assert_allclose(got.asnumpy(), w, rtol=1e-5, atol=1e-6)


def test_cell_param_names_and_state_info():
    cell = rnn.LSTMCell(4, prefix="lstm_")
    assert list(cell.collect_params().keys()) == ["lstm_i2h_weight", "lstm_h2h_weight",
                                                  "lstm_i2h_bias", "lstm_h2h_bias"]
    assert cell.collect_params()["lstm_i2h_weight"].shape == (16, 0)
    assert [i["shape"] for i in cell.state_info(3)] == [(3, 4), (3, 4)]
    states = cell.begin_state(batch_size=3)
    assert [s.shape for s in states] == [(3, 4), (3, 4)]
    assert rnn.GRUCell(4).prefix.startswith("gru")


def test_unroll_node_names_and_layouts():
    cell = rnn.GRUCell(4, prefix="g_")
    x = mx.sym.var("x")
    outs, states = cell.unroll(3, x, begin_state=[mx.sym.var("h")], layout="TNC",
                               merge_outputs=True)
    names = [n["name"] for n in json.loads(outs.tojson())["nodes"]]
    assert "g_t0_i2h" in names and "g_t2_h2h" in names
    cell.initialize()
    xn = nd.array(R.uniform(-1, 1, (2, 3, 5)))          # NTC
    merged, st = cell.unroll(3, xn, layout="NTC", merge_outputs=True)
    listed, st2 = cell.unroll(3, xn, layout="NTC", merge_outputs=False)
    assert merged.shape == (2, 3, 4) and len(listed) == 3
    np.testing.assert_allclose(merged.asnumpy()[:, 1], listed[1].asnumpy(), rtol=1e-6)
    tnc, _ = cell.unroll(3, nd.array(xn.asnumpy().transpose(1, 0, 2)), layout="TNC",
                         merge_outputs=True)
    np.testing.assert_allclose(tnc.asnumpy().transpose(1, 0, 2), merged.asnumpy(), rtol=1e-6)


def test_cell_wrong_number_of_states():
    cell = rnn.LSTMCell(4)
    cell.initialize()
    with pytest.raises(ValueError, match="expects 2 state"):
        cell(nd.ones((2, 3)), [nd.zeros((2, 4))])


def test_sequential_cells():
    for seq_cls in (rnn.SequentialRNNCell, rnn.HybridSequentialRNNCell):
        seq = seq_cls()
        with seq.name_scope():
            seq.add(rnn.LSTMCell(4))
            seq.add(rnn.GRUCell(3))
        seq.initialize()
        assert len(seq.state_info(2)) == 3
        x = nd.array(R.uniform(-1, 1, (2, 5, 6)))
        out, states = seq.unroll(5, x, layout="NTC", merge_outputs=True)
        assert out.shape == (2, 5, 3) and [s.shape for s in states] == [(2, 4), (2, 4), (2, 3)]
        # one step through the stack equals stepping the cells by hand
        s0 = seq.begin_state(batch_size=2)
        o, _ = seq(x[:, 0], s0)
        o1, _ = seq[0](x[:, 0], s0[:2])
        o2, _ = seq[1](o1, s0[2:])
        np.testing.assert_allclose(o.asnumpy(), o2.asnumpy(), rtol=1e-6)


LAYERS = [(rnn.RNN, rnn.RNNCell, {"activation": "relu"}), (rnn.LSTM, rnn.LSTMCell, {}),
          (rnn.GRU, rnn.GRUCell, {})]


@pytest.mark.parametrize("layer_cls,cell_cls,kw", LAYERS)
@pytest.mark.parametrize("bidirectional", [False, True])
def test_layer_matches_loop_of_cells(layer_cls, cell_cls, kw, bidirectional, on_ctx):
    T, N, C, H, L = 4, 2, 3, 5, 2
    layer = layer_cls(H, num_layers=L, bidirectional=bidirectional)
    layer.initialize(mx.init.Uniform(0.3))
    x = R.uniform(-1, 1, (T, N, C)).astype(np.float32)
    D = 2 if bidirectional else 1
    n_states = 2 if layer_cls is rnn.LSTM else 1
    states = [R.uniform(-1, 1, (L * D, N, H)).astype(np.float32) for _ in range(n_states)]
    out, new_states = layer(nd.array(x), [nd.array(s) for s in states])
    params = {k: v.data() for k, v in layer._reg_params.items()}
    seq = x
    finals = [[] for _ in range(n_states)]
    for li in range(L):
        dir_outs = []
        for d in range(D):
            cell = cell_cls(H, **kw)
            cell.initialize()
            pre = f"{'lr'[d]}{li}_"
            for name in ("i2h_weight", "i2h_bias", "h2h_weight", "h2h_bias"):
                getattr(cell, name).set_data(params[pre + name])
            st = [nd.array(s[li * D + d]) for s in states]
            steps = range(T) if d == 0 else reversed(range(T))
            outs = {}
            for t in steps:
                o, st = cell(nd.array(seq[t]), st)
                outs[t] = o.asnumpy()
            dir_outs.append(np.stack([outs[t] for t in range(T)]))
            for i, s in enumerate(st):
                finals[i].append(s.asnumpy())
        seq = np.concatenate(dir_outs, axis=2)
    np.testing.assert_allclose(out.asnumpy(), seq, rtol=1e-5, atol=1e-5)
    for got, want in zip(new_states, finals):
        np.testing.assert_allclose(got.asnumpy(), np.stack(want), rtol=1e-5, atol=1e-5)


def test_layer_names_defaults_and_errors():
    lstm = rnn.LSTM(4, num_layers=2, bidirectional=True)
    names = list(lstm.collect_params().keys())
    p = lstm.prefix
    assert p.startswith("lstm")
    assert names[:4] == [p + "l0_i2h_weight", p + "l0_h2h_weight", p + "l0_i2h_bias",
                         p + "l0_h2h_bias"]
    assert p + "r1_h2h_bias" in names
    assert lstm.collect_params()[p + "l1_i2h_weight"].shape == (16, 8)
    assert rnn.RNN(3)._activation == "relu"
    layer = rnn.GRU(4)
    layer.initialize()
    x = nd.ones((3, 2, 5))
    assert layer(x).shape == (3, 2, 4)
    with pytest.raises(ValueError, match="state shape"):
        layer(x, [nd.zeros((1, 3, 4))])
    with pytest.raises(ValueError, match="expects 1 state"):
        layer(x, [nd.zeros((1, 2, 4)), nd.zeros((1, 2, 4))])


def test_hybridized_layer_is_mxnets_fused_graph():
    layer = rnn.LSTM(4, num_layers=2, bidirectional=True)
    layer.initialize()
    layer.hybridize()
    for T in (3, 7):
        layer(nd.ones((T, 2, 5)))
        nodes = json.loads(layer._cached_graph[1].tojson())["nodes"]
        ops = [n["op"] for n in nodes]
        assert ops.count("_rnn_param_concat") == 1 and ops.count("RNN") == 1
        assert "_foreach" not in ops
        assert len(nodes) < 60


# ---- the seed models, as written there (only the import changed) ---------------------------
class ForeachRNN(gluon.HybridBlock):
    def __init__(self, cell, prefix=None, params=None):
        super(ForeachRNN, self).__init__(prefix=prefix, params=params)
        self.cell = cell

    def hybrid_forward(self, F, inputs, states):
        def body(data, states):
            out, states = self.cell(data, states)
            return [out, states], states
        outs, _ = F.contrib.foreach(body, inputs, states)
        return outs


class WhileRNN(gluon.HybridBlock):
    def __init__(self, cell, length, prefix=None, params=None):
        super(WhileRNN, self).__init__(prefix=prefix, params=params)
        self.length = length
        self.cell = cell

    def hybrid_forward(self, F, inputs, states):
        def _func(*states):
            i = states[0]
            s = states[1:]
            data = inputs.take(i).squeeze(axis=0)
            out, new_s = self.cell(data, s)
            new_s = [i + 1] + new_s
            return out, new_s
        out, states = F.contrib.while_loop(
            cond=lambda i, *_: i < self.length,
            func=_func,
            loop_vars=states,
            max_iterations=self.length,
        )
        assert not isinstance(out, list)   # one step output stays one array (MXNet 1.9.1)
        return out


def _run(layer, inputs, states, train):
    for x in [inputs] + states:
        x.attach_grad()
    if train:
        with mx.autograd.record():
            res = layer(inputs, states)
        leaves = res if isinstance(res, list) else [res]
        autograd.backward([leaves[0]])
        grads = [layer.cell.i2h_weight.grad().asnumpy().copy(), inputs.grad.asnumpy().copy()]
    else:
        res = layer(inputs, states)
        grads = []
    leaves = res if isinstance(res, list) else [res]
    return [leaves[0].asnumpy()] + grads


@pytest.mark.parametrize("cell_type", [rnn.RNNCell, rnn.GRUCell, rnn.LSTMCell])
@pytest.mark.parametrize("train", [False, True])
def test_seed_foreach_rnn(cell_type, train, on_ctx):
    data = mx.nd.random.normal(shape=(6, 3, 5))
    states = [mx.nd.normal(shape=(3, 4)) for _ in cell_type(4).state_info()]
    results = []
    for hybrid in (False, True):
        mx.random.seed(7)
        rnn_ = ForeachRNN(cell_type(hidden_size=4))
        rnn_.initialize()
        if hybrid:
            rnn_.hybridize(static_alloc=True)
        results.append(_run(rnn_, data.copy(), [s.copy() for s in states], train))
        results.append(_run(rnn_, data.copy(), [s.copy() for s in states], train))
    for got in results[1:]:
        for a, b in zip(got, results[0]):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("cell_type", [rnn.RNNCell, rnn.GRUCell, rnn.LSTMCell])
@pytest.mark.parametrize("train", [False, True])
def test_seed_while_rnn(cell_type, train, on_ctx):
    seq_len, batch, hidden = 5, 2, 4
    inputs = mx.nd.normal(loc=0.0, scale=1.0, shape=(seq_len, batch, hidden))
    states = [mx.nd.normal(loc=0.0, scale=1.0, shape=(batch, hidden))
              for _ in cell_type(0).state_info()]
    states.insert(0, mx.nd.zeros((1,)))
    results = []
    for hyb_cell, hyb_layer in ((False, False), (True, False), (False, True), (True, True)):
        mx.random.seed(11)
        cell = cell_type(hidden)
        if hyb_cell:
            cell.hybridize(static_alloc=True)
        layer = WhileRNN(cell, seq_len)
        layer.initialize()
        if hyb_layer:
            layer.hybridize(static_alloc=True)
        results.append(_run(layer, inputs.copy(), [s.copy() for s in states], train))
    assert results[0][0].shape == (seq_len, batch, hidden)
    for got in results[1:]:
        for a, b in zip(got, results[0]):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


# ---- unroll with valid_length ----------------------------------------------------------------
def _np_unroll_valid(steps, x_tnc, lengths, cells):
    """numpy reference of MXNet's unroll(valid_length=...) over stacked `cells` (each
    (step function, weights, n_states, hidden)): outputs zero past each length, states of
    each sequence's last valid step."""
    T, N = x_tnc.shape[:2]
    seq = [x_tnc[t] for t in range(T)]
    finals = []
    for step, w, n_states, hidden in cells:
        states = [np.zeros((N, hidden), np.float32) for _ in range(n_states)]
        outs, per_step = [], []
        for t in range(T):
            res = step(seq[t], states, w)
            outs.append(res[0])
            states = list(res[1:])
            per_step.append(states)
        keep = (np.arange(T)[:, None] < lengths[None, :])[..., None]
        seq = list(np.where(keep, np.stack(outs), 0))
        last = lengths.astype(int) - 1
        finals += [np.stack([s[k] for s in per_step])[last, np.arange(N)]
                   for k in range(n_states)]
    return np.stack(seq), finals


@pytest.mark.parametrize("kind", ["rnn", "lstm", "gru", "stack"])
@pytest.mark.parametrize("layout", ["NTC", "TNC"])
def test_unroll_valid_length_matches_numpy(kind, layout):
    specs = {"rnn": [(rnn.RNNCell, np_rnn, 1)], "lstm": [(rnn.LSTMCell, np_lstm, 2)],
             "gru": [(rnn.GRUCell, np_gru, 1)],
             "stack": [(rnn.LSTMCell, np_lstm, 2), (rnn.GRUCell, np_gru, 1)]}[kind]
    T, N, C, H = 4, 3, 5, 2
    if len(specs) == 1:
        cell = specs[0][0](H, input_size=C)
        parts = [cell]
    else:
        cell = rnn.SequentialRNNCell()
        parts = [specs[0][0](H, input_size=C), specs[1][0](H, input_size=H)]
        for c in parts:
            cell.add(c)
    cell.initialize(mx.init.Uniform(0.5))
    x_tnc = R.uniform(-1, 1, (T, N, C)).astype(np.float32)
    lengths = np.array([4, 1, 3], np.float32)
    x = x_tnc if layout == "TNC" else x_tnc.swapaxes(0, 1)
    want_out, want_states = _np_unroll_valid(
        T, x_tnc, lengths, [(ref, _weights(c), n, H) for c, (_, ref, n) in zip(parts, specs)])
    if layout == "NTC":
        want_out = want_out.swapaxes(0, 1)
    out, states = cell.unroll(T, nd.array(x), layout=layout, valid_length=nd.array(lengths))
    np.testing.assert_allclose(out.asnumpy(), want_out, rtol=1e-5, atol=1e-6)
    assert len(states) == len(want_states)
    for got, w in zip(states, want_states):
        np.testing.assert_allclose(got.asnumpy(), w, rtol=1e-5, atol=1e-6)
    steps, _ = cell.unroll(T, nd.array(x), layout=layout, valid_length=nd.array(lengths),
                           merge_outputs=False)
    t_axis = layout.find("T")
    assert len(steps) == T
    for t, step in enumerate(steps):
        np.testing.assert_allclose(step.asnumpy(), np.take(want_out, t, axis=t_axis),
                                   rtol=1e-5, atol=1e-6)


class _UnrollValid(gluon.HybridBlock):
    """An LSTM cell unrolled with valid lengths inside a hybrid_forward."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.cell = rnn.LSTMCell(3, input_size=2)

    def hybrid_forward(self, F, x, valid_length, h, c):
        out, states = self.cell.unroll(4, x, begin_state=[h, c], layout="NTC",
                                       merge_outputs=True, valid_length=valid_length)
        return [out] + list(states)


def test_unroll_valid_length_hybridized_matches_imperative(on_ctx):
    from helpers import check_block
    x = R.uniform(-1, 1, (3, 4, 2)).astype(np.float32)
    lengths = np.array([2, 4, 1], np.float32)
    h, c = R.uniform(-1, 1, (2, 3, 3)).astype(np.float32)
    outs = check_block(_UnrollValid, [x, lengths, h, c],
                       grad_inputs=[True, False, True, True])[0]
    assert not outs[0][0, 2:].any() and not outs[0][2, 1:].any()
    assert outs[0][1, 3].any()


@pytest.mark.parametrize("cell_cls", [gluon.rnn.RNNCell, gluon.rnn.GRUCell, gluon.rnn.LSTMCell])
def test_hybridized_unroll_without_begin_state_infers_the_batch(cell_cls):
    """In a graph the default zero states have batch 0; inference fills it from the
    FullyConnected that reads them, as MXNet's does."""
    class Net(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.cell = cell_cls(6, input_size=4)

        def hybrid_forward(self, F, x):
            out, _ = self.cell.unroll(5, x, layout="NTC", merge_outputs=True)
            return out

    net = Net()
    net.initialize()
    x = nd.array(np.random.RandomState(0).randn(3, 5, 4))
    results = []
    for hybrid in (False, True):
        if hybrid:
            net.hybridize(static_alloc=True)
        x.attach_grad()
        with autograd.record():
            out = net(x)
        out.backward()
        results.append((out.asnumpy(), x.grad.asnumpy(),
                        net.cell.h2h_weight.grad().asnumpy()))
    assert results[1][0].shape == (3, 5, 6)
    for a, b in zip(*results):
        assert_almost_equal(b, a, rtol=1e-5, atol=1e-6)


def test_rnn_cell_with_a_leaky_relu_block_activation():
    # MXNet's RNNCell applies a LeakyReLU block as the LeakyReLU operator with the block's
    # slope, and holds the block as its child `_activation`; unroll resets only cells.
    cell = gluon.rnn.RNNCell(4, activation=gluon.nn.LeakyReLU(0.1), input_size=3)
    cell.initialize()
    assert list(cell._children) == ["_activation"]
    rng = np.random.RandomState(0)
    x = rng.randn(5, 2, 3).astype(np.float32)
    wx, wh = cell.i2h_weight.data().asnumpy(), cell.h2h_weight.data().asnumpy()
    b = cell.i2h_bias.data().asnumpy() + cell.h2h_bias.data().asnumpy()
    h, want = np.zeros((2, 4), np.float32), []
    for t in range(5):
        z = x[t] @ wx.T + h @ wh.T + b
        h = np.where(z > 0, z, 0.1 * z)
        want.append(h)
    out, _ = cell.unroll(5, nd.array(x), layout="TNC", merge_outputs=True)
    np.testing.assert_allclose(out.asnumpy(), np.stack(want), rtol=1e-5, atol=1e-6)
    cell.hybridize()
    out2, _ = cell.unroll(5, nd.array(x), layout="TNC", merge_outputs=True)
    np.testing.assert_allclose(out2.asnumpy(), out.asnumpy(), rtol=1e-6)
