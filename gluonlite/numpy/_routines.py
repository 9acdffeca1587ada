"""`mx.np`'s products and value-dependent routines: dot, vdot, inner, outer, matmul,
tensordot, einsum, where, nonzero, unique, bincount, percentile, quantile, histogram, polyval,
nan_to_num, shares_memory and the index helpers."""
import numbers

import numpy as _onp

from ..base import MXNetTypeError, MXNetValueError
from ..ndarray.ndarray import NDArray
from ..numpy_op_fallback import custom
from ..symbol.symbol import Symbol
from ..util import _check_ufunc_kwargs
from ._dispatch import invoke, is_symbolic
from ._manipulation import reshape, transpose

__all__ = ["dot", "vdot", "inner", "outer", "matmul", "tensordot", "einsum", "where",
           "nonzero", "unique", "bincount", "percentile", "quantile", "histogram", "polyval",
           "nan_to_num", "shares_memory", "may_share_memory", "unravel_index",
           "diag_indices_from"]


def _is_array(x):
    return isinstance(x, (NDArray, Symbol))


def dot(a, b, out=None):
    """NumPy's dot: the inner product of 1-D arrays, the matrix product of 2-D ones, the sum
    over a's last and b's second-to-last axis in general (a 0-d operand scales).

    Raises:
        ValueError: shapes that are not aligned.

    Example::

        a = mx.np.array([[1., 2.], [3., 4.]])
        mx.np.dot(a, mx.np.array([1., 1.]))  # array([3., 7.])
    """
    return invoke("_np_dot", [a, b], {}, out=out, fname="dot")


def matmul(a, b, out=None, **kwargs):
    """NumPy's matmul: matrix products batched over leading axes (broadcast).

    Raises:
        ValueError: 0-d operands or mismatched core dimensions.

    Example::

        a = mx.np.array([[1., 2.], [3., 4.]])
        mx.np.matmul(a, a)  # array([[7., 10.], [15., 22.]])
    """
    _check_ufunc_kwargs("matmul", kwargs)
    return invoke("_npi_matmul", [a, b], {}, out=out, fname="matmul")


def tensordot(a, b, axes=2):
    """Sum products over the axes `axes` of a and b: an int (a's last and b's first that
    many) or a pair of axis sequences.

    Example::

        a = mx.np.array([[1., 2.], [3., 4.]])
        mx.np.tensordot(a, a, axes=2)  # array(30.)
    """
    if isinstance(axes, (numbers.Integral, _onp.integer)):
        return invoke("_npi_tensordot_int_axes", [a, b], {"axes": int(axes)},
                      fname="tensordot")
    if len(axes) != 2:
        raise MXNetValueError("tensordot: axes must consist of two arrays")
    a_axes, b_axes = axes
    a_axes = (a_axes,) if isinstance(a_axes, numbers.Integral) else tuple(a_axes)
    b_axes = (b_axes,) if isinstance(b_axes, numbers.Integral) else tuple(b_axes)
    if len(a_axes) != len(b_axes):
        raise MXNetValueError("tensordot: axes length mismatch")
    return invoke("_npi_tensordot", [a, b], {"a_axes_summed": a_axes,
                                             "b_axes_summed": b_axes}, fname="tensordot")


def inner(a, b):
    """The sum product over the last axes of a and b.

    Example::

        mx.np.inner(mx.np.array([1., 2.]), mx.np.array([3., 4.]))  # array(11.)
    """
    return tensordot(a, b, ([-1], [-1]))


def outer(a, b):
    """The outer product of the flattened arrays.

    Example::

        mx.np.outer(mx.np.array([1., 2.]), mx.np.array([1., 10.]))  # array([[1., 10.], [2., 20.]])
    """
    return tensordot(reshape(a, (-1,)), reshape(b, (-1,)), 0)


def vdot(a, b):
    """The dot product of the flattened arrays.

    Example::

        mx.np.vdot(mx.np.array([1., 2.]), mx.np.array([3., 4.]))  # array(11.)
    """
    return tensordot(reshape(a, (-1,)), reshape(b, (-1,)), 1)


def einsum(*operands, **kwargs):
    """Einstein summation: ``einsum('ij,jk->ik', a, b)`` ('...' and the implicit output form
    included; ``optimize`` is accepted, ``out`` writes the result there).

    Example::

        a = mx.np.array([[1., 2.], [3., 4.]])
        mx.np.einsum('ij->j', a)  # array([4., 6.])
    """
    optimize = kwargs.pop("optimize", False)
    out = kwargs.pop("out", None)
    if kwargs:
        raise TypeError(f"einsum: unexpected keyword argument {next(iter(kwargs))!r}")
    subscripts, arrays = operands[0], list(operands[1:])
    if not isinstance(subscripts, str):
        raise MXNetTypeError("einsum: the first argument must be the subscripts string")
    return invoke("_npi_einsum", arrays, {"subscripts": subscripts,
                                          "optimize": int(bool(optimize)),
                                          "num_args": len(arrays)}, out=out, fname="einsum")


def where(condition, x=None, y=None):
    """Elements of x where `condition` is true, else of y (each an array or a number,
    broadcast together); with only `condition`, its non-zero indices (`nonzero`).

    Example::

        v = mx.np.array([1., 2., 3., 4.])
        mx.np.where(v > 2, v, 0.)  # array([0., 0., 3., 4.])
    """
    if x is None and y is None:
        return nonzero(condition)
    if isinstance(condition, numbers.Number):
        return x if condition != 0 else y
    if isinstance(x, numbers.Number) and isinstance(y, numbers.Number):
        return invoke("_npi_where_scalar2", [condition], {"x": float(x), "y": float(y)},
                      fname="where")
    if _is_array(x) and _is_array(y):
        return invoke("_npi_where", [condition, x, y], {}, fname="where")
    if _is_array(y):
        return invoke("_npi_where_lscalar", [condition, y], {"scalar": float(x)},
                      fname="where")
    if _is_array(x):
        return invoke("_npi_where_rscalar", [condition, x], {"scalar": float(y)},
                      fname="where")
    raise MXNetTypeError(f"where: type {type(x).__name__} and {type(y).__name__} not "
                         "supported")


def nonzero(a):
    """The indices of the non-zero elements: a tuple of int64 arrays, one per axis.

    Example::

        mx.np.nonzero(mx.np.array([0., 2., 0., 3.]))  # (array([1, 3], dtype=int64),)
    """
    idx = invoke("_npx_nonzero", [a], {}, fname="nonzero")
    if is_symbolic([a]):
        raise NotImplementedError("nonzero: the result's length depends on values; a symbol "
                                  "cannot give a tuple of them")
    t = transpose(idx)
    return tuple(t[i] for i in range(t.shape[0]))


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None):
    """The sorted unique elements (slices along `axis`), with the first indices, the inverse
    map and the counts as asked.

    Example::

        mx.np.unique(mx.np.array([2., 1., 2.]))  # array([1., 2.])
    """
    res = invoke("_npi_unique", [ar], {"return_index": bool(return_index),
                                       "return_inverse": bool(return_inverse),
                                       "return_counts": bool(return_counts), "axis": axis},
                 fname="unique")
    return tuple(res) if isinstance(res, list) else res


def bincount(x, weights=None, minlength=0):
    """Occurrences of each non-negative integer in the 1-D array x (weighted sums with
    weights).

    Raises:
        TypeError: x is not an array. ValueError: a negative minlength.

    Example::

        mx.np.bincount(mx.np.array([0, 1, 1, 3], dtype='int64'))  # array([1, 2, 0, 1], dtype=int64)
    """
    if not _is_array(x):
        raise MXNetTypeError("bincount: input data should be an ndarray")
    if minlength < 0:
        raise MXNetValueError("bincount: minlength value should be greater than 0")
    if weights is None:
        return invoke("_npi_bincount", [x], {"minlength": int(minlength), "has_weights": False},
                      fname="bincount")
    return invoke("_npi_bincount", [x, weights], {"minlength": int(minlength),
                                                  "has_weights": True}, fname="bincount")


def percentile(a, q, axis=None, out=None, overwrite_input=None, interpolation="linear",
               keepdims=False):
    """The q-th percentiles (q a number or an array in [0, 100]) along `axis`.

    Raises:
        NotImplementedError: overwrite_input.

    Example::

        v = mx.np.array([1., 2., 3., 4.])
        mx.np.percentile(v, 50)  # array(2.5)
    """
    if overwrite_input is not None:
        raise NotImplementedError("percentile: overwrite_input is not supported yet")
    attrs = {"axis": tuple(axis) if isinstance(axis, list) else axis,
             "interpolation": interpolation, "keepdims": bool(keepdims)}
    if isinstance(q, numbers.Number):
        return invoke("_npi_percentile", [a], dict(attrs, q_scalar=float(q)), out=out,
                      fname="percentile")
    return invoke("_npi_percentile", [a, q], dict(attrs, q_scalar=None), out=out,
                  fname="percentile")


def quantile(a, q, axis=None, out=None, overwrite_input=None, interpolation="linear",
             keepdims=False):
    """The q-th quantiles (q in [0, 1]) along `axis` (see `percentile`).

    Example::

        v = mx.np.array([1., 2., 3., 4.])
        mx.np.quantile(v, 0.5)  # array(2.5)
    """
    q = q * 100
    return percentile(a, q, axis=axis, out=out, overwrite_input=overwrite_input,
                      interpolation=interpolation, keepdims=keepdims)


def histogram(a, bins=10, range=None, normed=None, weights=None,  # noqa: A002
              density=None):
    """(counts, bin edges) of `a`: `bins` equal bins over `range`, or the edges given as an
    array.

    Raises:
        NotImplementedError: what MXNet 1.9.1 lacks: normed, weights, density, automatic
            range, bins as a list or a string.

    Example::

        x = mx.np.array([0., 1., 1., 2.])
        hist, edges = mx.np.histogram(x, bins=2, range=(0, 2))
        hist  # array([1, 3], dtype=int64)
        edges  # array([0., 1., 2.])
    """
    if normed is True:
        raise NotImplementedError("histogram: normed is not supported yet...")
    if weights is not None:
        raise NotImplementedError("histogram: weights is not supported yet...")
    if density is True:
        raise NotImplementedError("histogram: density is not supported yet...")
    if isinstance(bins, numbers.Number):
        if range is None:
            raise NotImplementedError("histogram: automatic range is not supported yet...")
        return tuple(invoke("_npi_histogram", [a], {"bin_cnt": int(bins),
                                                    "range": tuple(range)},
                            fname="histogram"))
    if isinstance(bins, (list, tuple)):
        raise NotImplementedError("histogram: array_like bins is not supported yet...")
    if isinstance(bins, str):
        raise NotImplementedError("histogram: string bins is not supported yet...")
    if _is_array(bins):
        return tuple(invoke("_npi_histogram", [a, bins], {}, fname="histogram"))
    raise MXNetValueError(f"histogram: bins of type {type(bins).__name__} not supported")


def polyval(p, x):
    """The polynomial with coefficients p (highest power first) at x (both arrays, or both
    not: NumPy then).

    Raises:
        TypeError: one array and one not.

    Example::

        mx.np.polyval(mx.np.array([1., 0., 2.]), mx.np.array([0., 1., 2.]))  # array([2., 3., 6.])
    """
    if _is_array(p) and _is_array(x):
        return invoke("_npi_polyval", [p, x], {}, fname="polyval")
    if not _is_array(p) and not _is_array(x):
        return _onp.polyval(p, x)
    raise MXNetTypeError("polyval: p and x must both be arrays or both not")


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None, **kwargs):
    """nan and infinities replaced by finite numbers (in place when copy is False).

    Example::

        mx.np.nan_to_num(mx.np.array([1., mx.np.nan]))  # array([1., 0.])
    """
    if isinstance(x, numbers.Number):
        return _onp.nan_to_num(x, copy, nan, posinf, neginf)
    if not _is_array(x):
        raise MXNetTypeError(f"nan_to_num: type {type(x).__name__} not supported")
    attrs = {"copy": bool(copy), "nan": float(nan),
             "posinf": None if posinf is None else float(posinf),
             "neginf": None if neginf is None else float(neginf)}
    if not is_symbolic([x]) and _onp.dtype(x.dtype).kind != "f":
        return x
    return invoke("_npi_nan_to_num", [x], attrs, out=None if copy else x,
                  fname="nan_to_num")


def shares_memory(a, b, max_work=None):
    """Whether a and b share memory (a Python bool).

    Example::

        v = mx.np.array([1., 2., 3., 4.])
        mx.np.shares_memory(v, v.copy())  # False
    """
    return bool(invoke("_npi_share_memory", [a, b], {}, fname="shares_memory").item())


def may_share_memory(a, b, max_work=None):
    """As `shares_memory`.

    Example::

        v = mx.np.array([1., 2., 3., 4.])
        mx.np.may_share_memory(v, v.copy())  # False
    """
    return shares_memory(a, b)


def unravel_index(indices, shape, order="C"):
    """The tuple of index arrays of flat `indices` into an array of `shape`.

    Raises:
        NotImplementedError: order other than 'C'.

    Example::

        flat = mx.np.array([5], dtype='int64')
        mx.np.unravel_index(flat, (2, 3))  # (array([1], dtype=int64), array([2], dtype=int64))
    """
    if order != "C":
        raise NotImplementedError("unravel_index: only C order is supported")
    if isinstance(indices, numbers.Number):
        return _onp.unravel_index(indices, shape)
    ret = custom(indices, op_type="unravel_index_fallback", shape=shape)
    if is_symbolic([indices]):
        return ret  # one symbol of shape (len(shape),) + indices.shape, as MXNet's
    return tuple(ret[i] for i in range(ret.shape[0]))


def diag_indices_from(arr):
    """The indices of the main diagonal of a square array (a tuple of arrays, one per
    axis).

    Example::

        rows, cols = mx.np.diag_indices_from(mx.np.ones((2, 2)))
        rows  # array([0, 1], dtype=int64)
    """
    res = invoke("_npi_diag_indices_from", [arr], {}, fname="diag_indices_from")
    if is_symbolic([arr]):
        return res  # one symbol of shape (ndim, n), as MXNet's
    return tuple(res[i] for i in range(res.shape[0]))
