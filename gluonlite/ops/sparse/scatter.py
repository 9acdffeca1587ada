"""MXNet's scatter operators: elementwise arithmetic that, on a sparse left-hand side,
computes only where it stores values and keeps its storage: `_scatter_elemwise_div`,
`_scatter_plus_scalar` and `_scatter_minus_scalar` (MXNet's internals behind sparse
optimizers and its tests).

On dense arrays (and so in a compiled graph) each is its plain operation: ``lhs / rhs``,
``data + scalar``, ``data - scalar``. On a row_sparse left-hand side the result holds the
same rows, computed from them (``rhs``'s rows at those indices); a row it does not store
stays missing, where the plain operation would give ``0 / 0`` or ``0 + scalar``. On a csr
`data` the scalar operators keep its stored positions. ``_scatter_elemwise_div`` of a csr or
dense left-hand side is the plain division (MXNet's storage fallback).

Example::

    x = nd.array([[0, 0], [2, 4]]).tostype('row_sparse')
    y = nd._internal._scatter_plus_scalar(x, 1.0)
    y.stype, y.indices, y.asnumpy()    # ('row_sparse', [1], [[0, 0], [3, 5]])
"""
import numpy as np

from .. import attrs as A
from ..registry import register
from ..rules import keep_dtype, same_binary_shape, same_shape
from .arrays import RowSparse, host, like
from .rule import StorageRule, stype_of

__all__ = []


def _rows_of(x, rows):
    """Rows `rows` of raw `x` (dense, row_sparse or csr) as a dense array (a row a sparse
    `x` does not store is zeros)."""
    st = stype_of(x)
    if st == "default":
        return host(x)[rows]
    if st == "csr":
        return x.scipy()[rows].toarray()
    where = np.searchsorted(x.indices, rows)
    held = (where < len(x.indices)) & (x.indices[np.minimum(where, len(x.indices) - 1)] == rows)
    out = np.zeros((len(rows),) + tuple(x.shape[1:]), dtype=x.data.dtype)
    out[held] = x.data[where[held]]
    return out


def _div_stored(p, rc, lhs, rhs):
    if stype_of(lhs) != "row_sparse":
        return None   # csr or dense: the plain division on dense values, as MXNet falls back
    rows = lhs.indices
    with np.errstate(divide="ignore", invalid="ignore"):
        vals = (lhs.data / _rows_of(rhs, rows)).astype(lhs.data.dtype, copy=False)
    return RowSparse(vals, rows.copy(), lhs.shape)


@register("_scatter_elemwise_div", inputs=("lhs", "rhs"),
          shape=same_binary_shape("_scatter_elemwise_div"), dtype=keep_dtype,
          storage=StorageRule(_div_stored),
          vjp=lambda p, rc, xs, ys, gys, need: (gys[0] / xs[1], -gys[0] * xs[0] / xs[1] ** 2))
def _scatter_elemwise_div(p, rc, lhs, rhs):
    """_scatter_elemwise_div(lhs, rhs): ``lhs / rhs``; on a row_sparse lhs, only its stored
    rows (the result keeps them and nothing else).
    """
    return (lhs / rhs).astype(lhs.dtype, copy=False)


def _shifted(values, p, sign):
    """``values + sign * scalar`` in values' dtype; integer values see the scalar cast to
    their type first (truncated), as MXNet's kernel casts it."""
    s = p.scalar
    if values.dtype.kind != "f":
        s = int(s) if np.isfinite(s) else 0
    return (values + sign * s).astype(values.dtype, copy=False)


def _scalar_stored(sign):
    def kernel(p, rc, data):
        if stype_of(data) not in ("row_sparse", "csr"):
            return None
        return like(data, _shifted(data.data, p, sign), tuple(a.copy() for a in data.aux()))
    return StorageRule(kernel)


def _scalar(name, sign, doc):
    def kernel(p, rc, x):
        return _shifted(x, p, sign)
    kernel.__doc__ = doc
    register(name, attrs={"scalar": A.Float(), "is_int": A.Bool(True)},
             shape=same_shape(name), dtype=keep_dtype, storage=_scalar_stored(sign),
             vjp=lambda p, rc, xs, ys, gys, need: (gys[0],))(kernel)


_scalar("_scatter_plus_scalar", 1, """_scatter_plus_scalar(data, scalar): ``data + scalar``; on
    sparse data, only its stored values (the result keeps its storage and positions).
    """)
_scalar("_scatter_minus_scalar", -1, """_scatter_minus_scalar(data, scalar): ``data - scalar``;
    on sparse data, only its stored values (the result keeps its storage and positions).
    """)
