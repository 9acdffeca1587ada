"""Default comparison tolerances and finite-difference steps, chosen by dtype (MXNet 1.x's)."""
import numbers

import numpy as np

__all__ = ["default_dtype", "default_rtols", "default_atols", "default_numeric_eps",
           "effective_dtype", "get_tolerance", "get_tols", "get_rtol", "get_atol", "get_etol"]

_EXACT = ("bool", "int8", "uint8", "int32", "uint32", "int64", "uint64")
_RTOLS = {np.dtype("float16"): 1e-2, np.dtype("float32"): 1e-4, np.dtype("float64"): 1e-5,
          **{np.dtype(t): 0 for t in _EXACT}}
_ATOLS = {np.dtype("float16"): 1e-1, np.dtype("float32"): 1e-3, np.dtype("float64"): 1e-20,
          **{np.dtype(t): 0 for t in _EXACT}}
# powers of two: adding the step to an input drops no bits
_NUMERIC_EPS = {np.dtype("float16"): 2.0 ** -6, np.dtype("float32"): 2.0 ** -9,
                np.dtype("float64"): 2.0 ** -14}


def default_dtype():
    """The dtype the symbolic checks give their arrays unless told otherwise (float32).

    Example::

        mx.test_utils.default_dtype()   # <class 'numpy.float32'>
    """
    return np.float32


def default_rtols():
    """{dtype: relative tolerance} used when a comparison is given no `rtol`.

    Example::

        mx.test_utils.default_rtols()[np.dtype('float32')]   # 0.0001
    """
    return dict(_RTOLS)


def default_atols():
    """{dtype: absolute tolerance} used when a comparison is given no `atol`.

    Example::

        mx.test_utils.default_atols()[np.dtype('float32')]   # 0.001
    """
    return dict(_ATOLS)


def default_numeric_eps():
    """{float dtype: finite-difference step} used by `check_numeric_gradient` by default.

    Example::

        mx.test_utils.default_numeric_eps()[np.dtype('float32')]   # 0.001953125: 2 ** -9
    """
    return dict(_NUMERIC_EPS)


def effective_dtype(dat):
    """The dtype whose default tolerances apply to `dat` (an NDArray, numpy array or scalar).

    MXNet lowers float32 to float16 on GPUs whose matrix units trim float32 inputs; the
    array modules gluonlite computes with keep float32 whole, so this is `dat`'s own dtype.

    Example::

        mx.test_utils.effective_dtype(nd.ones((2,)))   # dtype('float32')
    """
    if isinstance(dat, numbers.Number):
        dat = np.array(dat)
    return np.dtype(dat.dtype)


def get_tolerance(dat, tol, default_tol):
    """The tolerance for comparing `dat`.

    Args:
        dat: an array whose `effective_dtype` picks the entry.
        tol: a number (returned as is), a {dtype: number} dict, or None.
        default_tol: the {dtype: number} dict for dtypes `tol` does not cover.

    Raises:
        TypeError: no tolerance is known for `dat`'s dtype.

    Example::

        defaults = mx.test_utils.default_rtols()
        mx.test_utils.get_tolerance(np.ones(2, np.float16), None, defaults)   # 0.01
        mx.test_utils.get_tolerance(np.ones(2), 1e-3, defaults)   # 0.001: a number is kept
    """
    if isinstance(tol, numbers.Number):
        return tol
    dtype = effective_dtype(dat)
    if tol is not None and dtype in tol:
        return tol[dtype]
    if dtype not in default_tol:
        known = ", ".join(sorted(d.name for d in default_tol))
        raise TypeError(f"no default tolerance for dtype {dtype.name}; pass rtol/atol, or "
                        f"compare arrays of one of {known}")
    return default_tol[dtype]


def get_tols(x, y, rtol, atol):
    """(rtol, atol) for comparing `x` with `y`: given numbers are kept, otherwise the larger
    of the two arrays' defaults for their dtypes.

    Args:
        x: the first array (its dtype picks a default).
        y: the second array.
        rtol: a number, a {dtype: number} dict, or None for the defaults.
        atol: a number, a {dtype: number} dict, or None for the defaults.

    Returns:
        (rtol, atol), floats.

    Example::

        mx.test_utils.get_tols(np.ones(2, np.float16), np.ones(2), None, None)   # (0.01, 0.1)
    """
    return (max(get_tolerance(x, rtol, _RTOLS), get_tolerance(y, rtol, _RTOLS)),
            max(get_tolerance(x, atol, _ATOLS), get_tolerance(y, atol, _ATOLS)))


def get_rtol(rtol=None, dtype=np.dtype(np.float64)):
    """`rtol`, or the default relative tolerance of `dtype` (float64) when it is None.

    Example::

        mx.test_utils.get_rtol(None, np.float32), mx.test_utils.get_rtol(0.5)   # (0.0001, 0.5)
    """
    return _RTOLS[np.dtype(dtype)] if rtol is None else rtol


def get_atol(atol=None, dtype=np.dtype(np.float64)):
    """`atol`, or the default absolute tolerance of `dtype` (float64) when it is None.

    Example::

        mx.test_utils.get_atol(None, np.float16), mx.test_utils.get_atol(0.5)   # (0.1, 0.5)
    """
    return _ATOLS[np.dtype(dtype)] if atol is None else atol


def get_etol(etol=None):
    """`etol` (the fraction of entries allowed outside tolerance), 0 when None.

    Example::

        mx.test_utils.get_etol(), mx.test_utils.get_etol(0.05)   # (0, 0.05)
    """
    return 0 if etol is None else etol
