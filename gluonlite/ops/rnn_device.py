"""`RNN`'s and `_rnn_unpacked`'s fast path on a device: each step's gate math one kernel.

The host's fused kernel (`gluonlite.ops.rnn_fused`) is tuned for numpy: in-place calls
that reuse cache-resident buffers, negated and doubled pre-activations so that one ``exp``
serves four gates. On a GPU every one of those calls is a kernel launch, and at the sizes
of a recurrent step (a few thousand elements) a launch costs more than its arithmetic: an
LSTM step there is a dozen launches. Here the same layers loop (`rnn_fused`'s `_forward`
and `_backward`, the same records, the same weight-gradient products after the loop) runs
per direction loops whose step is one matrix product and ONE fused elementwise kernel
(`gluonlite.ops.rnn_gates`' step functions compiled by ``cupy.fuse``), forward and
backward.

They are the operators' `Fast.device` paths, which callers run where the array module
compiles kernels (`gluonlite.ops.fast.compiles_kernels`: CuPy) and device kernels are on;
the registry walk holds them against the plain rules on such a module. Sequence lengths
(``use_sequence_length``) hold rows per step, which the host's loops already do: a call with
them runs those.
"""
import functools

from .fast import Fast
from .rnn_fused import (HOST, Paths, _empty, _idx, _order, _start, rnn_kernel, rnn_vjp,
                        unpacked_kernel, unpacked_vjp)
from .rnn_gates import (fused, gru_cell, gru_cell_grad, lstm_cell, lstm_cell_grad,
                        rnn_cell, rnn_cell_grad)

__all__ = ["DEVICE", "RNN_DEVICE", "UNPACKED_DEVICE"]


def _blocks(a, H, n):
    """The `n` column blocks of width H of the (..., n*H) array `a` (views)."""
    return [a[..., k * H:(k + 1) * H] for k in range(n)]


# ---- forward, one direction ---------------------------------------------------------------------
def _rnn_dir(xp, x, w, h0, c0, p, reverse, keep, mask):
    H = p.state_size
    rec = _start(xp, x, w, h0, reverse, mask, H, w["bx"] + w["bh"])
    g, hs = rec.g, rec.hs
    whT, hh = w["wh"].T, xp.empty_like(h0)
    step = fused(xp, rnn_cell, relu=p.mode == "rnn_relu")
    for t in _order(reverse, g.shape[0]):
        i, o = _idx(reverse, t)
        xp.dot(hs[i], whT, out=hh)
        step(g[t], hh, hs[o])
    if not keep:
        rec.g = None
    return rec


def _clip(p):
    lo = p.lstm_state_clip_min
    return None if lo is None else (float(lo), float(p.lstm_state_clip_max))


def _lstm_dir(xp, x, w, h0, c0, p, reverse, keep, mask):
    H, P = p.state_size, p.projection_size
    rec = _start(xp, x, w, h0, reverse, mask, 4 * H, w["bx"] + w["bh"])
    g, hs = rec.g, rec.hs
    T, N = g.shape[:2]
    dt = x.dtype
    rec.cs = cs = _empty(xp, (T + 1 if keep else 2, N, H), dt)
    rec.tc = tcs = _empty(xp, (T if keep else 1, N, H), dt)
    if P:
        rec.hraw = hraw = _empty(xp, (T if keep else 1, N, H), dt)
        wrT = w["wr"].T
    hh = xp.empty((N, 4 * H), dtype=dt)
    h2h = _blocks(hh, H, 4)
    gates = _blocks(g, H, 4)  # every gate's view of the whole sequence, sliced once
    whT = w["wh"].T
    step = fused(xp, lstm_cell, clip=_clip(p), clip_nan=bool(p.lstm_state_clip_nan))
    last = cs[0]
    for k, t in enumerate(_order(reverse, T)):
        i, o = _idx(reverse, t)
        if keep:
            c_prev, c_new, tc = cs[i], cs[o], tcs[t]
        else:
            c_prev, c_new, tc = cs[k % 2], cs[(k + 1) % 2], tcs[0]
        if k == 0:
            c_prev[...] = c0
        xp.dot(hs[i], whT, out=hh)
        h = hraw[t if keep else 0] if P else hs[o]
        step(*[a[t] for a in gates], *h2h, c_prev, c_new, tc, h)
        if P:
            xp.dot(h, wrT, out=hs[o])
        last = c_new
    rec.final_c = last
    if not keep:
        rec.g = rec.cs = rec.tc = rec.hraw = None
    return rec


def _gru_dir(xp, x, w, h0, c0, p, reverse, keep, mask):
    H = p.state_size
    bias = w["bx"].copy()
    bias[:2 * H] += w["bh"][:2 * H]  # r and z take both biases before the loop; n's h2h later
    rec = _start(xp, x, w, h0, reverse, mask, 3 * H, bias)
    gi, hs, bh_n = rec.g, rec.hs, w["bh"][2 * H:]
    T, N = gi.shape[:2]
    gh = xp.empty((N, 3 * H), dtype=x.dtype)
    h2h = _blocks(gh, H, 3)
    rec.gh = hns = _empty(xp, (T if keep else 1, N, H), x.dtype)
    acts = _empty(xp, (T if keep else 1, N, 3 * H), x.dtype)
    r, z, n = _blocks(acts, H, 3)
    i2h = _blocks(gi, H, 3)
    whT = w["wh"].T
    step = fused(xp, gru_cell)
    for t in _order(reverse, T):
        i, o = _idx(reverse, t)
        k = t if keep else 0
        xp.dot(hs[i], whT, out=gh)
        step(*[a[t] for a in i2h], *h2h, bh_n, hs[i], r[k], z[k], n[k], hns[k], hs[o])
    rec.g = acts if keep else None  # the backward reads the activations
    if not keep:
        rec.gh = None
    return rec


# ---- backward, one direction --------------------------------------------------------------------
def _back_rnn(xp, rec, p, dy, dh, dc=None):
    hs, wh = rec.hs, rec.w["wh"]
    T, N, H = hs.shape[0] - 1, hs.shape[1], hs.shape[2]
    dG = _empty(xp, (T, N, H), hs.dtype)
    out = rec.out()
    step = fused(xp, rnn_cell_grad, relu=p.mode == "rnn_relu")
    for t in _order(not rec.reverse, T):
        step(dy[t], dh, out[t], dG[t])
        xp.dot(dG[t], wh, out=dh)
    return dG, dG, None


def _back_lstm(xp, rec, p, dy, dh, dc):
    H, P = p.state_size, p.projection_size
    g, cs, tcs, wh = rec.g, rec.cs, rec.tc, rec.w["wh"]
    T, N = g.shape[:2]
    dt = g.dtype
    dG = _empty(xp, (T, N, 4 * H), dt)
    dR = _empty(xp, (T, N, P), dt) if P else None
    acts, dgates = _blocks(g, H, 4), _blocks(dG, H, 4)
    step = fused(xp, lstm_cell_grad, clip=_clip(p))
    if P:  # the projection's gradient comes first: the cell's `dy` is then all of it
        dhr, zero = xp.empty((N, H), dtype=dt), xp.zeros((N, H), dtype=dt)
    for t in _order(not rec.reverse, T):
        i, o = _idx(rec.reverse, t)
        if P:
            xp.add(dy[t], dh, out=dR[t])
            xp.dot(dR[t], rec.w["wr"], out=dhr)
            d_out, d_in = dhr, zero
        else:
            d_out, d_in = dy[t], dh
        step(d_out, d_in, dc, *[a[t] for a in acts], tcs[t], cs[i], cs[o],
             *[a[t] for a in dgates])
        xp.dot(dG[t], wh, out=dh)
    return dG, dG, dR


def _back_gru(xp, rec, p, dy, dh, dc=None):
    H = p.state_size
    acts, hns, wh = rec.g, rec.gh, rec.w["wh"]
    T, N = acts.shape[:2]
    dt = acts.dtype
    dGi, dGh = _empty(xp, (T, N, 3 * H), dt), _empty(xp, (T, N, 3 * H), dt)
    r, z, n = _blocks(acts, H, 3)
    dgi, dgh = _blocks(dGi, H, 3), _blocks(dGh, H, 3)
    prev = rec.prev_states()
    carry = xp.zeros((N, H), dtype=dt)  # the direct path h -> h' = ... + z * h
    step = fused(xp, gru_cell_grad)
    for t in _order(not rec.reverse, T):
        step(dy[t], dh, carry, r[t], z[t], n[t], hns[t], prev[t], *[a[t] for a in dgi],
             *[a[t] for a in dgh])
        xp.dot(dGh[t], wh, out=dh)
    dh += carry
    return dGi, dGh, None


DEVICE = Paths({"rnn_relu": _rnn_dir, "rnn_tanh": _rnn_dir, "lstm": _lstm_dir,
                "gru": _gru_dir},
               {"rnn_relu": _back_rnn, "rnn_tanh": _back_rnn, "lstm": _back_lstm,
                "gru": _back_gru})


# ---- the operators' device fast paths ----------------------------------------------------------
def _paths(p):
    return HOST if p.use_sequence_length else DEVICE


def _device_rnn_kernel(p, rc, data, params, state, *rest):
    """RNN's kernel on a device (see the module docstring)."""
    return rnn_kernel(p, rc, data, params, state, *rest, paths=_paths(p))


def _device_rnn_vjp(p, rc, xs, ys, gys, need):
    """RNN's gradient on a device, from the run `_device_rnn_kernel` kept."""
    return rnn_vjp(p, rc, xs, ys, gys, need, paths=_paths(p))


RNN_DEVICE = Fast(kernel=_device_rnn_kernel, vjp=_device_rnn_vjp)
UNPACKED_DEVICE = Fast(kernel=functools.partial(unpacked_kernel, paths=DEVICE),
                       vjp=functools.partial(unpacked_vjp, paths=DEVICE), writes_dests=True)
