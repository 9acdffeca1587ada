"""`mx.np`'s reductions: sum, prod, mean, std, var, max, min, all, any, argmax, argmin,
cumsum and average, each the front end of one operator (`gluonlite.ops.np_reduce`)."""
from ..base import normalize_dtype
from ._dispatch import invoke

__all__ = ["sum", "prod", "product", "mean", "std", "var", "max", "amax", "min", "amin", "all",
           "any", "sometrue", "alltrue", "argmax", "argmin", "cumsum", "average"]


def _axis(axis):
    if isinstance(axis, list):
        return tuple(axis)
    return axis


def _dt(dtype, fname):
    return None if dtype is None else normalize_dtype(dtype, f"{fname}: dtype").name


def sum(a, axis=None, dtype=None, keepdims=False, initial=None, out=None):  # noqa: A001
    """Sum over `axis` (all axes by default; a 0-d result then). Bool data counts in int64.

    Args:
        a: the input `mx.np.ndarray` (or numpy symbol).
        axis: default None: reduce over all axes (a 0-d result); an int or a tuple of ints: those
            axes (negative ones count from the end).
        dtype: default None: the result's dtype (see above for the default); else a dtype name or
            NumPy dtype the operator accumulates in.
        keepdims (bool): default False: drop the reduced axes; True keeps them with size 1, so the
            result broadcasts against `a`.
        initial: must stay None (MXNet 1.9.1 has no start value).
        out: default None: a new array holds the result; else an `mx.np.ndarray` of the result's
            shape and dtype that receives it (and is returned).

    Returns:
        The sums, an `mx.np.ndarray` of `a`'s shape less the reduced axes.

    Raises:
        ValueError: `initial` (MXNet 1.9.1 refuses it), or an axis out of range.

    Example::

        mx.np.sum(mx.np.ones((2, 3)), axis=1)   # array([3., 3.])
    """
    return invoke("_np_sum", [a], {"axis": _axis(axis), "dtype": _dt(dtype, "sum"),
                                   "keepdims": bool(keepdims), "initial": initial},
                  out=out, fname="sum")


def prod(a, axis=None, dtype=None, out=None, keepdims=False):
    """Product over `axis` (see `sum`).

    Args:
        a: the input `mx.np.ndarray` (or numpy symbol).
        axis: default None: reduce over all axes (a 0-d result); an int or a tuple of ints: those
            axes (negative ones count from the end).
        dtype: default None: the result's dtype (see above for the default); else a dtype name or
            NumPy dtype the operator accumulates in.
        out: default None: a new array holds the result; else an `mx.np.ndarray` of the result's
            shape and dtype that receives it (and is returned).
        keepdims (bool): default False: drop the reduced axes; True keeps them with size 1, so the
            result broadcasts against `a`.

    Returns:
        The products, an `mx.np.ndarray` of `a`'s shape less the reduced axes.

    Raises:
        TypeError: `a` is not an `mx.np.ndarray` (a legacy NDArray or a NumPy array).

    Example::

        mx.np.prod(mx.np.array([1., 2., 3.]))   # array(6.)
    """
    return invoke("_np_prod", [a], {"axis": _axis(axis), "dtype": _dt(dtype, "prod"),
                                    "keepdims": bool(keepdims)}, out=out, fname="prod")


product = prod


def mean(a, axis=None, dtype=None, out=None, keepdims=False):
    """Mean over `axis` (integer data gives float32).

    Args:
        a: the input `mx.np.ndarray` (or numpy symbol).
        axis: default None: reduce over all axes (a 0-d result); an int or a tuple of ints: those
            axes (negative ones count from the end).
        dtype: default None: the result's dtype (see above for the default); else a dtype name or
            NumPy dtype the operator accumulates in.
        out: default None: a new array holds the result; else an `mx.np.ndarray` of the result's
            shape and dtype that receives it (and is returned).
        keepdims (bool): default False: drop the reduced axes; True keeps them with size 1, so the
            result broadcasts against `a`.

    Returns:
        The means, an `mx.np.ndarray` of `a`'s shape less the reduced axes.

    Raises:
        TypeError: `a` is not an `mx.np.ndarray` (a legacy NDArray or a NumPy array).

    Example::

        mx.np.mean(mx.np.array([1, 2], dtype='int32'))   # array(1.5)
    """
    return invoke("_npi_mean", [a], {"axis": _axis(axis), "dtype": _dt(dtype, "mean"),
                                     "keepdims": bool(keepdims)}, out=out, fname="mean")


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """Standard deviation over `axis` with `ddof` delta degrees of freedom.

    Args:
        a: the input `mx.np.ndarray` (or numpy symbol).
        axis: default None: reduce over all axes (a 0-d result); an int or a tuple of ints: those
            axes (negative ones count from the end).
        dtype: default None: the result's dtype (see above for the default); else a dtype name or
            NumPy dtype the operator accumulates in.
        out: default None: a new array holds the result; else an `mx.np.ndarray` of the result's
            shape and dtype that receives it (and is returned).
        ddof (int): default 0: the divisor is N - ddof (1 gives the sample estimate).
        keepdims (bool): default False: drop the reduced axes; True keeps them with size 1, so the
            result broadcasts against `a`.

    Returns:
        The standard deviations, an `mx.np.ndarray` of `a`'s shape less the reduced axes.

    Raises:
        TypeError: `a` is not an `mx.np.ndarray` (a legacy NDArray or a NumPy array).

    Example::

        v = mx.np.array([1., 2., 3., 4.])
        mx.np.std(v)  # array(1.118034)
    """
    return invoke("_npi_std", [a], {"axis": _axis(axis), "dtype": _dt(dtype, "std"),
                                    "ddof": int(ddof), "keepdims": bool(keepdims)},
                  out=out, fname="std")


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """Variance over `axis` with `ddof` delta degrees of freedom.

    Args:
        a: the input `mx.np.ndarray` (or numpy symbol).
        axis: default None: reduce over all axes (a 0-d result); an int or a tuple of ints: those
            axes (negative ones count from the end).
        dtype: default None: the result's dtype (see above for the default); else a dtype name or
            NumPy dtype the operator accumulates in.
        out: default None: a new array holds the result; else an `mx.np.ndarray` of the result's
            shape and dtype that receives it (and is returned).
        ddof (int): default 0: the divisor is N - ddof (1 gives the sample estimate).
        keepdims (bool): default False: drop the reduced axes; True keeps them with size 1, so the
            result broadcasts against `a`.

    Returns:
        The variances, an `mx.np.ndarray` of `a`'s shape less the reduced axes.

    Raises:
        TypeError: `a` is not an `mx.np.ndarray` (a legacy NDArray or a NumPy array).

    Example::

        v = mx.np.array([1., 2., 3., 4.])
        mx.np.var(v)  # array(1.25)
    """
    return invoke("_npi_var", [a], {"axis": _axis(axis), "dtype": _dt(dtype, "var"),
                                    "ddof": int(ddof), "keepdims": bool(keepdims)},
                  out=out, fname="var")


def max(a, axis=None, out=None, keepdims=False):  # noqa: A001
    """Maximum over `axis`.

    Args:
        a: the input `mx.np.ndarray` (or numpy symbol).
        axis: default None: reduce over all axes (a 0-d result); an int or a tuple of ints: those
            axes (negative ones count from the end).
        out: default None: a new array holds the result; else an `mx.np.ndarray` of the result's
            shape and dtype that receives it (and is returned).
        keepdims (bool): default False: drop the reduced axes; True keeps them with size 1, so the
            result broadcasts against `a`.

    Returns:
        The maxima, of `a`'s dtype and shape less the reduced axes.

    Raises:
        ValueError: a reduction over an empty axis.

    Example::

        a = mx.np.array([[1., 2.], [3., 4.]])
        mx.np.max(a, axis=0)  # array([3., 4.])
    """
    return invoke("_np_max", [a], {"axis": _axis(axis), "keepdims": bool(keepdims)},
                  out=out, fname="max")


def min(a, axis=None, out=None, keepdims=False):  # noqa: A001
    """Minimum over `axis` (see `max`).

    Args:
        a: the input `mx.np.ndarray` (or numpy symbol).
        axis: default None: reduce over all axes (a 0-d result); an int or a tuple of ints: those
            axes (negative ones count from the end).
        out: default None: a new array holds the result; else an `mx.np.ndarray` of the result's
            shape and dtype that receives it (and is returned).
        keepdims (bool): default False: drop the reduced axes; True keeps them with size 1, so the
            result broadcasts against `a`.

    Returns:
        The minima, of `a`'s dtype and shape less the reduced axes.

    Raises:
        ValueError: a reduction over an empty axis.

    Example::

        a = mx.np.array([[1., 2.], [3., 4.]])
        mx.np.min(a, axis=1)  # array([1., 3.])
    """
    return invoke("_np_min", [a], {"axis": _axis(axis), "keepdims": bool(keepdims)},
                  out=out, fname="min")


amax = max
amin = min


def all(a, axis=None, out=None, keepdims=False):  # noqa: A001
    """Whether every element along `axis` is true (a bool array).

    Args:
        a: the input `mx.np.ndarray` (or numpy symbol).
        axis: default None: reduce over all axes (a 0-d result); an int or a tuple of ints: those
            axes (negative ones count from the end).
        out: default None: a new array holds the result; else an `mx.np.ndarray` of the result's
            shape and dtype that receives it (and is returned).
        keepdims (bool): default False: drop the reduced axes; True keeps them with size 1, so the
            result broadcasts against `a`.

    Returns:
        A bool `mx.np.ndarray` of `a`'s shape less the reduced axes.

    Raises:
        TypeError: `a` is not an `mx.np.ndarray` (a legacy NDArray or a NumPy array).

    Example::

        mx.np.all(mx.np.array([[1, 0], [1, 1]]), axis=1)  # array([False, True])
    """
    return invoke("_np_all", [a], {"axis": _axis(axis), "keepdims": bool(keepdims)},
                  out=out, fname="all")


def any(a, axis=None, out=None, keepdims=False):  # noqa: A001
    """Whether some element along `axis` is true (a bool array).

    Args:
        a: the input `mx.np.ndarray` (or numpy symbol).
        axis: default None: reduce over all axes (a 0-d result); an int or a tuple of ints: those
            axes (negative ones count from the end).
        out: default None: a new array holds the result; else an `mx.np.ndarray` of the result's
            shape and dtype that receives it (and is returned).
        keepdims (bool): default False: drop the reduced axes; True keeps them with size 1, so the
            result broadcasts against `a`.

    Returns:
        A bool `mx.np.ndarray` of `a`'s shape less the reduced axes.

    Raises:
        TypeError: `a` is not an `mx.np.ndarray` (a legacy NDArray or a NumPy array).

    Example::

        mx.np.any(mx.np.array([0., 0., 1.]))  # array(True)
    """
    return invoke("_np_any", [a], {"axis": _axis(axis), "keepdims": bool(keepdims)},
                  out=out, fname="any")


def sometrue(a, axis=None, out=None, keepdims=False):
    """As `any`.

    Args:
        a: the input `mx.np.ndarray` (or numpy symbol).
        axis: default None: reduce over all axes (a 0-d result); an int or a tuple of ints: those
            axes (negative ones count from the end).
        out: default None: a new array holds the result; else an `mx.np.ndarray` of the result's
            shape and dtype that receives it (and is returned).
        keepdims (bool): default False: drop the reduced axes; True keeps them with size 1, so the
            result broadcasts against `a`.

    Returns:
        A bool `mx.np.ndarray` of `a`'s shape less the reduced axes.

    Raises:
        TypeError: `a` is not an `mx.np.ndarray` (a legacy NDArray or a NumPy array).

    Example::

        mx.np.sometrue(mx.np.array([0., 1.]))  # array(True)
    """
    return any(a, axis=axis, out=out, keepdims=keepdims)


def alltrue(a, axis=None, out=None, keepdims=False):
    """As `all` (NumPy's alias, which NumPy 2 removed).

    Args:
        a: the input `mx.np.ndarray` (or numpy symbol).
        axis: default None: reduce over all axes (a 0-d result); an int or a tuple of ints: those
            axes (negative ones count from the end).
        out: default None: a new array holds the result; else an `mx.np.ndarray` of the result's
            shape and dtype that receives it (and is returned).
        keepdims (bool): default False: drop the reduced axes; True keeps them with size 1, so the
            result broadcasts against `a`.

    Returns:
        A bool `mx.np.ndarray` of `a`'s shape less the reduced axes.

    Raises:
        TypeError: `a` is not an `mx.np.ndarray` (a legacy NDArray or a NumPy array).

    Example::

        mx.np.alltrue(mx.np.array([1., 2.]))  # array(True)
    """
    return all(a, axis=axis, out=out, keepdims=keepdims)


def argmax(a, axis=None, out=None):
    """Index of the maximum (of the flattened array when `axis` is None), int64.

    Args:
        a: the input `mx.np.ndarray` (or numpy symbol).
        axis: default None: the index into the flattened array; an int: along that axis.
        out: default None: a new array holds the result; else an `mx.np.ndarray` of the result's
            shape and dtype that receives it (and is returned).

    Returns:
        An int64 `mx.np.ndarray` of indices (`a`'s shape without `axis`; 0-d for None).

    Raises:
        TypeError: `a` is not an `mx.np.ndarray` (a legacy NDArray or a NumPy array).

    Example::

        a = mx.np.array([[1., 2.], [3., 4.]])
        mx.np.argmax(a, axis=1)  # array([1, 1], dtype=int64)
    """
    return invoke("_npi_argmax", [a], {"axis": axis, "keepdims": False}, out=out,
                  fname="argmax")


def argmin(a, axis=None, out=None):
    """Index of the minimum (of the flattened array when `axis` is None), int64.

    Args:
        a: the input `mx.np.ndarray` (or numpy symbol).
        axis: default None: the index into the flattened array; an int: along that axis.
        out: default None: a new array holds the result; else an `mx.np.ndarray` of the result's
            shape and dtype that receives it (and is returned).

    Returns:
        An int64 `mx.np.ndarray` of indices (`a`'s shape without `axis`; 0-d for None).

    Raises:
        TypeError: `a` is not an `mx.np.ndarray` (a legacy NDArray or a NumPy array).

    Example::

        a = mx.np.array([[1., 2.], [3., 4.]])
        mx.np.argmin(a)  # array(0, dtype=int64)
    """
    return invoke("_npi_argmin", [a], {"axis": axis, "keepdims": False}, out=out,
                  fname="argmin")


def cumsum(a, axis=None, dtype=None, out=None):
    """Cumulative sum along `axis` (of the flattened array when None).

    Args:
        a: the input `mx.np.ndarray` (or numpy symbol).
        axis: default None: the running sum of the flattened array; an int: along that axis.
        dtype: default None: `a`'s dtype; else the dtype of the sums.
        out: default None: a new array holds the result; else an `mx.np.ndarray` of the result's
            shape and dtype that receives it (and is returned).

    Returns:
        An `mx.np.ndarray` of `a`'s shape (1-D of `a.size` for None).

    Raises:
        TypeError: `a` is not an `mx.np.ndarray` (a legacy NDArray or a NumPy array).

    Example::

        v = mx.np.array([1., 2., 3., 4.])
        mx.np.cumsum(v)  # array([1., 3., 6., 10.])
    """
    return invoke("_np_cumsum", [a], {"axis": axis, "dtype": _dt(dtype, "cumsum")}, out=out,
                  fname="cumsum")


def average(a, axis=None, weights=None, returned=False, out=None):
    """The weighted average along `axis` (the plain mean without weights); with `returned`,
    also the sum of the weights.

    Args:
        a: the input `mx.np.ndarray` (or numpy symbol).
        axis: default None: reduce over all axes (a 0-d result); an int or a tuple of ints: those
            axes (negative ones count from the end).
        weights: default None: every element weighs the same; else an `mx.np.ndarray` of `a`'s
            shape, or 1-D of the length of `axis`.
        returned (bool): default False: return the average only; True also returns the sum of
            the weights.
        out: default None: a new array holds the result; else an `mx.np.ndarray` of the result's
            shape and dtype that receives it (and is returned).

    Returns:
        The averages (`a`'s shape less the reduced axes), or the pair (average, sum of
        weights) with `returned`.

    Raises:
        ValueError: weights whose shape does not fit `a` (same shape, or 1-D along `axis`).

    Example::

        v = mx.np.array([1., 2., 3., 4.])
        mx.np.average(v, weights=mx.np.array([0., 0., 1., 1.]))  # array(3.5)
    """
    if weights is None:
        return invoke("_npi_average", [a], {"axis": _axis(axis), "returned": bool(returned),
                                            "weighted": False}, out=out, fname="average")
    return invoke("_npi_average", [a, weights], {"axis": _axis(axis),
                                                 "returned": bool(returned), "weighted": True},
                  out=out, fname="average")
