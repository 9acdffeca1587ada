"""Linear algebra (`nd.linalg`, `sym.linalg`): MXNet 1.9.1's 17 ``_linalg_*`` operators.

Every operator works on the last two axes (matrices) and batches over the leading ones, as
MXNet does. One table at the end lists each operator with its inputs, outputs, attributes,
forward, gradient and shape rule; the rules are written against the array module ``xp``
(numpy, or CuPy on a GPU).

Where MXNet's kernels read only one triangle of a symmetric input (``potrf``, ``syevd``), the
gradient MXNet returns is the symmetric one; here the forward reads the symmetric part
``(A + A.T) / 2``, which is the same matrix for every valid (symmetric) input and makes that
gradient the exact derivative of the forward.
"""
import numpy as np

from ..base import MXNetValueError
from . import attrs as A
from .registry import register, ShapeError
from .rules import fmt_shapes
from ..util import is_np_shape


def _t(x):
    return x.swapaxes(-1, -2)


def _sym(x):
    return (x + _t(x)) / 2


def _tril(xp, x, k=0):
    return xp.tril(x, k) if x.ndim == 2 else x * xp.tri(*x.shape[-2:], k=k, dtype=x.dtype)


def _triu(xp, x, k=0):
    return xp.triu(x, k) if x.ndim == 2 else x * (1 - xp.tri(*x.shape[-2:], k=k - 1,
                                                             dtype=x.dtype))


def _tri(xp, x, lower):
    return _tril(xp, x) if lower else _triu(xp, x)


def _copy_ltu(xp, m):
    """The symmetric matrix whose lower triangle (diagonal included) is m's."""
    low = _tril(xp, m, -1)
    return low + _t(low) + _diag_part(xp, m)


def _diag_part(xp, m):
    return m * xp.eye(m.shape[-1], dtype=m.dtype)


def _solve(xp, a, b, name):
    try:
        return xp.linalg.solve(a, b)
    except np.linalg.LinAlgError as e:
        raise MXNetValueError(f"{name}: the matrix is singular ({e})") from None


def _inv(xp, a, name):
    try:
        return xp.linalg.inv(a)
    except np.linalg.LinAlgError as e:
        raise MXNetValueError(f"{name}: the matrix is singular ({e})") from None


def _batch(shape):
    """MXNet 1.x has no 0-d arrays: a scalar per matrix of a single matrix is shape (1,)."""
    return tuple(shape) or (1,)


# ---- shape checks --------------------------------------------------------------------------
def _need_matrix(name, s, arg="A"):
    if len(s) < 2:
        raise ShapeError(f"{name}: input {arg} must have at least 2 dimensions (a matrix or a "
                         f"batch of matrices), got shape {tuple(s)}")


def _need_square(name, s, arg="A"):
    _need_matrix(name, s, arg)
    if s[-1] != s[-2]:
        raise ShapeError(f"{name}: input {arg} must hold square matrices, got shape {tuple(s)}")


def _same_batch(name, ins, names):
    known = [(n, s) for n, s in zip(names, ins) if s is not None]
    for n, s in known[1:]:
        if tuple(s[:-2]) != tuple(known[0][1][:-2]):
            raise ShapeError(f"{name}: inputs {known[0][0]} and {n} must share their leading "
                             f"(batch) dimensions, got {fmt_shapes(ins)}")


# ---- gemm / gemm2: matrix products with MXNet's `axis` -------------------------------------
def _to_rows(x, axis):
    """Move the rows axis to -2 (MXNet's `axis` names where the matrix rows are)."""
    return x if axis in (-2, x.ndim - 2) else _moveaxis(x, axis, -2)


def _moveaxis(x, src, dst):
    order = list(range(x.ndim))
    order.insert(dst % x.ndim, order.pop(src % x.ndim))
    return x.transpose(order)


def _from_rows(x, axis, ndim):
    return x if axis in (-2, ndim - 2) else _moveaxis(x, -2, axis)


def _op(x, t):
    return _t(x) if t else x


def _gemm_dims(name, p, a, b):
    ax = p.axis
    for arg, s in (("A", a), ("B", b)):
        _need_matrix(name, s, arg)
        if not -len(s) <= ax < len(s) - 1 and ax != -1:
            raise ShapeError(f"{name}: axis={ax} is out of range for input {arg} of shape "
                             f"{tuple(s)}")
    a2, b2 = _moveaxis(np.empty(a, bool), ax, -2).shape, _moveaxis(np.empty(b, bool), ax,
                                                                   -2).shape
    if a2[:-2] != b2[:-2]:
        raise ShapeError(f"{name}: inputs A and B must share their batch dimensions, got "
                         f"{tuple(a)} and {tuple(b)}")
    m, ka = (a2[-1], a2[-2]) if p.transpose_a else (a2[-2], a2[-1])
    kb, n = (b2[-1], b2[-2]) if p.transpose_b else (b2[-2], b2[-1])
    if ka != kb:
        raise ShapeError(f"{name}: op(A) is {m}x{ka} and op(B) is {kb}x{n}: the inner "
                         f"dimensions differ (A {tuple(a)}, B {tuple(b)}, transpose_a="
                         f"{p.transpose_a}, transpose_b={p.transpose_b}, axis={ax})")
    out = a2[:-2] + (m, n)
    return _moveaxis(np.empty(out, bool), -2, ax).shape if ax not in (-2, len(a) - 2) else out


def _gemm2_shape(p, ins):
    a, b = ins
    if a is None or b is None:
        return ins, [None]
    return ins, [_gemm_dims("_linalg_gemm2", p, a, b)]


def _gemm_shape(p, ins):
    a, b, c = ins
    out = None if a is None or b is None else _gemm_dims("_linalg_gemm", p, a, b)
    if out is not None and c is not None and tuple(c) != tuple(out):
        raise ShapeError(f"_linalg_gemm: input C must have the shape of op(A) * op(B), "
                         f"{tuple(out)}, got {tuple(c)}")
    out = out or c
    return [a, b, out], [out]


def _gemm2(p, rc, a, b):
    """gemm2(A, B, transpose_a=False, transpose_b=False, alpha=1, axis=-2):
    alpha * op(A) @ op(B), batched over the leading axes."""
    ax = p.axis
    r = p.alpha * (_op(_to_rows(a, ax), p.transpose_a) @ _op(_to_rows(b, ax), p.transpose_b))
    return _from_rows(r, ax, a.ndim).astype(a.dtype, copy=False)


def _gemm2_grads(p, a, b, g, need):
    ax = p.axis
    A_, B_, G = _op(_to_rows(a, ax), p.transpose_a), _op(_to_rows(b, ax), p.transpose_b), \
        _to_rows(g, ax)
    ga = _from_rows(_op(p.alpha * (G @ _t(B_)), p.transpose_a), ax, a.ndim) if need[0] else None
    gb = _from_rows(_op(p.alpha * (_t(A_) @ G), p.transpose_b), ax, b.ndim) if need[1] else None
    return ga, gb


def _gemm2_vjp(p, rc, xs, ys, gys, need):
    return _gemm2_grads(p, xs[0], xs[1], gys[0], need)


def _gemm(p, rc, a, b, c):
    """gemm(A, B, C, transpose_a=False, transpose_b=False, alpha=1, beta=1, axis=-2):
    alpha * op(A) @ op(B) + beta * C."""
    return (_gemm2(p, rc, a, b) + p.beta * c).astype(a.dtype, copy=False)


def _gemm_vjp(p, rc, xs, ys, gys, need):
    ga, gb = _gemm2_grads(p, xs[0], xs[1], gys[0], need)
    return ga, gb, (p.beta * gys[0] if need[2] else None)


# ---- Cholesky family ------------------------------------------------------------------------
def _square_shape(name):
    def rule(p, ins):
        if ins[0] is not None:
            _need_square(name, ins[0])
        return ins, [ins[0]]
    return rule


def _potrf(p, rc, a):
    """potrf(A, lower=True): the Cholesky factor of symmetric positive definite A: lower L
    with A = L @ L.T, or (lower=False) upper U with A = U.T @ U."""
    try:
        L = rc.xp.linalg.cholesky(_sym(a))
    except np.linalg.LinAlgError:
        raise MXNetValueError("_linalg_potrf: input A is not symmetric positive definite "
                              "(the Cholesky factorization failed)") from None
    return L if p.lower else _t(L).copy()


def _potrf_vjp(p, rc, xs, ys, gys, need):
    xp = rc.xp
    L, g = (ys[0], gys[0]) if p.lower else (_t(ys[0]), _t(gys[0]))
    # dA = 0.5 * L^-T copyLTU(L^T dL) L^-1, the symmetric gradient MXNet returns
    m = _copy_ltu(xp, _t(L) @ g)
    linv = _inv(xp, L, "_linalg_potrf")
    return (0.5 * _t(linv) @ m @ linv,)


def _potri(p, rc, a):
    """potri(A, lower=True): (L @ L.T)^-1 from the lower Cholesky factor L in A's lower
    triangle, or (lower=False) (U.T @ U)^-1 from the upper factor U in A's upper triangle;
    the other triangle is ignored."""
    L = _tril(rc.xp, a) if p.lower else _t(_triu(rc.xp, a))
    linv = _inv(rc.xp, L, "_linalg_potri")
    return _t(linv) @ linv


def _potri_vjp(p, rc, xs, ys, gys, need):
    xp, out, g = rc.xp, ys[0], gys[0]
    L = _tril(xp, xs[0]) if p.lower else _t(_triu(xp, xs[0]))
    # d L = -tril(out (g + g^T) L^-T); the upper factor's is its transpose
    gl = -_tril(xp, out @ (g + _t(g)) @ _t(_inv(xp, L, "_linalg_potri")))
    return (gl if p.lower else _t(gl),)


# ---- triangular products and solves -----------------------------------------------------------
_TRI_ATTRS = {"transpose": A.Bool(False), "rightside": A.Bool(False), "lower": A.Bool(True),
              "alpha": A.Float(1.0)}


def _tri_shape(name):
    def rule(p, ins):
        a, b = ins
        if a is not None:
            _need_square(name, a)
        if b is not None:
            _need_matrix(name, b, "B")
        if a is not None and b is not None:
            _same_batch(name, ins, ("A", "B"))
            k = b[-1] if p.rightside else b[-2]
            if k != a[-1]:
                side = "columns" if p.rightside else "rows"
                raise ShapeError(f"{name}: B's {side} ({k}) must match A's size ({a[-1]}); "
                                 f"got A {tuple(a)}, B {tuple(b)}, rightside={p.rightside}")
        return ins, [b]
    return rule


def _trmm(p, rc, a, b):
    """trmm(A, B, transpose=False, rightside=False, lower=True, alpha=1): alpha * op(T) @ B
    (or alpha * B @ op(T) with rightside), T the lower (or upper) triangle of A."""
    t = _op(_tri(rc.xp, a, p.lower), p.transpose)
    return (p.alpha * (b @ t if p.rightside else t @ b)).astype(b.dtype, copy=False)


def _trmm_vjp(p, rc, xs, ys, gys, need):
    xp, (a, b), g = rc.xp, xs, gys[0]
    t = _op(_tri(xp, a, p.lower), p.transpose)
    ga = gb = None
    if need[0]:
        gt = p.alpha * (_t(b) @ g if p.rightside else g @ _t(b))
        ga = _tri(xp, _op(gt, p.transpose), p.lower)
    if need[1]:
        gb = p.alpha * (g @ _t(t) if p.rightside else _t(t) @ g)
    return ga, gb


def _trsm(p, rc, a, b):
    """trsm(A, B, transpose=False, rightside=False, lower=True, alpha=1): X with op(T) @ X =
    alpha * B (or X @ op(T) = alpha * B with rightside), T the lower (or upper) triangle of A."""
    t = _op(_tri(rc.xp, a, p.lower), p.transpose)
    if p.rightside:
        x = _t(_solve(rc.xp, _t(t), _t(p.alpha * b), "_linalg_trsm"))
    else:
        x = _solve(rc.xp, t, p.alpha * b, "_linalg_trsm")
    return x.astype(b.dtype, copy=False)


def _trsm_vjp(p, rc, xs, ys, gys, need):
    xp, a, x, g = rc.xp, xs[0], ys[0], gys[0]
    t = _op(_tri(xp, a, p.lower), p.transpose)
    if p.rightside:  # X T = aB: dB = a dX T^-T, dT = -X^T dX T^-T
        h = _t(_solve(xp, t, _t(g), "_linalg_trsm"))
        gt = -(_t(x) @ h)
    else:  # T X = aB: dB = a T^-T dX, dT = -T^-T dX X^T
        h = _solve(xp, _t(t), g, "_linalg_trsm")
        gt = -(h @ _t(x))
    ga = _tri(xp, _op(gt, p.transpose), p.lower) if need[0] else None
    return ga, (p.alpha * h if need[1] else None)


def _syrk(p, rc, a):
    """syrk(A, transpose=False, alpha=1): alpha * A @ A.T (alpha * A.T @ A with transpose)."""
    return p.alpha * (_t(a) @ a if p.transpose else a @ _t(a))


def _syrk_vjp(p, rc, xs, ys, gys, need):
    a, g = xs[0], gys[0]
    s = g + _t(g)
    return (p.alpha * (a @ s if p.transpose else s @ a),)


def _syrk_shape(p, ins):
    a = ins[0]
    if a is None:
        return ins, [None]
    _need_matrix("_linalg_syrk", a)
    n = a[-1] if p.transpose else a[-2]
    return ins, [tuple(a[:-2]) + (n, n)]


# ---- factorizations ----------------------------------------------------------------------------
def _gelqf(p, rc, a):
    """gelqf(A): (Q, L) with A = L @ Q, Q with orthonormal rows, L lower triangular (A is
    m x n with m <= n), as LAPACK's gelqf gives them."""
    q, r = rc.xp.linalg.qr(_t(a))
    return _t(q), _t(r)


def _gelqf_vjp(p, rc, xs, ys, gys, need):
    xp, (q, L), (gq, gl) = rc.xp, ys, gys
    gq = xp.zeros_like(q) if gq is None else gq
    gl = xp.zeros_like(L) if gl is None else gl
    m = _t(L) @ gl - gq @ _t(q)
    rhs = gq + _copy_ltu(xp, m) @ q
    return (_solve(xp, _t(L), rhs, "_linalg_gelqf"),)


def _gelqf_shape(p, ins):
    a = ins[0]
    if a is None:
        return ins, [None, None]
    _need_matrix("_linalg_gelqf", a)
    if a[-2] > a[-1]:
        raise ShapeError(f"_linalg_gelqf: input A must have no more rows than columns, got "
                         f"shape {tuple(a)}")
    return ins, [tuple(a), tuple(a[:-2]) + (a[-2], a[-2])]


def _syevd(p, rc, a):
    """syevd(A): (U, L) with A = U.T @ diag(L) @ U for symmetric A, eigenvalues L ascending,
    each row of U signed so that its largest-magnitude entry is positive."""
    xp = rc.xp
    lam, v = xp.linalg.eigh(_sym(a))
    u = _t(v)
    k = xp.argmax(xp.abs(u), axis=-1)[..., None]
    sign = xp.where(xp.take_along_axis(u, k, axis=-1) < 0, -1.0, 1.0).astype(u.dtype)
    return u * sign, lam.astype(a.dtype, copy=False)


def _syevd_vjp(p, rc, xs, ys, gys, need):
    xp, (u, lam), (gu, gl) = rc.xp, ys, gys
    gu = xp.zeros_like(u) if gu is None else gu
    gl = xp.zeros_like(lam) if gl is None else gl
    x = gu @ _t(u)
    n = lam.shape[-1]
    diff = lam[..., :, None] - lam[..., None, :]
    i, j = np.tril_indices(n, -1)
    y = xp.zeros_like(x)
    # below the diagonal (i > j): (X_ij - X_ji) / (2 (l_i - l_j)), mirrored above
    denom = 2 * xp.maximum(diff[..., i, j], 1e-30 if x.dtype == np.float32 else 1e-100)
    e = (x[..., i, j] - x[..., j, i]) / denom
    y[..., i, j] = e
    y[..., j, i] = e
    y = y + gl[..., :, None] * xp.eye(n, dtype=x.dtype)
    return (_t(u) @ y @ u,)


def _syevd_shape(p, ins):
    a = ins[0]
    if a is None:
        return ins, [None, None]
    _need_square("_linalg_syevd", a)
    return ins, [tuple(a), tuple(a[:-1])]


# ---- inverse, determinants ---------------------------------------------------------------------
def _inverse(p, rc, a):
    """inverse(A): the inverse of each square matrix."""
    return _inv(rc.xp, a, "_linalg_inverse")


def _inverse_vjp(p, rc, xs, ys, gys, need):
    b = ys[0]
    return (-(_t(b) @ gys[0] @ _t(b)),)


def _det_batch(shape):
    """det's and slogdet's result shape for input `shape`: its batch dimensions; for a single
    matrix (1,), or () under NumPy shape semantics or for a size-0 matrix (MXNet's DetShape)."""
    if len(shape) > 2 or is_np_shape() or 0 in shape:
        return tuple(shape[:-2])
    return (1,)


def _scalar_shape(name, det=True):
    def rule(p, ins):
        a = ins[0]
        if a is None:
            return ins, [None]
        _need_square(name, a)
        return ins, [_det_batch(a) if det else _batch(a[:-2])]
    return rule


def _det(p, rc, a):
    """det(A): the determinant of each square matrix (shape (1,) for a single matrix; () under
    NumPy shape semantics)."""
    return rc.xp.asarray(rc.xp.linalg.det(a)).reshape(_det_batch(a.shape))


def _det_vjp(p, rc, xs, ys, gys, need):
    xp, a = rc.xp, xs[0]
    d = ys[0].reshape(a.shape[:-2])
    g = gys[0].reshape(a.shape[:-2])
    singular = d == 0
    safe = xp.where(singular[..., None, None], xp.eye(a.shape[-1], dtype=a.dtype), a)
    gd = (d * g * ~singular)[..., None, None] * _t(_inv(xp, safe, "_linalg_det"))
    return (gd,)


def _slogdet(p, rc, a):
    """slogdet(A): (sign, log|det|) of each square matrix."""
    s, ld = rc.xp.linalg.slogdet(a)
    shape = _det_batch(a.shape)
    return s.reshape(shape).astype(a.dtype), ld.reshape(shape).astype(a.dtype)


def _slogdet_vjp(p, rc, xs, ys, gys, need):
    xp, a = rc.xp, xs[0]
    if gys[1] is None:
        return (xp.zeros_like(a),)
    singular = (ys[0] == 0).reshape(a.shape[:-2])
    g = gys[1].reshape(a.shape[:-2]) * ~singular
    safe = xp.where(singular[..., None, None], xp.eye(a.shape[-1], dtype=a.dtype), a)
    return (g[..., None, None] * _t(_inv(xp, safe, "_linalg_slogdet")),)


def _slogdet_shape(p, ins):
    _, out = _scalar_shape("_linalg_slogdet")(p, ins)
    return ins, out * 2


def _sumlogdiag(p, rc, a):
    """sumlogdiag(A): the sum of the logarithms of each square matrix's diagonal."""
    d = rc.xp.diagonal(a, axis1=-2, axis2=-1)
    return rc.xp.log(d).sum(axis=-1).reshape(_batch(a.shape[:-2]))


def _sumlogdiag_vjp(p, rc, xs, ys, gys, need):
    xp, a = rc.xp, xs[0]
    g = gys[0].reshape(a.shape[:-2])[..., None, None]
    eye = xp.eye(a.shape[-1], dtype=a.dtype)
    return (g * eye / xp.where(eye > 0, a, 1),)


# ---- diagonals and triangles as vectors ----------------------------------------------------------
_DIAG_ATTRS = {"offset": A.Int(0)}
_TRIAN_ATTRS = {"offset": A.Int(0), "lower": A.Bool(True)}


def _extractdiag(p, rc, a):
    """extractdiag(A, offset=0): the diagonal at `offset` of each square matrix."""
    return rc.xp.diagonal(a, offset=p.offset, axis1=-2, axis2=-1).copy()


def _diag_index(n, offset):
    r = np.arange(n - abs(offset))
    return (r, r + offset) if offset >= 0 else (r - offset, r)


def _extractdiag_vjp(p, rc, xs, ys, gys, need):
    a = xs[0]
    g = rc.xp.zeros_like(a)
    i, j = _diag_index(a.shape[-1], p.offset)
    g[..., i, j] = gys[0]
    return (g,)


def _extractdiag_shape(p, ins):
    a = ins[0]
    if a is None:
        return ins, [None]
    _need_square("_linalg_extractdiag", a)
    if abs(p.offset) >= a[-1]:
        raise ShapeError(f"_linalg_extractdiag: offset={p.offset} is out of range for "
                         f"{a[-1]}x{a[-1]} matrices")
    return ins, [tuple(a[:-2]) + (a[-1] - abs(p.offset),)]


def _makediag(p, rc, a):
    """makediag(A, offset=0): square matrices with the vectors of A on diagonal `offset`."""
    n = a.shape[-1] + abs(p.offset)
    out = rc.xp.zeros(a.shape[:-1] + (n, n), dtype=a.dtype)
    i, j = _diag_index(n, p.offset)
    out[..., i, j] = a
    return out


def _makediag_vjp(p, rc, xs, ys, gys, need):
    i, j = _diag_index(gys[0].shape[-1], p.offset)
    return (gys[0][..., i, j],)


def _makediag_shape(p, ins):
    a = ins[0]
    if a is None:
        return ins, [None]
    if len(a) < 1:
        raise ShapeError("_linalg_makediag: input A must have at least 1 dimension")
    n = a[-1] + abs(p.offset)
    return ins, [tuple(a[:-1]) + (n, n)]


def _trian_index(n, offset, lower):
    """Indices of the triangle extracttrian reads (offset > 0: above the diagonal, offset < 0:
    below, 0: the diagonal and the `lower` or upper triangle): a lower triangle row by row, an
    upper one column by column (the transposed order, as MXNet's kernel walks it)."""
    if offset > 0 or (offset == 0 and not lower):
        i, j = np.tril_indices(n, -offset)
        return j, i
    return np.tril_indices(n, offset)


def _extracttrian(p, rc, a):
    """extracttrian(A, offset=0, lower=True): a triangle of each square matrix as a vector,
    row by row."""
    i, j = _trian_index(a.shape[-1], p.offset, p.lower)
    return a[..., i, j]


def _extracttrian_vjp(p, rc, xs, ys, gys, need):
    a = xs[0]
    g = rc.xp.zeros_like(a)
    i, j = _trian_index(a.shape[-1], p.offset, p.lower)
    g[..., i, j] = gys[0]
    return (g,)


def _extracttrian_shape(p, ins):
    a = ins[0]
    if a is None:
        return ins, [None]
    _need_square("_linalg_extracttrian", a)
    m = a[-1] - abs(p.offset)
    if m <= 0:
        raise ShapeError(f"_linalg_extracttrian: offset={p.offset} is out of range for "
                         f"{a[-1]}x{a[-1]} matrices")
    return ins, [tuple(a[:-2]) + (m * (m + 1) // 2,)]


def _trian_size(name, k, offset):
    m = int(round((np.sqrt(8 * k + 1) - 1) / 2))
    if m * (m + 1) // 2 != k:
        raise ShapeError(f"{name}: the last dimension of A ({k}) must be a triangular number "
                         "m * (m + 1) / 2")
    return m + abs(offset)


def _maketrian(p, rc, a):
    """maketrian(A, offset=0, lower=True): square matrices holding the vectors of A in the
    triangle extracttrian reads (the inverse of extracttrian)."""
    n = _trian_size("_linalg_maketrian", a.shape[-1], p.offset)
    out = rc.xp.zeros(a.shape[:-1] + (n, n), dtype=a.dtype)
    i, j = _trian_index(n, p.offset, p.lower)
    out[..., i, j] = a
    return out


def _maketrian_vjp(p, rc, xs, ys, gys, need):
    i, j = _trian_index(gys[0].shape[-1], p.offset, p.lower)
    return (gys[0][..., i, j],)


def _maketrian_shape(p, ins):
    a = ins[0]
    if a is None:
        return ins, [None]
    if len(a) < 1:
        raise ShapeError("_linalg_maketrian: input A must have at least 1 dimension")
    n = _trian_size("_linalg_maketrian", a[-1], p.offset)
    return ins, [tuple(a[:-1]) + (n, n)]


# ---- the table ----------------------------------------------------------------------------------
_GEMM2_ATTRS = {"transpose_a": A.Bool(False), "transpose_b": A.Bool(False),
                "alpha": A.Float(1.0), "axis": A.Int(-2)}
_GEMM_ATTRS = {"transpose_a": A.Bool(False), "transpose_b": A.Bool(False),
               "alpha": A.Float(1.0), "beta": A.Float(1.0), "axis": A.Int(-2)}

# name: (inputs, outputs, attrs, forward, gradient, shape rule)
_TABLE = {
    "gemm": (("A", "B", "C"), 1, _GEMM_ATTRS, _gemm, _gemm_vjp, _gemm_shape),
    "gemm2": (("A", "B"), 1, _GEMM2_ATTRS, _gemm2, _gemm2_vjp, _gemm2_shape),
    "potrf": (("A",), 1, {"lower": A.Bool(True)}, _potrf, _potrf_vjp,
              _square_shape("_linalg_potrf")),
    "potri": (("A",), 1, {"lower": A.Bool(True)}, _potri, _potri_vjp,
              _square_shape("_linalg_potri")),
    "trmm": (("A", "B"), 1, _TRI_ATTRS, _trmm, _trmm_vjp, _tri_shape("_linalg_trmm")),
    "trsm": (("A", "B"), 1, _TRI_ATTRS, _trsm, _trsm_vjp, _tri_shape("_linalg_trsm")),
    "syrk": (("A",), 1, {"transpose": A.Bool(False), "alpha": A.Float(1.0)}, _syrk, _syrk_vjp,
             _syrk_shape),
    "gelqf": (("A",), 2, {}, _gelqf, _gelqf_vjp, _gelqf_shape),
    "syevd": (("A",), 2, {}, _syevd, _syevd_vjp, _syevd_shape),
    "inverse": (("A",), 1, {}, _inverse, _inverse_vjp, _square_shape("_linalg_inverse")),
    "det": (("A",), 1, {}, _det, _det_vjp, _scalar_shape("_linalg_det")),
    "slogdet": (("A",), 2, {}, _slogdet, _slogdet_vjp, _slogdet_shape),
    "sumlogdiag": (("A",), 1, {}, _sumlogdiag, _sumlogdiag_vjp,
                   _scalar_shape("_linalg_sumlogdiag", det=False)),
    "extractdiag": (("A",), 1, _DIAG_ATTRS, _extractdiag, _extractdiag_vjp,
                    _extractdiag_shape),
    "makediag": (("A",), 1, _DIAG_ATTRS, _makediag, _makediag_vjp, _makediag_shape),
    "extracttrian": (("A",), 1, _TRIAN_ATTRS, _extracttrian, _extracttrian_vjp,
                     _extracttrian_shape),
    "maketrian": (("A",), 1, _TRIAN_ATTRS, _maketrian, _maketrian_vjp, _maketrian_shape),
}

NAMES = tuple(_TABLE)


def _float_only(name):
    def rule(p, ins):
        d = next((x for x in ins if x is not None), None)
        if d is not None and np.dtype(d).kind != "f":
            raise MXNetValueError(f"{name}: inputs must be floating point, got {np.dtype(d)}")
        n_out = 2 if name.rsplit("_", 1)[-1] in ("gelqf", "syevd", "slogdet") else 1
        return [x if x is not None else d for x in ins], [d] * n_out
    return rule


def _register(short, row):
    inputs, outputs, attrs, fwd, vjp, shape = row
    name = f"_linalg_{short}"
    register(name, aliases=(f"linalg_{short}",), inputs=inputs, outputs=outputs, attrs=attrs,
             vjp=vjp, shape=shape, dtype=_float_only(name), doc=fwd.__doc__)(fwd)


for _short, _row in _TABLE.items():
    _register(_short, _row)
