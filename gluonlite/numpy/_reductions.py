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

    Raises:
        ValueError: `initial` (MXNet 1.9.1 refuses it), or an axis out of range.

    Example: ``np.sum(np.ones((2, 3)), axis=1)`` -> ``array([3., 3.])``.
    """
    return invoke("_np_sum", [a], {"axis": _axis(axis), "dtype": _dt(dtype, "sum"),
                                   "keepdims": bool(keepdims), "initial": initial},
                  out=out, fname="sum")


def prod(a, axis=None, dtype=None, out=None, keepdims=False):
    """Product over `axis` (see `sum`).

    Example: ``np.prod(np.array([1., 2., 3.]))`` -> ``array(6.)``.
    """
    return invoke("_np_prod", [a], {"axis": _axis(axis), "dtype": _dt(dtype, "prod"),
                                    "keepdims": bool(keepdims)}, out=out, fname="prod")


product = prod


def mean(a, axis=None, dtype=None, out=None, keepdims=False):
    """Mean over `axis` (integer data gives float32).

    Example: ``np.mean(np.array([1, 2], dtype='int32'))`` -> ``array(1.5)``.
    """
    return invoke("_npi_mean", [a], {"axis": _axis(axis), "dtype": _dt(dtype, "mean"),
                                     "keepdims": bool(keepdims)}, out=out, fname="mean")


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """Standard deviation over `axis` with `ddof` delta degrees of freedom.

    Example::

        v = mx.np.array([1., 2., 3., 4.])
        mx.np.std(v)  # array(1.118034)
    """
    return invoke("_npi_std", [a], {"axis": _axis(axis), "dtype": _dt(dtype, "std"),
                                    "ddof": int(ddof), "keepdims": bool(keepdims)},
                  out=out, fname="std")


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """Variance over `axis` with `ddof` delta degrees of freedom.

    Example::

        v = mx.np.array([1., 2., 3., 4.])
        mx.np.var(v)  # array(1.25)
    """
    return invoke("_npi_var", [a], {"axis": _axis(axis), "dtype": _dt(dtype, "var"),
                                    "ddof": int(ddof), "keepdims": bool(keepdims)},
                  out=out, fname="var")


def max(a, axis=None, out=None, keepdims=False):  # noqa: A001
    """Maximum over `axis`.

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

    Example::

        mx.np.all(mx.np.array([[1, 0], [1, 1]]), axis=1)  # array([False, True])
    """
    return invoke("_np_all", [a], {"axis": _axis(axis), "keepdims": bool(keepdims)},
                  out=out, fname="all")


def any(a, axis=None, out=None, keepdims=False):  # noqa: A001
    """Whether some element along `axis` is true (a bool array).

    Example::

        mx.np.any(mx.np.array([0., 0., 1.]))  # array(True)
    """
    return invoke("_np_any", [a], {"axis": _axis(axis), "keepdims": bool(keepdims)},
                  out=out, fname="any")


def sometrue(a, axis=None, out=None, keepdims=False):
    """As `any`.

    Example::

        mx.np.sometrue(mx.np.array([0., 1.]))  # array(True)
    """
    return any(a, axis=axis, out=out, keepdims=keepdims)


def alltrue(a, axis=None, out=None, keepdims=False):
    """As `all` (NumPy's alias, which NumPy 2 removed).

    Example::

        mx.np.alltrue(mx.np.array([1., 2.]))  # array(True)
    """
    return all(a, axis=axis, out=out, keepdims=keepdims)


def argmax(a, axis=None, out=None):
    """Index of the maximum (of the flattened array when `axis` is None), int64.

    Example::

        a = mx.np.array([[1., 2.], [3., 4.]])
        mx.np.argmax(a, axis=1)  # array([1, 1], dtype=int64)
    """
    return invoke("_npi_argmax", [a], {"axis": axis, "keepdims": False}, out=out,
                  fname="argmax")


def argmin(a, axis=None, out=None):
    """Index of the minimum (of the flattened array when `axis` is None), int64.

    Example::

        a = mx.np.array([[1., 2.], [3., 4.]])
        mx.np.argmin(a)  # array(0, dtype=int64)
    """
    return invoke("_npi_argmin", [a], {"axis": axis, "keepdims": False}, out=out,
                  fname="argmin")


def cumsum(a, axis=None, dtype=None, out=None):
    """Cumulative sum along `axis` (of the flattened array when None).

    Example::

        v = mx.np.array([1., 2., 3., 4.])
        mx.np.cumsum(v)  # array([1., 3., 6., 10.])
    """
    return invoke("_np_cumsum", [a], {"axis": axis, "dtype": _dt(dtype, "cumsum")}, out=out,
                  fname="cumsum")


def average(a, axis=None, weights=None, returned=False, out=None):
    """The weighted average along `axis` (the plain mean without weights); with `returned`,
    also the sum of the weights.

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
