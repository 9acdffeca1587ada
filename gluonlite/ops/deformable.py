"""Deformable convolutions of MXNet 1.9.1's ``contrib``: `DeformableConvolution` (DCN v1,
Dai et al. 2017) and `ModulatedDeformableConvolution` (DCN v2, Zhu et al. 2019, which
GluonCV's CenterNet uses through ``gluon.contrib.cnn``).

A deformable convolution is a convolution whose kernel taps read the input at learned
fractional offsets: tap (i, j) of output cell (y, x) reads data bilinearly at
``(y * stride - pad + i * dilate + offset_y, x * stride - pad + j * dilate + offset_x)``,
one offset pair per deformable group, tap and cell (and, in v2, times a learned mask). The
taps form the columns of an im2col matrix, and one matrix product with the weight gives the
output, as in MXNet.

The two versions differ only at the border, and both rules live in one table (`_SAMPLING`):

* v1 samples only points inside ``[0, H) x [0, W)``; a point on the last row or column
  reads that row or column (no interpolation across the edge);
* v2 samples points inside ``(-1, H) x (-1, W)``, treating cells outside the image as 0.

Gradients go to data, offset, mask, weight and bias; each is the derivative of the forward
rule (the offset's is the bilinear weight's slope), as MXNet's kernels compute them.
"""
from collections import namedtuple

import numpy as np

from . import attrs as A
from .conv import conv_geom
from .registry import ShapeError, register

__all__ = []

_CHUNK = 1 << 22  # gathered values per block of output cells (bounds the temporaries)


def _corners_v1(h, w, H, W):
    dt = h.dtype
    valid = (h >= 0) & (w >= 0) & (h < H) & (w < W)
    hs, ws = np.where(valid, h, dt.type(0)), np.where(valid, w, dt.type(0))
    h0, w0 = np.floor(hs).astype(np.int64), np.floor(ws).astype(np.int64)
    edge_h, edge_w = h0 >= H - 1, w0 >= W - 1
    h0, w0 = np.where(edge_h, H - 1, h0), np.where(edge_w, W - 1, w0)
    h1, w1 = np.where(edge_h, h0, h0 + 1), np.where(edge_w, w0, w0 + 1)
    lh = np.where(edge_h, dt.type(0), hs - h0.astype(dt))
    lw = np.where(edge_w, dt.type(0), ws - w0.astype(dt))
    ok = valid.astype(dt)
    return (h0, w0, h1, w1), (lh, lw), (ok, ok, ok, ok)


def _corners_v2(h, w, H, W):
    dt = h.dtype
    valid = (h > -1) & (w > -1) & (h < H) & (w < W)
    hs, ws = np.where(valid, h, dt.type(0)), np.where(valid, w, dt.type(0))
    h0, w0 = np.floor(hs).astype(np.int64), np.floor(ws).astype(np.int64)
    h1, w1 = h0 + 1, w0 + 1
    lh, lw = hs - h0.astype(dt), ws - w0.astype(dt)
    rows = (h0 >= 0, h1 <= H - 1)
    cols = (w0 >= 0, w1 <= W - 1)
    ok = tuple((valid & rows[a] & cols[b]).astype(dt) for a, b in ((0, 0), (0, 1), (1, 0),
                                                                   (1, 1)))
    return (np.clip(h0, 0, H - 1), np.clip(w0, 0, W - 1), np.clip(h1, 0, H - 1),
            np.clip(w1, 0, W - 1)), (lh, lw), ok


_SAMPLING = {"v1": _corners_v1, "v2": _corners_v2}

# idx: 4 flat indices (top-left, top-right, bottom-left, bottom-right); w: their bilinear
# weights (0 where not read); dh, dw: each corner's coefficient in the slope along y and x
Taps = namedtuple("Taps", ["idx", "w", "dh", "dw"])
Taps.__doc__ = """The four corners a deformable sampling point reads, with their weights.

Example::

    from gluonlite.ops.deformable import Taps
    t = Taps(idx=np.arange(4), w=np.full(4, 0.25), dh=None, dw=None)
    t.w.sum()           # 1.0: bilinear weights sum to one inside the image
"""


def _taps(version, h, w, H, W):
    (h0, w0, h1, w1), (lh, lw), ok = _SAMPLING[version](h, w, H, W)
    one = h.dtype.type(1)
    hh, hw = one - lh, one - lw
    idx = (h0 * W + w0, h0 * W + w1, h1 * W + w0, h1 * W + w1)
    wts = (hh * hw, hh * lw, lh * hw, lh * lw)
    dh = (-hw, -lw, hw, lw)
    dw = (-hh, hh, -lh, lh)
    return Taps(idx, tuple(a * o for a, o in zip(wts, ok)), tuple(a * o for a, o in zip(dh, ok)),
                tuple(a * o for a, o in zip(dw, ok)))


def _positions(p, geom, offset):
    """Sampling points (dg, K, Ho, Wo) along y and x of one image's offsets (2 * dg * K, Ho,
    Wo): base position plus offset, in the offsets' dtype."""
    kh, kw = geom.kernel
    ho, wo = geom.out
    dt = offset.dtype
    off = offset.reshape(-1, kh * kw, 2, ho, wo)
    base_h = (np.arange(ho)[None, :] * geom.stride[0] - geom.pad[0]
              + np.arange(kh)[:, None] * geom.dilate[0])            # (kh, Ho)
    base_w = (np.arange(wo)[None, :] * geom.stride[1] - geom.pad[1]
              + np.arange(kw)[:, None] * geom.dilate[1])            # (kw, Wo)
    bh = np.broadcast_to(base_h[:, None, :, None], (kh, kw, ho, wo)).reshape(kh * kw, ho, wo)
    bw = np.broadcast_to(base_w[None, :, None, :], (kh, kw, ho, wo)).reshape(kh * kw, ho, wo)
    return bh.astype(dt) + off[:, :, 0], bw.astype(dt) + off[:, :, 1]


def _blocks(n_cells, per_cell):
    step = max(1, _CHUNK // max(per_cell, 1))
    return [slice(s, min(s + step, n_cells)) for s in range(0, n_cells, step)]


def _columns(version, p, geom, x, offset, mask):
    """The im2col matrix (C * K, L) of one image x (C, H, W), and what the gradient needs:
    per deformable group, the taps (over its K * L points) and the unmasked samples."""
    C, H, W = x.shape
    dg = p.num_deformable_group
    cg = C // dg
    K = geom.kernel[0] * geom.kernel[1]
    L = geom.out[0] * geom.out[1]
    ph, pw = _positions(p, geom, offset)
    flat = x.reshape(dg, cg, H * W)
    cols = np.empty((dg, cg, K * L), x.dtype)
    taps = []
    for g in range(dg):
        t = _taps(version, ph[g].reshape(-1), pw[g].reshape(-1), H, W)
        taps.append(t)
        for blk in _blocks(K * L, 4 * cg):
            acc = flat[g][:, t.idx[0][blk]] * t.w[0][blk]
            for c in range(1, 4):
                acc += flat[g][:, t.idx[c][blk]] * t.w[c][blk]
            cols[g, :, blk] = acc
    samples = cols.copy() if mask is not None else None
    if mask is not None:
        cols *= mask.reshape(dg, 1, K * L)
    return cols.reshape(C * K, L), taps, samples


def _group_matmul(w, cols, groups):
    """Grouped w (F, C/g * K) @ cols (C * K, L) -> (F, L)."""
    F = w.shape[0]
    wg = w.reshape(groups, F // groups, -1)
    cg = cols.reshape(groups, -1, cols.shape[-1])
    return np.matmul(wg, cg).reshape(F, -1)


def _forward(version, p, x, offset, weight, bias, mask=None):
    geom = conv_geom(_NAMES[version], p, x.shape[2:])
    N, F = x.shape[0], p.num_filter
    out = np.empty((N, F) + tuple(geom.out), x.dtype)
    w2 = weight.reshape(F, -1)
    for n in range(N):
        cols, _, _ = _columns(version, p, geom, x[n], offset[n],
                              None if mask is None else mask[n])
        out[n] = _group_matmul(w2, cols, p.num_group).reshape(F, *geom.out)
    if bias is not None:
        out += bias.reshape(1, F, 1, 1)
    return out


def _backward(version, p, x, offset, weight, g_out, mask=None):
    """Gradients of data, offset, weight (and mask) of one call."""
    geom = conv_geom(_NAMES[version], p, x.shape[2:])
    N, C, H, W = x.shape
    F, groups, dg = p.num_filter, p.num_group, p.num_deformable_group
    cg = C // dg
    K = geom.kernel[0] * geom.kernel[1]
    L = geom.out[0] * geom.out[1]
    w2 = weight.reshape(F, -1)
    wt = w2.reshape(groups, F // groups, -1).transpose(0, 2, 1)       # (g, C/g * K, F/g)
    gx, goff = np.zeros_like(x), np.zeros_like(offset)
    gw = np.zeros_like(w2)
    gmask = None if mask is None else np.zeros_like(mask)
    for n in range(N):
        m = None if mask is None else mask[n].reshape(dg, 1, K * L)
        cols, taps, samples = _columns(version, p, geom, x[n], offset[n],
                                       None if mask is None else mask[n])
        gy = g_out[n].reshape(groups, F // groups, L)
        gw += np.matmul(gy, cols.reshape(groups, -1, L).transpose(0, 2, 1)).reshape(F, -1)
        dcols = np.matmul(wt, gy).reshape(dg, cg, K * L)                 # (dg, C/dg, K * L)
        if m is not None:
            gmask[n] = (dcols * samples).sum(axis=1).reshape(mask.shape[1:])
            dcols = dcols * m
        flat = x[n].reshape(dg, cg, H * W)
        gflat = np.zeros((dg, cg * H * W))
        dh = np.zeros((dg, K * L), x.dtype)
        dw = np.zeros((dg, K * L), x.dtype)
        rows = (np.arange(cg) * (H * W))[:, None]
        for g in range(dg):
            t = taps[g]
            for blk in _blocks(K * L, 4 * cg):
                d = dcols[g][:, blk]
                for c in range(4):
                    dv = (d * flat[g][:, t.idx[c][blk]]).sum(axis=0)
                    dh[g, blk] += dv * t.dh[c][blk]
                    dw[g, blk] += dv * t.dw[c][blk]
                    gflat[g] += np.bincount((rows + t.idx[c][blk]).ravel(),
                                            (d * t.w[c][blk]).ravel().astype(np.float64),
                                            cg * H * W)
        gx[n] = gflat.reshape(C, H, W)
        goff[n] = np.stack([dh.reshape(dg, K, *geom.out), dw.reshape(dg, K, *geom.out)],
                           axis=2).reshape(offset.shape[1:])
    return gx, goff, gw.reshape(weight.shape), gmask


# ---- shapes ------------------------------------------------------------------------------------
_NAMES = {"v1": "_contrib_DeformableConvolution", "v2": "_contrib_ModulatedDeformableConvolution"}

_ATTRS = {"kernel": A.Shape(), "stride": A.Shape(()), "dilate": A.Shape(()), "pad": A.Shape(()),
          "num_filter": A.Int(), "num_group": A.Int(1), "num_deformable_group": A.Int(1),
          "workspace": A.Int(1024), "no_bias": A.Bool(False),
          "layout": A.Attr(lambda v: None if v in (None, "None", "") else str(v), None, "str")}


def _inputs(version):
    mid = ("offset", "mask") if version == "v2" else ("offset",)

    def names(p):
        return ("data",) + mid + (("weight",) if p.no_bias else ("weight", "bias"))
    return names


def _shape_rule(version):
    name = _NAMES[version]

    def rule(p, ins):
        d = ins[0]
        if p.layout not in (None, "NCHW"):
            raise ShapeError(f"{name}: only layout NCHW is supported, got layout={p.layout!r}")
        if len(p.kernel) != 2:
            raise ShapeError(f"{name}: kernel must be (height, width), got {tuple(p.kernel)}")
        for attr in ("num_filter", "num_group", "num_deformable_group"):
            if p[attr] <= 0:
                raise ShapeError(f"{name}: {attr}={p[attr]} must be positive")
        if d is None:
            return ins, [None]
        if len(d) != 4:
            raise ShapeError(f"{name}: data must be (batch, channels, height, width), got shape "
                             f"{tuple(d)}")
        c = d[1]
        if c % p.num_group or p.num_filter % p.num_group:
            raise ShapeError(f"{name}: num_group={p.num_group} must divide the input channels "
                             f"({c}) and num_filter ({p.num_filter})")
        if c % p.num_deformable_group:
            raise ShapeError(f"{name}: num_deformable_group={p.num_deformable_group} must "
                             f"divide the input channels ({c})")
        geom = conv_geom(name, p, d[2:])
        k = p.kernel[0] * p.kernel[1]
        want = [(d[0], 2 * p.num_deformable_group * k) + tuple(geom.out)]
        if version == "v2":
            want.append((d[0], p.num_deformable_group * k) + tuple(geom.out))
        want.append((p.num_filter, c // p.num_group) + tuple(p.kernel))
        if not p.no_bias:
            want.append((p.num_filter,))
        names = _inputs(version)(p)
        for i, (arg, shape) in enumerate(zip(names[1:], want), start=1):
            if ins[i] is not None and tuple(ins[i]) != shape:
                raise ShapeError(f"{name}: {arg} must have shape {shape} for data {tuple(d)}, "
                                 f"got {tuple(ins[i])}")
            ins[i] = shape
        return ins, [(d[0], p.num_filter) + tuple(geom.out)]
    return rule


def _register(version, doc):
    name = _NAMES[version]
    modulated = version == "v2"

    def kernel(p, rc, data, offset, *rest):
        host = (lambda a: a) if rc.xp is np else rc.xp.asnumpy
        mask = host(rest[0]) if modulated else None
        rest = rest[1:] if modulated else rest
        weight, bias = host(rest[0]), (host(rest[1]) if len(rest) > 1 else None)
        out = _forward(version, p, host(data), host(offset), weight, bias, mask)
        return out if rc.xp is np else rc.xp.asarray(out)

    def vjp(p, rc, xs, ys, gys, need):
        host = (lambda a: a) if rc.xp is np else rc.xp.asnumpy
        xs = [host(a) for a in xs]
        mask = xs[2] if modulated else None
        w_at = 3 if modulated else 2
        g = host(gys[0])
        gx, goff, gw, gmask = _backward(version, p, xs[0], xs[1], xs[w_at], g, mask)
        grads = [gx, goff] + ([gmask] if modulated else []) + [gw]
        if len(xs) > w_at + 1:
            grads.append(g.sum(axis=(0, 2, 3)))
        if rc.xp is not np:
            grads = [rc.xp.asarray(a) for a in grads]
        return tuple(grads)

    kernel.__doc__ = doc
    sig = ("data", "offset") + (("mask",) if modulated else ()) + ("weight", "bias")
    attrs = dict(_ATTRS, im2col_step=A.Int(64)) if modulated else _ATTRS
    register(name, inputs=_inputs(version), signature=sig, attrs=attrs,
             shape=_shape_rule(version), vjp=vjp)(kernel)


_register("v1", """DeformableConvolution(data, offset, weight, bias=None, kernel, num_filter,
    stride=(), dilate=(), pad=(), num_group=1, num_deformable_group=1, workspace=1024,
    no_bias=False, layout=None): a 2-D convolution (NCHW) whose tap (i, j) at output cell
    (y, x) reads data bilinearly at its regular position plus an offset: offset (N, 2 *
    num_deformable_group * kh * kw, Ho, Wo) holds (dy, dx) per deformable group (which
    splits the channels), tap and cell. Points outside [0, H) x [0, W) read 0. weight (F,
    C / num_group, kh, kw); bias (F,). Output (N, F, Ho, Wo), Ho and Wo as Convolution's.

    Example: with offset all zeros it is ``nd.Convolution`` with the same arguments.""")
_register("v2", """ModulatedDeformableConvolution(data, offset, mask, weight, bias=None,
    kernel, num_filter, stride=(), dilate=(), pad=(), num_group=1, num_deformable_group=1,
    workspace=1024, no_bias=False, im2col_step=64, layout=None): DeformableConvolution (DCN
    v2) whose samples are also multiplied by mask (N, num_deformable_group * kh * kw, Ho,
    Wo); points inside (-1, H) x (-1, W) are sampled with the cells outside the image read as
    0. im2col_step (a batching hint) does not change the numbers.

    Example: with offset 0 and mask 1 it is ``nd.Convolution``.""")
