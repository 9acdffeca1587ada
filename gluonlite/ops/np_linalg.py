"""Linear algebra of MXNet's NumPy dialect (`mx.np.linalg`): svd (MXNet's ``ut, s, v``
form, ``a = ut @ diag(s) @ v``), cholesky, solve, tensorinv, tensorsolve, pinv, eig, eigvals,
eigh, eigvalsh and norm, batched over leading axes, each with its gradient where MXNet
1.9.1 has one (eig and eigvals have none). det, inv and slogdet are the legacy ``_linalg_``
operators (`np_aliases`)."""
from math import prod

import numpy as np

from ..base import MXNetValueError
from . import attrs as A
from .registry import register, ShapeError
from .rules import norm_axis


def _k(ins, i=0):
    return None if ins[i] is None else tuple(ins[i])


def _t(x):
    return np.swapaxes(x, -1, -2)


def _host(x):
    return x.get() if hasattr(x, "get") else x


def _square(name, s):
    if len(s) < 2 or s[-1] != s[-2]:
        raise ShapeError(f"{name}: the input must be a (batch of) square matrix, got shape "
                         f"{tuple(s)}")


# ---- svd -------------------------------------------------------------------------------------
def _svd_shape(p, ins):
    s = _k(ins)
    if s is None:
        return ins, [None, None, None]
    if len(s) < 2:
        raise ShapeError(f"_npi_svd: the input must have at least 2 dimensions, got {s}")
    m, n = s[-2], s[-1]
    if m > n:
        raise ShapeError(f"_npi_svd: the input's rows ({m}) must not exceed its columns ({n}), "
                         "as in MXNet 1.9.1 (transpose the input)")
    batch = s[:-2]
    return ins, [batch + (m, m), batch + (m,), batch + (m, n)]


def _svd_vjp(p, rc, xs, ys, gys, need):
    """The thin SVD's gradient (a = u diag(s) v, u square, v with orthonormal rows; Townsend's
    formula): u (J s + diag(gs) + s K) v + u s^-1 gv (I - v^T v), with
    J = F o (u^T gu - gu^T u), K = F o (v gv^T - gv v^T), F_ij = 1 / (s_j^2 - s_i^2)."""
    u, s, v = (_host(y) for y in ys)
    gu, gs, gv = (None if g is None else _host(g) for g in gys)
    gu = np.zeros_like(u) if gu is None else gu
    gs = np.zeros_like(s) if gs is None else gs
    gv = np.zeros_like(v) if gv is None else gv
    m, n = s.shape[-1], v.shape[-1]
    s2 = s[..., None, :] ** 2
    eye = np.eye(m, dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        f = np.where(eye, 0, 1.0 / np.where(eye, 1, s2 - _t(s2)))
    utgu = _t(u) @ gu
    vgvt = v @ _t(gv)
    j = f * (utgu - _t(utgu))
    k = f * (vgvt - _t(vgvt))
    core = j * s[..., None, :] + s[..., :, None] * k
    idx = np.arange(m)
    core[..., idx, idx] += gs
    ga = u @ core @ v
    if n > m:
        with np.errstate(divide="ignore", invalid="ignore"):
            ga = ga + u @ (gv / s[..., :, None]) @ (np.eye(n) - _t(v) @ v)
    return (rc.xp.asarray(ga.astype(xs[0].dtype)),)


@register("_npi_svd", inputs=("A",), outputs=3, shape=_svd_shape, vjp=_svd_vjp)
def _np_svd(p, rc, a):
    """_npi_svd(A): (ut, s, v) with a = ut @ diag(s) @ v, singular values descending (rows <=
    columns)."""
    _svd_shape(p, [a.shape])
    u, s, vh = np.linalg.svd(_host(a), full_matrices=False)
    return tuple(rc.xp.asarray(x.astype(a.dtype)) for x in (u, s, vh))


# ---- cholesky --------------------------------------------------------------------------------
def _cholesky_vjp(p, rc, xs, ys, gys, need):
    """MXNet's gradient of a = l l^T for a symmetric input: 0.5 l^-T copyltu(l^T g) l^-1
    (copyltu: the symmetric matrix of a lower triangle)."""
    lo, g = _host(ys[0]), _host(gys[0])
    m = _t(lo) @ g
    sym = np.tril(m) + _t(np.tril(m, -1))
    inv = np.linalg.inv(lo)
    return (rc.xp.asarray((0.5 * _t(inv) @ sym @ inv).astype(xs[0].dtype)),)


@register("_npi_cholesky", inputs=("A",), shape=lambda p, ins: (ins, [_k(ins)]),
          vjp=_cholesky_vjp)
def _np_cholesky(p, rc, a):
    """_npi_cholesky(A): the lower-triangular L with A = L L^T of a symmetric positive-definite
    (batch of) matrix.

    Raises:
        ValueError: a matrix that is not positive-definite.
    """
    _square("_npi_cholesky", a.shape)
    try:
        return rc.xp.asarray(np.linalg.cholesky(_host(a)).astype(a.dtype))
    except np.linalg.LinAlgError as e:
        raise MXNetValueError(f"_npi_cholesky: {e} (the matrix must be symmetric "
                              "positive-definite)") from None


# ---- solve -----------------------------------------------------------------------------------
def _solve_shape(p, ins):
    a, b = ins
    if a is None or b is None:
        return ins, [_k(ins, 1)]
    _square("_npi_solve", a)
    return ins, [tuple(b)]


def _as_mat(a, b):
    """b as a batch of matrices for a (vector right-hand sides as columns)."""
    vec = b.ndim == a.ndim - 1
    return (b[..., None] if vec else b), vec


def _solve_vjp(p, rc, xs, ys, gys, need):
    a, b = xs
    x, g = ys[0], gys[0]
    xm, vec = _as_mat(a, x)
    gm = g[..., None] if vec else g
    gb = np.linalg.solve(_t(_host(a)), _host(gm))
    ga = -gb @ _t(_host(xm))
    gb = gb[..., 0] if vec else gb
    return rc.xp.asarray(ga.astype(a.dtype)), rc.xp.asarray(gb.astype(b.dtype))


@register("_npi_solve", inputs=("A", "B"), shape=_solve_shape, vjp=_solve_vjp)
def _np_solve(p, rc, a, b):
    """_npi_solve(A, B): x with A x = B (B a vector or a matrix per batch entry).

    Raises:
        ValueError: a singular matrix.
    """
    _square("_npi_solve", a.shape)
    bm, vec = _as_mat(a, b)
    try:
        x = np.linalg.solve(_host(a), _host(bm))
    except np.linalg.LinAlgError as e:
        raise MXNetValueError(f"_npi_solve: {e}") from None
    return rc.xp.asarray((x[..., 0] if vec else x).astype(a.dtype))


# ---- tensorinv, tensorsolve ------------------------------------------------------------------
def _tinv_split(name, shape, ind):
    if ind <= 0:
        raise MXNetValueError(f"{name}: ind must be > 0, got {ind}")
    left, right = prod(shape[:ind]), prod(shape[ind:])
    if left != right:
        raise ShapeError(f"{name}: the product of the first ind={ind} dimensions of {shape} "
                         "must equal the product of the others")
    return left


@register("_npi_tensorinv", inputs=("a",), attrs={"ind": A.Int(2)},
          shape=lambda p, ins: (ins, [None if ins[0] is None else
                                      tuple(ins[0][p.ind:]) + tuple(ins[0][:p.ind])]),
          vjp=lambda p, rc, xs, ys, gys, need: (_tinv_vjp(p, rc, xs, ys, gys),))
def _np_tensorinv(p, rc, a):
    """_npi_tensorinv(a, ind=2): the inverse of `a` for tensordot over its first `ind`
    axes."""
    n = _tinv_split("_npi_tensorinv", a.shape, p.ind)
    inv = np.linalg.inv(_host(a).reshape(n, n))
    return rc.xp.asarray(inv.reshape(a.shape[p.ind:] + a.shape[:p.ind]).astype(a.dtype))


def _tinv_vjp(p, rc, xs, ys, gys):
    a = xs[0]
    n = _tinv_split("_npi_tensorinv", a.shape, p.ind)
    y = _host(ys[0]).reshape(n, n)
    g = _host(gys[0]).reshape(n, n)
    ga = -y.T @ g @ y.T
    return rc.xp.asarray(ga.reshape(a.shape).astype(a.dtype))


def _tsolve_axes(p, a_ndim):
    return tuple(norm_axis("_npi_tensorsolve", x, a_ndim) for x in (p.a_axes or ()))


def _tsolve_prep(p, a, b_ndim):
    axes = _tsolve_axes(p, a.ndim)
    if axes:
        order = [i for i in range(a.ndim) if i not in axes] + list(axes)
        a = np.transpose(a, order)
    return a


def _tsolve_out(p, a, b):
    """x's shape for a of shape `a`, b of shape `b` (MXNet's TensorsolveOpShape: a 0-d side
    gives the other's shape; otherwise a's reordered dimensions after the first
    ``b.ndim`` (``b.ndim - a.ndim`` when a has no more dimensions than b)).

    Raises:
        ShapeError: a not square, or a and b that do not match.
    """
    a, b = tuple(a), tuple(b)
    if not a and not b:
        return b
    if not a or not b:
        if prod(b if not a else a) != 1:
            raise ShapeError("_npi_tensorsolve: a's and b's dimensions don't match")
        return a
    axes = _tsolve_axes(p, len(a))
    if axes:
        a = tuple(a[i] for i in range(len(a)) if i not in axes) + tuple(a[i] for i in axes)
    temp = len(b) if len(a) > len(b) else len(b) - len(a)
    front, back = prod(a[:temp]), prod(a[temp:])
    if front != back:
        raise ShapeError(f"_npi_tensorsolve: a shape must be square, got {a} for b of shape {b}")
    if back != prod(b):
        raise ShapeError(f"_npi_tensorsolve: a's and b's dimensions don't match: a {a}, b {b}")
    return a[temp:]


def _tsolve_shape(p, ins):
    a, b = ins
    if a is None or b is None:
        return ins, [None]
    return ins, [_tsolve_out(p, a, b)]


def _tsolve_vjp(p, rc, xs, ys, gys, need):
    a, b = xs
    ap = _tsolve_prep(p, _host(a), b.ndim)
    n = prod(b.shape)
    am = ap.reshape(n, -1)
    x = _host(ys[0]).reshape(-1)
    g = _host(gys[0]).reshape(-1)
    gb = np.linalg.solve(am.T, g)
    gam = -np.outer(gb, x)
    gap = gam.reshape(ap.shape)
    axes = _tsolve_axes(p, a.ndim)
    if axes:
        order = [i for i in range(a.ndim) if i not in axes] + list(axes)
        gap = np.transpose(gap, np.argsort(order))
    return rc.xp.asarray(gap.astype(a.dtype)), rc.xp.asarray(gb.reshape(b.shape).astype(b.dtype))


@register("_npi_tensorsolve", inputs=("a", "b"), attrs={"a_axes": A.Axis(None)},
          shape=_tsolve_shape, vjp=_tsolve_vjp)
def _np_tensorsolve(p, rc, a, b):
    """_npi_tensorsolve(a, b, a_axes=None): x with tensordot(a, x, x.ndim) = b (a's axes
    `a_axes` moved to the end first)."""
    out = _tsolve_out(p, a.shape, b.shape)
    ap = _tsolve_prep(p, _host(a), b.ndim)
    n = prod(b.shape)
    x = np.linalg.solve(ap.reshape(n, -1), _host(b).reshape(-1))
    return rc.xp.asarray(x.reshape(out).astype(a.dtype))


# ---- pinv ------------------------------------------------------------------------------------
def _pinv_shape(p, ins):
    s = _k(ins)
    if s is None:
        return ins, [None] + ([] if len(ins) == 1 else [])
    return ins, [s[:-2] + (s[-1], s[-2])]


def _pinv_vjp(p, rc, xs, ys, gys, need):
    """d pinv(a): -P dA P + P P^T dA^T (I - A P) + (I - P A) dA^T P^T P, transposed."""
    a, pa, g = _host(xs[0]), _host(ys[0]), _host(gys[0])
    m, n = a.shape[-2], a.shape[-1]
    im, in_ = np.eye(m), np.eye(n)
    ga = -_t(pa) @ g @ _t(pa) \
        + (im - a @ pa) @ _t(g) @ pa @ _t(pa) \
        + _t(pa) @ pa @ _t(g) @ (in_ - pa @ a)
    out = [rc.xp.asarray(ga.astype(xs[0].dtype))]
    if len(xs) > 1:
        out.append(None)
    return tuple(out)


def _pinv(a, rcond, hermitian, xp):
    if hermitian:
        raise NotImplementedError("_npi_pinv: hermitian=True is not supported yet")
    return xp.asarray(np.linalg.pinv(_host(a), rcond=rcond).astype(a.dtype))


@register("_npi_pinv", inputs=("A", "rcond"), attrs={"hermitian": A.Bool(False)},
          nondiff=("rcond",), same_dtype=(), shape=_pinv_shape, vjp=_pinv_vjp)
def _np_pinv(p, rc, a, rcond):
    """_npi_pinv(A, rcond, hermitian=False): the pseudo-inverse, singular values below
    rcond (an array broadcast over the batch) times the largest one cut."""
    return _pinv(a, _host(rcond), p.hermitian, rc.xp)


@register("_npi_pinv_scalar_rcond", inputs=("A",),
          attrs={"rcond": A.Float(1e-15), "hermitian": A.Bool(False)},
          shape=_pinv_shape, vjp=_pinv_vjp)
def _np_pinv_scalar(p, rc, a):
    """_npi_pinv_scalar_rcond(A, rcond=1e-15, hermitian=False): the pseudo-inverse."""
    return _pinv(a, p.rcond, p.hermitian, rc.xp)


# ---- eigen-decompositions ----------------------------------------------------------------------
def _eig_shape(nout):
    def rule(p, ins):
        s = _k(ins)
        if s is None:
            return ins, [None] * nout
        _square("_npi_eig", s)
        return ins, [s[:-1], s][:nout]
    return rule


def _real(name, w):
    if np.iscomplexobj(w):
        if np.abs(w.imag).max() > 0:
            raise MXNetValueError(f"{name}: the matrix has complex eigenvalues, which MXNet "
                                  "1.9.1 does not support")
        w = w.real
    return w


@register("_npi_eigvals", inputs=("A",), nondiff=("A",), shape=_eig_shape(1))
def _np_eigvals(p, rc, a):
    """_npi_eigvals(A): the eigenvalues of a general square matrix (real ones only)."""
    _square("_npi_eigvals", a.shape)
    return rc.xp.asarray(_real("_npi_eigvals", np.linalg.eigvals(_host(a))).astype(a.dtype))


@register("_npi_eig", inputs=("A",), outputs=2, nondiff=("A",), shape=_eig_shape(2))
def _np_eig(p, rc, a):
    """_npi_eig(A): (eigenvalues, eigenvectors as columns) of a square matrix (real only)."""
    _square("_npi_eig", a.shape)
    w, v = np.linalg.eig(_host(a))
    return (rc.xp.asarray(_real("_npi_eig", w).astype(a.dtype)),
            rc.xp.asarray(_real("_npi_eig", v).astype(a.dtype)))


def _eigh_vjp(nout):
    def vjp(p, rc, xs, ys, gys, need):
        w, v = (ys[0], ys[1]) if nout == 2 else _eigh(p, xs[0])
        gw = gys[0]
        gv = gys[1] if nout == 2 else None
        w, v = _host(w), _host(v)
        inner = np.zeros(v.shape[:-2] + (v.shape[-1],) * 2, dtype=v.dtype)
        if gw is not None:
            idx = np.arange(w.shape[-1])
            inner[..., idx, idx] = _host(gw)
        if gv is not None:
            diff = w[..., None, :] - w[..., :, None]
            eye = np.eye(w.shape[-1], dtype=bool)
            with np.errstate(divide="ignore", invalid="ignore"):
                f = np.where(eye, 0, 1.0 / np.where(eye, 1, diff))
            inner = inner + f * (_t(v) @ _host(gv))
        ga = v @ inner @ _t(v)
        if p.UPLO == "L":
            ga = np.tril(ga) + np.tril(_t(ga), -1)
        else:
            ga = np.triu(ga) + np.triu(_t(ga), 1)
        return (rc.xp.asarray(ga.astype(xs[0].dtype)),)
    return vjp


def _eigh(p, a):
    a = _host(a)
    return np.linalg.eigh(a, UPLO=p.UPLO)


@register("_npi_eigh", inputs=("A",), attrs={"UPLO": A.Enum("L", "U", default="L")},
          outputs=2, shape=_eig_shape(2), vjp=_eigh_vjp(2))
def _np_eigh(p, rc, a):
    """_npi_eigh(A, UPLO='L'): (ascending eigenvalues, eigenvectors) of a symmetric matrix
    read from its lower ('L') or upper ('U') triangle."""
    _square("_npi_eigh", a.shape)
    w, v = _eigh(p, a)
    return rc.xp.asarray(w.astype(a.dtype)), rc.xp.asarray(v.astype(a.dtype))


@register("_npi_eigvalsh", inputs=("A",), attrs={"UPLO": A.Enum("L", "U", default="L")},
          shape=_eig_shape(1), vjp=_eigh_vjp(1))
def _np_eigvalsh(p, rc, a):
    """_npi_eigvalsh(A, UPLO='L'): the ascending eigenvalues of a symmetric matrix."""
    _square("_npi_eigvalsh", a.shape)
    return rc.xp.asarray(_eigh(p, a)[0].astype(a.dtype))


# ---- norm ------------------------------------------------------------------------------------
def _norm_axes(p, ndim):
    if p.axis is None:
        if _whole_matrix(p, ndim):
            return (ndim - 2, ndim - 1)
        return tuple(range(ndim))
    axes = p.axis if isinstance(p.axis, tuple) else (p.axis,)
    return tuple(norm_axis("_npi_norm", a, ndim) for a in axes)


def _norm_shape(p, ins):
    s = _k(ins)
    if s is None:
        return ins, [None]
    axes = _norm_axes(p, len(s))
    if p.keepdims:
        return ins, [tuple(1 if i in axes else d for i, d in enumerate(s))]
    return ins, [tuple(d for i, d in enumerate(s) if i not in axes)]


def _whole_matrix(p, ndim):
    """flag -1 (a p-norm) with no axis on an array of 2 or more dimensions: MXNet's kernel
    takes the matrix norm over the last two axes (ord 1, -1, 2, -2, inf, -inf; any other
    positive ord acts as inf, any other as -inf)."""
    return p.flag == -1 and p.axis is None and ndim >= 2


def _matrix_ord(o):
    if o in (1, -1, 2, -2, np.inf, -np.inf):
        return o
    return np.inf if o > 0 else -np.inf


def _matrix_p_norm(x, axes, o, keepdims):
    """Matrix norm ord 1, -1, inf, -inf over `axes` (as NumPy's) and the (value, mask of the
    entries it sums) for the gradient."""
    a, b = axes
    if o in (1, -1):  # column sums (over rows a), the extreme over columns b
        sums = np.sum(np.abs(x), axis=a, keepdims=True)
        pick = np.max if o == 1 else np.min
        y = pick(sums, axis=b, keepdims=True)
    else:  # row sums (over columns b), the extreme over rows a
        sums = np.sum(np.abs(x), axis=b, keepdims=True)
        pick = np.max if o > 0 else np.min
        y = pick(sums, axis=a, keepdims=True)
    mask = np.broadcast_to(sums == y, x.shape)
    return (y if keepdims else np.squeeze(y, axis=(a, b))), mask


def _norm_value(p, x):
    axes = _norm_axes(p, x.ndim)
    kind = p.flag
    if _whole_matrix(p, x.ndim):
        o = _matrix_ord(p.ord)
        if o in (2, -2):
            return np.linalg.norm(x, ord=o, axis=axes, keepdims=p.keepdims)
        return _matrix_p_norm(x, axes, o, p.keepdims)[0]
    if kind == -2 or (kind == 1 and len(axes) != 2) or (kind == -1 and p.ord == 2):
        return np.sqrt(np.sum(x * x, axis=axes, keepdims=p.keepdims))
    if kind == 1:
        return np.sqrt(np.sum(x * x, axis=axes, keepdims=p.keepdims))
    if kind == -1:
        o = p.ord
        if o == np.inf:
            return np.max(np.abs(x), axis=axes, keepdims=p.keepdims)
        if o == -np.inf:
            return np.min(np.abs(x), axis=axes, keepdims=p.keepdims)
        if o == 0:
            return np.sum(x != 0, axis=axes, keepdims=p.keepdims).astype(x.dtype)
        with np.errstate(divide="ignore"):
            return np.sum(np.abs(x) ** o, axis=axes, keepdims=p.keepdims) ** (1.0 / o)
    # matrix norms through singular values
    a, b = axes
    moved = np.moveaxis(x, (a, b), (-2, -1))
    s = np.linalg.svd(moved, compute_uv=False)
    r = s.sum(-1) if kind == 2 else (s.max(-1) if p.ord == 2 else s.min(-1))
    if p.keepdims:
        r = np.expand_dims(np.expand_dims(r, -1), -1)
        r = np.moveaxis(r, (-2, -1), (a, b))
    return r


class _Ord:
    """The parameters a matrix 2/-2 norm's gradient reads."""

    def __init__(self, o):
        self.ord, self.flag = o, 0


def _norm_vjp(p, rc, xs, ys, gys, need):
    x, y, g = _host(xs[0]), _host(ys[0]), _host(gys[0])
    axes = _norm_axes(p, x.ndim)
    kept = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    yk, gk = y.reshape(kept), g.reshape(kept)
    kind = p.flag
    whole = _whole_matrix(p, x.ndim)
    if whole and _matrix_ord(p.ord) not in (2, -2):
        _, mask = _matrix_p_norm(x, axes, _matrix_ord(p.ord), True)
        gx = gk * np.sign(x) * mask
        return (rc.xp.asarray(gx.astype(xs[0].dtype)),)
    with np.errstate(divide="ignore", invalid="ignore"):
        if whole:
            kind, p = 0, _Ord(_matrix_ord(p.ord))
        if kind in (-2, 1) or (kind == -1 and p.ord == 2):
            gx = gk * np.where(yk == 0, 0, x / yk)
        elif kind == -1:
            o = p.ord
            if o in (np.inf, -np.inf):
                gx = gk * np.sign(x) * (np.abs(x) == yk)
            elif o == 0:
                gx = np.zeros_like(x)
            else:
                gx = gk * np.sign(x) * np.abs(x) ** (o - 1) * np.where(
                    yk == 0, 0, yk ** (1 - o))
        else:
            a, b = axes
            moved = np.moveaxis(x, (a, b), (-2, -1))
            u, s, vh = np.linalg.svd(moved, full_matrices=False)
            gm = np.moveaxis(gk, (a, b), (-2, -1))
            if kind == 2:
                gmat = u @ vh
            else:
                k = np.argmax(s, -1) if p.ord == 2 else np.argmin(s, -1)
                uk = np.take_along_axis(u, k[..., None, None], -1)
                vk = np.take_along_axis(vh, k[..., None, None], -2)
                gmat = uk @ vk
            gx = np.moveaxis(gm * gmat, (-2, -1), (a, b))
    return (rc.xp.asarray(np.nan_to_num(gx).astype(xs[0].dtype)),)


@register("_npi_norm", attrs={"ord": A.Float(2.0), "axis": A.Axis(None),
                              "keepdims": A.Bool(False), "flag": A.Int(-1)},
          shape=_norm_shape, vjp=_norm_vjp)
def _np_norm(p, rc, data):
    """_npi_norm(data, ord=2, axis=None, keepdims=False, flag): vector p-norms (flag -1),
    the flattened array's 2-norm (-2), matrix norms over two axes: Frobenius (1), 2 / -2
    (0), nuclear (2)."""
    if p.flag in (0, 2) and len(_norm_axes(p, data.ndim)) != 2:
        raise ShapeError("_npi_norm: a matrix norm needs two axes")
    return rc.xp.asarray(np.asarray(_norm_value(p, _host(data))).astype(data.dtype))
