"""A stand-in for CuPy's array module, so the `gpu` code paths run (and are checked) on a
machine without a GPU.

`MODULE` answers to the names CuPy 14.2 has (`fixtures/cupy_names.json`, read off the real
wheel) and computes with numpy underneath, on `DeviceArray`s that hold a numpy array. What
makes it a useful check is what a device array refuses, as CuPy's do or stricter:

- implicit conversion to numpy (``np.asarray(d)``, ``__array__``), and implicit host reads
  (``float(d)``, ``int(d)``, ``bool(d)``, ``d.__index__()``): a kernel or a loop step that
  reads a device value on the host raises instead of silently copying (CuPy syncs there);
- numpy arrays mixed into device operations (``d + np_array``, ``xp.where(np_mask, ...)``,
  ``d[...] = np_array``): CuPy raises there too;
- names CuPy does not have (``xp.errstate``), on the module and on arrays.

numpy functions called on device arrays dispatch to the module, as CuPy's
``__array_function__``/``__array_ufunc__`` do. The explicit copies (``.get()``, ``.item()``,
``.tolist()``, ``MODULE.asnumpy``) are allowed and counted in ``MODULE.stats``, as are
uploads (``asarray`` of host data) and device synchronizations, so a test can pin how many a
code path makes.

Example::

    import fakecupy
    xp = fakecupy.MODULE
    d = xp.asarray(np.ones(3, np.float32))
    (d * 2).sum().get()        # array(6., dtype=float32); stats['host_copies'] == 1
    float(d.sum())             # TypeError: implicit host read
"""
import copy
import functools
import json
import os
import types

import numpy as np

_NAMES = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures",
                                     "cupy_names.json"), encoding="utf-8"))
MODULE_NAMES = frozenset(_NAMES["module"])
ARRAY_NAMES = frozenset(_NAMES["ndarray"])

# Module functions that take host data and upload it (the explicit host-to-device copies).
_UPLOADS = frozenset({"asarray", "array", "asanyarray"})
# Array methods that are explicit device-to-host copies.
_HOST_READS = frozenset({"item", "tolist", "tobytes"})


class HostCopyError(TypeError):
    """A device array was read on the host implicitly (or mixed with a host array)."""


def _refuse(what):
    raise HostCopyError(
        f"fakecupy: {what}; on a GPU this is a silent copy to or from the host. Copy "
        "explicitly (NDArray.asnumpy(), .get(), xp.asarray(host_array)) or compute with the "
        "array module (ctx.xp).")


def _unwrap(v, where):
    """The numpy value behind `v` for a computation (device arrays unwrapped, lists and
    tuples walked); a host numpy array with more than one element is refused."""
    if type(v) is DeviceArray:
        return v._a
    if isinstance(v, np.ndarray):
        if v.ndim:
            _refuse(f"a host numpy array of shape {v.shape} was passed to {where}")
        return v
    if isinstance(v, (list, tuple)):
        return type(v)(_unwrap(x, where) for x in v)
    return v


def _wrap(v):
    """Device arrays for numpy results (numpy scalars become 0-d arrays, as CuPy's
    reductions give)."""
    if isinstance(v, np.ndarray):
        return DeviceArray(v)
    if isinstance(v, np.generic):
        return DeviceArray(np.asarray(v))
    if isinstance(v, tuple):
        return tuple(_wrap(x) for x in v)
    if isinstance(v, list):
        return [_wrap(x) for x in v]
    return v


def _call(fn, where, args, kwargs):
    if _Fusing.depth:
        if not isinstance(fn, np.ufunc):
            _fusing_refuses(f"{where} (not a ufunc)")
    else:
        MODULE.stats["calls"] += 1
    args = [_unwrap(a, where) for a in args]
    kwargs = {k: _unwrap(v, where) for k, v in kwargs.items()}
    return _wrap(_run(fn, args, kwargs))


# ---- stream capture: recorded, replayed -----------------------------------------------------
class CaptureError(RuntimeError):
    """What CUDA answers to a host sync (or a copy from pageable host memory) on a capturing
    stream (cudaErrorStreamCaptureUnsupported)."""


class _State:
    """The current stream, the capture under way (at most one), the allocator in use."""
    current = None
    capture = None
    allocator = None


def _refuse_in_capture(what):
    if _State.capture is not None:
        raise CaptureError(f"fakecupy: {what} while a stream is capturing: operation not "
                           "permitted when stream is capturing")


def _fresh(res, ins):
    """Whether numpy result `res` is a new array (shares memory with no input)."""
    return isinstance(res, np.ndarray) and not any(
        isinstance(a, np.ndarray) and np.may_share_memory(res, a) for a in ins)


def _into(res, new):
    """A replayed operation's result written where the captured one lies."""
    if isinstance(res, np.ndarray) and isinstance(new, (np.ndarray, np.generic)):
        if isinstance(new, np.generic) or not np.may_share_memory(res, new):
            res[...] = new
    elif isinstance(res, (tuple, list)) and isinstance(new, (tuple, list)):
        for r, n in zip(res, new):
            _into(r, n)


def _run(fn, args, kwargs):
    """`fn(*args, **kwargs)` on numpy values; under a capture (outside a fused body) it is
    also recorded, to be run again by the graph's launches, its new arrays kept where they
    lie (allocated from the capture's allocator, which must not be the default pool: the
    fake's check of the memory a graph may be handed)."""
    cap = _State.capture
    if cap is None:
        return fn(*args, **kwargs)
    with np.errstate(all="ignore"):  # garbage read at a capture is garbage on a GPU too
        res = fn(*args, **kwargs)
    if isinstance(res, np.generic):  # a reduction's result is a 0-d device array in CuPy
        res = np.asarray(res)
    if not _Fusing.depth:
        # a bound method's array is an input too (a view of it is no new array)
        ins = list(args) + list(kwargs.values()) + [getattr(fn, "__self__", None)]
        outs = res if isinstance(res, tuple) else (res,)
        fresh = [r for r in outs if _fresh(r, ins)]
        if fresh and _State.allocator is None:
            raise CaptureError("fakecupy: an array was allocated from the default memory "
                               "pool during a capture: memory a graph writes could be "
                               "handed to another array (capture with a pool of its own: "
                               "cupy.cuda.using_allocator(pool.malloc))")
        MODULE.stats["pool_allocs"] += len(fresh)
        cap.fresh.extend(fresh)
        cap.ops.append(lambda: _into(res, fn(*args, **kwargs)))
    return res


class _Capture:
    """What a stream captured: operations to run again, the arrays they made."""

    def __init__(self, stream):
        self.stream, self.ops, self.fresh = stream, [], []


class _Graph:
    """A captured graph: `launch` runs its operations again (counted in
    ``stats['graph_launches']``), writing where the capture's arrays lie."""

    def __init__(self, ops):
        self.ops = ops

    def launch(self, stream=None):
        """Run the captured operations (on the given or current stream)."""
        _refuse_in_capture("a graph launch")
        MODULE.stats["graph_launches"] += 1
        for op in self.ops:
            op()

    def upload(self, stream=None):
        """Nothing to upload on the host."""


def _poison(a):
    """Fill an array a capture made with garbage: nothing runs during a capture on a GPU, so
    a value read before the graph is launched is garbage there too."""
    if a.dtype.kind == "f":
        a[...] = np.nan
    elif a.dtype.kind in "iu":
        a[...] = np.iinfo(a.dtype).max


class DeviceArray:
    """An array "on the device": a numpy array that refuses implicit host reads (see the
    module docstring). Arithmetic, indexing and the CuPy ndarray methods work as numpy's."""

    __slots__ = ("_a",)
    __array_priority__ = 2000.0

    def __init__(self, a):
        self._a = a

    # ---- what CuPy refuses, or what is a silent sync there -------------------------------
    def __array__(self, dtype=None, copy=None):
        _refuse("a device array was converted to numpy implicitly (__array__)")

    def __float__(self):
        _refuse("float() of a device array")

    def __int__(self):
        _refuse("int() of a device array")

    def __index__(self):
        _refuse("a device array was used as a Python index")

    def __bool__(self):
        _refuse("bool() of a device array (an `if` or `while` on a device value)")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        fn = getattr(MODULE, ufunc.__name__)
        if method != "__call__":
            fn = getattr(fn, method)
        return fn(*inputs, **kwargs)

    def __array_function__(self, func, types_, args, kwargs):
        if func.__name__ not in MODULE_NAMES:
            return NotImplemented
        return getattr(MODULE, func.__name__)(*args, **kwargs)

    # ---- array protocol -------------------------------------------------------------------
    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    strides = property(lambda self: self._a.strides)
    itemsize = property(lambda self: self._a.itemsize)
    nbytes = property(lambda self: self._a.nbytes)
    flags = property(lambda self: self._a.flags)
    T = property(lambda self: DeviceArray(self._a.T))

    @property
    def base(self):
        return None if self._a.base is None else DeviceArray(self._a.base)

    @property
    def data(self):
        """Where the array lies (``.ptr``), as cupy.ndarray.data's MemoryPointer."""
        return types.SimpleNamespace(ptr=self._a.__array_interface__["data"][0])

    def get(self, stream=None, order="C", out=None):
        """The explicit copy to the host (counted), as cupy.ndarray.get."""
        _refuse_in_capture("cupy.ndarray.get() (a copy to the host)")
        MODULE.stats["host_copies"] += 1
        return self._a.copy()

    def __getattr__(self, name):
        if name not in ARRAY_NAMES:
            raise AttributeError(f"fakecupy: cupy.ndarray has no attribute {name!r}")
        if name not in ("copy", "astype"):
            _fusing_refuses(f"the array method {name!r}")
        attr = getattr(self._a, name)
        if name in _HOST_READS:
            _refuse_in_capture(f"cupy.ndarray.{name}() (a copy to the host)")
            MODULE.stats["host_copies"] += 1
            return attr
        if not callable(attr):
            return _wrap(attr)
        return lambda *args, **kwargs: _call(attr, f"cupy.ndarray.{name}", args, kwargs)

    def __len__(self):
        return len(self._a)

    def __iter__(self):
        return (_wrap(row) for row in self._a)

    def __getitem__(self, key):
        _fusing_refuses("indexing")
        return _wrap(_run(self._a.__getitem__, [_key(key)], {}))

    def __setitem__(self, key, value):
        if _Fusing.depth and not (key is Ellipsis or key == slice(None)):
            _fusing_refuses(f"an assignment to x[{key!r}] (only x[...] = value)")
        if not _Fusing.depth:
            MODULE.stats["calls"] += 1
        _run(self._a.__setitem__, [_key(key), _unwrap(value, "__setitem__")], {})

    def __repr__(self):
        return f"fakecupy.DeviceArray({self._a!r})"

    def __copy__(self):
        return DeviceArray(self._a.copy())

    def __deepcopy__(self, memo):
        return DeviceArray(copy.deepcopy(self._a, memo))

    __hash__ = None


def _key(key):
    """An index with device arrays unwrapped (host index arrays are uploaded by CuPy)."""
    if type(key) is DeviceArray:
        return key._a
    if isinstance(key, tuple):
        return tuple(k._a if type(k) is DeviceArray else k for k in key)
    return key


def _binary(name):
    def method(self, other):
        if not _Fusing.depth:
            MODULE.stats["calls"] += 1
        return _wrap(_run(getattr(self._a, name), [_unwrap(other, f"the operator {name}")],
                          {}))
    method.__name__ = name
    return method


def _inplace(name):
    def method(self, other):
        if not _Fusing.depth:
            MODULE.stats["calls"] += 1
        _run(getattr(self._a, name), [_unwrap(other, f"the operator {name}")], {})
        return self
    method.__name__ = name
    return method


def _unary(name):
    def method(self):
        if not _Fusing.depth:
            MODULE.stats["calls"] += 1
        return _wrap(_run(getattr(self._a, name), [], {}))
    method.__name__ = name
    return method


for _op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or",
            "xor", "lshift", "rshift"):
    setattr(DeviceArray, f"__{_op}__", _binary(f"__{_op}__"))
    setattr(DeviceArray, f"__r{_op}__", _binary(f"__r{_op}__"))
    setattr(DeviceArray, f"__i{_op}__", _inplace(f"__i{_op}__"))
for _op in ("lt", "le", "gt", "ge", "eq", "ne"):
    setattr(DeviceArray, f"__{_op}__", _binary(f"__{_op}__"))
for _op in ("neg", "pos", "abs", "invert"):
    setattr(DeviceArray, f"__{_op}__", _unary(f"__{_op}__"))
del _op


# ---- the module -------------------------------------------------------------------------
class _Stream:
    """A CUDA stream (``cupy.cuda.Stream``): current inside ``with`` or after `use`;
    `synchronize` is counted; `begin_capture`/`end_capture` record the operations run on it
    into a `_Graph` (the default stream cannot capture, as in CuPy), refusing host reads
    meanwhile."""

    null = None  # set below: the legacy default stream

    def __init__(self, null=False, non_blocking=False, ptds=False, priority=None):
        self.ptr = 0 if null else id(self)
        self._capture = None
        self._old = []

    def synchronize(self):
        _refuse_in_capture("a stream synchronize")
        MODULE.stats["syncs"] += 1

    def use(self):
        _State.current = self
        return self

    def __enter__(self):
        self._old.append(_State.current)
        _State.current = self
        return self

    def __exit__(self, *exc):
        _State.current = self._old.pop()

    def begin_capture(self, mode=None):
        """Start recording what runs on this stream."""
        if self.ptr == 0:
            raise RuntimeError("cannot capture on the default (legacy) stream")
        if _State.capture is not None:
            raise CaptureError("fakecupy: a capture is under way already")
        if _State.current is not self:
            raise CaptureError("fakecupy: capture the current stream (the fake records what "
                               "runs on the current stream)")
        self._capture = _State.capture = _Capture(self)

    def end_capture(self):
        """The graph of what ran since `begin_capture`; the arrays it made hold garbage
        until it is launched (as on a GPU, where nothing ran)."""
        cap = self._capture
        if cap is None:
            raise CaptureError("fakecupy: end_capture without begin_capture")
        self._capture = _State.capture = None
        for a in cap.fresh:
            _poison(a)
        MODULE.stats["captures"] += 1
        return _Graph(cap.ops)

    def is_capturing(self):
        return self._capture is not None


class _Device:
    """A CUDA device (id 0 only): `synchronize` is counted; `use` and `with` do nothing."""

    def __init__(self, device=0):
        if int(device) != 0:
            raise ValueError(f"fakecupy: only device 0 exists, got {device}")
        self.id = 0

    def synchronize(self):
        _refuse_in_capture("a device synchronize")
        MODULE.stats["syncs"] += 1

    def use(self):
        return None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None


class _MemoryPool:
    """``cupy.cuda.MemoryPool``: its `malloc` is an allocator for `using_allocator`."""

    def malloc(self, size):
        return None

    def used_bytes(self):
        return 0

    def free_all_blocks(self, stream=None):
        return None


class _using_allocator:
    """``cupy.cuda.using_allocator``: arrays made inside come from `allocator`."""

    def __init__(self, allocator=None):
        self.allocator = allocator

    def __enter__(self):
        self._old, _State.allocator = _State.allocator, self.allocator
        return self

    def __exit__(self, *exc):
        _State.allocator = self._old


_NULL_STREAM = _Stream(null=True)
_Stream.null = _NULL_STREAM
_State.current = _NULL_STREAM
_cuda = types.SimpleNamespace(
    runtime=types.SimpleNamespace(getDeviceCount=lambda: 1),
    Stream=_Stream,
    get_current_stream=lambda: _State.current,
    Device=_Device,
    MemoryPool=_MemoryPool,
    using_allocator=_using_allocator,
)


def _asnumpy(a, stream=None, order="C", out=None):
    """cupy.asnumpy: the explicit copy to the host (counted)."""
    if type(a) is DeviceArray:
        _refuse_in_capture("cupy.asnumpy (a copy to the host)")
        MODULE.stats["host_copies"] += 1
        return a._a.copy()
    return np.asarray(a)


def _upload(fn):
    @functools.wraps(fn)
    def upload(obj, *args, **kwargs):
        if type(obj) is DeviceArray:
            return _wrap(_run(fn, [obj._a, *args], kwargs))
        _refuse_in_capture("a copy from host memory (cupy.asarray of host data)")
        if isinstance(obj, np.ndarray) or isinstance(obj, (list, tuple)):
            MODULE.stats["uploads"] += 1
        return DeviceArray(np.asarray(fn(obj, *args, **kwargs)))
    return upload


class _Fusing:
    """Whether a fused function is being run (its body must be what ``cupy.fuse`` compiles)."""
    depth = 0


def _fusing_refuses(what):
    if _Fusing.depth:
        raise TypeError(f"fakecupy: cupy.fuse compiles elementwise ufuncs, operators and "
                        f"`x[...] = value` only; {what} inside a fused function")


class _Fused:
    """A function made by ``fuse``: called with device arrays, it runs as ONE kernel
    (counted in ``stats['fused']``, by kernel name in ``stats['fused_names']``) after the
    checks CuPy's fusion makes: every argument a device array, a Python or numpy scalar or
    None, and a body of ufuncs, operators and ``x[...] = value`` (anything else raises
    TypeError here, where CuPy would refuse to compile it). Overflow in it does not warn, as
    CuPy's kernels do not. Called without a device array it is the plain function, as
    CuPy's."""

    def __init__(self, fn, name):
        self.fn, self.name = fn, name

    def __call__(self, *args):
        if not any(type(a) is DeviceArray for a in args):
            return self.fn(*args)
        for a in args:
            if not (a is None or type(a) is DeviceArray or
                    isinstance(a, (bool, int, float, complex, np.generic))):
                raise TypeError(f"fakecupy: invalid argument type for fused {self.name!r}: "
                                f"{type(a).__name__}")
        MODULE.stats["fused"] += 1
        MODULE.stats["fused_names"][self.name] = MODULE.stats["fused_names"].get(
            self.name, 0) + 1
        if _State.capture is not None and not _Fusing.depth:
            _State.capture.ops.append(lambda: self._body(args))
        return self._body(args)

    def _body(self, args):
        _Fusing.depth += 1
        try:
            with np.errstate(all="ignore"):
                return self.fn(*args)
        finally:
            _Fusing.depth -= 1


def _fuse(*args, **kwargs):
    """cupy.fuse: `_Fused` (the math of the fused function, run by numpy, with CuPy's
    restrictions on what a fused body may do; its compilation only a GPU run checks)."""
    if args and callable(args[0]) and len(args) == 1 and not kwargs:
        return _Fused(args[0], getattr(args[0], "__name__", "fused"))
    name = kwargs.get("kernel_name")
    return lambda fn: _Fused(fn, name or getattr(fn, "__name__", "fused"))


def _get_array_module(*args):
    return MODULE if any(type(a) is DeviceArray for a in args) else np


def _wrap_function(name, fn):
    if name in _UPLOADS:
        return _upload(fn)
    wrapped = functools.partial(_call, fn, f"cupy.{name}")

    def call(*args, **kwargs):
        return wrapped(args, kwargs)
    call.__name__ = name
    if isinstance(fn, np.ufunc):  # reduce/accumulate/outer/at as CuPy's ufuncs have them
        for method in ("reduce", "accumulate", "outer", "at"):
            setattr(call, method, functools.partial(
                _method_call, getattr(fn, method), f"cupy.{name}.{method}"))
    return call


def _method_call(fn, where, *args, **kwargs):
    return _call(fn, where, args, kwargs)


class _Module(types.ModuleType):
    """The fake `cupy` module: CuPy's names, computed by numpy (see the module docstring)."""

    def __getattr__(self, name):
        if name not in MODULE_NAMES:
            raise AttributeError(f"fakecupy: module 'cupy' has no attribute {name!r}")
        value = getattr(np, name)
        if isinstance(value, types.ModuleType):  # cupy.linalg, cupy.fft: numpy's, wrapped
            value = _SubModule(name, value)
        elif callable(value) and not isinstance(value, type):
            value = _wrap_function(name, value)
        setattr(self, name, value)  # looked up once
        return value


class _SubModule:
    """A submodule of the fake module (``cupy.linalg``, ``cupy.fft``): numpy's functions of
    that submodule, called on the numpy arrays behind device arrays as the module's are."""

    def __init__(self, name, module):
        self._name, self._module = name, module

    def __getattr__(self, name):
        value = getattr(self._module, name)
        if callable(value) and not isinstance(value, type):
            value = _wrap_function(f"{self._name}.{name}", value)
        setattr(self, name, value)
        return value


MODULE = _Module("fakecupy", "CuPy's array module, faked on numpy (tests only)")
MODULE.__version__ = "14.2.0-fake"
MODULE.stats = {"host_copies": 0, "uploads": 0, "syncs": 0, "calls": 0, "fused": 0,
                "fused_names": {}, "captures": 0, "graph_launches": 0, "pool_allocs": 0}
MODULE.ndarray = DeviceArray
MODULE.cuda = _cuda
MODULE.asnumpy = _asnumpy
MODULE.fuse = _fuse
MODULE.get_array_module = _get_array_module


def reset_stats():
    """Zero the counters in `MODULE.stats`."""
    for k in MODULE.stats:
        MODULE.stats[k] = {} if k == "fused_names" else 0
