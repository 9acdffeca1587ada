"""The hand-fused kernels of `RNN` and `_rnn_unpacked`: the operators' fast paths
(`gluonlite.ops.rnn` holds their meaning, the reference kernel, and the registry walk holds
these against it).

Per layer and direction one matrix product makes the input projection of every step, the
gate math runs in place in preallocated buffers (`gluonlite.ops.rnn_gates`), and in the
backward the weight gradients are one matrix product each after the reverse loop, written
straight into their place in the packed gradient (or, for `_rnn_unpacked`, into the caller's
buffers). The forward's hidden last output holds what the backward reads (kept in training,
or when a gradient is asked for; a backward without it runs the forward again).

Its large arrays come from `WORKSPACE`, which hands an array out again once nothing holds
it any more (no output, view or saved run refers to it): a steady-state call then writes
into memory it already touched, as a hand-written loop with preallocated buffers does,
instead of faulting fresh pages in every call.
"""
import sys

import numpy as np

from . import mxnet_samplers
from .rnn_gates import (constant, gru_grad_factors, lstm_gate_grads,
                        lstm_gates_doubled, lstm_grad_factors, lstm_numerators,
                        negate_projection, quiet, step_weight)
from .rnn_layout import layout as _layout, n_states as _n_states, n_visible as _n_visible, step_mask

__all__ = ["Workspace", "WORKSPACE", "Paths", "HOST", "rnn_kernel", "rnn_vjp",
           "unpacked_kernel", "unpacked_vjp"]

class Workspace:
    """Arrays reused between calls once nothing else refers to them.

    An array handed out stays in the workspace; `empty` returns it again only when its
    reference count shows that no caller, view (a view refers to its base) or saved run
    holds it, so reuse never overwrites a value still in use. Up to `per_key` arrays are
    kept per (shape, dtype) of numpy arrays, for up to `max_keys` keys (all dropped when a
    new key would exceed it).

    Example::

        from gluonlite.ops.rnn_fused import Workspace
        ws = Workspace()
        a = ws.empty(np, (2, 3), np.float32)
        ws.empty(np, (2, 3), np.float32) is a   # False: `a` is still held
    """

    def __init__(self, per_key=3, max_keys=48):
        self.per_key, self.max_keys = per_key, max_keys
        self._arrays = {}

    def empty(self, xp, shape, dtype):
        """An uninitialized array of `shape` and `dtype` (one nobody else holds).

        Args:
            xp: the array module (a non-numpy one allocates a new array every time).
            shape: the array's shape, a tuple.
            dtype: its dtype.

        Returns:
            array: reused from this workspace when a numpy array of that shape and dtype is
            held by nobody else.

        Example::

            from gluonlite.ops.rnn_fused import Workspace
            ws = Workspace()
            a = ws.empty(np, (2, 3), np.float32)
            key = id(a); del a                      # nobody holds it now
            id(ws.empty(np, (2, 3), np.float32)) == key     # True: handed out again
        """
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
        """Drop every kept array.

        Example::

            from gluonlite.ops.rnn_fused import Workspace
            ws = Workspace()
            ws.empty(np, (2, 3), np.float32)
            ws.clear()                              # the next empty() allocates afresh
        """
        self._arrays.clear()


WORKSPACE = Workspace()


def _empty(xp, shape, dtype):
    return WORKSPACE.empty(xp, shape, dtype)


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


def _back_rnn(xp, rec, p, dy, dh, dc=None):
    """Reverse loop of an rnn direction: returns (dG, dG, None), dG the (T, N, G) gradient of
    the gates' input (i2h and h2h alike), and leaves the initial state's gradient in `dh`."""
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
    return dG, dG, None


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
    return dG, dG, dR


def _back_gru(xp, rec, p, dy, dh, dc=None):
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
        return dGi, dGh, None
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
    return dGi, dGh, None


# Per mode: the reverse loop of one direction, ``back(xp, rec, p, dy, dh, dc) -> (dGi, dGh,
# dR)`` (the gates' input gradients of i2h and h2h, which may be one array, and a
# projection's), leaving the initial state's (and cell's) gradient in `dh` (`dc`).
_BACK = {"rnn_relu": _back_rnn, "rnn_tanh": _back_rnn, "lstm": _back_lstm, "gru": _back_gru}


class Paths:
    """The per-direction loops a fused kernel runs: `runs` (forward, `_RUN`'s form) and
    `backs` (reverse, `_BACK`'s form), by mode; the host's here, a device's in
    `gluonlite.ops.rnn_device`.

    Example::

        from gluonlite.ops.rnn_fused import HOST
        sorted(HOST.runs)       # ['gru', 'lstm', 'rnn_relu', 'rnn_tanh']: the host's loops
    """

    __slots__ = ("runs", "backs")

    def __init__(self, runs, backs):
        self.runs, self.backs = runs, backs


HOST = Paths(_RUN, _BACK)


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
    rows = step_mask(lengths, T, N)
    return _SeqMask(xp.asarray(rows), rows.all(axis=1).tolist())


def _forward(p, rc, data, views, state, cell, lengths, keep, paths=HOST):
    """The layers over `data`; `views` per layer and direction {name: weight or bias}
    (`ParamLayout.views`). Returns the visible outputs and the saved run (or None)."""
    xp = rc.xp
    T, N, ni = data.shape
    H, L, D = p.state_size, p.num_layers, 2 if p.bidirectional else 1
    R = p.projection_size or H
    mask = _seq_mask(xp, lengths, T, N)
    run = paths.runs[p.mode]
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
            m = xp.asarray(mxnet_samplers.rnn_dropout_scale(y.shape, p.p, y.dtype))
            y = xp.multiply(y, m, out=_empty(xp, y.shape, y.dtype))
            drops.append(m)
        x = y
    vis = (x, hy, cy)[:_n_visible(p)]
    return vis + (_Saved(dirs, drops, mask) if keep else None,)


def rnn_kernel(p, rc, data, params, state, *rest, paths=HOST):
    """RNN(data, parameters, state, state_cell=None, sequence_length=None, state_size,
    num_layers, mode, bidirectional=False, p=0, state_outputs=False, projection_size=None,
    lstm_state_clip_min=None, lstm_state_clip_max=None, lstm_state_clip_nan=False,
    use_sequence_length=False): MXNet's fused multi-layer recurrent operator (see
    `gluonlite.ops.rnn` for the equations and the packed parameter layout).

    Args:
        p: the operator's parsed attributes.
        rc: the `RunCtx` (train mode: the run is kept for the gradient; array module).
        data: the sequence (T, N, I) (layout TNC).
        params: the packed parameter vector.
        state: the initial hidden state (L * D, N, H).
        *rest: the initial cell state (LSTM), then the sequence lengths (N,) with
            use_sequence_length.
        paths: the step implementations to use (default HOST: the host paths; the device
            module passes its own).

    Returns:
        tuple: the output (T, N, D * H), the final state(s) with state_outputs, then any
        hidden outputs.

    Raises:
        ValueError: a sequence length outside [1, T] (`rnn_layout.step_mask`).

    Example::

        from gluonlite.ops import rnn_fused
        from gluonlite.ops.registry import RunCtx
        p = mx.ops.get("RNN").parse({"state_size": 4, "num_layers": 1, "mode": "gru"})[0]
        x, h0 = np.ones((5, 2, 3), np.float32), np.zeros((1, 2, 4), np.float32)
        w = np.full(rnn_fused._layout(p, 3).size, 0.1, np.float32)
        ys = rnn_fused.rnn_kernel(p, RunCtx(False, np), x, w, h0)
        ys[0].shape             # (5, 2, 4): the output of every step
    """
    cell = rest[0] if p.mode == "lstm" else None
    lengths = rest[-1] if p.use_sequence_length else None
    views = _layout(p, data.shape[2]).views(params)
    return _forward(p, rc, data, views, state, cell, lengths, rc.is_train or rc.need_grad,
                    paths)


def rnn_vjp(p, rc, xs, ys, gys, need, paths=HOST):
    """RNN's gradient, from the run `rnn_kernel` kept (or running it again): the packed
    parameters' gradient written entry by entry into one vector.

    Args:
        p: the operator's parsed attributes.
        rc: the `RunCtx` (train mode: the run is kept for the gradient; array module).
        xs: the forward's inputs.
        ys: the forward's outputs, hidden ones included.
        gys: the outputs' gradients (None where an output received none).
        need: per input, whether its gradient is wanted.
        paths: the step implementations to use (default HOST: the host paths; the device
            module passes its own).

    Returns:
        list: one gradient per input (None where not wanted; none for the sequence
        lengths).

    Example::

        from gluonlite.ops import rnn_fused
        from gluonlite.ops.registry import RunCtx
        p = mx.ops.get("RNN").parse({"state_size": 4, "num_layers": 1, "mode": "gru"})[0]
        x, h0 = np.ones((5, 2, 3), np.float32), np.zeros((1, 2, 4), np.float32)
        w = np.full(rnn_fused._layout(p, 3).size, 0.1, np.float32)
        rc = RunCtx(True, np)
        ys = rnn_fused.rnn_kernel(p, rc, x, w, h0)
        gys = [np.ones_like(ys[0])] + [None] * (len(ys) - 1)
        dx, dw, dh0 = rnn_fused.rnn_vjp(p, rc, [x, w, h0], ys, gys, [True, True, True])
        dx.shape, dw.shape      # ((5, 2, 3), (108,))
    """
    xp = rc.xp
    data, params = xs[0], xs[1]
    lay = _layout(p, data.shape[2])
    dparams = _empty(xp, params.shape, data.dtype) if need[1] else None
    dx, dstate, dcell = _backward(p, rc, data, lambda: lay.views(params), xs[2:], ys, gys,
                                  need[0], lay.views(dparams) if need[1] else None, None, paths)
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


def _backward(p, rc, data, views, rest, ys, gys, want_data, dviews, dests, paths=HOST):
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
        saved = _forward(p, rc, data, views(), state, cell, lengths, True, paths)[-1]
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
            dc = dcy[k].copy() if lstm else None
            dGi, dGh, dR = paths.backs[p.mode](xp, rec, p, dyd, dh, dc)
            if lstm:
                dcell[k] = dc
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


def _part_views(xp, lay, parts, dtype):
    """`ParamLayout.part_views`, or the views of the parts' concatenation when they are not
    the layout's entries one by one."""
    views = lay.part_views(parts)
    if views is None:
        flat = xp.concatenate([a.reshape(-1) for a in parts],
                              out=_empty(xp, (lay.size,), dtype))
        views = lay.views(flat)
    return views


def unpacked_kernel(p, rc, data, *rest, paths=HOST):
    """_rnn_unpacked(data, *parameters, state, [state_cell], RNN's attributes, num_args):
    `RNN` with its packed parameter vector given as the parts `_rnn_param_concat` would join
    (each part any shape of its size); what a compiled plan runs for ``RNN`` of
    ``_rnn_param_concat`` (`gluonlite.executor.rnn_params`), so that the parameters are read
    where they lie and their gradients written into the caller's buffers.

    Args:
        p: the ``_rnn_unpacked`` operator's parsed attributes.
        rc: the `RunCtx`.
        data: the sequence (T, N, I).
        *rest: the parameter parts, then the state(s).
        paths: the step implementations to use (default HOST: the host paths; the device
            module passes its own).

    Returns:
        tuple: as `rnn_kernel`'s.

    Example::

        from gluonlite.ops import rnn_fused
        from gluonlite.ops.registry import RunCtx
        p = mx.ops.get("_rnn_unpacked").parse({"state_size": 4, "num_layers": 1, "mode": "gru",
                                               "num_args": 4})[0]
        x, h0 = np.ones((5, 2, 3), np.float32), np.zeros((1, 2, 4), np.float32)
        w1, w2 = np.full(54, 0.1, np.float32), np.full(54, 0.1, np.float32)   # 108 in two parts
        ys = rnn_fused.unpacked_kernel(p, RunCtx(False, np), x, w1, w2, h0)
        ys[0].shape             # (5, 2, 4)
    """
    ns = _n_states(p)  # the shape rule checked the attributes (`_check_unpacked`)
    parts, states = rest[:len(rest) - ns], rest[len(rest) - ns:]
    views = _part_views(rc.xp, _layout(p, data.shape[2]), parts, data.dtype)
    return _forward(p, rc, data, views, states[0], states[1] if ns == 2 else None, None,
                    rc.is_train or rc.need_grad, paths)


def unpacked_vjp(p, rc, xs, ys, gys, need, dests=None, paths=HOST):
    """`_rnn_unpacked`'s gradient, each part's written where `dests` (per input: None or
    the caller's array) gives it (`Fast.writes_dests`).

    Args:
        p: the ``_rnn_unpacked`` operator's parsed attributes.
        rc: the `RunCtx`.
        xs: the forward's inputs.
        ys: the forward's outputs, hidden ones included.
        gys: the outputs' gradients (None where an output received none).
        need: per input, whether its gradient is wanted.
        dests: per input, None or the array to write its gradient into (default None).
        paths: the step implementations to use (default HOST: the host paths; the device
            module passes its own).

    Returns:
        list: one gradient per input (the dests' arrays where given).

    Example::

        from gluonlite.ops import rnn_fused
        from gluonlite.ops.registry import RunCtx
        p = mx.ops.get("_rnn_unpacked").parse({"state_size": 4, "num_layers": 1, "mode": "gru",
                                               "num_args": 4})[0]
        x, h0 = np.ones((5, 2, 3), np.float32), np.zeros((1, 2, 4), np.float32)
        w1, w2 = np.full(54, 0.1, np.float32), np.full(54, 0.1, np.float32)   # 108 in two parts
        rc = RunCtx(True, np)
        ys = rnn_fused.unpacked_kernel(p, rc, x, w1, w2, h0)
        gys = [np.ones_like(ys[0])] + [None] * (len(ys) - 1)
        grads = rnn_fused.unpacked_vjp(p, rc, [x, w1, w2, h0], ys, gys, [True] * 4)
        [g.shape for g in grads]        # [(5, 2, 3), (54,), (54,), (1, 2, 4)]
    """
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
                                  xs[n - ns:], ys, gys, need[0], dviews, fixed, paths)
    if flat is not None:
        off = 0
        for d in dparts:
            xp.copyto(d.reshape(-1), flat[off:off + d.size])
            off += d.size
    dparts = dparts or [None] * len(want)
    return tuple([dx] + [d if w else None for d, w in zip(dparts, want)] + [dstate] +
                 ([dcell] if ns == 2 else []))
