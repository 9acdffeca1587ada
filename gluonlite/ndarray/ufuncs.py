"""MXNet's arithmetic and comparison functions of two operands, each an NDArray or a number:
``nd.add(x, 1)``, ``nd.greater(2, x)``, ``nd.power(x, y)`` (MXNet's ``_ufunc_helper``).

One table: for each function the operator for two arrays (broadcasting), the one for an
array and a scalar, the one for a scalar and an array (the reflected comparison, or the
``_r*`` operator), and what two numbers give. A function is provided when its operators are
registered.
"""
import operator

import numpy as np


from ..ops import registry
from .ndarray import NDArray

__all__ = ["UFUNCS", "install", "moveaxis", "concatenate"]

# name: (two arrays, array (op) scalar, scalar (op) array, two numbers)
UFUNCS = {
    "add": ("broadcast_add", "_plus_scalar", "_plus_scalar", operator.add),
    "subtract": ("broadcast_sub", "_minus_scalar", "_rminus_scalar", operator.sub),
    "multiply": ("broadcast_mul", "_mul_scalar", "_mul_scalar", operator.mul),
    "divide": ("broadcast_div", "_div_scalar", "_rdiv_scalar", operator.truediv),
    "true_divide": ("broadcast_div", "_div_scalar", "_rdiv_scalar", operator.truediv),
    "modulo": ("broadcast_mod", "_mod_scalar", "_rmod_scalar", operator.mod),
    "power": ("broadcast_power", "_power_scalar", "_rpower_scalar", operator.pow),
    "equal": ("broadcast_equal", "_equal_scalar", "_equal_scalar",
              lambda a, b: int(a == b)),
    "not_equal": ("broadcast_not_equal", "_not_equal_scalar", "_not_equal_scalar",
                  lambda a, b: int(a != b)),
    "greater": ("broadcast_greater", "_greater_scalar", "_lesser_scalar",
                lambda a, b: int(a > b)),
    "greater_equal": ("broadcast_greater_equal", "_greater_equal_scalar",
                      "_lesser_equal_scalar", lambda a, b: int(a >= b)),
    "lesser": ("broadcast_lesser", "_lesser_scalar", "_greater_scalar",
               lambda a, b: int(a < b)),
    "lesser_equal": ("broadcast_lesser_equal", "_lesser_equal_scalar", "_greater_equal_scalar",
                     lambda a, b: int(a <= b)),
    "logical_and": ("broadcast_logical_and", "_logical_and_scalar", "_logical_and_scalar",
                    lambda a, b: int(bool(a) and bool(b))),
    "logical_or": ("broadcast_logical_or", "_logical_or_scalar", "_logical_or_scalar",
                   lambda a, b: int(bool(a) or bool(b))),
    "logical_xor": ("broadcast_logical_xor", "_logical_xor_scalar", "_logical_xor_scalar",
                    lambda a, b: int(bool(a) != bool(b))),
}


def _make(name, arrays, scalar, rscalar, numbers, ns):
    def f(lhs, rhs):
        lnd, rnd = isinstance(lhs, NDArray), isinstance(rhs, NDArray)
        if lnd and rnd:
            return ns[arrays](lhs, rhs)
        if lnd:
            return ns[scalar](lhs, scalar=rhs)
        if rnd:
            return ns[rscalar](rhs, scalar=lhs)
        return numbers(lhs, rhs)
    f.__name__ = name
    # the example's result, as the float32 array it prints
    shown = " ".join(str(np.array([numbers(1, 2), numbers(2, 2)], dtype=np.float32)).split())
    f.__doc__ = (f"``{name}(lhs, rhs)``: elementwise, each operand an NDArray or a number; "
                 f"two arrays broadcast ({arrays}), an array and a number use {scalar} "
                 f"({rscalar} with the number first); two numbers give a number.\n\n"
                 "Args:\n    lhs: the left operand, an NDArray or a number.\n"
                 "    rhs: the right operand, an NDArray or a number.\n\n"
                 "Returns:\n    NDArray: the elementwise result (a number for two numbers"
                 + ("; comparisons give 1 or 0 in the arrays' dtype" if name in (
                     "equal", "not_equal", "greater", "greater_equal", "lesser",
                     "lesser_equal", "logical_and", "logical_or", "logical_xor") else "")
                 + ").\n\nRaises:\n    ValueError: (a ShapeError) two arrays whose shapes do not "
                 "broadcast.\n\n"
                 f"Example::\n\n    nd.{name}(nd.array([1, 2]), 2).asnumpy()   # {shown}\n")
    return f


def install(namespace):
    """Add every `UFUNCS` function whose operators are registered to `namespace` (the
    ``gluonlite.ndarray`` module dict), keeping names it already has.

    Example::

        from gluonlite.ndarray.ufuncs import install
        ns = dict(vars(nd))   # the operator functions the new ones call
        del ns['add']
        install(ns)
        ns['add'](nd.array([1, 2]), 2).asnumpy()   # [3. 4.]
    """
    for name, (arrays, scalar, rscalar, numbers) in UFUNCS.items():
        if name in namespace or not all(registry.exists(n) for n in (arrays, scalar, rscalar)):
            continue
        namespace[name] = _make(name, arrays, scalar, rscalar, numbers, namespace)


def moveaxis(tensor, source, destination):
    """`tensor` with axis `source` moved to position `destination` (the others keep their
    order), as numpy's moveaxis; `source` and `destination` may also be sequences of axes
    of one length (each source axis lands at its destination).

    Raises:
        ValueError: an axis out of range, a repeated axis, or sequences of different lengths.

    Example::

        nd.moveaxis(nd.zeros((2, 3, 4)), 0, -1).shape                # (3, 4, 2)
        nd.moveaxis(nd.zeros((4, 1, 2, 3)), [0, 1], [2, 3]).shape    # (2, 3, 4, 1)
    """
    ndim = tensor.ndim

    def axes(what, ax):
        ax = [ax] if isinstance(ax, (int, np.integer)) else list(ax)
        for a in ax:
            if not -ndim <= a < ndim:
                raise ValueError(f"moveaxis: {what} axis {a} is out of range for an array of "
                                 f"{ndim} dimensions")
        ax = [int(a) % ndim for a in ax]
        if len(set(ax)) != len(ax):
            raise ValueError(f"moveaxis: {what} repeats an axis: {ax}")
        return ax

    src, dst = axes("source", source), axes("destination", destination)
    if len(src) != len(dst):
        raise ValueError(f"moveaxis: source and destination must have the same number of "
                         f"axes, got {len(src)} and {len(dst)}")
    order = [i for i in range(ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return tensor.transpose(order)


def concatenate(arrays, axis=0, always_copy=True):
    """Join a list of arrays along `axis` (a copy, also of a single array when
    `always_copy`).

    Args:
        arrays: the NDArrays to join (a list or any iterable), of one shape except along
            `axis`.
        axis: the axis to join along (default 0).
        always_copy: copy a single array too (default True); False returns it itself.

    Returns:
        NDArray: the joined array.

    Raises:
        ValueError: an empty list.

    Example::

        nd.concatenate([nd.ones((1, 2)), nd.zeros((1, 2))]).shape   # (2, 2)
    """
    from . import concat
    arrays = list(arrays)
    if not arrays:
        raise ValueError("concatenate: arrays must not be empty")
    if len(arrays) == 1:
        return arrays[0].copy() if always_copy else arrays[0]
    return concat(*arrays, dim=axis)
