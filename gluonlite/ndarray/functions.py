"""MXNet's module-level NDArray functions that are not operators themselves: arithmetic and
comparisons that take arrays or scalars on either side (``nd.add``, ``nd.greater``,
``nd.logical_and``...), and the helpers that shape their arguments for an operator
(``nd.eye``, ``nd.linspace``, ``nd.histogram``, ``nd.split_v2``, ``nd.onehot_encode``,
``nd.concatenate``, ``nd.moveaxis``).

Each array/scalar function picks the broadcasting operator for two arrays, the scalar operator
for an array and a scalar (its reversed form, or the mirrored comparison, when the scalar is on
the left), and numpy for two scalars, as MXNet does.
"""
import builtins
import warnings

import numpy as np

from ..base import normalize_dtype
from ..context import current_context
from .ndarray import NDArray, array
from .register import _gen_cache

__all__ = ["add", "subtract", "multiply", "divide", "true_divide", "modulo", "power",
           "equal", "not_equal", "greater", "greater_equal", "lesser", "lesser_equal",
           "logical_and", "logical_or", "logical_xor", "eye", "linspace", "histogram",
           "split_v2", "onehot_encode", "concatenate", "moveaxis"]


def _op(name):
    return _gen_cache[name]


def _apply(lhs, rhs, name, scalar, rscalar, fn):
    """lhs (op) rhs for arrays and/or scalars: `name` (two arrays), `scalar` (array, scalar),
    `rscalar` (scalar, array), `fn` (two scalars)."""
    if isinstance(lhs, NDArray) and isinstance(rhs, NDArray):
        return _op(name)(lhs, rhs)
    if isinstance(lhs, NDArray):
        return _op(scalar)(lhs, scalar=float(rhs))
    if isinstance(rhs, NDArray):
        return _op(rscalar)(rhs, scalar=float(lhs))
    if isinstance(lhs, (int, float, np.number)) and isinstance(rhs, (int, float, np.number)):
        return fn(lhs, rhs)
    raise TypeError(f"{name}: expected NDArrays or numbers, got {type(lhs).__name__} and "
                    f"{type(rhs).__name__}")


def _arith(public, kind, scalar, rscalar, fn):
    def f(lhs, rhs):
        return _apply(lhs, rhs, f"broadcast_{kind}", scalar, rscalar, fn)
    f.__name__ = f.__qualname__ = public
    f.__doc__ = (f"{public}(lhs, rhs): elementwise {kind} of NDArrays and/or numbers, "
                 f"broadcasting two arrays.\n\nExample: ``nd.{public}(nd.array([4., 6.]), 2)``.")
    return f


add = _arith("add", "add", "_plus_scalar", "_plus_scalar", lambda a, b: a + b)
subtract = _arith("subtract", "sub", "_minus_scalar", "_rminus_scalar", lambda a, b: a - b)
multiply = _arith("multiply", "mul", "_mul_scalar", "_mul_scalar", lambda a, b: a * b)
divide = _arith("divide", "div", "_div_scalar", "_rdiv_scalar", lambda a, b: a / b)
true_divide = _arith("true_divide", "div", "_div_scalar", "_rdiv_scalar", lambda a, b: a / b)
modulo = _arith("modulo", "mod", "_mod_scalar", "_rmod_scalar", lambda a, b: a % b)


def power(base, exp):
    """power(base, exp): base ** exp, elementwise, for NDArrays and/or numbers (broadcasting
    two arrays).

    Example: ``nd.power(2, nd.array([1., 3.]))`` -> ``[2., 8.]``.
    """
    return _apply(base, exp, "broadcast_power", "_power_scalar", "_rpower_scalar",
                  lambda a, b: a ** b)


# name: (the comparison with the operands swapped, numpy's function)
_COMPARISONS = {"equal": ("equal", np.equal), "not_equal": ("not_equal", np.not_equal),
                "greater": ("lesser", np.greater),
                "greater_equal": ("lesser_equal", np.greater_equal),
                "lesser": ("greater", np.less), "lesser_equal": ("greater_equal", np.less_equal),
                "logical_and": ("logical_and", np.logical_and),
                "logical_or": ("logical_or", np.logical_or),
                "logical_xor": ("logical_xor", np.logical_xor)}


def _comparison(name):
    mirrored, fn = _COMPARISONS[name]

    def f(lhs, rhs):
        return _apply(lhs, rhs, f"broadcast_{name}", f"_{name}_scalar", f"_{mirrored}_scalar",
                      lambda a, b: fn(a, b).astype(np.float32) if isinstance(
                          fn(a, b), np.ndarray) else float(fn(a, b)))
    f.__name__ = f.__qualname__ = name
    f.__doc__ = (f"{name}(lhs, rhs): 1 where `lhs {name} rhs` holds, else 0, for NDArrays and/or "
                 f"numbers (broadcasting two arrays), in the array's dtype.\n\n"
                 f"Example: ``nd.{name}(nd.array([1., 2.]), 1)``.")
    return f


equal = _comparison("equal")
not_equal = _comparison("not_equal")
greater = _comparison("greater")
greater_equal = _comparison("greater_equal")
lesser = _comparison("lesser")
lesser_equal = _comparison("lesser_equal")
logical_and = _comparison("logical_and")
logical_or = _comparison("logical_or")
logical_xor = _comparison("logical_xor")


def eye(N, M=0, k=0, ctx=None, dtype=None, **kwargs):
    """An N x M matrix (M=0: N x N) with ones on the k-th diagonal.

    Example: ``nd.eye(2, 3, 1)`` -> ``[[0, 1, 0], [0, 0, 1]]``.
    """
    return _op("_eye")(N=N, M=M, k=k, ctx=ctx or current_context(),
                       dtype=normalize_dtype(dtype or np.float32).name, **kwargs)


def linspace(start, stop, num, endpoint=True, ctx=None, dtype=np.float32):
    """`num` evenly spaced numbers from start to stop (stop left out when not `endpoint`).

    Example: ``nd.linspace(0, 1, 5)`` -> ``[0., 0.25, 0.5, 0.75, 1.]``.
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

    Raises:
        ValueError: bins neither an int nor an NDArray.

    Example: ``nd.histogram(nd.array([0, 1, 2, 3]), bins=2, range=(0, 4))`` -> counts
    ``[2, 2]``, edges ``[0., 2., 4.]``.
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

    Raises:
        ValueError: an int that does not divide the axis, or neither an int nor a tuple.

    Example: ``nd.split_v2(nd.zeros((4, 2)), (1, 3))`` gives parts of 1, 2 and 1 rows.
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
    MXNet: use `one_hot`)."""
    return _op("_onehot_encode")(indices, out, out=out)


def concatenate(arrays, axis=0, always_copy=True):
    """Join a list of arrays along `axis` (a copy, even of a single array).

    Raises:
        ValueError: an empty list.
    """
    if not arrays:
        raise ValueError("concatenate: arrays must hold at least one NDArray")
    if len(arrays) == 1 and not always_copy:
        return arrays[0]
    return _op("Concat")(*arrays, dim=axis)


def moveaxis(tensor, source, destination):
    """`tensor` with axis `source` moved to position `destination` (numpy's moveaxis).

    Example: ``nd.moveaxis(nd.zeros((2, 3, 4)), 0, -1).shape`` -> ``(3, 4, 2)``.
    """
    axes = list(builtins.range(tensor.ndim))
    try:
        src = axes[source]
        dst = axes[destination]
    except IndexError:
        raise ValueError(f"moveaxis: source {source} and destination {destination} must be "
                         f"axes of an array of {tensor.ndim} dimensions") from None
    axes.remove(src)
    axes.insert(dst, src)
    return _op("transpose")(tensor, axes=tuple(axes))


def _split_v2_method(self, *args, **kwargs):
    """Same as nd.split_v2(self, ...)."""
    return split_v2(self, *args, **kwargs)


# A method whose function lives here, not in the registry (split_v2 shapes its arguments).
NDArray.split_v2 = _split_v2_method
