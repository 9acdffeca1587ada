"""The operators that exist for sparse storage: `cast_storage`, `_sparse_retain`
(`nd.sparse.retain`), `_sparse_adagrad_update` (`nd.sparse.adagrad_update`) and
`_contrib_getnnz`, each with its dense kernel and its storage rule.

A compiled plan (of a hybridized block or an executor without sparse arrays) runs on dense
arrays, so what these operators compute there is the VALUE of their sparse result:
`cast_storage` is the identity (a change of storage never changes the numbers) and
`_sparse_retain` keeps the rows named by `indices` and zeroes the others. Imperatively, and
in a graph run on sparse storage, on sparse arrays (or, for `cast_storage`, to a sparse type),
their storage rules compute on the compressed parts and return sparse arrays.
"""
import numpy as np

from .. import attrs as A
from ..optimizer_ops import _make as _make_update
from ..registry import register, ShapeError
from ..rules import keep_dtype, same_shape
from .arrays import STYPES as _STYPES, RowSparse, from_dense, host, is_sparse, like
from .elementwise import refuse
from .rule import StorageRule, stype_of


def _cast(p, rc, x):
    """A copy of raw `x` in storage `p.stype`."""
    src = stype_of(x)
    if {src, p.stype} == {"csr", "row_sparse"}:
        raise ValueError(f"cast_storage from {src} to {p.stype} is not supported")
    if p.stype == "default":
        return host(x) if is_sparse(x) else x.copy()
    if src == p.stype:
        return like(x, x.data.copy(), tuple(a.copy() for a in x.aux()))
    return from_dense(x, p.stype)


@register("cast_storage", attrs={"stype": A.Enum(*_STYPES)}, shape=same_shape("cast_storage"),
          dtype=keep_dtype, vjp=lambda p, rc, xs, ys, gys, need: (gys[0],),
          storage=StorageRule(_cast, dense_too=lambda p: p.stype != "default"))
def _cast_storage(p, rc, x):
    """cast_storage(data, stype): `data` with storage type `stype` ('default', 'row_sparse',
    'csr'); in a graph the values pass unchanged (the gradient too).
    """
    return x.copy()


def _retain_mask(rc, x, idx):
    keep = rc.xp.zeros(x.shape[0], dtype=bool)
    rows = idx.astype(np.int64).ravel()
    keep[rows[(rows >= 0) & (rows < x.shape[0])]] = True
    return keep.reshape((-1,) + (1,) * (x.ndim - 1))


def _retain_shape(p, ins):
    x, idx = ins
    if idx is not None and len(idx) != 1:
        raise ShapeError(f"_sparse_retain: indices must be 1-D, got shape {tuple(idx)}")
    return ins, [None if x is None else tuple(x)]


def _retain(p, rc, data, indices):
    """The rows of row_sparse `data` whose numbers are in `indices` (others dropped)."""
    if stype_of(data) != "row_sparse":
        raise refuse("retain", data, why="; retain takes a row_sparse array")
    keep = np.isin(data.indices, host(indices).astype(np.int64))
    return RowSparse(data.data[keep].copy(), data.indices[keep].copy(), data.shape)


@register("_sparse_retain", inputs=("data", "indices"), nondiff=("indices",),
          shape=_retain_shape, dtype=keep_dtype, storage=StorageRule(_retain),
          vjp=lambda p, rc, xs, ys, gys, need: (
              gys[0] * _retain_mask(rc, xs[0], xs[1]), None))
def _sparse_retain(p, rc, x, idx):
    """_sparse_retain(data, indices) (`sparse.retain`): the rows of `data` whose numbers are in
    `indices`; the other rows are zero.
    """
    return x * _retain_mask(rc, x, idx)


def _adagrad(p, xp, w, g, history):
    """MXNet's sparse AdaGrad step on every row (a row whose gradient is zero is unchanged,
    so on dense values this equals MXNet's update of the stored rows only)."""
    if p.wd != 0:
        raise ValueError(f"_sparse_adagrad_update: wd must be 0 (MXNet's sparse AdaGrad has no "
                         f"weight decay), got wd={p.wd}")
    g = p.rescale_grad * g
    if p.clip_gradient >= 0:
        g = xp.clip(g, -p.clip_gradient, p.clip_gradient)
    history += g * g
    return w - p.lr * g / xp.sqrt(history + p.epsilon)


_make_update("_sparse_adagrad_update", ("weight", "grad", "history"), ("history",), (),
             {"lr": A.Float(), "epsilon": A.Float(1e-7), "wd": A.Float(0.0),
              "rescale_grad": A.Float(1.0), "clip_gradient": A.Float(-1.0)}, _adagrad)


def _nnz_shape(p, ins):
    s = ins[0]
    if s is None:
        return ins, [None]
    if len(s) != 2:
        raise ShapeError(f"getnnz: data must be 2-D (a csr matrix), got shape {tuple(s)}")
    if p.axis not in (None, 0, 1):
        raise ShapeError(f"getnnz: axis must be None, 0 or 1, got {p.axis}")
    return ins, [(1,) if p.axis is None else (s[1],) if p.axis == 0 else (s[0],)]


def _getnnz_parts(p, rc, data):
    """The stored values of a csr matrix (explicit zeros included), from its parts."""
    if stype_of(data) != "csr":
        raise refuse("getnnz", data, why="; getnnz takes a csr array")
    if p.axis is None:
        return np.array([data.data.shape[0]], np.int64)
    if p.axis == 1:
        return np.diff(data.indptr).astype(np.int64)
    if p.axis != 0:
        raise ValueError(f"getnnz: axis must be None, 0 or 1, got {p.axis}")
    return np.bincount(data.indices, minlength=data.shape[1]).astype(np.int64)


@register("_contrib_getnnz", attrs={"axis": A.OptionalInt()}, nondiff=("data",),
          shape=_nnz_shape, dtype=lambda p, ins: (ins, [np.dtype(np.int64)]),
          storage=StorageRule(_getnnz_parts))
def _getnnz(p, rc, x):
    """contrib.getnnz(data, axis=None): the number of stored values of a csr matrix (int64):
    in all (shape (1,)), per column (axis 0) or per row (axis 1). On dense values (a graph),
    the nonzero entries count as stored.
    """
    n = rc.xp.count_nonzero(x, axis=p.axis)
    return rc.xp.asarray(n, dtype=np.int64).reshape(-1)
