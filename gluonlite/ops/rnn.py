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

The kernel is a hand-fused numpy loop: per layer and direction one matrix product for the
input projection of every step, the gate math in place in preallocated buffers, and in the
backward the weight gradients as one matrix product each after the reverse loop, written
straight into their place in the packed gradient. The operator is stateful: its hidden last
output holds what the backward reads (kept in training, or when a gradient is asked for; a
backward without it runs the forward again).

Its large arrays come from `WORKSPACE`, which hands an array out again once nothing holds
it any more (no output, view or saved run refers to it): a steady-state call then writes
into memory it already touched, as a hand-written loop with preallocated buffers does,
instead of faulting fresh pages in every call.

``_rnn_unpacked(data, *parameters, state, [state_cell])`` takes `RNN`'s attributes (but not
``use_sequence_length``) and, in place of the packed vector, the parts that
``_rnn_param_concat`` would join (any shapes; when they are the layout's entries one by one,
as a layer's parameters are, each is read where it lies). Its gradients go into the
caller's buffers when given (`Fast.writes_dests`): a layer's parameter gradients are written
where they are kept, with no packed gradient to copy out.
"""
import sys

import numpy as np

from ..context import host_array
from . import attrs as A
from .fast import Fast
from .random import generator
from .registry import ShapeError, register
from .rnn_gates import (constant, gru_grad_factors, lstm_gate_grads,
                        lstm_gates_doubled, lstm_grad_factors, lstm_numerators,
                        negate_projection, quiet, step_weight)
from .shape import _concat_shape, _concat_vjp

__all__ = ["MODES", "num_gates", "ParamLayout", "Workspace", "WORKSPACE"]

MODES = ("rnn_relu", "rnn_tanh", "lstm", "gru")
_GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}


def num_gates(mode):
    """Gates per step of `mode` (its weights have num_gates * state_size rows).

    Example: ``num_gates('lstm')`` -> 4.
    """
    return _GATES[mode]


class Workspace:
    """Arrays reused between calls once nothing else refers to them.

    An array handed out stays in the workspace; `empty` returns it again only when its
    reference count shows that no caller, view (a view refers to its base) or saved run
    holds it, so reuse never overwrites a value still in use. Up to `per_key` arrays are
    kept per (shape, dtype) of numpy arrays, for up to `max_keys` keys (all dropped when a
    new key would exceed it).

    Example: ``a = WORKSPACE.empty(np, (100, 32, 2048), np.float32)``.
    """

    def __init__(self, per_key=3, max_keys=48):
        self.per_key, self.max_keys = per_key, max_keys
        self._arrays = {}

    def empty(self, xp, shape, dtype):
        """An uninitialized array of `shape` and `dtype` (one nobody else holds)."""
        if xp is not np:
            # the reference count says who holds a numpy array (a view holds its base); other
            # array modules keep their own pools (CuPy's), so they allocate as usual
            return xp.empty(shape, dtype=dtype)
        key = (shape, dtype)
        arrays = self._arrays.get(key)
        if arrays is None:
            if len(self._arrays) >= self.max_keys:
                self._arrays.clear()
            arrays = self._arrays[key] = []
        for a in arrays:
            if sys.getrefcount(a) == 3:  # the list, `a` and getrefcount's own argument
                return a
        a = xp.empty(shape, dtype=dtype)
        if len(arrays) < self.per_key:
            arrays.append(a)
        return a

    def clear(self):
        """Drop every kept array."""
        self._arrays.clear()


WORKSPACE = Workspace()


def _empty(xp, shape, dtype):
    return WORKSPACE.empty(xp, shape, dtype)


_ATTRS = {
    "state_size": A.Int(), "num_layers": A.Int(), "bidirectional": A.Bool(False),
    "mode": A.Enum(*MODES), "p": A.Float(0.0), "state_outputs": A.Bool(False),
    "projection_size": A.OptionalInt(), "lstm_state_clip_min": A.OptionalFloat(),
    "lstm_state_clip_max": A.OptionalFloat(), "lstm_state_clip_nan": A.Bool(False),
    "use_sequence_length": A.Bool(False),
}


def _check_attrs(p):
    """Raise ValueError for attribute values that do not go together."""
    for name in ("state_size", "num_layers"):
        if p[name] < 1:
            raise ValueError(f"RNN: attribute {name} must be >= 1, got {p[name]}")
    if not 0 <= p.p < 1:
        raise ValueError(f"RNN: attribute p (the dropout rate) must be in [0, 1), got {p.p}")
    if p.projection_size is not None:
        if p.mode != "lstm":
            raise ValueError(f"RNN: attribute projection_size={p.projection_size} needs "
                             f"mode='lstm', got mode={p.mode!r}")
        if not 1 <= p.projection_size <= p.state_size:
            raise ValueError(f"RNN: attribute projection_size must be in [1, state_size="
                             f"{p.state_size}], got {p.projection_size}")
    lo, hi = p.lstm_state_clip_min, p.lstm_state_clip_max
    if lo is not None or hi is not None:
        if p.mode != "lstm":
            raise ValueError(f"RNN: attributes lstm_state_clip_min/max need mode='lstm', "
                             f"got mode={p.mode!r}")
        if lo is None or hi is None:
            raise ValueError(f"RNN: attributes lstm_state_clip_min and lstm_state_clip_max "
                             f"must be given together, got {lo} and {hi}")
        if hi < lo:
            raise ValueError(f"RNN: attribute lstm_state_clip_max ({hi}) must be >= "
                             f"lstm_state_clip_min ({lo})")


def _input_names(p):
    _check_attrs(p)
    names = ["data", "parameters", "state"]
    if p.mode == "lstm":
        names.append("state_cell")
    if p.use_sequence_length:
        names.append("sequence_length")
    return names


def _n_visible(p):
    if not p.state_outputs:
        return 1
    return 3 if p.mode == "lstm" else 2


def _output_names(p):
    return ["output", "state_output", "statecell_output"][:_n_visible(p)]


class ParamLayout:
    """Where each weight and bias of each layer and direction sits in the packed vector.

    Args:
        p: the parsed RNN attributes.
        input_size: the data's feature size I.

    Attributes:
        entries: per layer and direction (layer-major), {name: (offset, shape)} with names
            'wx' (i2h weight), 'wh' (h2h weight), 'wr' (h2r weight, with a projection),
            'bx' (i2h bias), 'bh' (h2h bias).
        size: the packed vector's length.

    Example: ``ParamLayout(p, 6).size`` is the length ``parameters`` must have.
    """

    def __init__(self, p, input_size):
        G, H, P = _GATES[p.mode] * p.state_size, p.state_size, p.projection_size
        R, D = P or H, 2 if p.bidirectional else 1
        self.entries, self.terms = [], []
        off = 0
        for layer in range(p.num_layers):
            ni = input_size if layer == 0 else D * R
            shapes = [("wx", (G, ni)), ("wh", (G, R))] + ([("wr", (P, H))] if P else [])
            self.terms.append(f"({G}*{ni} + {G}*{R}" + (f" + {P}*{H}" if P else "") + f")*{D}")
            for _ in range(D):
                e = {}
                for name, shape in shapes:
                    e[name] = (off, shape)
                    off += shape[0] * shape[1]
                self.entries.append(e)
        for e in self.entries:
            for name in ("bx", "bh"):
                e[name] = (off, (G,))
                off += G
        self.bias_term = f"2*{G}*{len(self.entries)}"
        self.size = off
        # (direction index, name, shape) of every entry in the packed order
        self.order = sorted(((k, n, s) for k, e in enumerate(self.entries)
                             for n, (_, s) in e.items()),
                            key=lambda kns: self.entries[kns[0]][kns[1]][0])
        self.sizes = tuple(_numel(s) for _, _, s in self.order)

    def arithmetic(self):
        """The length as a sum, for messages: weights per layer, then biases."""
        return f"weights {' + '.join(self.terms)} + biases {self.bias_term} = {self.size}"

    def views(self, flat):
        """Per layer and direction, {name: view of `flat` with that entry's shape}."""
        return [{k: flat[o:o + _numel(s)].reshape(s) for k, (o, s) in e.items()}
                for e in self.entries]

    def part_views(self, parts):
        """Per layer and direction, {name: array}, from `parts` holding the entries one by
        one in the packed order (each of the entry's size, any shape), or None when they do
        not (then only their concatenation can be read this way)."""
        if len(parts) != len(self.order):
            return None
        out = [{} for _ in self.entries]
        for a, (k, name, shape), n in zip(parts, self.order, self.sizes):
            if a.size != n:
                return None
            out[k][name] = a if a.shape == shape else a.reshape(shape)
        return out


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


_LAYOUTS = {}


def _layout(p, input_size):
    """The `ParamLayout` of `p` for `input_size`, made once per distinct key."""
    key = (p.mode, p.state_size, p.num_layers, p.bidirectional, p.projection_size, input_size)
    lay = _LAYOUTS.get(key)
    if lay is None:
        if len(_LAYOUTS) > 256:
            _LAYOUTS.clear()
        lay = _LAYOUTS[key] = ParamLayout(p, input_size)
    return lay


def _describe(p, input_size):
    return (f"mode={p.mode!r}, state_size={p.state_size}, num_layers={p.num_layers}, "
            f"bidirectional={p.bidirectional}"
            + (f", projection_size={p.projection_size}" if p.projection_size else "")
            + f" and input size {input_size}")


def _fit(name, want, got, how):
    if got is not None and tuple(got) != tuple(want):
        raise ShapeError(f"RNN: input {name!r} must have shape {tuple(want)} ({how}), got "
                         f"{tuple(got)}")
    return tuple(want)


def _shape(p, ins):
    names = _input_names(p)  # checks the attributes
    ins = list(ins) + [None] * (len(names) - len(ins))
    n_out = _n_visible(p)
    d = ins[0]
    if d is None:
        return ins, [None] * n_out
    if len(d) != 3:
        raise ShapeError(f"RNN: input 'data' must be 3-D (sequence length, batch size, input "
                         f"size), got shape {tuple(d)}")
    T, N, ni = d
    H, L, D = p.state_size, p.num_layers, 2 if p.bidirectional else 1
    R = p.projection_size or H
    lay = _layout(p, ni)
    ins[1] = _fit("parameters", (lay.size,), ins[1],
                  f"{lay.arithmetic()} for {_describe(p, ni)}")
    ins[2] = _fit("state", (L * D, N, R), ins[2],
                  f"num_layers*directions = {L}*{D}, batch size {N}, "
                  + (f"projection_size {R}" if p.projection_size else f"state_size {H}"))
    if p.mode == "lstm":
        ins[3] = _fit("state_cell", (L * D, N, H), ins[3],
                      f"num_layers*directions = {L}*{D}, batch size {N}, state_size {H}")
    if p.use_sequence_length:
        ins[-1] = _fit("sequence_length", (N,), ins[-1], f"one length per sequence of the "
                       f"batch of {N}")
    outs = [(T, N, D * R), (L * D, N, R), (L * D, N, H)][:n_out]
    return ins, outs


def _dtype(p, ins):
    names = _input_names(p)
    ins = list(ins) + [None] * (len(names) - len(ins))
    d = next((t for t, n in zip(ins, names) if t is not None and n != "sequence_length"), None)
    if d is None:
        return ins, [None] * _n_visible(p)
    return [t if t is not None else d for t in ins], [d] * _n_visible(p)


# ---- the kernel: one direction of one layer ----------------------------------------------------
class _Dir:
    """One layer direction's run: its inputs and what its backward reads (`g`: the gates'
    activations, `gh`: a GRU's h2h_n + bh_n, `cs`/`tc`: an LSTM's cell states and their
    tanh, per step)."""

    __slots__ = ("x", "w", "reverse", "hs", "cs", "g", "gh", "tc", "hraw", "mask", "final_c")

    def out(self):
        """The (T, N, R) output sequence (a view of the state sequence)."""
        T = self.hs.shape[0] - 1
        return self.hs[:T] if self.reverse else self.hs[1:]

    def prev_states(self):
        """The (T, N, R) state each step read: h_{t-1} for every t."""
        T = self.hs.shape[0] - 1
        return self.hs[1:] if self.reverse else self.hs[:T]


def _idx(reverse, t):
    """(slot of the state step t reads, slot it writes) in a (T+1)-slot state sequence."""
    return (t + 1, t) if reverse else (t, t + 1)


def _order(reverse, T):
    return range(T - 1, -1, -1) if reverse else range(T)


def _hold(xp, mask, t, new, old):
    """Rows past their sequence's length keep the previous state."""
    if not mask.full[t]:
        xp.copyto(new, old, where=~mask.rows[t][:, None])


def _start(xp, x, w, h0, reverse, mask, G, bias, negate=False):
    """The direction's record with the input projection of every step done (plus `bias`;
    with `negate`, minus both, the form `rnn_gates` starts from: `bias` is then minus
    the bias)."""
    T, N, ni = x.shape
    rec = _Dir()
    rec.x, rec.w, rec.reverse, rec.mask = x, w, reverse, mask
    rec.g = g = _empty(xp, (T, N, G), x.dtype)
    xp.dot(x.reshape(T * N, ni), w["wx"].T, out=g.reshape(T * N, G))
    if negate:
        negate_projection(xp, g, bias)
    else:
        g += bias
    rec.hs = _empty(xp, (T + 1, N, h0.shape[1]), x.dtype)
    rec.hs[T if reverse else 0] = h0
    rec.cs = rec.gh = rec.tc = rec.hraw = None
    return rec


def _step_weight(xp, wh, T, N):
    return step_weight(xp, wh, T, N, lambda shape, dt: _empty(xp, shape, dt))


def _rnn_dir(xp, x, w, h0, c0, p, reverse, keep, mask):
    H = p.state_size
    rec = _start(xp, x, w, h0, reverse, mask, H, w["bx"] + w["bh"])
    g, hs = rec.g, rec.hs
    whT = _step_weight(xp, w["wh"], g.shape[0], g.shape[1])
    tmp = xp.empty_like(h0)
    dot = xp.dot
    act = xp.tanh if p.mode == "rnn_tanh" else None
    for t in _order(reverse, g.shape[0]):
        i, o = _idx(reverse, t)
        dot(hs[i], whT, out=tmp)
        tmp += g[t]
        if act is not None:
            act(tmp, out=hs[o])
        else:
            xp.maximum(tmp, 0, out=hs[o])
        if mask is not None:
            _hold(xp, mask, t, hs[o], hs[i])
    if not keep:
        rec.g = None
    return rec


def _lstm_dir(xp, x, w, h0, c0, p, reverse, keep, mask):
    H, P = p.state_size, p.projection_size
    neg_bias = xp.add(w["bx"], w["bh"])
    xp.negative(neg_bias, out=neg_bias)
    rec = _start(xp, x, w, h0, reverse, mask, 4 * H, neg_bias, negate=True)
    g, hs = rec.g, rec.hs
    T, N = g.shape[:2]
    H2, H3 = 2 * H, 3 * H
    # The tanh gate's factor 2 (`lstm_gates_doubled`) goes into the projection once, and
    # into the recurrent weight where a copy of it is made anyway; on the stored weight a
    # step doubles its product's g columns instead.
    g[..., H2:H3] *= constant(xp, 2, x.dtype)
    whT = _step_weight(xp, w["wh"], T, N)
    double_step = xp.may_share_memory(whT, w["wh"])
    if not double_step:
        whT[:, H2:H3] *= constant(xp, 2, x.dtype)
    dt = x.dtype
    num = lstm_numerators(xp, H, dt)
    two, one = constant(xp, 2, dt), constant(xp, 1, dt)
    # every gate's view of the whole sequence, sliced once (a step indexes them)
    A_i, A_f, A_g, A_o = g[..., :H], g[..., H:H2], g[..., H2:H3], g[..., H3:]
    rec.cs = cs = _empty(xp, (T + 1 if keep else 2, N, H), dt)
    rec.tc = tcs = _empty(xp, (T if keep else 1, N, H), dt)
    if P:
        rec.hraw = hraw = _empty(xp, (T if keep else 1, N, H), dt)
        wrT = w["wr"].T
    lo, hi = p.lstm_state_clip_min, p.lstm_state_clip_max
    clip = None if lo is None else (lo, hi)
    tmp, t1 = xp.empty((N, 4 * H), dtype=dt), xp.empty((N, H), dtype=dt)
    tmp_g = tmp[:, H2:H3]
    dot, sub = xp.dot, xp.subtract
    with quiet(xp):
        for k, t in enumerate(_order(reverse, T)):
            i, o = _idx(reverse, t)
            if keep:
                c_prev, c_new, tc = cs[i], cs[o], tcs[t]
            else:
                c_prev, c_new, tc = cs[k % 2], cs[(k + 1) % 2], tcs[0]
            if k == 0:
                c_prev[...] = c0
            a = g[t]
            dot(hs[i], whT, out=tmp)
            if double_step:
                tmp_g *= two
            sub(a, tmp, out=a)
            ao = A_o[t]
            lstm_gates_doubled(xp, a, c_prev, c_new, tc,
                               None if P or mask is not None else hs[o], t1, num, clip,
                               p.lstm_state_clip_nan, (A_i[t], A_f[t], A_g[t], ao), one)
            if mask is not None:
                _hold(xp, mask, t, c_new, c_prev)
                xp.tanh(c_new, out=tc)
            if P:
                hr = hraw[t if keep else 0]
                xp.multiply(ao, tc, out=hr)
                dot(hr, wrT, out=hs[o])
            elif mask is not None:
                xp.multiply(ao, tc, out=hs[o])
            if mask is not None:
                _hold(xp, mask, t, hs[o], hs[i])
            last = c_new
    rec.final_c = last
    if not keep:
        rec.g = rec.cs = rec.tc = rec.hraw = None
    return rec


def _gru_dir(xp, x, w, h0, c0, p, reverse, keep, mask):
    H = p.state_size
    H2 = 2 * H
    neg_bias = xp.negative(w["bx"])
    neg_bias[:H2] -= w["bh"][:H2]
    rec = _start(xp, x, w, h0, reverse, mask, 3 * H, neg_bias, negate=True)
    gi, hs, bh_n = rec.g, rec.hs, w["bh"][H2:]
    T, N = gi.shape[:2]
    whT = _step_weight(xp, w["wh"], T, N)
    # The step's product goes into one (N, 3H) buffer that stays in cache; of it the
    # backward reads only h2h_n + bh_n, kept per step in `rec.gh` (T, N, H).
    gh = xp.empty((N, 3 * H), dtype=x.dtype)
    gh_rz, gh_n = gh[:, :H2], gh[:, H2:]
    rec.gh = hns = _empty(xp, (T if keep else 1, N, H), x.dtype)
    acts = _empty(xp, (T if keep else 1, N, 3 * H), x.dtype)
    # The GRU step's gate math, with every gate's view of the whole sequence sliced once: a
    # step then indexes them, where slicing each step's (N, 3H) rows costs a batch-1 step about
    # as much as two of its elementwise calls.
    gi_rz, gi_n = gi[..., :H2], gi[..., H2:]
    a_rz, a_r, a_z, a_n = acts[..., :H2], acts[..., :H], acts[..., H:H2], acts[..., H2:]
    one = constant(xp, 1, x.dtype)
    dot, sub, mul = xp.dot, xp.subtract, xp.multiply
    with quiet(xp):
        for t in _order(reverse, T):
            i, o = _idx(reverse, t)
            k = t if keep else 0
            h_prev, h, rz, n = hs[i], hs[o], a_rz[k], a_n[k]
            dot(h_prev, whT, out=gh)
            hn = hns[k]
            xp.add(gh_n, bh_n, out=hn)
            sub(gi_rz[t], gh_rz, out=rz)  # -(i2h + h2h) of r and z
            xp.exp(rz, out=rz)
            rz += one
            xp.divide(one, rz, out=rz)
            mul(a_r[k], hn, out=n)
            sub(n, gi_n[t], out=n)  # r * h2h_n + i2h_n
            xp.tanh(n, out=n)
            sub(h_prev, n, out=h)  # h' = n + z * (h - n)
            h *= a_z[k]
            h += n
            if mask is not None:
                _hold(xp, mask, t, h, h_prev)
    # The backward reads the activations, not the input projection: keep those in `g`.
    rec.g = acts if keep else None
    if not keep:
        rec.gh = None
    return rec


_RUN = {"rnn_relu": _rnn_dir, "rnn_tanh": _rnn_dir, "lstm": _lstm_dir, "gru": _gru_dir}


# ---- the kernel's backward, one direction ------------------------------------------------------
# A reverse rnn step whose (N, H) arrays hold at most this many elements costs its calls
# more than their arithmetic: its activation derivative is then taken for the whole sequence
# before the loop (two calls in all, not two a step); above it, a whole-sequence pass would
# stream the sequence through memory once more where a step's own pass stays in cache.
_WHOLE_SEQUENCE_MAX = 4096


def _act_grad(xp, mode, h, out):
    """The rnn activation's derivative at its output `h`, into `out`."""
    if mode == "rnn_tanh":
        xp.multiply(h, h, out=out)
        xp.subtract(1, out, out=out)
    else:
        xp.sign(h, out=out)  # relu outputs are >= 0: sign is the 0/1 mask


def _back_rnn(xp, rec, p, dy, dh):
    """Reverse loop of an rnn direction: returns the (T, N, G) gradient of the gates' input
    (i2h and h2h alike) and leaves the initial state's gradient in `dh`."""
    hs, whT = rec.hs, rec.w["wh"]
    T, N, H = hs.shape[0] - 1, hs.shape[1], hs.shape[2]
    dG = _empty(xp, (T, N, H), hs.dtype)
    out = rec.out()
    whole = N * H <= _WHOLE_SEQUENCE_MAX
    if whole:
        _act_grad(xp, p.mode, out, dG)
    d = xp.empty((N, H), dtype=hs.dtype)
    mask = rec.mask
    for t in _order(not rec.reverse, T):
        xp.add(dy[t], dh, out=d)
        dg = dG[t]
        if not whole:
            _act_grad(xp, p.mode, out[t], dg)
        dg *= d
        xp.dot(dg, whT, out=dh)
        if mask is not None:
            _skip_rows(xp, mask, t, dg, dh, d)
    return dG, None


def _skip_rows(xp, mask, t, dg, dh, d_in):
    """Rows past their length: no gate gradient, the state's gradient passes unchanged."""
    if not mask.full[t]:
        m = mask.rows[t]
        dg[~m] = 0
        xp.copyto(dh, d_in, where=~m[:, None])


def _back_lstm(xp, rec, p, dy, dh, dc):
    H, P = p.state_size, p.projection_size
    g, cs, tcs, hs, wh = rec.g, rec.cs, rec.tc, rec.hs, rec.w["wh"]
    T, N = g.shape[:2]
    dt = g.dtype
    dG = _empty(xp, (T, N, 4 * H), dt)
    dR = _empty(xp, (T, N, P), dt) if P else None
    d = xp.empty((N, hs.shape[2]), dtype=dt)
    dhr = xp.empty((N, H), dtype=dt) if P else None
    t1 = xp.empty((N, H), dtype=dt)
    H2 = 2 * H
    lo, hi = p.lstm_state_clip_min, p.lstm_state_clip_max
    mask = rec.mask
    # The factors that need no gradient: for the whole sequence in a few calls where a step's
    # arrays are small (its calls cost more than their arithmetic), else per step in cache.
    whole = N * H <= _WHOLE_SEQUENCE_MAX
    if whole:
        V, K = lstm_grad_factors(xp, g, tcs, _empty(xp, g.shape, dt), _empty(xp, tcs.shape, dt))
        # Each gate's gradient is dc (i, f, g) or dh (o) times a factor known before the
        # loop: take those products for the whole sequence, so that a step forms its four
        # gate gradients in two calls.
        V4, A4 = V.reshape(T, N, 4, H), g.reshape(T, N, 4, H)
        V4[:, :, 0] *= A4[:, :, 2]
        V4[:, :, 1] *= cs[1:] if rec.reverse else cs[:T]
        V4[:, :, 2] *= A4[:, :, 0]
        V4[:, :, 3] *= tcs
        # sliced once for the whole sequence (a step indexes them)
        dG4 = dG.reshape(T, N, 4, H)
        V3, Vo, dG3, dGo = V4[:, :, :3], V4[:, :, 3], dG4[:, :, :3], dG4[:, :, 3]
        dc3 = dc[:, None, :]
    else:
        v, k = xp.empty((N, 4 * H), dtype=dt), t1
    A_f = g[..., H:H2]
    for t in _order(not rec.reverse, T):
        i, o = _idx(rec.reverse, t)
        xp.add(dy[t], dh, out=d)
        if P:
            dR[t] = d
            if mask is not None and not mask.full[t]:
                dR[t][~mask.rows[t]] = 0
            xp.dot(d, rec.w["wr"], out=dhr)
            dht = dhr
        else:
            dht = d
        if mask is not None and not mask.full[t]:
            dc_in = dc.copy()
        a, dg = g[t], dG[t]
        if whole:
            xp.multiply(dht, K[t], out=t1)  # dc += dh * o * (1 - tanh(c)^2)
        else:
            tc = tcs[t]
            lstm_grad_factors(xp, a, tc, v, k)
            xp.multiply(dht, k, out=t1)
        dc += t1
        if lo is not None:
            c = cs[o]
            dc *= (c > lo) & (c < hi)
        if whole:
            xp.multiply(V3[t], dc3, out=dG3[t])
            xp.multiply(Vo[t], dht, out=dGo[t])
        else:
            lstm_gate_grads(xp, dht, dc, a, tc, cs[i], v, dg)
        dc *= A_f[t]
        xp.dot(dg, wh, out=dh)
        if mask is not None and not mask.full[t]:
            _skip_rows(xp, mask, t, dg, dh, d)
            xp.copyto(dc, dc_in, where=~mask.rows[t][:, None])
    return dG, dR


def _back_gru(xp, rec, p, dy, dh):
    H = p.state_size
    acts, hns, hs, wh = rec.g, rec.gh, rec.hs, rec.w["wh"]
    T, N = acts.shape[:2]
    dt = acts.dtype
    dGi, dGh = _empty(xp, (T, N, 3 * H), dt), _empty(xp, (T, N, 3 * H), dt)
    d, t1, t2 = (xp.empty((N, H), dtype=dt) for _ in range(3))
    mul, sub, H2 = xp.multiply, xp.subtract, 2 * H
    mask = rec.mask
    if N * H <= _WHOLE_SEQUENCE_MAX:  # a step's calls cost more than their arithmetic
        F = gru_grad_factors(xp, acts, hns, rec.prev_states(),
                             _empty(xp, acts.shape, dt), _empty(xp, (T, N, H), dt))
        # every gate's view of the whole sequence sliced once (a step indexes them)
        f_r, f_z, f_n = F[..., :H], F[..., H:H2], F[..., H2:]
        a_r, a_z = acts[..., :H], acts[..., H:H2]
        dh_r, dh_z, dh_n, di_n = dGh[..., :H], dGh[..., H:H2], dGh[..., H2:], dGi[..., H2:]
        for t in _order(not rec.reverse, T):
            xp.add(dy[t], dh, out=d)
            # r and z: written once, into dGh (dGi's copy of them is made after the loop)
            mul(d, f_z[t], out=dh_z[t])
            dn = mul(d, f_n[t], out=di_n[t])
            mul(dn, f_r[t], out=dh_r[t])
            mul(dn, a_r[t], out=dh_n[t])
            dgh = dGh[t]
            xp.dot(dgh, wh, out=dh)
            mul(d, a_z[t], out=t1)  # the direct path h -> h' = ... + z * h
            dh += t1
            if mask is not None and not mask.full[t]:
                _skip_rows(xp, mask, t, dGi[t], dh, d)
                dgh[~mask.rows[t]] = 0
        xp.copyto(dGi[..., :H2], dGh[..., :H2])
        return dGi, dGh
    for t in _order(not rec.reverse, T):
        i, o = _idx(rec.reverse, t)
        xp.add(dy[t], dh, out=d)
        a, hn, dgi, dgh = acts[t], hns[t], dGi[t], dGh[t]
        r, z, n = a[:, :H], a[:, H:H2], a[:, H2:]
        sub(hs[i], n, out=t1)  # dz = dh * (h - n) * z * (1 - z)
        t1 *= d
        sub(1, z, out=t2)
        t2 *= z
        mul(t1, t2, out=dgi[:, H:H2])
        sub(1, z, out=t1)  # dn = dh * (1 - z) * (1 - n^2)
        t1 *= d
        mul(n, n, out=t2)
        sub(1, t2, out=t2)
        mul(t1, t2, out=dgi[:, H2:])
        mul(dgi[:, H2:], r, out=dgh[:, H2:])
        mul(dgi[:, H2:], hn, out=t1)  # dr = dn * h2h_n * r * (1 - r)
        sub(1, r, out=t2)
        t2 *= r
        mul(t1, t2, out=dgi[:, :H])
        dgh[:, :H2] = dgi[:, :H2]
        xp.dot(dgh, wh, out=dh)
        mul(d, z, out=t1)  # the direct path h -> h' = ... + z * h
        dh += t1
        if mask is not None and not mask.full[t]:
            _skip_rows(xp, mask, t, dgi, dh, d)
            dgh[~mask.rows[t]] = 0
    return dGi, dGh


# ---- forward and backward over the layers -----------------------------------------------------
class _Saved:
    """What the RNN backward reads (the operator's hidden stateful output)."""

    __slots__ = ("dirs", "drops", "mask")

    def __init__(self, dirs, drops, mask):
        self.dirs, self.drops, self.mask = dirs, drops, mask


class _SeqMask:
    """Which rows are inside their sequence: `rows[t]` on the device, and `full[t]` on the
    host (every row is), so a step asks the device nothing."""

    __slots__ = ("rows", "full")

    def __init__(self, rows, full):
        self.rows, self.full = rows, full


def _seq_mask(xp, lengths, T, N):
    if lengths is None:
        return None
    # the lengths steer which steps need masking: read them on the host once per call
    n = np.asarray(host_array(lengths)).astype(np.int64).reshape(N)
    bad = (n < 1) | (n > T)
    if bad.any():
        raise ValueError(f"RNN: input 'sequence_length' must hold lengths in [1, {T}] (the "
                         f"sequence length), got {n.tolist()}")
    rows = np.arange(T)[:, None] < n[None, :]
    return _SeqMask(xp.asarray(rows), rows.all(axis=1).tolist())


def _forward(p, rc, data, views, state, cell, lengths, keep):
    """The layers over `data`; `views` per layer and direction {name: weight or bias}
    (`ParamLayout.views`). Returns the visible outputs and the saved run (or None)."""
    xp = rc.xp
    T, N, ni = data.shape
    H, L, D = p.state_size, p.num_layers, 2 if p.bidirectional else 1
    R = p.projection_size or H
    mask = _seq_mask(xp, lengths, T, N)
    run = _RUN[p.mode]
    lstm = p.mode == "lstm"
    hy = _empty(xp, (L * D, N, R), data.dtype)
    cy = _empty(xp, (L * D, N, H), data.dtype) if lstm else None
    x = xp.ascontiguousarray(data)
    dirs, drops = [], []
    drop = rc.is_train and p.p > 0
    for layer in range(L):
        outs = []
        for d in range(D):
            k = layer * D + d
            rec = run(xp, x, views[k], state[k], cell[k] if lstm else None, p, d == 1, keep,
                      mask)
            hy[k] = rec.hs[0 if d == 1 else -1]
            if lstm:
                cy[k] = rec.final_c
            outs.append(rec)
        dirs.extend(outs)
        y = outs[0].out() if D == 1 else xp.concatenate(
            [r.out() for r in outs], axis=2, out=_empty(xp, (T, N, D * R), data.dtype))
        if mask is not None:
            y = xp.multiply(y, mask.rows[:, :, None], out=_empty(xp, y.shape, y.dtype))
        if drop and layer < L - 1:
            keep_mask = generator().random(y.shape) >= p.p
            m = xp.asarray((keep_mask / (1.0 - p.p)).astype(y.dtype))
            y = xp.multiply(y, m, out=_empty(xp, y.shape, y.dtype))
            drops.append(m)
        x = y
    vis = (x, hy, cy)[:_n_visible(p)]
    return vis + (_Saved(dirs, drops, mask) if keep else None,)


def _kernel(p, rc, data, params, state, *rest):
    """RNN(data, parameters, state, state_cell=None, sequence_length=None, state_size,
    num_layers, mode, bidirectional=False, p=0, state_outputs=False, projection_size=None,
    lstm_state_clip_min=None, lstm_state_clip_max=None, lstm_state_clip_nan=False,
    use_sequence_length=False): MXNet's fused multi-layer recurrent operator (see
    `gluonlite.ops.rnn` for the equations and the packed parameter layout)."""
    cell = rest[0] if p.mode == "lstm" else None
    lengths = rest[-1] if p.use_sequence_length else None
    views = _layout(p, data.shape[2]).views(params)
    return _forward(p, rc, data, views, state, cell, lengths, rc.is_train or rc.need_grad)


def _vjp(p, rc, xs, ys, gys, need):
    xp = rc.xp
    data, params = xs[0], xs[1]
    lay = _layout(p, data.shape[2])
    dparams = _empty(xp, params.shape, data.dtype) if need[1] else None
    dx, dstate, dcell = _backward(p, rc, data, lambda: lay.views(params), xs[2:], ys, gys,
                                  need[0], lay.views(dparams) if need[1] else None, None)
    out = [dx, dparams, dstate]
    if p.mode == "lstm":
        out.append(dcell)
    if p.use_sequence_length:
        out.append(None)
    return tuple(out)


def _row_sum(xp, a, ones, out):
    """``out <- a.sum(axis=0)`` as the product ``ones @ a`` where `out` can take it."""
    if out.flags.c_contiguous:
        xp.dot(ones, a, out=out)
    else:
        a.sum(axis=0, out=out)


def _backward(p, rc, data, views, rest, ys, gys, want_data, dviews, dests):
    """The gradients (data, state, state cell) of a run, writing the weight and bias
    gradients into `dviews` (like `views`; None: none wanted). `views()` gives the
    parameters' views (read only to run the forward again when it kept nothing); `rest`: the
    inputs after data and parameters (state, state cell, sequence length); `dests` (or
    None): arrays to write the data, state and state cell gradients into, each possibly
    None."""
    xp = rc.xp
    state = rest[0]
    lstm = p.mode == "lstm"
    saved = ys[-1] if len(ys) > _n_visible(p) else None
    if saved is None:  # the forward kept nothing: run it again, keeping what we read
        cell = rest[1] if lstm else None
        lengths = rest[-1] if p.use_sequence_length else None
        saved = _forward(p, rc, data, views(), state, cell, lengths, True)[-1]
    T, N, ni = data.shape
    H, L, D = p.state_size, p.num_layers, 2 if p.bidirectional else 1
    R = p.projection_size or H
    dt = data.dtype

    def grad(i, shape):
        g = gys[i] if i < len(gys) and i < _n_visible(p) else None
        return g if g is not None else xp.zeros(shape, dtype=dt)

    def dest(i, shape):
        d = dests[i] if dests is not None else None
        return d if d is not None else _empty(xp, shape, dt)

    dy = grad(0, (T, N, D * R))
    dhy = grad(1, (L * D, N, R))
    dcy = grad(2, (L * D, N, H)) if lstm else None
    want_w = dviews is not None
    dstate = dest(1, state.shape)
    dcell = dest(2, state.shape[:2] + (H,)) if lstm else None
    dx = None
    for layer in range(L - 1, -1, -1):
        if saved.mask is not None:
            dy = dy * saved.mask.rows[:, :, None]
        want_x = layer > 0 or want_data
        dx = None
        for d in range(D):
            k = layer * D + d
            rec = saved.dirs[k]
            dyd = dy if D == 1 else dy[:, :, d * R:(d + 1) * R]
            dh = dhy[k].copy()
            if lstm:
                dc = dcy[k].copy()
                dGi, dR = _back_lstm(xp, rec, p, dyd, dh, dc)
                dGh = dGi
                dcell[k] = dc
            elif p.mode == "gru":
                dGi, dGh = _back_gru(xp, rec, p, dyd, dh)
                dR = None
            else:
                dGi, dR = _back_rnn(xp, rec, p, dyd, dh)
                dGh = dGi
            dstate[k] = dh
            G = dGi.shape[2]
            gi2, gh2 = dGi.reshape(T * N, G), dGh.reshape(T * N, G)
            if want_w:
                w = dviews[k]
                xi = rec.x.shape[2]
                xp.dot(gi2.T, rec.x.reshape(T * N, xi), out=w["wx"])
                xp.dot(gh2.T, rec.prev_states().reshape(T * N, R), out=w["wh"])
                # the bias gradients as products with ones: BLAS sums the rows in about
                # two thirds of `sum(axis=0)`'s time (and no less accurately)
                ones = xp.ones((T * N,), dtype=dt)
                _row_sum(xp, gi2, ones, w["bx"])
                if dGh is dGi:  # one gate gradient for both biases (not gru): sum it once
                    w["bh"][...] = w["bx"]
                else:
                    _row_sum(xp, gh2, ones, w["bh"])
                if dR is not None:
                    xp.dot(dR.reshape(T * N, R).T, rec.hraw.reshape(T * N, H), out=w["wr"])
            if want_x:
                xi = rec.x.shape[2]
                part = dest(0, (T, N, xi)) if layer == 0 and d == 0 else \
                    _empty(xp, (T, N, xi), dt)
                xp.dot(gi2, rec.w["wx"], out=part.reshape(T * N, xi))
                dx = part if dx is None else xp.add(dx, part, out=dx)
        if layer > 0:
            dy = dx * saved.drops[layer - 1] if saved.drops else dx
    return (dx if want_data else None), dstate, dcell


RNN = register(
    "RNN", inputs=_input_names, outputs=lambda p: _n_visible(p) + 1, visible=_n_visible,
    output_names=_output_names, attrs=_ATTRS, shape=_shape, dtype=_dtype, vjp=_vjp,
    nondiff=("sequence_length",), same_dtype=("data", "parameters", "state", "state_cell"),
    signature=("data", "parameters", "state", "state_cell", "sequence_length"),
    stateful=True)(_kernel)  # the hidden last output is the run kept for the backward


# ---- _rnn_unpacked -----------------------------------------------------------------------------
def _n_states(p):
    return 2 if p.mode == "lstm" else 1


def _check_unpacked(p):
    """Raise ValueError for attributes `_rnn_unpacked` does not take; returns the number of
    state inputs (after the parameter parts)."""
    _check_attrs(p)
    if p.use_sequence_length:
        raise ValueError("_rnn_unpacked: attribute use_sequence_length must be False (use RNN "
                         "for sequences of several lengths)")
    ns = _n_states(p)
    if p.num_args < ns + 2:
        raise ValueError(f"_rnn_unpacked: attribute num_args must count data, at least one "
                         f"parameter part and the state(s): >= {ns + 2} for mode={p.mode!r}, "
                         f"got {p.num_args}")
    return ns


def _unpacked_shape(p, ins):
    ns = _check_unpacked(p)
    parts, states = ins[1:len(ins) - ns], ins[len(ins) - ns:]
    packed = None if any(s is None for s in parts) else (sum(_numel(s) for s in parts),)
    filled, outs = _shape(p, [ins[0], packed] + list(states))
    return [filled[0]] + list(parts) + filled[2:2 + ns], outs


def _part_views(xp, lay, parts, dtype):
    """`ParamLayout.part_views`, or the views of the parts' concatenation when they are not
    the layout's entries one by one."""
    views = lay.part_views(parts)
    if views is None:
        flat = xp.concatenate([a.reshape(-1) for a in parts],
                              out=_empty(xp, (lay.size,), dtype))
        views = lay.views(flat)
    return views


def _unpacked_kernel(p, rc, data, *rest):
    """_rnn_unpacked(data, *parameters, state, [state_cell], RNN's attributes, num_args):
    `RNN` with its packed parameter vector given as the parts `_rnn_param_concat` would join
    (each part any shape of its size); what a compiled plan runs for ``RNN`` of
    ``_rnn_param_concat`` (`gluonlite.executor.rnn_params`), so that the parameters are read
    where they lie and their gradients written into the caller's buffers."""
    ns = _n_states(p)  # the shape rule checked the attributes (`_check_unpacked`)
    parts, states = rest[:len(rest) - ns], rest[len(rest) - ns:]
    views = _part_views(rc.xp, _layout(p, data.shape[2]), parts, data.dtype)
    return _forward(p, rc, data, views, states[0], states[1] if ns == 2 else None, None,
                    rc.is_train or rc.need_grad)


def _unpacked_vjp(p, rc, xs, ys, gys, need, dests=None):
    xp = rc.xp
    ns = _n_states(p)
    n = len(xs)
    data, parts = xs[0], xs[1:n - ns]
    dt = data.dtype
    lay = _layout(p, data.shape[2])
    want = need[1:n - ns]
    dparts = dviews = flat = None
    if any(want):
        dparts = [dests[1 + j] if dests is not None and dests[1 + j] is not None and w
                  else _empty(xp, a.shape, dt) for j, (a, w) in enumerate(zip(parts, want))]
        dviews = lay.part_views(dparts)
        if dviews is None:  # the parts split the vector otherwise: write it whole, then split
            flat = _empty(xp, (lay.size,), dt)
            dviews = lay.views(flat)
    fixed = None if dests is None else [dests[0]] + list(dests[n - ns:]) + [None] * (2 - ns)
    dx, dstate, dcell = _backward(p, rc, data, lambda: _part_views(xp, lay, parts, dt),
                                  xs[n - ns:], ys, gys, need[0], dviews, fixed)
    if flat is not None:
        off = 0
        for d in dparts:
            xp.copyto(d.reshape(-1), flat[off:off + d.size])
            off += d.size
    dparts = dparts or [None] * len(want)
    return tuple([dx] + [d if w else None for d, w in zip(dparts, want)] + [dstate] +
                 ([dcell] if ns == 2 else []))


def _unpacked_dtype(p, ins):
    d = next((t for t in ins if t is not None), None)
    return [d if t is None else t for t in ins], [d] * _n_visible(p)


_UNPACKED = register(
    "_rnn_unpacked", variadic="num_args", outputs=lambda p: _n_visible(p) + 1,
    visible=_n_visible, output_names=_output_names, attrs=dict(_ATTRS, num_args=A.Int()),
    shape=_unpacked_shape, dtype=_unpacked_dtype,
    vjp=lambda p, rc, xs, ys, gys, need: _unpacked_vjp(p, rc, xs, ys, gys, need),
    # The gradients of the data, the states and each parameter part go straight into the
    # caller's buffers (a parameter's grad, under a compiled plan or autograd).
    fast=Fast(vjp=_unpacked_vjp, writes_dests=True),
    stateful=True)(_unpacked_kernel)  # as RNN's: the hidden last output is the run kept


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
    return rc.xp.concatenate(xs, axis=ax, out=_empty(rc.xp, tuple(shape), xs[0].dtype))


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
