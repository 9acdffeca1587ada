"""The few of libmxnet's C functions that MXNet's Python-level code calls through ctypes
(``mxnet.base._LIB.MXSetSubgraphPropertyOpNamesV2(...)``), and the ctypes helpers it calls
them with (`c_str`, `c_str_array`, `mx_uint`, `SymbolHandle`; `gluonlite.base` has them all,
with `check_call`, under MXNet's names).

gluonlite has no libmxnet. `LIB` (``mxnet.base._LIB``) is a table of Python functions under
libmxnet's names: each takes the ctypes arguments MXNet's callers pass, does the work on
gluonlite's objects, and returns 0, as the C function returns on success; a failure raises
at once, naming the function, where libmxnet would return -1 for ``check_call`` to raise. The
layers that own the work register their functions when they load (`register`), so this
module, at the bottom with `base`, imports nothing of gluonlite. A name that is not in the table
raises AttributeError naming it and listing the ones that are.

A handle that a function returns through ``ctypes.byref(out)`` is an opaque number standing
for a gluonlite object until the caller wraps it (``Symbol(out)`` takes it back, `take`). An
NDArray has a handle too, for as long as it lives: the number ctypes reads from it
(``ctypes.cast(array, NDArrayHandle)``, as MXNet's monitor callbacks do, `handle_of`), which
``NDArray(handle)`` turns back into the array (`lookup`).

Example::

    import ctypes
    from gluonlite import sym
    from gluonlite.base import _LIB, SymbolHandle, check_call, c_str, c_str_array, mx_uint
    y = sym.tanh(sym.exp(sym.var('x')))
    out = SymbolHandle()
    check_call(_LIB.MXBuildSubgraphByOpNames(y.handle, c_str('default'), mx_uint(1),
                                             c_str_array(['exp']), ctypes.byref(out)))
    '_default_subgraph_op' in sym.Symbol(out).tojson()   # True: exp runs in a subgraph node
"""
import ctypes
import itertools
import weakref

__all__ = ["LIB", "register", "c_str", "c_str_array", "mx_uint", "SymbolHandle",
           "new_handle", "take", "handle_of", "lookup", "text", "texts"]

mx_uint = ctypes.c_uint
SymbolHandle = ctypes.c_void_p


def c_str(string):
    """`string` as a C string (``ctypes.c_char_p``, UTF-8).

    Example::

        mx.base.c_str('relu').value       # b'relu'
    """
    return ctypes.c_char_p(string.encode("utf-8"))


def c_str_array(strings):
    """`strings` as a C array of C strings (``ctypes.c_char_p * len``, UTF-8).

    Example::

        list(mx.base.c_str_array(['exp', 'tanh']))    # [b'exp', b'tanh']
    """
    encoded = [s.encode("utf-8") for s in strings]
    return (ctypes.c_char_p * len(encoded))(*encoded)


def text(arg, what):
    """A C string argument as str.

    Args:
        arg: a ``c_char_p``, bytes or str.
        what: the argument's name for the error (``"MXFoo: prop_name"``).

    Returns:
        str.

    Raises:
        TypeError: `arg` is none of those.

    Example::

        from gluonlite import c_api
        c_api.text(c_api.c_str('default'), 'backend')    # 'default'
    """
    value = arg.value if isinstance(arg, ctypes.c_char_p) else arg
    if isinstance(value, (bytes, bytearray)):
        return value.decode("utf-8")
    if isinstance(value, str):
        return value
    raise TypeError(f"{what}: expected a C string (c_str(...)), got {type(arg).__name__}")


def texts(count, array, what):
    """The first `count` entries of a C string array as strs.

    Args:
        count: how many, an int or ``mx_uint``.
        array: the array (`c_str_array`); may be None when `count` is 0.
        what: the argument's name for errors.

    Returns:
        list of str.

    Raises:
        TypeError: `count` is not a count, the array is missing or holds no C strings.

    Example::

        from gluonlite import c_api
        c_api.texts(c_api.mx_uint(2), c_api.c_str_array(['a', 'b']), 'op_names')  # ['a', 'b']
    """
    n = count.value if isinstance(count, ctypes._SimpleCData) else count
    if not isinstance(n, int) or n < 0:
        raise TypeError(f"{what}: expected a count (mx_uint), got {count!r}")
    if n and array is None:
        raise TypeError(f"{what}: {n} names expected, got no array")
    return [text(array[i], f"{what}[{i}]") for i in range(n)]


_HANDLES = {}
_NEXT = itertools.count(1)


def new_handle(obj, out):
    """Store `obj` under a new handle and write it into ``out`` (``ctypes.byref`` of a
    ``c_void_p``, or the ``c_void_p`` itself), as a C function returns a handle.

    Raises:
        TypeError: `out` is not a (reference to a) ``c_void_p``.

    Example::

        from gluonlite import c_api
        h = c_api.SymbolHandle()
        c_api.new_handle('anything', ctypes.byref(h))
        c_api.take(h)                     # 'anything'
    """
    target = getattr(out, "_obj", out)
    if not isinstance(target, ctypes.c_void_p):
        raise TypeError(f"expected ctypes.byref(a c_void_p handle) for the output, got "
                        f"{type(out).__name__}")
    key = next(_NEXT)
    _HANDLES[key] = obj
    target.value = key


def take(handle):
    """The object a C function returned under `handle` (a ``c_void_p`` or its value); the
    handle is then spent.

    Raises:
        ValueError: no object stands under `handle` (never returned, or taken already).

    Example::

        from gluonlite import c_api
        h = c_api.SymbolHandle()
        c_api.new_handle(3, h)
        c_api.take(h.value)               # 3
    """
    key = handle.value if isinstance(handle, ctypes.c_void_p) else handle
    try:
        return _HANDLES.pop(key)
    except KeyError:
        raise ValueError(f"handle {key!r} stands for no object: it was not returned by one of "
                         "gluonlite's emulated C functions, or it was used already") from None


_SHARED = weakref.WeakValueDictionary()  # handle: a live object that gave it out


def handle_of(obj):
    """The handle standing for `obj` while it lives (the same each time it is asked).

    Args:
        obj: an object that can be weakly referenced (an NDArray).

    Returns:
        int: the handle, for a ``c_void_p``.

    Example::

        from gluonlite import c_api
        x = nd.ones((2,))
        c_api.lookup(ctypes.c_void_p(c_api.handle_of(x))) is x     # True
    """
    _SHARED[id(obj)] = obj
    return id(obj)


def lookup(handle):
    """The object a handle from `handle_of` stands for (a ``c_void_p`` or its value) while
    it lives.

    Raises:
        ValueError: no object stands under `handle`.

    Example::

        from gluonlite import c_api
        x = nd.ones((2,))
        c_api.lookup(c_api.handle_of(x)) is x       # True
    """
    key = handle.value if isinstance(handle, ctypes.c_void_p) else handle
    obj = _SHARED.get(key)
    if obj is None:
        raise ValueError(f"handle {key!r} stands for no object: it was not given out by "
                         "gluonlite, or its object is gone")
    return obj


class _Library:
    """libmxnet's C functions that gluonlite emulates, as attributes (see the module)."""

    def __init__(self):
        self._functions = {}

    def __getattr__(self, name):
        functions = self.__dict__.get("_functions", {})
        try:
            return functions[name]
        except KeyError:
            raise AttributeError(
                f"libmxnet's C function {name!r} is not available: gluonlite has no libmxnet "
                f"and emulates only {', '.join(sorted(functions)) or 'none'}") from None

    def __dir__(self):
        return sorted(self._functions)


LIB = _Library()


def register(fn):
    """Add `fn` to `LIB` under its own name (libmxnet's name for the C function it emulates);
    returns `fn`. `fn` takes the C function's ctypes arguments and returns 0.

    Example::

        from gluonlite import c_api

        @c_api.register
        def MXExampleNoop():
            return 0

        mx.base._LIB.MXExampleNoop()      # 0
    """
    LIB._functions[fn.__name__] = fn
    return fn
