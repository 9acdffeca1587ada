"""MXNet's module-level Symbol functions of the dense families that are not operators
themselves: ``hypot`` on symbols and/or numbers, and the helpers that shape their arguments
for one operator (``eye``, ``linspace``, ``histogram``, ``split_v2``)."""
import numpy as np

from ..base import normalize_dtype
from .register import fn as _fn
from .symbol import Symbol, apply_op

__all__ = ["hypot", "eye", "linspace", "histogram", "split_v2"]


def _pair(lhs, rhs, name, scalar, rscalar, numpy_fn):
    if isinstance(lhs, Symbol) and isinstance(rhs, Symbol):
        return apply_op(name, lhs, rhs, hint=name)
    if isinstance(lhs, Symbol):
        return apply_op(scalar, lhs, scalar=float(rhs), hint=scalar)
    if isinstance(rhs, Symbol):
        return apply_op(rscalar, rhs, scalar=float(lhs), hint=rscalar)
    if isinstance(lhs, (int, float, np.number)) and isinstance(rhs, (int, float, np.number)):
        return numpy_fn(lhs, rhs)
    raise TypeError(f"{name}: expected Symbols or numbers, got {type(lhs).__name__} and "
                    f"{type(rhs).__name__}")


def hypot(left, right):
    """sqrt(left**2 + right**2) for Symbols (same shapes) and/or numbers.

    Args:
        left: a Symbol or a number.
        right: a Symbol or a number.

    Returns:
        Symbol: a ``_hypot`` node (two Symbols) or ``_hypot_scalar`` node; a number for two
        numbers.

    Raises:
        TypeError: an operand that is neither a Symbol nor a number.

    Example::

        z = sym.hypot(sym.var('x'), 4)   # a _hypot_scalar node
        z.eval(x=nd.array([3, 0]))[0].asnumpy()   # [5. 4.]
    """
    return _pair(left, right, "_hypot", "_hypot_scalar", "_hypot_scalar", np.hypot)


def eye(N, M=0, k=0, dtype=None, **kwargs):
    """A node producing an N x M (M=0: N x N) matrix with ones on the k-th diagonal.

    Args:
        N: the number of rows.
        M: the number of columns (default 0: N).
        k: the diagonal: 0 the main one, positive above it, negative below (default 0).
        dtype: the element type (default None: float32).
        **kwargs: more attributes of the ``_eye`` node (``name``).

    Returns:
        Symbol: a node with no inputs producing the (N, M) matrix.

    Example::

        sym.eye(2, 3, k=1).eval()[0].asnumpy()   # [[0. 1. 0.] [0. 0. 1.]]
    """
    return _fn("_eye")(N=N, M=M, k=k, dtype=normalize_dtype(dtype or "float32").name, **kwargs)


def linspace(start, stop, num, endpoint=True, name=None, dtype=None):
    """A node producing `num` evenly spaced numbers from start to stop.

    Args:
        start: the first value.
        stop: the last value (with `endpoint`), else the end the values stop short of.
        num: how many values.
        endpoint: whether `stop` is the last value (default True).
        name: the node's name (default None: an automatic one).
        dtype: the element type (default None: float32).

    Returns:
        Symbol: a node with no inputs producing the (num,) array.

    Example::

        sym.linspace(0, 1, 5).eval()[0].asnumpy()   # [0. 0.25 0.5 0.75 1. ]
    """
    return _fn("_linspace")(start=start, stop=stop, num=num, endpoint=endpoint, name=name,
                            dtype=normalize_dtype(dtype or "float32").name)


def histogram(a, bins=10, range=None, **kwargs):  # noqa: A002 - MXNet's argument name
    """A node of the histogram of `a`: (counts, edges) over `bins` equal bins of `range`, or
    over the edges Symbol `bins`.

    Example::

        counts, edges = sym.histogram(sym.var('a'), bins=2, range=(0, 4))
        counts.eval(a=nd.array([0, 1, 3]))[0].asnumpy()   # [2 1]

    Raises:
        ValueError: an integer bins without range, or bins neither an int nor a Symbol.
    """
    if isinstance(bins, Symbol):
        return _fn("_histogram")(data=a, bins=bins, **kwargs)
    if isinstance(bins, (int, np.integer)) and not isinstance(bins, bool):
        if range is None:
            raise ValueError("histogram: a Symbol histogram with an integer bins needs range")
        return _fn("_histogram")(data=a, bin_cnt=int(bins), range=tuple(range), **kwargs)
    raise ValueError(f"histogram: bins must be an int or a Symbol, got {type(bins).__name__}")


def split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False):
    """Split along `axis` into `indices_or_sections` equal parts (an int) or at the given
    indices (a tuple); a node with one output per part.

    Args:
        ary: the Symbol to split.
        indices_or_sections: an int: the number of equal parts; a tuple of ints: the
            indices along `axis` where a part starts (the first part starts at 0).
        axis: the axis to split along (default 0).
        squeeze_axis: drop `axis` from each part (parts must then have length 1 along it;
            default False).

    Returns:
        Symbol: the ``_split_v2`` node, one output per part.

    Example::

        parts = sym.split_v2(sym.var('x'), (1, 3))
        [p.shape for p in parts.eval(x=nd.arange(5))]   # [(1,), (2,), (2,)]

    Raises:
        ValueError: neither an int nor a tuple.
    """
    if isinstance(indices_or_sections, (int, np.integer)):
        return _fn("_split_v2")(ary, axis=axis, squeeze_axis=squeeze_axis,
                                sections=int(indices_or_sections))
    if isinstance(indices_or_sections, tuple):
        return _fn("_split_v2")(ary, indices=(0,) + indices_or_sections, axis=axis,
                                squeeze_axis=squeeze_axis)
    raise ValueError("split_v2: indices_or_sections must be an int or a tuple of ints, got "
                     f"{type(indices_or_sections).__name__}")
