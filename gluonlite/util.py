"""`mx.util`: MXNet 1.9.1's helper module: environment variables, GPU queries, and the
switches of the NumPy-compatible interface (`mx.np`).

The switches are per thread, as in MXNet: `set_np_shape` / `np_shape` / `use_np_shape` turn
on NumPy shape semantics (0-d arrays, 0 as a real size, -1 for an unknown dimension), for
`mx.nd` and `mx.sym` as well as `mx.np`; `np_array` / `use_np_array` make Gluon create
`mx.np` arrays; `set_np` / `use_np` turn both on.

Example::

    from gluonlite.util import is_np_array, is_np_shape, np_shape
    is_np_array()                       # False
    with np_shape(True):
        is_np_shape()                   # True
"""
import contextlib
import ctypes
import functools
import inspect
import os
import threading

from .base import MXNetError, py_str
from .context import num_gpus

__all__ = ["c_str", "check_call", "get_cuda_compute_capability", "get_gpu_count",
           "get_gpu_memory", "getenv", "is_np_array", "is_np_default_dtype", "is_np_shape",
           "np_array", "np_shape", "set_np_default_dtype",
           "np_ufunc_legal_option", "py_str", "reset_np", "set_module", "set_np",
           "set_np_shape", "setenv", "use_np", "use_np_array", "use_np_shape",
           "wrap_np_binary_func", "wrap_np_unary_func"]


def c_str(string):
    """`string` as a ctypes char pointer (UTF-8), as MXNet passes strings to its C library.

    Example::

        mx.util.c_str('relu').value   # b'relu'
    """
    return ctypes.c_char_p(string.encode("utf-8"))


def check_call(ret):
    """Raise MXNetError when `ret`, the return code of a C API call, is not 0.

    gluonlite has no C library; the function is kept for code that checks return codes of its
    own ctypes calls.

    Raises:
        MXNetError: `ret` is not 0.

    Example::

        mx.util.check_call(0)   # None; a non-zero code raises MXNetError
    """
    if ret != 0:
        raise MXNetError(f"check_call: a C API call returned {ret} (expected 0)")


def get_gpu_count():
    """The number of GPUs gluonlite can use (CuPy devices; 0 without CuPy).

    Example::

        mx.util.get_gpu_count()   # 0 on a machine without a GPU
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

    Example::

        if mx.util.get_gpu_count() > 0:
            free, total = mx.util.get_gpu_memory(0)   # bytes of GPU 0
    """
    with _cupy_device(gpu_dev_id, "get_gpu_memory"):
        import cupy
        free, total = cupy.cuda.runtime.memGetInfo()
    return free, total


def get_cuda_compute_capability(ctx):
    """The CUDA compute capability of GPU context `ctx` as an int (e.g. 80 for 8.0).

    Raises:
        ValueError: `ctx` is not a GPU context, or there is no such GPU.

    Example::

        if mx.util.get_gpu_count() > 0:
            mx.util.get_cuda_compute_capability(mx.gpu(0))   # e.g. 80 for an A100
    """
    if getattr(ctx, "device_type", None) != "gpu":
        raise ValueError(f"get_cuda_compute_capability: expected a GPU context, got {ctx}")
    return int(_cupy_device(ctx.device_id, "get_cuda_compute_capability").compute_capability)


def getenv(name):
    """The value of environment variable `name`, or None when it is not set.

    Example::

        mx.util.setenv('MY_FLAG', '1')
        mx.util.getenv('MY_FLAG')   # '1'
        mx.util.setenv('MY_FLAG', None)
    """
    return os.environ.get(name)


def setenv(name, value):
    """Set environment variable `name` to `value` (None unsets it).

    Example::

        mx.util.setenv('MY_FLAG', 2)
        mx.util.getenv('MY_FLAG')   # '2'
        mx.util.setenv('MY_FLAG', None)   # unset again
    """
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = str(value)


def set_module(module):
    """A decorator setting ``__module__`` of a function or class to `module` (None: unchanged).

    Example::

        @mx.util.set_module('mypackage')
        def f():
            pass
        f.__module__   # 'mypackage'
    """
    def decorator(func):
        if module is not None:
            func.__module__ = module
        return func
    return decorator


# ---- the NumPy-interface switches ---------------------------------------------------------
# Each thread has its own state, as in MXNet 1.9.1 (its shape flag lives in the engine's
# thread-local storage, its array flag in a threading.local scope). `set_np_shape` also takes
# MXNet's code 2 ("global on"): on for every thread until turned off.
_np_state = threading.local()
_np_shape_global = [False]


def is_np_shape():
    """Whether NumPy shape semantics is on in this thread: ``()`` is the shape of a scalar
    (0-d) array, a 0 in a shape is a real size (zero-size arrays), and -1 marks an unknown
    dimension (the legacy semantics reads 0 as unknown and has no 0-d arrays).

    Example::

        with mx.np_shape(True):
            mx.is_np_shape()        # True
    """
    return _np_shape_global[0] or getattr(_np_state, "shape", False)


def is_np_array():
    """Whether NumPy array semantics is on in this thread: Gluon then creates `mx.np.ndarray`
    parameters and outputs instead of `mx.nd.NDArray`.

    Example::

        mx.util.is_np_array()   # False
        with mx.util.np_shape(True), mx.util.np_array(True):
            mx.util.is_np_array()   # True
    """
    scope = getattr(_NumpyArrayScope._current, "value", None)
    return scope._is_np_array if scope is not None else False


def is_np_default_dtype():
    """Whether NumPy's float64 default dtype is on (``npx.set_np(dtype=True)``, an MXNet 2.0
    switch gluonlite also offers): functions that create float arrays without a dtype then
    make float64, as NumPy does; otherwise float32, MXNet's default.

    Example::

        prev = mx.util.set_np_default_dtype(True)
        mx.util.is_np_default_dtype()   # True
        mx.util.set_np_default_dtype(prev)
    """
    return getattr(_np_state, "dtype", False)


def set_np_default_dtype(active=True):
    """Turn NumPy's float64 default dtype on or off in this thread; returns the previous state.

    Args:
        active (bool): True (default): the default dtype of `mx.np` arrays is
            float64, as NumPy's; False: float32.

    Example::

        prev = mx.util.set_np_default_dtype(True)   # False before
        mx.util.set_np_default_dtype(prev)   # restore
    """
    old, _np_state.dtype = getattr(_np_state, "dtype", False), bool(active)
    return old


def set_np_shape(active):
    """Turn NumPy shape semantics on or off (see `is_np_shape`); returns the previous state.

    Args:
        active: True or 1 for this thread, 2 for every thread (MXNet's "global on"), False
            or 0 for off.

    Raises:
        ValueError: turning it off while NumPy array semantics is on (call `reset_np`).

    Example::

        prev = mx.set_np_shape(True)
        nd.ones(()).shape   # ()
        mx.set_np_shape(prev)
    """
    if not active and is_np_array():
        raise ValueError("set_np_shape(False): NumPy shape semantics cannot be turned off while "
                         "NumPy array semantics is on; call npx.reset_np() to turn both off")
    prev = is_np_shape()
    if active == 2:
        _np_shape_global[0] = True
    else:
        _np_shape_global[0] = False if not active else _np_shape_global[0]
        _np_state.shape = bool(active)
    return prev


def _set_np_array(active):
    """Turn NumPy array semantics on or off in this thread; returns the previous state."""
    prev = is_np_array()
    _NumpyArrayScope._current.value = _NumpyArrayScope(active)
    return prev


def set_np(shape=True, array=True, dtype=False):
    """Turn NumPy shape and array semantics on or off together (MXNet's `npx.set_np`).

    Args:
        shape: NumPy shape semantics (see `is_np_shape`).
        array: NumPy array semantics (see `is_np_array`); needs `shape`.
        dtype: NumPy's float64 default dtype (see `is_np_default_dtype`; MXNet 2.0's
            argument, which MXNet 1.9.1 lacks: code written for 1.9.1 never passes it).

    Raises:
        ValueError: `array` without `shape`, as MXNet refuses it.

    Example::

        mx.util.set_np()
        mx.np.ones((2, 3)).sum()   # array(6.)
        mx.util.reset_np()
    """
    if not shape and array:
        raise ValueError("set_np: NumPy array semantics needs NumPy shape semantics "
                         "(shape=True)")
    _set_np_array(array)
    set_np_shape(shape)
    set_np_default_dtype(dtype)


def reset_np():
    """Turn NumPy shape and array semantics (and the float64 default dtype) off.

    Example::

        mx.util.set_np()
        mx.util.reset_np()
        mx.util.is_np_shape(), mx.util.is_np_array()   # (False, False)
    """
    set_np(shape=False, array=False)


class _NumpyShapeScope:
    """A ``with`` scope of NumPy shape semantics on or off (None: unchanged), restoring the
    previous state on exit. Made by `np_shape`."""

    def __init__(self, is_np_shape):  # pylint: disable=redefined-outer-name
        self._enter_is_np_shape = is_np_shape
        self._prev_is_np_shape = None

    def __enter__(self):
        if self._enter_is_np_shape is not None:
            self._prev_is_np_shape = _set_shape_flag(self._enter_is_np_shape)
        return self

    def __exit__(self, *exc):
        if self._enter_is_np_shape is not None:
            _set_shape_flag(self._prev_is_np_shape)
        return False


def _set_shape_flag(active):
    # a scope sets this thread's flag without the array-semantics check (MXNet's scopes nest
    # freely; `set_np_shape` is the user-facing switch that checks)
    prev = getattr(_np_state, "shape", False)
    _np_state.shape = bool(active)
    return prev


class _NumpyArrayScope:
    """A ``with`` scope of NumPy array semantics on or off, restoring the previous state on
    exit (MXNet's per-thread record of the state: `_current.value`, the innermost scope).

    Example::

        from gluonlite.util import _NumpyArrayScope, is_np_array
        with _NumpyArrayScope(True):
            inside = is_np_array()
        inside   # True
    """

    _current = threading.local()

    def __init__(self, is_np_array):  # pylint: disable=redefined-outer-name
        self._old_scope = None
        self._is_np_array = bool(is_np_array)

    def __enter__(self):
        self._old_scope = getattr(_NumpyArrayScope._current, "value", None)
        _NumpyArrayScope._current.value = self
        return self

    def __exit__(self, *exc):
        _NumpyArrayScope._current.value = self._old_scope
        return False


def np_shape(active=True):
    """A ``with`` scope of NumPy shape semantics (see `is_np_shape`).

    Args:
        active (bool): True (default) turns NumPy shape semantics on inside the block,
            False off; the previous state comes back after it.

    Example::

        with mx.np_shape(True):
            mx.nd.ones(()).shape            # ()
    """
    return _NumpyShapeScope(active)


def np_array(active=True):
    """A ``with`` scope of NumPy array semantics (see `is_np_array`).

    Args:
        active (bool): True (default) turns NumPy array semantics on inside the block,
            False off; the previous state comes back after it.

    Example::

        with mx.np_shape(True), mx.np_array(True):
            net = nn.Dense(2, in_units=3)
            net.initialize()
            type(net.weight.data())         # <class 'gluonlite.numpy.multiarray.ndarray'>
    """
    return _NumpyArrayScope(active)


def _scoped(what, scopes):
    def decorate(func):
        if inspect.isclass(func):
            # every method, static method and property, inherited ones included, as MXNet's
            # decorators wrap them
            for name, member in inspect.getmembers(
                    func, lambda f: inspect.isfunction(f) or inspect.ismethod(f)
                    or isinstance(f, property)):
                if isinstance(member, property):
                    setattr(func, name, property(decorate(member.__get__), member.__set__,
                                                 member.__delattr__, member.__doc__))
                else:
                    setattr(func, name, decorate(member))
            return func
        if not callable(func):
            raise TypeError(f"{what} can only decorate classes and callable objects, got "
                            f"{type(func).__name__}")
        if getattr(func, "_np_scopes", None) == what:
            return func

        @functools.wraps(func)
        def scoped(*args, **kwargs):
            with contextlib.ExitStack() as stack:
                for scope in scopes:
                    stack.enter_context(scope())
                return func(*args, **kwargs)
        scoped._np_scopes = what
        return scoped
    decorate.__name__ = what
    return decorate


use_np_shape = _scoped("use_np_shape", [lambda: np_shape(True)])
use_np_shape.__doc__ = """Decorate a function or class (every method and property) to run
under NumPy shape semantics.

Raises:
    TypeError: `func` is neither a class nor callable.

Example::

    @mx.use_np_shape
    def scalar_one():
        return mx.nd.ones(())       # shape ()
"""
use_np_array = _scoped("use_np_array", [lambda: np_array(True)])
use_np_array.__doc__ = """Decorate a function or class (every method and property) to run
under NumPy array semantics (Gluon creates `mx.np` arrays).

Raises:
    TypeError: `func` is neither a class nor callable.

Example::

    @mx.util.use_np_shape
    @mx.util.use_np_array
    def both_on():
        return mx.util.is_np_array()
    both_on()   # True
"""
use_np = _scoped("use_np", [lambda: np_shape(True), lambda: np_array(True)])
use_np.__doc__ = """Decorate a function or class (every method and property) to run under both
NumPy shape and array semantics (`use_np_shape` and `use_np_array` together).

Raises:
    TypeError: `func` is neither a class nor callable.

Example::

    @mx.util.use_np
    class Net(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.np.sum(x)
    Net()(mx.np.ones((2, 3)))   # array(6.)
"""


_UFUNC_DEFAULTS = {"where": True, "casting": "same_kind", "order": "K", "dtype": None,
                   "subok": True}
_UFUNC_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")
_UFUNC_DTYPES = ("int8", "uint8", "int32", "int64", "float16", "float32", "float64")


def np_ufunc_legal_option(key, value):
    """Whether `value` is a legal value of NumPy ufunc keyword `key` (``where``, ``casting``,
    ``order``, ``dtype``, ``subok``); False for any other key.

    Example::

        mx.util.np_ufunc_legal_option('casting', 'safe')   # True
        mx.util.np_ufunc_legal_option('casting', 'bogus')   # False
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

    Example::

        def negate(x, out=None):
            return -x
        neg = mx.util.wrap_np_unary_func(negate)
        neg(2.0, casting='same_kind')   # -2.0 (a default value is accepted)
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

    Example::

        def add(x1, x2, out=None):
            return x1 + x2
        plus = mx.util.wrap_np_binary_func(add)
        plus(1, 2, where=True)   # 3
    """
    @functools.wraps(func)
    def wrapped(x1, x2, out=None, **kwargs):
        _check_ufunc_kwargs(func.__name__, kwargs)
        return func(x1, x2, out=out)
    return wrapped
