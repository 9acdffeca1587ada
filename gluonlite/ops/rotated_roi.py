"""Rotated ROIAlign, MXNet 1.9.1's ``contrib.RROIAlign`` (Ma et al. 2018, rotation region
proposals for text detection).

A region is a row (batch index, center x, center y, width, height, angle in degrees), scaled
by spatial_scale onto the feature map. Its pooled_size bins are laid out on the unrotated
box around the origin, each sampled on a regular grid; every sample is then rotated by the
angle about the box's center and read bilinearly, and a bin averages its samples.

The regions are taken in groups sharing one sampling grid (most share a few), and each
group's samples are computed at once, as arrays (sample, region, bin row, bin column). The
values are read channels-last, so one gathered index brings every channel. The samples of a
bin are summed one after another (`sequential_sum`), in MXNet's order and the data's
precision, so that float32 results round as MXNet's loop does.

MXNet registers no gradient for it (a backward through it raises there); none is registered
here, so no gradient flows back through it.
"""
import numpy as np

from . import attrs as A
from .registry import ShapeError, register

__all__ = ["compute_dtype", "sequential_sum"]

_NAME = "_contrib_RROIAlign"
_BLOCK = 1 << 22  # gathered values per block of regions (bounds the temporaries)


def _host(rc, a):
    return a if rc.xp is np else rc.xp.asnumpy(a)


def _device(rc, a):
    return a if rc.xp is np else rc.xp.asarray(a)


def _pooled(p):
    s = tuple(p.pooled_size)
    if len(s) != 2 or min(s) <= 0:
        square = f"; for square bins give pooled_size=({s[0]}, {s[0]})" \
            if len(s) == 1 and s[0] > 0 else ""
        raise ShapeError(f"{_NAME}: pooled_size must be (height, width), two positive integers, "
                         f"got {s}{square}")
    return s


def _check_attrs(p):
    ph, pw = _pooled(p)
    if not 0.0 <= p.spatial_scale <= 1.0:
        raise ShapeError(f"{_NAME}: spatial_scale must be in [0, 1] (feature map size over "
                         f"image size), got {p.spatial_scale}")
    return ph, pw


def _shape(p, ins):
    d, rois = ins
    ph, pw = _check_attrs(p)
    if d is not None and len(d) != 4:
        raise ShapeError(f"{_NAME}: data must have shape (batch, channels, height, width), got "
                         f"{tuple(d)}")
    if rois is not None and (len(rois) != 2 or rois[1] != 6):
        raise ShapeError(f"{_NAME}: rois must have shape (num_rois, 6) (batch index, center x, "
                         f"center y, width, height, angle in degrees), got {tuple(rois)}")
    if d is None or rois is None:
        return ins, [None]
    return ins, [(rois[0], d[1], ph, pw)]


def compute_dtype(name, dtype):
    """The dtype a region pooling computes in for data of `dtype`: float64 for float64, float32
    for float32 and float16 (rounded to float16 once, at the end).

    Raises:
        TypeError: `dtype` is not floating point (the message starts with operator `name`).

    Example::

        from gluonlite.ops.rotated_roi import compute_dtype
        compute_dtype("RROIAlign", "float16")      # dtype('float32')
    """
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        raise TypeError(f"{name}: data must be floating point (float16, float32 or float64), "
                        f"got {dtype.name}")
    return np.dtype(np.float64) if dtype == np.float64 else np.dtype(np.float32)


def _dtype(p, ins):
    d = next((t for t in ins if t is not None), None)
    if d is not None:
        compute_dtype(_NAME, d)
    return [d if t is None else t for t in ins], [d]


def _regions(p, rois, dt):
    """Per region, in dtype dt and MXNet's rounding order: the center (cx, cy), the bin size
    (bh, bw), the unrotated box's top-left corner relative to the center (sy, sx), cos and
    sin of the angle, and the sampling grid (gh, gw) per bin."""
    ph, pw = _pooled(p)
    r = rois.astype(dt)
    scale = dt.type(np.float32(p.spatial_scale))
    cx, cy = r[:, 1] * scale, r[:, 2] * scale
    w = np.maximum(r[:, 3] * scale, dt.type(1))  # a region under one cell counts as one
    h = np.maximum(r[:, 4] * scale, dt.type(1))
    theta = (rois[:, 5].astype(np.float64) * np.pi / 180.0).astype(dt)
    # cos and sin of the rounded angle, correctly rounded to dt
    cos, sin = (np.cos(theta.astype(np.float64)).astype(dt),
                np.sin(theta.astype(np.float64)).astype(dt))
    bh, bw = h / dt.type(ph), w / dt.type(pw)
    if p.sampling_ratio > 0:
        gh = gw = np.full(len(r), p.sampling_ratio, np.int64)
    else:
        gh = np.ceil(h / dt.type(ph)).astype(np.int64)
        gw = np.ceil(w / dt.type(pw)).astype(np.int64)
    return cx, cy, bh, bw, -h / dt.type(2), -w / dt.type(2), cos, sin, gh, gw


def sequential_sum(a):
    """a.sum(axis=0), adding a[0], a[1], ... one after another into each result, as a C loop
    does: numpy adds that way along any axis but the fastest in memory, where it sums in
    pairs instead (np.sum's notes); a C-contiguous `a` with one value per row is that case.

    Example::

        from gluonlite.ops.rotated_roi import sequential_sum
        a = np.array([[1e8], [1.0], [-1e8]], np.float32)
        sequential_sum(a)           # array([0.], dtype=float32): (1e8 + 1) rounds to 1e8
    """
    a = np.ascontiguousarray(a)
    if a[0].size > 1:
        return np.add.reduce(a, axis=0)
    return np.add.accumulate(a, axis=0)[-1]


def _groups(gh, gw, per_region):
    """Index arrays of regions sharing one sampling grid (gh, gw), in blocks whose values
    (`per_region` each, times the grid's samples) stay within _BLOCK; one region at least."""
    order = np.lexsort((gw, gh))
    edges = np.flatnonzero(np.diff(gh[order]) | np.diff(gw[order])) + 1
    out = []
    for ids in np.split(order, edges):
        step = max(1, _BLOCK // int(gh[ids[0]] * gw[ids[0]] * per_region))
        out += [ids[k:k + step] for k in range(0, len(ids), step)]
    return out


def _taps(y, x, H, W):
    """The four cells and weights of bilinear samples at (y, x) (any shape), as MXNet reads
    them: a sample outside [-1, H] x [-1, W] weighs 0 (at cell 0); coordinates below 0 read
    0; a sample on or past the last row or column reads that row or column only. A NaN
    coordinate (a NaN in rois) reads NaN."""
    dt = y.dtype
    lost = np.isnan(y) | np.isnan(x)
    outside = (y < -1) | (y > H) | (x < -1) | (x > W) | lost
    y = np.where(outside | (y <= 0), dt.type(0), y)
    x = np.where(outside | (x <= 0), dt.type(0), x)
    y0, x0 = y.astype(np.int64), x.astype(np.int64)
    edge_y, edge_x = y0 >= H - 1, x0 >= W - 1
    y0, x0 = np.where(edge_y, H - 1, y0), np.where(edge_x, W - 1, x0)
    y1, x1 = np.where(edge_y, y0, y0 + 1), np.where(edge_x, x0, x0 + 1)
    ly = np.where(edge_y, dt.type(0), y - y0.astype(dt))
    lx = np.where(edge_x, dt.type(0), x - x0.astype(dt))
    hy, hx = dt.type(1) - ly, dt.type(1) - lx
    keep = ~outside
    idx = (y0 * W + x0, y0 * W + x1, y1 * W + x0, y1 * W + x1)
    wts = tuple(np.where(lost, dt.type(np.nan), w * keep)
                for w in (hy * hx, hy * lx, ly * hx, ly * lx))
    return tuple(i * keep for i in idx), wts


def _samples(reg, ids, pooled, H, W):
    """The bilinear taps of regions `ids`, which share one sampling grid: four (cell, weight)
    pairs per sample, shaped (sample, region, bin row, bin column), samples row-major."""
    ph, pw = pooled
    cx, cy, bh, bw, sy, sx, cos, sin, gh, gw = (a[ids] for a in reg)
    dt = cx.dtype
    Gh, Gw = int(gh[0]), int(gw[0])

    def per_region(a):  # (region,) -> broadcast against (grid row, grid col, region, i, j)
        return a[None, None, :, None, None]
    iy = np.arange(Gh, dtype=dt)[:, None, None, None, None]
    ix = np.arange(Gw, dtype=dt)[None, :, None, None, None]
    i = np.arange(ph, dtype=dt)[None, None, None, :, None]
    j = np.arange(pw, dtype=dt)[None, None, None, None, :]
    half = dt.type(0.5)
    yy = (per_region(sy) + i * per_region(bh)) + \
        (iy + half) * per_region(bh) / dt.type(Gh)
    xx = (per_region(sx) + j * per_region(bw)) + \
        (ix + half) * per_region(bw) / dt.type(Gw)
    c, s = per_region(cos), per_region(sin)
    x = (xx * c + yy * s) + per_region(cx)
    y = (yy * c - xx * s) + per_region(cy)
    shape = (Gh * Gw, len(ids), ph, pw)
    idx, wts = _taps(y, x, H, W)
    return tuple(a.reshape(shape) for a in idx), tuple(a.reshape(shape) for a in wts)


def _pool(rows, b, HW, idx, wts):
    """Pooled values (region, C, ph, pw) from channels-last data rows (N * H * W, C) at the
    taps of `_samples` of regions in batches `b`."""
    at = b[None, :, None, None] * HW
    val = None
    for k in range(4):  # the four corners, added in MXNet's order
        term = rows.take(at + idx[k], axis=0)                    # (sample, R, ph, pw, C)
        term *= wts[k][..., None]
        if val is None:
            val = term
        else:
            val += term
    total = sequential_sum(val)  # one sample after another, as MXNet adds them
    total /= total.dtype.type(len(val))
    return total.transpose(0, 3, 1, 2)


@register(_NAME, inputs=("data", "rois"), nondiff=("rois",), same_dtype=("data", "rois"),
          attrs={"pooled_size": A.Shape(), "spatial_scale": A.Float(),
                 "sampling_ratio": A.Int(-1)},
          shape=_shape, dtype=_dtype)
def _rroi_align(p, rc, data, rois):
    """RROIAlign(data, rois, pooled_size, spatial_scale, sampling_ratio=-1): ROIAlign over
    rotated regions. rois rows are (batch index, center x, center y, width, height, angle in
    degrees) in input coordinates; the first four scale by spatial_scale (in [0, 1]), and a
    width or height under one cell counts as one. pooled_size (height, width) bins each
    average a grid of sampling_ratio x sampling_ratio bilinear samples (ceil(region height /
    bins) x ceil(region width / bins) when sampling_ratio <= 0). Per region, with
    ``t = angle * pi / 180`` and ``bh, bw = height / ph, width / pw``, output bin (i, j)
    of channel c is::

        for iy, ix in grid:                         # row-major
            yy = -height / 2 + i * bh + (iy + 0.5) * bh / gh
            xx = -width / 2 + j * bw + (ix + 0.5) * bw / gw
            x = xx * cos(t) + yy * sin(t) + cx
            y = yy * cos(t) - xx * sin(t) + cy
            total += bilinear(data[b, c], y, x)     # 0 outside [-1, H] x [-1, W]
        out[r, c, i, j] = total / (gh * gw)

    Output (num_rois, C, ph, pw), in data's dtype (rois must share it; float16 computes in
    float32). A region with a negative batch index pools to zeros; one past the batch is an
    error. There is no gradient, as in MXNet (whose backward raises; here none flows).
    """
    ph, pw = _check_attrs(p)
    x = _host(rc, data)
    r = _host(rc, rois)
    dt = compute_dtype(_NAME, x.dtype)
    N, C, H, W = x.shape
    b = r[:, 0].astype(np.int64)  # truncated toward zero, as C++ casts it
    if (b >= N).any():
        k = int(np.nonzero(b >= N)[0][0])
        raise ValueError(f"{_NAME}: rois[{k}] has batch index {r[k, 0]} but data has a batch "
                         f"of {N}")
    out = np.zeros((len(r), C, ph, pw), dt)
    if len(r) and C and H and W:
        reg = _regions(p, r, dt)
        rows = np.ascontiguousarray(x.astype(dt, copy=False).reshape(N, C, H * W)
                                    .transpose(0, 2, 1)).reshape(N * H * W, C)
        gh, gw = reg[-2], reg[-1]
        bins = ph * pw
        for ids in _groups(gh, gw, bins * C):
            idx, wts = _samples(reg, ids, (ph, pw), H, W)
            # channels in slices when even one region is over the budget (a huge grid)
            step = max(1, _BLOCK // (len(idx[0]) * len(ids) * bins))
            for c0 in range(0, C, step):
                out[ids, c0:c0 + step] = _pool(rows[:, c0:c0 + step], np.maximum(b[ids], 0),
                                               H * W, idx, wts)
        out[b < 0] = 0  # padding rows
    return _device(rc, out.astype(x.dtype, copy=False))
