"""DLPack exchange: `to_dlpack_for_read`/`to_dlpack_for_write` hand an NDArray's memory out as
a DLPack capsule; `from_dlpack` wraps a capsule (or any object with ``__dlpack__``) as an
NDArray without copying.

numpy makes the capsules (``ndarray.__dlpack__``). numpy reads foreign capsules only
read-only, while MXNet's `from_dlpack` gives a writable array (that is what
``to_dlpack_for_write`` is for), so a capsule is opened here by the DLPack protocol itself:
its ``DLManagedTensor`` is read with ctypes, the capsule renamed ``used_dltensor`` (it is
consumed once), and its deleter called when the last array viewing the memory is gone.
"""
import ctypes
import weakref

import numpy as np
from ..context import cpu
from .ndarray import INSTALLED, NDArray

__all__ = ["to_dlpack_for_read", "to_dlpack_for_write", "from_dlpack"]


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(_DLManagedTensor))
_DLManagedTensor._fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                             ("deleter", _DELETER)]

_api = ctypes.pythonapi
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]

_KDLCPU = 1
# DLPack type codes: 0 int, 1 uint, 2 float, 6 bool
_DTYPES = {(0, 8): np.int8, (0, 32): np.int32, (0, 64): np.int64, (1, 8): np.uint8,
           (2, 16): np.float16, (2, 32): np.float32, (2, 64): np.float64, (6, 8): np.bool_}


def _numpy_exports_bool():
    try:
        np.zeros(1, np.bool_).__dlpack__()
    except (TypeError, BufferError):
        return False
    return True


# numpy < 1.25 refuses to export bool arrays over DLPack (kDLBool came later to its exporter)
_NUMPY_EXPORTS_BOOL = _numpy_exports_bool()


def _capsule(x, what):
    if not isinstance(x, NDArray):
        raise TypeError(f"{what}: expected an NDArray, got {type(x).__name__}")
    data = x._data
    if data.dtype == np.bool_ and isinstance(data, np.ndarray) and not _NUMPY_EXPORTS_BOOL:
        # export the same bytes as uint8, then mark the tensor bool (DLPack code 6, 8 bits),
        # what newer numpy writes itself
        capsule = data.view(np.uint8).__dlpack__()
        managed = ctypes.cast(_api.PyCapsule_GetPointer(capsule, b"dltensor"),
                              ctypes.POINTER(_DLManagedTensor))
        managed.contents.dl_tensor.dtype.code = 6
        return capsule
    return data.__dlpack__()


def to_dlpack_for_read(data):
    """A DLPack capsule viewing `data`'s memory, for reading (no copy).

    Returns:
        A PyCapsule named "dltensor"; it can be consumed once (by `from_dlpack`, or another
        framework's).

    Raises:
        TypeError: `data` is not an NDArray.

    Example::

        x = nd.array([1, 2])
        nd.from_dlpack(nd.to_dlpack_for_read(x)).asnumpy()   # [1. 2.] (x's memory, no copy)
    """
    return _capsule(data, "to_dlpack_for_read")


def to_dlpack_for_write(data):
    """A DLPack capsule viewing `data`'s memory, for writing (no copy): writes through the
    consumer's array are seen in `data`.

    Raises:
        TypeError: `data` is not an NDArray.

    Example::

        x = nd.array([1, 2])
        y = nd.from_dlpack(nd.to_dlpack_for_write(x))
        y[0] = 5
        x.asnumpy()   # [5. 2.]
    """
    return _capsule(data, "to_dlpack_for_write")


class _Owner:
    """Holds a consumed DLManagedTensor; calls its deleter when no array views it."""

    def __init__(self, ptr, managed):
        self._finalizer = weakref.finalize(self, _release, ptr, managed.deleter)


def _release(ptr, deleter):
    if deleter:
        deleter(ctypes.cast(ptr, ctypes.POINTER(_DLManagedTensor)))


def _open_capsule(capsule):
    if not _api.PyCapsule_IsValid(capsule, b"dltensor"):
        raise ValueError("from_dlpack: the capsule is not an unused DLPack tensor (a capsule "
                         "is consumed once; 'used_dltensor' ones cannot be read again)")
    ptr = _api.PyCapsule_GetPointer(capsule, b"dltensor")
    managed = ctypes.cast(ptr, ctypes.POINTER(_DLManagedTensor)).contents
    t = managed.dl_tensor
    if t.device.device_type != _KDLCPU:
        raise ValueError(f"from_dlpack: the capsule's memory is on DLPack device type "
                         f"{t.device.device_type}; only host memory (kDLCPU, 1) is read here "
                         "(for GPU memory use CuPy's from_dlpack)")
    key = (t.dtype.code, t.dtype.bits)
    if key not in _DTYPES or t.dtype.lanes != 1:
        raise ValueError(f"from_dlpack: unsupported DLPack dtype (code {t.dtype.code}, "
                         f"{t.dtype.bits} bits, {t.dtype.lanes} lanes)")
    dtype = np.dtype(_DTYPES[key])
    shape = tuple(t.shape[i] for i in range(t.ndim))
    if t.strides:
        strides = tuple(t.strides[i] * dtype.itemsize for i in range(t.ndim))
    else:
        strides = tuple(int(s) for s in np.empty(shape, dtype).strides) if shape else ()
    _api.PyCapsule_SetName(capsule, b"used_dltensor")
    extent = 1 + sum((n - 1) * abs(st) for n, st in zip(shape, strides)) if all(shape) else 0
    buf = (ctypes.c_char * max(extent * dtype.itemsize, 1)).from_address(
        t.data + t.byte_offset)
    # Every view of the memory keeps `buf` alive (numpy's base chain), and `buf` the owner
    # whose finalizer hands the tensor back to its producer.
    buf._owner = _Owner(ptr, managed)
    flat = np.frombuffer(buf, dtype=np.uint8)[:extent * dtype.itemsize].view(dtype)
    return np.lib.stride_tricks.as_strided(flat, shape=shape, strides=strides, writeable=True)


def from_dlpack(dlpack):
    """An NDArray viewing the memory of a DLPack capsule (from `to_dlpack_for_read`/
    `to_dlpack_for_write`, or another framework) or of an object with ``__dlpack__`` (a
    numpy array...), without copying.

    Args:
        dlpack: a DLPack ``PyCapsule`` (consumed: it cannot be opened twice) or an object
            with a ``__dlpack__`` method.

    Returns:
        NDArray: on the cpu context, sharing the memory (writes show in the producer).

    Raises:
        TypeError: neither a capsule nor an object with ``__dlpack__``.
        ValueError: a capsule already consumed, on a device other than the host, or of a
            dtype gluonlite does not have.

    Example::

        x = nd.array([1, 2])
        y = nd.from_dlpack(x.to_dlpack_for_write())
        y[0] = 5          # x[0] is 5 too
    """
    if hasattr(dlpack, "__dlpack__"):
        return NDArray(np.from_dlpack(dlpack), cpu())
    if type(dlpack).__name__ != "PyCapsule":
        raise TypeError(f"from_dlpack: expected a DLPack capsule or an object with "
                        f"__dlpack__, got {type(dlpack).__name__}")
    return NDArray(_open_capsule(dlpack), cpu())


INSTALLED.update(to_dlpack_for_read=to_dlpack_for_read,
                 to_dlpack_for_write=to_dlpack_for_write)
