"""Ordering operators: argmin, argmax_channel, sort, argsort, topk (every ``ret_typ``), and
cumsum.

Rows of distinct values are ordered by a stable sort. MXNet 1.9.1's CPU kernel orders each
row with libstdc++'s std::sort (std::partial_sort when topk's k is under an eighth of the
row), which moves tied values around and leaves NaN wherever the algorithm happens to put
it: rows holding NaN, or ties among the places asked for, are ordered by those algorithms
themselves (`stdsort`), so they give MXNet's indices (rows of up to 65,536 values; longer
ones keep the stable order). `axis=None` works on the flattened data. Index outputs have the
float dtype `dtype` (float32 by default), as in MXNet.
"""
import numpy as np

from . import attrs as A
from .reduce import arg_reduce_shape
from .registry import ShapeError, register
from .rules import norm_axis
from .stdsort import needs_std, std_partial_sort, std_sort

_INDEX_DTYPES = ("float16", "float32", "float64", "int32", "int64", "uint8")


def _index_dtype(default="float32"):
    return A.Enum(*_INDEX_DTYPES, default=default)


def _flat_or_axis(name, x, axis):
    """(data, axis) with axis=None meaning the flattened data, axis normalised."""
    if axis is None:
        return x.reshape(-1), 0
    return x, norm_axis(name, axis, x.ndim)


def _order(xp, x, axis, ascend, k=None, values_only=False):
    """The order of x along `axis` MXNet's kernel gives (its first k places when k is given):
    a stable argsort, and libstdc++'s algorithms on the rows where they differ (NaN, or ties
    among the first k + 1; only NaN when `values_only`)."""
    if ascend:
        idx = xp.argsort(x, axis=axis, kind="stable")
    else:
        key = -x.astype(np.float64) if x.dtype.kind in "ub" else -x
        idx = xp.argsort(key, axis=axis, kind="stable")
    n = x.shape[axis] if x.ndim else 1
    if xp is not np or n < 2 or x.dtype.kind not in "fiu":
        return idx
    k = n if k is None or k <= 0 else k
    rows = np.moveaxis(x, axis, -1).reshape(-1, n)
    order = np.moveaxis(idx, axis, -1).reshape(-1, n)
    odd = np.flatnonzero(needs_std(rows, order, min(k, n - 1), values_only))
    if not odd.size:
        return idx
    order = order.copy()
    for r in odd:  # MXNet: std::sort unless k is under an eighth of the row
        vals = rows[r].tolist()
        order[r] = (std_sort(vals, not ascend) if k * 8 > n else
                    std_partial_sort(vals, k, not ascend))
    return np.moveaxis(order.reshape(np.moveaxis(idx, axis, -1).shape), -1, axis)


# ---- argmin, argmax_channel ----
_argmin_shape = arg_reduce_shape("argmin")


@register("argmin", attrs={"axis": A.OptionalInt(), "keepdims": A.Bool(False)},
          shape=_argmin_shape, nondiff=("data",))
def _argmin(p, rc, x):
    """argmin(data, axis=None, keepdims=False): index of the (first) minimum along `axis`
    (of the flattened data when None), in data's dtype.
    """
    if p.axis is None:
        return x.argmin().reshape(1).astype(x.dtype)
    y = x.argmin(axis=norm_axis("argmin", p.axis, x.ndim))
    return y.astype(x.dtype).reshape(_argmin_shape(p, [x.shape])[1][0])


def _argmax_channel_shape(p, ins):
    if ins[0] is None:
        return ins, [None]
    s = tuple(ins[0])
    if len(s) < 2:
        raise ShapeError(f"argmax_channel: data must have at least 2 dimensions, got {s}")
    return ins, [s[:1] + s[2:]]


@register("argmax_channel", shape=_argmax_channel_shape, nondiff=("data",))
def _argmax_channel(p, rc, x):
    """argmax_channel(data): index of the maximum along axis 1, in data's dtype.
    """
    return x.argmax(axis=1).astype(x.dtype)


# ---- sort, argsort ----
_SORT_ATTRS = {"axis": A.Attr(A._optional(A._int), -1, "int"), "is_ascend": A.Bool(True)}


def _sort_shape(p, ins):
    if ins[0] is None:
        return ins, [None]
    s = tuple(ins[0])
    if p.axis is None:
        return ins, [(int(np.prod(s)),)]
    norm_axis("sort", p.axis, len(s))
    return ins, [s]


def _sort_vjp(p, rc, xs, ys, gys, need):
    x = xs[0]
    xf, ax = _flat_or_axis("sort", x, p.axis)
    idx = _order(rc.xp, xf, ax, p.is_ascend, values_only=True)
    g = rc.xp.zeros(xf.shape, dtype=gys[0].dtype)
    rc.xp.put_along_axis(g, idx, gys[0].reshape(xf.shape), axis=ax)
    return (g.reshape(x.shape),)


@register("sort", attrs=_SORT_ATTRS, shape=_sort_shape, vjp=_sort_vjp)
def _sort(p, rc, x):
    """sort(data, axis=-1, is_ascend=True): data sorted along `axis` (the flattened data when
    None).
    """
    xf, ax = _flat_or_axis("sort", x, p.axis)
    return rc.xp.take_along_axis(xf, _order(rc.xp, xf, ax, p.is_ascend, values_only=True),
                                 axis=ax)


@register("argsort", attrs={**_SORT_ATTRS, "dtype": _index_dtype()}, shape=_sort_shape,
          dtype=lambda p, ins: (ins, [np.dtype(p.dtype)]), nondiff=("data",))
def _argsort(p, rc, x):
    """argsort(data, axis=-1, is_ascend=True, dtype='float32'): the indices that sort data
    along `axis` (stable: equal values keep their order), as `dtype`.
    """
    xf, ax = _flat_or_axis("argsort", x, p.axis)
    return _order(rc.xp, xf, ax, p.is_ascend).astype(p.dtype)


# ---- topk ----
_RET_TYPES = ("both", "indices", "mask", "value")


def _topk_k(p, shape):
    """The number of elements taken (k <= 0: all of them), checked against the axis."""
    n = int(np.prod(shape)) if p.axis is None else shape[norm_axis("topk", p.axis, len(shape))]
    if p.k > n:
        raise ShapeError(f"topk: k={p.k} is larger than the {n} elements along the axis")
    return n if p.k <= 0 else p.k


def _topk_shape(p, ins):
    if ins[0] is None:
        return ins, [None] * _topk_outputs(p)
    s = tuple(ins[0])
    k = _topk_k(p, s)
    if p.ret_typ == "mask":
        return ins, [s]
    if p.axis is None:
        out = (k,)
    else:
        ax = norm_axis("topk", p.axis, len(s))
        out = s[:ax] + (k,) + s[ax + 1:]
    return ins, [out] * _topk_outputs(p)


def _topk_outputs(p):
    return 2 if p.ret_typ == "both" else 1


def _topk_dtype(p, ins):
    d = ins[0]
    if p.ret_typ == "indices":
        return ins, [np.dtype(p.dtype)]
    if p.ret_typ == "both":
        return ins, [d, np.dtype(p.dtype)]
    return ins, [d]


def _topk_idx(p, rc, x):
    xf, ax = _flat_or_axis("topk", x, p.axis)
    k = _topk_k(p, x.shape)
    idx = _order(rc.xp, xf, ax, p.is_ascend, k, values_only=p.ret_typ == "value")
    return xf, ax, rc.xp.take(idx, rc.xp.arange(k), axis=ax)


def _topk_vjp(p, rc, xs, ys, gys, need):
    x, g = xs[0], gys[0]
    if p.ret_typ not in ("value", "both") or g is None:
        return (rc.xp.zeros_like(x),)
    xf, ax, idx = _topk_idx(p, rc, x)
    gx = rc.xp.zeros(xf.shape, dtype=g.dtype)
    rc.xp.put_along_axis(gx, idx, g, axis=ax)
    return (gx.reshape(x.shape),)


@register("topk", attrs={"axis": A.Attr(A._optional(A._int), -1, "int"), "k": A.Int(1),
                         "ret_typ": A.Enum(*_RET_TYPES, default="indices"),
                         "is_ascend": A.Bool(False), "dtype": _index_dtype()},
          outputs=_topk_outputs, shape=_topk_shape, dtype=_topk_dtype, vjp=_topk_vjp)
def _topk(p, rc, x):
    """topk(data, axis=-1, k=1, ret_typ='indices', is_ascend=False, dtype='float32'): the k
    largest (smallest with `is_ascend`) elements along `axis` (of the flattened data when
    None; k <= 0 takes all). `ret_typ`: 'value' (the elements), 'indices' (their positions,
    as `dtype`), 'both' ([value, indices]) or 'mask' (data's shape, 1 at the chosen places).
    Only the values carry a gradient.

    Raises:
        ValueError: k larger than the axis.
    """
    xf, ax, idx = _topk_idx(p, rc, x)
    if p.ret_typ == "mask":
        m = rc.xp.zeros(xf.shape, dtype=x.dtype)
        rc.xp.put_along_axis(m, idx, 1, axis=ax)
        return m.reshape(x.shape)
    values = rc.xp.take_along_axis(xf, idx, axis=ax)
    if p.ret_typ == "value":
        return values
    if p.ret_typ == "indices":
        return idx.astype(p.dtype)
    return values, idx.astype(p.dtype)


# ---- cumsum ----
def _cumsum_shape(p, ins):
    if ins[0] is None:
        return ins, [None]
    s = tuple(ins[0])
    if p.axis is None:
        return ins, [(int(np.prod(s)),)]
    norm_axis("cumsum", p.axis, len(s))
    return ins, [s]


def _cumsum_dtype(v):
    if v is None or (isinstance(v, str) and v.strip() == "None"):
        return None
    name = A._dtype(v)
    if name not in ("float16", "float32", "float64", "int32", "int64", "int8"):
        raise ValueError(f"expected None or one of float16, float32, float64, int32, int64, "
                         f"int8, got {v!r}")
    return name


def _cumsum_out(d):
    """cumsum's default result dtype: the data's, bool counted in int64 (as MXNet's)."""
    return np.dtype(np.int64) if np.dtype(d) == np.bool_ else np.dtype(d)


def _cumsum_vjp(p, rc, xs, ys, gys, need):
    x = xs[0]
    xf, ax = _flat_or_axis("cumsum", x, p.axis)
    g = rc.xp.flip(rc.xp.cumsum(rc.xp.flip(gys[0].reshape(xf.shape), ax), axis=ax), ax)
    return (g.reshape(x.shape).astype(x.dtype, copy=False),)


@register("_np_cumsum", aliases=("cumsum",), inputs=("a",), shape=_cumsum_shape,
          attrs={"axis": A.OptionalInt(), "dtype": A.Attr(_cumsum_dtype, None, "enum")},
          dtype=lambda p, ins: (ins, [np.dtype(p.dtype) if p.dtype else
                                      (None if ins[0] is None else _cumsum_out(ins[0]))]),
          vjp=_cumsum_vjp)
def _cumsum(p, rc, x):
    """cumsum(a, axis=None, dtype=None): running sums along `axis` (of the flattened data
    when None), in `dtype` (default: a's dtype).
    """
    xf, ax = _flat_or_axis("cumsum", x, p.axis)
    return rc.xp.cumsum(xf, axis=ax, dtype=p.dtype or _cumsum_out(x.dtype))
