"""Official NumPy functions and ufuncs given `mx.np` arrays (NumPy's `__array_function__` and
`__array_ufunc__` protocols), as MXNet 1.9.1 handles them: the `mx.np` function of the same
name runs (so ``numpy.sum(mx_array)`` is an `mx.np.ndarray`, recorded by autograd); a NumPy
function `mx.np` lacks runs on host copies and its array results come back as `mx.np`
arrays on the input's context, except inside autograd.record(), where that is refused (the
result could not be differentiated).

Example::

    import numpy
    numpy.sum(mx.np.ones((2, 3)))      # array(6.), an mx.np.ndarray
    numpy.median(mx.np.ones(3))        # NumPy on a copy -> array(1.)
"""
import numpy as _onp

from .. import autograd_tape
from .. import numpy as mx_np  # the package, already started: its names are read at call time
from ..ndarray.ndarray import NDArray
from ._dispatch import np_array, np_class

__all__ = ["array_function", "array_ufunc", "ARRAY_FUNCTIONS", "ARRAY_UFUNCS"]

# The NumPy functions and ufuncs MXNet 1.9.1 dispatches to its own (numpy_dispatch_protocol).
ARRAY_FUNCTIONS = (
    "all", "any", "sometrue", "argmin", "argmax", "around", "round", "round_", "argsort",
    "sort", "append", "broadcast_arrays", "broadcast_to", "clip", "concatenate", "copy",
    "cumsum", "diag", "diagonal", "diagflat", "dot", "expand_dims", "fix", "flip", "flipud",
    "fliplr", "inner", "insert", "max", "amax", "mean", "min", "amin", "nonzero", "ones_like",
    "atleast_1d", "atleast_2d", "atleast_3d", "prod", "product", "ravel", "repeat", "reshape",
    "roll", "split", "array_split", "hsplit", "vsplit", "dsplit", "squeeze", "stack", "std",
    "sum", "swapaxes", "take", "tensordot", "tile", "transpose", "unique", "unravel_index",
    "diag_indices_from", "delete", "var", "vdot", "vstack", "column_stack", "hstack", "dstack",
    "zeros_like", "linalg.norm", "linalg.cholesky", "linalg.inv", "linalg.solve",
    "linalg.tensorinv", "linalg.tensorsolve", "linalg.pinv", "linalg.eigvals", "linalg.eig",
    "linalg.eigvalsh", "linalg.eigh", "shape", "trace", "tril", "meshgrid", "outer", "einsum",
    "polyval", "shares_memory", "may_share_memory", "quantile", "percentile", "diff",
    "ediff1d", "resize", "where", "full_like", "bincount", "empty_like", "nan_to_num",
    "isnan", "isfinite", "isposinf", "isneginf", "isinf", "pad")
ARRAY_UFUNCS = (
    "abs", "fabs", "add", "arctan2", "copysign", "degrees", "hypot", "lcm", "subtract",
    "multiply", "true_divide", "negative", "power", "mod", "matmul", "absolute", "rint", "sign",
    "exp", "log", "log2", "log10", "expm1", "sqrt", "square", "cbrt", "reciprocal", "invert",
    "bitwise_not", "remainder", "sin", "cos", "tan", "sinh", "cosh", "tanh", "arcsin",
    "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "maximum", "minimum", "ceil", "trunc",
    "floor", "bitwise_and", "bitwise_xor", "bitwise_or", "logical_not", "equal", "not_equal",
    "less", "less_equal", "greater", "greater_equal")

_FUNCS = {}


def _table():
    if not _FUNCS:
        for name in ARRAY_FUNCTIONS:
            mod_onp, mod_mx, leaf = _onp, mx_np, name
            if "." in name:
                sub, leaf = name.split(".")
                mod_onp, mod_mx = getattr(_onp, sub), getattr(mx_np, sub)
            f = getattr(mod_onp, leaf, None)
            if f is not None:
                _FUNCS[f] = getattr(mod_mx, leaf)
    return _FUNCS


def _host(x):
    if isinstance(x, NDArray):
        return x.asnumpy()
    if isinstance(x, (list, tuple)):
        return type(x)(_host(e) for e in x)
    if isinstance(x, dict):
        return {k: _host(v) for k, v in x.items()}
    return x


# the dtypes MXNet 1.9.1's DLPack conversion (from_numpy) takes back from NumPy
_DLPACK_DTYPES = ("int32", "int64", "bool", "uint8", "float16", "float32", "float64")


def _back(out, ctx):
    """NumPy's result as mx.np arrays, as MXNet's ``_as_mx_np_array`` converts it (through
    DLPack: int8 and the other dtypes it lacks are refused with ValueError)."""
    if isinstance(out, _onp.ndarray):
        if str(out.dtype) not in _DLPACK_DTYPES:
            raise ValueError(f"{out.dtype} is not supported.")
        return np_array(out, dtype=out.dtype, ctx=ctx)
    if isinstance(out, tuple):
        return tuple(_back(o, ctx) for o in out)
    if isinstance(out, list):
        return [_back(o, ctx) for o in out]
    return out


def _ctx_of(args):
    stack = [args]
    while stack:
        a = stack.pop()
        if isinstance(a, NDArray):
            return a.ctx
        if isinstance(a, (list, tuple)):
            stack.extend(a)
        elif isinstance(a, dict):
            stack.extend(a.values())
    return None


def _fallback(name, fn, args, kwargs):
    if autograd_tape.is_recording():
        raise ValueError(f"Falling back to NumPy operator {name} with autograd active is not "
                         "supported. Please consider moving the operator to the outside of "
                         "the autograd scope.")
    ctx = _ctx_of((args, kwargs))
    return _back(fn(*_host(args), **_host(kwargs)), ctx)


def array_function(func, types, args, kwargs):
    """`mx.np.ndarray.__array_function__`: `func`'s `mx.np` counterpart, or `func` on host
    copies (see the module docstring).

    Args:
        func: the NumPy function called (``np.mean``).
        types: the types of the arguments that define ``__array_function__``.
        args: the positional arguments of the call.
        kwargs: the keyword arguments of the call.

    Returns:
        The result (`mx.np` arrays in place of NumPy ones), or NotImplemented when a type in `types`
        is not an `mx.np.ndarray`.

    Raises:
        ValueError: a host fallback while autograd records.

    Example::

        from gluonlite.numpy.interop import array_function
        x = mx.np.array([3., 4.])
        array_function(np.mean, (type(x),), (x,), {})  # array(3.5), as np.mean(x) gives
    """
    ndarray = np_class()
    mx_func = _table().get(func)
    if mx_func is None:
        return _fallback(getattr(func, "__name__", str(func)), func, args, kwargs)
    if not all(issubclass(t, ndarray) for t in types):
        return NotImplemented
    return mx_func(*args, **kwargs)


def array_ufunc(self, ufunc, method, inputs, kwargs):
    """`mx.np.ndarray.__array_ufunc__`: the `mx.np` function of the ufunc's name, or the
    ufunc on host copies (see the module docstring).

    Args:
        self: the `mx.np.ndarray` whose ``__array_ufunc__`` NumPy called.
        ufunc: the NumPy ufunc (``np.add``).
        method: how it was called; only '__call__' is handled.
        inputs: the ufunc's operands.
        kwargs: its keywords; ``out`` must be a 1-tuple.

    Returns:
        The result as `mx.np.ndarray`, or NotImplemented for another `method`.

    Raises:
        ValueError: an ``out`` tuple of another length, or a host fallback while autograd records.

    Example::

        np.add(mx.np.array([1., 2.]), 1)  # array([2., 3.])
    """
    if "out" in kwargs:
        out = kwargs["out"]
        if len(out) != 1:
            raise ValueError("The `out` parameter must have exactly one ndarray")
        kwargs["out"] = out[0]
    if method != "__call__":
        return NotImplemented
    name = ufunc.__name__
    if name in ARRAY_UFUNCS:
        return getattr(mx_np, name)(*inputs, **kwargs)
    if autograd_tape.is_recording():
        return _fallback(name, ufunc, inputs, kwargs)  # raises
    ctx = inputs[0].ctx  # as MXNet's: a Python number first raises AttributeError
    return _back(ufunc(*_host(inputs), **_host(kwargs)), ctx)
