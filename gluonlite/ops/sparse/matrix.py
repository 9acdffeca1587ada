"""Matrix operators on sparse storage: the storage rules of `dot`, `take` and `Embedding`
(`gluonlite.ops.matrix`), on the compressed parts (`arrays`).

- ``dot``: MXNet's output storage is ``forward_stype`` when given, else row_sparse for
  ``dot(csr.T, dense or row_sparse)``, csr for ``dot(dense, csr)``, dense otherwise; the
  product is scipy's on the compressed parts. Its gradient to a dense `w` of ``dot(csr, w)``
  is the rows of the features the batch holds (row_sparse): a sparse linear model over 10^6
  features touches only those.
- ``take`` of csr rows (axis 0, mode clip or wrap) stays csr.
- ``Embedding`` of a row_sparse weight gathers from the stored rows (a row not stored reads
  zeros), never from a dense copy of the whole weight; its weight's gradient, and with
  ``sparse_grad=True`` also a dense weight's, is the rows its indices read (row_sparse).

Example::

    from gluonlite.ops.sparse.matrix import DOT
    from gluonlite.ops.sparse.arrays import from_dense
    from gluonlite.ops.registry import RunCtx
    p = mx.ops.get("dot").parse({})[0]
    csr = from_dense(np.eye(2), "csr")
    DOT.kernel(p, RunCtx(False, np), csr, np.ones((2, 3)))    # dense (forward_stype's)
"""
import numpy as np
import scipy.sparse as spsp

from ..scatter import scatter_add
from .arrays import from_dense, from_scipy, host, is_sparse
from .elementwise import refuse
from .grads import RowSparseRows
from .rule import StorageRule, stype_of

__all__ = ["DOT", "TAKE", "EMBEDDING", "SPARSE_EMBEDDING"]


def _dot(p, rc, lhs, rhs):
    s = (stype_of(lhs), stype_of(rhs))
    forward_stype = p.forward_stype
    if forward_stype is None:
        if s[0] == "csr" and s[1] in ("default", "row_sparse") and p.transpose_a and \
                not p.transpose_b:
            forward_stype = "row_sparse"
        elif s == ("default", "csr") and not p.transpose_a:
            forward_stype = "csr"
        else:
            forward_stype = "default"
    if lhs.ndim != 2 and s[0] != "default" or rhs.ndim != 2 and s[1] != "default":
        raise refuse("dot", lhs, rhs, why=" for arrays that are not 2-D")
    A = lhs.scipy() if s[0] == "csr" else host(lhs)
    B = rhs.scipy() if s[1] == "csr" else host(rhs)
    if p.transpose_a:
        A = A.T
    if p.transpose_b:
        B = B.T
    if A.shape[-1] != B.shape[0]:
        raise ValueError(f"dot: shapes {tuple(lhs.shape)} and {tuple(rhs.shape)} (transpose_a="
                         f"{p.transpose_a}, transpose_b={p.transpose_b}) do not fit")
    if spsp.issparse(A):
        m = A @ B
    elif spsp.issparse(B):
        m = (B.T @ A.T).T
    else:
        m = A @ B
    dt = lhs.dtype
    if forward_stype == "csr" and spsp.issparse(m):
        return from_scipy(spsp.csr_matrix(m).astype(dt))
    dense = (m.toarray() if spsp.issparse(m) else np.asarray(m)).astype(dt, copy=False)
    return dense if forward_stype == "default" else from_dense(dense, forward_stype)


def _dot_rows_vjp(p, rc, xs, ys, gys, need):
    """``dot(csr, w)``'s gradients: the csr's as the dense rule gives it (dy w^T), `w`'s as
    ``csr^T dy`` on the columns the batch holds (row_sparse), the csr never densified."""
    lhs, rhs = xs
    gy = host(gys[0])
    a = lhs.scipy()
    ga = gb = None
    if need[0]:
        ga = rc.xp.asarray(gy @ host(rhs).T)
    if need[1]:
        cols = np.unique(a.indices)
        vals = np.asarray(a[:, cols].T @ gy).astype(gy.dtype, copy=False)
        gb = RowSparseRows(cols, vals, rhs.shape)
    return ga, gb


def _dot_grad(p, stypes):
    plain = not p.transpose_a and not p.transpose_b
    # the weight dense or row_sparse (a linear model's or factorization machine's, as MXNet's
    # examples declare it): its gradient is the rows of the columns the batch holds
    rows = stypes is not None and tuple(stypes) in (("csr", "default"), ("csr", "row_sparse"))
    return _dot_rows_vjp if plain and rows else None


DOT = StorageRule(_dot, dense_too=lambda p: p.forward_stype not in (None, "default"),
                  grad=_dot_grad)


def _take(p, rc, a, indices):
    """take of csr rows (axis 0, mode clip or wrap, 1-D indices) stays csr, as in MXNet."""
    if stype_of(a) != "csr" or p.axis != 0 or p.mode not in ("clip", "wrap") or \
            indices.ndim != 1:
        return None
    idx = host(indices).astype(np.int64)
    n = a.shape[0]
    idx = np.clip(idx, 0, n - 1) if p.mode == "clip" else idx % n
    return from_scipy(a.scipy()[idx], a.dtype)


TAKE = StorageRule(_take)


def _embedding(p, rc, data, weight):
    """Rows of a row_sparse weight gathered from its stored rows (dense indices only)."""
    if stype_of(weight) != "row_sparse" or is_sparse(data):
        return None
    idx = np.clip(host(data).astype(np.int64), 0, p.input_dim - 1)
    have = weight.indices
    pos = np.minimum(np.searchsorted(have, idx), max(have.size - 1, 0))
    hit = (have[pos] == idx) if have.size else np.zeros(idx.shape, bool)
    out = np.zeros(idx.shape + weight.shape[1:], weight.data.dtype)
    out[hit] = weight.data[pos[hit]]
    return out


def _embedding_rows(p, rc, xs, ys, gys, need):
    """Embedding's weight gradient as the rows its indices read (summed where an index
    repeats), ascending; it reads the weight's shape only."""
    idx, w = xs
    xp = rc.xp
    rows, where = xp.unique(idx.astype(np.int64).ravel(), return_inverse=True)
    vals = xp.zeros((rows.size,) + tuple(w.shape[1:]), gys[0].dtype)
    scatter_add(xp, vals, where.ravel(), gys[0].reshape((-1,) + tuple(w.shape[1:])))
    return None, RowSparseRows(rows, vals, w.shape)


def _embedding_grad(p, stypes):
    rsp_weight = stypes is not None and stypes[1] == "row_sparse"
    return _embedding_rows if p.sparse_grad or rsp_weight else None


EMBEDDING = StorageRule(_embedding, grad=_embedding_grad)
# contrib.SparseEmbedding: the row_sparse weight gradient always
SPARSE_EMBEDDING = StorageRule(_embedding, grad=lambda p, stypes: _embedding_rows)
