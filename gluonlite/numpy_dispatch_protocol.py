"""`mx.numpy_dispatch_protocol`: which official NumPy functions and ufuncs dispatch to
`mx.np` when given `mx.np` arrays (the lists MXNet 1.9.1 registers;
`gluonlite.numpy.interop` does the dispatching), and the decorators MXNet's tests use to
run a check only where NumPy has the protocols.

Example::

    from gluonlite.numpy_dispatch_protocol import _NUMPY_ARRAY_FUNCTION_LIST
    'sum' in _NUMPY_ARRAY_FUNCTION_LIST   # True
"""
import functools

import numpy as _onp

from .numpy.interop import ARRAY_FUNCTIONS, ARRAY_UFUNCS

__all__ = ["with_array_function_protocol", "with_array_ufunc_protocol",
           "_NUMPY_ARRAY_FUNCTION_LIST", "_NUMPY_ARRAY_UFUNC_LIST"]



def _in_numpy(name):
    mod = _onp
    for part in name.split("."):
        mod = getattr(mod, part, None)
        if mod is None:
            return False
    return True


# MXNet's lists, less the names the installed NumPy no longer has (NumPy 2 removed
# ``sometrue``, ...): those functions cannot dispatch to anything
_NUMPY_ARRAY_FUNCTION_LIST = [n for n in ARRAY_FUNCTIONS if _in_numpy(n)]
_NUMPY_ARRAY_UFUNC_LIST = [n for n in ARRAY_UFUNCS if _in_numpy(n)]


def _protocol(func, what):
    @functools.wraps(func)
    def run(*args, **kwargs):
        try:
            func(*args, **kwargs)
        except Exception as e:
            raise RuntimeError(f"Running function {func.__name__} with NumPy array {what} "
                               f"protocol failed with exception {e}") from e
    return run


def with_array_function_protocol(func):
    """Run `func` (NumPy >= 1.17 always has the array function protocol); an exception
    inside becomes a RuntimeError naming `func`, as MXNet's decorator reports it.

    Args:
        func: the function to wrap (a test, typically).

    Returns:
        A function of `func`'s arguments that returns its result.

    Raises:
        RuntimeError: (from the returned function) any exception `func` raises, chained.

    Example::

        from gluonlite.numpy_dispatch_protocol import with_array_function_protocol
        def check():
            assert np.sum(mx.np.ones(3)) == 3
        with_array_function_protocol(check)()  # passes; a failure would raise RuntimeError
    """
    return _protocol(func, "function")


def with_array_ufunc_protocol(func):
    """Run `func` (NumPy >= 1.15 always has the ufunc protocol); an exception inside becomes
    a RuntimeError naming `func`.

    Args:
        func: the function to wrap (a test, typically).

    Returns:
        A function of `func`'s arguments that returns its result.

    Raises:
        RuntimeError: (from the returned function) any exception `func` raises, chained.

    Example::

        from gluonlite.numpy_dispatch_protocol import with_array_ufunc_protocol
        def check():
            assert (np.add(mx.np.ones(2), 1) == 2).all()
        with_array_ufunc_protocol(check)()  # passes; a failure would raise RuntimeError
    """
    return _protocol(func, "ufunc")
