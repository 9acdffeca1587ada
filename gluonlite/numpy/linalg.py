"""`mx.np.linalg`: NumPy's linear algebra on `mx.np` arrays, each function one operator
(`gluonlite.ops.np_linalg`, and the legacy ``_linalg_det/inverse/slogdet``), batched over
leading axes and differentiable where MXNet 1.9.1 is. ``cond``, ``lstsq``, ``matrix_power``,
``matrix_rank``, ``multi_dot`` and ``qr`` are NumPy's own on host copies, as in MXNet
(`gluonlite.numpy.fallback_linalg`).

Example::

    mx.np.linalg.norm(mx.np.array([3., 4.]))   # array(5.)
"""
import numbers

import numpy as _onp

from ..base import MXNetTypeError
from . import _functions as F  # symbolic choices
from ._dispatch import invoke, is_symbolic
from .fallback_linalg import cond, lstsq, matrix_power, matrix_rank, multi_dot, qr  # noqa: F401

__all__ = ["norm", "svd", "cholesky", "inv", "det", "slogdet", "solve", "tensorinv",
           "tensorsolve", "pinv", "eigvals", "eig", "eigvalsh", "eigh", "cond", "lstsq",
           "matrix_power", "matrix_rank", "multi_dot", "qr"]


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002
    """A vector or matrix norm: ord None (2-norm / Frobenius), 'fro', 'nuc', inf, -inf
    (written 'inf', '-inf' too), 1, -1, 2, -2 or any p for vectors; `axis` an int (vector
    norms) or a pair (matrix norms).

    Args:
        x: an `mx.np.ndarray`.
        ord: default None: the 2-norm of vectors or the Frobenius norm of matrices; else one of the
            orders above.
        axis: default None: a vector norm of a 1-D input, a matrix norm of a 2-D one; an int: vector
            norms along it; a pair of ints: matrix norms over those axes.
        keepdims (bool): default False: True keeps the reduced axes with length 1.

    Returns:
        An `mx.np.ndarray` of `x`'s shape without the reduced axes.

    Raises:
        TypeError: an axis that is not None, an int or a tuple.
        ValueError: an ord the chosen norm does not have.

    Example::

        mx.np.linalg.norm(mx.np.array([3., 4.]))  # array(5.)
    """
    if axis is not None and not isinstance(axis, (numbers.Integral, tuple)):
        raise MXNetTypeError("'axis' must be None, an integer or a tuple of integers.")
    attrs = {"axis": axis, "keepdims": bool(keepdims)}
    if axis is None and ord is None:
        return invoke("_npi_norm", [x], dict(attrs, ord=2.0, flag=-2), fname="linalg.norm")
    if axis is None and is_symbolic([x]):  # the number of dimensions is unknown: MXNet's
        if ord in ("inf", "-inf"):
            return (F.max if ord == "inf" else F.min)(F.abs(x), axis=None, keepdims=keepdims)
        flag = {"nuc": 2, "fro": 1, "f": 1}.get(ord, -1)
        return invoke("_npi_norm", [x], dict(attrs, ord=2.0 if flag != -1 else float(ord),
                                             flag=flag), fname="linalg.norm")
    if ord in ("inf", "-inf"):
        ord = float(ord)  # noqa: A001
    if isinstance(axis, numbers.Integral):
        axis = (axis,)
    if axis is not None and len(axis) == 2 or (axis is None and _ndim(x) == 2):
        axis = axis or (0, 1)
        attrs["axis"] = tuple(axis)
        if ord in (_onp.inf, -_onp.inf, 1, -1):
            r, c = axis
            if ord in (_onp.inf, -_onp.inf):
                if not keepdims and r > c:
                    r -= 1
                s = F.sum(F.abs(x), axis=c, keepdims=keepdims)
                return (F.max if ord > 0 else F.min)(s, axis=r, keepdims=keepdims)
            if not keepdims and r < c:
                c -= 1
            s = F.sum(F.abs(x), axis=r, keepdims=keepdims)
            return (F.max if ord > 0 else F.min)(s, axis=c, keepdims=keepdims)
        if ord in (2, -2):
            return invoke("_npi_norm", [x], dict(attrs, ord=float(ord), flag=0),
                          fname="linalg.norm")
        if ord == "nuc":
            return invoke("_npi_norm", [x], dict(attrs, ord=2.0, flag=2), fname="linalg.norm")
        if ord in (None, "fro", "f"):
            return invoke("_npi_norm", [x], dict(attrs, ord=2.0, flag=1), fname="linalg.norm")
        raise ValueError(f"linalg.norm: invalid norm order {ord!r} for matrices")
    if ord in ("fro", "f", "nuc"):
        raise ValueError(f"linalg.norm: invalid norm order {ord!r} for vectors")
    return invoke("_npi_norm", [x], dict(attrs, ord=2.0 if ord is None else float(ord),
                                         flag=-1 if ord is not None else 1),
                  fname="linalg.norm")


def _ndim(x):
    try:
        return x.ndim
    except AttributeError:
        return None


def svd(a):
    """(ut, s, v) with a = ut @ diag(s) @ v (rows <= columns, s descending), as MXNet 1.9.1
    returns it.

    Args:
        a: an `mx.np.ndarray` of shape (..., M, N) with M <= N.

    Returns:
        The tuple (ut, s, v) of `mx.np.ndarray`: shapes (..., M, M), (..., M) and (..., M, N).

    Raises:
        ValueError: fewer than 2 dimensions, or more rows than columns.

    Example::

        a = mx.np.array([[2., 1.], [1., 2.]])
        u, s, vt = mx.np.linalg.svd(a)
        s  # array([3., 1.])
    """
    return tuple(invoke("_npi_svd", [a], {}, fname="linalg.svd"))


def cholesky(a):
    """The lower-triangular L with a = L L^T (a symmetric positive-definite).

    Args:
        a: an `mx.np.ndarray` of shape (..., M, M), a batch of square matrices over the leading
            axes.

    Returns:
        An `mx.np.ndarray` of `a`'s shape, lower-triangular.

    Raises:
        ValueError: an input that is not a (batch of) square matrix, or not positive-definite.

    Example::

        mx.np.linalg.cholesky(mx.np.array([[4., 0.], [0., 9.]]))  # array([[2., 0.], [0., 3.]])
    """
    return invoke("_npi_cholesky", [a], {}, fname="linalg.cholesky")


def inv(a):
    """The inverse of a (batch of) square matrix.

    Args:
        a: an `mx.np.ndarray` of shape (..., M, M), a batch of square matrices over the leading
            axes.

    Returns:
        An `mx.np.ndarray` of `a`'s shape.

    Raises:
        ValueError: an input that is not a (batch of) square matrix.

    Example::

        mx.np.linalg.inv(mx.np.array([[2., 0.], [0., 4.]]))  # array([[0.5 , 0. ], [0. , 0.25]])
    """
    return invoke("_npi_inv", [a], {}, fname="linalg.inv")


def det(a):
    """The determinant of a (batch of) square matrix.

    Args:
        a: an `mx.np.ndarray` of shape (..., M, M), a batch of square matrices over the leading
            axes.

    Returns:
        An `mx.np.ndarray` of the determinants.

    Raises:
        ValueError: an input that is not a (batch of) square matrix.

    Example::

        a = mx.np.array([[2., 1.], [1., 2.]])
        mx.np.linalg.det(a)  # array([3.])
    """
    return invoke("_npi_det", [a], {}, fname="linalg.det")


def slogdet(a):
    """(sign, log ``|det|``) of a (batch of) square matrix.

    Args:
        a: an `mx.np.ndarray` of shape (..., M, M), a batch of square matrices over the leading
            axes.

    Returns:
        The pair (sign, logabsdet) of `mx.np.ndarray`, of the batch shape; det = sign *
        exp(logabsdet).

    Raises:
        ValueError: an input that is not a (batch of) square matrix.

    Example::

        a = mx.np.array([[2., 1.], [1., 2.]])
        sign, logdet = mx.np.linalg.slogdet(a)
        sign  # array([1.])
    """
    return tuple(invoke("_npi_slogdet", [a], {}, fname="linalg.slogdet"))


def solve(a, b):
    """x with a @ x = b.

    Args:
        a: an `mx.np.ndarray` of shape (..., M, M), a batch of square matrices over the leading
            axes.
        b: an `mx.np.ndarray` of shape (..., M) or (..., M, K): the right-hand sides.

    Returns:
        An `mx.np.ndarray` of `b`'s shape.

    Raises:
        ValueError: an `a` that is not square, or a singular one.

    Example::

        a = mx.np.array([[2., 1.], [1., 2.]])
        mx.np.linalg.solve(a, mx.np.array([3., 3.]))  # array([1., 1.])
    """
    return invoke("_npi_solve", [a, b], {}, fname="linalg.solve")


def tensorinv(a, ind=2):
    """The inverse of a for tensordot over its first `ind` axes.

    Args:
        a: an `mx.np.ndarray` whose first `ind` axes have the same total size as the rest.
        ind (int): default 2: how many leading axes count as the result's trailing ones.

    Returns:
        An `mx.np.ndarray` of shape ``a.shape[ind:] + a.shape[:ind]``.

    Raises:
        ValueError: `ind` <= 0, or sizes that do not make a square matrix.

    Example::

        mx.np.linalg.tensorinv(mx.np.eye(4).reshape(4, 2, 2), ind=1).shape  # (2, 2, 4)
    """
    return invoke("_npi_tensorinv", [a], {"ind": int(ind)}, fname="linalg.tensorinv")


def tensorsolve(a, b, axes=None):
    """x with tensordot(a, x, x.ndim) = b (a's `axes` moved to the end first).

    Args:
        a: the coefficient `mx.np.ndarray`; its axes beyond ``b.ndim`` are those of the unknown.
        b: the right-hand side `mx.np.ndarray`.
        axes: default None: keep `a`'s axes in place; else a tuple of `a`'s axes moved to the end
            first.

    Returns:
        An `mx.np.ndarray` of shape ``a.shape[b.ndim:]`` (after the move).

    Raises:
        ValueError: shapes that do not match or do not make a square system.

    Example::

        mx.np.linalg.tensorsolve(mx.np.eye(2) * 2, mx.np.array([2., 4.]))  # array([1., 2.])
    """
    return invoke("_npi_tensorsolve", [a, b], {"a_axes": None if axes is None else tuple(axes)},
                  fname="linalg.tensorsolve")


def pinv(a, rcond=1e-15, hermitian=False):
    """The Moore-Penrose pseudo-inverse (rcond a number or an array).

    Args:
        a: an `mx.np.ndarray` of shape (..., M, N).
        rcond: default 1e-15: singular values below rcond times the largest count as zero; a number
            or an `mx.np.ndarray` broadcast over the batch.
        hermitian (bool): default False, the only value supported.

    Returns:
        An `mx.np.ndarray` of shape (..., N, M).

    Raises:
        NotImplementedError: hermitian=True (as in MXNet 1.9.1).

    Example::

        mx.np.linalg.pinv(mx.np.array([[2., 0.], [0., 4.]]))  # array([[0.5 , 0. ], [0. , 0.25]])
    """
    if hermitian:
        raise NotImplementedError("linalg.pinv: hermitian is not supported yet...")
    if isinstance(rcond, numbers.Number):
        return invoke("_npi_pinv_scalar_rcond", [a], {"rcond": float(rcond),
                                                      "hermitian": False}, fname="linalg.pinv")
    return invoke("_npi_pinv", [a, rcond], {"hermitian": False}, fname="linalg.pinv")


def eigvals(a):
    """The eigenvalues of a general square matrix (real ones only, as in MXNet 1.9.1).

    Args:
        a: an `mx.np.ndarray` of shape (..., M, M), a batch of square matrices over the leading
            axes.

    Returns:
        An `mx.np.ndarray` of shape (..., M), the eigenvalues.

    Raises:
        ValueError: a non-square input, or complex eigenvalues.

    Example::

        mx.np.linalg.eigvals(mx.np.array([[2., 0.], [0., 3.]]))  # array([2., 3.])
    """
    return invoke("_npi_eigvals", [a], {}, fname="linalg.eigvals")


def eig(a):
    """(eigenvalues, eigenvectors) of a general square matrix (real only).

    Args:
        a: an `mx.np.ndarray` of shape (..., M, M), a batch of square matrices over the leading
            axes.

    Returns:
        The pair (w, v): eigenvalues (..., M) and eigenvectors as the columns of v (..., M, M).

    Raises:
        ValueError: a non-square input, or complex eigenvalues.

    Example::

        w, v = mx.np.linalg.eig(mx.np.array([[2., 0.], [0., 3.]]))
        w  # array([2., 3.])
    """
    return tuple(invoke("_npi_eig", [a], {}, fname="linalg.eig"))


def eigvalsh(a, UPLO="L"):
    """The ascending eigenvalues of a symmetric matrix (read from triangle UPLO).

    Args:
        a: an `mx.np.ndarray` of shape (..., M, M), a batch of square matrices over the leading
            axes.
        UPLO (str): default 'L': read the lower triangle; 'U': the upper one.

    Returns:
        An `mx.np.ndarray` of shape (..., M), ascending.

    Raises:
        ValueError: an input that is not a (batch of) square matrix.

    Example::

        a = mx.np.array([[2., 1.], [1., 2.]])
        mx.np.linalg.eigvalsh(a)  # array([1., 3.])
    """
    return invoke("_npi_eigvalsh", [a], {"UPLO": UPLO}, fname="linalg.eigvalsh")


def eigh(a, UPLO="L"):
    """(ascending eigenvalues, eigenvectors) of a symmetric matrix.

    Args:
        a: an `mx.np.ndarray` of shape (..., M, M), a batch of square matrices over the leading
            axes.
        UPLO (str): default 'L': read the lower triangle; 'U': the upper one.

    Returns:
        The pair (w, v): ascending eigenvalues (..., M) and eigenvectors as the columns of v (...,
        M, M).

    Raises:
        ValueError: an input that is not a (batch of) square matrix.

    Example::

        a = mx.np.array([[2., 1.], [1., 2.]])
        w, v = mx.np.linalg.eigh(a)
        w  # array([1., 3.])
    """
    return tuple(invoke("_npi_eigh", [a], {"UPLO": UPLO}, fname="linalg.eigh"))
