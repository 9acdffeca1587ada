"""Pooling of regions of interest, as MXNet 1.9.1 has it: `ROIPooling` (Fast R-CNN's max
pooling), `ROIAlign` (Mask R-CNN's bilinear pooling, GluonCV's default for Faster R-CNN) and
`PSROIPooling` (R-FCN's position-sensitive average pooling).

Both take rois (num_rois, 5) rows (batch index, x1, y1, x2, y2) in input-image coordinates,
scaled by spatial_scale onto the feature map.

ROIPooling takes each region's maxima a column window then a row window at a time
(``np.maximum.reduceat`` over all channels and bins at once), and finds the first maximum of
each bin, in MXNet's row-major scan order, for the gradient.

ROIAlign is separable: each output bin averages bilinear samples, and a sample's weight is a
product of a weight along y and one along x. Its weights are built for every region at once
as two small matrices per region (bins x rows, bins x columns), and a region's pooling is two
matrix products over the rows and columns it touches. PSROIPooling sums rectangles of the
feature map through an integral image (cumulative sums in float64), and its gradient spreads
through a difference image, so neither runs a Python loop over bins.
"""
import numpy as np

from . import attrs as A
from .registry import ShapeError, register

__all__ = []


def _host(rc, a):
    return a if rc.xp is np else rc.xp.asnumpy(a)


def _device(rc, a):
    return a if rc.xp is np else rc.xp.asarray(a)


def _pooled(p, name):
    s = tuple(p.pooled_size)
    if len(s) == 1:
        s = s * 2
    if len(s) != 2 or min(s) <= 0:
        raise ShapeError(f"{name}: pooled_size must be one or two positive integers, got "
                         f"{tuple(p.pooled_size)}")
    return s


def _rois_check(name, rois):
    if rois is not None and (len(rois) != 2 or rois[1] != 5):
        raise ShapeError(f"{name}: rois must have shape (num_rois, 5) (batch index, x1, y1, "
                         f"x2, y2), got {tuple(rois)}")


def _data_check(name, d):
    if d is not None and len(d) != 4:
        raise ShapeError(f"{name}: data must have shape (batch, channels, height, width), got "
                         f"{tuple(d)}")


# ---- ROIPooling ----------------------------------------------------------------------------------
_POOL = "ROIPooling"


def _pool_shape(p, ins):
    d, rois = ins
    _data_check(_POOL, d)
    _rois_check(_POOL, rois)
    if len(p.pooled_size) != 2 or min(p.pooled_size) <= 0:
        raise ShapeError(f"{_POOL}: pooled_size must be (height, width), two positive integers, "
                         f"got {tuple(p.pooled_size)}")
    if d is None or rois is None:
        return ins, [None, None]
    out = (rois[0], d[1]) + tuple(p.pooled_size)
    return ins, [out, out]


def _pool_bins(p, shape, rois):
    """Per region: its batch index (-1 when out of range) and its bins' row and column
    windows [start, end), as MXNet's kernel computes them (bin sizes in the rois' dtype)."""
    ph, pw = p.pooled_size
    N, _, H, W = shape
    dt = rois.dtype if rois.dtype.kind == "f" else np.dtype(np.float32)
    r = rois.astype(dt, copy=False)
    scale = dt.type(np.float32(p.spatial_scale))

    def rnd(v):  # std::round: halves away from zero
        return (np.sign(v) * np.floor(np.abs(v) + dt.type(0.5))).astype(np.int64)
    x0, y0, x1, y1 = (rnd(r[:, k] * scale) for k in range(1, 5))
    bh = np.maximum(y1 - y0 + 1, 1).astype(dt) / dt.type(ph)
    bw = np.maximum(x1 - x0 + 1, 1).astype(dt) / dt.type(pw)

    def windows(start, size, bins, limit):
        i = np.arange(bins, dtype=dt)[None, :]
        lo = np.floor(i * size[:, None]).astype(np.int64) + start[:, None]
        hi = np.ceil((i + 1) * size[:, None]).astype(np.int64) + start[:, None]
        return np.clip(lo, 0, limit), np.clip(hi, 0, limit)
    b = r[:, 0].astype(np.int64)
    b = np.where((b < 0) | (b >= N), -1, b)
    return b, windows(y0, bh, ph, H), windows(x0, bw, pw, W)


def _window_scan(x, lo, hi, axis, lowest, first=None, track=True):
    """MXNet's scan of windows [lo[k], hi[k]) of `axis` (0 or 1) of x (h, w, C), all windows
    at once: a value replaces the running maximum (from `lowest`) only when greater, so the
    first maximum wins and NaN (cleaned to -inf beforehand) never does. Returns the maxima
    and, with `track`, their positions (-1 where nothing beat `lowest`), len(lo) in place of
    that axis; `first` (positions along the other axis, shaped like x) is carried along."""
    width = int((hi - lo).max())
    shape = list(x.shape)
    shape[axis] = len(lo)
    best = np.full(shape, lowest, x.dtype)
    pos = np.full(shape, -1, np.int32) if track else None
    other = None if first is None else np.full(shape, -1, np.int32)
    for o in range(width):
        at = np.minimum(lo + o, hi - 1)  # a shorter window rereads its last entry: no change
        v = np.take(x, at, axis=axis)
        if track:
            better = v > best
            where = (at[:, None, None] if axis == 0 else at[None, :, None]).astype(np.int32)
            pos += better * (where - pos)  # arithmetic: a select on a random mask is slower
            if first is not None:
                other += better * (np.take(first, at, axis=axis) - other)
        np.maximum(best, v, out=best)
    return best, pos, other


def _pool_regions(p, x, rois, track):
    """Per region k with any bin: (k, batch index, bin rows, bin columns, maxima (ph', pw',
    C)) and, with `track`, each maximum's flat position in its (H, W) plane."""
    dt = x.dtype
    W = x.shape[3]
    lowest = np.finfo(dt).min if dt.kind == "f" else np.iinfo(dt).min
    clean = np.where(np.isnan(x), dt.type(-np.inf), x) if dt.kind == "f" and \
        np.isnan(x).any() else x
    # channels last: a window's maximum is then taken over contiguous rows of channels
    xt = np.ascontiguousarray(clean.transpose(0, 2, 3, 1))
    b, (hs, he), (ws, we) = _pool_bins(p, x.shape, rois)
    for r in range(len(rois)):
        rows_ok, cols_ok = he[r] > hs[r], we[r] > ws[r]
        if b[r] < 0 or not rows_ok.any() or not cols_ok.any():
            continue
        y0, y1 = hs[r][rows_ok].min(), he[r][rows_ok].max()
        x0, x1 = ws[r][cols_ok].min(), we[r][cols_ok].max()
        crop = xt[b[r], y0:y1, x0:x1]  # (h, w, C)
        cv, cp, _ = _window_scan(crop, ws[r][cols_ok] - x0, we[r][cols_ok] - x0, 1, lowest,
                                 track=track)
        rv, rp, col = _window_scan(cv, hs[r][rows_ok] - y0, he[r][rows_ok] - y0, 0, lowest,
                                   first=cp, track=track)
        flat = ((rp + y0) * W + col + x0) * (rp >= 0) - (rp < 0) if track else None
        yield r, b[r], np.flatnonzero(rows_ok), np.flatnonzero(cols_ok), rv, flat


@register(_POOL, inputs=("data", "rois"), nondiff=("rois",), same_dtype=("data",),
          attrs={"pooled_size": A.Shape(), "spatial_scale": A.Float()}, shape=_pool_shape,
          vjp=lambda p, rc, xs, ys, gys, need: (_pool_vjp(p, rc, xs, gys[0]), None))
def _roi_pooling(p, rc, data, rois):
    """ROIPooling(data, rois, pooled_size, spatial_scale): max pooling of each region of
    interest (rois rows: batch index, x1, y1, x2, y2, times spatial_scale and rounded; a
    region under one cell counts as one) into pooled_size (height, width) bins; an empty bin,
    or a region whose batch index is out of range, gives 0. The maximum skips NaN and values
    at or below -FLT_MAX (a bin of only those gives -FLT_MAX), as MXNet's scan does. Output
    (num_rois, C, ph, pw); the gradient goes to each bin's first maximum (row-major scan).
    """
    x = _host(rc, data)
    ph, pw = p.pooled_size
    out = np.zeros((rois.shape[0], x.shape[1], ph, pw), x.dtype)
    for r, _, iy, ix, vals, _ in _pool_regions(p, x, _host(rc, rois), track=False):
        if len(iy) == ph and len(ix) == pw:
            out[r] = vals.transpose(2, 0, 1)
        else:
            out[r][:, iy[:, None], ix[None, :]] = vals.transpose(2, 0, 1)
    return _device(rc, out)


def _pool_vjp(p, rc, xs, g):
    """The gradient: each bin's output gradient added at its first maximum (positions found
    again by the same scan), summed through one bincount per group of regions."""
    data, rois = xs
    x, g = _host(rc, data), _host(rc, g)
    N, C, H, W = x.shape
    gd = np.zeros(N * C * H * W)
    idx, val, held = [], [], 0
    ph, pw = p.pooled_size
    for r, b, iy, ix, _, flat in _pool_regions(p, x, _host(rc, rois), track=True):
        full = len(iy) == ph and len(ix) == pw
        gr = g[r] if full else g[r][:, iy[:, None], ix[None, :]]  # (C, ph', pw')
        where = flat.transpose(2, 0, 1)
        # a bin without a maximum (-1) adds its gradient times 0, anywhere in the plane
        idx.append(((b * C + np.arange(C)) * (H * W))[:, None, None] + np.maximum(where, 0))
        val.append(gr * (where >= 0))
        held += gr.size
        if held > 1 << 22:  # bounded temporaries
            gd += np.bincount(np.concatenate([i.ravel() for i in idx]),
                              np.concatenate([v.ravel() for v in val]), gd.size)
            idx, val, held = [], [], 0
    if idx:
        gd += np.bincount(np.concatenate([i.ravel() for i in idx]),
                          np.concatenate([v.ravel() for v in val]), gd.size)
    return _device(rc, gd.reshape(x.shape).astype(x.dtype))


# ---- ROIAlign ------------------------------------------------------------------------------------
_ALIGN = "_contrib_ROIAlign"


def _align_shape(p, ins):
    d, rois = ins
    _data_check(_ALIGN, d)
    _rois_check(_ALIGN, rois)
    if d is None or rois is None:
        return ins, [None]
    ph, pw = _pooled(p, _ALIGN)
    c = d[1]
    if p.position_sensitive:
        if c % (ph * pw):
            raise ShapeError(f"{_ALIGN}: with position_sensitive the channels ({c}) must be "
                             f"divisible by pooled height * width ({ph * pw})")
        c //= ph * pw
    return ins, [(rois[0], c, ph, pw)]


def _axis_weights(start, bin_size, grid, pooled, size):
    """(R, pooled, size) weights along one axis: bin i of region r averages its grid[r]
    bilinear samples ``start + i * bin + (s + 0.5) * bin / grid``, each spread over its two
    neighbouring cells (samples outside [-1, size] weigh 0; edge samples clamp), in the
    regions' dtype and MXNet's rounding order."""
    dt = start.dtype
    R, G = start.shape[0], int(grid.max()) if grid.size else 1
    i = np.arange(pooled, dtype=dt)[None, :, None]
    s = np.arange(G, dtype=dt)[None, None, :]
    b = bin_size[:, None, None]
    pos = start[:, None, None] + i * b + (s + dt.type(0.5)) * b / grid[:, None, None].astype(dt)
    used = (np.arange(G)[None, None, :] < grid[:, None, None]) & ~(pos < -1) & ~(pos > size)
    pos = np.where(pos <= 0, dt.type(0), pos)
    low = np.where(used, pos, 0).astype(np.int64)
    edge = low >= size - 1
    low = np.where(edge, size - 1, low)
    high = np.where(edge, low, low + 1)
    frac = np.where(edge, dt.type(0), pos - low.astype(dt))
    w_low, w_high = (dt.type(1) - frac) * used, frac * used
    base = (np.arange(R)[:, None, None] * pooled + np.arange(pooled)[None, :, None]) * size
    n = R * pooled * size
    w = np.bincount((base + low).ravel(), w_low.ravel().astype(np.float64), n) + \
        np.bincount((base + high).ravel(), w_high.ravel().astype(np.float64), n)
    return (w.reshape(R, pooled, size) / grid[:, None, None]).astype(dt)


def _align_plan(p, shape, rois):
    """Per region: (batch index, y weights (ph, H), x weights (pw, W)), with each region's
    weights cropped to the rows and columns they touch: (b, y0, wy, x0, wx)."""
    ph, pw = _pooled(p, _ALIGN)
    H, W = shape[2:]
    dt = np.dtype(rois.dtype) if rois.dtype.kind == "f" else np.dtype(np.float32)
    r = rois.astype(dt, copy=False)
    off = dt.type(0.5) if p.aligned else dt.type(0)
    scale = dt.type(np.float32(p.spatial_scale))
    x0, y0, x1, y1 = (r[:, k] * scale - off for k in range(1, 5))
    rw, rh = x1 - x0, y1 - y0
    if p.aligned:
        if not ((rw > 0) & (rh > 0)).all():
            bad = int(np.nonzero(~((rw > 0) & (rh > 0)))[0][0])
            raise ShapeError(f"{_ALIGN}: with aligned=True every region needs a positive width "
                             f"and height; rois[{bad}] = {rois[bad].tolist()}")
    else:
        rw, rh = np.maximum(rw, dt.type(1)), np.maximum(rh, dt.type(1))
    bh, bw = rh / dt.type(ph), rw / dt.type(pw)
    if p.sample_ratio > 0:
        gh = gw = np.full(len(r), p.sample_ratio)
    else:
        gh = np.maximum(np.ceil(rh / dt.type(ph)).astype(np.int64), 1)
        gw = np.maximum(np.ceil(rw / dt.type(pw)).astype(np.int64), 1)
    wy = _axis_weights(y0, bh, gh, ph, H)
    wx = _axis_weights(x0, bw, gw, pw, W)
    plan = []
    for k in range(len(r)):
        b = int(r[k, 0])
        ys = np.nonzero(wy[k].any(axis=0))[0]
        xs = np.nonzero(wx[k].any(axis=0))[0]
        if b < 0 or not ys.size or not xs.size:  # a negative batch index marks padding
            plan.append(None)
            continue
        ya, yb, xa, xb = ys[0], ys[-1] + 1, xs[0], xs[-1] + 1
        plan.append((b, ya, yb, wy[k, :, ya:yb], xa, xb, wx[k, :, xa:xb]))
    return plan


def _ps_index(c_out, ph, pw):
    """Position-sensitive read: output channel c of bin (i, j) is input channel
    c * ph * pw + i * pw + j."""
    return (np.arange(c_out)[:, None, None] * ph * pw + np.arange(ph)[None, :, None] * pw
            + np.arange(pw)[None, None, :])


def _pool_region(data, b, ya, yb, wy, xa, xb, wx):
    """wy @ data[b, :, ya:yb, xa:xb] @ wx.T for every channel: (C, ph, pw), as two matrix
    products (one over rows, one over columns)."""
    crop = data[b, :, ya:yb, xa:xb]
    c, h, w = crop.shape
    rows = wy.astype(data.dtype) @ crop.transpose(1, 0, 2).reshape(h, c * w)   # (ph, C * w)
    out = rows.reshape(-1, w) @ wx.astype(data.dtype).T                       # (ph * C, pw)
    return out.reshape(wy.shape[0], c, -1).transpose(1, 0, 2)


@register(_ALIGN, inputs=("data", "rois"), nondiff=("rois",), same_dtype=("data",),
          attrs={"pooled_size": A.Shape(), "spatial_scale": A.Float(),
                 "sample_ratio": A.Int(-1), "position_sensitive": A.Bool(False),
                 "aligned": A.Bool(False)},
          shape=_align_shape,
          vjp=lambda p, rc, xs, ys, gys, need: (_align_vjp(p, rc, xs, gys[0]), None))
def _roi_align(p, rc, data, rois):
    """ROIAlign(data, rois, pooled_size, spatial_scale, sample_ratio=-1,
    position_sensitive=False, aligned=False): each region of interest (rois rows: batch
    index, x1, y1, x2, y2 in input coordinates, times spatial_scale) pooled from data (N, C,
    H, W) to pooled_size (one integer for a square) by averaging bilinear samples:
    sample_ratio per bin side (adaptive, ceil(region size / bins), when <= 0). Regions
    narrower than one cell count as one cell, unless aligned, which also shifts coordinates
    by half a cell (then every region must have a positive size). position_sensitive reads
    bin (i, j) of output channel c from input channel c * ph * pw + i * pw + j (C must divide
    by ph * pw). A region with a negative batch index pools to zeros. Output (num_rois, C,
    ph, pw); the gradient flows to data.

    Example: GluonCV's Faster R-CNN calls ``F.contrib.ROIAlign(feat, rois, (14, 14),
    1 / 16., sample_ratio=2)``."""
    ph, pw = _pooled(p, _ALIGN)
    x = _host(rc, data)
    c_out = x.shape[1] // (ph * pw) if p.position_sensitive else x.shape[1]
    out = np.zeros((rois.shape[0], c_out, ph, pw), x.dtype)
    ps = _ps_index(c_out, ph, pw) if p.position_sensitive else None
    for k, step in enumerate(_align_plan(p, x.shape, _host(rc, rois))):
        if step is None:
            continue
        full = _pool_region(x, *step)
        out[k] = full[ps, np.arange(ph)[:, None], np.arange(pw)] if ps is not None else full
    return _device(rc, out)


def _align_vjp(p, rc, xs, g):
    data, rois = xs
    ph, pw = _pooled(p, _ALIGN)
    x, g = _host(rc, data), _host(rc, g)
    gd = np.zeros_like(x)
    c = x.shape[1]
    ps = _ps_index(c // (ph * pw), ph, pw) if p.position_sensitive else None
    for k, step in enumerate(_align_plan(p, x.shape, _host(rc, rois))):
        if step is None:
            continue
        b, ya, yb, wy, xa, xb, wx = step
        gk = g[k]
        if ps is not None:
            full = np.zeros((c, ph, pw), x.dtype)
            full[ps, np.arange(ph)[:, None], np.arange(pw)] = gk
            gk = full
        cols = gk.reshape(-1, pw) @ wx.astype(x.dtype)                       # (C * ph, w)
        h, w = yb - ya, xb - xa
        rows = wy.astype(x.dtype).T @ cols.reshape(c, ph, w).transpose(1, 0, 2).reshape(ph, -1)
        gd[b, :, ya:yb, xa:xb] += rows.reshape(h, c, w).transpose(1, 0, 2)
    return _device(rc, gd)


# ---- PSROIPooling --------------------------------------------------------------------------------
_PS = "_contrib_PSROIPooling"


def _ps_group(p):
    return p.group_size if p.group_size > 0 else p.pooled_size


def _ps_shape(p, ins):
    d, rois = ins
    _data_check(_PS, d)
    _rois_check(_PS, rois)
    if p.pooled_size <= 0 or p.output_dim <= 0:
        raise ShapeError(f"{_PS}: pooled_size and output_dim must be positive, got "
                         f"pooled_size={p.pooled_size}, output_dim={p.output_dim}")
    g = _ps_group(p)
    if d is not None and d[1] < p.output_dim * g * g:
        raise ShapeError(f"{_PS}: data needs output_dim * group_size**2 = "
                         f"{p.output_dim * g * g} channels, got {d[1]}")
    if rois is None:
        return ins, [None]
    return ins, [(rois[0], p.output_dim, p.pooled_size, p.pooled_size)]


def _ps_bins(p, shape, rois):
    """Per region and bin: the rectangle [hs, he) x [ws, we) it averages, the input channel
    each (output channel, bin) reads, as MXNet's kernel rounds them."""
    H, W = shape[2:]
    dt = rois.dtype if rois.dtype.kind == "f" else np.dtype(np.float32)
    k = p.pooled_size
    g = _ps_group(p)
    r = rois.astype(dt, copy=False)
    scale = dt.type(np.float32(p.spatial_scale))

    def rnd(v):  # C's round: halves away from zero
        return (np.sign(v) * np.floor(np.abs(v) + dt.type(0.5))).astype(dt)
    x0, y0 = rnd(r[:, 1]) * scale, rnd(r[:, 2]) * scale
    x1 = (rnd(r[:, 3]).astype(np.float64) + 1.0).astype(dt) * scale
    y1 = (rnd(r[:, 4]).astype(np.float64) + 1.0).astype(dt) * scale
    rw = np.maximum(x1 - x0, dt.type(0.1))
    rh = np.maximum(y1 - y0, dt.type(0.1))
    bh, bw = rh / dt.type(k), rw / dt.type(k)
    i = np.arange(k, dtype=dt)[None, :]
    hs = np.floor(i * bh[:, None] + y0[:, None]).astype(np.int64)
    he = np.ceil((i + 1) * bh[:, None] + y0[:, None]).astype(np.int64)
    ws = np.floor(i * bw[:, None] + x0[:, None]).astype(np.int64)
    we = np.ceil((i + 1) * bw[:, None] + x0[:, None]).astype(np.int64)
    hs, he = np.clip(hs, 0, H), np.clip(he, 0, H)
    ws, we = np.clip(ws, 0, W), np.clip(we, 0, W)
    gi = np.clip(np.floor(np.arange(k, dtype=dt) * dt.type(g) / dt.type(k)).astype(np.int64),
                 0, g - 1)
    chan = (np.arange(p.output_dim)[:, None, None] * g + gi[None, :, None]) * g + \
        gi[None, None, :]
    return r[:, 0].astype(np.int64), hs, he, ws, we, chan


@register(_PS, inputs=("data", "rois"), nondiff=("rois",), same_dtype=("data",),
          attrs={"spatial_scale": A.Float(), "output_dim": A.Int(), "pooled_size": A.Int(),
                 "group_size": A.Int(0)},
          shape=_ps_shape,
          vjp=lambda p, rc, xs, ys, gys, need: (_ps_vjp(p, rc, xs, gys[0]), None))
def _psroi_pooling(p, rc, data, rois):
    """PSROIPooling(data, rois, spatial_scale, output_dim, pooled_size, group_size=0):
    R-FCN's position-sensitive pooling: each region (rois rows: batch index, x1, y1, x2, y2,
    rounded, times spatial_scale) is cut into pooled_size x pooled_size bins, and bin (i, j)
    of output channel c averages input channel (c * g + gi) * g + gj over its cells, where
    g = group_size (pooled_size when 0) and gi, gj are the bin's group; empty bins give 0.
    Output (num_rois, output_dim, pooled_size, pooled_size); the gradient flows to data.
    """
    x = _host(rc, data)
    b, hs, he, ws, we, chan = _ps_bins(p, x.shape, _host(rc, rois))
    N, C, H, W = x.shape
    # an integral image: integral[..., y, x] is the sum of x[..., :y, :x], in float64
    integral = np.zeros((N, C, H + 1, W + 1))
    np.cumsum(x, axis=2, dtype=np.float64, out=integral[:, :, 1:, 1:])
    np.cumsum(integral[:, :, 1:, 1:], axis=3, out=integral[:, :, 1:, 1:])
    flat = integral.reshape(-1)
    # indices ordered (channel, bin, region): the reads of one channel plane come together
    # and stay in cache, instead of jumping between planes region by region
    plane = (np.clip(b, 0, N - 1)[None, None, None, :] * C + chan[..., None]) * (H + 1)
    h0, h1 = hs.T[None, :, None, :], he.T[None, :, None, :]
    w0, w1 = ws.T[None, None, :, :], we.T[None, None, :, :]
    top, bottom = (plane + h0) * (W + 1), (plane + h1) * (W + 1)
    total = flat.take(bottom + w1) - flat.take(top + w1) - flat.take(bottom + w0) + \
        flat.take(top + w0)
    area = (h1 - h0) * (w1 - w0)
    out = total.astype(x.dtype) / np.maximum(area, 1).astype(x.dtype)
    out *= area > 0  # empty bins give 0
    return _device(rc, np.ascontiguousarray(out.transpose(3, 0, 1, 2)))


def _ps_vjp(p, rc, xs, g):
    data, rois = xs
    x, g = _host(rc, data), _host(rc, g)
    N, C, H, W = x.shape
    b, hs, he, ws, we, chan = _ps_bins(p, x.shape, _host(rc, rois))
    h0, h1 = hs[:, None, :, None], he[:, None, :, None]
    w0, w1 = ws[:, None, None, :], we[:, None, None, :]
    area = ((h1 - h0) * (w1 - w0)).astype(x.dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        v = np.where(area > 0, g / area, np.zeros((), x.dtype)).astype(np.float64)
    # a difference image: +v at the rectangle's top-left and bottom-right corners, -v at the
    # other two; its 2-D cumulative sum is v over the rectangle
    plane = (np.clip(b, 0, N - 1)[:, None, None, None] * C + chan[None]) * (H + 1)
    shape = np.broadcast_shapes(plane.shape, h0.shape, w0.shape)
    idx, val = [], []
    for hh, ww, sign in ((h0, w0, 1), (h0, w1, -1), (h1, w0, -1), (h1, w1, 1)):
        idx.append(np.broadcast_to((plane + hh) * (W + 1) + ww, shape).ravel())
        val.append((sign * v).ravel())
    diff = np.bincount(np.concatenate(idx), np.concatenate(val), N * C * (H + 1) * (W + 1))
    diff = diff.reshape(N, C, H + 1, W + 1)
    gd = np.cumsum(np.cumsum(diff, axis=2), axis=3)[:, :, :H, :W]
    return _device(rc, gd.astype(x.dtype))
