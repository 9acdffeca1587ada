"""Deformable position-sensitive ROI pooling, MXNet 1.9.1's
``contrib.DeformablePSROIPooling`` (deformable R-FCN, Dai et al. 2017).

Like `PSROIPooling`, each region (rois rows: batch index, x1, y1, x2, y2) is cut into
pooled_size x pooled_size bins, and bin (i, j) of output channel c reads its own input
channel ``(c * group_size + gi) * group_size + gj``. Unlike it, a bin averages
sample_per_part x sample_per_part bilinear samples rather than whole cells, and the bin is
shifted by a learned offset: ``trans`` (num_rois, 2 * num_classes, part_size, part_size)
holds (dx, dy) per class and part, in units of the region's size times trans_std. Output
channels split evenly among the classes.

Every sample of a block of regions is computed at once, as arrays (sample row, sample
column, output channel, bin row, bin column, region): regions last, so that the reads (and
the gradient's writes) of one channel plane come together. A bin's samples are summed one
after another (`gluonlite.ops.rotated_roi.sequential_sum`), in MXNet's order and the data's
precision, so float32 results round as MXNet's loop does. The operator's hidden second
output, ``top_count``, counts each bin's samples inside the map (a bin with none gives 0).

The gradient goes to data and trans (rois get none), as MXNet's: data's spreads each bin's
gradient over its samples' four cells; trans's is the bilinear value's slope at each sample
(0 where a sample is clamped to the border or lies on a cell's edge), times the region's
size and trans_std.
"""
from collections import namedtuple

import numpy as np

from . import attrs as A
from .registry import ShapeError, register
from .rotated_roi import compute_dtype, sequential_sum

__all__ = []

_NAME = "_contrib_DeformablePSROIPooling"
_BLOCK = 1 << 20  # samples per block of regions (each has ~20 temporaries of this size)


def _host(rc, a):
    return a if rc.xp is np else rc.xp.asnumpy(a)


def _device(rc, a):
    return a if rc.xp is np else rc.xp.asarray(a)


def _part(p):
    return p.part_size if p.part_size > 0 else p.pooled_size


def _check_attrs(p):
    for attr in ("output_dim", "group_size", "pooled_size", "sample_per_part"):
        if p[attr] <= 0:
            raise ShapeError(f"{_NAME}: {attr} must be a positive integer, got {p[attr]}")
    if p.part_size < 0:
        raise ShapeError(f"{_NAME}: part_size must be positive (or 0 for pooled_size), got "
                         f"{p.part_size}")
    for attr, what in (("spatial_scale", "feature map size over image size"),
                       ("trans_std", "the scale of trans")):
        if not 0.0 <= p[attr] <= 1.0:
            raise ShapeError(f"{_NAME}: {attr} must be in [0, 1] ({what}), got {p[attr]}")


def _shape(p, ins):
    _check_attrs(p)
    d, rois = ins[0], ins[1]
    trans = None if p.no_trans else ins[2]
    if d is not None:
        if len(d) != 4:
            raise ShapeError(f"{_NAME}: data must have shape (batch, channels, height, width), "
                             f"got {tuple(d)}")
        need = p.output_dim * p.group_size ** 2
        if d[1] < need:
            raise ShapeError(f"{_NAME}: data needs output_dim * group_size**2 = "
                             f"{p.output_dim} * {p.group_size}**2 = {need} channels, got "
                             f"{d[1]}; pass the output_dim and group_size the data was made "
                             "for")
    if rois is not None and (len(rois) != 2 or rois[1] != 5):
        raise ShapeError(f"{_NAME}: rois must have shape (num_rois, 5) (batch index, x1, y1, "
                         f"x2, y2), got {tuple(rois)}")
    if trans is not None:
        part = _part(p)
        nc = trans[1] // 2 if len(trans) == 4 else 0
        if len(trans) != 4 or trans[1] % 2 or nc == 0 or tuple(trans[2:]) != (part, part) \
                or (rois is not None and trans[0] != rois[0]):
            rows = "num_rois" if rois is None else rois[0]
            raise ShapeError(f"{_NAME}: trans must have shape ({rows}, 2 * num_classes, "
                             f"part_size, part_size) with part_size={part}, got "
                             f"{tuple(trans)}")
        if p.output_dim % nc:
            raise ShapeError(f"{_NAME}: trans holds offsets for {nc} classes, which must "
                             f"divide output_dim={p.output_dim}")
    n = rois[0] if rois is not None else (trans[0] if trans is not None else None)
    if n is None:
        return ins, [None, None]
    out = (n, p.output_dim, p.pooled_size, p.pooled_size)
    return ins, [out, out]


def _dtype(p, ins):
    d = next((t for t in ins if t is not None), None)
    if d is not None:
        compute_dtype(_NAME, d)
    return [d if t is None else t for t in ins], [d, d]


# The samples of a block of regions, each array shaped (sample row, sample column, output
# channel, bin row, bin column, region) or broadcastable to it (regions last: the reads of one
# channel plane come together and stay in cache): where each sample reads (flat indices into
# data of its four cells: (y0, x0), (y1, x0), (y0, x1), (y1, x1)), its fractions (dy, dx)
# inside the cell, whether it lies inside the map; per bin the count of such samples; per
# region its size (for trans's gradient) and where its offsets sit in trans.
Samples = namedtuple("Samples", ["idx", "dy", "dx", "valid", "count", "size_h", "size_w",
                                 "trans_at"])
Samples.__doc__ = """The bilinear samples of a block of regions (see `_samples`).

Example::

    from gluonlite.ops.deformable_psroi import Samples
    Samples._fields[:4]     # ('idx', 'dy', 'dx', 'valid')
"""


def _regions(p, rois, dt):
    """Per region, in dtype dt and MXNet's rounding order: its top-left corner (y, x), its
    size (h, w) and its bins' size (bh, bw). Corners round half away from zero, as C does."""
    scale = dt.type(np.float32(p.spatial_scale))
    half = dt.type(0.5)
    r = rois.astype(dt)
    rnd = np.sign(r[:, 1:5]) * np.floor(np.abs(r[:, 1:5]) + half)
    x0, y0 = rnd[:, 0] * scale - half, rnd[:, 1] * scale - half
    x1 = (rnd[:, 2].astype(np.float64) + 1.0).astype(dt) * scale - half
    y1 = (rnd[:, 3].astype(np.float64) + 1.0).astype(dt) * scale - half
    w = np.maximum(x1 - x0, dt.type(0.1))  # a region under a tenth of a cell counts as one
    h = np.maximum(y1 - y0, dt.type(0.1))
    k = dt.type(p.pooled_size)
    return y0, x0, h, w, h / k, w / k


def _bins(p, dt):
    """Per bin row (or column): its group (which input channel it reads) and its part
    (which offset moves it)."""
    k = p.pooled_size
    i = np.arange(k, dtype=dt)
    group = np.floor(i * dt.type(p.group_size) / dt.type(k)).astype(np.int64)
    part = np.floor(i / dt.type(k) * dt.type(_part(p))).astype(np.int64)
    return np.clip(group, 0, p.group_size - 1), part


def _samples(p, shape, reg, b, trans, sl, dt):
    """The `Samples` of the regions in slice `sl` (batch indices `b`, clipped to the batch)."""
    N, C, H, W = shape
    D, k, s = p.output_dim, p.pooled_size, p.sample_per_part
    y0, x0, h, w, bh, bw = (a[sl] for a in reg)
    group, part = _bins(p, dt)
    ctop = np.arange(D)
    nc = 1 if trans is None else trans.shape[1] // 2
    cls = ctop // (D // nc)

    def region(a):  # (region,) -> (channel, bin row, bin column, region)
        return a[None, None, None, :]
    ii = np.arange(k, dtype=dt)[None, :, None, None]
    jj = np.arange(k, dtype=dt)[None, None, :, None]
    hstart = ii * region(bh) + region(y0)
    wstart = jj * region(bw) + region(x0)
    trans_at = None
    if trans is not None:
        std = dt.type(np.float32(p.trans_std))
        t = trans[sl].astype(dt, copy=False)
        rows = region(np.arange(sl.stop - sl.start))
        ph, pw = part[None, :, None, None], part[None, None, :, None]
        at_x = (2 * cls)[:, None, None, None]
        wstart = wstart + (t[rows, at_x, ph, pw] * std) * region(w)
        hstart = hstart + (t[rows, at_x + 1, ph, pw] * std) * region(h)
        trans_at = (rows, at_x, ph, pw)
    ih = np.arange(s, dtype=dt)[:, None, None, None, None, None]
    iw = np.arange(s, dtype=dt)[None, :, None, None, None, None]
    hh = hstart[None, None] + ih * (region(bh) / dt.type(s))[None, None]
    ww = wstart[None, None] + iw * (region(bw) / dt.type(s))[None, None]
    valid = ~((ww < -0.5) | (ww > W - 0.5) | (hh < -0.5) | (hh > H - 0.5))
    lost = np.isnan(hh) | np.isnan(ww)  # a NaN offset: the sample counts, and reads NaN
    if lost.any():
        hh, ww = np.where(lost, dt.type(0), hh), np.where(lost, dt.type(0), ww)
    hh = np.clip(hh, dt.type(0), dt.type(H - 1))
    ww = np.clip(ww, dt.type(0), dt.type(W - 1))
    fy, fx = np.floor(hh), np.floor(ww)
    if lost.any():
        fy = np.where(lost, dt.type(np.nan), fy)
    ya, xa = np.nan_to_num(fy).astype(np.int64), fx.astype(np.int64)
    yb, xb = np.ceil(hh).astype(np.int64), np.ceil(ww).astype(np.int64)
    chan = (ctop[:, None, None] * p.group_size + group[None, :, None]) * p.group_size + \
        group[None, None, :]                                           # (D, k, k)
    base = ((region(b[sl]) * C + chan[..., None]) * H * W)[None, None]
    idx = (base + ya * W + xa, base + yb * W + xa, base + ya * W + xb, base + yb * W + xb)
    count = np.broadcast_to(valid.sum(axis=(0, 1)), (D, k, k, sl.stop - sl.start))
    return Samples(idx, hh - fy, ww - fx, valid, count, h, w, trans_at)


def _batch(rois, N):
    b = rois[:, 0].astype(np.int64)  # truncated toward zero, as C++ casts it
    if (b >= N).any():
        k = int(np.nonzero(b >= N)[0][0])
        raise ValueError(f"{_NAME}: rois[{k}] has batch index {rois[k, 0]} but data has a "
                         f"batch of {N}")
    return b


def _blocks(p, n):
    """Slices of the n regions, each within _BLOCK samples (one region at least)."""
    per = p.output_dim * p.pooled_size ** 2 * p.sample_per_part ** 2
    step = max(1, _BLOCK // per)
    return [slice(s, min(s + step, n)) for s in range(0, n, step)]


def _weights(sm):
    """The four cells' bilinear weights, in MXNet's rounding."""
    one = sm.dx.dtype.type(1)
    return ((one - sm.dx) * (one - sm.dy), (one - sm.dx) * sm.dy, sm.dx * (one - sm.dy),
            sm.dx * sm.dy)


@register(_NAME, inputs=lambda p: ("data", "rois") if p.no_trans else ("data", "rois", "trans"),
          signature=("data", "rois", "trans"), outputs=2, visible=1, output_names=("output",),
          nondiff=("rois",), same_dtype=("data", "rois", "trans"),
          attrs={"spatial_scale": A.Float(), "output_dim": A.Int(), "group_size": A.Int(),
                 "pooled_size": A.Int(), "part_size": A.Int(0), "sample_per_part": A.Int(1),
                 "trans_std": A.Float(0.0), "no_trans": A.Bool(False)},
          shape=_shape, dtype=_dtype,
          vjp=lambda p, rc, xs, ys, gys, need: _vjp(p, rc, xs, gys[0], need))
def _deformable_psroi_pooling(p, rc, data, rois, trans=None):
    """DeformablePSROIPooling(data, rois, trans, spatial_scale, output_dim, group_size,
    pooled_size, part_size=0, sample_per_part=1, trans_std=0, no_trans=False): deformable
    R-FCN's position-sensitive pooling. Each region (rois rows: batch index, x1, y1, x2, y2;
    corners rounded, the far ones plus one, times spatial_scale, minus half a cell) is cut
    into pooled_size x pooled_size bins; bin (i, j) of output channel c (class ``c //
    (output_dim / num_classes)``) is moved by the region's size times trans_std times
    trans[r, 2 * class + (0 for x, 1 for y), pi, pj] (part pi = floor(i / pooled_size *
    part_size); part_size 0 means pooled_size), and averages the bilinear samples::

        for sy, sx in grid(sample_per_part):        # row-major
            y = top + i * bh + dy + sy * bh / sample_per_part
            x = left + j * bw + dx + sx * bw / sample_per_part
            if -0.5 <= y <= H - 0.5 and -0.5 <= x <= W - 0.5:   # else skipped
                total += bilinear(data[b, (c * g + gi) * g + gj], clip(y), clip(x))
                count += 1
        out[r, c, i, j] = total / count if count else 0

    where (top, left) is the region's scaled corner, bh and bw its bins' size, (dx, dy) the
    bin's shift, g = group_size and (gi, gj) = floor((i, j) * g / pooled_size). data needs at least
    output_dim * group_size**2 channels; trans is (num_rois, 2 * num_classes, part_size,
    part_size), num_classes dividing output_dim, and is left out with no_trans=True. Output
    (num_rois, output_dim, pooled_size, pooled_size) in data's dtype (rois and trans share it;
    float16 computes in float32); the hidden second output, top_count, is count. A region
    with a negative batch index pools to zeros. The gradient goes to data and trans.
    """
    x = _host(rc, data)
    r = _host(rc, rois)
    t = None if p.no_trans else _host(rc, trans)
    dt = compute_dtype(_NAME, x.dtype)
    N, C, H, W = x.shape
    b = _batch(r, N)
    D, k = p.output_dim, p.pooled_size
    out = np.zeros((len(r), D, k, k), dt)
    count = np.zeros((len(r), D, k, k), dt)
    if len(r) and H and W:
        flat = x.astype(dt, copy=False).reshape(-1)
        reg = _regions(p, r, dt)
        for sl in _blocks(p, len(r)):
            sm = _samples(p, x.shape, reg, np.maximum(b, 0), t, sl, dt)
            val = None
            for wk, ik in zip(_weights(sm), sm.idx):  # the four cells, in MXNet's order
                term = wk * flat.take(ik)
                val = term if val is None else val + term
            val = np.where(sm.valid, val, dt.type(0)).reshape((-1,) + val.shape[2:])
            total = sequential_sum(val)  # one sample after another, as MXNet adds them
            n = sm.count.astype(dt)
            with np.errstate(invalid="ignore", divide="ignore"):
                out[sl] = np.where(sm.count > 0, total / n, dt.type(0)).transpose(3, 0, 1, 2)
            count[sl] = n.transpose(3, 0, 1, 2)
        out[b < 0] = 0  # padding rows
        count[b < 0] = 0
    return _device(rc, out.astype(x.dtype, copy=False)), \
        _device(rc, count.astype(x.dtype, copy=False))


def _scatter(total, idx, val):
    """total[i] += the sum of val where idx == i (float64; idx and val of one shape)."""
    total += np.bincount(idx.ravel(), np.ravel(val), total.size)


def _vjp(p, rc, xs, g, need):
    """Gradients of data and trans (None for rois), from the output's gradient g."""
    no_trans = p.no_trans
    want_data = need[0]
    want_trans = not no_trans and len(need) > 2 and need[2]
    if g is None or not (want_data or want_trans):
        return (None,) * len(xs)
    x, r = _host(rc, xs[0]), _host(rc, xs[1])
    t = None if no_trans else _host(rc, xs[2])
    g = _host(rc, g)
    dt = compute_dtype(_NAME, x.dtype)
    N, C, H, W = x.shape
    b = _batch(r, N)
    gx = np.zeros(x.size) if want_data else None
    gt = np.zeros(t.size) if want_trans else None
    zero = dt.type(0)
    if len(r) and H and W:
        flat = x.astype(dt, copy=False).reshape(-1)
        reg = _regions(p, r, dt)
        std = dt.type(np.float32(p.trans_std))
        for sl in _blocks(p, len(r)):
            sm = _samples(p, x.shape, reg, np.maximum(b, 0), t, sl, dt)
            keep = sm.valid & (b[sl] >= 0)
            with np.errstate(invalid="ignore", divide="ignore"):
                per = np.where(sm.count > 0, g[sl].transpose(1, 2, 3, 0).astype(dt)
                               / sm.count.astype(dt), zero)  # each sample's share
            if want_data:
                for wk, ik in zip(_weights(sm), sm.idx):
                    _scatter(gx, ik, np.broadcast_to(np.where(keep, wk * per, zero), ik.shape))
            if want_trans:  # trans has a class per output channel: the arrays are whole
                u00, u01, u10, u11 = (flat.take(ik) for ik in sm.idx)
                one = dt.type(1)
                dy, dx = sm.dy, sm.dx
                slope_x = u11 * dy + u10 * (one - dy) - u01 * dy - u00 * (one - dy)
                slope_y = u11 * dx + u01 * (one - dx) - u10 * dx - u00 * (one - dx)
                rows, at_x, ph, pw = sm.trans_at
                n_t = t.shape[1:]
                at = ((sl.start + rows) * n_t[0] + at_x) * (n_t[1] * n_t[2]) + ph * n_t[2] + pw
                at = np.broadcast_to(at, keep.shape)
                step = n_t[1] * n_t[2]  # from a class's x offset to its y offset
                region = (None,) * 3 + (slice(None),)
                _scatter(gt, at, np.where(keep, slope_x * ((std * per) * sm.size_w[region]),
                                          zero))
                _scatter(gt, at + step,
                         np.where(keep, slope_y * ((std * per) * sm.size_h[region]), zero))
    grads = [None if gx is None else _device(rc, gx.reshape(x.shape).astype(x.dtype)),
             None]
    if not no_trans:
        grads.append(None if gt is None else
                     _device(rc, gt.reshape(t.shape).astype(t.dtype)))
    return tuple(grads)
