"""Reductions of MXNet's NumPy dialect (``_np_cumsum`` is the legacy ``cumsum``, `sorting`):
NumPy's shapes (a full reduction is 0-d, ``axis`` may be a tuple, ``keepdims``), NumPy's
gradients, and MXNet 1.9.1's result dtypes:

- sum, prod: the data's dtype (bool counts in int64), or ``dtype``;
- mean: integers give float32 (float64 under ``npx.set_np(dtype=True)``), floats keep theirs;
- std, var, average: the data's dtype (integer results truncated, as MXNet's are);
- max, min: the data's dtype; all, any: bool; argmax, argmin: int64.

Where MXNet 1.9.1 returns what NumPy does not for empty input (a product of nothing 0, a mean
of nothing 0), NumPy's value is kept (1 and nan): they are the mathematically right ones.
"""
import warnings
from functools import lru_cache
from math import prod

import numpy as np

from ..base import MXNetValueError
from . import accumulate
from . import attrs as A
from .registry import register
from .rules import norm_axis
from ..util import is_np_default_dtype

__all__ = ["np_axes", "reduced_shape"]


@lru_cache(maxsize=2048)
def _axes_of(name, axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    raw = axis if isinstance(axis, tuple) else (axis,)
    axes = [norm_axis(name, a, ndim) for a in raw]
    if len(set(axes)) != len(axes):
        raise MXNetValueError(f"{name}: duplicate value in axis={axis}")
    return tuple(sorted(axes))


def np_axes(name, axis, ndim):
    """The reduced axes of `axis` (None: all; an int or a tuple, negatives allowed) for data
    of `ndim` dimensions, sorted.

    Raises:
        ValueError: an axis out of range or repeated (naming operator `name`).

    Example::

        from gluonlite.ops.np_reduce import np_axes
        np_axes("sum", (-1, 0), 3), np_axes("sum", None, 2)     # ((0, 2), (0, 1))
    """
    return _axes_of(name, axis, ndim)


def reduced_shape(shape, axes, keepdims):
    """NumPy's shape of a reduction of `shape` over `axes` (0-d when nothing is left).

    Args:
        shape: the input's shape.
        axes: the reduced axes, non-negative ints.
        keepdims: keep each reduced axis with size 1 instead of dropping it.

    Returns:
        tuple: the output shape.

    Example::

        from gluonlite.ops.np_reduce import reduced_shape
        reduced_shape((2, 3, 4), (1,), False), reduced_shape((2, 3, 4), (1,), True)
        # ((2, 4), (2, 1, 4))
    """
    if keepdims:
        return tuple(1 if i in axes else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in axes)


def _default_float():
    return np.dtype(np.float64 if is_np_default_dtype() else np.float32)


_ATTRS = {"axis": A.Axis(None), "dtype": A.Dtype(None), "keepdims": A.Bool(False),
          "initial": A.OptionalFloat()}
_MAXMIN_ATTRS = {"axis": A.Axis(None), "keepdims": A.Bool(False),
                 "initial": A.OptionalFloat()}
_BOOL_ATTRS = {"axis": A.Axis(None), "keepdims": A.Bool(False)}
_MOMENT_ATTRS = {"axis": A.Axis(None), "dtype": A.Dtype(None), "ddof": A.Int(0),
                 "keepdims": A.Bool(False)}


def _shape_rule(name):
    def rule(p, ins):
        if ins[0] is None:
            return ins, [None]
        return ins, [reduced_shape(ins[0], np_axes(name, p.axis, len(ins[0])), p.keepdims)]
    return rule


def _no_initial(name, p):
    if p.get("initial") is not None:
        raise MXNetValueError(f"{name}: initial={p.initial} is not supported (MXNet 1.9.1 "
                              "refuses it); add the value to the result instead")


def _keep_or_int64(d):
    return np.dtype(np.int64) if d == np.bool_ else d


def _result_dtype(name, p, d):
    d = np.dtype(d)
    if name == "_npi_mean":
        return np.dtype(p.dtype) if p.dtype else (d if d.kind == "f" else _default_float())
    if name in ("_np_sum", "_np_prod"):
        return np.dtype(p.dtype) if p.dtype else _keep_or_int64(d)
    if name in ("_npi_std", "_npi_var"):
        return np.dtype(p.dtype) if p.dtype else d
    return d


def _dtype_rule(name):
    def rule(p, ins):
        return ins, [None if ins[0] is None else _result_dtype(name, p, ins[0])]
    return rule


def _kept(x, axes, g):
    return g.reshape(reduced_shape(x.shape, axes, True))


# The type a sum of each dtype accumulates in: floats as `accumulate.WIDER` sums them (the
# numbers of MXNet's compensated reducer), integers in a wider integer.
_ACC = {**accumulate.WIDER,
        np.dtype(np.float64): np.float64, np.dtype(np.int8): np.int32,
        np.dtype(np.uint8): np.int32, np.dtype(np.int32): np.int64,
        np.dtype(np.int64): np.int64, np.dtype(np.bool_): np.int64}


def _sum(p, rc, x):
    _no_initial("_np_sum", p)
    axes = np_axes("_np_sum", p.axis, x.ndim)
    dt = _result_dtype("_np_sum", p, x.dtype)
    y = rc.xp.sum(x, axis=axes, dtype=_ACC[x.dtype], keepdims=p.keepdims)
    return rc.xp.asarray(y).astype(dt, copy=False)


def _sum_vjp(p, rc, xs, ys, gys, need):
    x = xs[0]
    axes = np_axes("_np_sum", p.axis, x.ndim)
    return (rc.xp.broadcast_to(_kept(x, axes, gys[0]), x.shape).astype(x.dtype),)


def _degenerate(degenerate, f, *args, **kwargs):
    """``f(*args, **kwargs)``, with numpy's own RuntimeWarnings ("Mean of empty slice",
    "Degrees of freedom <= 0") silenced when `degenerate` (no entries to reduce, or no degrees
    of freedom left): MXNet gives NaN there silently. (The float errors of the arithmetic
    are ignored by every operator's runner, ops/float_errors.py.)"""
    if not degenerate:
        return f(*args, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return f(*args, **kwargs)


def _mean(p, rc, x):
    axes = np_axes("_npi_mean", p.axis, x.ndim)
    dt = _result_dtype("_npi_mean", p, x.dtype)
    if dt.kind != "f":  # an integer dtype: summed in it (wrapping), then divided (truncated)
        n = prod(x.shape[a] for a in axes)
        with np.errstate(over="ignore"):
            s = rc.xp.sum(x.astype(dt), axis=axes, dtype=dt, keepdims=p.keepdims)
        with np.errstate(invalid="ignore", divide="ignore"):
            return rc.xp.asarray(rc.xp.trunc(s / float(n)) if n else s / 0.0).astype(dt)
    if dt == x.dtype:  # summed wider, as MXNet's compensated reducer (`accumulate`)
        return accumulate.wide_mean(rc.xp, x, axes, p.keepdims)
    acc = np.float32 if dt == np.float16 else dt
    y = _degenerate(prod(x.shape[a] for a in axes) == 0, rc.xp.mean, x, axis=axes, dtype=acc,
                    keepdims=p.keepdims)
    return rc.xp.asarray(y).astype(dt, copy=False)


def _mean_vjp(p, rc, xs, ys, gys, need):
    x = xs[0]
    axes = np_axes("_npi_mean", p.axis, x.ndim)
    n = prod(x.shape[a] for a in axes)
    g = _kept(x, axes, gys[0]).astype(x.dtype) / float(max(n, 1))
    return (rc.xp.broadcast_to(g, x.shape).astype(x.dtype),)


def _prod(p, rc, x):
    _no_initial("_np_prod", p)
    axes = np_axes("_np_prod", p.axis, x.ndim)
    dt = _result_dtype("_np_prod", p, x.dtype)
    y = rc.xp.prod(x.astype(dt, copy=False), axis=axes, keepdims=p.keepdims)
    return rc.xp.asarray(y).astype(dt, copy=False)


def _prod_vjp(p, rc, xs, ys, gys, need):
    """The product of the other entries of each reduced group (exact where entries are 0):
    the reduced axes are moved last and flattened, and the exclusive products from the left
    and from the right multiplied."""
    xp, x = rc.xp, xs[0]
    axes = np_axes("_np_prod", p.axis, x.ndim)
    keep = [a for a in range(x.ndim) if a not in axes]
    t = xp.transpose(x, keep + list(axes))
    lead = t.shape[:len(keep)]
    flat = t.reshape(lead + (-1,))
    ones = xp.ones(lead + (1,), x.dtype)
    left = xp.cumprod(xp.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
    right = xp.flip(xp.cumprod(xp.flip(xp.concatenate([flat[..., 1:], ones], axis=-1), -1),
                               axis=-1), -1)
    others = (left * right).reshape(t.shape)
    inv = tuple(int(i) for i in np.argsort(keep + list(axes)))
    others = xp.transpose(others, inv)
    return ((_kept(x, axes, gys[0]) * others).astype(x.dtype),)


def _maxmin(name, fn):
    def kernel(p, rc, x):
        _no_initial(name, p)
        axes = np_axes(name, p.axis, x.ndim)
        if x.size == 0 and any(x.shape[a] == 0 for a in axes):
            raise MXNetValueError(f"{name}: reduction over an empty axis has no identity "
                                  f"(data shape {x.shape}, axis={p.axis})")
        return rc.xp.asarray(getattr(rc.xp, fn)(x, axis=axes, keepdims=p.keepdims))

    def vjp(p, rc, xs, ys, gys, need):
        x = xs[0]
        axes = np_axes(name, p.axis, x.ndim)
        y = _kept(x, axes, ys[0])
        return ((_kept(x, axes, gys[0]) * (x == y)).astype(x.dtype),)

    kernel.__doc__ = (f"{name}(a, axis=None, keepdims=False): NumPy's {fn} over `axis` (every "
                      "entry equal to the extreme gets the gradient).")
    register(name, inputs=("a",), attrs=_MAXMIN_ATTRS, shape=_shape_rule(name), vjp=vjp,
             aliases=(f"_np_a{fn}",))(kernel)


def _moment(name, ddof_var):
    def kernel(p, rc, x):
        if x.dtype == np.bool_:
            raise MXNetValueError(f"{name}: bool data is not supported (MXNet: Unknown type "
                                  "enum 7)")
        axes = np_axes(name, p.axis, x.ndim)
        dt = _result_dtype(name, p, x.dtype)
        if dt == x.dtype and x.dtype in accumulate.WIDER:
            # MXNet's order, each sum wider (`accumulate`): the mean, then the mean of the
            # squared deviations over the count less ddof, then its square root
            m = accumulate.wide_mean(rc.xp, x, axes, keepdims=True)
            v = accumulate.wide_mean(rc.xp, rc.xp.square(x - m), axes, p.keepdims, p.ddof)
            return v if ddof_var else rc.xp.asarray(rc.xp.sqrt(v))
        f = rc.xp.var if ddof_var else rc.xp.std
        y = _degenerate(prod(x.shape[a] for a in axes) - p.ddof <= 0, f,
                        x.astype(np.float64 if x.dtype.kind != "f" else x.dtype), axis=axes,
                        ddof=p.ddof, keepdims=p.keepdims)
        return rc.xp.asarray(y).astype(dt)

    def vjp(p, rc, xs, ys, gys, need):
        x = xs[0]
        axes = np_axes(name, p.axis, x.ndim)
        n = prod(x.shape[a] for a in axes)
        mean = x.mean(axis=axes, keepdims=True)
        g = _kept(x, axes, gys[0])
        with np.errstate(invalid="ignore", divide="ignore"):
            if ddof_var:
                gx = g * 2 * (x - mean) / (n - p.ddof)
            else:
                gx = g * (x - mean) / ((n - p.ddof) * _kept(x, axes, ys[0]))
        return (gx.astype(x.dtype),)

    kernel.__doc__ = (f"{name}(a, axis=None, dtype=None, ddof=0, keepdims=False): NumPy's "
                      f"{'var' if ddof_var else 'std'}.")
    register(name, inputs=("a",), attrs=_MOMENT_ATTRS, shape=_shape_rule(name), vjp=vjp,
             dtype=_dtype_rule(name))(kernel)


_sum.__doc__ = ("_np_sum(a, axis=None, dtype=None, keepdims=False): NumPy's sum (bool data "
                "counts in int64).")
_mean.__doc__ = ("_npi_mean(a, axis=None, dtype=None, keepdims=False): NumPy's mean (integer "
                 "data gives float32).")
_prod.__doc__ = "_np_prod(a, axis=None, dtype=None, keepdims=False): NumPy's product."
register("_np_sum", inputs=("a",), attrs=_ATTRS, shape=_shape_rule("_np_sum"), vjp=_sum_vjp,
         dtype=_dtype_rule("_np_sum"))(_sum)
register("_npi_mean", inputs=("a",), attrs=_ATTRS, shape=_shape_rule("_npi_mean"),
         vjp=_mean_vjp, dtype=_dtype_rule("_npi_mean"))(_mean)
register("_np_prod", inputs=("a",), attrs=_ATTRS, shape=_shape_rule("_np_prod"),
         vjp=_prod_vjp, dtype=_dtype_rule("_np_prod"), aliases=("_np_product",))(_prod)
_maxmin("_np_max", "max")
_maxmin("_np_min", "min")
_moment("_npi_std", False)
_moment("_npi_var", True)


def _logical(name, fn):
    def kernel(p, rc, x):
        axes = np_axes(name, p.axis, x.ndim)
        return rc.xp.asarray(getattr(rc.xp, fn)(x, axis=axes, keepdims=p.keepdims))

    kernel.__doc__ = f"{name}(data, axis=None, keepdims=False): NumPy's {fn} (a bool array)."
    register(name, attrs=_BOOL_ATTRS, shape=_shape_rule(name), nondiff=("data",),
             dtype=lambda p, ins: (ins, [np.dtype(np.bool_)]),
             aliases=("_np_sometrue",) if fn == "any" else ())(kernel)


_logical("_np_all", "all")
_logical("_np_any", "any")


def _arg_shape(name):
    def rule(p, ins):
        if ins[0] is None:
            return ins, [None]
        if p.axis is None or (not ins[0] and p.axis in (0, -1)):
            return ins, [(1,) * len(ins[0]) if p.keepdims else ()]
        ax = norm_axis(name, p.axis, len(ins[0]))
        return ins, [reduced_shape(ins[0], (ax,), p.keepdims)]
    return rule


def _argext(name, fn):
    def kernel(p, rc, x):
        if x.dtype == np.bool_:
            raise MXNetValueError(f"{name}: bool data is not supported (as in MXNet 1.9.1)")
        axis = None if x.ndim == 0 else p.axis  # a 0-d array takes axis 0 / -1, as NumPy
        if x.size == 0 and (axis is None or x.shape[axis] == 0):  # an empty reduced extent
            raise MXNetValueError(f"{name}: attempt to get {fn} of an empty sequence")
        y = getattr(rc.xp, fn)(x, axis=axis, keepdims=p.keepdims) if axis is not None \
            else getattr(rc.xp, fn)(x)
        y = rc.xp.asarray(y, dtype=np.int64)
        if p.axis is None and p.keepdims:
            y = y.reshape((1,) * x.ndim)
        return y

    kernel.__doc__ = f"{name}(data, axis=None, keepdims=False): NumPy's {fn} (int64)."
    register(name, attrs={"axis": A.OptionalInt(), "keepdims": A.Bool(False)},
             shape=_arg_shape(name), nondiff=("data",),
             dtype=lambda p, ins: (ins, [np.dtype(np.int64)]))(kernel)


_argext("_npi_argmax", "argmax")
_argext("_npi_argmin", "argmin")


def _average_inputs(p):
    return ["a", "weights"] if p.weighted else ["a"]


def _average_shape(p, ins):
    a = ins[0]
    if a is None:
        return ins, [None, None]
    axes = np_axes("_npi_average", p.axis, len(a))
    out = reduced_shape(a, axes, False)
    if p.weighted and ins[1] is not None:
        w = tuple(ins[1])
        if w != tuple(a) and not (p.axis is not None and len(w) == 1 and len(axes) == 1
                                  and w[0] == a[axes[0]]):
            raise MXNetValueError(f"_npi_average: weights of shape {w} do not fit a of shape "
                                  f"{tuple(a)} along axis={p.axis} (same shape, or 1-D along "
                                  "the one axis)")
    return ins, [out, out]


def _weights_full(a, w, axes):
    if w.shape == a.shape:
        return w
    shape = [1] * a.ndim
    shape[axes[0]] = w.shape[0]
    return w.reshape(shape)


@register("_npi_average", inputs=_average_inputs, signature=("a", "weights"),
          attrs={"axis": A.Axis(None), "returned": A.Bool(False), "weighted": A.Bool(True)},
          outputs=2, visible=lambda p: 2 if p.returned else 1, shape=_average_shape,
          dtype=lambda p, ins: (ins, [ins[0], ins[0]]),
          vjp=lambda p, rc, xs, ys, gys, need: _average_vjp(p, rc, xs, ys, gys, need))
def _average(p, rc, a, w=None):
    """_npi_average(a, weights=None, axis=None, returned=False, weighted=True): the weighted
    mean (and the sum of weights, the second output), in a's dtype."""
    xp = rc.xp
    axes = np_axes("_npi_average", p.axis, a.ndim)
    af = a.astype(np.float64) if a.dtype.kind != "f" else a
    if w is None:
        n = prod(a.shape[k] for k in axes)
        s = xp.sum(af, axis=axes) / n
        wsum = xp.full(s.shape, n, dtype=a.dtype)
    else:
        wf = _weights_full(a, w, axes).astype(af.dtype)
        ws = xp.sum(xp.broadcast_to(wf, a.shape), axis=axes)
        s = xp.sum(af * wf, axis=axes) / ws
        wsum = ws
    return xp.asarray(s).astype(a.dtype), xp.asarray(wsum).astype(a.dtype)


def _average_vjp(p, rc, xs, ys, gys, need):
    """Gradients of avg = sum(a w) / sum(w) and of the second output sum(w) (weights
    broadcast along `axis` when 1-D)."""
    xp = rc.xp
    a = xs[0]
    axes = np_axes("_npi_average", p.axis, a.ndim)
    g0 = gys[0] if gys[0] is not None else xp.zeros(ys[0].shape, ys[0].dtype)
    gk = _kept(a, axes, g0)
    if len(xs) == 1:
        n = prod(a.shape[k] for k in axes)
        return (xp.broadcast_to(gk / n, a.shape).astype(a.dtype),)
    w = _weights_full(a, xs[1], axes)
    wb = xp.broadcast_to(w, a.shape)
    ws = _kept(a, axes, ys[1])
    avg = _kept(a, axes, ys[0])
    ga = (gk * wb / ws).astype(a.dtype)
    gw_full = gk * (a - avg) / ws
    if gys[1] is not None:  # d sum(w) / d w = 1 for every (broadcast) copy
        gw_full = gw_full + _kept(a, axes, gys[1])
    gw_full = xp.broadcast_to(gw_full, a.shape)
    if xs[1].shape == a.shape:
        gw = gw_full
    else:
        other = tuple(k for k in range(a.ndim) if k != axes[0])
        gw = gw_full.sum(axis=other)
    return ga, gw.astype(xs[1].dtype)
