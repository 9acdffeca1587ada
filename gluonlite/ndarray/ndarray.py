"""`NDArray`: an array on a context, with MXNet 1.x semantics and autograd support."""
import ctypes

import numpy as np

from .. import autograd_tape, c_api
from ..base import MXNetTypeError, MXNetValueError, normalize_dtype
from ..context import Context, current_context, synchronize, cpu
from ..ops.fluent import reshape_shape, transpose_axes
from ..ops.shape import reshape_target
from ..ops.missing_names import class_module_attribute
from .invoke import install_array_type, plan_for, run_plan
from ..ops import registry
from ..ops.registry import get
from ..util import is_np_shape

__all__ = ["NDArray", "array", "empty", "from_numpy", "check_grad_req", "check_stype"]

# MXNet's name for the builtin (its indexing code and tests import it from here)
py_slice = slice

_GRAD_REQS = ("write", "add", "null")
# MXNet's words for this refusal; its tests look for them in the message
_INPLACE_RECORDING = ("(Inplace operations (+=, -=, x[:]=, etc) are not supported when "
                      "recording with autograd.)")
_SPARSE_STYPES = ("row_sparse", "csr")
# What the modules of this package built on NDArray put here when they load, for NDArray's
# own methods: the sparse arrays' makers ("sparse_zeros", "sparse_array", "sparse_empty",
# from `sparse`), the bytes of MXNet's array record ("array_bytes", "array_from_bytes", from
# `serialization`), DLPack export ("to_dlpack_for_read", "to_dlpack_for_write", `dlpack`);
# and from the NumPy dialect above (`gluonlite.numpy.multiarray`), its array class
# ("np_ndarray") and the view of an NDArray as one ("np_from_nd").
INSTALLED = {}
# MXNet's storage type codes (its tests and .params files use them)
_STORAGE_TYPE_STR_TO_ID = {"undefined": -1, "default": 0, "row_sparse": 1, "csr": 2}
_STORAGE_TYPE_ID_TO_STR = {v: k for k, v in _STORAGE_TYPE_STR_TO_ID.items()}


def refuse_np_arrays(fname, inputs):
    """Raise the TypeError MXNet raises when an `mx.np.ndarray` meets a legacy operator.

    Args:
        fname: the legacy function's name (``relu``).
        inputs: the inputs given (a list or a dict name -> value).

    Example::

        from gluonlite.ndarray.ndarray import refuse_np_arrays
        refuse_np_arrays('relu', [nd.ones(2)])   # NDArrays pass
        try:
            refuse_np_arrays('relu', [mx.np.ones(2)])
        except TypeError as e:
            print(e)   # nd.relu: input 0 is an mxnet.numpy.ndarray, but this legacy operator ...
    """
    items = inputs.items() if isinstance(inputs, dict) else enumerate(inputs)
    for k, a in items:
        if getattr(a, "_np_array", False):
            raise MXNetTypeError(
                f"nd.{fname}: input {k!r} is an mxnet.numpy.ndarray, but this legacy operator "
                "takes mxnet.ndarray.NDArray only (mixing the two dialects needs a "
                "conversion); call as_nd_ndarray() on it, or use the mx.np / mx.npx function")


def check_grad_req(req):
    """Validate a grad_req value ('write', 'add' or 'null').

    Args:
        req: the gradient request to check.

    Returns:
        str: `req` itself.

    Raises:
        ValueError: `req` is not one of 'write', 'add', 'null'.

    Example::

        from gluonlite.ndarray.ndarray import check_grad_req
        check_grad_req('add')   # 'add'
    """
    if req not in _GRAD_REQS:
        raise ValueError(f"grad_req must be one of 'write', 'add', 'null', got {req!r}")
    return req


def check_stype(stype, what, sparse_ok=False):
    """Validate a storage type; None means 'default'.

    Args:
        stype: the storage type asked for.
        what: the function or argument to name in an error.
        sparse_ok: whether the caller makes sparse arrays ('row_sparse', 'csr').

    Returns:
        The storage type ('default' for None).

    Raises:
        NotImplementedError: a sparse storage type where the caller has no sparse form.
        ValueError: an unknown storage type.

    Example::

        from gluonlite.ndarray.ndarray import check_stype
        check_stype(None, "zeros")                      # 'default'
        check_stype('csr', "zeros", sparse_ok=True)     # 'csr'
    """
    if stype is None or stype == "default":
        return "default"
    if stype in _SPARSE_STYPES:
        if sparse_ok:
            return stype
        raise NotImplementedError(f"{what}: sparse storage (stype={stype!r}) is not supported "
                                  "here; use stype 'default'")
    raise ValueError(f"{what}: unknown storage type {stype!r}; expected 'default', "
                     "'row_sparse' or 'csr'")


_OPS = {}


def _op(name):
    """Operator `name` as a function of NDArrays (inputs by position, attributes by name)."""
    f = _OPS.get(name)
    if f is None:
        op = get(name)

        def f(*inputs, **attrs):
            out = run_plan(plan_for(op, attrs), list(inputs))
            return out[0] if len(out) == 1 else out
        _OPS[name] = f
    return f


class NDArray:
    """An n-dimensional array on a `Context` (MXNet 1.x NDArray semantics).

    Create one with `nd.array`, `nd.zeros` and friends. Arithmetic broadcasts like MXNet's
    NDArray; a full reduction or an index of every axis has shape (1,) (no 0-d arrays).

    Args:
        data: the raw array the NDArray wraps (a numpy array on the cpu, a device array of
            the context's array module on a gpu), used as is, not copied. MXNet code passes
            an NDArray's handle (``ctypes.cast(array, NDArrayHandle)``): the array it
            stands for, sharing its data.
        ctx: the Context `data` lives on (default None: the current context).
        writable: default True; False with a handle gives a view that refuses writes (cpu),
            as MXNet's ``NDArray(handle, writable=False)``.

    Raises:
        ValueError: a handle that stands for no NDArray.

    Example::

        x = nd.array([[1, 2], [3, 4]])
        (x * 2).sum().asscalar()     # 20.0
    """

    __slots__ = ("_data", "_ctx", "_entry", "_grad", "__weakref__")
    __array_priority__ = 1000.0
    # whether the array holds sparse storage (`gluonlite.ndarray.sparse`): what the storage
    # dispatcher of `invoke` asks of every input
    _sparse = False
    _np_array = False  # True for mx.np.ndarray (the NumPy dialect's array)

    def __init__(self, data, ctx=None, writable=True):
        if type(data) is ctypes.c_void_p:
            # MXNet code wrapping a handle, as its monitor callbacks do: the array it stands
            # for (`gluonlite.c_api`), its data shared
            src = c_api.lookup(data)
            if not isinstance(src, NDArray):
                raise ValueError(f"NDArray(handle): the handle stands for a "
                                 f"{type(src).__name__}, not an NDArray")
            data, ctx = src._data, src._ctx
            if not writable and isinstance(data, np.ndarray):
                data = data.view()
                data.flags.writeable = False
        self._data = data
        self._ctx = ctx or current_context()
        self._entry = None
        self._grad = None

    # ---- attributes ---------------------------------------------------------------------
    @property
    def shape(self):
        """The shape as a tuple.

        Example::

            nd.zeros((2, 3)).shape   # (2, 3)
        """
        return self._data.shape

    @property
    def dtype(self):
        """The numpy dtype type (``numpy.float32``), as MXNet reports it.

        Example::

            nd.array([1, 2]).dtype                  # <class 'numpy.float32'>
            nd.array([1, 2], dtype='int32').dtype   # <class 'numpy.int32'>
        """
        return self._data.dtype.type

    @property
    def size(self):
        """Number of elements.

        Example::

            nd.zeros((2, 3)).size   # 6
        """
        return self._data.size

    @property
    def ndim(self):
        """Number of dimensions.

        Example::

            nd.zeros((2, 3)).ndim   # 2
        """
        return self._data.ndim

    @property
    def context(self):
        """The `Context` the array lives on (``ctx`` is the same property).

        Example::

            nd.zeros((2, 3)).context                 # cpu(0)
            nd.zeros(2, ctx=mx.cpu(1)).ctx.device_id   # 1
        """
        return self._ctx

    ctx = context

    @property
    def stype(self):
        """The storage type: always 'default' (dense).

        Example::

            nd.zeros((2, 3)).stype   # 'default'
        """
        return "default"

    @property
    def grad(self):
        """The gradient buffer set by `attach_grad` (None before, and, as in MXNet, after a
        backward through this array when its grad_req is 'null').

        Example::

            x = nd.array([1, 2, 3])
            x.attach_grad()
            with autograd.record():
                y = (x * x).sum()
            y.backward()
            x.grad   # [2. 4. 6.]
        """
        e = self._entry
        if e is not None and e[0].__class__ is autograd_tape.Leaf and e[0].grad is None \
                and e[0].grad_req == "null":
            return None
        return self._grad

    @property
    def _fresh_grad(self):
        """Whether a backward wrote this variable's gradient since the flag was last cleared
        (False for an array not marked for gradients); the Trainer's stale-gradient check."""
        e = self._entry
        return e is not None and e[0].__class__ is autograd_tape.Leaf and e[0].fresh

    @_fresh_grad.setter
    def _fresh_grad(self, state):
        e = self._entry
        if e is None or e[0].__class__ is not autograd_tape.Leaf:
            raise ValueError("_fresh_grad: the array is not marked for gradients; call "
                             "attach_grad() (or autograd.mark_variables) first")
        e[0].fresh = bool(state)

    @property
    def T(self):
        """The transpose (axes reversed).

        Example::

            x = nd.array([[1, 2], [3, 4]])
            x.T   # [[1. 3.] [2. 4.]]
        """
        return self.transpose()

    @property
    def _as_parameter_(self):
        # what ctypes reads from an NDArray (ctypes.cast(array, NDArrayHandle)): a handle
        # that NDArray(handle) turns back into this array while it lives
        return c_api.handle_of(self)

    @property
    def handle(self):
        """The raw array (numpy or cupy) behind this NDArray.

        Example::

            type(nd.zeros((2, 3)).handle)   # <class 'numpy.ndarray'>
        """
        return self._data

    # ---- conversion ---------------------------------------------------------------------
    def asnumpy(self):
        """A numpy copy of the data.

        Example::

            nd.array([[1, 2], [3, 4]]).asnumpy().tolist()   # [[1.0, 2.0], [3.0, 4.0]]
        """
        d = self._data
        return d.copy() if isinstance(d, np.ndarray) else d.get()

    def asscalar(self):
        """The single value of a size-1 array as a numpy scalar.

        Raises:
            ValueError: the array has more than one element.

        Example::

            nd.array([7]).asscalar()          # 7.0
            nd.array([[1, 2]]).sum().asscalar()   # 3.0
        """
        if self.size != 1:
            raise ValueError(f"asscalar: the array must have exactly one element, got shape "
                             f"{self.shape}")
        return self.asnumpy().reshape(())[()]

    def __float__(self):
        return float(self.asscalar())

    def __int__(self):
        return int(self.asscalar())

    def __bool__(self):
        if self.size == 0:  # an empty array is false, as an empty numpy array was
            return False
        if self.size != 1:
            raise ValueError(f"the truth value of an NDArray with {self.size} elements is "
                             "ambiguous; use .sum() or compare elementwise")
        return bool(self.asscalar())

    def __len__(self):
        return self.shape[0]

    def __iter__(self):
        for i in range(self.shape[0]):
            yield self[i]

    def __repr__(self):
        shape = "x".join(map(str, self.shape))
        return f"\n{self.asnumpy()}\n<NDArray {shape} @{self._ctx}>"

    def __array__(self, dtype=None, copy=None):
        a = self.asnumpy()
        return a if dtype is None else a.astype(dtype)

    def __getstate__(self):
        """MXNet's pickled form: ``{'handle': bytearray}`` holding the array's record in
        MXNet's NDArray format (so pickles travel between gluonlite and MXNet)."""
        return {"handle": bytearray(INSTALLED["array_bytes"](self))}

    def __setstate__(self, state):
        """Restore from `__getstate__`'s ``{'handle': bytes}`` (also one MXNet made; an array
        saved from a GPU loads on the cpu). Loading runs no code from the bytes.

        Raises:
            ValueError: bytes that are not one dense array record.
        """
        if not (isinstance(state, dict) and "handle" in state):
            raise ValueError("NDArray.__setstate__: expected {'handle': bytes}, got "
                             f"{type(state).__name__}")
        self._data = INSTALLED["array_from_bytes"](state["handle"], "NDArray.__setstate__")
        self._ctx, self._entry, self._grad = cpu(), None, None

    def __hash__(self):
        return id(self)

    def copy(self):
        """A copy on the same context (recorded by autograd like `identity`).

        Example::

            x = nd.array([1, 2])
            y = x.copy()
            y[0] = 5
            x   # [1. 2.] (x is unchanged)
        """
        return _op("_copy")(self)

    def copyto(self, other):
        """Copy into `other` (an NDArray, returned) or to a new array on `other` (a Context).

        Between devices the data goes through the host once (`asnumpy()`, then an upload);
        on one device it is a device copy.

        Raises:
            ValueError: `other` is an NDArray of another shape.

        Example::

            x = nd.array([1, 2])
            y = nd.zeros(2)
            x.copyto(y)
            y                       # [1. 2.]
            x.copyto(mx.cpu()).context   # cpu(0)
        """
        if isinstance(other, Context):
            return NDArray(_on(other, self, copy=True), other)
        if other.shape != self.shape:
            raise MXNetValueError(
                f"copyto: shape {self.shape} does not match the target's {other.shape}")
        if other.__class__ is not NDArray and other.stype != "default":
            other._assign(self)  # keeps the target's sparse storage
            return other
        other._data[...] = _on(other._ctx, self, copy=False)
        return other

    def tostype(self, stype):
        """A copy with storage type `stype` ('default', 'row_sparse' or 'csr' (2-D only);
        recorded by autograd, the gradient passing through).

        Raises:
            ValueError: an unknown storage type, or 'csr' for an array that is not 2-D.

        Example::

            x = nd.array([[0, 1], [0, 0]])
            x.tostype('row_sparse').stype   # 'row_sparse'
        """
        if check_stype(stype, "tostype", sparse_ok=True) != "default":
            return run_plan(plan_for(_registry_get("cast_storage"), {"stype": stype}),
                            [self])[0]
        return self.copy()

    def as_in_context(self, ctx):
        """This array on `ctx` (itself when already there).

        Example::

            x = nd.array([1, 2])
            x.as_in_context(mx.cpu()) is x   # True
        """
        return self if ctx == self._ctx else self.copyto(ctx)

    def astype(self, dtype, copy=True):
        """A copy converted to `dtype` (recorded as Cast); with ``copy=False``, itself when it
        already has that dtype.

        Example::

            x = nd.array([1.7, -2.5])
            x.astype('int32')         # [ 1 -2]
            x.astype('int32').dtype   # <class 'numpy.int32'>
        """
        dt = normalize_dtype(dtype)
        if not copy and dt == self._data.dtype:
            return self
        return _op("Cast")(self, dtype=dt.name)

    @property
    def writable(self):
        """Whether the array may be written; always True (gluonlite has no read-only arrays).

        Example::

            nd.zeros(2).writable   # True
        """
        return True

    def as_nd_ndarray(self):
        """This array as a classic NDArray: itself.

        Example::

            x = nd.zeros(2)
            x.as_nd_ndarray() is x   # True
        """
        return self

    def as_np_ndarray(self):
        """This array as an `mx.np.ndarray` sharing its data and autograd history (no copy).

        Example::

            a = nd.ones((2, 3)).as_np_ndarray()
            a.sum()   # array(6.)
        """
        return INSTALLED["np_from_nd"](self)

    def to_dlpack_for_read(self):
        """A DLPack capsule viewing this array's memory (see `nd.to_dlpack_for_read`).

        Example::

            x = nd.array([1, 2])
            y = nd.from_dlpack(x.to_dlpack_for_read())
            y   # [1. 2.]
        """
        return INSTALLED["to_dlpack_for_read"](self)

    def to_dlpack_for_write(self):
        """A DLPack capsule for writing into this array's memory (see
        `nd.to_dlpack_for_write`).

        Example::

            x = nd.array([1, 2])
            y = nd.from_dlpack(x.to_dlpack_for_write())
            y[0] = 5
            x   # [5. 2.] (y shares x's memory)
        """
        return INSTALLED["to_dlpack_for_write"](self)

    def slice_assign(self, rhs, begin, end, step):
        """Write `rhs` into the region ``begin:end:step`` (one entry per axis; None for a
        default) and return this array (MXNet's ``_slice_assign`` with ``out=self``).

        Args:
            rhs: an NDArray (or a number, an array-like) that fits the region by
                broadcasting.
            begin: the region's start on each axis, a tuple (None: the axis's start).
            end: the region's end on each axis, not included (None: the axis's end).
            step: the region's step on each axis (None or an empty tuple: step 1 everywhere).

        Returns:
            NDArray: this array, changed in place.

        Raises:
            ValueError: `rhs` does not fit the region.

        Example::

            x = nd.zeros((2, 3))
            x.slice_assign(nd.ones((1, 2)), (0, 0), (1, 2), (None, None))
            x   # [[1. 1. 0.] [0. 0. 0.]]
        """
        self[_region(begin, end, step)] = rhs
        return self

    def slice_assign_scalar(self, value, begin, end, step):
        """Write the number `value` into the region ``begin:end:step`` (as `slice_assign`)
        and return this array.

        Args:
            value: the number to write.
            begin: the region's start on each axis, a tuple (None: the axis's start).
            end: the region's end on each axis, not included (None: the axis's end).
            step: the region's step on each axis (None or an empty tuple: step 1 everywhere).

        Returns:
            NDArray: this array, changed in place.

        Example::

            x = nd.zeros((2, 3))
            x.slice_assign_scalar(5, (0, 1), (2, 3), (None, None))
            x   # [[0. 5. 5.] [0. 5. 5.]]
        """
        self[_region(begin, end, step)] = value
        return self

    def detach(self):
        """The same data, cut from the autograd graph (no gradient flows back through it).

        Example::

            x = nd.array([1, 2])
            x.attach_grad()
            with autograd.record():
                y = (x.detach() * x).sum()
            y.backward()
            x.grad   # [1. 2.] (not [2. 4.])
        """
        return NDArray(self._data, self._ctx)

    def wait_to_read(self):
        """Block until the array is computed: on a gpu context, wait for its device (CuPy
        kernels run asynchronously); cpu arrays are computed when returned.

        Example::

            x = nd.ones((2, 3)) * 2
            x.wait_to_read()   # returns None once x is ready
        """
        if self._ctx.device_type == "gpu":
            synchronize(self._ctx)

    # ---- autograd -----------------------------------------------------------------------
    def attach_grad(self, grad_req="write", stype=None):
        """Allocate a zero gradient buffer and mark this array as a variable for autograd.

        Args:
            grad_req: 'write' (backward overwrites .grad), 'add' (accumulates) or 'null'.
            stype: the gradient's storage type: 'default', 'row_sparse' or 'csr' (None: this
                array's own); a sparse gradient stores only what backward makes nonzero.

        Raises:
            ValueError: an unknown grad_req or storage type.

        Example::

            w = nd.ones((4, 2))
            w.attach_grad(stype='row_sparse')
            w.grad.stype   # 'row_sparse'
        """
        check_grad_req(grad_req)
        stype = self.stype if stype is None else check_stype(stype, "attach_grad",
                                                               sparse_ok=True)
        if stype != "default":
            self._grad = INSTALLED["sparse_zeros"](stype, self.shape, ctx=self._ctx,
                                                    dtype=self.dtype)
        elif self.__class__ is NDArray:
            self._grad = NDArray(self._ctx.xp.zeros_like(self._data), self._ctx)
        else:
            self._grad = NDArray(self._ctx.xp.zeros(self.shape, self.dtype), self._ctx)
        self._entry = (autograd_tape.Leaf(self._grad, grad_req), 0)

    def backward(self, out_grad=None, retain_graph=False, train_mode=True):
        """Gradients of this array with respect to the marked variables (see
        autograd.backward).

        Args:
            out_grad: the gradient of the final result with respect to this array, of its
                shape (default None: ones, as for a scalar loss).
            retain_graph: keep the recorded graph so backward can run on it again (default
                False: it is freed).
            train_mode: run the backward pass in training mode (default True; dropout and
                batch norm's behaviour).

        Raises:
            ValueError: this array was not recorded, or its graph was already freed.

        Example::

            x = nd.array([1, 2])
            x.attach_grad()
            with autograd.record():
                y = 3 * x
            y.backward()
            x.grad   # [3. 3.]
        """
        autograd_tape.backward([self], None if out_grad is None else [out_grad],
                               retain_graph=retain_graph, train_mode=train_mode)

    # ---- shape methods ------------------------------------------------------------------
    def reshape(self, *shape, **kwargs):
        """reshape(shape) or reshape(d0, d1, ...); MXNet's special codes 0, -1, -2, -3, -4.

        As in MXNet, the result shares this array's memory (outside autograd.record(), where a
        view would not be recorded, it is a recorded copy); ``nd.reshape(x, shape)`` copies.

        Example::

            x = nd.arange(6)
            x.reshape((2, 3)).shape   # (2, 3)
            x.reshape(3, -1).shape    # (3, 2)
            x.reshape(0).shape        # (6,)
        """
        spec = reshape_shape(shape, kwargs)
        # a view, without the operator, unless autograd must record the reshape
        if (self._entry is None or not autograd_tape.is_recording()) \
                and set(kwargs) <= {"reverse"}:
            try:
                target = reshape_target(self.shape, spec, kwargs.get("reverse", False))
            except ValueError:  # the operator below raises its own message
                target = None
            if target is not None:
                return NDArray(self._data.reshape(target), self._ctx)
        return self._as_view(_op("Reshape")(self, shape=spec, **kwargs))

    def transpose(self, *axes, **kwargs):
        """Permute axes (reverse them when none are given).

        Example::

            x = nd.ones((2, 3, 4))
            x.transpose().shape           # (4, 3, 2)
            x.transpose((2, 0, 1)).shape   # (4, 2, 3)
        """
        return _op("transpose")(self, axes=transpose_axes(axes, kwargs), **kwargs)

    def expand_dims(self, axis, inplace=False):
        """A new axis of length 1 at `axis` (``nd.expand_dims``); with `inplace`, a view
        sharing this array's memory (outside autograd.record(), where a view would not be
        recorded, it is the operator's result).

        Example::

            x = nd.array([[1, 2], [3, 4]])
            x.expand_dims(axis=1).shape   # (2, 1, 2)
        """
        out = _op("expand_dims")(self, axis=axis)
        return self._as_view(out) if inplace else out

    def squeeze(self, axis=None, inplace=False):
        """The array without axes of length 1 (those of `axis`, or all) (``nd.squeeze``);
        with `inplace`, a view sharing this array's memory (as `expand_dims`).

        Example::

            x = nd.ones((1, 2, 1))
            x.squeeze().shape         # (2,)
            x.squeeze(axis=0).shape   # (2, 1)
        """
        out = _op("squeeze")(self, axis=axis)
        return self._as_view(out) if inplace else out

    def _as_view(self, out):
        if out._entry is not None or autograd_tape.is_recording():
            return out
        return NDArray(self._data.reshape(out.shape), self._ctx)

    def flatten(self, inplace=False):
        """Reshape to (batch, -1) (``nd.flatten``); with `inplace`, a view sharing this
        array's memory (as `expand_dims`).

        Example::

            nd.ones((2, 3, 4)).flatten().shape   # (2, 12)
        """
        out = _op("Flatten")(self)
        return self._as_view(out) if inplace else out

    def broadcast_to(self, shape):
        """A copy broadcast to `shape`. Unlike the operator ``nd.broadcast_to``, which needs
        as many axes as the input has, the method first gives the array leading axes of
        length 1 up to `shape`'s length, as MXNet 1.9.1's method does (numpy's rule).

        Args:
            shape: the target shape, a tuple with at least as many axes as the array; an axis
                of the array may differ from it only where the array's is 1.

        Returns:
            NDArray of `shape`, sharing no memory with this array.

        Raises:
            ValueError: `shape` has fewer axes than the array, or an axis of it differs from
                one of the array's that is not 1 (a 0 in `shape` included).

        Example::

            x = nd.array([1, 2, 3])
            x.broadcast_to((2, 3))   # [[1. 2. 3.] [1. 2. 3.]]
        """
        shape = tuple(shape)
        if len(shape) < self.ndim:
            raise ValueError(f"broadcast_to: cannot broadcast an array of shape {self.shape} to "
                             f"{shape}, which has fewer axes")
        padded = (1,) * (len(shape) - self.ndim) + self.shape
        if any(a != b and a != 1 for a, b in zip(padded, shape)):
            raise ValueError(f"broadcast_to: cannot broadcast an array of shape {self.shape} to "
                             f"{shape}: led by axes of length 1 it is {padded}, and only its "
                             "axes of length 1 can change")
        src = self if padded == self.shape else self.reshape(padded)
        return _op("broadcast_to")(src, shape=shape)

    def broadcast_like(self, other):
        """Broadcast to `other`'s shape (`broadcast_to`'s rule: leading axes of length 1
        are added first).

        Example::

            x = nd.array([[1], [2]])
            x.broadcast_like(nd.zeros((2, 3)))   # [[1. 1. 1.] [2. 2. 2.]]
        """
        return self.broadcast_to(other.shape)

    # ---- arithmetic ---------------------------------------------------------------------
    def _binary(self, other, name, scalar_name, reverse=False):
        if isinstance(other, NDArray):
            if other.__class__ is not NDArray and getattr(other, "_np_array", False):
                refuse_np_arrays(name, [self, other])
            a, b = (other, self) if reverse else (self, other)
            return run_plan(_plan0(name), [a, b])[0]
        if isinstance(other, (int, float, np.number, bool, np.bool_)):
            if isinstance(other, (bool, np.bool_)):
                other = int(other)  # a bool scalar counts as 0/1, as in MXNet
            return run_plan(plan_for(_registry_get(scalar_name), {"scalar": other}), [self])[0]
        return NotImplemented

    def __add__(self, o): return self._binary(o, "broadcast_add", "_plus_scalar")
    def __radd__(self, o): return self._binary(o, "broadcast_add", "_plus_scalar", True)
    def __sub__(self, o): return self._binary(o, "broadcast_sub", "_minus_scalar")
    def __rsub__(self, o): return self._binary(o, "broadcast_sub", "_rminus_scalar", True)
    def __mul__(self, o): return self._binary(o, "broadcast_mul", "_mul_scalar")
    def __rmul__(self, o): return self._binary(o, "broadcast_mul", "_mul_scalar", True)
    def __truediv__(self, o): return self._binary(o, "broadcast_div", "_div_scalar")
    def __rtruediv__(self, o): return self._binary(o, "broadcast_div", "_rdiv_scalar", True)
    def __mod__(self, o): return self._binary(o, "broadcast_mod", "_mod_scalar")
    def __rmod__(self, o): return self._binary(o, "broadcast_mod", "_rmod_scalar", True)
    def __pow__(self, o): return self._binary(o, "broadcast_power", "_power_scalar")
    def __rpow__(self, o): return self._binary(o, "broadcast_power", "_rpower_scalar", True)
    def __lt__(self, o): return self._binary(o, "broadcast_lesser", "_lesser_scalar")
    def __le__(self, o): return self._binary(o, "broadcast_lesser_equal", "_lesser_equal_scalar")
    def __gt__(self, o): return self._binary(o, "broadcast_greater", "_greater_scalar")
    def __ge__(self, o): return self._binary(o, "broadcast_greater_equal", "_greater_equal_scalar")
    def __eq__(self, o): return self._binary(o, "broadcast_equal", "_equal_scalar")
    def __ne__(self, o): return self._binary(o, "broadcast_not_equal", "_not_equal_scalar")
    def __neg__(self):
        if self._data.dtype == np.bool_:  # MXNet negates as x * -1: bool gives int64
            return self._binary(-1, None, "_mul_scalar")
        return run_plan(_plan0("negative"), [self])[0]

    def __matmul__(self, o):
        """``a @ b``: `dot` of 2-D arrays, `batch_dot` of 3-D ones (numpy's matmul for those
        ranks).

        Raises:
            ValueError: other ranks, or inner dimensions that differ.
        """
        if not isinstance(o, NDArray):
            return NotImplemented
        if self.ndim == o.ndim == 2:
            return _op("dot")(self, o)
        if self.ndim == o.ndim == 3:
            return _op("batch_dot")(self, o)
        raise MXNetValueError(f"NDArray @: operands must both be 2-D (dot) or both 3-D "
                              f"(batch_dot), got shapes {self.shape} and {o.shape}")
    def __abs__(self): return run_plan(_plan0("abs"), [self])[0]

    def __iadd__(self, o):
        return self._inplace(o, self.__add__, "+=")

    def __isub__(self, o):
        return self._inplace(o, self.__sub__, "-=")

    def __imul__(self, o):
        return self._inplace(o, self.__mul__, "*=")

    def __itruediv__(self, o):
        return self._inplace(o, self.__truediv__, "/=")

    def __imod__(self, o):
        return self._inplace(o, self.__mod__, "%=")

    def _inplace(self, o, fn, sym):
        res = fn(o)
        if res is NotImplemented:
            return res
        if autograd_tape.is_recording() and (self._entry is not None or res._entry is not None):
            if isinstance(self._entry, tuple) and isinstance(self._entry[0], autograd_tape.Leaf):
                raise ValueError(
                    f"NDArray {sym}: in-place update of an array with attach_grad() inside "
                    "autograd.record() would cut it from its gradient; write y = x " +
                    sym[0] + " ... instead, or update it outside record()")
            # Rebind instead of writing: the recorded graph may still need the old values.
            return res
        self._data[...] = res._data
        return self

    def _check_writable(self, what):
        if autograd_tape.is_recording() and self._entry is not None:
            raise MXNetValueError(
                f"NDArray.{what}: in-place assignment to an array that is part of a recorded "
                "graph is not supported inside autograd.record() (the gradient would use the "
                "overwritten values); build a new array, e.g. with nd.where or nd.concat. "
                + _INPLACE_RECORDING)

    # ---- indexing -----------------------------------------------------------------------
    def _view_key(self, key):
        """A numpy key giving MXNet's view for `key` (int or step-1 slice on the first axis,
        the other axes whole), else None."""
        if isinstance(key, tuple):
            if not key or any(not (isinstance(k, slice) and k == _FULL) for k in key[1:]) or \
                    len(key) > self.ndim:
                return None
            key = key[0]
        if isinstance(key, (int, np.integer)) and not isinstance(key, (bool, np.bool_)):
            n = self.shape[0]
            if not -n <= key < n:
                raise IndexError(f"index {key} is out of range for axis 0 of size {n}")
            k = int(key) % n
            return k if self.ndim > 1 else slice(k, k + 1)
        if isinstance(key, slice) and key.step in (None, 1):
            return key
        return None

    @staticmethod
    def _basic_indexing_slice_is_contiguous(slc_key, shape):
        """Whether slicing an array of `shape` with `slc_key` (one slice per axis) selects
        one contiguous block of memory: walking the axes from the last, once an axis is
        taken partly, every axis before it must give at most one element; a step other than
        1 is contiguous only where it gives at most one element.

        Args:
            slc_key: a sequence of slices, one per axis.
            shape: the array's shape.

        Returns:
            bool.

        Raises:
            ValueError: `slc_key` and `shape` have different lengths.

        Example::

            contiguous = nd.NDArray._basic_indexing_slice_is_contiguous
            a = contiguous((slice(1, 2), slice(0, 2)), (3, 4))
            b = contiguous((slice(0, 2), slice(0, 2)), (3, 4))
            a, b   # (True, False)
        """
        if len(slc_key) != len(shape):
            raise ValueError(f"_basic_indexing_slice_is_contiguous: {len(slc_key)} slices for "
                             f"a shape of {len(shape)} axes {tuple(shape)}")
        lens = [len(range(*k.indices(n))) for k, n in zip(slc_key, shape)]
        if np.prod(lens) <= 1:
            return True
        partial = False
        for k, n, m in zip(reversed(slc_key), reversed(shape), reversed(lens)):
            if m == 0:
                return True
            if m > 1 and (k.indices(n)[2] != 1 or partial):
                return False
            partial = partial or m < n
        return True

    def _contiguous_view(self, key):
        """MXNet's view for a basic key of ints and slices that selects one contiguous block
        (int axes dropped; shape (1,) when nothing is left), else None. Not inside
        autograd.record() for a recorded array, where a view would not be recorded."""
        if self._entry is not None and autograd_tape.is_recording():
            return None
        key = key if isinstance(key, tuple) else (key,)
        if len(key) > self.ndim:
            return None
        slices, kept = [], []
        for ax, k in enumerate(key):
            if isinstance(k, slice):
                slices.append(k)
                kept.append(ax)
            elif isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)):
                n = self.shape[ax]
                if not -n <= k < n:
                    return None  # the general path raises the IndexError
                slices.append(slice(int(k) % n, int(k) % n + 1))
            else:
                return None
        kept += range(len(key), self.ndim)
        slices += [_FULL] * (self.ndim - len(key))
        if not NDArray._basic_indexing_slice_is_contiguous(slices, self.shape):
            return None
        data = self._data[tuple(slices)]
        return NDArray(data.reshape(tuple(data.shape[a] for a in kept) or (1,)), self._ctx)

    def __getitem__(self, key):
        """Indexing as MXNet 1.x's NDArray (see `_getitem`); under NumPy shape semantics
        (`mx.np_shape`) an int for every axis gives a 0-d array, as MXNet's does."""
        out = self._getitem(key)
        if out.shape == (1,) and _np_shape() and _all_ints(key, self.ndim):
            out = out.reshape(())
        return out

    def _getitem(self, key):
        """Indexing as MXNet 1.x's NDArray (numpy's rules, no 0-d results):

        - basic: ints, slices (any step, negative too), None and Ellipsis; an int of every
          axis gives shape (1,). An int or a step-1 slice of the first axis, and any key of
          ints and slices that selects one contiguous block, is a view that shares memory
          (outside autograd.record()); other results are copies.
        - advanced: integer index arrays (NDArray, list, numpy array, and a tuple inside a
          tuple key; float values are truncated, negative ones count from the end), alone
          or in a tuple with ints,
          slices, None and Ellipsis, broadcast together as numpy does. A numpy bool array or
          a list of bools counts as integers 0/1, as in MXNet; a bool NDArray is refused.

        Recorded by autograd: the gradient flows back to the indexed elements (summed where an
        element is taken more than once).

        Raises:
            IndexError: an index out of range or too many indices.
            ValueError: a bool NDArray index or a float index.
            TypeError: an unsupported index type.
        """
        if isinstance(key, (NDArray, list, np.ndarray)):
            return _op("take")(self, self._rows(key), axis=0)
        if isinstance(key, tuple) and any(isinstance(k, _INNER_ARRAYS)
                                          for k in key):
            return self._advanced_get(key)
        vk = self._view_key(key)
        if vk is not None:
            out = NDArray(self._data[vk], self._ctx)
            if self._entry is not None and autograd_tape.is_recording():
                autograd_tape.record_node([self], _view_vjp(self._ctx.xp, self._data, vk), [out],
                                     "slice", call=_view_steps(self.shape, vk))
            return out
        view = self._contiguous_view(key)
        if view is not None:
            return view
        key = key if isinstance(key, tuple) else (key,)
        if any(k is None for k in key):
            target = _index_shape(self.shape, key)
            return self[tuple(k for k in key if k is not None)].reshape(target)
        if any(k is Ellipsis for k in key):
            i = key.index(Ellipsis)
            key = key[:i] + (slice(None),) * (self.ndim - len(key) + 1) + key[i + 1:]
        if len(key) > self.ndim:
            raise IndexError(f"too many indices ({len(key)}) for an array of shape {self.shape}")
        begin, end, step, drop = [], [], [], []
        for ax, k in enumerate(key):
            if isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)):
                n = self.shape[ax]
                if not -n <= k < n:
                    raise IndexError(f"index {k} is out of range for axis {ax} of size {n}")
                k = int(k) % n
                begin.append(k), end.append(k + 1), step.append(None)
                drop.append(ax)
            elif isinstance(k, slice):
                begin.append(k.start), end.append(k.stop), step.append(k.step)
            else:
                _check_basic(k)  # raises: not an index
        out = _op("slice")(self, begin=tuple(begin), end=tuple(end), step=tuple(step))
        if drop:
            shape = tuple(d for i, d in enumerate(out.shape) if i not in drop) or (1,)
            out = out.reshape(shape)
        return out

    def _index_array(self, k):
        """An integer index array (NDArray, list or numpy array) as int64 on the host."""
        if isinstance(k, NDArray):
            if k.dtype == np.bool_:
                raise MXNetValueError(
                    "NDArray indexing: a bool NDArray index (a mask) is not supported by "
                    "MXNet 1.x's NDArray; use nd.contrib.boolean_mask, or an integer index "
                    "array (np.nonzero)")
            k = k.asnumpy()
        a = np.asarray(k)
        if a.dtype == object:
            raise TypeError(f"NDArray indexing: an index list must hold numbers, got {k!r}")
        return a.astype(np.int64)  # float indices truncate, bools count as 0/1, as in MXNet

    def _rows(self, key):
        """A single index array for `take` along axis 0: negatives counted from the end,
        out of range refused (take itself would clip)."""
        idx = self._index_array(key)
        n = self.shape[0]
        bad = (idx < -n) | (idx >= n)
        if bad.any():
            raise IndexError(f"index {int(idx[bad].flat[0])} is out of bounds for axis 0 with "
                             f"size {n}")
        return NDArray(self._ctx.xp.asarray(idx % max(n, 1)), self._ctx)

    def _advanced_get(self, key):
        """Numpy's advanced indexing for a tuple key holding index arrays (recorded)."""
        xp = self._ctx.xp
        nk = tuple(xp.asarray(self._index_array(k)) if isinstance(
            k, _INNER_ARRAYS) else _check_basic(k) for k in key)
        data = self._data[nk]
        out = NDArray(data.reshape(1) if data.ndim == 0 else data, self._ctx)
        if self._entry is not None and autograd_tape.is_recording():
            autograd_tape.record_node([self], _advanced_vjp(xp, self._data, nk), [out],
                                 "advanced_indexing")
        return out

    def __setitem__(self, key, value):
        """In-place assignment: ``x[:] = y``, ``x[1:3] = 0``, ``x[0] = row`` (broadcasting
        `value`; not recorded by autograd).

        Raises:
            ValueError: a value that does not broadcast to the indexed shape.
            MXNetValueError: inside autograd.record(), assignment into an array of a recorded
                graph or of a recorded value (MXNet refuses both).
        """
        self._check_writable("__setitem__")
        if isinstance(value, NDArray):
            if value._entry is not None and autograd_tape.is_recording():
                raise MXNetValueError(
                    "NDArray.__setitem__: the value is part of a recorded graph and assignment "
                    "is not recorded, so its gradient would be lost inside autograd.record(); "
                    "build the array from operators instead (nd.concat, nd.where, ...). "
                    + _INPLACE_RECORDING)
            value = _on(self._ctx, value, copy=False)
        elif not np.isscalar(value):
            value = self._ctx.xp.asarray(np.asarray(value, dtype=self._data.dtype))
        if isinstance(key, (NDArray, list, np.ndarray)):
            key = self._ctx.xp.asarray(self._index_array(key))
        elif isinstance(key, tuple):
            key = tuple(self._ctx.xp.asarray(self._index_array(k))
                        if isinstance(k, _INNER_ARRAYS) else _check_basic(k)
                        for k in key)
        else:
            _check_basic(key)
        if value is not None and not np.isscalar(value) and value.dtype != self._data.dtype:
            value = value.astype(self._data.dtype)
        if not np.isscalar(value) and value.size == 1 and _is_element(key, self.ndim):
            value = value.reshape(())  # x[i, j] is shape (1,) in MXNet: a (1,) value fits it
        try:
            self._data[key] = value
        except ValueError as e:
            raise ValueError(f"NDArray.__setitem__: cannot assign a value of shape "
                             f"{getattr(value, 'shape', ())} to index {key!r} of an array of "
                             f"shape {self.shape}: {e}") from None


_FULL = slice(None)
# what counts as an index array inside a tuple key (a tuple there is a sequence, as in numpy)
_INNER_ARRAYS = (NDArray, list, tuple, np.ndarray)


def _is_element(key, ndim):
    """Whether basic index `key` picks one element (an int for every axis)."""
    key = key if isinstance(key, tuple) else (key,)
    return len(key) == ndim and all(isinstance(k, (int, np.integer)) and
                                    not isinstance(k, (bool, np.bool_)) for k in key)


def _region(begin, end, step):
    step = step if step is not None and len(step) else (None,) * len(begin)
    return tuple(slice(b, e, st) for b, e, st in zip(begin, end, step))


def _on(ctx, x, copy):
    """`x`'s raw data on `ctx`: itself (or a device copy, with `copy`) when `x` is there,
    else copied through the host once."""
    if x._ctx == ctx:
        return x._data.copy() if copy else x._data
    host = x.asnumpy()
    return host if ctx.device_type == "cpu" else ctx.xp.asarray(host)


def _check_basic(k):
    """`k` itself when it is a basic index (int, slice, None, Ellipsis)."""
    if k is None or k is Ellipsis or isinstance(k, slice):
        return k
    if isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)):
        return int(k)
    raise MXNetValueError(f"NDArray does not support indexing with key {k!r} of type "
                          f"{type(k).__name__}; use ints, slices, None, Ellipsis, or integer "
                          "index arrays (NDArray, list, numpy array)")


def _advanced_vjp(xp, data, key):
    """Gradient of ``data[key]`` (advanced): the output gradient added into zeros of data's
    shape, accumulating repeated indices."""
    def vjp(gys, need):
        gx = xp.zeros(data.shape, gys[0].dtype)
        g = gys[0].reshape(data[key].shape)
        add_at = getattr(getattr(xp, "add", None), "at", None)
        if add_at is not None:
            add_at(gx, key, g)
        else:  # CuPy spells numpy's add.at as cupyx.scatter_add
            import cupyx
            cupyx.scatter_add(gx, key, g)
        return (gx,)
    return vjp


def _view_vjp(xp, data, key):
    """Gradient of ``data[key]``: the output gradient scattered into zeros of data's shape."""
    def vjp(gys, need):
        gx = xp.zeros(data.shape, gys[0].dtype)
        gx[key] = gys[0]
        return (gx,)
    return vjp


def _view_steps(shape, vk):
    """For `autograd.get_symbol`: a function giving the operator steps ``[(op, params)]``
    that compute the view `vk` of an array of `shape` (MXNet records ``slice``, then
    ``Reshape`` when an int index drops the first axis)."""
    def step(name, **attrs):
        op = registry.get(name)
        return op, op.parse(attrs)[0]

    def steps():
        if isinstance(vk, slice):
            start, stop, _ = vk.indices(shape[0])
            return [step("slice", begin=(start,), end=(max(start, stop),))]
        return [step("slice", begin=(vk,), end=(vk + 1,)),
                step("Reshape", shape=tuple(shape[1:]))]
    return steps


def _index_shape(shape, key):
    """The shape numpy basic indexing gives for `key` (at least (1,), as MXNet has no 0-d)."""
    probe = np.broadcast_to(np.zeros(1, np.bool_), shape)
    return probe[key].shape or (1,)


_PLAN0 = {}


def _registry_get(name):
    return get(name)


def _plan0(name):
    """The cached plan of an attribute-free operator (arithmetic on two arrays, unary ops)."""
    plan = _PLAN0.get(name)
    if plan is None:
        plan = _PLAN0[name] = plan_for(_registry_get(name), {})
    return plan


def array(source, ctx=None, dtype=None):
    """An NDArray from a list, numpy array or NDArray.

    Args:
        source: the values.
        ctx: the context (default: current_context()).
        dtype: the dtype (default float32, or source's dtype when it is an NDArray).

    A sparse source (a CSRNDArray, RowSparseNDArray or scipy sparse matrix) gives a sparse
    array of the same storage type (csr for scipy), as in MXNet.

    Raises:
        TypeError: source is not array-like (None, a str, a dict, a set); MXNet 1.9.1
            turns None into [nan], which hides the bug that produced it.

    Example::

        nd.array([[1, 2], [3, 4]], dtype='int64').asnumpy()   # [[1 2] [3 4]]
    """
    if type(source).__module__.startswith("scipy.sparse") or (
            isinstance(source, NDArray) and source.stype != "default"):
        return INSTALLED["sparse_array"](source, ctx=ctx, dtype=dtype)
    ctx = ctx or current_context()
    if source is None or isinstance(source, (str, bytes, dict, set, frozenset)):
        raise TypeError("array: source must be array-like (a list, tuple, number, numpy "
                        f"array or NDArray), got {type(source).__name__}")
    if isinstance(source, NDArray):
        dt = normalize_dtype(dtype) if dtype is not None else source._data.dtype
        data = source.asnumpy().astype(dt)
    else:
        dt = normalize_dtype(dtype if dtype is not None else np.float32)
        data = np.array(source, dtype=dt)
    # a scalar (or 0-d numpy array) gives a 0-d array, as MXNet's nd.array does in either
    # shape semantics (legacy MXNet operators then refuse it; these accept it)
    return NDArray(ctx.xp.asarray(data), ctx)


def _np_shape():
    return is_np_shape()


def _all_ints(key, ndim):
    """Whether `key` is one int per axis of an `ndim`-dimensional array."""
    key = key if isinstance(key, tuple) else (key,)
    return len(key) == ndim and all(isinstance(k, (int, np.integer)) and
                                    not isinstance(k, (bool, np.bool_)) for k in key)


def from_numpy(ndarray, zero_copy=True, array_cls=None):
    """An NDArray on cpu holding numpy array `ndarray`'s values, in its dtype.

    Args:
        ndarray: a numpy array (of a dtype MXNet has).
        zero_copy: share `ndarray`'s memory instead of copying it. As in MXNet, the numpy
            array is then made read-only (the NDArray owns the memory from now on) and must
            be C-contiguous.
        array_cls: the class of the result: NDArray (default) or `mx.np.ndarray`.

    Raises:
        TypeError: `ndarray` is not a numpy array, or its dtype is not supported.
        ValueError: `zero_copy` with an array that is not C-contiguous, or of a dtype MXNet's
            DLPack conversion lacks (int8: "int8 is not supported.", as MXNet says).

    Example::

        a = np.arange(3.0)
        x = nd.from_numpy(a)   # shares a's memory; a is read-only from now on
        x.dtype, a.flags.writeable   # (<class 'numpy.float64'>, False)
    """
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"from_numpy: expected a numpy.ndarray, got {type(ndarray).__name__}")
    normalize_dtype(ndarray.dtype, "from_numpy: the array's dtype")
    if not zero_copy:
        data = np.array(ndarray)
    else:
        if ndarray.dtype == np.int8:  # not in MXNet's DLPack type map
            raise ValueError("int8 is not supported.")
        if not ndarray.flags.c_contiguous:
            raise ValueError("from_numpy: zero_copy=True needs a C-contiguous array; pass "
                             "np.ascontiguousarray(a) or zero_copy=False")
        if not ndarray.flags.writeable:
            # locked by an earlier zero-copy call: MXNet still writes to the memory it shares
            try:
                ndarray.flags.writeable = True
            except ValueError:
                raise ValueError("from_numpy: zero_copy=True needs memory the NDArray may write "
                                 "to, got a read-only array that does not own its data; pass "
                                 "zero_copy=False") from None
        data = ndarray.view()  # stays writable after its base is locked below
        ndarray.flags.writeable = False
    cls = NDArray if array_cls is None else array_cls
    return cls(data.reshape(1) if data.ndim == 0 and not _np_shape() else data, cpu())


def empty(shape, ctx=None, dtype=None, stype=None):
    """An uninitialised array (here: zeros, so results never depend on stale memory); a
    sparse `stype` ('row_sparse', 'csr') gives an empty sparse array.

    Args:
        shape: the array's shape, an int or a tuple of ints.
        ctx: the Context of the array (default None: the current context).
        dtype: the element type (default None: float32).
        stype: the storage type: None or 'default' for dense, 'row_sparse' or 'csr'.

    Returns:
        NDArray: the new array (zeros).

    Raises:
        ValueError: an unknown `stype`.

    Example::

        nd.empty((2, 2)).shape, nd.empty((2, 2), stype='csr').stype   # ((2, 2), 'csr')
    """
    if check_stype(stype, "empty", sparse_ok=True) != "default":
        return INSTALLED["sparse_empty"](stype, shape, ctx=ctx, dtype=dtype)
    ctx = ctx or current_context()
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    return NDArray(ctx.xp.zeros(shape, dtype=normalize_dtype(dtype or np.float32)), ctx)


install_array_type(NDArray)


def __getattr__(name):
    # MXNet's module of this class also holds its package's functions (maximum, zeros, ...)
    if name.startswith("__"):
        raise AttributeError(name)
    return class_module_attribute("ndarray.ndarray", name)
