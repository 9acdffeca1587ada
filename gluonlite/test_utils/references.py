"""numpy reference computations that tests compare operators against."""
import numpy as np

__all__ = ["np_reduce", "collapse_sum_like"]


def np_reduce(dat, axis, keepdims, numpy_reduce_func):
    """Reduce the numpy array `dat` over `axis` (an int, a list of ints, or None for all)
    with `numpy_reduce_func` (such as ``np.sum``), one axis at a time.

    Args:
        dat: the numpy array.
        axis: an int, a list of ints, or None (all axes).
        keepdims: keep the reduced axes as size 1.
        numpy_reduce_func: a numpy reduction taking `axis`, such as ``np.sum``.

    Returns:
        The reduced numpy array.

    Example::

        mx.test_utils.np_reduce(np.ones((2, 3)), 1, True, np.sum).shape   # (2, 1)
    """
    if axis is None:
        axes = list(range(dat.ndim))
    else:
        axes = [axis] if isinstance(axis, (int, np.integer)) else list(axis)
    axes = sorted(a % dat.ndim for a in axes)
    out = dat
    for a in reversed(axes):
        out = numpy_reduce_func(out, axis=a)
    if keepdims:
        out = np.reshape(out, [1 if i in axes else d for i, d in enumerate(dat.shape)])
    return out


def collapse_sum_like(a, shape):
    """Sum the numpy array `a` down to `shape`, the shape it was broadcast from (the
    gradient of a broadcast).

    Raises:
        ValueError: `shape` does not broadcast to ``a.shape``.

    Example::

        mx.test_utils.collapse_sum_like(np.ones((2, 3)), (1, 3))   # array([[2., 2., 2.]])
    """
    shape = tuple(shape)
    lead = a.ndim - len(shape)
    if lead < 0 or any(s not in (1, d) for s, d in zip(shape, a.shape[lead:])):
        raise ValueError(f"collapse_sum_like: shape {shape} does not broadcast to {a.shape}")
    if a.size == 0 or 0 in shape:
        return np.zeros(shape, dtype=a.dtype)
    axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape)
                                      if s == 1 and a.shape[lead + i] != 1)
    return a.sum(axis=axes).reshape(shape)
