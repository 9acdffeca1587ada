"""`mx.util`: MXNet 1.9.1's helper module: environment variables, GPU queries, and the
switches of the NumPy-compatible interface (`mx.np`).

gluonlite speaks MXNet's legacy NDArray dialect only. The NumPy semantics switches therefore
report "off" (`is_np_shape()` and `is_np_array()` return False) and turning them off is a no-op,
but turning them ON raises NotImplementedError: gluonlite's operators keep the legacy shape
rules (no 0-d arrays, 0 = unknown dimension), so silently accepting the switch would give
answers that differ from MXNet's. The decorators `use_np`, `use_np_shape` and `use_np_array`
may decorate functions and classes at import time; calling what they decorated raises the same
NotImplementedError.

Example::

    from gluonlite.util import is_np_array, getenv, setenv
    is_np_array()                       # False
    setenv('MXNET_ENGINE_TYPE', 'NaiveEngine'); getenv('MXNET_ENGINE_TYPE')
"""
import ctypes
import functools
import inspect
import os

from .base import MXNetError, py_str
from .context import num_gpus

__all__ = ["c_str", "check_call", "get_cuda_compute_capability", "get_gpu_count",
           "get_gpu_memory", "getenv", "is_np_array", "is_np_shape", "np_array", "np_shape",
           "np_ufunc_legal_option", "py_str", "reset_np", "set_module", "set_np",
           "set_np_shape", "setenv", "use_np", "use_np_array", "use_np_shape",
           "wrap_np_binary_func", "wrap_np_unary_func"]


def _np_refused(what):
    return NotImplementedError(
        f"{what}: gluonlite does not implement MXNet's NumPy-compatible interface (mx.np / "
        "npx, NumPy shape and array semantics); it implements the legacy mx.nd / mx.sym "
        "dialect only. Write the code with mx.nd, or run it on MXNet")


def c_str(string):
    """`string` as a ctypes char pointer (UTF-8), as MXNet passes strings to its C library.

    Example: ``c_str('relu').value == b'relu'``.
    """
    return ctypes.c_char_p(string.encode("utf-8"))


def check_call(ret):
    """Raise MXNetError when `ret`, the return code of a C API call, is not 0.

    gluonlite has no C library; the function is kept for code that checks return codes of its
    own ctypes calls.

    Raises:
        MXNetError: `ret` is not 0.

    Example: ``check_call(0)`` returns None.
    """
    if ret != 0:
        raise MXNetError(f"check_call: a C API call returned {ret} (expected 0)")


def get_gpu_count():
    """The number of GPUs gluonlite can use (CuPy devices; 0 without CuPy).

    Example: ``mx.util.get_gpu_count()``.
    """
    return num_gpus()


def _cupy_device(dev_id, what):
    if dev_id < 0 or dev_id >= get_gpu_count():
        raise ValueError(f"{what}: no GPU with id {dev_id}; this machine has "
                         f"{get_gpu_count()} GPU(s) gluonlite can use (CuPy)")
    import cupy
    return cupy.cuda.Device(dev_id)


def get_gpu_memory(gpu_dev_id):
    """(free, total) memory of GPU `gpu_dev_id` in bytes.

    Raises:
        ValueError: there is no such GPU (or CuPy is missing).
    """
    with _cupy_device(gpu_dev_id, "get_gpu_memory"):
        import cupy
        free, total = cupy.cuda.runtime.memGetInfo()
    return free, total


def get_cuda_compute_capability(ctx):
    """The CUDA compute capability of GPU context `ctx` as an int (e.g. 80 for 8.0).

    Raises:
        ValueError: `ctx` is not a GPU context, or there is no such GPU.
    """
    if getattr(ctx, "device_type", None) != "gpu":
        raise ValueError(f"get_cuda_compute_capability: expected a GPU context, got {ctx}")
    return int(_cupy_device(ctx.device_id, "get_cuda_compute_capability").compute_capability)


def getenv(name):
    """The value of environment variable `name`, or None when it is not set.

    Example: ``getenv('MXNET_ENGINE_TYPE')``.
    """
    return os.environ.get(name)


def setenv(name, value):
    """Set environment variable `name` to `value` (None unsets it).

    Example: ``setenv('MXNET_ENGINE_TYPE', 'NaiveEngine')``.
    """
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = str(value)


def set_module(module):
    """A decorator setting ``__module__`` of a function or class to `module` (None: unchanged).

    Example::

        @set_module('gluonlite.util')
        def f(): ...
    """
    def decorator(func):
        if module is not None:
            func.__module__ = module
        return func
    return decorator


# ---- the NumPy-interface switches: always off here ---------------------------------------

def is_np_shape():
    """Whether NumPy shape semantics is on: always False in gluonlite."""
    return False


def is_np_array():
    """Whether NumPy array semantics is on: always False in gluonlite."""
    return False


def set_np_shape(active):
    """Turn NumPy shape semantics on or off; returns the previous state (False).

    Raises:
        NotImplementedError: `active` is true (gluonlite keeps the legacy shape rules).
    """
    if active:
        raise _np_refused("set_np_shape(True)")
    return False


def set_np(shape=True, array=True):
    """Turn NumPy shape and array semantics on or off (MXNet's `npx.set_np`).

    Raises:
        NotImplementedError: `shape` or `array` is true.
        ValueError: array semantics without shape semantics (as MXNet).
    """
    if not shape and array:
        raise ValueError("set_np: NumPy array semantics needs NumPy shape semantics (shape=True)")
    if shape or array:
        raise _np_refused(f"set_np(shape={shape}, array={array})")


def reset_np():
    """Turn NumPy shape and array semantics off (a no-op: they are never on)."""
    set_np(shape=False, array=False)


class _NumpyScope:
    """A ``with`` scope of NumPy shape or array semantics: an inactive one is a no-op, an
    active one raises NotImplementedError on entry."""

    def __init__(self, what, active):
        self._what = what
        self._active = bool(active)

    def __enter__(self):
        if self._active:
            raise _np_refused(f"with {self._what}(True)")
        return self

    def __exit__(self, *exc):
        return False


class _NumpyArrayScope(_NumpyScope):
    """MXNet's per-thread record of NumPy array semantics (`_current`), which its thread-local
    tests set: only the inactive state exists here.

    Raises:
        NotImplementedError: made with `is_np_array` true.

    Example: ``_NumpyArrayScope(False)._is_np_array`` is False.
    """

    _current = None

    def __init__(self, is_np_array):
        if is_np_array:
            raise _np_refused("_NumpyArrayScope(True)")
        super().__init__("np_array", False)
        self._is_np_array = False


def np_shape(active=True):
    """A ``with`` scope of NumPy shape semantics.

    Raises:
        NotImplementedError: on entering with `active` true.
    """
    return _NumpyScope("np_shape", active)


def np_array(active=True):
    """A ``with`` scope of NumPy array semantics.

    Raises:
        NotImplementedError: on entering with `active` true.
    """
    return _NumpyScope("np_array", active)


def _refusing_decorator(what):
    def decorate(func):
        if inspect.isclass(func):
            original_init = func.__init__

            @functools.wraps(original_init)
            def __init__(self, *args, **kwargs):
                raise _np_refused(f"{func.__name__} (decorated with {what})")
            func.__init__ = __init__
            func._np_original_init = original_init
            return func
        if callable(func):
            @functools.wraps(func)
            def refused(*args, **kwargs):
                raise _np_refused(f"{getattr(func, '__name__', func)} (decorated with {what})")
            return refused
        raise TypeError(f"{what} can only decorate classes and callable objects, got "
                        f"{type(func).__name__}")
    decorate.__name__ = what
    return decorate


use_np_shape = _refusing_decorator("use_np_shape")
use_np_shape.__doc__ = """Decorate a function or class to run under NumPy shape semantics.

Decorating succeeds (so modules that use it import); calling the function or instantiating
the class raises NotImplementedError, since gluonlite keeps the legacy shape rules.

Raises:
    TypeError: `func` is neither a class nor callable.
"""
use_np_array = _refusing_decorator("use_np_array")
use_np_array.__doc__ = """Decorate a function or class to create `mx.np` arrays.

Decorating succeeds; calling the function or instantiating the class raises
NotImplementedError (gluonlite has no `mx.np` arrays).

Raises:
    TypeError: `func` is neither a class nor callable.
"""
use_np = _refusing_decorator("use_np")
use_np.__doc__ = """Decorate a function or class to run with both NumPy shape and array
semantics (`use_np_shape` and `use_np_array` together).

Decorating succeeds (so test files and models that use it import); calling the function or
instantiating the class raises NotImplementedError naming the mx.np interface.

Raises:
    TypeError: `func` is neither a class nor callable.
"""


_UFUNC_DEFAULTS = {"where": True, "casting": "same_kind", "order": "K", "dtype": None,
                   "subok": True}
_UFUNC_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")
_UFUNC_DTYPES = ("int8", "uint8", "int32", "int64", "float16", "float32", "float64")


def np_ufunc_legal_option(key, value):
    """Whether `value` is a legal value of NumPy ufunc keyword `key` (``where``, ``casting``,
    ``order``, ``dtype``, ``subok``); False for any other key.

    Example: ``np_ufunc_legal_option('casting', 'safe')`` is True.
    """
    if key == "where":
        return True
    if key == "casting":
        return value in _UFUNC_CASTINGS
    if key == "order":
        return isinstance(value, str)
    if key == "dtype":
        import numpy as np
        return value in _UFUNC_DTYPES or value in tuple(getattr(np, d) for d in _UFUNC_DTYPES)
    if key == "subok":
        return isinstance(value, bool)
    return False


def _check_ufunc_kwargs(name, kwargs):
    # A keyword at its default is accepted; a legal but non-default value is a feature this
    # function lacks (NotImplementedError); anything else is the caller's mistake (TypeError).
    for key, value in kwargs.items():
        if key not in _UFUNC_DEFAULTS:
            raise TypeError(f"{name}: {key!r} is an invalid keyword")
        if value != _UFUNC_DEFAULTS[key]:
            if np_ufunc_legal_option(key, value):
                raise NotImplementedError(f"{name}: {key}={value} is not implemented")
            raise TypeError(f"{name}: {key}={value!r} is not understood")


def wrap_np_unary_func(func):
    """Wrap a unary function ``func(x, out=None)`` so that it accepts NumPy ufunc keywords
    at their default values.

    Raises (from the wrapped function):
        TypeError: an unknown keyword or an illegal value.
        NotImplementedError: a legal value other than the default.
    """
    @functools.wraps(func)
    def wrapped(x, out=None, **kwargs):
        _check_ufunc_kwargs(func.__name__, kwargs)
        return func(x, out=out)
    return wrapped


def wrap_np_binary_func(func):
    """Wrap a binary function ``func(x1, x2, out=None)`` so that it accepts NumPy ufunc
    keywords at their default values.

    Raises (from the wrapped function):
        TypeError: an unknown keyword or an illegal value.
        NotImplementedError: a legal value other than the default.
    """
    @functools.wraps(func)
    def wrapped(x1, x2, out=None, **kwargs):
        _check_ufunc_kwargs(func.__name__, kwargs)
        return func(x1, x2, out=out)
    return wrapped
