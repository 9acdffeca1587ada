"""Reductions: sum, mean, max, min, prod, _square_sum, norm (MXNet: a full reduction has
shape (1,)), argmax."""
from functools import lru_cache, partial
from math import prod

import numpy as np

from . import accumulate
from . import attrs as A
from . import elementwise
from .fast import Fast
from .registry import register
from .rules import norm_axis
from .sparse import reduce as sparse_reduce

_RED_ATTRS = {"axis": A.Axis(None), "keepdims": A.Bool(False), "exclude": A.Bool(False)}


def _axes(name, p, ndim):
    """The reduced axes as a sorted tuple (MXNet's `exclude` inverts the set)."""
    return _axes_of(name, p.axis, p.exclude, ndim)


@lru_cache(maxsize=1024)
def _axes_of(name, axis, exclude, ndim):
    if axis is None or axis == ():
        return tuple() if exclude else tuple(range(ndim))
    raw = axis if isinstance(axis, tuple) else (axis,)
    axes = tuple(sorted({norm_axis(name, a, ndim) for a in raw}))
    return tuple(i for i in range(ndim) if i not in axes) if exclude else axes


def _reduced_shape(shape, axes, keepdims):
    """`shape` reduced over `axes`: kept as 1 with `keepdims`, else dropped (never 0-d)."""
    if keepdims:
        return tuple(1 if i in axes else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in axes) or (1,)


def _out_shape(name, p, shape):
    return _reduced_shape(shape, _axes(name, p, len(shape)), p.keepdims)


def _reduce(name, fn, grad, doc, fast=None, storage=None):
    """Register reduction `name`: `fn` is the array module's function of that name, or
    ``f(xp, x, axes, keepdims)`` (the sums of `accumulate`)."""
    def kernel(p, rc, x):
        axes = _axes(name, p, x.ndim)
        f = getattr(rc.xp, fn) if isinstance(fn, str) else partial(fn, rc.xp)
        y = f(x, axis=axes, keepdims=p.keepdims)
        if y.ndim == 0 or y.dtype != x.dtype:  # MXNet: never 0-d, and keeps x's dtype
            y = rc.xp.asarray(y, dtype=x.dtype).reshape(_out_shape(name, p, x.shape))
        return y

    def vjp(p, rc, xs, ys, gys, need):
        x = xs[0]
        axes = _axes(name, p, x.ndim)
        kept = _reduced_shape(x.shape, axes, True)
        g, y = gys[0].reshape(kept), ys[0].reshape(kept)
        return (grad(rc.xp, x, y, g, axes).astype(x.dtype, copy=False),)

    def shape(p, ins):
        return ins, [None if ins[0] is None else _out_shape(name, p, ins[0])]

    kernel.__doc__ = doc
    register(name, attrs=_RED_ATTRS, vjp=vjp, shape=shape, aliases=(f"{name}_axis",),
             fast=fast, storage=storage)(kernel)


def _count(x, axes):
    return prod([x.shape[a] for a in axes]) if axes else 1


# name, array function, gradient, doc (sum's and mean's gradients read only the shapes);
# float32 sums and means are accumulated wider and rounded once, as MXNet's compensated
# reducer gives them (`accumulate`)
_reduce("sum", accumulate.wide_sum, lambda xp, x, y, g, axes: xp.broadcast_to(g, x.shape),
        "sum(data, axis=None, keepdims=False, exclude=False): sum over axes.",
        fast=Fast(saves=()), storage=sparse_reduce.SUM)
_reduce("mean", accumulate.wide_mean,
        lambda xp, x, y, g, axes: xp.broadcast_to(g / _count(x, axes), x.shape),
        "mean(data, axis=None, keepdims=False, exclude=False): mean over axes.",
        fast=Fast(saves=()), storage=sparse_reduce.MEAN)
_reduce("max", "max", lambda xp, x, y, g, axes: g * (x == y),
        "max(data, axis=None, keepdims=False, exclude=False): maximum over axes.")
_reduce("min", "min", lambda xp, x, y, g, axes: g * (x == y),
        "min(data, axis=None, keepdims=False, exclude=False): minimum over axes.")
_reduce("prod", "prod", lambda xp, x, y, g, axes: g * y / x,
        "prod(data, axis=None, keepdims=False, exclude=False): product over axes.")



def _square_sum_vjp(p, rc, xs, ys, gys, need):
    x = xs[0]
    g = gys[0].reshape(_reduced_shape(x.shape, _axes("_square_sum", p, x.ndim), True))
    return ((2 * x * g).astype(x.dtype, copy=False),)


@register("_square_sum", attrs=_RED_ATTRS, vjp=_square_sum_vjp, storage=sparse_reduce.SQUARE_SUM,
          shape=lambda p, ins: (ins, [None if ins[0] is None
                                      else _out_shape("_square_sum", p, ins[0])]))
def _square_sum(p, rc, x):
    """_square_sum(data, axis=None, keepdims=False, exclude=False): the sum of squares over
    axes, ``sum(square(data))`` in one step. MXNet 1.9.1 has it for 2-D row_sparse data only
    (a fused kernel that keeps the result row_sparse for axis=1 with keepdims, as gluonlite's
    storage rule does); any dense input works here too and gives the same numbers."""
    y = accumulate.wide_sum(rc.xp, x * x, _axes("_square_sum", p, x.ndim), p.keepdims)
    if y.ndim == 0 or y.dtype != x.dtype:
        y = rc.xp.asarray(y, dtype=x.dtype).reshape(_out_shape("_square_sum", p, x.shape))
    return y

def _norm_ord(v):
    k = A._int(v)
    if k not in (1, 2):
        raise ValueError(f"expected 1 (sum of |x|) or 2 (Euclidean), got {v!r}")
    return k


_NORM_ATTRS = {"ord": A.Attr(_norm_ord, 2, "int"), "axis": A.Axis(None),
               "out_dtype": A.Dtype(None), "keepdims": A.Bool(False)}


def _norm_axes(p, ndim):
    return _axes_of("norm", p.axis, False, ndim)


def _norm_shape(p, ins):
    if ins[0] is None:
        return ins, [None]
    return ins, [_reduced_shape(ins[0], _norm_axes(p, len(ins[0])), p.keepdims)]


def _norm_vjp(p, rc, xs, ys, gys, need):
    x = xs[0]
    kept = _reduced_shape(x.shape, _norm_axes(p, x.ndim), True)
    g = gys[0].reshape(kept)
    if p.ord == 1:  # MXNet's sign: 0 at NaN
        return ((g * elementwise.mxnet_sign(rc.xp, x)).astype(x.dtype, copy=False),)
    with np.errstate(invalid="ignore", divide="ignore"):  # x / |x|: nan at a zero norm, as MXNet
        return ((g * x / ys[0].reshape(kept)).astype(x.dtype, copy=False),)


@register("norm", attrs=_NORM_ATTRS, shape=_norm_shape, vjp=_norm_vjp, storage=sparse_reduce.NORM,
          dtype=lambda p, ins: (ins, [np.dtype(p.out_dtype) if p.out_dtype else ins[0]]))
def _norm(p, rc, x):
    """norm(data, ord=2, axis=None, out_dtype=None, keepdims=False): the L2 (ord=2) or L1
    (ord=1) norm over `axis` (all axes by default; a full reduction has shape (1,)), in
    `out_dtype` (default: data's dtype)."""
    xp, axes = rc.xp, _norm_axes(p, x.ndim)
    if p.ord == 1:
        y = xp.abs(x).sum(axis=axes, keepdims=p.keepdims)
    else:
        y = _l2(xp, x, axes, p.keepdims)
    return xp.asarray(y).astype(p.out_dtype or x.dtype, copy=False).reshape(
        _reduced_shape(x.shape, axes, p.keepdims))


def _l2(xp, x, axes, keepdims):
    """The L2 norm over `axes` over the whole range of x's dtype, as MXNet's scaled sum of
    squares gives it (1e30 and 1e-30 entries have their norm in float32; squares overflow or
    vanish there). The plain sum of squares first; where it overflowed or lies so low that
    squares may have vanished, the norm again as ``m * sqrt(sum((x / m)**2))`` with m the
    largest |x|. An infinite entry gives inf (MXNet's scaled sum gives NaN for two)."""
    ss = (x * x).sum(axis=axes, keepdims=keepdims)
    if x.dtype.kind != "f" or xp is not np:
        return xp.sqrt(ss)
    n = x.size // max(1, np.size(ss))
    low = np.finfo(x.dtype).tiny * n / np.finfo(x.dtype).eps
    suspect = (ss < low) | (ss == np.inf)   # a NaN (from NaN data) compares False: kept
    if not suspect.any():
        return np.sqrt(ss)
    m = np.abs(x).max(axis=axes, keepdims=True)
    with np.errstate(all="ignore"):
        scaled = np.square(x / np.where((m == 0) | np.isinf(m), 1, m)).sum(axis=axes,
                                                                          keepdims=True)
        again = np.where(np.isinf(m), np.inf, m * np.sqrt(scaled))
    again = again if keepdims else again.reshape(np.shape(ss))
    return np.where(suspect, again, np.sqrt(ss)).astype(x.dtype, copy=False)


def arg_reduce_shape(name):
    """The shape rule of an index reduction `name` (argmax, argmin): the data's shape less
    `axis` (kept as 1 with `keepdims`), or (1,) when `axis` is None or nothing is left.

    Example::

        from gluonlite.ops.reduce import arg_reduce_shape
        op = mx.ops.get("argmax")
        arg_reduce_shape("argmax")(op.parse({"axis": 1})[0], [(2, 3)])     # ([(2, 3)], [(2,)])
    """
    def shape(p, ins):
        if ins[0] is None:
            return ins, [None]
        if p.axis is None:
            return ins, [(1,)]
        ax = norm_axis(name, p.axis, len(ins[0]))
        s = list(ins[0])
        if p.keepdims:
            s[ax] = 1
        else:
            del s[ax]
        return ins, [tuple(s) or (1,)]
    return shape


_argmax_shape = arg_reduce_shape("argmax")


@register("argmax", attrs={"axis": A.Axis(None), "keepdims": A.Bool(False)},
          shape=_argmax_shape, nondiff=("data",))
def _argmax(p, rc, x):
    """argmax(data, axis=None, keepdims=False): index of the maximum, in data's dtype."""
    if p.axis is None:
        return x.argmax().reshape(1).astype(x.dtype)
    y = x.argmax(axis=p.axis)
    if p.keepdims:
        y = rc.xp.expand_dims(y, p.axis)
    return y.astype(x.dtype).reshape(_argmax_shape(p, [x.shape])[1][0])
