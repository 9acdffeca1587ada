"""gluon.contrib.rnn's convolutional cells (Conv{1,2,3}D{RNN,LSTM,GRU}Cell): values and gradients
(inputs, begin states, parameters) against MXNet 1.9.1 (fixtures/conv_rnn_mxnet.npz, made by
fixtures/make_conv_rnn.py) imperatively, hybridized and inside foreach; parameter names and
shapes, state_info, shape inference, channels-last layouts, save/load, export and errors."""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, gluon, nd
from gluonlite.gluon.contrib import rnn as crnn

from helpers import check_block

_REF = np.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures",
                            "conv_rnn_mxnet.npz"))
_SPEC = json.loads(str(_REF["spec"]))
_TOL = dict(rtol=1e-4, atol=1e-5)


def _tuples(v):
    return tuple(v) if isinstance(v, list) else v


def _make(case, prefix="c_"):
    spec = _SPEC[case]
    kw = {k: _tuples(v) for k, v in spec["kwargs"].items()}
    if isinstance(kw.get("activation"), dict):
        kw["activation"] = gluon.nn.LeakyReLU(kw["activation"]["leaky"])
    cell = getattr(crnn, spec["cls"])(*[_tuples(a) for a in spec["args"]], prefix=prefix, **kw)
    cell.initialize()
    for name, p in cell.collect_params().items():
        p.set_data(nd.array(_REF[f"{case}/p/{name[len(prefix):]}"]))
    return cell


def _inputs(case):
    n_states = 2 if f"{case}/s1" in _REF.files else 1
    x = nd.array(_REF[f"{case}/x"])
    states = [nd.array(_REF[f"{case}/s{i}"]) for i in range(n_states)]
    for a in [x] + states:
        a.attach_grad()
    return x, states


def _loss(case, y, final):
    loss = (y * nd.array(_REF[f"{case}/head_out"])).sum()
    for i, f in enumerate(final):
        loss = loss + (f * nd.array(_REF[f"{case}/head_state{i}"])).sum()
    return loss


def _check_against_mxnet(case, cell, x, states, y, final, prefix="c_"):
    np.testing.assert_allclose(y.asnumpy(), _REF[f"{case}/out"], **_TOL, err_msg="outputs")
    for i, f in enumerate(final):
        np.testing.assert_allclose(f.asnumpy(), _REF[f"{case}/state{i}"], **_TOL,
                                   err_msg=f"state {i}")
    np.testing.assert_allclose(x.grad.asnumpy(), _REF[f"{case}/grad/x"], **_TOL,
                               err_msg="input grad")
    for i, s in enumerate(states):
        np.testing.assert_allclose(s.grad.asnumpy(), _REF[f"{case}/grad/s{i}"], **_TOL,
                                   err_msg=f"begin state {i} grad")
    for name, p in cell.collect_params().items():
        np.testing.assert_allclose(p.grad().asnumpy(), _REF[f"{case}/grad/p/{name[len(prefix):]}"],
                                   **_TOL, err_msg=f"{name} grad")


CASES = sorted(k for k in _SPEC)


@pytest.mark.parametrize("mode", ["imperative", "hybrid", "static"])
@pytest.mark.parametrize("case", CASES)
def test_unroll_matches_mxnet(case, mode):
    cell = _make(case)
    if mode != "imperative":
        cell.hybridize(static_alloc=mode == "static", static_shape=mode == "static")
    x, states = _inputs(case)
    for _ in range(2 if mode == "static" else 1):  # a static plan's second call reuses buffers
        with autograd.record():
            y, final = cell.unroll(_SPEC[case]["T"], x, begin_state=states, layout="NTC",
                                   merge_outputs=True)
            loss = _loss(case, y, final)
        loss.backward()
    _check_against_mxnet(case, cell, x, states, y, final)


class _Foreach(gluon.HybridBlock):
    """The cell run over the time axis of an NTC sequence by `F.contrib.foreach` (one loop node
    when hybridized)."""

    def __init__(self, cell, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.cell = cell

    def hybrid_forward(self, F, x, *states):
        outs, final = F.contrib.foreach(self.cell, F.swapaxes(x, 0, 1), list(states))
        return [F.swapaxes(outs, 0, 1)] + list(final)


@pytest.mark.parametrize("hybridize", [False, True])
@pytest.mark.parametrize("case", ["gru1d", "lstm2d", "rnn3d"])
def test_foreach_matches_mxnet(case, hybridize):
    net = _Foreach(_make(case))
    if hybridize:
        net.hybridize()
    x, states = _inputs(case)
    with autograd.record():
        y, *final = net(x, *states)
        loss = _loss(case, y, final)
    loss.backward()
    _check_against_mxnet(case, net.cell, x, states, y, final)


def test_symbolic_unroll_names_and_shapes():
    # MXNet's check_rnn_cell: one graph over 3 steps, its outputs named t{i}_out, and the
    # begin states' batch axis (0) inferred from the inputs
    cell = crnn.Conv2DGRUCell((10, 20, 50), 100, 3, 3, prefix="rnn_")
    outputs, _ = cell.unroll(3, [mx.sym.var(f"rnn_t{i}_data") for i in range(3)])
    outputs = mx.sym.Group(outputs)
    assert outputs.list_outputs() == ["rnn_t0_out_output", "rnn_t1_out_output",
                                      "rnn_t2_out_output"]
    _, outs, _ = outputs.infer_shape(**{f"rnn_t{i}_data": (1, 10, 20, 50) for i in range(3)})
    assert outs == [(1, 100, 18, 48)] * 3


@pytest.mark.parametrize("cls,in_shape,layout,weights,state", [
    # (as MXNet 1.9.1 makes them) i2h_kernel (3,) * dims, h2h_kernel 3, hidden 4
    ("Conv1DRNNCell", (5, 7), "NCW", ((4, 5, 3), (4, 4, 3), 4), (4, 5)),
    ("Conv1DLSTMCell", (7, 5), "NWC", ((16, 3, 5), (16, 3, 4), 16), (5, 4)),
    ("Conv2DGRUCell", (5, 7, 6), "NCHW", ((12, 5, 3, 3), (12, 4, 3, 3), 12), (4, 5, 4)),
    ("Conv2DLSTMCell", (7, 6, 5), "NHWC", ((16, 3, 3, 5), (16, 3, 3, 4), 16), (5, 4, 4)),
    ("Conv3DRNNCell", (2, 5, 6, 7), "NCDHW", ((4, 2, 3, 3, 3), (4, 4, 3, 3, 3), 4),
     (4, 3, 4, 5)),
    ("Conv3DGRUCell", (5, 6, 7, 2), "NDHWC", ((12, 3, 3, 3, 2), (12, 3, 3, 3, 4), 12),
     (3, 4, 5, 4)),
])
def test_parameters_and_state_info(cls, in_shape, layout, weights, state):
    cell = getattr(crnn, cls)(in_shape, 4, 3, 3, conv_layout=layout)
    alias = {"RNN": "conv_rnn", "LSTM": "conv_lstm", "GRU": "conv_gru"}[cls[6:-4]]
    assert cell.prefix.startswith(alias)
    shapes = {k[len(cell.prefix):]: v.shape for k, v in cell.collect_params().items()}
    assert shapes == {"i2h_weight": weights[0], "h2h_weight": weights[1],
                      "i2h_bias": (weights[2],), "h2h_bias": (weights[2],)}
    n = 2 if "LSTM" in cls else 1
    assert cell.state_info(3) == [{"shape": (3,) + state, "__layout__": layout}] * n
    assert [s.shape for s in cell.begin_state(batch_size=3)] == [(3,) + state] * n


def test_defaults_padding_dilation_and_repr():
    cell = crnn.Conv2DLSTMCell((3, 6, 7), 4, (3, 2), 3, i2h_pad=1)
    assert repr(cell) == "Conv2DLSTMCell(3 -> 16, tanh, NCHW)"  # as MXNet 1.9.1 prints it
    assert cell.state_info(2)[0]["shape"] == (2, 4, 6, 8)
    # out = x + 2 pad - dilate (kernel - 1); the h2h padding keeps it whatever its dilation
    cell = crnn.Conv1DRNNCell((2, 11), 3, 3, 5, i2h_pad=2, i2h_dilate=3, h2h_dilate=2,
                              activation="relu")
    assert cell.state_info()[0]["shape"] == (0, 3, 9)
    assert repr(cell) == "Conv1DRNNCell(2 -> 3, relu, NCW)"
    cell.initialize()
    out, _ = cell(nd.ones((2, 2, 11)), cell.begin_state(2))
    assert out.shape == (2, 3, 9)
    assert repr(crnn.Conv1DGRUCell((0, 7), 4, 3, 3)) == "Conv1DGRUCell(None -> 12, tanh, NCW)"


@pytest.mark.parametrize("hybridize", [False, True])
def test_input_channels_inferred(hybridize):
    # MXNet's test_conv_fill_shape: input_shape (0, 7) leaves the channels to the first call
    cell = crnn.Conv1DLSTMCell((0, 7), 10, (3,), (3,))
    assert cell.i2h_weight.shape == (40, 0, 3)
    cell.initialize()
    if hybridize:
        cell.hybridize()
    x = nd.ones((8, 3, 5, 7))
    x.attach_grad()
    with autograd.record():
        out, states = cell.unroll(3, x, merge_outputs=True)
    out.backward()
    assert cell.i2h_weight.shape == (40, 5, 3)
    assert out.shape == (8, 3, 10, 5) and x.grad.shape == x.shape
    assert [s.shape for s in states] == [(8, 10, 5)] * 2


def _to_last(a):
    return np.moveaxis(a, 1, -1)


@pytest.mark.parametrize("cls,in_shape", [("Conv1DGRUCell", (3, 6)),
                                          ("Conv2DLSTMCell", (2, 5, 4)),
                                          ("Conv3DRNNCell", (2, 3, 4, 3))])
def test_channels_last_matches_channels_first(cls, in_shape):
    # the same cell in both layouts: weights, inputs and states moved channels-last give the
    # same numbers moved channels-last, and gradients moved the same way
    rng = np.random.RandomState(0)
    dims = len(in_shape) - 1
    first = getattr(crnn, cls)(in_shape, 2, 3, 3, i2h_pad=1, prefix="a_")
    last = getattr(crnn, cls)(in_shape[1:] + in_shape[:1], 2, 3, 3, i2h_pad=1, prefix="b_",
                              conv_layout={1: "NWC", 2: "NHWC", 3: "NDHWC"}[dims])
    first.initialize()
    last.initialize()
    for (_, p), (_, q) in zip(sorted(first.collect_params().items()),
                              sorted(last.collect_params().items())):
        v = rng.uniform(-0.5, 0.5, p.shape)
        p.set_data(nd.array(v))
        q.set_data(nd.array(_to_last(v) if v.ndim > 1 else v))
    x = rng.uniform(-1, 1, (2, 3) + in_shape)
    runs = []
    for cell, move in ((first, lambda a: a), (last, _to_last)):
        xs = nd.array(np.stack([move(x[:, t]) for t in range(3)], axis=1))
        xs.attach_grad()
        with autograd.record():
            y, final = cell.unroll(3, xs, merge_outputs=True)
            loss = (y * y).sum() + sum((f * f).sum() for f in final)
        loss.backward()
        runs.append((y.asnumpy(), [f.asnumpy() for f in final], xs.grad.asnumpy(),
                     [p.grad().asnumpy() for _, p in sorted(cell.collect_params().items())]))
    (y1, f1, gx1, gp1), (y2, f2, gx2, gp2) = runs
    np.testing.assert_allclose(np.moveaxis(y1, 2, -1), y2, rtol=1e-5, atol=1e-6)
    for a, b in zip(f1, f2):
        np.testing.assert_allclose(_to_last(a), b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.moveaxis(gx1, 2, -1), gx2, rtol=1e-5, atol=1e-6)
    for a, b in zip(gp1, gp2):
        np.testing.assert_allclose(_to_last(a) if a.ndim > 1 else a, b, rtol=1e-4, atol=1e-5)


class _Unroll(gluon.HybridBlock):
    def __init__(self, make, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.cell = make()

    def hybrid_forward(self, F, x):
        out, states = self.cell.unroll(3, x, layout="NTC", merge_outputs=True)
        return [out] + list(states)


def _stack():
    # MXNet's test_rnn_cells stack: each cell's output is the next one's input
    net = gluon.rnn.HybridSequentialRNNCell()
    net.add(crnn.Conv1DLSTMCell((5, 7), 4, 3, 3))
    net.add(crnn.Conv1DRNNCell((4, 5), 3, 3, 3, activation=gluon.nn.LeakyReLU(0.2)))
    net.add(crnn.Conv1DGRUCell((3, 3), 2, 3, 3))
    return net


@pytest.mark.parametrize("make", [_stack, lambda: crnn.Conv2DGRUCell((0, 4, 5), 3, 2, 3)],
                         ids=["stack1d", "gru2d_inferred"])
def test_hybridized_matches_imperative(make):
    x = np.random.RandomState(2).uniform(-1, 1, (2, 3, 2, 4, 5)).astype(np.float32)
    if make is _stack:
        x = x.reshape(2, 3, 5, 8)[..., :7]
    outs = check_block(lambda: _Unroll(make), [x], rtol=1e-5, atol=1e-6)[0]
    assert outs[0].shape[:2] == (2, 3)


def test_block_activation_equals_its_name():
    x = nd.array(np.random.RandomState(1).uniform(-1, 1, (2, 3, 6)))
    outs = []
    for act in ("relu", gluon.nn.Activation("relu")):
        cell = crnn.Conv1DRNNCell((3, 6), 2, 3, 3, activation=act, prefix="r_")
        mx.random.seed(0)
        cell.initialize(mx.init.Uniform(0.5))
        outs.append(cell(x, cell.begin_state(2))[0].asnumpy())
    np.testing.assert_array_equal(outs[0], outs[1])
    assert (outs[0] >= 0).all() and (outs[0] > 0).any()


def test_save_load_and_export(tmp_path):
    cell = _make("lstm2d")
    x, states = _inputs("lstm2d")
    cell.save_parameters(str(tmp_path / "cell.params"))
    other = crnn.Conv2DLSTMCell(*[_tuples(a) for a in _SPEC["lstm2d"]["args"]], prefix="c_",
                                **{k: _tuples(v) for k, v in _SPEC["lstm2d"]["kwargs"].items()})
    other.load_parameters(str(tmp_path / "cell.params"))
    y, _ = other.unroll(3, x, begin_state=states, merge_outputs=True)
    np.testing.assert_allclose(y.asnumpy(), _REF["lstm2d/out"], **_TOL)

    cell.hybridize()
    step = nd.array(_REF["lstm2d/x"][:, 0])
    out, new = cell(step, states)
    cell.export(str(tmp_path / "step"))
    blk = gluon.SymbolBlock.imports(str(tmp_path / "step-symbol.json"),
                                    ["data0", "data1", "data2"],
                                    str(tmp_path / "step-0000.params"))
    got = blk(step, *states)
    for a, b in zip(got, [out] + new):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("kwargs,match", [
    (dict(h2h_kernel=2), r"Conv1DRNNCell: h2h_kernel must be odd along every axis.*got 2"),
    (dict(h2h_kernel=(3, 3)), r"h2h_kernel must be an int or a tuple of 1 int.*got \(3, 3\)"),
    (dict(i2h_pad=(1, 1)), r"i2h_pad must be an int or a tuple of 1 int.*got \(1, 1\)"),
    (dict(i2h_dilate=0), r"i2h_dilate must be at least 1 along every axis, got \(0,\)"),
    (dict(conv_layout="NCHW"), r"conv_layout must be one of \('NCW', 'NWC'\).*got 'NCHW'"),
    (dict(input_shape=(5, 7, 7)), r"input_shape must be a tuple of 2 non-negative ints.*"
                                  r"got \(5, 7, 7\)"),
    (dict(hidden_channels=0), r"hidden_channels must be a positive int, got 0"),
    (dict(i2h_kernel=9), r"the input convolution leaves nothing of input_shape \(5, 7\)"),
])
def test_constructor_errors(kwargs, match):
    args = dict(input_shape=(5, 7), hidden_channels=4, i2h_kernel=3, h2h_kernel=3)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        crnn.Conv1DRNNCell(**args)


def test_call_errors():
    cell = crnn.Conv2DLSTMCell((3, 6, 7), 4, 3, 3)
    cell.initialize()
    states = cell.begin_state(2)
    with pytest.raises(ValueError, match=r"inputs must have shape \(batch,\) \+ \(3, 6, 7\).*"
                                         r"got \(2, 3, 6, 8\)"):
        cell(nd.ones((2, 3, 6, 8)), states)
    with pytest.raises(ValueError, match=r"got \(2, 4, 3, 6, 7\); a cell runs one step"):
        cell(nd.ones((2, 4, 3, 6, 7)), states)
    with pytest.raises(ValueError, match=r"states\[1\] must have shape \(2, 4, 4, 5\) \(see "
                                         r"state_info\), got \(2, 4, 5, 5\)"):
        cell(nd.ones((2, 3, 6, 7)), [states[0], nd.ones((2, 4, 5, 5))])
    with pytest.raises(ValueError, match=r"expects 2 state\(s\).*got 1"):
        cell(nd.ones((2, 3, 6, 7)), states[:1])


@pytest.mark.parametrize("case", ["lstm2d", "gru3d"])
def test_matches_mxnet_on_each_context(case, on_ctx):
    cell = _make(case)
    cell.hybridize()
    x, states = _inputs(case)
    assert x.context == on_ctx and cell.i2h_weight.data().context == on_ctx
    with autograd.record():
        y, final = cell.unroll(_SPEC[case]["T"], x, begin_state=states, merge_outputs=True)
        loss = _loss(case, y, final)
    loss.backward()
    _check_against_mxnet(case, cell, x, states, y, final)
