"""MXNet's binary NDArray-list file (``.params``): `save` and `load`.

Layout (little-endian)::

    uint64 0x112 (list magic), uint64 0 (reserved), uint64 count
    count x array:
        uint32 0xF993FAC9 (V2 magic), int32 storage type (0 = dense),
        uint32 ndim, int64 dims[ndim], int32 dev_type, int32 dev_id,
        int32 type_flag (MXNet dtype code), raw data (C order)
    a sparse array (storage type 1 = row_sparse, 2 = csr) has, after its storage type, the
    shape of its stored values (int32 ndim, int64 dims); after type_flag, per aux array
    (row_sparse: indices; csr: indptr, indices) its dtype code and shape; then the values and
    the aux arrays' raw data
    uint64 name count (0 or count), then per name: uint64 length + utf-8 bytes

`save` writes V2, and V3 (0xF993FACA, the same layout) under NumPy shape semantics
(`mx.util.is_np_shape`), where ndim 0 is a scalar (0-d) array and 0 a real size. As in MXNet,
a V3 file loads only under NumPy shape semantics and a V2/V1/V0 file only outside them (or
with them turned on for every thread, `set_np_shape(2)`); the error says which, and names
``is_np_shape`` (Gluon's `load_parameters` reads a legacy file under NumPy semantics by
switching them off for the read, as MXNet's does). `load` also reads the older layouts: V1
(magic 0xF993FAC8, no storage type) and the legacy V0 of MXNet before 0.9 (no magic: uint32
ndim, then uint32 dims). An array saved with no shape (ndim 0 outside V3, MXNet's "none"
array) loads as None.

Loading checks every header against the bytes really left in the file before it allocates
anything, checks a sparse array's indices against its shape (`sparse_check`: in range,
`indptr` non-decreasing, sorted and unique), and never executes code from the file.
"""
import struct

import numpy as np

from ..base import CODE_DTYPES, DTYPE_CODES, MXNetValueError, write_atomically
from ..context import current_context
from . import sparse
from .ndarray import INSTALLED, NDArray
from .sparse_check import csr_problem, row_sparse_problem
from .. import util

__all__ = ["save", "load", "load_frombuffer", "dumps", "loads"]

LIST_MAGIC = 0x112
V2_MAGIC = 0xF993FAC9
V1_MAGIC = 0xF993FAC8
V3_MAGIC = 0xF993FACA
_MAX_NDIM = 32


def _to_numpy(a):
    return a.asnumpy() if hasattr(a, "asnumpy") else np.asarray(a)


def dumps(data):
    """The bytes of `data` (an NDArray, a list of them, or a dict name -> NDArray) in MXNet's
    NDArray-list format.

    Raises:
        TypeError: `data` is not one of those, or a dtype MXNet cannot store.

    Example::

        from gluonlite.ndarray.serialization import dumps, loads
        arrays, names = loads(dumps({'w': nd.array([1, 2])}))
        names, arrays[0]   # (['w'], array([1., 2.], dtype=float32))
    """
    if isinstance(data, NDArray):
        data = [data]
    if isinstance(data, dict):
        names = list(data.keys())
        arrays = [data[k] for k in names]
        for k in names:
            if not isinstance(k, str):
                raise TypeError(f"nd.save: dict keys must be strings, got {type(k).__name__}")
    elif isinstance(data, (list, tuple)):
        names, arrays = [], list(data)
    else:
        raise TypeError("nd.save: data must be an NDArray, a list of NDArrays or a dict "
                        f"str -> NDArray, got {type(data).__name__}")
    parts = [struct.pack("<QQQ", LIST_MAGIC, 0, len(arrays))]
    for i, a in enumerate(arrays):
        if not isinstance(a, NDArray):
            what = names[i] if names else i
            raise TypeError(f"nd.save: entry {what!r} is a {type(a).__name__}, not an NDArray")
        if a.stype != "default":
            parts.append(_sparse_record(a))
            continue
        parts.append(array_bytes(a))
    parts.append(struct.pack("<Q", len(names)))
    for n in names:
        b = n.encode("utf-8")
        parts.append(struct.pack("<Q", len(b)))
        parts.append(b)
    return b"".join(parts)


def array_bytes(a):
    """One dense NDArray's record in MXNet's format (V2), as MXNet's ``NDArray.__getstate__``
    pickles it and ``nd.save`` writes it.

    Args:
        a: a dense NDArray (its context's device type and id go into the record).

    Returns:
        bytes: the record (V3 under NumPy shape semantics, else V2), little-endian values.

    Raises:
        TypeError: a dtype MXNet cannot store.

    Example::

        from gluonlite.ndarray.serialization import array_bytes
        len(array_bytes(nd.ones((2,))))   # 40: header 12, shape 8, device and dtype 12, values 8
    """
    x = np.asarray(_to_numpy(a), order="C")  # (ascontiguousarray would make a 0-d array 1-d)
    code = DTYPE_CODES.get(x.dtype)
    if code is None:
        raise TypeError(f"nd.save: dtype {x.dtype} cannot be stored")
    magic = V3_MAGIC if _np_shape()[0] else V2_MAGIC
    return b"".join([struct.pack("<IiI", magic, 0, x.ndim),
                     struct.pack(f"<{x.ndim}q", *x.shape),
                     struct.pack("<iii", a.context.device_typeid, a.context.device_id, code),
                     x.astype(x.dtype.newbyteorder("<"), copy=False).tobytes()])


def array_from_bytes(buf, where):
    """The numpy values of one dense array record (`array_bytes`, or MXNet's pickled
    ``{'handle': ...}`` bytes; any layout `load` reads). The device it was saved from is
    not kept: the caller places the values.

    Args:
        buf: the record's bytes (any bytes-like object).
        where: what the bytes are, named in an error (a file name, 'pickle').

    Returns:
        numpy.ndarray: the values, with the record's shape and dtype.

    Raises:
        ValueError: bytes that are not one whole dense array record (naming `where`).

    Example::

        from gluonlite.ndarray.serialization import array_bytes, array_from_bytes
        array_from_bytes(array_bytes(nd.ones((2,))), 'x')   # [1. 1.]
    """
    r = _Reader(bytes(buf), where)
    x = _read_array(r, 0)
    if not isinstance(x, np.ndarray):
        raise r.fail("not a dense array record")
    if r.left():
        raise r.fail(f"{r.left()} bytes left after the array")
    return x


_STYPE_CODES = {"row_sparse": 1, "csr": 2}


def _shape_bytes(shape):
    return struct.pack(f"<i{len(shape)}q", len(shape), *shape)


def _le(x):
    x = np.ascontiguousarray(x)
    return x.astype(x.dtype.newbyteorder("<"), copy=False).tobytes()


def _sparse_record(a):
    """One sparse array's record (MXNet's NDArray::Save for row_sparse and csr)."""
    data, aux = a._sdata, a._aux()
    code = DTYPE_CODES.get(data.dtype)
    if code is None:
        raise TypeError(f"nd.save: dtype {data.dtype} cannot be stored")
    parts = [struct.pack("<Ii", V2_MAGIC, _STYPE_CODES[a.stype]), _shape_bytes(data.shape),
             _shape_bytes(a.shape),
             struct.pack("<iii", a.context.device_typeid, a.context.device_id, code)]
    for x in aux:
        parts.append(struct.pack("<i", DTYPE_CODES[x.dtype]) + _shape_bytes(x.shape))
    parts.append(_le(data))
    parts.extend(_le(x) for x in aux)
    return b"".join(parts)


class _SparseRecord:
    """A sparse array read from a file: storage type, shape, values and aux arrays."""

    def __init__(self, stype, shape, data, aux):
        self.stype, self.shape, self.data, self.aux = stype, shape, data, aux

    def problem(self):
        """What breaks the storage rules (`sparse_check`), or None."""
        if self.stype == "csr":
            return csr_problem(self.shape, self.data, self.aux[1], self.aux[0])
        return row_sparse_problem(self.shape, self.data, self.aux[0])

    def build(self, ctx):
        if self.stype == "csr":
            return sparse._new_csr(self.data, self.aux[1], self.aux[0], self.shape, ctx)
        return sparse._new_row_sparse(self.data, self.aux[0], self.shape, ctx)


def save(fname, data):
    """Save NDArrays to `fname` in MXNet's binary format (atomically: a temp file renamed into
    place, so a failure never leaves a half-written file).

    Args:
        fname: the path.
        data: an NDArray, a list of NDArrays, or a dict str -> NDArray.

    Example::

        nd.save('x.params', {'w': nd.ones((2, 3))})
        nd.load('x.params')['w'].shape   # (2, 3)
    """
    write_atomically(fname, dumps(data))


class _Reader:
    """Reads little-endian fields from a bytes object, checking the bytes left first."""

    def __init__(self, buf, where):
        self.buf, self.pos, self.where = buf, 0, where

    def left(self):
        return len(self.buf) - self.pos

    def fail(self, msg):
        # an MXNetError too: MXNet's tests expect one for a malformed buffer
        return MXNetValueError(f"{self.where}: not a valid MXNet NDArray file: {msg} (at byte "
                          f"{self.pos} of {len(self.buf)})")

    def take(self, n, what):
        if n < 0 or n > self.left():
            raise self.fail(f"truncated: {what} needs {n} bytes but only {self.left()} remain")
        b = self.buf[self.pos:self.pos + n]
        self.pos += n
        return b

    def unpack(self, fmt, what):
        return struct.unpack("<" + fmt, self.take(struct.calcsize("<" + fmt), what))


def _np_shape():
    """(NumPy shape semantics on in this thread, on for every thread)."""
    return util.is_np_shape(), util._np_shape_global[0]


def _check_semantics(r, what, magic):
    on, everywhere = _np_shape()
    if magic == V3_MAGIC and not on:
        raise MXNetValueError(f"{r.where}: {what} was saved in NumPy shape semantics "
                              "(is_np_shape), so it must be loaded in them: load it inside "
                              "`with mx.np_shape(True)` (or a function decorated with "
                              "use_np_shape)")
    if magic != V3_MAGIC and on and not everywhere:
        raise MXNetValueError(f"{r.where}: {what} was not saved in NumPy shape semantics "
                              "(is_np_shape), but is loaded in them: load it inside "
                              "`with mx.np_shape(False)`")


def _read_array(r, k):
    """One array record: V2/V3 (magic, storage type, shape), V1 (magic, shape with int64
    dims) or the legacy V0 (no magic: the first uint32 is ndim, dims are uint32)."""
    what = f"array {k}"
    magic, = r.unpack("I", f"{what} magic")
    _check_semantics(r, what, magic)
    if magic in (V2_MAGIC, V3_MAGIC):
        stype, = r.unpack("i", f"{what} storage type")
        if stype in (1, 2):
            return _read_sparse(r, what, stype)
        if stype != 0:
            raise r.fail(f"{what} has unknown storage type {stype} (0 dense, 1 row_sparse, "
                         "2 csr)")
    if magic in (V1_MAGIC, V2_MAGIC, V3_MAGIC):
        ndim, = r.unpack("i", f"{what} ndim")
        if ndim > _MAX_NDIM:
            raise r.fail(f"{what} claims {ndim} dimensions (at most {_MAX_NDIM} supported)")
        if ndim < 0 or (ndim == 0 and magic != V3_MAGIC):
            return None  # MXNet's "none" array: a shape and nothing else
        dims = r.unpack(f"{ndim}q", f"{what} shape")
    elif magic <= _MAX_NDIM:
        if magic == 0:
            return None
        dims = r.unpack(f"{magic}I", f"{what} shape (legacy V0 layout)")
    else:
        raise r.fail(f"{what} starts with magic {magic:#x}, expected {V2_MAGIC:#x}, "
                     f"{V1_MAGIC:#x} or the ndim of the legacy V0 layout")
    _check_dims(r, dims, f"{what} shape")
    _dev_type, _dev_id, code = r.unpack("iii", f"{what} context and dtype")
    dtype = CODE_DTYPES.get(code)
    if dtype is None:
        raise r.fail(f"{what} has unknown dtype code {code}")
    return _read_raw(r, dims, dtype, what).reshape(dims)


def _read_shape(r, what):
    ndim, = r.unpack("i", f"{what} ndim")
    if not 0 <= ndim <= _MAX_NDIM:
        raise r.fail(f"{what} claims {ndim} dimensions")
    dims = r.unpack(f"{ndim}q", what)
    _check_dims(r, dims, what)
    return dims


def _check_dims(r, dims, what):
    """Dimensions that no array can have: negative, or (zeros aside) more elements than
    numpy can count (an empty array of shape (0, 2**62) is still refused by numpy)."""
    if any(d < 0 for d in dims):
        raise r.fail(f"{what} has a negative dimension in {dims}")
    size = 1
    for d in dims:
        size *= max(d, 1)
    if size >= 1 << 62:
        raise r.fail(f"{what} {dims} is larger than any array")


def _read_raw(r, shape, dtype, what):
    count = 1
    for d in shape:
        count *= d
    nbytes = count * dtype.itemsize
    if nbytes > r.left():
        raise r.fail(f"truncated: {what} of shape {shape} and dtype {dtype.name} needs "
                     f"{nbytes} bytes but only {r.left()} remain")
    raw = r.take(nbytes, what)
    return np.frombuffer(raw, dtype=dtype.newbyteorder("<")).astype(dtype).reshape(shape)


def _read_sparse(r, what, stype):
    """The rest of a row_sparse (1) or csr (2) array record, after its storage type."""
    sshape = _read_shape(r, f"{what} storage shape")
    shape = _read_shape(r, f"{what} shape")
    if not shape:
        return None
    _dev_type, _dev_id, code = r.unpack("iii", f"{what} context and dtype")
    dtype = CODE_DTYPES.get(code)
    if dtype is None:
        raise r.fail(f"{what} has unknown dtype code {code}")
    aux_meta = []
    for i in range(2 if stype == 2 else 1):
        acode, = r.unpack("i", f"{what} aux {i} dtype")
        adt = CODE_DTYPES.get(acode)
        if adt is None or adt.kind not in "iu":
            raise r.fail(f"{what} aux {i} has dtype code {acode}, expected an integer type")
        aux_meta.append((adt, _read_shape(r, f"{what} aux {i} shape")))
    data = _read_raw(r, sshape, dtype, f"{what} values")
    aux = tuple(_read_raw(r, s, adt, f"{what} aux {i}").astype(np.int64)
                for i, (adt, s) in enumerate(aux_meta))
    name = "csr" if stype == 2 else "row_sparse"
    bad = (name == "csr" and (len(shape) != 2 or aux[0].shape != (shape[0] + 1,) or
                              aux[1].shape != (sshape[0],))) or \
        (name == "row_sparse" and (aux[0].shape != (sshape[0],) or
                                   tuple(sshape[1:]) != tuple(shape[1:])))
    if bad:
        raise r.fail(f"{what}: {name} parts do not fit shape {shape} (values {sshape}, aux "
                     f"{[a.shape for a in aux]})")
    return _SparseRecord(name, tuple(shape), data, aux)


def loads(buf, where="<bytes>"):
    """Parse MXNet NDArray-list bytes into (list of numpy arrays, or a `_SparseRecord` for
    each of the sparse arrays, list of names).

    Args:
        buf: the bytes of an NDArray file (what `nd.save` writes).
        where: what the bytes are, named in an error (default '<bytes>').

    Returns:
        (list, list of str): the arrays, and their names (empty for a saved list).

    Raises:
        ValueError: bytes that are not a valid NDArray file (bad magic, truncated records,
            parts that do not fit), naming `where`.

    Example::

        from gluonlite.ndarray.serialization import dumps, loads
        loads(dumps([nd.zeros((1,))]))   # ([array([0.], dtype=float32)], [])
    """
    r = _Reader(buf, where)
    magic, _reserved = r.unpack("QQ", "header")
    if magic != LIST_MAGIC:
        raise r.fail(f"header magic is {magic:#x}, expected {LIST_MAGIC:#x}")
    count, = r.unpack("Q", "array count")
    # The smallest array record (a "none" array) is 4 bytes: a count beyond that is a lie.
    if count > r.left() // 4:
        raise r.fail(f"claims {count} arrays but only {r.left()} bytes remain")
    arrays = [_read_array(r, k) for k in range(count)]
    n_names, = r.unpack("Q", "name count")
    if n_names not in (0, count):
        raise r.fail(f"has {count} arrays but {n_names} names")
    names = []
    for k in range(n_names):
        n, = r.unpack("Q", f"length of name {k}")
        raw = r.take(n, f"name {k}")
        try:
            names.append(raw.decode("utf-8"))
        except UnicodeDecodeError:
            raise r.fail(f"name {k} is not UTF-8") from None
    if r.left():
        raise r.fail(f"{r.left()} unexpected trailing bytes")
    for k, a in enumerate(arrays):  # the parts' values, now that the array has its name
        problem = a.problem() if isinstance(a, _SparseRecord) else None
        if problem:
            name = f" ({names[k]!r})" if names else ""
            raise MXNetValueError(f"{where}: not a valid MXNet NDArray file: array {k}{name}, "
                                  f"a {a.stype} array of shape {a.shape}: {problem}")
    return arrays, names


def _as_ndarrays(arrays, names, ctx, where):
    ctx = ctx or current_context()
    nds = [None if a is None else a.build(ctx) if isinstance(a, _SparseRecord) else
           NDArray(ctx.xp.asarray(a), ctx) for a in arrays]
    if names:
        if len(set(names)) != len(names):
            raise ValueError(f"{where}: not a valid MXNet NDArray file: duplicate names")
        return dict(zip(names, nds))
    return nds


def load(fname, ctx=None):
    """Load NDArrays saved by `save` (or by MXNet's ``nd.save``/``export``, in any of its
    layouts: V2, V1, the legacy V0, V3).

    Args:
        fname: the path.
        ctx: the context of the returned arrays (default: current context).

    Returns:
        A dict name -> NDArray when the file stores names, else a list of NDArrays.

    Raises:
        ValueError: the file is truncated or malformed (the message names the file and the
            problem); OSError: it cannot be read.

    Example::

        nd.save('model-0000.params', [nd.array([1, 2])])
        params = nd.load('model-0000.params')
        params[0].asnumpy()   # [1. 2.]
    """
    with open(fname, "rb") as f:
        buf = f.read()
    arrays, names = loads(buf, str(fname))
    return _as_ndarrays(arrays, names, ctx, fname)


def load_frombuffer(buf, ctx=None):
    """Like `load`, from the bytes of such a file (``bytes``, ``bytearray``, or a str of
    latin-1 characters, as MXNet's Python 2 era code passes).

    Args:
        buf: the file's contents.
        ctx: the Context to put the arrays on (default None: the current context).

    Returns:
        list of NDArray, or dict of str to NDArray: as the file was saved (a list, or
        names to arrays).

    Raises:
        TypeError: `buf` is not bytes-like.
        ValueError: the bytes are not a valid NDArray file.

    Example::

        nd.save('x.params', {'w': nd.ones((2,))})
        with open('x.params', 'rb') as f:
            nd.load_frombuffer(f.read())['w'].asnumpy()   # [1. 1.]
    """
    if isinstance(buf, str):
        buf = buf.encode("latin-1")
    if not isinstance(buf, (bytes, bytearray, memoryview)):
        raise TypeError(f"load_frombuffer: buf must be bytes, got {type(buf).__name__}")
    arrays, names = loads(bytes(buf), "load_frombuffer")
    return _as_ndarrays(arrays, names, ctx, "load_frombuffer")


INSTALLED.update(array_bytes=array_bytes, array_from_bytes=array_from_bytes)
