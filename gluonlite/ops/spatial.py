"""Spatial resampling operators: Pad (constant, edge, reflect) and UpSampling (nearest,
bilinear).

Pad's gradient for edge and reflect padding sums each output position's gradient back into
the input entry it copies: the map from output to input is found once by padding the input's
own indices the same way.
"""

import numpy as np

from . import attrs as A
from .registry import register, ShapeError
from .conv import Geom, conv_data_grad, conv_forward, conv_weight_grad


# ---- Pad -------------------------------------------------------------------------------------
def _pad_widths(p, shape):
    nd = len(shape)
    pw = tuple(p.pad_width)
    if nd not in (4, 5):
        raise ShapeError(f"Pad: data must have 4 or 5 dimensions, got shape {tuple(shape)}")
    if len(pw) != 2 * nd:
        raise ShapeError(f"Pad: pad_width={pw} must have 2 * ndim = {2 * nd} entries for data "
                         f"{tuple(shape)}")
    if any(pw[:4]):
        raise ShapeError(f"Pad: pad_width={pw} must not pad the batch or channel axes (its "
                         "first 4 entries must be 0)")
    if any(w < 0 for w in pw):
        raise ShapeError(f"Pad: pad_width={pw} must not be negative")
    widths = tuple((pw[2 * i], pw[2 * i + 1]) for i in range(nd))
    if p.mode == "reflect":
        for i in range(2, nd):
            if max(widths[i]) >= shape[i]:
                raise ShapeError(f"Pad: mode='reflect' needs each pad smaller than the axis it "
                                 f"pads; pad_width={pw} on data {tuple(shape)} (axis {i})")
    return widths


def _pad_shape(p, ins):
    d = ins[0]
    if d is None:
        return ins, [None]
    w = _pad_widths(p, d)
    return ins, [tuple(s + a + b for s, (a, b) in zip(d, w))]


def _pad(p, rc, x):
    """Pad(data, mode='constant', pad_width, constant_value=0): data (4-D or 5-D) padded on its
    spatial axes; pad_width lists (before, after) per axis, the first two pairs 0. mode
    'constant' fills with constant_value, 'edge' repeats the border, 'reflect' mirrors
    without repeating it (numpy's 'reflect')."""
    w = _pad_widths(p, x.shape)
    if p.mode == "constant":
        return rc.xp.pad(x, w, mode="constant", constant_values=x.dtype.type(p.constant_value))
    return rc.xp.pad(x, w, mode=p.mode)


def _pad_vjp(p, rc, xs, ys, gys, need):
    xp = rc.xp
    x, g = xs[0], gys[0]
    w = _pad_widths(p, x.shape)
    if p.mode == "constant":
        crop = tuple(slice(a, a + s) for s, (a, _) in zip(x.shape, w))
        return (g[crop],)
    src = np.pad(np.arange(x.size).reshape(x.shape), w, mode=p.mode)
    gx = xp.bincount(xp.asarray(src.ravel()), weights=g.ravel().astype(np.float64),
                     minlength=x.size)
    return (gx.reshape(x.shape).astype(g.dtype),)


register("Pad", aliases=("pad",), shape=_pad_shape, vjp=_pad_vjp,
         attrs={"mode": A.Enum("constant", "edge", "reflect", default="constant"),
                "pad_width": A.Shape(), "constant_value": A.Float(0.0)})(_pad)


# ---- UpSampling --------------------------------------------------------------------------------
def _bilinear_geom(p, sp):
    """The Deconvolution MXNet's bilinear UpSampling is: kernel 2 * scale - scale % 2,
    stride scale, pad ceil((scale - 1) / 2), one group per channel."""
    s = p.scale
    k = 2 * s - s % 2
    pad = -(-(s - 1) // 2)
    return Geom((k, k), (s, s), (1, 1), (pad, pad), (pad, pad), sp)


def _up_shape(p, ins):
    d = ins[0]
    if d is None:
        return ins, [None]
    if p.scale <= 0:
        raise ShapeError(f"UpSampling: scale={p.scale} must be positive")
    if len(d) != 4:
        raise ShapeError(f"UpSampling: data must be 4-D (N, C, H, W), got {tuple(d)}")
    if p.sample_type == "bilinear":
        c = d[1]
        if p.num_filter and p.num_filter != c:
            raise ShapeError(f"UpSampling: num_filter={p.num_filter} must equal the channels of "
                             f"data {tuple(d)} for bilinear sampling")
        k = 2 * p.scale - p.scale % 2
        if len(ins) > 1:
            if ins[1] is not None and tuple(ins[1]) != (c, 1, k, k):
                raise ShapeError(f"UpSampling: weight must have shape {(c, 1, k, k)}, got "
                                 f"{tuple(ins[1])}")
            ins[1] = (c, 1, k, k)
        return ins, [(d[0], c, d[2] * p.scale, d[3] * p.scale)]
    h, w = d[2] * p.scale, d[3] * p.scale
    chans = 0
    for i, s in enumerate(ins):
        if s is None:
            return ins, [None]
        if len(s) != 4 or h % s[2] or w % s[3] or (h // s[2]) != (w // s[3]):
            raise ShapeError(f"UpSampling: input {i} of shape {tuple(s)} cannot be scaled to "
                             f"({h}, {w}) by one integer factor")
        chans += s[1]
    if p.multi_input_mode == "sum":
        chans = d[1]
    return ins, [(d[0], chans, h, w)]


def _up(p, rc, *xs):
    """UpSampling(*data, scale, sample_type, num_args=1, num_filter=0,
    multi_input_mode='concat'): 'nearest' repeats each pixel scale x scale times (every
    input scaled to the first's size times scale, then concatenated on axis 1 or summed);
    'bilinear' is a per-channel Deconvolution of data with weight (C, 1, k, k),
    k = 2 * scale - scale % 2, as MXNet defines it."""
    xp = rc.xp
    if p.sample_type == "bilinear":
        x, w = xs
        g = _bilinear_geom(p, x.shape[2:])
        out = (x.shape[0], x.shape[1], x.shape[2] * p.scale, x.shape[3] * p.scale)
        return conv_data_grad(xp, x, w, x.shape[1], g, out).astype(x.dtype, copy=False)
    h = xs[0].shape[2] * p.scale
    ups = []
    for x in xs:
        f = h // x.shape[2]
        ups.append(xp.repeat(xp.repeat(x, f, axis=2), f, axis=3))
    if len(ups) == 1:
        return ups[0]
    if p.multi_input_mode == "sum":
        return sum(ups[1:], ups[0])
    return xp.concatenate(ups, axis=1)


def _up_vjp(p, rc, xs, ys, gys, need):
    xp = rc.xp
    g = gys[0]
    if p.sample_type == "bilinear":
        x, w = xs
        geom = _bilinear_geom(p, x.shape[2:])
        gx = conv_forward(xp, g, w, x.shape[1], geom).astype(x.dtype, copy=False)
        gw = conv_weight_grad(xp, g, x, x.shape[1], geom, w.shape) if need[1] else None
        return xp.ascontiguousarray(gx), gw
    h = g.shape[2]
    out, start = [], 0
    for x in xs:
        f = h // x.shape[2]
        part = g if p.multi_input_mode == "sum" else g[:, start:start + x.shape[1]]
        start += x.shape[1]
        n, c, hh, ww = x.shape
        out.append(part.reshape(n, c, hh, f, ww, f).sum(axis=(3, 5)))
    return tuple(out)


register("UpSampling", variadic="num_args", shape=_up_shape, vjp=_up_vjp,
         attrs={"scale": A.Int(), "num_filter": A.Int(0),
                "sample_type": A.Enum("nearest", "bilinear"),
                "multi_input_mode": A.Enum("concat", "sum", default="concat"),
                "num_args": A.Int(), "workspace": A.Int(512)})(_up)

