"""MXNet's public indexing helpers (`nd.indexing_key_expand_implicit_axes`,
`nd.get_indexing_dispatch_code`, `nd.get_oshape_of_gather_nd_op`) and its dispatch codes.
`NDArray.__getitem__` itself follows numpy's rules directly (see there)."""
import numpy as np
from .ndarray import NDArray

__all__ = ["indexing_key_expand_implicit_axes", "get_indexing_dispatch_code",
           "get_oshape_of_gather_nd_op"]

_NDARRAY_UNSUPPORTED_INDEXING = -1
_NDARRAY_BASIC_INDEXING = 0
_NDARRAY_ADVANCED_INDEXING = 1
_NDARRAY_EMPTY_TUPLE_INDEXING = 2
_NDARRAY_NO_ZERO_DIM_BOOL_ARRAY = -1
_NDARRAY_ZERO_DIM_BOOL_ARRAY_FALSE = 0
_NDARRAY_ZERO_DIM_BOOL_ARRAY_TRUE = 1


def indexing_key_expand_implicit_axes(key, shape):
    """`key` with its implicit axes written out as ``slice(None)`` (an Ellipsis, or the axes
    after the last index), for an array of `shape`.

    Returns:
        ``(expanded_key, prepend)``: the key as a tuple, and MXNet's flag for a 0-d bool
        index (-1: none; gluonlite refuses bool NDArray indices, so always -1).

    Raises:
        IndexError: more than one Ellipsis.
        ValueError: a bool NDArray index (MXNet 1.x refuses boolean indexing outside its
            numpy mode).

    Example::

        from gluonlite.ndarray.indexing import indexing_key_expand_implicit_axes
        indexing_key_expand_implicit_axes((0,), (3, 4))   # ((0, slice(None, None, None)), -1)
    """
    key = key if isinstance(key, tuple) else (key,)
    ell, nones, rest = None, 0, []
    for k in key:
        if k is Ellipsis:
            if ell is not None:
                raise IndexError("Cannot use more than one ellipsis (`...`) for indexing")
            ell = len(rest)
            continue
        if k is None:
            nones += 1
        if isinstance(k, NDArray):
            if k.dtype == np.bool_:
                raise ValueError("indexing: a bool NDArray index is not supported by MXNet "
                                 "1.x's NDArray; use nd.contrib.boolean_mask")
        rest.append(k)
    if ell is None:
        ell = len(rest)
    fill = len(shape) + nones - len(rest)
    return (tuple(rest[:ell]) + (slice(None),) * fill + tuple(rest[ell:]),
            _NDARRAY_NO_ZERO_DIM_BOOL_ARRAY)


def get_indexing_dispatch_code(key):
    """Whether tuple `key` is basic indexing (0: ints, slices, None), advanced (1: holds an
    array, list, tuple or range) or an empty tuple inside it (2), as MXNet's codes.

    Raises:
        TypeError: `key` is not a tuple.
        ValueError: an element of another type.

    Example::

        from gluonlite.ndarray.indexing import get_indexing_dispatch_code
        get_indexing_dispatch_code((0, [1, 2]))   # 1
    """
    if not isinstance(key, tuple):
        raise TypeError(f"get_indexing_dispatch_code: key must be a tuple, got "
                        f"{type(key).__name__}")
    for k in key:
        if isinstance(k, (NDArray, np.ndarray, list, tuple, range)):
            if isinstance(k, tuple) and not k:
                return _NDARRAY_EMPTY_TUPLE_INDEXING
            return _NDARRAY_ADVANCED_INDEXING
        if not (k is None or isinstance(k, (slice, int, np.integer))):
            raise ValueError(f"NDArray does not support slicing with key {k} of type "
                             f"{type(k)}.")
    return _NDARRAY_BASIC_INDEXING


def get_oshape_of_gather_nd_op(dshape, ishape):
    """The output shape of ``gather_nd(data, indices)`` for data of shape `dshape` and indices
    of shape `ishape`: ``ishape[1:] + dshape[ishape[0]:]``.

    Raises:
        ValueError: an empty shape.

    Example::

        from gluonlite.ndarray.indexing import get_oshape_of_gather_nd_op
        get_oshape_of_gather_nd_op((3, 4, 5), (2, 6))   # (6, 5)
    """
    if not dshape or not ishape:
        raise ValueError(f"get_oshape_of_gather_nd_op: shapes must not be empty, got data "
                         f"{tuple(dshape)} and indices {tuple(ishape)}")
    return tuple(ishape[1:]) + tuple(dshape[ishape[0]:])
