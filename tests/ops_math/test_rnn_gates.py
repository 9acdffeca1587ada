"""The fused RNN's gate kernels (gluonlite.ops.rnn_gates) against the cell equations written
out plainly, including saturated gates (exp overflowing to inf) and NaN, and the fused RNN
operator on saturating inputs: right values, no numpy warning; and the fewer-calls kernels
(`constant`, `lstm_gates_doubled`) and the fused LSTM operator on both recurrent-weight paths
(the stored weight, and its doubled transposed copy) with projection, state clipping and
sequence lengths."""
import warnings

import numpy as np
import pytest

from gluonlite import nd
from gluonlite.ops import rnn_gates as rg


def _sigmoid(x):
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-x.astype(np.float64)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lstm_gates_doubled_saturate_exactly_and_keep_nan(dtype):
    # every gate of row k is x[k]: the exp form overflows to inf on purpose (a sigmoid of
    # exactly 0 or 1, a tanh of exactly +-1) and warns about nothing; NaN stays NaN
    x = np.array([-1e4, -200.0, -90.0, -20.0, -1.0, -1e-6, 0.0, 1e-6, 1.0, 20.0, 90.0, 200.0,
                  1e4, np.inf, -np.inf, np.nan], dtype)
    N, H = len(x), 1
    pre = np.repeat(x[:, None], 4, axis=1)
    a = -pre
    a[:, 2] *= 2
    c_prev = np.zeros((N, H), dtype)
    c_new, tc, h, t1 = (np.empty((N, H), dtype) for _ in range(4))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with rg.quiet(np):
            rg.lstm_gates_doubled(np, a, c_prev, c_new, tc, h, t1,
                                  rg.lstm_numerators(np, H, dtype))
    with np.errstate(over="ignore", invalid="ignore"):
        s, t = _sigmoid(x), np.tanh(x.astype(np.float64))
    want = np.stack([s, s, t, s], axis=1)
    # float32: below exp's range the logistic is a subnormal, and 0 is as close as matters
    np.testing.assert_allclose(a, want, rtol=1e-6 if dtype == "float32" else 1e-15,
                               atol=1e-6 if dtype == "float32" else 1e-15)
    assert (a[0, [0, 1, 3]] == 0.0).all() and (a[12] == 1.0).all() and a[0, 2] == -1.0
    assert np.isnan(a[-1]).all() and np.isnan(c_new[-1, 0])


def _lstm_plain(pre, c_prev, clip=None):
    pre = pre.astype(np.float64)
    i, f, g, o = np.split(pre, 4, axis=1)
    acts = np.concatenate([_sigmoid(i), _sigmoid(f), np.tanh(g), _sigmoid(o)], axis=1)
    H = c_prev.shape[1]
    c = acts[:, H:2 * H] * c_prev + acts[:, :H] * acts[:, 2 * H:3 * H]
    if clip is not None:
        c = np.clip(c, *clip)
    return acts, c, np.tanh(c), acts[:, 3 * H:] * np.tanh(c)


def _reference(mode, x, params, H, h0, c0):
    """One layer, one direction, MXNet's packed layout, float64, the cell equations."""
    G = {"lstm": 4, "gru": 3}[mode] * H
    ni = x.shape[2]
    wx = params[:G * ni].reshape(G, ni)
    wh = params[G * ni:G * ni + G * H].reshape(G, H)
    bx = params[G * (ni + H):G * (ni + H) + G]
    bh = params[G * (ni + H) + G:]
    h, c, out = h0.astype(np.float64), c0.astype(np.float64), []
    for xt in x.astype(np.float64):
        gi, gh = xt @ wx.T + bx, h @ wh.T + bh
        if mode == "lstm":
            _, c, _, h = _lstm_plain(gi + gh, c)
        else:
            r = _sigmoid(gi[:, :H] + gh[:, :H])
            z = _sigmoid(gi[:, H:2 * H] + gh[:, H:2 * H])
            n = np.tanh(gi[:, 2 * H:] + r * gh[:, 2 * H:])
            h = (1 - z) * n + z * h
        out.append(h)
    return np.stack(out)


@pytest.mark.parametrize("T", [4, 130])  # 130 steps of 2: the recurrent weight read from a copy
@pytest.mark.parametrize("mode", ["lstm", "gru"])
def test_fused_rnn_saturating_inputs_give_the_cell_values_without_warnings(mode, T):
    rng = np.random.default_rng(2)
    N, ni, H = 2, 3, 5
    G = {"lstm": 4, "gru": 3}[mode] * H
    x = (rng.standard_normal((T, N, ni)) * 200).astype(np.float32)  # gates far past +-88
    params = (rng.standard_normal(G * (ni + H) + 2 * G) * 0.5).astype(np.float32)
    h0 = rng.standard_normal((1, N, H)).astype(np.float32)
    c0 = rng.standard_normal((1, N, H)).astype(np.float32)
    args = [nd.array(x), nd.array(params), nd.array(h0)]
    if mode == "lstm":
        args.append(nd.array(c0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = nd.RNN(*args, state_size=H, num_layers=1, mode=mode).asnumpy()
    want = _reference(mode, x, params.astype(np.float64), H, h0[0], c0[0])
    np.testing.assert_allclose(out, want, rtol=0, atol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("size", [7, 5000])  # below and above the size where exp replaces expit
def test_sigmoid_small_and_large_arrays_equal_the_logistic_without_warnings(dtype, size):
    from gluonlite import gluon
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(size) * 40).astype(dtype)
    x[:5] = [np.inf, -np.inf, 1e30, -1e30, 0.0]
    with np.errstate(over="ignore"):
        want = _sigmoid(x)

    class Act(gluon.HybridBlock):
        def hybrid_forward(self, F, a):
            return F.sigmoid(a) + F.Activation(a, act_type="sigmoid")

    block = Act()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = nd.sigmoid(nd.array(x, dtype=dtype)).asnumpy()
        imperative = block(nd.array(x, dtype=dtype)).asnumpy()
        block.hybridize(static_alloc=True)
        hybrid = block(nd.array(x, dtype=dtype)).asnumpy()
    tol = 1e-6 if dtype == "float32" else 1e-15
    np.testing.assert_allclose(got, want, rtol=tol, atol=1e-37)
    assert got[1] == 0.0 and got[3] == 0.0 and got[0] == 1.0
    np.testing.assert_allclose(imperative, 2 * want, rtol=tol, atol=1e-37)
    np.testing.assert_allclose(hybrid, 2 * want, rtol=tol, atol=1e-37)
    assert np.isnan(nd.sigmoid(nd.array([np.nan] * size, dtype=dtype)).asnumpy()).all()


def test_transposed_copy_and_step_weight_equal_the_transpose():
    rng = np.random.default_rng(4)
    w = rng.standard_normal((300, 7)).astype(np.float32)  # more rows than one copy block
    t = rg.transposed(np, w)
    assert t.flags.c_contiguous and np.array_equal(t, w.T)
    buf = np.empty((7, 300), np.float32)
    assert rg.transposed(np, w, buf) is buf and np.array_equal(buf, w.T)
    few = rg.step_weight(np, w, 100, 1)  # batch 1: the copy would cost about what it saves
    assert np.shares_memory(few, w) and np.array_equal(few, w.T)
    many = rg.step_weight(np, w, 100, 32, lambda shape, dt: np.empty(shape, dt))
    assert not np.shares_memory(many, w) and np.array_equal(many, w.T)


@pytest.mark.parametrize("batch", [2, 64])  # 64 * 72 units: the backward's per-step path
@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
def test_fused_layer_gradients_equal_its_unfused_cells(kind, batch):
    from gluonlite import autograd
    from gluonlite.gluon import rnn
    T, ni, H = 3, 4, 72
    layer = getattr(rnn, kind)(H, input_size=ni)
    layer.initialize()
    rng = np.random.default_rng(5)
    x_np = rng.uniform(-2, 2, (T, batch, ni)).astype(np.float32)
    head = nd.array(rng.uniform(-1, 1, (T, batch, H)).astype(np.float32))

    def run(fn):
        x = nd.array(x_np)
        x.attach_grad()
        with autograd.record():
            out = fn(x)
        out.backward(head)
        grads = {n: p.grad().asnumpy().copy() for n, p in layer.collect_params().items()}
        return out.asnumpy(), x.grad.asnumpy(), grads

    fused = run(layer)
    stack = layer._unfuse()
    unfused = run(lambda x: stack.unroll(T, x, layout="TNC", merge_outputs=True)[0])
    np.testing.assert_allclose(fused[0], unfused[0], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(fused[1], unfused[1], rtol=1e-4, atol=1e-5)
    for name, g in fused[2].items():
        np.testing.assert_allclose(g, unfused[2][name], rtol=1e-4, atol=1e-4, err_msg=name)


# ---- the kernels with the tanh gate's factor 2 taken before the loop --------------------
def test_constant_is_a_cached_read_only_scalar_of_the_dtype():
    c = rg.constant(np, 2, "float32")
    assert c.shape == () and c.dtype == np.float32 and c == 2 and not c.flags.writeable
    assert rg.constant(np, 2, np.float32) is c
    assert rg.constant(np, 2, "float64").dtype == np.float64
    a = np.full(3, 1.5, np.float32)
    a *= c
    assert a.dtype == np.float32 and (a == 3.0).all()


def test_lstm_numerators_hold_two_on_the_tanh_gate():
    np.testing.assert_array_equal(rg.lstm_numerators(np, 2, "float64"),
                                  [1, 1, 1, 1, 2, 2, 1, 1])


@pytest.mark.parametrize("dtype,tol", [("float32", 2e-6), ("float64", 1e-13)])
@pytest.mark.parametrize("clip", [None, (-0.5, 0.8)])
def test_lstm_gates_doubled_equal_the_cell_equations(dtype, tol, clip):
    rng = np.random.default_rng(0)
    N, H = 3, 5
    pre = (rng.standard_normal((N, 4 * H)) * 4).astype(dtype)
    pre[0, :] = 60.0  # saturated gates: exp of the doubled -60 overflows in float32
    pre[1, :H] = -60.0
    c_prev = rng.standard_normal((N, H)).astype(dtype)
    a = -pre
    a[:, 2 * H:3 * H] *= 2
    c_new, tc, h, t1 = (np.empty((N, H), dtype) for _ in range(4))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with rg.quiet(np):
            got = rg.lstm_gates_doubled(np, a, c_prev, c_new, tc, h, t1,
                                        rg.lstm_numerators(np, H, dtype), clip)
    assert got is c_new
    acts, c, tcw, hw = _lstm_plain(pre, c_prev, clip)
    for out, want in ((a, acts), (c_new, c), (tc, tcw), (h, hw)):
        np.testing.assert_allclose(out, want, rtol=0, atol=tol)


def test_lstm_gates_doubled_given_gate_views_equals_its_own_slicing():
    rng = np.random.default_rng(4)
    N, H = 2, 3
    a = rng.standard_normal((N, 4 * H)) * 3
    b = a.copy()
    c_prev = rng.standard_normal((N, H))
    outs = [[np.empty((N, H)) for _ in range(4)] for _ in range(2)]
    num = rg.lstm_numerators(np, H, a.dtype)
    rg.lstm_gates_doubled(np, a, c_prev, *outs[0], num)
    gates = tuple(b[:, k * H:(k + 1) * H] for k in range(4))
    rg.lstm_gates_doubled(np, b, c_prev, *outs[1], num, gates=gates,
                          one=rg.constant(np, 1, b.dtype))
    np.testing.assert_array_equal(a, b)
    for x, y in zip(*outs):
        np.testing.assert_array_equal(x, y)


def test_lstm_gates_doubled_clip_nan_turns_a_nan_cell_into_the_bound():
    N, H = 1, 2
    a = np.zeros((N, 4 * H))
    c_prev = np.array([[np.nan, 0.25]])
    c_new, tc, t1 = (np.empty((N, H)) for _ in range(3))
    rg.lstm_gates_doubled(np, a, c_prev, c_new, tc, None, t1, rg.lstm_numerators(np, H, a.dtype),
                          (-1.0, 1.0), clip_nan=True)
    # f = i = 0.5, tanh(g) = 0: c = 0.5 * c_prev; NaN becomes a bound (fmax/fmin drop NaN)
    assert c_new[0, 1] == 0.125 and abs(c_new[0, 0]) == 1.0
    np.testing.assert_allclose(tc, np.tanh(c_new))


def _lstm_reference(x, params, H, P, h0, c0, clip, lengths):
    """One layer, one direction, MXNet's packed layout, float64, the cell equations; rows
    past their length keep their state and output zeros."""
    G, ni = 4 * H, x.shape[2]
    R = P or H
    off = 0
    wx = params[off:off + G * ni].reshape(G, ni)
    off += G * ni
    wh = params[off:off + G * R].reshape(G, R)
    off += G * R
    if P:
        wr = params[off:off + P * H].reshape(P, H)
        off += P * H
    bx, bh = params[off:off + G], params[off + G:off + 2 * G]
    h, c, out = h0.astype(np.float64), c0.astype(np.float64), []
    for t, xt in enumerate(x.astype(np.float64)):
        _, c_new, _, h_new = _lstm_plain(xt @ wx.T + bx + h @ wh.T + bh, c, clip)
        if P:
            h_new = h_new @ wr.T
        live = (t < lengths)[:, None]
        h, c = np.where(live, h_new, h), np.where(live, c_new, c)
        out.append(np.where(live, h, 0))
    return np.stack(out), h, c


# steps * batch: 4 * 3 reads the stored recurrent weight; 100 * 3 its doubled transposed copy
@pytest.mark.parametrize("T", [4, 100])
@pytest.mark.parametrize("proj,clip,masked", [(None, None, False), (3, None, False),
                                              (None, (-0.4, 0.5), False), (None, None, True),
                                              (3, (-0.4, 0.5), True)])
def test_fused_lstm_equals_the_cell_equations_on_both_weight_paths(T, proj, clip, masked):
    rng = np.random.default_rng(7)
    N, ni, H = 3, 4, 6
    R = proj or H
    G = 4 * H
    size = G * ni + G * R + (proj * H if proj else 0) + 2 * G
    x = rng.standard_normal((T, N, ni)).astype(np.float32)
    params = (rng.standard_normal(size) * 0.4).astype(np.float32)
    h0 = rng.standard_normal((1, N, R)).astype(np.float32)
    c0 = rng.standard_normal((1, N, H)).astype(np.float32)
    lengths = np.array([T, max(1, T // 2), 1]) if masked else np.full(N, T)
    kw = dict(state_size=H, num_layers=1, mode="lstm", state_outputs=True)
    args = [nd.array(x), nd.array(params), nd.array(h0), nd.array(c0)]
    if proj:
        kw["projection_size"] = proj
    if clip:
        kw.update(lstm_state_clip_min=clip[0], lstm_state_clip_max=clip[1])
    if masked:
        kw["use_sequence_length"] = True
        args.append(nd.array(lengths))
    out, hy, cy = nd.RNN(*args, **kw)
    want, h, c = _lstm_reference(x, params.astype(np.float64), H, proj, h0[0], c0[0], clip,
                                 lengths)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=0, atol=2e-5)
    np.testing.assert_allclose(hy.asnumpy()[0], h, rtol=0, atol=2e-5)
    np.testing.assert_allclose(cy.asnumpy()[0], c, rtol=0, atol=2e-5)


@pytest.mark.parametrize("dtype,tol", [("float32", 2e-6), ("float64", 1e-13)])
@pytest.mark.parametrize("T", [1, 130])  # 130 steps of 2: the recurrent weight read from a copy
def test_fused_gru_steps_equal_the_cell_equations(dtype, tol, T):
    rng = np.random.default_rng(1)
    N, ni, H = 2, 3, 4
    G = 3 * H
    x = (rng.standard_normal((T, N, ni)) * 4).astype(dtype)
    x[0, 0] = 100.0  # saturated gates in the first step
    params = (rng.standard_normal(G * (ni + H) + 2 * G) * 0.5).astype(dtype)
    h0 = rng.standard_normal((1, N, H)).astype(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = nd.RNN(nd.array(x, dtype=dtype), nd.array(params, dtype=dtype),
                     nd.array(h0, dtype=dtype), state_size=H, num_layers=1,
                     mode="gru").asnumpy()
    want = _reference("gru", x, params.astype(np.float64), H, h0[0], h0[0])
    np.testing.assert_allclose(out, want, rtol=0, atol=tol * 10)
