"""Array manipulation and creation operators beyond reshapes: tile, repeat, diag,
slice_like, broadcast_like, broadcast_axis, depth_to_space, space_to_depth, _split_v2, Crop,
moments, nansum, nanprod, shape_array, size_array, _eye, _linspace, _histogram.

Shape rules raise `ShapeError` (a ValueError) naming the operator and attribute.
"""
from functools import partial
from math import prod

import numpy as np

from . import accumulate
from . import attrs as A
from .registry import ShapeError, register
from .rules import fmt_shapes, norm_axis, unbroadcast
from .reduce import _axes_of, _reduced_shape
from ..util import is_np_shape


def _known(ins, i=0):
    return None if ins[i] is None else tuple(ins[i])


# ---- tile, repeat ----
def _tile_shapes(shape, reps):
    """(data shape, reps), both padded with leading 1s to one length."""
    n = max(len(shape), len(reps))
    return (1,) * (n - len(shape)) + tuple(shape), (1,) * (n - len(reps)) + tuple(reps)


def _tile_shape(p, ins):
    s = _known(ins)
    if s is None:
        return ins, [None]
    if any(r < 0 for r in p.reps):
        raise ShapeError(f"tile: reps must be non-negative, got {tuple(p.reps)}")
    if 0 in p.reps and not is_np_shape():
        # the legacy shape semantics reads a 0 size as unknown: a 0 rep is valid only with
        # NumPy shape semantics on (mx.np_shape), as in MXNet
        raise ShapeError(f"tile: reps {tuple(p.reps)} has a 0, which needs NumPy shape "
                         "semantics (mx.np_shape(True))")
    s, r = _tile_shapes(s, p.reps)
    return ins, [tuple(a * b for a, b in zip(s, r))]


def _tile_vjp(p, rc, xs, ys, gys, need):
    x = xs[0]
    s, r = _tile_shapes(x.shape, p.reps)
    g = gys[0].reshape(tuple(v for pair in zip(r, s) for v in pair))
    return (g.sum(axis=tuple(range(0, 2 * len(s), 2))).reshape(x.shape),)


@register("tile", attrs={"reps": A.Shape()}, shape=_tile_shape, vjp=_tile_vjp)
def _tile(p, rc, x):
    """tile(data, reps): data repeated `reps[i]` times along axis i (numpy's tile; the shorter
    of data's shape and reps is padded with leading 1s).
    """
    return rc.xp.tile(x, p.reps)


def _repeat_shape(p, ins):
    s = _known(ins)
    if s is None:
        return ins, [None]
    if p.repeats < 0:
        raise ShapeError(f"repeat: repeats must be non-negative, got {p.repeats}")
    if p.axis is None:
        return ins, [(prod(s) * p.repeats,)]
    ax = norm_axis("repeat", p.axis, len(s))
    return ins, [s[:ax] + (s[ax] * p.repeats,) + s[ax + 1:]]


def _repeat_vjp(p, rc, xs, ys, gys, need):
    x = xs[0]
    if p.axis is None:
        return (gys[0].reshape(x.size, p.repeats).sum(axis=1).reshape(x.shape),)
    ax = norm_axis("repeat", p.axis, x.ndim)
    g = gys[0].reshape(x.shape[:ax + 1] + (p.repeats,) + x.shape[ax + 1:])
    return (g.sum(axis=ax + 1),)


@register("repeat", attrs={"repeats": A.Int(), "axis": A.OptionalInt()},
          shape=_repeat_shape, vjp=_repeat_vjp)
def _repeat(p, rc, x):
    """repeat(data, repeats, axis=None): each element repeated `repeats` times along `axis`
    (of the flattened data when None).
    """
    return rc.xp.repeat(x, p.repeats, axis=p.axis)


# ---- diag ----
def _diag_shape(p, ins):
    s = _known(ins)
    if s is None:
        return ins, [None]
    if len(s) == 1:
        n = s[0] + abs(p.k)
        return ins, [(n, n)]
    a1, a2 = norm_axis("diag", p.axis1, len(s), "axis1"), norm_axis("diag", p.axis2, len(s),
                                                                     "axis2")
    if a1 == a2:
        raise ShapeError(f"diag: axis1 and axis2 must differ, got {p.axis1} and {p.axis2}")
    n = min(s[a1], s[a2] - p.k) if p.k >= 0 else min(s[a1] + p.k, s[a2])
    if n < 0:
        # k may reach just past the last diagonal (an empty result), not further (MXNet)
        raise ShapeError(f"diag: diagonal k={p.k} does not exist in planes of shape "
                         f"{(s[a1], s[a2])} (axis1={p.axis1}, axis2={p.axis2})")
    rest = tuple(d for i, d in enumerate(s) if i not in (a1, a2))
    return ins, [rest + (n,)]


def _diag_vjp(p, rc, xs, ys, gys, need):
    x, g = xs[0], gys[0]
    if x.ndim == 1:
        return (rc.xp.diagonal(g, offset=p.k).copy(),)
    a1, a2 = p.axis1 % x.ndim, p.axis2 % x.ndim
    gx = rc.xp.zeros(x.shape, dtype=g.dtype)
    planes = rc.xp.moveaxis(gx, (a1, a2), (-2, -1))  # a view: writes land in gx
    i = rc.xp.arange(g.shape[-1])
    planes[..., i + max(-p.k, 0), i + max(p.k, 0)] = g
    return (gx,)


@register("diag", attrs={"k": A.Int(0), "axis1": A.Int(0), "axis2": A.Int(1)},
          shape=_diag_shape, vjp=_diag_vjp)
def _diag(p, rc, x):
    """diag(data, k=0, axis1=0, axis2=1): for 1-D data a square matrix with data on its k-th
    diagonal; otherwise the k-th diagonal of the planes (axis1, axis2), as the last axis.
    """
    if x.ndim == 1:
        return rc.xp.diag(x, p.k)
    return rc.xp.diagonal(x, offset=p.k, axis1=p.axis1 % x.ndim, axis2=p.axis2 % x.ndim).copy()


# ---- slice_like, broadcast_like, broadcast_axis ----
def _slice_like_axes(p, ndim, like_ndim):
    if not p.axes:
        return tuple(range(min(ndim, like_ndim)))
    return tuple(norm_axis("slice_like", a, ndim, "axes") for a in p.axes)


def _slice_like_shape(p, ins):
    d, like = _known(ins, 0), _known(ins, 1)
    if d is None or like is None:
        return ins, [None]
    out = list(d)
    for a in _slice_like_axes(p, len(d), len(like)):
        if a >= len(like) or like[a] > d[a]:
            raise ShapeError(f"slice_like: shape_like {like} does not fit inside data {d} "
                             f"along axis {a}")
        out[a] = like[a]
    return ins, [tuple(out)]


def _slice_like_index(p, d, like):
    out = _slice_like_shape(p, [d, like])[1][0]
    return tuple(slice(0, n) for n in out)


def _slice_like_vjp(p, rc, xs, ys, gys, need):
    x, like = xs
    g = rc.xp.zeros(x.shape, dtype=gys[0].dtype)
    g[_slice_like_index(p, x.shape, like.shape)] = gys[0]
    return g, None


@register("slice_like", inputs=("data", "shape_like"), nondiff=("shape_like",),
          attrs={"axes": A.Shape(())}, shape=_slice_like_shape, same_dtype=("data",),
          dtype=lambda p, ins: (ins, [ins[0]]), vjp=_slice_like_vjp)
def _slice_like(p, rc, x, like):
    """slice_like(data, shape_like, axes=()): the leading part of data whose size along
    `axes` (every axis shape_like has, when empty) is that of shape_like.
    """
    return x[_slice_like_index(p, x.shape, like.shape)]


def _axes_tuple(axes):
    return () if axes is None else axes if isinstance(axes, tuple) else (axes,)


def _bcast_like_target(p, lhs, rhs):
    if p.lhs_axes is None or p.rhs_axes is None:  # MXNet: both axes, or every axis
        if len(lhs) != len(rhs):
            raise ShapeError(f"broadcast_like: lhs {lhs} and rhs {rhs} must have the same "
                             "number of dimensions")
        pairs = [(i, i) for i in range(len(lhs))]
    else:
        la, ra = _axes_tuple(p.lhs_axes), _axes_tuple(p.rhs_axes)
        if not la or not ra:
            raise ShapeError(f"broadcast_like: lhs_axes {p.lhs_axes} and rhs_axes {p.rhs_axes} "
                             "must not be empty (leave them out to broadcast every axis)")
        if len(la) != len(ra):
            raise ShapeError(f"broadcast_like: lhs_axes {la} and rhs_axes {ra} must have the "
                             "same length")
        pairs = [(norm_axis("broadcast_like", a, len(lhs), "lhs_axes"),
                  norm_axis("broadcast_like", b, len(rhs), "rhs_axes")) for a, b in zip(la, ra)]
    out = list(lhs)
    for a, b in pairs:
        if lhs[a] != rhs[b] and lhs[a] != 1:
            raise ShapeError(f"broadcast_like: lhs {lhs} cannot be broadcast to rhs {rhs} "
                             f"along axis {a}: size {lhs[a]} is neither 1 nor {rhs[b]}")
        out[a] = rhs[b]
    return tuple(out)


def _bcast_like_shape(p, ins):
    lhs, rhs = _known(ins, 0), _known(ins, 1)
    if lhs is None or rhs is None:
        return ins, [None]
    return ins, [_bcast_like_target(p, lhs, rhs)]


@register("broadcast_like", inputs=("lhs", "rhs"), nondiff=("rhs",),
          attrs={"lhs_axes": A.Axis(None), "rhs_axes": A.Axis(None)},
          shape=_bcast_like_shape, same_dtype=("lhs",), dtype=lambda p, ins: (ins, [ins[0]]),
          vjp=lambda p, rc, xs, ys, gys, need: (unbroadcast(gys[0], xs[0].shape), None))
def _broadcast_like(p, rc, lhs, rhs):
    """broadcast_like(lhs, rhs, lhs_axes=None, rhs_axes=None): lhs broadcast to rhs's shape
    (or only its `lhs_axes` to the sizes of rhs's `rhs_axes`).
    """
    return rc.xp.broadcast_to(lhs, _bcast_like_target(p, lhs.shape, rhs.shape)).copy()


def _bcast_axis_target(p, s):
    axes, sizes = tuple(p.axis), tuple(p.size)
    if len(axes) != len(sizes):
        raise ShapeError(f"broadcast_axis: axis {axes} and size {sizes} must have the same "
                         "length")
    out = list(s)
    for a, n in zip(axes, sizes):
        a = norm_axis("broadcast_axis", a, len(s))
        if s[a] != 1:
            raise ShapeError(f"broadcast_axis: axis {a} of data {tuple(s)} must have size 1 "
                             f"to be broadcast, got {s[a]}")
        out[a] = n
    return tuple(out)


@register("broadcast_axis", aliases=("broadcast_axes",),
          attrs={"axis": A.Shape(()), "size": A.Shape(())},
          shape=lambda p, ins: (ins, [None if ins[0] is None else
                                      _bcast_axis_target(p, tuple(ins[0]))]),
          vjp=lambda p, rc, xs, ys, gys, need: (unbroadcast(gys[0], xs[0].shape),))
def _broadcast_axis(p, rc, x):
    """broadcast_axis(data, axis=(), size=()): data's size-1 axes `axis` broadcast to `size`.
    """
    return rc.xp.broadcast_to(x, _bcast_axis_target(p, x.shape)).copy()


# ---- depth_to_space, space_to_depth ----
def _d2s_shape(name, to_space):
    def rule(p, ins):
        s = _known(ins)
        if s is None:
            return ins, [None]
        b = p.block_size
        if len(s) != 4 or b <= 0:
            raise ShapeError(f"{name}: needs 4-D (N, C, H, W) data and block_size > 0, got "
                             f"shape {s} and block_size={b}")
        n, c, h, w = s
        if to_space:
            if c % (b * b):
                raise ShapeError(f"{name}: channels {c} must be a multiple of block_size**2 "
                                 f"= {b * b}")
            return ins, [(n, c // (b * b), h * b, w * b)]
        if h % b or w % b:
            raise ShapeError(f"{name}: height {h} and width {w} must be multiples of "
                             f"block_size={b}")
        return ins, [(n, c * b * b, h // b, w // b)]
    return rule


def _nonempty(name, x):
    """MXNet 1.9.1 refuses an empty axis here (its shape check wants each of N, C, H, W
    non-zero)."""
    if 0 in x.shape:
        axis = "NCHW"[x.shape.index(0)]
        raise ShapeError(f"{name}: axis {axis} of data is 0 (shape {tuple(x.shape)}); every "
                         "axis must be non-zero")


def _to_space(x, b):
    n, c, h, w = x.shape
    return x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2).reshape(
        n, c // (b * b), h * b, w * b)


def _to_depth(x, b):
    n, c, h, w = x.shape
    return x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4).reshape(
        n, c * b * b, h // b, w // b)


@register("depth_to_space", attrs={"block_size": A.Int()},
          shape=_d2s_shape("depth_to_space", True),
          vjp=lambda p, rc, xs, ys, gys, need: (_to_depth(gys[0], p.block_size),))
def _depth_to_space(p, rc, x):
    """depth_to_space(data, block_size): (N, C, H, W) -> (N, C/b**2, H*b, W*b), moving blocks
    of channels into b x b spatial blocks (the inverse of space_to_depth)."""
    _nonempty("depth_to_space", x)
    return _to_space(x, p.block_size)


@register("space_to_depth", attrs={"block_size": A.Int()},
          shape=_d2s_shape("space_to_depth", False),
          vjp=lambda p, rc, xs, ys, gys, need: (_to_space(gys[0], p.block_size),))
def _space_to_depth(p, rc, x):
    """space_to_depth(data, block_size): (N, C, H, W) -> (N, C*b**2, H/b, W/b), moving each
    b x b spatial block into channels (the inverse of depth_to_space)."""
    _nonempty("space_to_depth", x)
    return _to_depth(x, p.block_size)


# ---- _split_v2 ----
def _split_bounds(p, n):
    """[(start, stop)] of each part along an axis of size n."""
    if p.sections > 0:
        # MXNet's split indices: the first n % sections parts one longer (numpy's
        # array_split; np.split checks the division is even before it calls this)
        small, extra = divmod(n, p.sections)
        starts = [i * small + min(i, extra) for i in range(p.sections)]
    else:
        starts = list(p.indices)
    stops = starts[1:] + [n]
    return [(min(a, n), max(min(b, n), min(a, n))) for a, b in zip(starts, stops)]


def _split_outputs(p):
    return p.sections if p.sections > 0 else len(p.indices)


def _split_shape(p, ins):
    s = _known(ins)
    if s is None:
        return ins, [None] * _split_outputs(p)
    ax = norm_axis("_split_v2", p.axis, len(s))
    outs = []
    for a, b in _split_bounds(p, s[ax]):
        if p.squeeze_axis and b - a == 1:
            outs.append(s[:ax] + s[ax + 1:] or (1,))
        else:
            outs.append(s[:ax] + (b - a,) + s[ax + 1:])
    return ins, outs


def _split_vjp(p, rc, xs, ys, gys, need):
    x = xs[0]
    ax = p.axis % x.ndim
    g = rc.xp.zeros(x.shape, dtype=next(gy.dtype for gy in gys if gy is not None)
                    if any(gy is not None for gy in gys) else x.dtype)
    for (a, b), gy in zip(_split_bounds(p, x.shape[ax]), gys):
        if gy is not None:
            idx = (slice(None),) * ax + (slice(a, b),)
            g[idx] = gy.reshape(g[idx].shape)
    return (g,)


@register("_split_v2", attrs={"indices": A.Shape(()), "axis": A.Int(1),
                              "squeeze_axis": A.Bool(False), "sections": A.Int(0)},
          outputs=_split_outputs, shape=_split_shape, vjp=_split_vjp)
def _split_v2(p, rc, x):
    """_split_v2(data, indices=(), axis=1, squeeze_axis=False, sections=0): parts of data
    along `axis`, starting at each of `indices` (or `sections` equal parts); what
    `nd.split_v2` calls."""
    ax = norm_axis("_split_v2", p.axis, x.ndim)
    outs = _split_shape(p, [x.shape])[1]
    parts = []
    for (a, b), s in zip(_split_bounds(p, x.shape[ax]), outs):
        parts.append(x[(slice(None),) * ax + (slice(a, b),)].reshape(s))
    return tuple(parts) if len(parts) != 1 else parts[0]  # one output: the array itself


# ---- Crop ----
def _crop_box(p, s, like):
    """(top, left, height, width) of the crop of data of shape s."""
    h, w = (like[2], like[3]) if like is not None else tuple(p.h_w)
    if p.center_crop:
        top, left = (s[2] - h) // 2, (s[3] - w) // 2
    else:
        top, left = tuple(p.offset)
    if top < 0 or left < 0 or top + h > s[2] or left + w > s[3]:
        raise ShapeError(f"Crop: a crop of {(h, w)} at offset {(top, left)} does not fit in "
                         f"data of shape {tuple(s)}")
    return top, left, h, w


def _crop_shape(p, ins):
    s = _known(ins)
    like = _known(ins, 1) if len(ins) > 1 else None
    if s is None or (len(ins) > 1 and like is None):
        return ins, [None]
    if len(s) != 4 or (like is not None and len(like) != 4):
        raise ShapeError(f"Crop: data (and crop_like) must be 4-D (N, C, H, W), got "
                         f"{fmt_shapes(ins)}")
    _, _, h, w = _crop_box(p, s, like)
    return ins, [s[:2] + (h, w)]


def _crop_vjp(p, rc, xs, ys, gys, need):
    x = xs[0]
    top, left, h, w = _crop_box(p, x.shape, xs[1].shape if len(xs) > 1 else None)
    g = rc.xp.zeros(x.shape, dtype=gys[0].dtype)
    g[:, :, top:top + h, left:left + w] = gys[0]
    return (g,) + (None,) * (len(xs) - 1)


@register("Crop", variadic="num_args",
          attrs={"num_args": A.Int(), "offset": A.Shape((0, 0)), "h_w": A.Shape((0, 0)),
                 "center_crop": A.Bool(False)},
          shape=_crop_shape, vjp=_crop_vjp, same_dtype=(),
          dtype=lambda p, ins: (ins, [ins[0]]))
def _crop(p, rc, x, like=None):
    """Crop(data, [crop_like], num_args, offset=(0, 0), h_w=(0, 0), center_crop=False): the
    (H, W) window of 4-D data of size `h_w` (or crop_like's H and W when given), at `offset`
    or centred. Only data takes a gradient.
    """
    top, left, h, w = _crop_box(p, x.shape, None if like is None else like.shape)
    return x[:, :, top:top + h, left:left + w].copy()


# ---- moments, nansum, nanprod ----
def _moments_axes(p, ndim):
    axes = (p.axes,) if isinstance(p.axes, int) else tuple(p.axes or ())
    if not axes:
        raise ShapeError("moments: axes must name at least one axis (pass every axis for "
                         "global moments)")
    return _axes_of("moments", axes, False, ndim)


def _moments_shape(p, ins):
    s = _known(ins)
    if s is None:
        return ins, [None, None]
    out = _reduced_shape(s, _moments_axes(p, len(s)), p.keepdims)
    return ins, [out, out]


def _moments_vjp(p, rc, xs, ys, gys, need):
    x = xs[0]
    axes = _moments_axes(p, x.ndim)
    kept = _reduced_shape(x.shape, axes, True)
    n = prod(x.shape[a] for a in axes)
    g = rc.xp.zeros(x.shape, dtype=x.dtype)
    if gys[0] is not None:
        g = g + gys[0].reshape(kept) / n
    if gys[1] is not None:
        g = g + gys[1].reshape(kept) * 2 * (x - ys[0].reshape(kept)) / n
    return (g,)


@register("moments", attrs={"axes": A.Axis(None), "keepdims": A.Bool(False)}, outputs=2,
          shape=_moments_shape, vjp=_moments_vjp)
def _moments(p, rc, x):
    """moments(data, axes, keepdims=False): [mean, var] over `axes` (the biased variance).
    """
    axes = _moments_axes(p, x.ndim)
    shape = _reduced_shape(x.shape, axes, p.keepdims)
    # MXNet's order: the mean, then the mean of the squared deviations from it
    m = accumulate.wide_mean(rc.xp, x, axes, keepdims=True)
    v = accumulate.wide_mean(rc.xp, rc.xp.square(x - m), axes, keepdims=True)
    return m.reshape(shape), v.reshape(shape)


_RED_ATTRS = {"axis": A.Axis(None), "keepdims": A.Bool(False), "exclude": A.Bool(False)}


def _nan_shape(name):
    def rule(p, ins):
        s = _known(ins)
        if s is None:
            return ins, [None]
        return ins, [_reduced_shape(s, _axes_of(name, p.axis, p.exclude, len(s)), p.keepdims)]
    return rule


def _nan_reduce(name, fn, grad, doc):
    """Register `name`: the array module's `fn`, or ``f(xp, x, axes, keepdims)``."""
    def kernel(p, rc, x):
        axes = _axes_of(name, p.axis, p.exclude, x.ndim)
        f = getattr(rc.xp, fn) if isinstance(fn, str) else partial(fn, rc.xp)
        y = f(x, axis=axes, keepdims=p.keepdims)
        return rc.xp.asarray(y, dtype=x.dtype).reshape(_nan_shape(name)(p, [x.shape])[1][0])

    def vjp(p, rc, xs, ys, gys, need):
        x = xs[0]
        kept = _reduced_shape(x.shape, _axes_of(name, p.axis, p.exclude, x.ndim), True)
        return (grad(rc.xp, x, ys[0].reshape(kept), gys[0].reshape(kept)).astype(x.dtype),)

    kernel.__doc__ = doc
    register(name, attrs=_RED_ATTRS, shape=_nan_shape(name), vjp=vjp)(kernel)


# summed wider and rounded once, as MXNet's compensated reducer (`accumulate`)
_nan_reduce("nansum", partial(accumulate.wide_sum, nan=True), lambda xp, x, y, g: g * ~xp.isnan(x),
            "nansum(data, axis=None, keepdims=False, exclude=False): the sum over `axis`, "
            "NaNs counted as 0; they take no gradient.")
_nan_reduce("nanprod", "nanprod",
            lambda xp, x, y, g: xp.where(xp.isnan(x), 0, g * y / xp.where(xp.isnan(x), 1, x)),
            "nanprod(data, axis=None, keepdims=False, exclude=False): the product over "
            "`axis`, NaNs counted as 1; they take no gradient.")


# ---- shape_array, size_array, _eye, _linspace, _histogram ----
@register("shape_array", shape=lambda p, ins: (ins, [None if ins[0] is None else
                                                     (len(ins[0]),)]),
          dtype=lambda p, ins: (ins, [np.dtype(np.int64)]), nondiff=("data",))
def _shape_array(p, rc, x):
    """shape_array(data): data's shape as a 1-D int64 array.
    """
    return rc.xp.asarray(x.shape, dtype=np.int64)


@register("size_array", shape=lambda p, ins: (ins, [(1,)]),
          dtype=lambda p, ins: (ins, [np.dtype(np.int64)]), nondiff=("data",))
def _size_array(p, rc, x):
    """size_array(data): data's number of elements as a (1,) int64 array."""
    return rc.xp.asarray([x.size], dtype=np.int64)


_CREATE_DTYPES = ("float16", "float32", "float64", "int32", "int64", "int8", "uint8")


def _eye_shape(p, ins):
    if p.N < 0 or p.M < 0:
        raise ShapeError(f"_eye: N and M must be non-negative, got N={p.N}, M={p.M}")
    return ins, [(p.N, p.M or p.N)]


@register("_eye", inputs=(), attrs={"N": A.Int(), "M": A.Int(0), "k": A.Int(0),
                                    "ctx": A.Str(""),
                                    "dtype": A.Enum(*_CREATE_DTYPES, default="float32")},
          shape=_eye_shape, dtype=lambda p, ins: (ins, [np.dtype(p.dtype)]))
def _eye(p, rc):
    """_eye(N, M=0, k=0, dtype='float32'): an N x M (M=0: N) matrix with ones on its k-th
    diagonal (what `nd.eye` calls)."""
    return rc.xp.eye(p.N, p.M or p.N, p.k, dtype=p.dtype)


@register("_linspace", inputs=(),
          attrs={"start": A.Float(), "stop": A.Float(), "num": A.Int(),
                 "endpoint": A.Bool(True), "ctx": A.Str(""),
                 "dtype": A.Enum(*_CREATE_DTYPES, default="float32")},
          shape=lambda p, ins: (ins, [(max(p.num, 0),)]),
          dtype=lambda p, ins: (ins, [np.dtype(p.dtype)]))
def _linspace(p, rc):
    """_linspace(start, stop, num, endpoint=True, dtype='float32'): `num` evenly spaced values
    from start to stop (stop left out without `endpoint`); what `nd.linspace` calls."""
    if p.num < 0:
        raise ShapeError(f"_linspace: num must be non-negative, got {p.num}")
    return rc.xp.linspace(p.start, p.stop, p.num, endpoint=p.endpoint).astype(p.dtype)


def _parse_range(v):
    v = A._literal(v)
    if v is None:
        return None
    if not isinstance(v, (tuple, list)) or len(v) != 2:
        raise ValueError(f"expected (low, high), got {v!r}")
    lo, hi = float(v[0]), float(v[1])
    if lo > hi:
        raise ValueError(f"low must not exceed high, got {v!r}")
    return (lo, hi)


def _hist_inputs(p):
    return ["data"] if p.bin_cnt is not None else ["data", "bins"]


def _hist_shape(p, ins):
    if p.bin_cnt is not None:
        if p.range is None:
            raise ShapeError("_histogram: bin_cnt needs range=(low, high)")
        return ins, [(p.bin_cnt,), (p.bin_cnt + 1,)]
    b = _known(ins, 1)
    if b is None:
        return ins, [None, None]
    if len(b) != 1 or b[0] < 2:
        raise ShapeError(f"_histogram: bins must be 1-D with at least 2 edges, got {b}")
    return ins, [(b[0] - 1,), b]


@register("_histogram", inputs=_hist_inputs, signature=("data", "bins"), outputs=2,
          attrs={"bin_cnt": A.OptionalInt(), "range": A.Attr(_parse_range, None, "shape")},
          shape=_hist_shape, nondiff=("data", "bins"), same_dtype=(),
          dtype=lambda p, ins: (ins, [np.dtype(np.int64), ins[0] if len(ins) == 1 else
                                      (ins[1] if ins[1] is not None else ins[0])]))
def _histogram(p, rc, x, bins=None):
    """_histogram(data, [bins], bin_cnt=None, range=None): [counts (int64), edges] of the
    flattened data over `bin_cnt` equal bins of `range`, or over the edges `bins`; values
    outside are not counted, the last bin includes its right edge (numpy's histogram)."""
    if bins is None:
        counts, edges = np.histogram(rc.xp.asnumpy(x) if rc.xp is not np else x,
                                     bins=p.bin_cnt, range=p.range)
        return rc.xp.asarray(counts, dtype=np.int64), rc.xp.asarray(edges, dtype=x.dtype)
    counts, _ = np.histogram(rc.xp.asnumpy(x) if rc.xp is not np else x,
                             bins=rc.xp.asnumpy(bins) if rc.xp is not np else bins)
    return rc.xp.asarray(counts, dtype=np.int64), bins.copy()
