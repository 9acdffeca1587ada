"""Indexing operators: gather_nd, scatter_nd, _scatter_set_nd, ravel_multi_index,
unravel_index, batch_take, fill_element_0index, _onehot_encode.

Index inputs hold integer values in any dtype and take no gradient. ``gather_nd`` and
``scatter_nd`` read ``indices`` of shape (M, Y0, ..., Yk): column y addresses the first M
axes of the data (negative entries count from the end, as in MXNet).
"""
import numpy as np

from . import attrs as A
from .registry import ShapeError, register
from .rules import fmt_shapes


def _nd_index(xp, idx, shape):
    """A tuple of M integer arrays from `indices` (M, ...), negative entries wrapped."""
    i = idx.astype(np.int64)
    return tuple(i[m] % shape[m] for m in range(i.shape[0]))


# ---- gather_nd / scatter_nd ----
def _gather_nd_shape(p, ins):
    d, i = ins
    if d is None or i is None:
        return ins, [None]
    d, i = tuple(d), tuple(i)
    if not i or i[0] > len(d):
        raise ShapeError(f"gather_nd: indices of shape {i} address {i[0] if i else 0} axes "
                         f"but data {d} has {len(d)}")
    return ins, [i[1:] + d[i[0]:] or (1,)]


def _gather_nd_vjp(p, rc, xs, ys, gys, need):
    d, idx = xs
    g = rc.xp.zeros(d.shape, dtype=gys[0].dtype)
    rest = d.shape[idx.shape[0]:]
    rc.xp.add.at(g, _nd_index(rc.xp, idx, d.shape), gys[0].reshape(idx.shape[1:] + rest))
    return g, None


@register("gather_nd", inputs=("data", "indices"), nondiff=("indices",),
          shape=_gather_nd_shape, dtype=lambda p, ins: (ins, [ins[0]]), vjp=_gather_nd_vjp)
def _gather_nd(p, rc, d, idx):
    """gather_nd(data, indices): ``out[y] = data[indices[0, y], ..., indices[M-1, y]]``;
    output shape ``indices.shape[1:] + data.shape[M:]``.
    """
    i = idx.astype(np.int64)
    for m in range(i.shape[0]):
        bad = (i[m] < -d.shape[m]) | (i[m] >= d.shape[m])
        # (an explicit copy of the one flag to the host on a device)
        if bool(bad.any() if rc.xp is np else rc.xp.asnumpy(bad.any())):
            # an IndexError as MXNet's (and numpy's) is, not a wrapped index
            row = i[m][bad].ravel()[:1]
            v = int((row if rc.xp is np else rc.xp.asnumpy(row))[0])
            raise IndexError(f"gather_nd: index {v} is out of bounds for axis {m} with "
                             f"size {d.shape[m]}")
    out = d[_nd_index(rc.xp, idx, d.shape)]
    return out.reshape(_gather_nd_shape(p, [d.shape, idx.shape])[1][0])


def _scatter_nd_shape(p, ins):
    d, i = ins
    out = tuple(p.shape)
    if i is not None and d is not None:
        want = tuple(i)[1:] + out[tuple(i)[0]:]
        if tuple(d) != (want or (1,)):
            raise ShapeError(f"scatter_nd: data must have shape {want} for indices "
                             f"{tuple(i)} and shape={out}, got {tuple(d)}")
    return ins, [out]


def _scatter_nd_vjp(p, rc, xs, ys, gys, need):
    d, idx = xs
    return gys[0][_nd_index(rc.xp, idx, p.shape)].reshape(d.shape), None


@register("scatter_nd", inputs=("data", "indices"), nondiff=("indices",),
          attrs={"shape": A.Shape()}, shape=_scatter_nd_shape,
          dtype=lambda p, ins: (ins, [ins[0]]), vjp=_scatter_nd_vjp)
def _scatter_nd(p, rc, d, idx):
    """scatter_nd(data, indices, shape): zeros of `shape` with
    ``out[indices[0, y], ..., indices[M-1, y]] = data[y]`` (the inverse of gather_nd; where
    an index repeats, the last write wins).
    """
    out = rc.xp.zeros(p.shape, dtype=d.dtype)
    out[_nd_index(rc.xp, idx, p.shape)] = d.reshape(idx.shape[1:] + tuple(p.shape)[idx.shape[0]:])
    return out


def _scatter_set_shape(p, ins):
    lhs, rhs, i = ins
    ins[0] = lhs if lhs is not None else tuple(p.shape)
    _, out = _scatter_nd_shape(p, [rhs, i])
    return ins, out


def _scatter_set_vjp(p, rc, xs, ys, gys, need):
    lhs, rhs, idx = xs
    where = _nd_index(rc.xp, idx, p.shape)
    g = gys[0].copy()
    g[where] = 0
    return g, gys[0][where].reshape(rhs.shape), None


@register("_scatter_set_nd", inputs=("lhs", "rhs", "indices"), nondiff=("indices",),
          attrs={"shape": A.Shape()}, shape=_scatter_set_shape,
          dtype=lambda p, ins: (ins, [ins[0]]), vjp=_scatter_set_vjp,
          same_dtype=("lhs", "rhs"))
def _scatter_set_nd(p, rc, lhs, rhs, idx):
    """_scatter_set_nd(lhs, rhs, indices, shape): a copy of lhs with the places `indices`
    addresses (as in scatter_nd) set to rhs."""
    out = lhs.copy()
    out[_nd_index(rc.xp, idx, p.shape)] = rhs.reshape(idx.shape[1:] + tuple(p.shape)[idx.shape[0]:])
    return out


# ---- ravel_multi_index / unravel_index ----
def _ravel_shape(p, ins):
    d = ins[0]
    if d is None:
        return ins, [None]
    d = tuple(d)
    if d[0] != len(p.shape):
        raise ShapeError(f"ravel_multi_index: data must have {len(p.shape)} rows (one per "
                         f"axis of shape={tuple(p.shape)}), got shape {d}")
    return ins, [d[1:] or (1,)]


@register("ravel_multi_index", aliases=("_ravel_multi_index",), attrs={"shape": A.Shape()},
          shape=_ravel_shape, nondiff=("data",))
def _ravel(p, rc, d):
    """ravel_multi_index(data, shape): flat indices into an array of `shape` of the
    multi-indices in data's columns (data: (len(shape), ...)), in data's dtype.
    """
    i = d.astype(np.int64)
    flat = rc.xp.zeros(i.shape[1:], dtype=np.int64)
    for m, n in enumerate(p.shape):
        flat = flat * n + i[m]
    return flat.astype(d.dtype).reshape(_ravel_shape(p, [d.shape])[1][0])


@register("unravel_index", aliases=("_unravel_index",), attrs={"shape": A.Shape()},
          shape=lambda p, ins: (ins, [None if ins[0] is None else
                                      (len(p.shape),) + tuple(ins[0])]),
          nondiff=("data",))
def _unravel(p, rc, d):
    """unravel_index(data, shape): the multi-indices, one row per axis of `shape`, of the
    flat indices in data (the inverse of ravel_multi_index), in data's dtype; the first row
    is not wrapped by shape[0] (which may be -1).
    """
    i = d.astype(np.int64)
    rows = []
    for n in reversed(p.shape[1:]):
        rows.append(rc.xp.fmod(i, n))  # C's remainder and quotient, as MXNet's kernel
        i = (i - rows[-1]) // n
    # the leading axis takes the whole quotient, unbounded (shape[0] may be -1), as MXNet
    rows.append(i)
    return rc.xp.stack(rows[::-1]).astype(d.dtype)


# ---- batch_take, fill_element_0index, _onehot_encode ----
def _rows_index(name, ins):
    a, i = ins[0], ins[-1]
    if a is not None and i is not None and (len(a) != 2 or tuple(i) != (a[0],)):
        raise ShapeError(f"{name}: expects a matrix (N, M) and N indices, got "
                         f"{fmt_shapes(ins)}")


def _batch_take_shape(p, ins):
    _rows_index("batch_take", ins)
    return ins, [None if ins[1] is None else tuple(ins[1])]


@register("batch_take", inputs=("a", "indices"), nondiff=("a", "indices"),
          shape=_batch_take_shape, dtype=lambda p, ins: (ins, [ins[0]]))
def _batch_take(p, rc, a, idx):
    """batch_take(a, indices): ``out[i] = a[i, indices[i]]`` for a matrix a, indices
    clipped to the row (no gradient, as in MXNet; `pick` is the differentiable form).
    """
    i = rc.xp.clip(idx.astype(np.int64), 0, a.shape[1] - 1)
    return a[rc.xp.arange(a.shape[0]), i]


def _fill_shape(p, ins):
    lhs, mhs, rhs = ins
    _rows_index("fill_element_0index", [lhs, mhs])
    _rows_index("fill_element_0index", [lhs, rhs])
    return ins, [None if lhs is None else tuple(lhs)]


def _fill_vjp(p, rc, xs, ys, gys, need):
    lhs, mhs, rhs = xs
    rows, cols = rc.xp.arange(lhs.shape[0]), rhs.astype(np.int64)
    g = gys[0].copy()
    g[rows, cols] = 0
    return g, gys[0][rows, cols], None


@register("fill_element_0index", inputs=("lhs", "mhs", "rhs"), nondiff=("rhs",),
          shape=_fill_shape, dtype=lambda p, ins: (ins, [ins[0]]), vjp=_fill_vjp)
def _fill_element(p, rc, lhs, mhs, rhs):
    """fill_element_0index(lhs, mhs, rhs): a copy of the matrix lhs with
    ``out[i, rhs[i]] = mhs[i]`` for every row i.
    """
    out = lhs.copy()
    out[rc.xp.arange(lhs.shape[0]), rhs.astype(np.int64)] = mhs
    return out


@register("_onehot_encode", inputs=("lhs", "rhs"), nondiff=("lhs", "rhs"),
          shape=lambda p, ins: (ins, [None if ins[1] is None else tuple(ins[1])]),
          dtype=lambda p, ins: (ins, [ins[1]]), same_dtype=())
def _onehot_encode(p, rc, idx, like):
    """_onehot_encode(lhs, rhs): rows of zeros shaped as rhs (N, depth) with a 1 at column
    lhs[i] of row i (what `nd.onehot_encode(indices, out)` writes)."""
    out = rc.xp.zeros(like.shape, dtype=like.dtype)
    out[rc.xp.arange(like.shape[0]), idx.astype(np.int64)] = 1
    return out
