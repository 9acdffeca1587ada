"""The `mx.np` functions MXNet 1.9.1 takes from official NumPy itself (its ``fallback``
module): called with `mx.np` arrays, NumPy's dispatch protocol hands them to
`mx.np.ndarray.__array_function__`, which computes on host copies and gives `mx.np` arrays
back (`gluonlite.numpy.interop`).

NumPy 2 removed a few of these names; they are defined here with NumPy 1.x's meaning
(``in1d``, ``msort``, ``trapz``), and the financial functions NumPy 1.20 moved out (``mirr``,
``npv``, ``pmt``, ``ppmt``, ``pv``, ``rate``) raise what NumPy 1.23 (MXNet 1.9.1's) raises.

Example::

    mx.np.allclose(mx.np.ones(2), mx.np.ones(2))   # True
"""
import numpy as _onp

__all__ = ["allclose", "apply_along_axis", "apply_over_axes", "argpartition", "argwhere",
           "array_equal", "array_equiv", "choose", "compress", "corrcoef", "correlate",
           "count_nonzero", "cov", "digitize", "divmod", "extract", "flatnonzero",
           "float_power", "frexp", "heaviside", "histogram2d", "histogram_bin_edges",
           "histogramdd", "i0", "in1d", "interp", "intersect1d", "isclose", "isin", "ix_",
           "lexsort", "min_scalar_type", "mirr", "modf", "msort", "nanargmax", "nanargmin",
           "nancumprod", "nancumsum", "nanmax", "nanmedian", "nanmin", "nanpercentile",
           "nanprod", "nanquantile", "ndim", "npv", "partition", "piecewise", "packbits", "pmt",
           "poly", "polyadd", "polydiv", "polyfit", "polyint", "polymul", "polysub",
           "positive", "ppmt", "promote_types", "ptp", "pv", "rate", "real", "result_type",
           "rollaxis", "roots", "searchsorted", "select", "setdiff1d", "setxor1d", "signbit",
           "size", "spacing", "take_along_axis", "trapz", "tril_indices_from", "trim_zeros",
           "triu_indices_from", "union1d", "unpackbits", "unwrap", "vander"]

_REMOVED = ("in1d", "msort", "trapz", "mirr", "npv", "pmt", "ppmt", "pv", "rate")
for _name in __all__:
    if _name not in _REMOVED:
        globals()[_name] = getattr(_onp, _name)
del _name


def _array_function_dispatch(*args, **kwargs):
    return tuple(a for a in args if hasattr(a, "__array_function__"))


def in1d(ar1, ar2, assume_unique=False, invert=False):
    """Whether each element of the flattened ar1 is in ar2 (NumPy 1.x's in1d).

    Args:
        ar1: an array (flattened first).
        ar2: the values to test against.
        assume_unique (bool): default False: True lets NumPy assume both inputs hold unique values
            (faster).
        invert (bool): default False: True gives whether each element is NOT in `ar2`.

    Returns:
        A 1-D bool array of ``ar1.size`` entries (an `mx.np.ndarray` for `mx.np` inputs).

    Example::

        mx.np.in1d(mx.np.array([1., 2., 3.]), mx.np.array([2.]))  # array([False, True, False])
    """
    return _onp.isin(_onp.ravel(ar1), ar2, assume_unique=assume_unique, invert=invert)


def msort(a):
    """A copy sorted along the first axis (NumPy 1.x's msort).

    Args:
        a: the array to sort.

    Returns:
        An array of `a`'s shape, sorted along axis 0.

    Example::

        mx.np.msort(mx.np.array([[3., 1.], [1., 2.]]))  # array([[1., 1.], [3., 2.]])
    """
    return _onp.sort(a, axis=0)


def trapz(y, x=None, dx=1.0, axis=-1):
    """The integral of y by the trapezoidal rule (NumPy 1.x's trapz).

    Args:
        y: the array of values to integrate.
        x: default None: the sample points are `dx` apart; else the array of sample points.
        dx (float): default 1.0: the spacing of the samples when `x` is None.
        axis (int): default -1: the axis to integrate along.

    Returns:
        The integral: a number, or an array of `y`'s shape without `axis`.

    Example::

        float(mx.np.trapz(mx.np.array([1., 2., 3.])))  # 4.0
    """
    # numpy 2 names it trapezoid; numpy 1.x has only trapz
    integrate = getattr(_onp, "trapezoid", None) or getattr(_onp, "trapz")
    return integrate(y, x=x, dx=dx, axis=axis)


def _nep32(name):
    def f(*args, **kwargs):
        raise RuntimeError(f"In accordance with NEP 32, the function {name} was removed from "
                           "NumPy version 1.20.  A replacement for this function is available "
                           "in the numpy_financial library: "
                           "https://pypi.org/project/numpy-financial")
    f.__name__ = name
    f.__doc__ = (f"Removed from NumPy in 1.20 (NEP 32): raises RuntimeError, as MXNet 1.9.1's "
                 f"np.{name} does; use numpy_financial.{name}.\n\n"
                 "Example::\n\n"
                 "    try:\n"
                 f"        mx.np.{name}()\n"
                 "    except RuntimeError as e:\n"
                 "        print(e)  # In accordance with NEP 32, the function ... was removed\n")
    return f


mirr, npv, pmt, ppmt, pv, rate = (_nep32(n) for n in ("mirr", "npv", "pmt", "ppmt", "pv",
                                                       "rate"))
