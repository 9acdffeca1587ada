"""Vision sampling operators of MXNet 1.9.1: GridGenerator, BilinearSampler and
SpatialTransformer (spatial transformer networks), Correlation (FlowNet's cost volume) and
khatri_rao (the column-wise Kronecker product). ROIPooling is with the other region
operators, in `roi`.

Images are (N, C, H, W); sampling grids are (N, 2, H_out, W_out) with x then y in [-1, 1]
(-1 the first pixel's centre, 1 the last's). Each operator's forward and gradient are written
side by side on the array module ``xp``.
"""
import numpy as np

from . import attrs as A
from .registry import ShapeError, register, Params


def _need(name, s, n, arg, what):
    if s is not None and len(s) != n:
        raise ShapeError(f"{name}: input {arg} must have shape {what}, got {tuple(s)}")


# ---- GridGenerator ------------------------------------------------------------------------------
def _base_grid(xp, h, w, dtype):
    """(3, h*w): normalized x, y and 1 of every target pixel, row by row."""
    xs = xp.linspace(-1.0, 1.0, w) if w > 1 else xp.full((1,), -1.0)
    ys = xp.linspace(-1.0, 1.0, h) if h > 1 else xp.full((1,), -1.0)
    gx, gy = xp.meshgrid(xs, ys)
    return xp.stack([gx.ravel(), gy.ravel(), xp.ones(h * w)]).astype(dtype)


def _grid_shape(p, ins):
    d = ins[0]
    name = "GridGenerator"
    if d is None:
        return ins, [None]
    if p.transform_type == "affine":
        _need(name, d, 2, "data", "(batch, 6) for transform_type='affine'")
        if d[1] != 6:
            raise ShapeError(f"{name}: affine data must have 6 parameters per sample, got "
                             f"shape {tuple(d)}")
        h, w = p.target_shape
        if h <= 0 or w <= 0:
            raise ShapeError(f"{name}: transform_type='affine' needs a positive target_shape, "
                             f"got {tuple(p.target_shape)}")
        return ins, [(d[0], 2, h, w)]
    _need(name, d, 4, "data", "(batch, 2, height, width) for transform_type='warp'")
    if d[1] != 2:
        raise ShapeError(f"{name}: warp data (a flow field) must have 2 channels, got shape "
                         f"{tuple(d)}")
    return ins, [tuple(d)]


def _grid(p, rc, data):
    """GridGenerator(data, transform_type, target_shape=(0, 0)): a sampling grid (N, 2, H,
    W) for BilinearSampler. 'affine': data (N, 6) holds 2x3 matrices applied to the target
    pixels' normalized (x, y, 1); 'warp': data (N, 2, H, W) is a flow in pixels added to each
    pixel's position, then normalized."""
    xp = rc.xp
    if p.transform_type == "affine":
        h, w = p.target_shape
        base = _base_grid(xp, h, w, data.dtype)
        return (data.reshape(-1, 2, 3) @ base).reshape(data.shape[0], 2, h, w)
    n, _, h, w = data.shape
    ys, xs = xp.meshgrid(xp.arange(h, dtype=data.dtype), xp.arange(w, dtype=data.dtype),
                         indexing="ij")
    scale = xp.asarray([max(w - 1, 1) / 2.0, max(h - 1, 1) / 2.0], dtype=data.dtype)
    return (data + xp.stack([xs, ys])[None]) / scale[None, :, None, None] - 1


def _grid_vjp(p, rc, xs, ys, gys, need):
    xp, data, g = rc.xp, xs[0], gys[0]
    if p.transform_type == "affine":
        h, w = p.target_shape
        base = _base_grid(xp, h, w, data.dtype)
        return ((g.reshape(-1, 2, h * w) @ base.T).reshape(data.shape),)
    h, w = data.shape[2:]
    scale = xp.asarray([max(w - 1, 1) / 2.0, max(h - 1, 1) / 2.0], dtype=data.dtype)
    return (g / scale[None, :, None, None],)


register("GridGenerator", attrs={"transform_type": A.Enum("affine", "warp"),
                                 "target_shape": A.Shape((0, 0))},
         shape=_grid_shape, vjp=_grid_vjp)(_grid)


# ---- BilinearSampler ----------------------------------------------------------------------------
def _corners(xp, data, grid):
    """The four neighbours of every sampling point: a list of (values (N, C, Ho, Wo), weight
    (N, Ho, Wo), d weight / d x, d weight / d y, flat index, valid), with x, y in pixels."""
    n, c, h, w = data.shape
    x = (grid[:, 0] + 1) * (w - 1) / 2
    y = (grid[:, 1] + 1) * (h - 1) / 2
    x0, y0 = xp.floor(x), xp.floor(y)
    fx, fy = x - x0, y - y0
    x0, y0 = x0.astype(np.int64), y0.astype(np.int64)
    flat = data.reshape(n, c, h * w)
    out = []
    for dy, dx in ((0, 0), (0, 1), (1, 0), (1, 1)):
        xi, yi = x0 + dx, y0 + dy
        valid = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
        idx = xp.where(valid, yi * w + xi, 0)
        wx = fx if dx else 1 - fx
        wy = fy if dy else 1 - fy
        v = xp.take_along_axis(flat, idx.reshape(n, 1, -1), axis=2).reshape(
            (n, c) + idx.shape[1:]) * valid[:, None]
        out.append((v, wx * wy, (1 if dx else -1) * wy, (1 if dy else -1) * wx, idx, valid))
    return out


def _sampler_shape(p, ins):
    d, g = ins
    name = "BilinearSampler"
    _need(name, d, 4, "data", "(batch, channels, height, width)")
    _need(name, g, 4, "grid", "(batch, 2, out_height, out_width)")
    if d is None or g is None:
        return ins, [None]
    if g[1] != 2 or g[0] != d[0]:
        raise ShapeError(f"{name}: grid must have shape (batch={d[0]}, 2, out_height, "
                         f"out_width), got {tuple(g)}")
    return ins, [(d[0], d[1], g[2], g[3])]


def _sample(p, rc, data, grid):
    """BilinearSampler(data, grid, cudnn_off=None): data sampled bilinearly at the grid's
    points (x, y in [-1, 1]); neighbours outside the image count as zero."""
    out = 0
    for v, wgt, _, _, _, _ in _corners(rc.xp, data, grid):
        out = out + v * wgt[:, None]
    return out.astype(data.dtype, copy=False)


def _sample_vjp(p, rc, xs, ys, gys, need):
    xp, (data, grid), g = rc.xp, xs, gys[0]
    n, c, h, w = data.shape
    gd = xp.zeros((n, c, h * w), dtype=data.dtype)
    gx = gy = 0
    for v, wgt, dwx, dwy, idx, valid in _corners(xp, data, grid):
        if need[0]:  # scatter-add: sampling points may share a neighbour
            contrib = (g * (wgt * valid)[:, None]).reshape(n, c, -1)
            rows = (xp.arange(n * c).reshape(n, c, 1) * (h * w)
                    + idx.reshape(n, 1, -1))
            xp.add.at(gd.reshape(-1), rows.ravel(), contrib.ravel())
        s = (g * v).sum(axis=1)
        gx = gx + s * dwx
        gy = gy + s * dwy
    ggrid = xp.stack([gx * (w - 1) / 2, gy * (h - 1) / 2], axis=1).astype(grid.dtype) \
        if need[1] else None
    return (gd.reshape(data.shape) if need[0] else None), ggrid


register("BilinearSampler", inputs=("data", "grid"), attrs={"cudnn_off": A.Attr(
    lambda v: None if v in (None, "None") else A.Bool(False).parse(v), None)},
    shape=_sampler_shape, vjp=_sample_vjp)(_sample)


# ---- SpatialTransformer: the two above, composed -------------------------------------------------
def _st_params(p):
    return Params(transform_type="affine", target_shape=tuple(p.target_shape))


def _st_shape(p, ins):
    d, loc = ins
    name = "SpatialTransformer"
    _need(name, d, 4, "data", "(batch, channels, height, width)")
    _need(name, loc, 2, "loc", "(batch, 6)")
    if loc is not None and loc[1] != 6:
        raise ShapeError(f"{name}: loc must hold 6 affine parameters per sample, got shape "
                         f"{tuple(loc)}")
    if d is None:
        return ins, [None]
    h, w = p.target_shape
    if h <= 0 or w <= 0:
        raise ShapeError(f"{name}: target_shape must be positive, got {tuple(p.target_shape)}")
    return [d, (d[0], 6)], [(d[0], d[1], h, w)]


def _st(p, rc, data, loc):
    """SpatialTransformer(data, loc, target_shape, transform_type='affine',
    sampler_type='bilinear', cudnn_off=None): data sampled bilinearly on the affine grid of
    target_shape that loc (N, 6) describes (GridGenerator then BilinearSampler)."""
    return _sample(p, rc, data, _grid(_st_params(p), rc, loc))


def _st_vjp(p, rc, xs, ys, gys, need):
    data, loc = xs
    gp = _st_params(p)
    grid = _grid(gp, rc, loc)
    gd, ggrid = _sample_vjp(p, rc, [data, grid], ys, gys, [need[0], need[1]])
    gl = _grid_vjp(gp, rc, [loc], [grid], [ggrid], [True])[0] if need[1] else None
    return gd, gl


register("SpatialTransformer", inputs=("data", "loc"),
         attrs={"target_shape": A.Shape((0, 0)), "transform_type": A.Enum("affine"),
                "sampler_type": A.Enum("bilinear"),
                "cudnn_off": A.Attr(lambda v: None if v in (None, "None")
                                    else A.Bool(False).parse(v), None)},
         shape=_st_shape, vjp=_st_vjp)(_st)


# ---- Correlation ---------------------------------------------------------------------------------
def _corr_geometry(p, shape):
    """(output height, width, neighbourhood radius, grid width) of Correlation."""
    h, w = shape[2] + 2 * p.pad_size, shape[3] + 2 * p.pad_size
    kr = (p.kernel_size - 1) // 2
    border = p.max_displacement + kr
    th = -(-(h - 2 * border) // p.stride1)
    tw = -(-(w - 2 * border) // p.stride1)
    r = p.max_displacement // p.stride2
    return th, tw, r, 2 * r + 1


def _corr_shape(p, ins):
    a, b = ins
    name = "Correlation"
    _need(name, a, 4, "data1", "(batch, channels, height, width)")
    _need(name, b, 4, "data2", "(batch, channels, height, width)")
    d = a if a is not None else b
    if a is not None and b is not None and tuple(a) != tuple(b):
        raise ShapeError(f"{name}: data1 and data2 must have one shape, got {tuple(a)} and "
                         f"{tuple(b)}")
    if p.kernel_size % 2 == 0:
        raise ShapeError(f"{name}: kernel_size must be odd, got {p.kernel_size}")
    if d is None:
        return ins, [None]
    th, tw, _, gw = _corr_geometry(p, d)
    if th < 1 or tw < 1:
        raise ShapeError(f"{name}: the images {tuple(d)} are too small for "
                         f"max_displacement={p.max_displacement} and kernel_size="
                         f"{p.kernel_size} (pad them with pad_size)")
    return [d, d], [(d[0], gw * gw, th, tw)]


def _corr_windows(p, shape):
    """Per output channel (dy, dx) displacement, and the rows/columns each output reads."""
    th, tw, r, gw = _corr_geometry(p, shape)
    rows = np.arange(th) * p.stride1 + p.max_displacement
    cols = np.arange(tw) * p.stride1 + p.max_displacement
    disp = [((i - r) * p.stride2, (j - r) * p.stride2) for i in range(gw) for j in range(gw)]
    return rows, cols, disp


def _pad(xp, x, pad):
    return xp.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad))) if pad else x


def _corr_pair(p, xp, a, b, dy, dx, rows, cols):
    """The (N, C, K, K, Th, Tw) windows of a and of b shifted by (dy, dx)."""
    k = p.kernel_size
    ri = xp.asarray(rows)[None, :, None] + xp.arange(k)[:, None, None]      # (k, Th, 1)
    ci = xp.asarray(cols)[None, None, :] + xp.arange(k)[:, None, None]      # (k, 1, Tw)
    wa = a[:, :, ri[:, None], ci[None]]                          # (N, C, k, k, Th, Tw)
    wb = b[:, :, ri[:, None] + dy, ci[None] + dx]
    return wa, wb, ri, ci


def _correlation(p, rc, a, b):
    """Correlation(data1, data2, kernel_size=1, max_displacement=1, stride1=1, stride2=1,
    pad_size=0, is_multiply=True): for every output position and every displacement of the
    (2 * max_displacement / stride2 + 1)**2 grid, the mean over channels and the kernel
    window of data1 * data2-displaced (or |data1 - data2-displaced| without is_multiply)."""
    xp = rc.xp
    ap, bp = _pad(xp, a, p.pad_size), _pad(xp, b, p.pad_size)
    rows, cols, disp = _corr_windows(p, a.shape)
    norm = p.kernel_size ** 2 * a.shape[1]
    outs = []
    for dy, dx in disp:
        wa, wb, _, _ = _corr_pair(p, xp, ap, bp, dy, dx, rows, cols)
        v = wa * wb if p.is_multiply else xp.abs(wa - wb)
        outs.append(v.sum(axis=(1, 2, 3)) / norm)
    return xp.stack(outs, axis=1).astype(a.dtype)


def _correlation_vjp(p, rc, xs, ys, gys, need):
    xp, (a, b), g = rc.xp, xs, gys[0]
    ap, bp = _pad(xp, a, p.pad_size), _pad(xp, b, p.pad_size)
    ga, gb = xp.zeros_like(ap), xp.zeros_like(bp)
    rows, cols, disp = _corr_windows(p, a.shape)
    norm = p.kernel_size ** 2 * a.shape[1]
    n, c = a.shape[:2]
    for ch, (dy, dx) in enumerate(disp):
        wa, wb, ri, ci = _corr_pair(p, xp, ap, bp, dy, dx, rows, cols)
        gc = (g[:, ch] / norm)[:, None, None, None]              # (N, 1, 1, 1, Th, Tw)
        if p.is_multiply:
            da, db = gc * wb, gc * wa
        else:
            s = xp.where(wa >= wb, 1.0, -1.0).astype(wa.dtype)  # ties count as +1, as MXNet's
            da, db = gc * s, -gc * s
        k = p.kernel_size
        rr = xp.broadcast_to(ri[:, None], (k, k) + ri.shape[1:2] + ci.shape[2:])
        cc = xp.broadcast_to(ci[None], rr.shape)
        hp, wp = ap.shape[2:]
        plane = xp.arange(n * c).reshape(n, c, 1, 1, 1, 1) * (hp * wp)
        xp.add.at(ga.reshape(-1), (plane + rr * wp + cc).ravel(), da.ravel())
        xp.add.at(gb.reshape(-1), (plane + (rr + dy) * wp + cc + dx).ravel(), db.ravel())
    sl = slice(p.pad_size, p.pad_size + a.shape[2]), slice(p.pad_size, p.pad_size + a.shape[3])
    return ga[:, :, sl[0], sl[1]], gb[:, :, sl[0], sl[1]]


register("Correlation", inputs=("data1", "data2"), outputs=1,
         attrs={"kernel_size": A.Int(1), "max_displacement": A.Int(1), "stride1": A.Int(1),
                "stride2": A.Int(1), "pad_size": A.Int(0), "is_multiply": A.Bool(True)},
         shape=_corr_shape, vjp=_correlation_vjp)(_correlation)


# ---- khatri_rao ----------------------------------------------------------------------------------
def _kr_shape(p, ins):
    known = [s for s in ins if s is not None]
    for s in known:
        if len(s) != 2:
            raise ShapeError(f"khatri_rao: every input must be a matrix, got shapes "
                             f"{[tuple(k) for k in known]}")
    if any(s[1] != known[0][1] for s in known):
        raise ShapeError(f"khatri_rao: every input must have the same number of columns, got "
                         f"shapes {[tuple(k) for k in known]}")
    if len(known) < len(ins):
        return ins, [None]
    return ins, [(int(np.prod([s[0] for s in ins])), ins[0][1])]


def _khatri_rao(p, rc, *mats):
    """khatri_rao(*args): the column-wise Kronecker product of matrices (m_i, n): column j of
    the (prod m_i, n) output is kron(args[0][:, j], args[1][:, j], ...)."""
    out = mats[0]
    for m in mats[1:]:
        out = (out[:, None, :] * m[None, :, :]).reshape(-1, m.shape[1])
    return out


def _khatri_rao_vjp(p, rc, xs, ys, gys, need):
    xp = rc.xp
    n = xs[0].shape[1]
    g = gys[0].reshape(tuple(x.shape[0] for x in xs) + (n,))
    grads = []
    letters = "abcdefghijklmnopqrstuvw"[:len(xs)]
    for i, x in enumerate(xs):
        if not need[i]:
            grads.append(None)
            continue
        others = [xs[j] for j in range(len(xs)) if j != i]
        spec = (letters + "z," + ",".join(letters[j] + "z" for j in range(len(xs)) if j != i)
                + "->" + letters[i] + "z")
        grads.append(xp.einsum(spec, g, *others))
    return tuple(grads)


register("khatri_rao", variadic="num_args", attrs={"num_args": A.Int()},
         shape=_kr_shape, vjp=_khatri_rao_vjp)(_khatri_rao)
