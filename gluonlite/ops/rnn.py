"""The fused recurrent operator `RNN` (MXNet 1.9.1's), `_rnn_param_concat`, and
`_rnn_unpacked` (`RNN` on the parts of its packed parameter vector, each read where it lies).

``RNN(data, parameters, state, state_cell=None, sequence_length=None, state_size,
num_layers, mode, bidirectional=False, p=0, state_outputs=False, projection_size=None,
lstm_state_clip_min=None, lstm_state_clip_max=None, lstm_state_clip_nan=False,
use_sequence_length=False)`` runs `num_layers` stacked recurrent layers (each one or two
directions) over ``data`` (T, N, I) in one call. Per layer and direction, with G gates
(1 for rnn_relu/rnn_tanh, 4 for lstm, 3 for gru) and the equations of the matching cell::

    i2h = x_t @ Wx.T + bx            h2h = h_{t-1} @ Wh.T + bh
    rnn_tanh / rnn_relu: h_t = act(i2h + h2h)
    lstm: i, f, g, o = split(i2h + h2h, 4)
          c_t = sigmoid(f) * c_{t-1} + sigmoid(i) * tanh(g);  h_t = sigmoid(o) * tanh(c_t)
          (projection_size P: r_t = h_t @ Wr.T is the state and the output)
    gru:  r, z = sigmoid(i2h_rz + h2h_rz);  n = tanh(i2h_n + r * h2h_n)
          h_t = (1 - z) * n + z * h_{t-1}

The reverse direction runs from t = T-1 down to 0; a layer's output is both directions'
outputs joined along the features; in training, ``p`` drops entries of every layer's output
but the last one's (inverted dropout).

``parameters`` is MXNet's packed vector: first every weight, layer by layer and direction
by direction (``l0``, ``r0``, ``l1``, ...), each direction's ``i2h`` (G*H, I_l) then ``h2h``
(G*H, R) then, with a projection, ``h2r`` (P, H); then every bias in the same order, ``i2h``
(G*H,) then ``h2h`` (G*H,). I_0 is the data's feature size, I_l = D*R above it, R = P or H.

Outputs: ``output`` (T, N, D*R); with ``state_outputs`` also ``state_output`` (L*D, N, R)
and, for lstm, ``statecell_output`` (L*D, N, H), the states after the last step of each
layer and direction (ordered as ``state``: layer-major, direction-minor).

``lstm_state_clip_min/max`` clip every cell state c_t into [min, max] (its gradient is zero
where c_t reached a bound); ``lstm_state_clip_nan`` turns a NaN cell state into the bound.
With ``use_sequence_length`` each sequence b runs its first ``sequence_length[b]`` steps only
(the reverse direction starts at its last valid step): outputs past it are zero and the
final states are those of its last valid step.

This file holds the operator's meaning: a reference kernel that runs each gate's math step
by step, as the equations above read, and its gradient, backpropagation through time written
out step by step. The hand-fused kernel and its backward (`gluonlite.ops.rnn_fused`) are the
operator's fast path, which every caller runs; on a device (CuPy) its `Fast.device` path
(`gluonlite.ops.rnn_device`: each step's gate math one fused kernel) runs instead. The
registry walk holds both against this.

``_rnn_unpacked(data, *parameters, state, [state_cell])`` takes `RNN`'s attributes (but not
``use_sequence_length``) and, in place of the packed vector, the parts that
``_rnn_param_concat`` would join (any shapes): `RNN` of their concatenation. A graph pass
(`gluonlite.executor.rnn_params`) and its imperative twin on the autograd tape rewrite `RNN`
of `_rnn_param_concat` into it, so that the fast path reads each part where it lies and
writes its gradient into the caller's buffer (`Fast.writes_dests`).
"""
import numpy as np

from . import attrs as A
from .fast import Fast
from . import mxnet_samplers
from .registry import register
from .rnn_device import RNN_DEVICE, UNPACKED_DEVICE
from .rnn_fused import WORKSPACE, Workspace, rnn_kernel, rnn_vjp, unpacked_kernel, unpacked_vjp
from .rnn_layout import (ATTRS, MODES, ParamLayout, input_names, layout, n_states, n_visible,
                         num_gates, output_names, rnn_dtype, rnn_shape, step_mask,
                         unpacked_dtype, unpacked_shape)
from .shape import _concat_shape, _concat_vjp

__all__ = ["MODES", "num_gates", "ParamLayout", "Workspace", "WORKSPACE"]


# ---- the reference: one step of one direction, and its gradient ----------------------------
def _sigmoid(xp, a):
    return 1 / (1 + xp.exp(-a))


def _rnn_step(xp, p, w, x, h, c):
    """h' = act(x Wx^T + bx + h Wh^T + bh); returns (h', None, what its gradient reads)."""
    a = x @ w["wx"].T + w["bx"] + h @ w["wh"].T + w["bh"]
    h_new = xp.tanh(a) if p.mode == "rnn_tanh" else xp.maximum(a, 0)
    return h_new, None, h_new


def _rnn_step_back(xp, p, w, dw, x, h, c, h_new, d, dc):
    da = d * (1 - h_new * h_new) if p.mode == "rnn_tanh" else d * (h_new > 0)
    _add_weight_grads(dw, da, da, x, h)
    return da @ w["wh"], None, da @ w["wx"]


def _lstm_step(xp, p, w, x, h, c):
    """i, f, g, o = the four gate blocks of x Wx^T + bx + h Wh^T + bh (sigmoid, sigmoid, tanh,
    sigmoid); c' = f c + i g (clipped); h' = o tanh(c'), projected by Wr with a projection."""
    H = p.state_size
    a = x @ w["wx"].T + w["bx"] + h @ w["wh"].T + w["bh"]
    i, f = _sigmoid(xp, a[:, :H]), _sigmoid(xp, a[:, H:2 * H])
    g, o = xp.tanh(a[:, 2 * H:3 * H]), _sigmoid(xp, a[:, 3 * H:])
    c_new = f * c + i * g
    lo, hi = p.lstm_state_clip_min, p.lstm_state_clip_max
    if lo is not None:  # fmax/fmin turn a NaN into the bound, clip keeps it
        c_new = xp.fmin(xp.fmax(c_new, lo), hi) if p.lstm_state_clip_nan else \
            xp.clip(c_new, lo, hi)
    hraw = o * xp.tanh(c_new)
    h_new = hraw @ w["wr"].T if p.projection_size else hraw
    return h_new, c_new, (i, f, g, o, c_new, hraw)


def _lstm_step_back(xp, p, w, dw, x, h, c, kept, d, dc):
    i, f, g, o, c_new, hraw = kept
    if p.projection_size:
        dw["wr"] += d.T @ hraw
        d = d @ w["wr"]
    tc = xp.tanh(c_new)
    dc = dc + d * o * (1 - tc * tc)
    if p.lstm_state_clip_min is not None:  # no gradient where the cell state hit a bound
        dc = dc * ((c_new > p.lstm_state_clip_min) & (c_new < p.lstm_state_clip_max))
    da = xp.concatenate([dc * g * i * (1 - i), dc * c * f * (1 - f), dc * i * (1 - g * g),
                         d * tc * o * (1 - o)], axis=1)
    _add_weight_grads(dw, da, da, x, h)
    return da @ w["wh"], dc * f, da @ w["wx"]


def _gru_step(xp, p, w, x, h, c):
    """r, z = sigmoid of their blocks of x Wx^T + bx + h Wh^T + bh; n = tanh(x Wx_n^T + bx_n +
    r (h Wh_n^T + bh_n)); h' = (1 - z) n + z h."""
    H = p.state_size
    gi = x @ w["wx"].T + w["bx"]
    gh = h @ w["wh"].T + w["bh"]
    r = _sigmoid(xp, gi[:, :H] + gh[:, :H])
    z = _sigmoid(xp, gi[:, H:2 * H] + gh[:, H:2 * H])
    n = xp.tanh(gi[:, 2 * H:] + r * gh[:, 2 * H:])
    return (1 - z) * n + z * h, None, (r, z, n, gh[:, 2 * H:])


def _gru_step_back(xp, p, w, dw, x, h, c, kept, d, dc):
    r, z, n, gh_n = kept
    dn = d * (1 - z) * (1 - n * n)
    dz = d * (h - n) * z * (1 - z)
    dr = dn * gh_n * r * (1 - r)
    dgi = xp.concatenate([dr, dz, dn], axis=1)
    dgh = xp.concatenate([dr, dz, dn * r], axis=1)
    _add_weight_grads(dw, dgi, dgh, x, h)
    return dgh @ w["wh"] + d * z, None, dgi @ w["wx"]


def _add_weight_grads(dw, d_i2h, d_h2h, x, h):
    dw["wx"] += d_i2h.T @ x
    dw["bx"] += d_i2h.sum(axis=0)
    dw["wh"] += d_h2h.T @ h
    dw["bh"] += d_h2h.sum(axis=0)


_STEP = {"rnn_relu": (_rnn_step, _rnn_step_back), "rnn_tanh": (_rnn_step, _rnn_step_back),
         "lstm": (_lstm_step, _lstm_step_back), "gru": (_gru_step, _gru_step_back)}


# ---- the reference: the layers over the sequence --------------------------------------------
class _Run:
    """What the reference backward reads (the operator's hidden output): per layer and
    direction the input it read and every step's (h, c, what the step's gradient reads);
    per layer the dropout mask applied to its output (or None); the steps' validity."""

    __slots__ = ("inputs", "steps", "drops", "valid")

    def __init__(self, inputs, steps, drops, valid):
        self.inputs, self.steps, self.drops, self.valid = inputs, steps, drops, valid


def _direction(xp, p, w, x, h, c, reverse, valid):
    """One layer direction over x (T, N, I) from state h (and cell c): (its outputs
    (T, N, R), final state, final cell, every step's record). A row past its sequence's
    length keeps its state."""
    step = _STEP[p.mode][0]
    T = x.shape[0]
    outs, steps = [None] * T, [None] * T
    for t in (range(T - 1, -1, -1) if reverse else range(T)):
        h_new, c_new, kept = step(xp, p, w, x[t], h, c)
        if valid is not None:
            m = valid[t][:, None]
            h_new = xp.where(m, h_new, h)
            c_new = None if c is None else xp.where(m, c_new, c)
        outs[t], steps[t] = h_new, (h, c, kept)
        h, c = h_new, c_new
    return xp.stack(outs), h, c, steps


def _reference(p, rc, data, views, state, cell, lengths):
    """The layers over `data`: (output, final states, final cells, the `_Run`)."""
    xp = rc.xp
    T, N = data.shape[:2]
    D = 2 if p.bidirectional else 1
    valid = None if lengths is None else xp.asarray(step_mask(lengths, T, N))
    x, hy, cy, inputs, steps, drops = data, [], [], [], [], []
    for layer in range(p.num_layers):
        outs = []
        for d in range(D):
            k = layer * D + d
            y, h, c, kept = _direction(xp, p, views[k], x, state[k],
                                       None if cell is None else cell[k], d == 1, valid)
            outs.append(y)
            hy.append(h)
            cy.append(c)
            inputs.append(x)
            steps.append(kept)
        y = outs[0] if D == 1 else xp.concatenate(outs, axis=2)
        if valid is not None:  # outputs past a sequence's length are zero
            y = y * valid[:, :, None]
        drop = None
        if rc.is_train and p.p > 0 and layer < p.num_layers - 1:  # inverted dropout
            drop = xp.asarray(mxnet_samplers.rnn_dropout_scale(y.shape, p.p, y.dtype))
            y = y * drop
        drops.append(drop)
        x = y
    return x, xp.stack(hy), None if cell is None else xp.stack(cy), _Run(inputs, steps, drops,
                                                                         valid)


def _reference_kernel(p, rc, data, params, state, *rest):
    """RNN(data, parameters, state, state_cell=None, sequence_length=None, state_size,
    num_layers, mode, bidirectional=False, p=0, state_outputs=False, projection_size=None,
    lstm_state_clip_min=None, lstm_state_clip_max=None, lstm_state_clip_nan=False,
    use_sequence_length=False): MXNet's fused multi-layer recurrent operator (see
    `gluonlite.ops.rnn` for the equations and the packed parameter layout)."""
    cell = rest[0] if p.mode == "lstm" else None
    lengths = rest[-1] if p.use_sequence_length else None
    views = layout(p, data.shape[2]).views(params)
    y, hy, cy, run = _reference(p, rc, data, views, state, cell, lengths)
    return (y, hy, cy)[:n_visible(p)] + (run,)


def _reference_vjp(p, rc, xs, ys, gys, need):
    """Backpropagation through time, step by step, from the run the kernel kept (a run of
    another kind, or none, runs the reference again)."""
    xp = rc.xp
    data, params, state = xs[0], xs[1], xs[2]
    lstm = p.mode == "lstm"
    cell = xs[3] if lstm else None
    lay = layout(p, data.shape[2])
    views = lay.views(params)
    run = ys[-1] if len(ys) > n_visible(p) else None
    if not isinstance(run, _Run):
        run = _reference(p, rc, data, views, state, cell,
                         xs[-1] if p.use_sequence_length else None)[-1]
    T, N = data.shape[:2]
    D, R = 2 if p.bidirectional else 1, p.projection_size or p.state_size

    def grad(i, shape):
        g = gys[i] if i < n_visible(p) and i < len(gys) else None
        return xp.zeros(shape, data.dtype) if g is None else g

    dparams = xp.zeros(params.shape, params.dtype)
    dviews = lay.views(dparams)
    dhy = grad(1, state.shape)
    dcy = grad(2, cell.shape) if lstm else None
    dstate, dcell = xp.zeros_like(state), None if cell is None else xp.zeros_like(cell)
    back = _STEP[p.mode][1]
    dout = grad(0, (T, N, D * R))
    for layer in range(p.num_layers - 1, -1, -1):
        if run.drops[layer] is not None:
            dout = dout * run.drops[layer]
        if run.valid is not None:
            dout = dout * run.valid[:, :, None]
        dx = None
        for d in range(D):
            k = layer * D + d
            x, steps = run.inputs[k], run.steps[k]
            dy = dout[:, :, d * R:(d + 1) * R]
            dh, dc = dhy[k], None if cell is None else dcy[k]
            dxd = xp.zeros_like(x)
            for t in (range(T) if d == 1 else range(T - 1, -1, -1)):
                h, c, kept = steps[t]
                dt_h = dy[t] + dh
                if run.valid is not None:  # a held row passes its gradients back unchanged
                    m = run.valid[t][:, None]
                    held_h, held_c = dt_h * ~m, None if dc is None else dc * ~m
                    dt_h, dc = dt_h * m, None if dc is None else dc * m
                dh, dc, dxd[t] = back(xp, p, views[k], dviews[k], x[t], h, c, kept, dt_h, dc)
                if run.valid is not None:
                    dh = dh + held_h
                    dc = None if dc is None else dc + held_c
            dstate[k] = dh
            if cell is not None:
                dcell[k] = dc
            dx = dxd if dx is None else dx + dxd
        dout = dx
    out = [dout if need[0] else None, dparams if need[1] else None, dstate]
    if lstm:
        out.append(dcell)
    if p.use_sequence_length:
        out.append(None)
    return tuple(out)


RNN = register(
    "RNN", inputs=input_names, outputs=lambda p: n_visible(p) + 1, visible=n_visible,
    output_names=output_names, attrs=ATTRS, shape=rnn_shape, dtype=rnn_dtype,
    vjp=_reference_vjp, nondiff=("sequence_length",),
    same_dtype=("data", "parameters", "state", "state_cell"),
    signature=("data", "parameters", "state", "state_cell", "sequence_length"),
    fast=Fast(kernel=rnn_kernel, vjp=rnn_vjp, device=RNN_DEVICE),
    stateful=True)(_reference_kernel)  # the hidden last output is the run kept for the backward


# ---- _rnn_unpacked: RNN of the parts of its parameter vector --------------------------------
def _unpacked_parts(p, xs):
    ns = n_states(p)
    return xs[0], xs[1:len(xs) - ns], xs[len(xs) - ns:]


def _unpacked_reference(p, rc, data, *rest):
    """_rnn_unpacked(data, *parameters, state, [state_cell], RNN's attributes, num_args):
    `RNN` with its packed parameter vector given as the parts `_rnn_param_concat` would join
    (each part any shape of its size)."""
    _, parts, states = _unpacked_parts(p, (data,) + rest)
    flat = rc.xp.concatenate([a.reshape(-1) for a in parts])
    return _reference_kernel(p, rc, data, flat, *states)


def _unpacked_reference_vjp(p, rc, xs, ys, gys, need):
    data, parts, states = _unpacked_parts(p, xs)
    flat = rc.xp.concatenate([a.reshape(-1) for a in parts])
    g = _reference_vjp(p, rc, [data, flat, *states], ys, gys,
                       [need[0], any(need[1:1 + len(parts)]), *need[1 + len(parts):]])
    cuts = np.cumsum([a.size for a in parts])[:-1].tolist()  # host ints (a device split)
    dparts = [None] * len(parts) if g[1] is None else \
        [d.reshape(a.shape) for d, a in zip(rc.xp.split(g[1], cuts), parts)]
    return (g[0], *dparts, *g[2:2 + len(states)])


_UNPACKED = register(
    "_rnn_unpacked", variadic="num_args", outputs=lambda p: n_visible(p) + 1,
    visible=n_visible, output_names=output_names, attrs=dict(ATTRS, num_args=A.Int()),
    shape=unpacked_shape, dtype=unpacked_dtype, vjp=_unpacked_reference_vjp,
    # The fast path reads each part where it lies and writes the gradients of the data, the
    # states and each part straight into the caller's buffers (a parameter's grad).
    fast=Fast(kernel=unpacked_kernel, vjp=unpacked_vjp, writes_dests=True,
              device=UNPACKED_DEVICE),
    stateful=True)(_unpacked_reference)  # as RNN's: the hidden last output is the run kept


# ---- _rnn_param_concat -------------------------------------------------------------------------
def _param_concat_back(p, ins, outs):
    """The inputs of unknown length share what the output's length leaves equally (one or
    two of them: an RNN layer's first weights, one per direction, before its input size is
    known), as MXNet's rule does."""
    out = outs[0]
    missing = [i for i, s in enumerate(ins) if s is None]
    if out is None or not 1 <= len(missing) <= 2 or any(len(s) != len(out) for s in ins if s):
        return ins
    ax = p.dim % len(out)
    left = out[ax] - sum(s[ax] for s in ins if s is not None)
    if left < len(missing) or left % len(missing):
        return ins
    for i in missing:
        ins[i] = tuple(left // len(missing) if k == ax else n for k, n in enumerate(out))
    return ins


def _param_concat(p, rc, *xs):
    ax = p.dim % xs[0].ndim
    shape = list(xs[0].shape)
    shape[ax] = sum(x.shape[ax] for x in xs)
    return rc.xp.concatenate(xs, axis=ax, out=WORKSPACE.empty(rc.xp, tuple(shape), xs[0].dtype))


def _param_concat_into(p, rc, outs, *xs):
    # Into a static-alloc plan's buffer: the packed vector is rebuilt every call, and a
    # fresh multi-megabyte array per call costs page faults the copy itself does not.
    rc.xp.concatenate(xs, axis=p.dim % xs[0].ndim, out=outs[0])


register("_rnn_param_concat", variadic="num_args", vjp=_concat_vjp,
         attrs={"num_args": A.Int(), "dim": A.Int(1)},
         shape=(_concat_shape, _param_concat_back),
         fast=Fast(saves=(), into=_param_concat_into),
         doc="_rnn_param_concat(*data, dim=1): concat, whose shape inference also fills the "
             "one input of unknown length from the output's (how MXNet's RNN layers pack "
             "their parameters).")(_param_concat)
