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

    Args:
        a: the first `mx.np.ndarray` (or numpy symbol).
        b: the second `mx.np.ndarray`; its second-to-last axis (its only one when 1-D) must match
            `a`'s last.
        out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype that
            receives it (and is returned).

    Returns:
        An `mx.np.ndarray` of shape ``a.shape[:-1] + b.shape[:-2] + b.shape[-1:]`` (0-d for two 1-D
        arrays).

    Raises:
        ValueError: shapes that are not aligned.

    Example::

        a = mx.np.array([[1., 2.], [3., 4.]])
        mx.np.dot(a, mx.np.array([1., 1.]))  # array([3., 7.])
    """
    return invoke("_np_dot", [a, b], {}, out=out, fname="dot")


def matmul(a, b, out=None, **kwargs):
    """NumPy's matmul: matrix products batched over leading axes (broadcast).

    Args:
        a: the first `mx.np.ndarray` (a 1-D one is a row vector).
        b: the second `mx.np.ndarray` (a 1-D one is a column vector).
        out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype that
            receives it (and is returned).
        **kwargs: NumPy's ufunc keywords, accepted at their default values only.

    Returns:
        An `mx.np.ndarray` of the broadcast leading shape plus (n, p).

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

    Args:
        a: the first `mx.np.ndarray`.
        b: the second `mx.np.ndarray`.
        axes: default 2: an int N sums over `a`'s last N and `b`'s first N axes; a pair (a_axes,
            b_axes) of ints or int sequences of equal length names them.

    Returns:
        An `mx.np.ndarray` of `a`'s free axes followed by `b`'s.

    Raises:
        ValueError: `axes` that is not an int or a pair, or a pair of different lengths.

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

    Args:
        a: the first `mx.np.ndarray`.
        b: the second `mx.np.ndarray`, whose last axis matches `a`'s.

    Returns:
        An `mx.np.ndarray` of shape ``a.shape[:-1] + b.shape[:-1]``.

    Raises:
        TypeError: an operand that is not an `mx.np.ndarray`.
        ValueError: shapes that do not fit together.

    Example::

        mx.np.inner(mx.np.array([1., 2.]), mx.np.array([3., 4.]))  # array(11.)
    """
    return tensordot(a, b, ([-1], [-1]))


def outer(a, b):
    """The outer product of the flattened arrays.

    Args:
        a: the first `mx.np.ndarray` (flattened).
        b: the second `mx.np.ndarray` (flattened).

    Returns:
        A 2-D `mx.np.ndarray` of shape (a.size, b.size): ``out[i, j] = a[i] * b[j]``.

    Raises:
        TypeError: an operand that is not an `mx.np.ndarray`.

    Example::

        mx.np.outer(mx.np.array([1., 2.]), mx.np.array([1., 10.]))  # array([[1., 10.], [2., 20.]])
    """
    return tensordot(reshape(a, (-1,)), reshape(b, (-1,)), 0)


def vdot(a, b):
    """The dot product of the flattened arrays.

    Args:
        a: the first `mx.np.ndarray` (flattened).
        b: the second `mx.np.ndarray` (flattened), of `a`'s size.

    Returns:
        A 0-d `mx.np.ndarray`.

    Raises:
        TypeError: an operand that is not an `mx.np.ndarray`.
        ValueError: shapes that do not fit together.

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

    Args:
        condition: an `mx.np.ndarray` (non-zero counts as true) or a Python number (then `x` or `y`
            is returned whole).
        x: default None: see above; else an `mx.np.ndarray` or a number taken where `condition`
            holds.
        y: default None: see above; else an `mx.np.ndarray` or a number taken elsewhere.

    Returns:
        An `mx.np.ndarray` of the broadcast shape, or the tuple of `nonzero` with `condition` alone.

    Raises:
        TypeError: `x` or `y` that is neither an array nor a number.

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

    Args:
        a: an `mx.np.ndarray`.

    Returns:
        A tuple of ``a.ndim`` 1-D int64 `mx.np.ndarray`, the indices along each axis.

    Raises:
        NotImplementedError: a numpy symbol (the number of results depends on the values).

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

    Args:
        ar: an `mx.np.ndarray`.
        return_index (bool): default False: True also returns the index of each unique value's first
            occurrence.
        return_inverse (bool): default False: True also returns the indices that rebuild `ar` from
            the unique values.
        return_counts (bool): default False: True also returns how often each unique value occurs.
        axis: default None: unique elements of the flattened array; an int: unique slices along that
            axis.

    Returns:
        The sorted unique values (an `mx.np.ndarray`), or a tuple of them followed by the arrays
        asked for, in the order above.

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

    Args:
        x: a 1-D `mx.np.ndarray` of non-negative integers.
        weights: default None: count 1 per occurrence; else an `mx.np.ndarray` of `x`'s shape whose
            entries are summed instead.
        minlength (int): default 0: the least length of the result.

    Returns:
        A 1-D `mx.np.ndarray` of length ``max(x.max() + 1, minlength)`` (int64 counts, or the
        weights' dtype).

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

    Args:
        a: an `mx.np.ndarray`.
        q: a number or an `mx.np.ndarray` of percentiles in [0, 100].
        axis: default None: over the flattened array; else an int or a tuple of ints.
        out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype that
            receives it (and is returned).
        overwrite_input: must stay None (not supported).
        interpolation (str): default 'linear': how to pick between two data points: 'linear',
            'lower', 'higher', 'midpoint' or 'nearest'.
        keepdims (bool): default False: True keeps the reduced axes with length 1.

    Returns:
        An `mx.np.ndarray`: `q`'s shape followed by `a`'s axes that remain.

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

    Args:
        a: an `mx.np.ndarray`.
        q: a number or an `mx.np.ndarray` of quantiles in [0, 1].
        axis: default None: over the flattened array; else an int or a tuple of ints.
        out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype that
            receives it (and is returned).
        overwrite_input: must stay None (not supported).
        interpolation (str): default 'linear': 'linear', 'lower', 'higher', 'midpoint' or 'nearest'.
        keepdims (bool): default False: True keeps the reduced axes with length 1.

    Returns:
        An `mx.np.ndarray`: `q`'s shape followed by `a`'s axes that remain.

    Raises:
        NotImplementedError: `overwrite_input`.

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

    Args:
        a: an `mx.np.ndarray` of data (flattened).
        bins: default 10: an int number of equal bins (then `range` is needed), or an
            `mx.np.ndarray` of monotonic bin edges.
        range: default None (not supported with an int `bins`); else the pair (lower, upper) the
            bins cover.
        normed: must stay None or False (not supported).
        weights: must stay None (not supported).
        density: must stay None or False (not supported).

    Returns:
        The pair (counts, bin edges) of `mx.np.ndarray`.

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

    Args:
        p: the 1-D coefficients, highest power first: an `mx.np.ndarray`, or (with a non-array `x`)
            anything NumPy takes.
        x: the points at which to evaluate: an `mx.np.ndarray`, or (with a non-array `p`) a number
            or NumPy array.

    Returns:
        An `mx.np.ndarray` of `x`'s shape, or NumPy's result.

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

    Args:
        x: an `mx.np.ndarray` (a Python number gives NumPy's result); a non-float array is returned
            as it is.
        copy (bool): default True: return a new array; False writes the result into `x`.
        nan (float): default 0.0: the value that replaces nan.
        posinf: default None: the largest finite value of the dtype replaces +inf; else that number.
        neginf: default None: the most negative finite value of the dtype replaces -inf; else that
            number.
        **kwargs: ignored.

    Returns:
        An `mx.np.ndarray` of `x`'s shape and dtype (`x` itself when `copy` is False or it is not
        float).

    Raises:
        TypeError: `x` that is neither an array nor a number.

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

    Args:
        a: an `mx.np.ndarray`.
        b: another `mx.np.ndarray`.
        max_work: ignored (accepted for NumPy's signature).

    Returns:
        bool: True when the two arrays overlap in memory.

    Raises:
        TypeError: an operand that is not an `mx.np.ndarray`.

    Example::

        v = mx.np.array([1., 2., 3., 4.])
        mx.np.shares_memory(v, v.copy())  # False
    """
    return bool(invoke("_npi_share_memory", [a, b], {}, fname="shares_memory").item())


def may_share_memory(a, b, max_work=None):
    """As `shares_memory`.

    Args:
        a: an `mx.np.ndarray`.
        b: another `mx.np.ndarray`.
        max_work: ignored (accepted for NumPy's signature).

    Returns:
        bool: True when the two arrays overlap in memory.

    Raises:
        TypeError: an operand that is not an `mx.np.ndarray`.

    Example::

        v = mx.np.array([1., 2., 3., 4.])
        mx.np.may_share_memory(v, v.copy())  # False
    """
    return shares_memory(a, b)


def unravel_index(indices, shape, order="C"):
    """The tuple of index arrays of flat `indices` into an array of `shape`.

    Args:
        indices: an integer `mx.np.ndarray` of flat indices (a Python int gives NumPy's result).
        shape: a tuple of ints, the shape the indices point into.
        order (str): default 'C', the only order supported.

    Returns:
        A tuple of ``len(shape)`` `mx.np.ndarray` of `indices`'s shape (one numpy symbol of shape
        ``(len(shape),) + indices.shape`` when symbolic).

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

    Args:
        arr: an `mx.np.ndarray` of at least 2 dimensions, all of the same length n.

    Returns:
        A tuple of ``arr.ndim`` int64 arrays ``arange(n)`` (one numpy symbol of shape (ndim, n) when
        symbolic).

    Raises:
        ValueError: an array of fewer than 2 dimensions or of unequal ones.

    Example::

        rows, cols = mx.np.diag_indices_from(mx.np.ones((2, 2)))
        rows  # array([0, 1], dtype=int64)
    """
    res = invoke("_npi_diag_indices_from", [arr], {}, fname="diag_indices_from")
    if is_symbolic([arr]):
        return res  # one symbol of shape (ndim, n), as MXNet's
    return tuple(res[i] for i in range(res.shape[0]))
