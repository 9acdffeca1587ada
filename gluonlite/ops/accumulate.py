"""Sums of float16 and float32 data as MXNet 1.9.1's CPU reducers give them: accumulated in a
wider type and rounded once.

MXNet's `sum`, `mean`, `nansum`, `moments`, `mx.np`'s sum, mean, std and var, and the
gradients of broadcast operands (`rules.unbroadcast`) run its compensated (Kahan) reducer,
which lands on the float32 value nearest the exact sum nearly always. numpy's float32 sum
does not: its pairwise sum along the last axis and its row by row sum along the others
drift by several units in the last place over long reductions. Summing in float64 and
rounding once gives the nearest float32 too, so it gives MXNet's numbers where numpy's own
sum gives other ones. Measured on 74 000 sums and means of
normal and of positive float32 data (1-D to 3-D, every axis): equal to MXNet's bit for bit
at 78% of the entries, against 45% for numpy's float32 sum; 94-100% on positive data
(losses, squares, counts), where compensation is nearly exact. The rest differ where the
entries cancel, and there MXNet's compensated float32 sum is itself off the exact value.

The price is the conversion: 1.2-3.1x the time of numpy's float32 sum on one thread (the
most on sums across rows), which is still 3x faster than MXNet's sequential reducer on 4096
entries and 12-15x on larger arrays (benchmarks/wide_sums.py; compat/RESULTS.md has the
table).

A float32 mean is the rounded sum divided by the count, MXNet's order.
float64 and integer data keep numpy's own sum (integers wrap in their type as MXNet's do).

Example::

    from gluonlite.ops import accumulate
    x = np.full((10**5, 2), 0.1, np.float32)
    accumulate.wide_sum(np, x, 0)       # array([10000., 10000.]); x.sum(0): [9998.557, ...]
"""
from math import prod

import numpy as np

__all__ = ["WIDER", "wide_sum", "wide_mean", "column_sums"]

# The type each float dtype is summed in: wide enough that a float32 sum of a few million
# entries is exact to well under half a float32 unit before its one rounding.
WIDER = {np.dtype(np.float16): np.dtype(np.float32), np.dtype(np.float32): np.dtype(np.float64)}


def wide_sum(xp, x, axis, keepdims=False, nan=False):
    """The sum of x over `axis` in x's dtype, accumulated in `WIDER`'s type for float16 and
    float32 (numpy's or CuPy's own sum for other dtypes).

    A sum past the dtype's range is inf, as MXNet's. numpy reports that rounding as an
    overflow, which the operators' runners keep quiet (`float_errors`).

    Args:
        xp: the array module (numpy or cupy).
        x: the data.
        axis: an int, a tuple of ints, or None for every axis.
        keepdims: keep the reduced axes as length 1.
        nan: count NaN entries as 0 (``nansum``).

    Returns:
        array: the sums, of x's dtype (a 0-d array for a full reduction without keepdims).

    Example::

        from gluonlite.ops.accumulate import wide_sum
        wide_sum(np, np.array([[1, 2], [3, 4]], np.float32), 0)     # array([4., 6.], dtype=float32)
    """
    fn = xp.nansum if nan else xp.sum
    wider = WIDER.get(x.dtype)
    total = (fn(x, axis=axis, keepdims=keepdims) if wider is None else
             fn(x, axis=axis, dtype=wider, keepdims=keepdims).astype(x.dtype))
    # a full reduction gives a numpy scalar: the callers index and reshape arrays
    return total if isinstance(total, xp.ndarray) else xp.asarray(total)


def wide_mean(xp, x, axis, keepdims=False, ddof=0):
    """The mean of x over `axis`: its sum accumulated as `wide_sum`'s, divided by the count.

    A float32 mean divides the rounded sum by the count in float32, MXNet's order. A float16
    one divides its float32 sum and rounds once: rounded first, a float16 sum overflows
    from 65504 on.

    Args:
        xp: the array module (numpy or cupy).
        x: the data.
        axis: an int, a tuple of ints, or None for every axis.
        keepdims: keep the reduced axes as length 1.
        ddof: subtracted from the count (a variance's degrees of freedom; none left gives
            inf, or NaN for a zero sum).

    Returns:
        array: the means, of x's dtype; NaN where nothing is reduced (0 / 0).

    Example::

        from gluonlite.ops.accumulate import wide_mean
        wide_mean(np, np.array([1, 2], np.float32), None)          # array(1.5, dtype=float32)
    """
    axes = range(x.ndim) if axis is None else (axis,) if isinstance(axis, int) else axis
    count = max(prod(x.shape[a] for a in axes) - ddof, 0)
    if x.dtype == np.float16:
        total = xp.sum(x, axis=axis, dtype=np.float32, keepdims=keepdims)
        return xp.asarray(total / np.float32(count)).astype(x.dtype)
    if x.dtype.kind == "f":
        return xp.asarray(wide_sum(xp, x, axis, keepdims) / x.dtype.type(count))
    # integers: summed in numpy's way, divided as floats, truncated back to the dtype
    return xp.asarray(xp.sum(x, axis=axis, keepdims=keepdims) / count).astype(x.dtype)


def column_sums(g, out=None):
    """The sums of the columns of a 2-D array, each added row by row in order: the order of
    MXNet's FullyConnected bias gradient, whose kernel adds the batch's rows one at a time
    at every width (measured against MXNet 1.9.1 on 1 to 64 outputs).

    numpy's sum over axis 0 takes that order, except for a single column, which it sums
    pairwise as a contiguous run; that one is summed in order by a cumulative sum.

    Args:
        g: (rows, columns) data (numpy's or a device's array, or a recorded NDArray).
        out: optional (columns,) array to write into.

    Returns:
        array: the (columns,) sums, of g's dtype (`out` when given).

    Example::

        from gluonlite.ops.accumulate import column_sums
        column_sums(np.array([[1.0], [2.0], [3.0]], np.float32))    # array([6.], ...)
    """
    # numpy data only: a device's sum has its own order, and a recorded rule (a second
    # derivative) takes the plain sum
    if isinstance(g, np.ndarray) and g.ndim == 2 and g.shape[1] == 1 and g.shape[0] > 0:
        total = np.cumsum(g[:, 0])[-1:]
        if out is None:
            return total
        out[...] = total
        return out
    return g.sum(axis=0, out=out)
