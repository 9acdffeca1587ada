"""Reductions and shape operators on sparse storage: the storage rules of `sum`, `mean`,
`norm` (`gluonlite.ops.reduce`), `slice` and `Concat` (`gluonlite.ops.shape`).

sum, mean and the 2-norm of a sparse array are dense results (as in MXNet) computed from
the stored values only, so a huge row_sparse array is never made dense; a csr array sliced
by rows and columns, or csr arrays joined along axis 0, stay csr.

Example::

    from gluonlite.ops.sparse.reduce import SUM
    from gluonlite.ops.sparse.arrays import from_dense
    from gluonlite.ops.registry import RunCtx
    p = mx.ops.get("sum").parse({"axis": 0})[0]
    rsp = from_dense(np.eye(2), "row_sparse")
    SUM.kernel(p, RunCtx(False, np), rsp)      # array([1., 1.]): dense
"""
import numpy as np
import scipy.sparse as spsp

from ..accumulate import WIDER, wide_sum
from .arrays import RowSparse, from_scipy, host, is_sparse
from .grads import RowSparseRows
from .rule import StorageRule, stype_of

__all__ = ["SUM", "MEAN", "SQUARE_SUM", "NORM", "SLICE", "CONCAT"]


def _axes(axis, ndim):
    if axis is None or axis == ():
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    return tuple(sorted(int(a) % ndim for a in axes))


def _dense_out(v, like):
    v = np.asarray(v, dtype=like.data.dtype)
    return v.reshape(v.shape or (1,))


def _reduce_parts(data, axes, fn):
    """`fn` (identity or the square) of the stored values summed over `axes`: the missing
    entries are zeros, so only the stored values are read. Float sums are accumulated wider
    and rounded once, as MXNet's compensated reducer gives them (`ops.accumulate`)."""
    vals = fn(data.data)
    if data.stype == "csr":
        if axes == (0, 1):
            return wide_sum(np, vals, None)
        wider = WIDER.get(vals.dtype, vals.dtype)
        m = spsp.csr_matrix((vals.astype(wider), data.indices, data.indptr), shape=data.shape)
        return np.asarray(m.sum(axis=axes[0])).reshape(-1).astype(vals.dtype)
    if 0 in axes:
        return wide_sum(np, vals, axes)
    part = wide_sum(np, vals, axes)
    out = np.zeros((data.shape[0],) + part.shape[1:], part.dtype)
    out[data.indices] = part
    return out


def _sum_mean(mean):
    def kernel(p, rc, data):
        if not is_sparse(data) or p.exclude:
            return None
        axes = _axes(p.axis, data.ndim)
        v = _reduce_parts(data, axes, lambda x: x)
        if mean:
            v = v / np.prod([data.shape[a] for a in axes])
        if p.keepdims:
            v = np.reshape(v, tuple(1 if i in axes else d for i, d in enumerate(data.shape)))
        return _dense_out(v, data)
    return StorageRule(kernel)


SUM, MEAN = _sum_mean(False), _sum_mean(True)


def _square_sum(p, rc, data):
    """_square_sum of a 2-D row_sparse array from the stored rows: row_sparse (the same rows)
    for axis=1 with keepdims, as MXNet's fused kernel; dense otherwise. Other storage: the
    dense kernel."""
    if stype_of(data) != "row_sparse" or p.exclude or data.ndim != 2:
        return None
    axes = _axes(p.axis, data.ndim)
    if axes == (1,) and p.keepdims:
        rows = wide_sum(np, np.square(data.data), 1, keepdims=True)
        return RowSparse(rows, data.indices.copy(), (data.shape[0], 1))
    v = _reduce_parts(data, axes, np.square)
    if p.keepdims:
        v = np.reshape(v, tuple(1 if i in axes else d for i, d in enumerate(data.shape)))
    return _dense_out(v, data)


def _square_sum_rows_vjp(p, rc, xs, ys, gys, need):
    """The gradient of `_square_sum`'s rows form: ``2 x g`` on the stored rows, as rows."""
    (data,) = xs
    g = host(gys[0])
    rows = data.indices
    vals = (2 * data.data * g[rows]).astype(data.data.dtype, copy=False)
    return (RowSparseRows(rows, vals, data.shape),)


def _square_sum_grad(p, stypes):
    # MXNet gives a row_sparse input of the rows form a row_sparse gradient (its stored rows)
    rows_form = stypes is not None and tuple(stypes) == ("row_sparse",) and not p.exclude \
        and p.keepdims and _axes(p.axis, 2) == (1,)
    return _square_sum_rows_vjp if rows_form else None


SQUARE_SUM = StorageRule(_square_sum, grad=_square_sum_grad)


def _norm(p, rc, data):
    """The 2-norm of all entries from the stored values (other forms: dense fallback)."""
    if not is_sparse(data) or p.ord != 2 or p.axis not in (None, ()) or p.keepdims or \
            p.out_dtype is not None:
        return None
    return _dense_out(np.sqrt(np.sum(np.square(data.data.astype(np.float64)))), data)


NORM = StorageRule(_norm)


def _slice(p, rc, data):
    """slice of a csr array (rows, then columns) stays csr; other storage: dense."""
    if stype_of(data) != "csr":
        return None
    if p.step and any(s not in (None, 1) for s in p.step):
        return None  # MXNet computes a stepped slice on the dense values
    spans = []
    for ax in range(2):
        n = data.shape[ax]
        b = p.begin[ax] if ax < len(p.begin) and p.begin[ax] is not None else 0
        e = p.end[ax] if ax < len(p.end) and p.end[ax] is not None else n
        b, e, _ = slice(b, e).indices(n)
        spans.append((b, max(b, e)))
    m = data.scipy()[spans[0][0]:spans[0][1], spans[1][0]:spans[1][1]]
    return from_scipy(m, data.data.dtype)


SLICE = StorageRule(_slice)


def _concat(p, rc, *data):
    if p.dim == 0 and all(stype_of(d) == "csr" for d in data):
        return from_scipy(spsp.vstack([d.scipy() for d in data], format="csr"),
                          data[0].data.dtype)
    return None


CONCAT = StorageRule(_concat)
