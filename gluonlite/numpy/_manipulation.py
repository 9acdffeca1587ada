"""`mx.np`'s shape and arrangement functions: reshape, transpose, joining, splitting,
tiling, flipping, diagonals, padding, inserting and deleting, sorting, take and clip. Each
is the front end of one operator (several for split's list outputs and a few composites).
The functions work on arrays and on numpy symbols alike; those that need values (resize,
insert of an array of indices) compute on arrays only."""
import numbers

import numpy as _onp

from ..base import MXNetTypeError, MXNetValueError
from ..ndarray.ndarray import NDArray
from ..numpy_op_fallback import custom
from ..ops.rules import broadcast_shapes
from ..symbol.symbol import Symbol
from ._creation import full
from ._dispatch import invoke, is_symbolic, np_array, np_class

__all__ = ["reshape", "ravel", "transpose", "swapaxes", "moveaxis", "squeeze", "expand_dims",
           "broadcast_to", "broadcast_arrays", "atleast_1d", "atleast_2d", "atleast_3d",
           "concatenate", "append", "stack", "vstack", "row_stack", "hstack", "dstack",
           "column_stack", "split", "array_split", "hsplit", "vsplit", "dsplit", "tile",
           "repeat", "flip", "flipud", "fliplr", "roll", "rot90", "diag", "diagflat",
           "diagonal", "trace", "tril", "pad", "resize", "insert", "delete", "diff", "ediff1d",
           "clip", "sort", "argsort", "take", "copy", "shape", "ndim_of"]


def _is_array(x):
    return isinstance(x, (NDArray, Symbol))


def _int_tuple(v):
    if isinstance(v, (numbers.Integral, _onp.integer)):
        return (int(v),)
    return tuple(int(d) for d in v)


def shape(a):
    """The shape of `a` (NumPy's `shape` function).

    Args:
        a: an `mx.np.ndarray` (or anything with a ``shape``).

    Returns:
        tuple: the shape.

    Example::

        mx.np.shape(mx.np.ones((2, 3)))  # (2, 3)
    """
    return a.shape


def ndim_of(a):
    """The number of dimensions of `a`.

    Args:
        a: an `mx.np.ndarray` (or anything with an ``ndim``).

    Returns:
        int: the number of dimensions.

    Example::

        mx.np.ndim_of(mx.np.ones((2, 3)))  # 2
    """
    return a.ndim


def reshape(a, newshape, order="C", out=None):
    """`a` with a new shape (one -1 inferred).

    Args:
        a: the `mx.np.ndarray` to reshape.
        newshape: an int or a tuple of ints of the same total size; one entry may be -1 (inferred).
        order (str): default 'C', the only order supported.
        out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype that
            receives it (and is returned).

    Returns:
        An `mx.np.ndarray` of shape `newshape`, holding `a`'s values in row-major order.

    Raises:
        NotImplementedError: an order other than 'C'.
        ValueError: a shape of another size.

    Example::

        mx.np.reshape(mx.np.arange(6), (2, -1))   # array([[0., 1., 2.], [3., 4., 5.]])
    """
    if order != "C":
        raise NotImplementedError(f"reshape: only C order is supported, got order={order!r}")
    return invoke("_np_reshape", [a], {"newshape": _int_tuple(newshape), "order": "C"},
                  out=out, fname="reshape")


def ravel(x, order="C"):
    """The flattened array (a copy).

    Args:
        x: an `mx.np.ndarray` (a Python number gives NumPy's 1-element array).
        order (str): default 'C': row-major; 'F' is not supported.

    Returns:
        A 1-D `mx.np.ndarray` of `x.size` elements.

    Raises:
        NotImplementedError: order 'F'.

    Example::

        a = mx.np.array([[1., 2.], [3., 4.]])
        mx.np.ravel(a)  # array([1., 2., 3., 4.])
    """
    if order == "F":
        raise NotImplementedError(f"ravel: order {order} is not supported")
    if isinstance(x, numbers.Number):
        return _onp.reshape(x, -1)
    if not _is_array(x):
        raise MXNetTypeError(f"ravel: type {type(x).__name__} not supported")
    return reshape(x, (-1,))


def transpose(a, axes=None):
    """The axes permuted by `axes` (reversed by default).

    Args:
        a: the `mx.np.ndarray` to permute.
        axes: default None: reverse the axes; else a tuple of ints, a permutation of
            ``range(a.ndim)``.

    Returns:
        An `mx.np.ndarray` whose axis i is `a`'s axis ``axes[i]``.

    Raises:
        ValueError: `axes` that is not a permutation of `a`'s axes.

    Example::

        mx.np.transpose(mx.np.ones((2, 3))).shape  # (3, 2)
    """
    if axes is not None and not isinstance(axes, (tuple, list)):
        axes = (axes,)
    return invoke("_np_transpose", [a], {"axes": None if axes is None else tuple(axes)},
                  fname="transpose")


def swapaxes(a, axis1, axis2):
    """`a` with axes `axis1` and `axis2` interchanged.

    Args:
        a: the `mx.np.ndarray`.
        axis1 (int): the first axis.
        axis2 (int): the second axis.

    Returns:
        An `mx.np.ndarray` with the two axes exchanged.

    Example::

        mx.np.swapaxes(mx.np.ones((2, 3)), 0, 1).shape  # (3, 2)
    """
    return invoke("_npi_swapaxes", [a], {"dim1": int(axis1), "dim2": int(axis2)},
                  fname="swapaxes")


def moveaxis(a, source, destination):
    """`a` with the axes `source` moved to positions `destination`.

    Args:
        a: the `mx.np.ndarray`.
        source: an int or a tuple of ints, the axes to move.
        destination: an int or a tuple of ints (as many), their new positions.

    Returns:
        An `mx.np.ndarray` with the axes reordered.

    Raises:
        ValueError: `source` and `destination` of different lengths, or repeated axes.

    Example::

        mx.np.moveaxis(mx.np.ones((2, 3, 4)), 0, -1).shape  # (3, 4, 2)
    """
    return invoke("_np_moveaxis", [a], {"source": _int_tuple(source),
                                        "destination": _int_tuple(destination)},
                  fname="moveaxis")


def squeeze(a, axis=None, out=None):
    """`a` without its length-1 axes (those of `axis`).

    Args:
        a: the `mx.np.ndarray` to squeeze.
        axis: default None: drop every axis of length 1; else an int or a tuple of ints (each of
            length 1).
        out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype that
            receives it (and is returned).

    Returns:
        An `mx.np.ndarray` with those axes removed.

    Raises:
        ValueError: an axis in `axis` whose length is not 1.

    Example::

        mx.np.squeeze(mx.np.ones((1, 3, 1))).shape  # (3,)
    """
    if isinstance(axis, list):
        axis = tuple(axis)
    return invoke("_np_squeeze", [a], {"axis": axis}, out=out, fname="squeeze")


def expand_dims(a, axis):
    """`a` with a new axis of length 1 at `axis`.

    Args:
        a: the `mx.np.ndarray`.
        axis (int): the position of the new axis in the result (negative counts from the end).

    Returns:
        An `mx.np.ndarray` with one more axis.

    Example::

        mx.np.expand_dims(mx.np.ones(3), axis=0).shape  # (1, 3)
    """
    return invoke("_npi_expand_dims", [a], {"axis": int(axis)}, fname="expand_dims")


def broadcast_to(array, shape):  # pylint: disable=redefined-outer-name
    """`array` broadcast to `shape` (a number gives a filled array).

    Args:
        array: an `mx.np.ndarray`, or a number (then an array of `shape` filled with it).
        shape: an int or a tuple of ints, the target shape.

    Returns:
        An `mx.np.ndarray` of `shape`.

    Raises:
        ValueError: shapes that do not broadcast.

    Example::

        mx.np.broadcast_to(mx.np.array([1., 2.]), (2, 2))  # array([[1., 2.], [1., 2.]])
    """
    if isinstance(array, numbers.Number):
        return full(shape, array)
    return invoke("_npi_broadcast_to", [array], {"shape": _int_tuple(shape)},
                  fname="broadcast_to")


def broadcast_arrays(*args):
    """The arrays broadcast against one another (a list).

    Example::

        x, y = mx.np.broadcast_arrays(mx.np.ones((2, 1)), mx.np.ones(3))
        x.shape, y.shape  # ((2, 3), (2, 3))
    """
    target = ()
    for a in args:
        target = broadcast_shapes("broadcast_arrays", target, a.shape)
    return [a if a.shape == target else broadcast_to(a, target) for a in args]


def _variadic(op, arrays, attrs, fname, out=None):
    arrays = list(arrays)
    if not arrays:
        raise MXNetValueError(f"{fname}: need at least one array")
    return invoke(op, arrays, dict(attrs, num_args=len(arrays)), out=out, fname=fname)


def _atleast(op, fname, arys):
    res = invoke(op, list(arys), {"num_args": len(arys)}, fname=fname)
    if len(arys) == 1:
        return res[0] if isinstance(res, list) else res
    return res if isinstance(res, list) else [res]


def atleast_1d(*arys):
    """Each array with at least 1 dimension (one array, or a list).

    Example::

        mx.np.atleast_1d(mx.np.array(5.)).shape  # (1,)
    """
    return _atleast("_np_atleast_1d", "atleast_1d", arys)


def atleast_2d(*arys):
    """Each array with at least 2 dimensions (one array, or a list).

    Example::

        mx.np.atleast_2d(mx.np.arange(3)).shape  # (1, 3)
    """
    return _atleast("_np_atleast_2d", "atleast_2d", arys)


def atleast_3d(*arys):
    """Each array with at least 3 dimensions (one array, or a list).

    Example::

        mx.np.atleast_3d(mx.np.arange(3)).shape  # (1, 3, 1)
    """
    return _atleast("_np_atleast_3d", "atleast_3d", arys)


def _seq(arrays, fname):
    if _is_array(arrays):
        if isinstance(arrays, Symbol) and not isinstance(arrays, NDArray) and len(arrays) > 1:
            return [arrays[i] for i in range(len(arrays))]
        if isinstance(arrays, NDArray) and arrays.ndim > 0:
            return [arrays[i] for i in range(arrays.shape[0])]  # its rows, as MXNet's *seq
        raise MXNetTypeError(f"{fname}: expected a sequence of arrays, got one array")
    if not hasattr(arrays, "__getitem__") and hasattr(arrays, "__iter__"):
        raise MXNetValueError(f"{fname}: expected iterable for arrays but got "
                              f"{type(arrays).__name__}")
    return list(arrays)


def concatenate(seq, axis=0, out=None):
    """Arrays joined along `axis` (None: each flattened first).

    Args:
        seq: a list or tuple of `mx.np.ndarray` (or numpy symbols); an array counts as the sequence
            of its rows.
        axis: default 0: the axis to join along; None flattens each array first.
        out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype that
            receives it (and is returned).

    Returns:
        An `mx.np.ndarray` whose `axis` length is the sum of the inputs'.

    Raises:
        ValueError: shapes that differ off the axis.

    Example::

        x, y = mx.np.ones((1, 2)), mx.np.zeros((1, 2))
        mx.np.concatenate([x, y], axis=0)  # array([[1., 1.], [0., 0.]])
    """
    seq = _seq(seq, "concatenate")
    if axis is None:
        seq = [reshape(a, (-1,)) for a in seq]
        axis = 0
    return _variadic("_npi_concatenate", seq, {"dim": int(axis)}, "concatenate", out)


def append(arr, values, axis=None):
    """`values` appended to `arr` along `axis` (both flattened when None).

    Args:
        arr: the `mx.np.ndarray` to extend.
        values: the `mx.np.ndarray` to put after it; off `axis` its shape must match `arr`'s.
        axis: default None: flatten both first; else the int axis to join along.

    Returns:
        A new `mx.np.ndarray`.

    Raises:
        ValueError: shapes that differ off `axis`.

    Example::

        mx.np.append(mx.np.array([1., 2.]), mx.np.array([3.]))  # array([1., 2., 3.])
    """
    return concatenate([arr, values], axis=axis)


def stack(arrays, axis=0, out=None):
    """Same-shape arrays joined along a new axis.

    Args:
        arrays: a list or tuple of `mx.np.ndarray` (or numpy symbols); an array counts as the
            sequence of its rows.
        axis (int): default 0: the position of the new axis in the result.
        out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype that
            receives it (and is returned).

    Returns:
        An `mx.np.ndarray` with one more axis, of length ``len(arrays)``.

    Raises:
        TypeError: a sequence of anything but arrays.
        ValueError: shapes that do not fit together.

    Example::

        mx.np.stack([mx.np.ones(2), mx.np.zeros(2)], axis=1)  # array([[1., 0.], [1., 0.]])
    """
    return _variadic("_npi_stack", _seq(arrays, "stack"), {"axis": int(axis)}, "stack", out)


def vstack(arrays, out=None):
    """Arrays stacked row-wise (1-D arrays as rows).

    Args:
        arrays: a list or tuple of `mx.np.ndarray` (or numpy symbols); an array counts as the
            sequence of its rows.
        out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype that
            receives it (and is returned).

    Returns:
        An `mx.np.ndarray`, at least 2-D.

    Raises:
        TypeError: a sequence of anything but arrays.
        ValueError: shapes that do not fit together.

    Example::

        mx.np.vstack((mx.np.ones(2), mx.np.zeros(2)))  # array([[1., 1.], [0., 0.]])
    """
    return _variadic("_npi_vstack", _seq(arrays, "vstack"), {}, "vstack", out)


def row_stack(arrays):
    """As `vstack`.

    Args:
        arrays: a list or tuple of `mx.np.ndarray` (or numpy symbols); an array counts as the
            sequence of its rows.

    Returns:
        An `mx.np.ndarray`, at least 2-D.

    Raises:
        TypeError: a sequence of anything but arrays.
        ValueError: shapes that do not fit together.

    Example::

        mx.np.row_stack((mx.np.ones(2), mx.np.zeros(2)))  # array([[1., 1.], [0., 0.]])
    """
    return vstack(arrays)


def hstack(arrays):
    """Arrays stacked column-wise (1-D arrays joined).

    Args:
        arrays: a list or tuple of `mx.np.ndarray` (or numpy symbols); an array counts as the
            sequence of its rows.

    Returns:
        An `mx.np.ndarray` joined along axis 1 (axis 0 for 1-D inputs).

    Raises:
        TypeError: a sequence of anything but arrays.
        ValueError: shapes that do not fit together.

    Example::

        mx.np.hstack((mx.np.array([1., 2.]), mx.np.array([3.])))  # array([1., 2., 3.])
    """
    return _variadic("_npi_hstack", _seq(arrays, "hstack"), {}, "hstack")


def dstack(arrays):
    """Arrays stacked along a third axis.

    Args:
        arrays: a list or tuple of `mx.np.ndarray` (or numpy symbols); an array counts as the
            sequence of its rows.

    Returns:
        An `mx.np.ndarray`, at least 3-D, joined along axis 2.

    Raises:
        TypeError: a sequence of anything but arrays.
        ValueError: shapes that do not fit together.

    Example::

        mx.np.dstack((mx.np.ones(2), mx.np.zeros(2))).shape  # (1, 2, 2)
    """
    return _variadic("_npi_dstack", _seq(arrays, "dstack"), {}, "dstack")


def column_stack(tup):
    """1-D arrays as the columns of a 2-D array (2-D arrays as they are).

    Args:
        tup: a list or tuple of `mx.np.ndarray` (or numpy symbols); an array counts as the sequence
            of its rows.

    Returns:
        A 2-D `mx.np.ndarray`.

    Raises:
        TypeError: a sequence of anything but arrays.
        ValueError: shapes that do not fit together.

    Example::

        x, y = mx.np.array([1., 2.]), mx.np.array([3., 4.])
        mx.np.column_stack((x, y))  # array([[1., 3.], [2., 4.]])
    """
    return _variadic("_npi_column_stack", _seq(tup, "column_stack"), {}, "column_stack")


def _as_list(res):
    return res if isinstance(res, list) else [res]


def _split_spec(indices_or_sections, fname):
    if isinstance(indices_or_sections, (numbers.Integral, _onp.integer)):
        return [], int(indices_or_sections)
    if isinstance(indices_or_sections, (list, set, tuple)):
        return [0] + [int(i) for i in indices_or_sections], 0
    raise MXNetValueError(f"{fname}: indices_or_sections must be either int, or tuple / list "
                          "/ set of ints")


def split(ary, indices_or_sections, axis=0):
    """`ary` split into a list of parts along `axis`: `indices_or_sections` equal parts, or
    at the given indices.

    Args:
        ary: the `mx.np.ndarray` to split.
        indices_or_sections: an int N: N equal parts; a list of ints: the split points.
        axis (int): default 0: the axis to split along.

    Returns:
        A list of `mx.np.ndarray`, the parts.

    Raises:
        ValueError: a number of sections that does not divide the axis.

    Example::

        [p.shape for p in mx.np.split(mx.np.arange(6), 3)]  # [(2,), (2,), (2,)]
    """
    indices, sections = _split_spec(indices_or_sections, "split")
    if sections and not is_symbolic([ary]):
        n = ary.shape[axis]
        if n % sections:
            raise MXNetValueError("split: array split does not result in an equal division")
    return _as_list(invoke("_npi_split", [ary], {"indices": tuple(indices), "axis": int(axis),
                                                 "squeeze_axis": False,
                                                 "sections": sections}, fname="split"))


def array_split(ary, indices_or_sections, axis=0):
    """As `split`, with sections that may differ in size by one (the first ones larger).

    Args:
        ary: the `mx.np.ndarray` to split.
        indices_or_sections: an int N: N parts of sizes that differ by at most one; a list of ints:
            the split points.
        axis (int): default 0: the axis to split along.

    Returns:
        A list of `mx.np.ndarray`, the parts.

    Example::

        parts = mx.np.array_split(mx.np.arange(5), 2)
        [p.shape for p in parts]  # [(3,), (2,)]
    """
    indices, sections = _split_spec(indices_or_sections, "array_split")
    return _as_list(invoke("_npi_split", [ary], {"indices": tuple(int(i) for i in indices),
                                                 "axis": int(axis), "squeeze_axis": False,
                                                 "sections": sections}, fname="array_split"))


def hsplit(ary, indices_or_sections):
    """`ary` split along axis 1 (axis 0 for 1-D arrays).

    Args:
        ary: the `mx.np.ndarray` to split, at least 1-D.
        indices_or_sections: an int N: N equal parts (an error when the length does not divide); a
            list of ints: the split points.

    Returns:
        A list of `mx.np.ndarray`, the parts.

    Raises:
        ValueError: a 0-d array.

    Example::

        [p.shape for p in mx.np.hsplit(mx.np.ones((2, 4)), 2)]  # [(2, 2), (2, 2)]
    """
    if not is_symbolic([ary]) and ary.ndim < 1:
        raise MXNetValueError("hsplit only works on arrays of 1 or more dimensions")
    indices, sections = _split_spec(indices_or_sections, "hsplit")
    return _as_list(invoke("_npi_hsplit", [ary], {"indices": tuple(indices), "axis": 1,
                                                  "squeeze_axis": False, "sections": sections},
                           fname="hsplit"))


def vsplit(ary, indices_or_sections):
    """`ary` split along axis 0.

    Args:
        ary: the `mx.np.ndarray` to split, at least 2-D.
        indices_or_sections: an int N: N equal parts (an error when the length does not divide); a
            list of ints: the split points.

    Returns:
        A list of `mx.np.ndarray`, the parts.

    Raises:
        ValueError: an array of fewer than 2 dimensions.

    Example::

        [p.shape for p in mx.np.vsplit(mx.np.ones((4, 2)), 2)]  # [(2, 2), (2, 2)]
    """
    if not is_symbolic([ary]) and ary.ndim < 2:
        raise MXNetValueError("vsplit only works on arrays of 2 or more dimensions")
    return split(ary, indices_or_sections, 0)


def dsplit(ary, indices_or_sections):
    """`ary` split along axis 2.

    Args:
        ary: the `mx.np.ndarray` to split, at least 3-D.
        indices_or_sections: an int N: N equal parts (an error when the length does not divide); a
            list of ints: the split points.

    Returns:
        A list of `mx.np.ndarray`, the parts.

    Raises:
        ValueError: an array of fewer than 3 dimensions.

    Example::

        [p.shape for p in mx.np.dsplit(mx.np.ones((1, 1, 4)), 2)]  # [(1, 1, 2), (1, 1, 2)]
    """
    if not is_symbolic([ary]) and ary.ndim < 3:
        raise MXNetValueError("dsplit only works on arrays of 3 or more dimensions")
    indices, sections = _split_spec(indices_or_sections, "dsplit")
    return _as_list(invoke("_npi_dsplit", [ary], {"indices": tuple(indices), "axis": 2,
                                                  "squeeze_axis": False, "sections": sections},
                           fname="dsplit"))


def tile(A, reps):
    """`A` repeated `reps` times along each axis (a number gives NumPy's result).

    Args:
        A: an `mx.np.ndarray` (a number gives NumPy's result).
        reps: an int or a tuple of ints, the repetitions per axis.

    Returns:
        An `mx.np.ndarray` of ``A.shape * reps`` (axes aligned on the right).

    Example::

        mx.np.tile(mx.np.array([1., 2.]), 2)  # array([1., 2., 1., 2.])
    """
    if isinstance(A, numbers.Number):
        return _onp.tile(A, reps)
    return invoke("_npi_tile", [A], {"reps": _int_tuple(reps)}, fname="tile")


def repeat(a, repeats, axis=None):
    """Each element repeated `repeats` times (along `axis`, or of the flattened array).

    Args:
        a: the `mx.np.ndarray` whose elements are repeated.
        repeats (int): how many times each element appears.
        axis: default None: repeat the elements of the flattened array; else the int axis to repeat
            along.

    Returns:
        An `mx.np.ndarray` (1-D for None) whose `axis` is `repeats` times longer.

    Raises:
        NotImplementedError: an array of repeats (MXNet 1.9.1 takes an int).

    Example::

        mx.np.repeat(mx.np.array([1., 2.]), 2)  # array([1., 1., 2., 2.])
    """
    if not isinstance(repeats, (numbers.Integral, _onp.integer)):
        raise NotImplementedError("repeat: repeats must be an int")
    return invoke("_np_repeat", [a], {"repeats": int(repeats), "axis": axis}, fname="repeat")


def flip(m, axis=None, out=None):
    """`m` with the order of elements reversed along `axis` (all axes for None).

    Args:
        m: an `mx.np.ndarray` (a Python number gives NumPy's result).
        axis: default None: reverse every axis; else an int or a tuple of ints.
        out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype that
            receives it (and is returned).

    Returns:
        An `mx.np.ndarray` of `m`'s shape.

    Example::

        v = mx.np.array([1., 2., 3., 4.])
        mx.np.flip(v)  # array([4., 3., 2., 1.])
    """
    if isinstance(m, numbers.Number):
        return _onp.flip(m, axis)
    if isinstance(axis, list):
        axis = tuple(axis)
    return invoke("_npi_flip", [m], {"axis": axis}, out=out, fname="flip")


def flipud(m):
    """`m` reversed along axis 0.

    Args:
        m: an `mx.np.ndarray` of at least 1 dimension.

    Returns:
        An `mx.np.ndarray` of `m`'s shape.

    Example::

        a = mx.np.array([[1., 2.], [3., 4.]])
        mx.np.flipud(a)  # array([[3., 4.], [1., 2.]])
    """
    return flip(m, 0)


def fliplr(m):
    """`m` reversed along axis 1.

    Args:
        m: an `mx.np.ndarray` of at least 2 dimensions.

    Returns:
        An `mx.np.ndarray` of `m`'s shape.

    Example::

        a = mx.np.array([[1., 2.], [3., 4.]])
        mx.np.fliplr(a)  # array([[2., 1.], [4., 3.]])
    """
    return flip(m, 1)


def roll(a, shift, axis=None):
    """Elements shifted by `shift` along `axis` (the flattened array when None), wrapping
    around.

    Args:
        a: the `mx.np.ndarray` to roll.
        shift: an int, or a tuple of ints (one per axis of `axis`): how many places the elements
            move (negative: backwards).
        axis: default None: roll the flattened array and restore the shape; else an int or a tuple
            of ints.

    Returns:
        An `mx.np.ndarray` of `a`'s shape.

    Example::

        v = mx.np.array([1., 2., 3., 4.])
        mx.np.roll(v, 1)  # array([4., 1., 2., 3.])
    """
    return invoke("_np_roll", [a], {"shift": shift if not isinstance(shift, list)
                                    else tuple(shift),
                                    "axis": axis if not isinstance(axis, list) else tuple(axis)},
                  fname="roll")


def rot90(m, k=1, axes=(0, 1)):
    """`m` rotated by 90 degrees `k` times in the plane of `axes`.

    Args:
        m: an `mx.np.ndarray` of at least 2 dimensions.
        k (int): default 1: the number of quarter turns (counter-clockwise; negative turns
            clockwise).
        axes: default (0, 1): the two axes of the plane of rotation.

    Returns:
        An `mx.np.ndarray`.

    Example::

        a = mx.np.array([[1., 2.], [3., 4.]])
        mx.np.rot90(a)  # array([[2., 4.], [1., 3.]])
    """
    return invoke("_npi_rot90", [m], {"k": int(k), "axes": tuple(axes)}, fname="rot90")


def diag(array, k=0):  # pylint: disable=redefined-outer-name
    """The k-th diagonal of a 2-D array, or a 2-D array with a 1-D one on diagonal k.

    Args:
        array: a 1-D or 2-D `mx.np.ndarray`.
        k (int): default 0: the main diagonal; positive above it, negative below.

    Returns:
        For a 2-D input, the 1-D diagonal; for a 1-D input, a square 2-D array with it on diagonal
        `k`.

    Example::

        mx.np.diag(mx.np.array([1., 2.]))  # array([[1., 0.], [0., 2.]])
    """
    return invoke("_np_diag", [array], {"k": int(k)}, fname="diag")


def diagflat(array, k=0):  # pylint: disable=redefined-outer-name
    """A 2-D array with the flattened input on diagonal k.

    Args:
        array: an `mx.np.ndarray` of any shape (flattened).
        k (int): default 0: the main diagonal; positive above it, negative below.

    Returns:
        A square 2-D `mx.np.ndarray` of side ``array.size + abs(k)``.

    Example::

        mx.np.diagflat(mx.np.array([[1., 2.]]))  # array([[1., 0.], [0., 2.]])
    """
    return invoke("_np_diagflat", [array], {"k": int(k)}, fname="diagflat")


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The diagonals of the (axis1, axis2) planes, in a new last axis.

    Args:
        a: an `mx.np.ndarray` of at least 2 dimensions.
        offset (int): default 0: the main diagonal; positive above it, negative below.
        axis1 (int): default 0: the first axis of the planes.
        axis2 (int): default 1: the second axis of the planes.

    Returns:
        An `mx.np.ndarray`: `a`'s other axes, then the diagonal.

    Example::

        a = mx.np.array([[1., 2.], [3., 4.]])
        mx.np.diagonal(a)  # array([1., 4.])
    """
    return invoke("_np_diagonal", [a], {"offset": int(offset), "axis1": int(axis1),
                                        "axis2": int(axis2)}, fname="diagonal")


def trace(a, offset=0, axis1=0, axis2=1, out=None):
    """The sums along the diagonals of the (axis1, axis2) planes.

    Args:
        a: an `mx.np.ndarray` of at least 2 dimensions.
        offset (int): default 0: the main diagonal; positive above it, negative below.
        axis1 (int): default 0: the first axis of the planes.
        axis2 (int): default 1: the second axis of the planes.
        out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype that
            receives it (and is returned).

    Returns:
        An `mx.np.ndarray` of `a`'s other axes (0-d for a matrix).

    Example::

        a = mx.np.array([[1., 2.], [3., 4.]])
        mx.np.trace(a)  # array(5.)
    """
    return invoke("_np_trace", [a], {"offset": int(offset), "axis1": int(axis1),
                                     "axis2": int(axis2)}, out=out, fname="trace")


def tril(m, k=0):
    """The lower triangle (below diagonal k) of each matrix.

    Args:
        m: an `mx.np.ndarray` (1-D input counts as a row repeated, as NumPy's).
        k (int): default 0: keep the main diagonal and below; positive keeps k more diagonals above
            it, negative drops some below.

    Returns:
        An `mx.np.ndarray` of `m`'s shape with the entries above diagonal `k` zeroed.

    Example::

        a = mx.np.array([[1., 2.], [3., 4.]])
        mx.np.tril(a)  # array([[1., 0.], [3., 4.]])
    """
    return invoke("_npi_tril", [m], {"k": int(k)}, fname="tril")


_PAD_KWARGS = {"constant": ("constant_values",), "edge": (), "maximum": ("stat_length",),
               "minimum": ("stat_length",), "reflect": ("reflect_type",),
               "symmetric": ("reflect_type",)}


def pad(x, pad_width=None, mode="constant", **kwargs):
    """`x` padded by `pad_width` (a tuple of (before, after) per axis, or one pair for all)
    in `mode`: 'constant' (``constant_values``), 'edge', 'reflect', 'symmetric', 'maximum' or
    'minimum' (MXNet 1.9.1's modes).

    Args:
        x: the `mx.np.ndarray` to pad.
        pad_width: a tuple: one (before, after) pair of ints per axis, or one pair for every axis.
        mode (str): default 'constant': how the new entries are filled (see above).
        **kwargs: ``constant_values`` (a number, default 0) for 'constant'; ``reflect_type`` ('even'
            only) for 'reflect' and 'symmetric'; ``stat_length`` (None only) for 'maximum' and
            'minimum'.

    Returns:
        A padded `mx.np.ndarray`.

    Raises:
        TypeError: pad_width that is not a tuple of ints.
        ValueError: another mode, or a keyword the mode does not take.

    Example::

        mx.np.pad(mx.np.array([1., 2.]), (1, 1))  # array([0., 1., 2., 0.])
    """
    if not isinstance(pad_width, tuple) or _onp.asarray(pad_width).dtype.kind != "i":
        raise MXNetTypeError("pad: `pad_width` must be a tuple of integers")
    if callable(mode) or mode not in _PAD_KWARGS:
        raise MXNetValueError(f"pad: mode {mode!r} is not supported; MXNet 1.9.1 pads in "
                              f"{', '.join(_PAD_KWARGS)}")
    extra = set(kwargs) - set(_PAD_KWARGS[mode])
    if extra:
        raise MXNetValueError(f"pad: unsupported keyword arguments for mode {mode!r}: "
                              f"{sorted(extra)}")
    attrs = {"pad_width": tuple(tuple(w) if isinstance(w, (tuple, list)) else (w, w)
                                for w in (pad_width if isinstance(pad_width[0], (tuple, list))
                                          else (pad_width,))),
             "mode": mode}
    if mode == "constant":
        value = kwargs.get("constant_values", 0)
        if isinstance(value, tuple):
            raise MXNetTypeError("pad: unsupported constant_values type tuple")
        attrs["constant_value"] = float(value)
    elif mode in ("reflect", "symmetric"):
        rt = kwargs.get("reflect_type", "even")
        if rt not in ("even", None):
            raise MXNetValueError(f"pad: unsupported reflect_type {rt!r}")
        attrs["reflect_type"] = "even"
    elif kwargs.get("stat_length") is not None:
        raise MXNetValueError(f"pad: unsupported stat_length {kwargs['stat_length']!r}")
    return invoke("_npi_pad", [x], attrs, fname="pad")


def resize(a, new_shape):
    """An array of `new_shape` filled with `a`'s values repeated (NumPy's resize), through
    the ``resize_fallback`` Custom operator as in MXNet (no gradient).

    Args:
        a: the `mx.np.ndarray` whose values fill the result (cycled).
        new_shape: an int or a tuple of ints.

    Returns:
        An `mx.np.ndarray` of `new_shape`.

    Example::

        mx.np.resize(mx.np.arange(3), (2, 2))   # array([[0., 1.], [2., 0.]])
    """
    return custom(a, op_type="resize_fallback", new_shape=new_shape)


def insert(arr, obj, values, axis=None):
    """`values` inserted into `arr` before the index or indices `obj` (an int, a slice or an
    integer array), along `axis` (the flattened array when None).

    Args:
        arr: the `mx.np.ndarray`.
        obj: the insertion point: an int index, a slice, or an integer `mx.np.ndarray` of indices.
        values: a number or an `mx.np.ndarray` broadcast to the inserted slots.
        axis: default None: insert into the flattened array; else the int axis.

    Returns:
        A new `mx.np.ndarray` with the values inserted.

    Raises:
        TypeError: `obj` or `values` of a type MXNet 1.9.1 does not take.

    Example::

        mx.np.insert(mx.np.array([1., 3.]), 1, 2.)  # array([1., 2., 3.])
    """
    attrs = {"axis": axis}
    scalar = isinstance(values, numbers.Number)
    if not scalar and not _is_array(values):
        raise MXNetTypeError(f"insert: 'values' can not support type {type(values)}")
    if scalar:
        attrs["val"] = float(values)
    ins = [arr] if scalar else [arr, values]
    if isinstance(obj, slice):
        attrs.update(start=obj.start, stop=obj.stop, step=1 if obj.step is None else obj.step)
        return invoke("_npi_insert_slice", ins, attrs, fname="insert")
    if isinstance(obj, (numbers.Integral, _onp.integer)):
        attrs["int_ind"] = int(obj)
        return invoke("_npi_insert_scalar", ins, attrs, fname="insert")
    if _is_array(obj):
        return invoke("_npi_insert_tensor", ins + [obj], attrs, fname="insert")
    raise MXNetTypeError(f"insert: 'obj' can not support type {type(obj)}")


def delete(arr, obj, axis=None):
    """`arr` without the entries (slices along `axis`) at `obj`: an int, a slice or an integer
    array.

    Args:
        arr: the `mx.np.ndarray`.
        obj: what to delete: an int index, a slice, or an integer `mx.np.ndarray` of indices.
        axis: default None: delete from the flattened array; else the int axis.

    Returns:
        A new `mx.np.ndarray` without those entries.

    Raises:
        TypeError: `obj` of another type.

    Example::

        v = mx.np.array([1., 2., 3., 4.])
        mx.np.delete(v, 1)  # array([1., 3., 4.])
    """
    if not _is_array(arr):
        raise MXNetTypeError(f"delete: 'arr' can not support type {type(arr)}")
    if isinstance(obj, slice):
        return invoke("_npi_delete", [arr], {"start": obj.start, "stop": obj.stop,
                                             "step": 1 if obj.step is None else obj.step,
                                             "axis": axis}, fname="delete")
    if isinstance(obj, (numbers.Integral, _onp.integer)):
        return invoke("_npi_delete", [arr], {"int_ind": int(obj), "axis": axis}, fname="delete")
    if _is_array(obj):
        return invoke("_npi_delete", [arr, obj], {"axis": axis}, fname="delete")
    raise MXNetTypeError(f"delete: 'obj' can not support type {type(obj)}")


def diff(a, n=1, axis=-1, prepend=None, append=None):  # pylint: disable=redefined-outer-name
    """The n-th discrete difference along `axis`.

    Args:
        a: the `mx.np.ndarray` to difference.
        n (int): default 1: how many times to take differences.
        axis (int): default -1: the axis along which to take them.
        prepend: must stay None (not supported).
        append: must stay None (not supported).

    Returns:
        An `mx.np.ndarray` whose `axis` is `n` shorter.

    Raises:
        NotImplementedError: prepend or append (as in MXNet 1.9.1).

    Example::

        mx.np.diff(mx.np.array([1., 4., 9.]))  # array([3., 5.])
    """
    if prepend is not None or append is not None:
        raise NotImplementedError("diff: prepend and append options are not supported yet")
    return invoke("_npi_diff", [a], {"n": int(n), "axis": int(axis)}, fname="diff")


def ediff1d(ary, to_end=None, to_begin=None):
    """The differences between consecutive elements of the flattened array, with `to_begin`
    and `to_end` (arrays or numbers) put around.

    Args:
        ary: the `mx.np.ndarray` (flattened first).
        to_end: default None: nothing after; else a number or an array appended to the differences.
        to_begin: default None: nothing before; else a number or an array put before the
            differences.

    Returns:
        A 1-D `mx.np.ndarray`.

    Example::

        mx.np.ediff1d(mx.np.array([1., 3., 6.]))  # array([2., 3.])
    """
    attrs = {"to_begin_arr_given": _is_array(to_begin), "to_end_arr_given": _is_array(to_end),
             "to_begin_scalar": None if _is_array(to_begin) or to_begin is None
             else float(to_begin),
             "to_end_scalar": None if _is_array(to_end) or to_end is None else float(to_end)}
    ins = [ary] + [x for x in (to_begin, to_end) if _is_array(x)]
    return invoke("_npi_ediff1d", ins, attrs, fname="ediff1d")


def clip(a, a_min, a_max, out=None):
    """Values limited to [a_min, a_max] (None: no bound on that side).

    Args:
        a: an `mx.np.ndarray` (a Python number gives NumPy's result).
        a_min: the lower bound (a number), or None for none.
        a_max: the upper bound (a number), or None for none.
        out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype that
            receives it (and is returned).

    Returns:
        An `mx.np.ndarray` of `a`'s shape and dtype.

    Raises:
        ValueError: both bounds None.

    Example::

        v = mx.np.array([1., 2., 3., 4.])
        mx.np.clip(v, 2, 3)  # array([2., 2., 3., 3.])
    """
    if a_min is None and a_max is None:
        raise MXNetValueError("clip: must set either max or min")
    if isinstance(a, (int, float, bool, _onp.generic)) and not isinstance(a, _onp.ndarray):
        return _onp.clip(a, a_min, a_max)  # a Python scalar: NumPy's result, as MXNet's
    return invoke("_npi_clip", [a], {"a_min": float("-inf") if a_min is None else float(a_min),
                                     "a_max": float("inf") if a_max is None else float(a_max)},
                  out=out, fname="clip")


def sort(a, axis=-1, kind=None, order=None):
    """A sorted copy along `axis` (the flattened array when None).

    Args:
        a: the `mx.np.ndarray` to sort.
        axis: default -1: the last axis; else an int, or None to sort the flattened array.
        kind: ignored (accepted for NumPy's signature); the sort is ascending.
        order: must stay None (not supported).

    Returns:
        An `mx.np.ndarray` of `a`'s shape (1-D for None), sorted ascending.

    Raises:
        NotImplementedError: `order`.

    Example::

        mx.np.sort(mx.np.array([3., 1., 2.]))  # array([1., 2., 3.])
    """
    if order is not None:
        raise NotImplementedError("sort: order is not supported")
    if axis is None:
        a, axis = reshape(a, (-1,)), 0
    return invoke("_npi_sort", [a], {"axis": axis, "is_ascend": True}, fname="sort")


def argsort(a, axis=-1, kind=None, order=None):
    """The indices that sort `a` along `axis` (int64).

    Args:
        a: the `mx.np.ndarray` to sort.
        axis: default -1: the last axis; else an int, or None for the flattened array.
        kind: ignored (accepted for NumPy's signature).
        order: must stay None (not supported).

    Returns:
        An int64 `mx.np.ndarray` of `a`'s shape (1-D for None).

    Raises:
        NotImplementedError: `order`.

    Example::

        mx.np.argsort(mx.np.array([3., 1., 2.]))  # array([1, 2, 0], dtype=int64)
    """
    if order is not None:
        raise NotImplementedError("argsort: order is not supported")
    if axis is None:
        a, axis = reshape(a, (-1,)), 0
    return invoke("_npi_argsort", [a], {"axis": axis, "is_ascend": True, "dtype": "int64"},
                  fname="argsort")


def take(a, indices, axis=None, mode="raise", out=None):
    """Elements of `a` at `indices` along `axis` (of the flattened array when None).

    Args:
        a: the `mx.np.ndarray` to take from.
        indices: an integer `mx.np.ndarray` (or an int) of positions; the result has its shape
            in place of `axis`.
        axis: default None: index the flattened array; else the int axis to index along.
        mode: 'raise' (an index out of range is an error), 'wrap' or 'clip'.
        out: default None: a new array; else an `mx.np.ndarray` of the result's shape and
            dtype that receives it (and is returned).

    Returns:
        An `mx.np.ndarray` of `a`'s dtype.

    Raises:
        NotImplementedError: another mode.
        IndexError: with mode 'raise', an index out of range.

    Example::

        v = mx.np.array([1., 2., 3., 4.])
        mx.np.take(v, mx.np.array([0, 3], dtype='int64'))  # array([1., 4.])
    """
    if mode not in ("wrap", "clip", "raise"):
        raise NotImplementedError(f"take: mode {mode!r} is not supported")
    if isinstance(indices, numbers.Integral):
        indices = np_array(indices, dtype="int64", ctx=None if is_symbolic([a]) else a.ctx)
    if axis is None:
        a, axis = reshape(a, (-1,)), 0
    if mode == "raise" and not is_symbolic([a, indices]):
        n = a.shape[axis]
        idx = indices.asnumpy()
        if idx.size and (idx.min() < -n or idx.max() >= n):
            raise IndexError(f"take: index {int(idx.max() if idx.max() >= n else idx.min())} "
                             f"is out of bounds for axis {axis} with size {n}")
        mode = "wrap"
    return invoke("_npi_take", [a, indices], {"axis": int(axis), "mode": mode}, out=out,
                  fname="take")


def copy(a, out=None):
    """A copy of `a`.

    Args:
        a: the `mx.np.ndarray` to copy.
        out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype that
            receives it (and is returned).

    Returns:
        A new `mx.np.ndarray` with `a`'s values, shape and dtype (or `out`).

    Example::

        v = mx.np.array([1., 2., 3., 4.])
        mx.np.copy(v)  # array([1., 2., 3., 4.])
    """
    return invoke("_np_copy", [a], {}, out=out, fname="copy")


def _np_cls():
    return np_class()
