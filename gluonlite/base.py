"""Small shared definitions: the error classes, MXNet's type tuples and small helpers, dtypes
with MXNet's numeric codes, the nested-structure helper, the user's frame, and atomic file
writes."""
import ctypes
import os
import sys
import tempfile

import numpy as np

from .c_api import LIB, SymbolHandle, c_str, c_str_array, mx_uint  # noqa: F401 (MXNet's names)

__all__ = ["MXNetError", "MXNetValueError", "MXNetTypeError", "string_types", "numeric_types",
           "integer_types", "py_str", "DTYPE_CODES", "CODE_DTYPES", "normalize_dtype",
           "dtype_name", "flatten", "unflatten", "structure_str", "user_frame", "write_atomically",
           "NotImplementedForSymbol", "NotSupportedForSparseNDArray", "register_error",
           "error_types", "classproperty", "with_metaclass", "data_dir", "data_dir_default",
           "build_param_doc", "add_fileline_to_docstring"]


class MXNetError(RuntimeError):
    """The faults MXNet's engine reports: an operator given inputs or attributes it cannot
    take, a backward through nothing recorded (or through a freed graph), an unknown operator.

    gluonlite raises its subclasses `MXNetValueError` and `MXNetTypeError` (and
    `gluonlite.ops.registry.ShapeError`), so code written for MXNet that catches
    ``mx.MXNetError`` catches them, and code that catches ValueError or TypeError does too.

    Example::

        try:
            nd.ones((2, 3)) + nd.ones((3, 2))
        except mx.MXNetError as e:    # also a ValueError
            print(e)                  # broadcast_add: shapes (2, 3) and (3, 2) cannot ...
    """


class MXNetValueError(MXNetError, ValueError):
    """An `MXNetError` about a value: shapes that do not fit, an attribute value that does not
    parse, a recorded graph that cannot be differentiated.

    Example::

        try:
            nd.dot(nd.ones((2, 3)), nd.ones((2, 3)))
        except mx.base.MXNetValueError as e:
            print(type(e).__name__)     # ShapeError, an MXNetValueError
    """


class MXNetTypeError(MXNetError, TypeError):
    """An `MXNetError` about a type: a missing or unknown operator attribute, inputs whose
    dtypes must match but do not.

    Example::

        try:
            nd.Activation(nd.ones((2,)))        # act_type is required
        except mx.base.MXNetTypeError as e:
            print(isinstance(e, TypeError))     # True
    """


# Error classes by name, as MXNet's `register_error` keeps them (its C API maps error names in
# messages to classes; here the table only serves code that registers or looks up a class).
error_types = {}


def register_error(func_name=None, cls=None):
    """Register an error class under a name (its own by default); usable as a decorator.

    Args:
        func_name: the name, or the class itself (``@register_error``).
        cls: the class, when `func_name` is a name.

    Returns:
        The class, or a decorator when `cls` is not given.

    Example::

        @mx.base.register_error
        class MyError(mx.MXNetError):
            pass
        mx.base.error_types["MyError"] is MyError    # True
        del mx.base.error_types["MyError"]           # restore the table
    """
    if callable(func_name):
        cls, func_name = func_name, func_name.__name__

    def register(mycls):
        error_types[func_name if isinstance(func_name, str) else mycls.__name__] = mycls
        return mycls
    return register if cls is None else register(cls)


register_error(MXNetError)
register_error("ValueError", MXNetValueError)
register_error("TypeError", MXNetTypeError)


class _OnlyForNDArray(MXNetError):
    """A function available only for dense NDArray; subclasses set ``_unavailable``, the words
    that say where it is missing.

    Args:
        function: the function (its ``__name__`` is reported).
        alias: the operator name behind it, or None.
        *args: the arguments given (their types are reported).
    """

    _unavailable = "is not available"

    def __init__(self, function, alias, *args):
        super().__init__()
        self.function = getattr(function, "__name__", str(function))
        self.alias = alias
        self.args = [str(type(a)) for a in args]

    def __str__(self):
        msg = f"Function {self.function}"
        if self.alias:
            msg += f' (namely operator "{self.alias}")'
        if self.args:
            msg += f" with arguments ({', '.join(self.args)})"
        return f"{msg} {self._unavailable} and only available in NDArray."


@register_error
class NotImplementedForSymbol(_OnlyForNDArray):
    """A function that exists for NDArray but not for Symbol.

    Args:
        function: the function (its ``__name__`` is reported).
        alias: the operator name behind it, or None.
        *args: the arguments given (their types are reported).

    Example::

        from gluonlite.base import NotImplementedForSymbol
        err = NotImplementedForSymbol(mx.sym.Symbol.asnumpy, None)
        print(err)          # names asnumpy as not implemented for Symbol
    """

    _unavailable = "is not implemented for Symbol"


@register_error
class NotSupportedForSparseNDArray(_OnlyForNDArray):
    """A function not available for sparse arrays (gluonlite has none; kept so that code that
    names the class in ``except`` clauses runs).

    Args:
        function: the function (its ``__name__`` is reported).
        alias: the operator name behind it, or None.
        *args: the arguments given (their types are reported).

    Example::

        e = mx.base.NotSupportedForSparseNDArray(nd.dot, None, nd.ones((2,)))
        isinstance(e, mx.MXNetError)    # True
    """

    _unavailable = "is not supported for SparseNDArray"


class classproperty:
    """A read-only property of the class itself (read from the class or an instance).

    Args:
        func (callable): ``func(cls) -> value``, called with the class on each read.

    Example::

        class A:
            @mx.base.classproperty
            def kind(cls):
                return cls.__name__.lower()
        A.kind    # 'a'
    """

    def __init__(self, func):
        self.func = func

    def __get__(self, obj, owner):
        return self.func(owner)


def with_metaclass(meta, *bases):
    """A base class whose metaclass is `meta` (the Python 2/3 idiom MXNet keeps), so that
    ``class A(with_metaclass(Meta, Base))`` makes A with metaclass Meta and bases `bases`.

    Example::

        import abc
        from gluonlite.base import with_metaclass
        class Base(with_metaclass(abc.ABCMeta, object)):
            pass
        type(Base) is abc.ABCMeta       # True
    """
    class _Shim(meta):
        def __new__(cls, name, this_bases, d):
            return meta(name, bases, d)
    return type.__new__(_Shim, "temporary_class", (), {})


def data_dir_default():
    """The default folder for downloaded data and models: ``%APPDATA%/mxnet`` on Windows,
    ``~/.mxnet`` elsewhere (MXNet's, so its caches are shared).

    Example::

        path = mx.base.data_dir_default()   # e.g. '/home/me/.mxnet'
    """
    import platform
    if platform.system() == "Windows":
        return os.path.join(os.environ.get("APPDATA", ""), "mxnet")
    return os.path.join(os.path.expanduser("~"), ".mxnet")


def data_dir():
    """The folder for downloaded data: ``$MXNET_HOME`` when set, else `data_dir_default()`.

    Example::

        path = mx.base.data_dir()      # $MXNET_HOME when set, else e.g. '/home/me/.mxnet'
    """
    return os.getenv("MXNET_HOME", data_dir_default())


def build_param_doc(arg_names, arg_types, arg_descs, remove_dup=True):
    """A numpy-style "Parameters" section from parallel lists of names, types and
    descriptions (MXNet builds operator docstrings with it).

    Args:
        arg_names (list of str): the parameters' names.
        arg_types (list of str): their type strings, aligned with `arg_names`.
        arg_descs (list of str): their descriptions, aligned with `arg_names`.
        remove_dup: keep only the first of parameters with the same name.

    Returns:
        The section as a string.

    Example::

        doc = mx.base.build_param_doc(["x"], ["NDArray"], ["the input"])
        print(doc)          # a "Parameters" section listing x : NDArray
    """
    seen, lines = set(), []
    for name, typ, desc in zip(arg_names, arg_types, arg_descs):
        if remove_dup and name in seen:
            continue
        seen.add(name)
        if name == "num_args":
            continue
        lines.append(f"{name} : {typ}")
        if desc:
            lines.append("    " + desc)
    return "Parameters\n----------\n" + "\n".join(lines) + "\n"


def add_fileline_to_docstring(module, incursive=True):
    r"""Append "From:file:line" to the docstrings of the functions and classes of `module`
    (a module or its name), as MXNet does for its generated code; classes' methods too when
    `incursive`.

    Example::

        import types
        m = types.ModuleType("demo")
        m.f = types.FunctionType(mx.base.py_str.__code__, {})     # a copy of py_str
        m.f.__doc__ = "Doc."
        mx.base.add_fileline_to_docstring(m)
        m.f.__doc__         # 'Doc.\n\nFrom:/.../gluonlite/base.py:<line>'
    """
    import inspect

    def add(obj):
        if obj.__doc__ is None or "From:" in obj.__doc__:
            return
        try:
            fname = inspect.getsourcefile(obj)
            line = inspect.getsourcelines(obj)[-1]
        except (TypeError, OSError):
            return
        try:
            obj.__doc__ += f"\n\nFrom:{fname}:{line}"
        except AttributeError:  # some built-in docstrings are read-only
            pass
    if isinstance(module, str):
        module = sys.modules[module]
    for obj in list(vars(module).values()):
        if inspect.isfunction(obj):
            add(obj)
        elif inspect.isclass(obj) and incursive:
            for m in vars(obj).values():
                if inspect.isfunction(m):
                    add(m)


# MXNet's type tuples, which scripts use in isinstance checks
string_types = (str,)
numeric_types = (float, int, np.generic)
integer_types = (int, np.int32, np.int64)
mx_real_t = np.float32  # MXNet's default real type (its tests import it from base)
# The ctypes type of libmxnet's NDArray handle; libraries import it at module level (GluonNLP's
# calibration collector). gluonlite has no C handles: it exists for those imports.
NDArrayHandle = ctypes.c_void_p
# libmxnet's C functions that MXNet's own Python code calls through ctypes, emulated, and the
# helpers it calls them with (gluonlite.c_api)
_LIB = LIB


def check_call(ret):
    """Raise when a C function's return code is not 0, libmxnet's convention. The functions
    of `_LIB` raise their own errors and return 0, so with them this only checks the 0.

    Args:
        ret: the return code.

    Raises:
        MXNetError: `ret` is not 0.

    Example::

        mx.base.check_call(0)     # None
    """
    if ret != 0:
        raise MXNetError(f"a C API call returned {ret!r}, expected 0")


def py_str(x):
    """`x` as a str: bytes are decoded as UTF-8.

    Example::

        mx.base.py_str(b"relu")         # 'relu'
    """
    return x.decode("utf-8") if isinstance(x, (bytes, bytearray)) else str(x)


def _as_list(obj):
    """`obj` itself when it is a list or a tuple, else ``[obj]`` (MXNet's helper).
    """
    return obj if isinstance(obj, (list, tuple)) else [obj]

# MXNet's type flags, used by its JSON (`__dtype__`) and binary .params files.
DTYPE_CODES = {np.dtype(np.float32): 0, np.dtype(np.float64): 1, np.dtype(np.float16): 2,
               np.dtype(np.uint8): 3, np.dtype(np.int32): 4, np.dtype(np.int8): 5,
               np.dtype(np.int64): 6, np.dtype(np.bool_): 7}
CODE_DTYPES = {v: k for k, v in DTYPE_CODES.items()}


def normalize_dtype(dtype, what="dtype"):
    """Return `dtype` as a numpy dtype among the supported ones.

    Args:
        dtype: a numpy dtype, a type such as ``np.float32``, or a name such as ``'int64'``.
        what: how to name the argument in an error.

    Raises:
        TypeError: the dtype is unknown or unsupported.

    Example::

        mx.base.normalize_dtype("float16")      # dtype('float16')
    """
    try:
        dt = np.dtype(dtype)
    except TypeError as e:
        raise TypeError(f"{what}: unknown dtype {dtype!r}") from e
    if dt not in DTYPE_CODES:
        supported = ", ".join(sorted(d.name for d in DTYPE_CODES))
        raise TypeError(f"{what}: unsupported dtype {dt.name}; expected one of {supported}")
    return dt


def dtype_name(dtype):
    """The numpy name of a dtype ('float32').

    Args:
        dtype: anything `numpy.dtype` takes (a type, a name, a dtype).

    Example::

        mx.base.dtype_name(np.float32)      # 'float32'
        mx.base.dtype_name("int8")          # 'int8'
    """
    return np.dtype(dtype).name


def flatten(obj, is_leaf):
    """Flatten nested lists/tuples into (leaves, spec); `unflatten(leaves, spec)` rebuilds them.

    A leaf is anything `is_leaf` accepts; None is kept as an empty structure.

    Args:
        obj: the nested lists/tuples (or a single leaf, or None).
        is_leaf (callable): ``is_leaf(o) -> bool``: whether `o` is one leaf.

    Returns:
        ``(leaves, spec)``: the leaves in order and the structure `unflatten` rebuilds.

    Raises:
        TypeError: an element that is neither a leaf, None, a list nor a tuple.

    Example::

        from gluonlite.base import flatten, unflatten
        is_leaf = lambda o: isinstance(o, str)
        leaves, spec = flatten(["a", ("b", "c")], is_leaf)  # leaves == ['a', 'b', 'c']
        unflatten(leaves, spec)                             # ['a', ('b', 'c')]
    """
    leaves = []
    return leaves, _walk(obj, is_leaf, leaves)


# Module-level recursion: a nested recursive function would make a reference cycle (function
# -> cell -> function) per call, left for the garbage collector.
def _walk(o, is_leaf, leaves):
    if o is None:
        return None
    if is_leaf(o):
        leaves.append(o)
        return 0
    if isinstance(o, (list, tuple)):
        return (type(o), tuple([_walk(e, is_leaf, leaves) for e in o]))  # hashable: a key
    raise TypeError(f"expected an array or a (nested) list of arrays, got {type(o).__name__}")


def unflatten(leaves, spec):
    """Inverse of `flatten`: put `leaves` back in the structure `spec`.

    Example::

        from gluonlite.base import flatten, unflatten
        leaves, spec = flatten([1, (2, 3)], lambda o: isinstance(o, int))
        unflatten([x * 10 for x in leaves], spec)       # [10, (20, 30)]
    """
    return _build(spec, iter(leaves))


def _build(s, it):
    if s is None:
        return None
    if s == 0:
        return next(it)
    kind, children = s
    return kind(_build(c, it) for c in children)


def structure_str(spec):
    """A readable form of a structure spec: ``[*, (*, *)]`` where * is one array.

    Args:
        spec: the structure spec `flatten` returned (None, 0 for a leaf, or
            ``(kind, children)``).

    Example::

        from gluonlite.base import flatten, structure_str
        leaves, spec = flatten([1, (2, 3)], lambda o: isinstance(o, int))
        structure_str(spec)                 # '[*, (*, *)]'
    """
    if spec is None:
        return "None"
    if spec == 0:
        return "*"
    kind, children = spec
    inner = ", ".join(structure_str(c) for c in children)
    return f"[{inner}]" if kind is list else f"({inner}{',' if len(children) == 1 else ''})"


def user_frame():
    """The innermost frame outside gluonlite that led to the calling function, and the
    `stacklevel` that makes the calling function's ``warnings.warn`` name that frame's line
    (however many gluonlite calls lie between). The frame is None when there is none.

    Example::

        from gluonlite.base import user_frame
        frame, level = user_frame()     # the frame outside gluonlite, and its stacklevel
    """
    f, level = sys._getframe(2), 2
    while f is not None and f.f_globals.get("__name__", "").startswith("gluonlite"):
        f, level = f.f_back, level + 1
    return f, level


def write_atomically(fname, data):
    """Write `data` (bytes, or a str written as UTF-8) to `fname` through a temporary file in
    the same folder renamed into place, so a failure never leaves a half-written file.

    Raises:
        OSError: the folder cannot be written (the temporary file is removed).

    Example::

        mx.base.write_atomically("note.txt", "hello")
        open("note.txt").read()         # 'hello'
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    d = os.path.dirname(os.path.abspath(fname))
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-", suffix="-" + os.path.basename(fname))
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, fname)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
