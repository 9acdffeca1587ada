"""Small shared definitions: the error classes, MXNet's type tuples and small helpers, dtypes
with MXNet's numeric codes, the nested-structure helper, the user's frame, and atomic file
writes."""
import os
import sys
import tempfile

import numpy as np

__all__ = ["MXNetError", "MXNetValueError", "MXNetTypeError", "string_types", "numeric_types",
           "integer_types", "py_str", "DTYPE_CODES", "CODE_DTYPES", "normalize_dtype",
           "dtype_name", "flatten", "unflatten", "structure_str", "user_frame", "write_atomically"]


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
    parse, a recorded graph that cannot be differentiated."""


class MXNetTypeError(MXNetError, TypeError):
    """An `MXNetError` about a type: a missing or unknown operator attribute, inputs whose
    dtypes must match but do not."""


# MXNet's type tuples, which scripts use in isinstance checks
string_types = (str,)
numeric_types = (float, int, np.generic)
integer_types = (int, np.int32, np.int64)


def py_str(x):
    """`x` as a str: bytes are decoded as UTF-8. Example: ``py_str(b"relu") == "relu"``."""
    return x.decode("utf-8") if isinstance(x, (bytes, bytearray)) else str(x)


def _as_list(obj):
    """`obj` itself when it is a list or a tuple, else ``[obj]`` (MXNet's helper).

    Example: ``_as_list(x) == [x]``; ``_as_list((a, b)) == (a, b)``.
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

    Example: ``normalize_dtype('float16') == np.dtype('float16')``.
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
    """The numpy name of a dtype ('float32')."""
    return np.dtype(dtype).name


def flatten(obj, is_leaf):
    """Flatten nested lists/tuples into (leaves, spec); `unflatten(leaves, spec)` rebuilds them.

    A leaf is anything `is_leaf` accepts; None is kept as an empty structure.

    Example::

        leaves, spec = flatten([a, (b, c)], is_leaf)   # leaves == [a, b, c]
        unflatten(leaves, spec)                        # [a, (b, c)]

    Raises:
        TypeError: an element that is neither a leaf, None, a list nor a tuple.
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
    """Inverse of `flatten`: put `leaves` back in the structure `spec`."""
    return _build(spec, iter(leaves))


def _build(s, it):
    if s is None:
        return None
    if s == 0:
        return next(it)
    kind, children = s
    return kind(_build(c, it) for c in children)


def structure_str(spec):
    """A readable form of a structure spec: ``[*, (*, *)]`` where * is one array."""
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

    Example: ``warnings.warn("...", stacklevel=user_frame()[1])``.
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

    Example: ``write_atomically("net-symbol.json", text)``.
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
