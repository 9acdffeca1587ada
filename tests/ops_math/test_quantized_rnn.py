"""The int8 LSTM (`nd.contrib.quantized_rnn`) against MXNet 1.9.1's CPU kernel
(tests/fixtures/quantized_rnn_mxnet.npz, made by tests/fixtures/make_quantized_rnn.py), against
the float32 `RNN` it stands for, and where it deliberately differs (exact integer sums)."""
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd
from gluonlite.base import MXNetTypeError, MXNetValueError
from gluonlite.ops.registry import ShapeError

FIX = np.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures",
                           "quantized_rnn_mxnet.npz"))
CASES = sorted({k.split("_")[0] for k in FIX.files}, key=lambda c: int(c[1:]))
_INPUTS = ("data", "params", "state", "cell", "scale", "shift")


def _case(c):
    _, _, _, H, L, bi, so = (int(v) for v in FIX[f"{c}_attrs"])
    attrs = dict(state_size=H, num_layers=L, bidirectional=bool(bi), state_outputs=bool(so),
                 mode="lstm")
    arrays = [FIX[f"{c}_{n}"] for n in _INPUTS]
    expected = [FIX[f"{c}_out{i}"] for i in range(3 if so else 1)]
    return arrays, attrs, expected


def _run(arrays, **attrs):
    ins = [nd.array(a, dtype=a.dtype) for a in arrays]
    out = nd.contrib.quantized_rnn(*ins, **attrs)
    return [o.asnumpy() for o in (out if isinstance(out, list) else [out])]


@pytest.mark.parametrize("case", CASES)
def test_matches_mxnet_kernel(case):
    arrays, attrs, expected = _case(case)
    got = _run(arrays, **attrs)
    assert len(got) == len(expected)
    # the output and the final hidden state are on the uint8 grid: to the bit
    for g, e in zip(got[:2], expected[:2]):
        assert g.dtype == np.float32 and g.shape == e.shape
        np.testing.assert_array_equal(g, e)
    if len(got) == 3:       # the float32 cell state: to the rounding of sigmoid and tanh
        np.testing.assert_allclose(got[2], expected[2], rtol=0, atol=2e-6)


@pytest.mark.parametrize("case", ["c3", "c4"])
def test_symbolic_matches_imperative(case):
    arrays, attrs, _ = _case(case)
    names = ["q", "w", "h", "c", "scale", "shift"]
    s = mx.sym.contrib.quantized_rnn(*[mx.sym.var(n) for n in names], name="qrnn", **attrs)
    assert s.list_outputs() == ["qrnn_output", "qrnn_state_output", "qrnn_statecell_ouput"]
    exe = s.bind(mx.cpu(), {n: nd.array(a, dtype=a.dtype) for n, a in zip(names, arrays)})
    for g, e in zip(exe.forward(), _run(arrays, **attrs)):
        np.testing.assert_array_equal(g.asnumpy(), e)


def _asym(x, levels=128.0):
    lo, hi = np.float32(x.min()), np.float32(x.max())
    scale = np.float32(levels) / (hi - lo)
    shift = np.float32(levels) - hi * scale
    q = np.clip(np.rint(x * scale + shift), 0, 255).astype(np.uint8)
    return q, np.array([scale], np.float32), np.array([shift], np.float32)


@pytest.mark.parametrize("layers, bidirectional", [(1, False), (1, True), (2, False), (2, True)])
def test_close_to_the_float_lstm(layers, bidirectional):
    # MXNet's own test_quantized_rnn: the mean squared error against the float32 operator
    rng = np.random.RandomState(layers + 2 * bidirectional)
    T, N, width, H = 5, 2, 16, 16
    D = 2 if bidirectional else 1
    size = mx.ops.rnn_layout.layout(
        mx.ops.get("RNN").parse({"state_size": H, "num_layers": layers, "mode": "lstm",
                                 "bidirectional": bidirectional})[0], width).size
    x = rng.uniform(-1, 1, (T, N, width)).astype(np.float32)
    w = rng.uniform(-1, 1, size).astype(np.float32)
    h0, c0 = (rng.uniform(-1, 1, (layers * D, N, H)).astype(np.float32) for _ in range(2))
    attrs = dict(state_size=H, num_layers=layers, bidirectional=bidirectional, mode="lstm",
                 state_outputs=True)
    ref = nd.RNN(nd.array(x), nd.array(w), nd.array(h0), nd.array(c0), **attrs)
    q, scale, shift = _asym(x)
    got = _run([q, w, h0, c0, scale, shift], **attrs)
    for g, r in zip(got, ref):
        assert np.mean((g - r.asnumpy()) ** 2) < 1e-3
    # every hidden state is on the data's uint8 grid
    grid = got[0] * scale[0] + shift[0]
    np.testing.assert_allclose(grid, np.rint(grid), atol=1e-3)


def test_full_uint8_range_sums_are_exact():
    # 255 * 127 twice exceeds 16 bits: MXNet's kernel below VNNI saturates such pairs, the
    # sums here are exact. With equal weights every gate is x * I * w exactly.
    width, H, w = 8, 3, 0.25
    q = np.full((1, 1, width), 255, np.uint8)
    scale, shift = np.array([255.0 / 2], np.float32), np.array([127.5], np.float32)
    G = 4 * H
    params = np.concatenate([np.full(G * width, w), np.zeros(G * H), np.zeros(2 * G)]).astype(
        np.float32)
    zeros = np.zeros((1, 1, H), np.float32)
    out = _run([q, params, zeros, zeros, scale, shift], state_size=H, num_layers=1,
               mode="lstm")[0]
    x = (255 - 127.5) / 127.5
    a = x * width * w                               # 2.0 for every gate
    sig = 1 / (1 + np.exp(-a))
    h = sig * np.tanh(sig * np.tanh(a))
    expected = (np.rint(h * 127.5 + 127.5) - 127.5) / 127.5
    np.testing.assert_allclose(out, np.full((1, 1, H), expected), rtol=0, atol=1e-7)


def test_zero_gate_row_takes_its_bias():
    # a gate row of zero weights has no int8 scale (127 / 0); its gate is its bias alone
    H = 1
    params = np.array([1.0, 1.0,  0, 0,  1.0, 1.0,  1.0, 1.0] + [0.0] * 4  # wx, wh
                      + [0, 3.0, 0, 0] + [0, 0, 0, 0], np.float32)        # bx, bh
    q = np.array([[[200, 200]]], np.uint8)
    zeros = np.zeros((1, 1, 1), np.float32)
    half = np.array([100.0], np.float32)
    out, hy, cy = _run([q, params, zeros, zeros + 0.5, half, half], state_size=H,
                       num_layers=1, mode="lstm", state_outputs=True)
    x = 1.0                                          # (200 - 100) / 100
    a = np.array([2 * x, 3.0, 2 * x, 2 * x])         # the forget gate: its bias
    i, f, g = 1 / (1 + np.exp(-a[0])), 1 / (1 + np.exp(-a[1])), np.tanh(a[2])
    c = f * 0.5 + i * g
    np.testing.assert_allclose(cy.ravel(), [c], rtol=1e-6)
    assert np.isfinite(out).all()


def test_weight_scales_follow_mxnets_walk():
    from gluonlite.ops.quantized_rnn import weight_scales
    p = mx.ops.get("_contrib_quantized_rnn").parse(
        {"state_size": 1, "num_layers": 1, "mode": "lstm"})[0]
    w = np.array([0.5, -1, 2, 0.25, 1, 1, -4, 0.5] + [0] * 8, np.float32)
    np.testing.assert_array_equal(weight_scales(np, w, p, 1),
                                  np.float32(127) / np.array([1, 1, 4, 0.5], np.float32))
    # two unidirectional layers, input as wide as the state: MXNet fuses them into one oneDNN
    # layer and reads the first layer's weights only, so the second's 10 does not count
    p2 = mx.ops.get("_contrib_quantized_rnn").parse(
        {"state_size": 1, "num_layers": 2, "mode": "lstm"})[0]
    w2 = np.concatenate([np.ones(8), np.full(8, 10.0), np.zeros(16)]).astype(np.float32)
    np.testing.assert_array_equal(weight_scales(np, w2, p2, 1), np.full(4, 127, np.float32))


def test_bad_input_is_named():
    arrays, attrs, _ = _case("c8")
    with pytest.raises(MXNetValueError, match="mode must be 'lstm'.*'gru'"):
        _run(arrays, **dict(attrs, mode="gru"))
    with pytest.raises(MXNetValueError, match="projection_size=2 is not supported"):
        _run(arrays, **dict(attrs, projection_size=2))
    with pytest.raises(MXNetTypeError, match="input 'data' must be uint8.*float32"):
        _run([arrays[0].astype(np.float32)] + arrays[1:], **attrs)
    with pytest.raises(ShapeError, match="quantized_rnn: input 'parameters' must have shape"):
        _run([arrays[0], arrays[1][:-1]] + arrays[2:], **attrs)
    with pytest.raises(ShapeError, match="'min_data' .*scale.* must hold one value"):
        _run(arrays[:4] + [np.ones(2, np.float32), arrays[5]], **attrs)
