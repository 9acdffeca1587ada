"""Devices: a `Context` names where arrays live and which array module computes on them.

cpu contexts compute with numpy. gpu contexts compute with CuPy when CuPy imports and sees a
CUDA device; otherwise the first use of a gpu context raises an error that says so.
"""
import functools
import threading

import numpy as np

from .base import classproperty, with_metaclass  # noqa: F401  (MXNet's context module has them)
from .base import MXNetError

__all__ = ["Context", "cpu", "gpu", "cpu_pinned", "cpu_shared", "current_context", "num_gpus",
           "gpu_memory_info", "host_scalar", "host_array", "read_hook", "synchronize",
           "probe_gpu", "gpu_missing"]

_local = threading.local()
# The gpu device ids whose array module has been handed out: what `synchronize()` waits for
# (a process that never used a GPU neither imports CuPy nor syncs).
_USED_GPUS = set()


def probe_gpu():
    """Whether CuPy can compute here: ``(cupy, None)``, or ``(None, why)`` with `why` naming
    what is missing (CuPy itself, a working CUDA driver, a device).

    Asked afresh on every call (an import attempt, slow where CuPy is missing); gluonlite
    itself asks once per process.

    Example::

        cupy, why = mx.context.probe_gpu()  # (None, 'CuPy is not installed ...') without CuPy
    """
    try:
        import cupy  # noqa: PLC0415 - optional backend, imported on demand
    except ModuleNotFoundError as e:
        if e.name == "cupy":
            return None, "CuPy is not installed (pip install gluonlite[gpu])"
        return None, f"CuPy does not import: {type(e).__name__}: {e}"
    except Exception as e:  # a broken install or CUDA library raises on import
        return None, f"CuPy does not import: {type(e).__name__}: {e}"
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # the driver's own error says what is wrong (none, too old)
        return None, f"CuPy {cupy.__version__} sees no CUDA device: {type(e).__name__}: {e}"
    if n < 1:
        return None, f"CuPy {cupy.__version__}: no CUDA device visible"
    return cupy, None


@functools.cache
def _backend():
    return probe_gpu()


def _cupy():
    """The cupy module if it imports and sees at least one device, else None. Asked once
    per process: a failed import is slow to repeat (`nd.waitall` asks on every call)."""
    return _backend()[0]


def gpu_missing():
    """Why gpu contexts cannot compute in this process (see `probe_gpu`), or None when they
    can.

    Example::

        why = mx.context.gpu_missing()      # None where GPUs compute, else the reason
    """
    return None if _cupy() is not None else _backend()[1]


class _DefaultContext:
    """``Context.default_ctx``: the current default context, read from the class (MXNet 1.x's
    deprecated spelling of `current_context()`)."""

    def __get__(self, obj, owner):
        return current_context()


class _ContextType(type):
    """Context's metaclass: ``Context.default_ctx = ctx`` sets this thread's default context
    (MXNet 1.x's deprecated class property), instead of replacing the attribute for all."""

    @property
    def default_ctx(cls):
        return current_context()

    @default_ctx.setter
    def default_ctx(cls, ctx):
        if not isinstance(ctx, Context):
            raise TypeError(f"Context.default_ctx: expected a Context, got {type(ctx).__name__}")
        _local.ctx = ctx


class Context(metaclass=_ContextType):
    """A device: `Context('cpu', 0)` or `Context('gpu', 1)`.

    Use it as a context manager to make it the default for new arrays.

    Args:
        device_type: 'cpu' or 'gpu' (or another Context to copy).
        device_id: the device number.

    Raises:
        ValueError: an unknown device type or a negative id.

    Example::

        with mx.Context('cpu', 0):
            x = nd.zeros((2, 3))
        x.context                     # cpu(0)
    """

    default_ctx = _DefaultContext()
    devtype2str = {1: "cpu", 2: "gpu", 3: "cpu_pinned", 5: "cpu_shared"}
    devstr2type = {v: k for k, v in devtype2str.items()}

    def __init__(self, device_type, device_id=0):
        if isinstance(device_type, Context):
            device_type, device_id = device_type.device_type, device_id or device_type.device_id
        if device_type in ("cpu_pinned", "cpu_shared"):
            device_type = "cpu"
        if device_type not in ("cpu", "gpu"):
            raise ValueError(f"Context: device_type must be 'cpu' or 'gpu', got {device_type!r}")
        if int(device_id) < 0:
            raise ValueError(f"Context: device_id must be >= 0, got {device_id}")
        self.device_type = device_type
        self.device_id = int(device_id)
        self._old = []

    @property
    def device_typeid(self):
        """MXNet's numeric device type (1 cpu, 2 gpu).

        Example::

            mx.cpu().device_typeid      # 1
        """
        return self.devstr2type[self.device_type]

    @property
    def xp(self):
        """The array module (numpy or cupy) that computes on this device.

        Raises:
            MXNetError: a gpu context without CuPy or without a CUDA device (as MXNet, whose
                CPU build raises MXNetError for a GPU array).

        Example::

            mx.cpu().xp.__name__        # 'numpy'
        """
        if self.device_type == "cpu":
            return np
        cp = _cupy()
        if cp is None:
            raise MXNetError(
                f"{self}: no GPU backend available; gpu contexts need CuPy installed "
                "(pip install gluonlite[gpu]) and a visible CUDA device. "
                f"Use gluonlite.cpu() instead. ({gpu_missing()})")
        if self.device_id not in _USED_GPUS:
            if self.device_id >= cp.cuda.runtime.getDeviceCount():
                raise MXNetError(
                    f"{self}: only {cp.cuda.runtime.getDeviceCount()} GPU(s) visible")
            _USED_GPUS.add(self.device_id)
        return cp

    def __enter__(self):
        self._old.append(current_context())
        _local.ctx = self
        return self

    def __exit__(self, *exc):
        _local.ctx = self._old.pop()

    def __eq__(self, other):
        return isinstance(other, Context) and (self.device_type, self.device_id) == (
            other.device_type, other.device_id)

    def __hash__(self):
        return hash((self.device_type, self.device_id))

    def __repr__(self):
        return f"{self.device_type}({self.device_id})"

    __str__ = __repr__


def cpu(device_id=0):
    """The cpu context.

    Args:
        device_id (int): the context's number (default 0); every CPU context uses the
            same host memory.

    Example::

        nd.zeros((2,), ctx=mx.cpu()).context    # cpu(0)
    """
    return Context("cpu", device_id)


def gpu(device_id=0):
    """The gpu context number `device_id` (CuPy backed; see `Context.xp`).

    Example::

        ctx = mx.gpu(1)             # naming a GPU needs no device; using it does
        ctx.device_type, ctx.device_id      # ('gpu', 1)
    """
    return Context("gpu", device_id)


def cpu_pinned(device_id=0):
    """MXNet's page-locked host memory context; here the plain cpu context (numpy memory is
    what the GPU backend copies from either way).

    Args:
        device_id (int): the context's number (default 0); every CPU context uses the
            same host memory.

    Example::

        nd.zeros((2,), ctx=mx.cpu_pinned()).context     # cpu(0)
    """
    return Context("cpu_pinned", device_id)


def cpu_shared(device_id=0):
    """MXNet's shared host memory context; the same memory as `cpu` here.

    Args:
        device_id (int): the context's number (default 0); every CPU context uses the
            same host memory.

    Example::

        nd.zeros((2,), ctx=mx.context.cpu_shared()).context     # cpu(0)
    """
    return Context("cpu_shared", device_id)


def gpu_memory_info(device_id=0):
    """Free and total memory of GPU `device_id`, in bytes.

    Returns:
        ``(free, total)``.

    Raises:
        MXNetError: no usable GPU (CuPy missing or no device), or `device_id` out of range.

    Example::

        # not run: needs a GPU
        free, total = mx.context.gpu_memory_info(0)
    """
    cp = _cupy()
    if cp is None:
        raise MXNetError(f"gpu_memory_info: no GPU backend available ({gpu_missing()})")
    n = cp.cuda.runtime.getDeviceCount()
    if not 0 <= int(device_id) < n:
        raise MXNetError(f"gpu_memory_info: device_id must be in [0, {n}), got {device_id}")
    with cp.cuda.Device(int(device_id)):
        free, total = cp.cuda.runtime.memGetInfo()
    return int(free), int(total)


def current_context():
    """The default context: the innermost `with ctx:` block, else cpu(0).

    Example::

        with mx.cpu(1):
            mx.context.current_context()    # cpu(1)
        mx.context.current_context()        # cpu(0)
    """
    return getattr(_local, "ctx", None) or Context("cpu", 0)


def num_gpus():
    """How many GPUs the CuPy backend can use (0 when CuPy or a device is missing).

    Example::

        n = mx.context.num_gpus()   # 0 on a machine without CuPy or a GPU
    """
    cp = _cupy()
    return 0 if cp is None else int(cp.cuda.runtime.getDeviceCount())


def host_scalar(a):
    """The first element of a raw array (numpy or CuPy) as a Python scalar.

    The one explicit device-to-host read for the places that must know a value on the host:
    a while_loop's condition before each step, a counted loop's trip count, cond's
    predicate. On a GPU it waits for the device to compute `a`.

    While a plan is being captured into a CUDA graph the read is the graph's to make
    (`read_hook`): it ends the graph's segment there, runs it, and reads the value.

    Example::

        mx.context.host_scalar(np.array([[3.0]]))       # 3.0
    """
    hook = getattr(_local, "read_hook", None)
    if hook is not None:
        return hook(a, False)
    return a.reshape(-1)[0].item()


def host_array(a):
    """A raw array (numpy or CuPy) on the host: `a` itself when it is a numpy array, else its
    copy (`.get()`), waiting for the device.

    For the values that steer work on the host once per call, such as an RNN's sequence
    lengths; every other read of device data goes through `NDArray.asnumpy()`.

    Example::

        a = np.arange(3)
        mx.context.host_array(a) is a       # True: a numpy array is already on the host
    """
    if isinstance(a, np.ndarray):
        return a
    hook = getattr(_local, "read_hook", None)
    return a.get() if hook is None else hook(a, True)


class read_hook:
    """Route this thread's `host_scalar` and `host_array` reads of device arrays through
    ``hook(array, whole) -> value`` inside the block (`whole`: the whole array is read, as
    `host_array` does, else its first element): how a CUDA graph capture
    (`gluonlite.executor.graphs`) learns where a plan reads a value on the host.

    Example::

        from gluonlite.context import read_hook, host_scalar
        with read_hook(lambda a, whole: 7.0):
            host_scalar(np.array([3.0]))        # 7.0: the hook answers the read
    """

    def __init__(self, hook):
        self.hook = hook

    def __enter__(self):
        self._old = getattr(_local, "read_hook", None)
        _local.read_hook = self.hook
        return self

    def __exit__(self, *exc):
        _local.read_hook = self._old


def synchronize(ctx=None):
    """Wait until the device has finished the work queued on it (CuPy runs kernels
    asynchronously: a timer must wait before it reads the clock).

    Args:
        ctx: the context to wait for; None waits for every GPU used so far. cpu contexts
            compute synchronously: nothing to wait for.

    Example::

        y = nd.ones((2, 2)) * 2
        mx.context.synchronize(mx.cpu())    # nothing to wait for on cpu
    """
    if ctx is not None:
        ids = [ctx.device_id] if ctx.device_type == "gpu" else []
    else:
        ids = sorted(_USED_GPUS)
    if not ids:
        return
    cp = _cupy()
    if cp is None:  # no GPU backend: nothing was queued anywhere
        return
    for i in ids:
        cp.cuda.Device(i).synchronize()
