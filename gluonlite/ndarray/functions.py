"""MXNet's module-level NDArray functions that shape their arguments for one operator of the
dense families: ``nd.eye``, ``nd.linspace``, ``nd.histogram``, ``nd.split_v2``,
``nd.onehot_encode`` (MXNet's ``ndarray.py`` helpers around ``_eye``, ``_linspace``,
``_histogram``, ``_split_v2``, ``_onehot_encode``)."""
import builtins
import warnings

import numpy as np

from ..base import normalize_dtype
from ..context import current_context
from .ndarray import NDArray, array
from .register import _gen_cache

__all__ = ["eye", "linspace", "histogram", "split_v2", "onehot_encode"]


def _op(name):
    return _gen_cache[name]


def eye(N, M=0, k=0, ctx=None, dtype=None, **kwargs):
    """An N x M matrix (M=0: N x N) with ones on the k-th diagonal.

    Args:
        N: the number of rows.
        M: the number of columns (default 0: N).
        k: the diagonal: 0 the main one, positive above it, negative below (default 0).
        ctx: the Context of the array (default None: the current context).
        dtype: the element type (default None: float32).
        **kwargs: more attributes for the ``_eye`` operator.

    Returns:
        NDArray: of shape (N, M).

    Example::

        nd.eye(2, 3, 1).asnumpy()   # [[0. 1. 0.] [0. 0. 1.]]
    """
    return _op("_eye")(N=N, M=M, k=k, ctx=ctx or current_context(),
                       dtype=normalize_dtype(dtype or np.float32).name, **kwargs)


def linspace(start, stop, num, endpoint=True, ctx=None, dtype=np.float32):
    """`num` evenly spaced numbers from start to stop (stop left out when not `endpoint`).

    Args:
        start: the first value.
        stop: the last value (with `endpoint`), else the end the values stop short of.
        num: how many values.
        endpoint: whether `stop` is the last value (default True).
        ctx: the Context of the array (default None: the current context).
        dtype: the element type (default float32; None: float32).

    Returns:
        NDArray: of shape (num,).

    Example::

        nd.linspace(0, 1, 5).asnumpy()   # [0. 0.25 0.5 0.75 1. ]
    """
    return _op("_linspace")(start=start, stop=stop, num=num, endpoint=endpoint,
                            ctx=ctx or current_context(),
                            dtype=normalize_dtype(dtype or np.float32).name)


def histogram(a, bins=10, range=None):  # noqa: A002 - MXNet's argument name
    """The histogram of the flattened array `a`: (counts, bin edges).

    Args:
        a: NDArray.
        bins: the number of equal bins of `range`, or an NDArray of bin edges.
        range: (low, high) for an integer `bins`; without it numpy's histogram of the data
            is returned (with a warning, as in MXNet).

    Returns:
        (NDArray, NDArray): the counts per bin and the bins' edges (one more than the bins).

    Raises:
        ValueError: bins neither an int nor an NDArray.

    Example::

        counts, edges = nd.histogram(nd.array([0, 1, 2, 3]), bins=2, range=(0, 4))
        counts.asnumpy(), edges.asnumpy()   # (array([2, 2]), array([0., 2., 4.], dtype=float32))
    """
    if isinstance(bins, NDArray):
        return _op("_histogram")(a, bins)
    if isinstance(bins, (int, np.integer)) and not isinstance(bins, bool):
        if range is None:
            warnings.warn("histogram: range is not specified, using numpy's result "
                          "to ensure consistency with numpy")
            counts, edges = np.histogram(a.asnumpy(), bins=int(bins))
            return array(counts, dtype=counts.dtype), array(edges, dtype=edges.dtype)
        return _op("_histogram")(a, bin_cnt=int(bins), range=tuple(range))
    raise ValueError(f"histogram: bins must be an int or an NDArray of edges, got "
                     f"{type(bins).__name__}")


def split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False):
    """Split `ary` along `axis` into equal parts (an int) or at the given indices (a tuple).

    Args:
        ary: the NDArray to split.
        indices_or_sections: an int: the number of equal parts; a tuple of ints: the
            indices along `axis` where a part starts (the first part starts at 0).
        axis: the axis to split along (default 0).
        squeeze_axis: drop `axis` from each part (parts must then have length 1 along it;
            default False).

    Returns:
        list of NDArray: the parts, in order (a single NDArray when there is one part).

    Raises:
        ValueError: an int that does not divide the axis, or neither an int nor a tuple.

    Example::

        [p.shape for p in nd.split_v2(nd.zeros((4, 2)), (1, 3))]   # [(1, 2), (2, 2), (1, 2)]
    """
    n = ary.shape[axis]
    if isinstance(indices_or_sections, (int, np.integer)):
        sections = int(indices_or_sections)
        if sections <= 0 or n % sections:
            raise ValueError(f"split_v2: an axis of size {n} does not split into "
                             f"{sections} equal parts")
        indices = [i * (n // sections) for i in builtins.range(sections)]
    elif isinstance(indices_or_sections, tuple):
        indices = [0] + list(indices_or_sections)
    else:
        raise ValueError("split_v2: indices_or_sections must be an int or a tuple of ints, "
                         f"got {type(indices_or_sections).__name__}")
    return _op("_split_v2")(ary, indices=tuple(indices), axis=axis, squeeze_axis=squeeze_axis)



def onehot_encode(indices, out):
    """Write the one-hot rows of `indices` into `out` (N, depth) and return it (deprecated in
    MXNet: use `one_hot`).

    Example::

        out = nd.zeros((2, 3))
        nd.onehot_encode(nd.array([0, 2]), out)
        out.asnumpy()   # [[1. 0. 0.] [0. 0. 1.]]
    """
    return _op("_onehot_encode")(indices, out, out=out)
