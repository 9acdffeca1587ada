"""`nd.sparse`: MXNet's sparse storage types, ``csr`` and ``row_sparse``.

Storage (what other modules may rely on)
----------------------------------------
A sparse array is an `NDArray` subclass that holds only its compressed parts, as numpy
arrays on the host (whatever its context), in these slots:

- `RowSparseNDArray` (``stype == 'row_sparse'``), any rank >= 1:
  ``_sdata``: the stored rows, shape ``(nnz_rows,) + shape[1:]``, the array's dtype;
  ``_sindices``: int64, shape ``(nnz_rows,)``, the row numbers, strictly increasing.
  A 10^6 x 64 array with 100 stored rows holds 100 x 64 values and 100 indices.
- `CSRNDArray` (``stype == 'csr'``), rank 2: ``_sdata`` (the values, 1-D), ``_sindices``
  (int64 column numbers, 1-D), ``_sindptr`` (int64, ``shape[0] + 1`` row offsets), as
  scipy's ``csr_matrix`` keeps them (columns sorted within a row, no duplicates).
- Both: ``_sshape`` (the logical shape, a tuple) and the `NDArray` slots ``_ctx``,
  ``_entry``, ``_grad``.

``x.raw()`` is the array's raw form (`gluonlite.ops.sparse.arrays`: the same parts, no copy),
what the operators' storage kernels read. These are array types only: which kernel runs for
a call with sparse inputs is the operator's storage rule, asked by the one dispatcher of the
invoke path (`gluonlite.ndarray.storage`). ``x._data`` (the raw array a dense kernel reads) is,
on a sparse array, a dense copy made at each read (on the array's device): what the dispatcher
hands a dense kernel when the operator has none for the storage types (MXNet's "storage
fallback"). Writing into that copy changes nothing (the executor writes sparse gradient
buffers and auxiliary states back itself): write a sparse array with `_assign`/`_assign_dense`
(or ``x[:] = y``, `copyto`).

Helpers for other modules: `_new_row_sparse(data, indices, shape, ctx)`,
`_new_csr(data, indices, indptr, shape, ctx)` (numpy parts, no copy), `wrap(raw, ctx)` (a
raw result as an NDArray), `_from_dense(a, stype, ctx)` (a raw dense array to the storage
type), ``x._assign(y)`` (overwrite x's content with y's values, any storage, keeping x's
storage type).

Example::

    from gluonlite import nd
    a = nd.sparse.csr_matrix(([1., 2.], [0, 2], [0, 1, 2]), shape=(2, 3))
    a.indptr.asnumpy()                 # [0 1 2]
    nd.sparse.dot(a, nd.ones((3, 4)))  # dense (2, 4)
    r = nd.ones((4, 2)).tostype('row_sparse')
"""
import builtins
import warnings

import numpy as np
import scipy.sparse as spsp

from ..base import MXNetError, MXNetValueError, NotSupportedForSparseNDArray, normalize_dtype
from ..context import Context, current_context  # noqa: F401  (MXNet's module re-exports them)
from ..util import check_call  # noqa: F401
from ..ops.registry import get as get_op
from ..ops.sparse import arrays as _raw
from ..ops.sparse import FUNCTIONS
from .invoke import context_from, plan_for, run_plan
from .ndarray import INSTALLED, NDArray
from .register import _gen_cache
from .sparse_check import csr_problem, row_sparse_problem

__all__ = ["BaseSparseNDArray", "CSRNDArray", "RowSparseNDArray", "NotSupportedForSparseNDArray",
           "csr_matrix", "row_sparse_array", "array", "zeros", "empty", "zeros_like",
           "cast_storage", "c_array_buf"]

_IDX = np.int64
_pyslice = builtins.slice  # this module's `slice` is MXNet's sparse slice operator
# MXNet's aux types per storage type (indptr then indices for csr)
_STORAGE_AUX_TYPES = {"row_sparse": [np.int64], "csr": [np.int64, np.int64]}
_STYPES = ("default", "row_sparse", "csr")


def c_array_buf(ctype, buf):
    """A ctypes array of `ctype` sharing the memory of writable buffer `buf` (MXNet's helper,
    which its sparse module re-exports).

    Example::

        import array, ctypes
        from gluonlite.ndarray.sparse import c_array_buf
        list(c_array_buf(ctypes.c_float, array.array('f', [1, 2])))   # [1.0, 2.0]
    """
    import ctypes  # noqa: F401  (ctype is a ctypes type)
    return (ctype * len(buf)).from_buffer(buf)


def _shape_str(shape):
    return "x".join(str(d) for d in shape)


class BaseSparseNDArray(NDArray):
    """The base class of arrays stored sparsely (`CSRNDArray`, `RowSparseNDArray`).

    Dense operators accept them (computing on their dense values, a dense result); the
    operators of `nd.sparse` (and `nd.dot`, `nd.elemwise_add`, ... given sparse inputs)
    keep the storage where MXNet does. `size` and `reshape` are refused, as in MXNet.

    Example::

        x = nd.ones((2, 2)).tostype('row_sparse')
        isinstance(x, nd.sparse.BaseSparseNDArray)   # True
    """

    __slots__ = ("_sd", "_six", "_sshape", "_unverified")
    _sparse = True

    def __init__(self, *args, **kwargs):
        maker = {"CSRNDArray": "nd.sparse.csr_matrix", "RowSparseNDArray":
                 "nd.sparse.row_sparse_array"}.get(type(self).__name__, "nd.sparse.zeros")
        raise TypeError(f"{type(self).__name__}: make one with {maker}, nd.sparse.zeros or "
                        "x.tostype(stype), not with the class itself")

    # ---- the parts, behind a gate -------------------------------------------------------
    # Parts given by a user are checked once, before anything computes with them: MXNet lets
    # a bad array be made (its own tests make some to call check_format on), but a kernel
    # must never index with them or sum values that lie outside the shape. `_unverified`
    # names the maker then, else it is None.
    @property
    def _sdata(self):
        if self._unverified:
            self._verify()
        return self._sd

    @_sdata.setter
    def _sdata(self, value):
        self._sd = value

    @property
    def _sindices(self):
        if self._unverified:
            self._verify()
        return self._six

    @_sindices.setter
    def _sindices(self, value):
        self._six = value

    def _verify(self):
        maker, self._unverified = self._unverified, None
        problem = self._format_problem(True)
        if problem:
            self._unverified = maker  # stays unusable: every later use says the same
            raise MXNetValueError(f"{maker}: invalid {self.stype} array of shape "
                                  f"{self._sshape}: {problem}")

    # ---- what the dense code paths read -------------------------------------------------
    @property
    def _data(self):
        d = self._dense()
        return d if self._ctx.device_type == "cpu" else self._ctx.xp.asarray(d)

    @property
    def shape(self):
        """The (logical) shape as a tuple.

        Example::

            x = nd.sparse.csr_matrix(([1., 2.], [0, 2], [0, 1, 2]), shape=(2, 3))
            x.shape   # (2, 3)
        """
        return self._sshape

    @property
    def dtype(self):
        """The numpy dtype type of the values.

        Example::

            x = nd.sparse.csr_matrix(([1., 2.], [0, 2], [0, 1, 2]), shape=(2, 3))
            x.dtype   # <class 'numpy.float32'>
        """
        return self._sd.dtype.type

    @property
    def ndim(self):
        """Number of dimensions.

        Example::

            r = nd.sparse.row_sparse_array(([[1., 2.]], [1]), shape=(3, 2))
            r.ndim   # 2
        """
        return len(self._sshape)

    @property
    def size(self):
        """Refused, as in MXNet (the element count of a sparse array is ambiguous).

        Raises:
            NotImplementedError: always.

        Example::

            x = nd.sparse.csr_matrix(([1., 2.], [0, 2], [0, 1, 2]), shape=(2, 3))
            try:
                x.size
            except NotImplementedError:
                print('use np.prod(x.shape) or x.data.size')
        """
        raise NotImplementedError(f"{type(self).__name__}.size: the size of a sparse array is "
                                  "ambiguous; use np.prod(x.shape) or x.data.size")

    @property
    def handle(self):
        """The compressed parts (a tuple of numpy arrays: data, then aux arrays).

        Example::

            r = nd.sparse.row_sparse_array(([[1., 2.]], [1]), shape=(3, 2))
            len(r.handle)   # 2
        """
        return (self._sdata,) + self._aux()

    def _dense(self):
        return self.raw().dense()

    def raw(self):
        """The array's raw form (`gluonlite.ops.sparse.arrays`), holding these very parts: what
        the storage kernels read.

        Example::

            r = nd.sparse.row_sparse_array(([[1., 2.]], [1]), shape=(3, 2))
            type(r.raw()).__name__   # 'RowSparse'
        """
        return self._raw_type(self._sdata, *self._aux()[::-1], self._sshape)

    def _set_raw(self, raw):
        """Hold the parts of raw array `raw` (of this storage type and shape)."""
        self._sdata = raw.data
        self._set_aux(raw.aux())

    # ---- conversion ----------------------------------------------------------------------
    def asnumpy(self):
        """A dense numpy copy of the values.

        Example::

            r = nd.sparse.row_sparse_array(([[1., 2.]], [1]), shape=(3, 2))
            r.asnumpy()   # [[0. 0.] [1. 2.] [0. 0.]]
        """
        return self._dense()

    def __repr__(self):
        return f"\n<{type(self).__name__} {_shape_str(self.shape)} @{self._ctx}>"

    def __reduce__(self):
        return (_rebuild, (self.stype, self._sshape, self._sdata, self._aux(), str(self._ctx)))

    @property
    def data(self):
        """The stored values as a dense NDArray (a copy).

        Example::

            x = nd.sparse.csr_matrix(([1., 2.], [0, 2], [0, 1, 2]), shape=(2, 3))
            x.data.asnumpy()   # [1. 2.]
        """
        return NDArray(self._ctx.xp.asarray(self._sdata.copy()), self._ctx)

    @property
    def indices(self):
        """The indices as a dense int64 NDArray (a copy), the row numbers of a row_sparse
        array or the column numbers of a csr one.

        Example::

            r = nd.sparse.row_sparse_array(([[1., 2.]], [1]), shape=(3, 2))
            r.indices.asnumpy()   # [1]
        """
        return NDArray(self._ctx.xp.asarray(self._sindices.copy()), self._ctx)

    @property
    def _num_aux(self):
        return len(_STORAGE_AUX_TYPES[self.stype])

    @property
    def _aux_types(self):
        return [a.dtype.type for a in self._aux()]

    def _aux_type(self, i):
        return self._aux()[i].dtype.type

    def copy(self):
        """A copy with the same storage type and context.

        Example::

            r = nd.sparse.row_sparse_array(([[1., 2.]], [1]), shape=(3, 2))
            r.copy().stype   # 'row_sparse'
        """
        return _like(self, self._sdata.copy(), tuple(a.copy() for a in self._aux()))

    def copyto(self, other):
        """Copy into `other` (an NDArray of the same shape: dense, or this storage type;
        returned) or to a new array of this storage type on `other` (a Context).

        Raises:
            TypeError: `other` is an array of the other sparse storage type, or not an
                NDArray or Context.
            ValueError: shapes differ.

        Example::

            r = nd.sparse.row_sparse_array(([[1., 2.]], [1]), shape=(3, 2))
            out = nd.zeros((3, 2))
            r.copyto(out).asnumpy()   # [[0. 0.] [1. 2.] [0. 0.]]
        """
        if isinstance(other, Context):
            out = self.copy()
            out._ctx = other
            return out
        if not isinstance(other, NDArray):
            raise TypeError(f"copyto: expected an NDArray or a Context, got "
                            f"{type(other).__name__}")
        if other is self:
            warnings.warn("You are attempting to copy an array to itself", RuntimeWarning)
            return False
        if other.stype not in ("default", self.stype):
            raise TypeError(f"copyto: a {self.stype} array cannot be copied into a "
                            f"{other.stype} array")
        if tuple(other.shape) != tuple(self.shape):
            raise ValueError(f"copyto: shape {self.shape} does not match the target's "
                             f"{other.shape}")
        if other.stype == "default":
            other._data[...] = self._data
        else:
            other._assign(self)
        return other

    def as_in_context(self, ctx):
        """This array on `ctx` (itself when already there).

        Example::

            r = nd.sparse.row_sparse_array(([[1., 2.]], [1]), shape=(3, 2))
            r.as_in_context(mx.cpu()) is r   # True
        """
        return self if ctx == self._ctx else self.copyto(ctx)

    def astype(self, dtype, copy=True):
        """A copy with values of `dtype`, same storage type.

        Args:
            dtype: the new element type (a name or a numpy dtype).
            copy: always copy (default True); False returns this array itself when it
                already has `dtype`.

        Returns:
            BaseSparseNDArray: of this array's storage type and shape.

        Example::

            r = nd.sparse.row_sparse_array(([[1., 2.]], [1]), shape=(3, 2))
            y = r.astype('float64')
            y.stype, y.dtype   # ('row_sparse', <class 'numpy.float64'>)
        """
        dt = normalize_dtype(dtype)
        if not copy and dt == self._sdata.dtype:
            return self
        return _like(self, self._sdata.astype(dt), tuple(a.copy() for a in self._aux()))

    def tostype(self, stype):
        """A copy with storage type `stype` ('default', or this array's own).

        Raises:
            ValueError: csr to row_sparse or back (MXNet has no such cast), or an unknown type.

        Example::

            x = nd.sparse.csr_matrix(([1., 2.], [0, 2], [0, 1, 2]), shape=(2, 3))
            x.tostype('default').asnumpy()   # [[1. 0. 0.] [0. 0. 2.]]
        """
        return cast_storage(self, stype)

    def detach(self):
        """The same storage, cut from the autograd graph.

        Example::

            r = nd.sparse.row_sparse_array(([[1., 2.]], [1]), shape=(3, 2))
            r.detach().stype   # 'row_sparse'
        """
        return _like(self, self._sdata, self._aux())

    def asscipy(self):
        """The array as a scipy sparse matrix (csr_matrix; a row_sparse matrix gives a
        csr_matrix of its dense values, 2-D only).

        Example::

            r = nd.sparse.row_sparse_array(([[1., 2.]], [1]), shape=(3, 2))
            r.asscipy().nnz   # 2
        """
        return spsp.csr_matrix(self._dense())

    def reshape(self, *shape, **kwargs):
        """Refused, as in MXNet.

        Raises:
            NotSupportedForSparseNDArray: always.

        Example::

            r = nd.sparse.row_sparse_array(([[1., 2.]], [1]), shape=(3, 2))
            try:
                r.reshape((2, 3))
            except mx.base.NotSupportedForSparseNDArray:
                print('densify first: r.tostype("default").reshape((2, 3))')
        """
        raise NotSupportedForSparseNDArray(self.reshape, None, shape)

    def _at(self, idx):
        raise NotSupportedForSparseNDArray(self._at, "[idx]", idx)

    def _slice(self, start, stop):
        raise NotSupportedForSparseNDArray(self._slice, None, start, stop)

    def wait_to_read(self):
        """Nothing to wait for: sparse arrays are computed on the host when returned.

        Example::

            r = nd.sparse.row_sparse_array(([[1., 2.]], [1]), shape=(3, 2))
            r.wait_to_read()   # returns at once
        """

    # ---- arithmetic: MXNet's sparse operator choice; the storage rules decide the rest --
    def __add__(self, other):
        return _add(self, other)

    def __radd__(self, other):
        return self._reflected(other, "__add__", _add)

    def __sub__(self, other):
        return _subtract(self, other)

    def __rsub__(self, other):
        return self._reflected(other, "__sub__", _subtract)

    def __mul__(self, other):
        return _multiply(self, other)

    def __rmul__(self, other):
        return self._reflected(other, "__mul__", _multiply)

    def __truediv__(self, other):
        return _true_divide(self, other)

    def __rtruediv__(self, other):
        return self._reflected(other, "__truediv__", _true_divide)

    def _reflected(self, other, dense_method, fn):
        # Python asks the subclass first for `dense * sparse`; MXNet computes it as the
        # dense array's broadcast operator.
        if isinstance(other, NDArray) and not other._sparse:
            return getattr(NDArray, dense_method)(other, self)
        return fn(other, self)

    def __neg__(self):
        return self.__mul__(-1.0)

    def _inplace(self, o, fn, sym):
        res = fn(o)
        if res is NotImplemented:
            return res
        self._assign(res)
        return self

    # ---- writing ------------------------------------------------------------------------
    def __setitem__(self, key, value):
        """``x[:] = value``: overwrite the whole array, keeping its storage type (value: an
        NDArray of any storage type, a numpy array, or for row_sparse a number).

        Raises:
            ValueError: any key other than ``[:]``, or a number into a csr array.
        """
        if not (isinstance(key, _pyslice) and key == _pyslice(None)):
            raise ValueError(f"{type(self).__name__}: only [:] is supported for assignment, "
                             f"got key {key!r}")
        if isinstance(value, NDArray):
            if value is not self:
                self._assign(value)
            return
        if isinstance(value, (int, float, np.number)):
            if self.stype == "csr":
                raise ValueError("CSRNDArray: assigning a number is not supported (it would "
                                 "make every entry stored); assign an array")
            self._assign_dense(np.full(self.shape, value, self._sdata.dtype))
            return
        if isinstance(value, (np.ndarray, np.generic, list, tuple)):
            self._assign_dense(np.asarray(value, self._sdata.dtype))
            return
        raise TypeError(f"{type(self).__name__}[:] = value: unsupported value type "
                        f"{type(value).__name__}")

    def _assign(self, src):
        """Overwrite this array's content with `src`'s values (any storage type; same shape),
        keeping this array's storage type and dtype."""
        if tuple(src.shape) != tuple(self._sshape):
            raise ValueError(f"{type(self).__name__}: cannot assign an array of shape "
                             f"{src.shape} to one of shape {self._sshape}")
        if src.stype == self.stype:
            self._sdata = src._sdata.astype(self._sdata.dtype, copy=True)
            self._set_aux(tuple(a.copy() for a in src._aux()))
        else:
            self._assign_dense(_host(src))

    def _assign_dense(self, a):
        """Overwrite this array's content with raw dense array `a` (this storage type kept)."""
        a = np.asarray(a, dtype=self._sdata.dtype)
        if a.shape != self._sshape:
            a = np.broadcast_to(a, self._sshape)
        new = _from_dense(a, self.stype, self._ctx)
        self._sdata = new._sdata
        self._set_aux(new._aux())

    def check_format(self, full_check=True):
        """Check that the compressed parts describe a valid array of this storage type.

        Args:
            full_check: also check every index (O(nnz)); else only the sizes.

        Raises:
            MXNetError: the parts are inconsistent (the message says which rule fails).

        Example::

            x = nd.sparse.csr_matrix(([1., 2.], [0, 2], [0, 1, 2]), shape=(2, 3))
            x.check_format()   # valid: returns None
        """
        problem = self._format_problem(full_check)
        if problem:
            raise MXNetError(f"check_format: invalid {self.stype} array of shape "
                             f"{self._sshape}: {problem}")
        if full_check:
            self._unverified = None


class CSRNDArray(BaseSparseNDArray):
    """A 2-D array in compressed sparse row format: `data` (values), `indices` (their
    column numbers) and `indptr` (row i's values are ``data[indptr[i]:indptr[i+1]]``).

    Make one with `csr_matrix`, ``x.tostype('csr')`` or `zeros('csr', shape)`.

    Example::

        a = nd.sparse.csr_matrix(([1., 2.], [0, 2], [0, 1, 2]), shape=(2, 3))
        a.asnumpy()   # [[1. 0. 0.] [0. 0. 2.]]
    """

    __slots__ = ("_sixptr",)
    _raw_type = _raw.CSR

    @property
    def stype(self):
        """'csr'.

        Example::

            x = nd.sparse.csr_matrix(([1., 2.], [0, 2], [0, 1, 2]), shape=(2, 3))
            x.stype   # 'csr'
        """
        return "csr"

    @property
    def _sindptr(self):
        if self._unverified:
            self._verify()
        return self._sixptr

    @_sindptr.setter
    def _sindptr(self, value):
        self._sixptr = value

    @property
    def indptr(self):
        """The row offsets (int64) as a dense NDArray (a copy).

        Example::

            x = nd.sparse.csr_matrix(([1., 2.], [0, 2], [0, 1, 2]), shape=(2, 3))
            x.indptr.asnumpy()   # [0 1 2]
        """
        return NDArray(self._ctx.xp.asarray(self._sindptr.copy()), self._ctx)

    def _aux(self):
        return (self._sindptr, self._sindices)

    def _set_aux(self, aux):
        self._sindptr, self._sindices = aux

    def _scipy(self):
        return self.raw().scipy()

    def asscipy(self):
        """A scipy ``csr_matrix`` copy of this array.

        Example::

            x = nd.sparse.csr_matrix(([1., 2.], [0, 2], [0, 1, 2]), shape=(2, 3))
            x.asscipy().toarray()   # [[1. 0. 0.] [0. 0. 2.]]
        """
        return spsp.csr_matrix((self._sdata.copy(), self._sindices.copy(),
                                self._sindptr.copy()), shape=self._sshape)

    def __getitem__(self, key):
        """Rows of the matrix: ``x[i]`` (a 1 x n csr array, as MXNet gives), ``x[a:b]``.

        Raises:
            ValueError: a step, or a tuple key (only axis 0 can be sliced).
        """
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            n = self._sshape[0]
            if not -n <= key < n:
                raise IndexError(f"index {key} is out of range for axis 0 of size {n}")
            b = int(key) % n
            return _slice_csr(self, b, b + 1)
        if isinstance(key, _pyslice):
            if key.step not in (None, 1):
                raise ValueError("CSRNDArray only supports continuous slicing on axis 0")
            if key.start is None and key.stop is None:
                return self
            b, e, _ = key.indices(self._sshape[0])
            return _slice_csr(self, b, max(b, e))
        if isinstance(key, tuple):
            raise ValueError("CSRNDArray: multi-dimensional indexing is not supported")
        raise ValueError(f"CSRNDArray: undefined behaviour for key {key!r}")

    def _format_problem(self, full):
        return csr_problem(self._sshape, self._sd, self._six, self._sixptr, full)


class RowSparseNDArray(BaseSparseNDArray):
    """An array of which only some rows (slices along axis 0) are stored: `data` holds them,
    `indices` their row numbers (increasing); the other rows are zero.

    Make one with `row_sparse_array`, ``x.tostype('row_sparse')`` or `zeros('row_sparse',
    shape)`.

    Example::

        r = nd.sparse.row_sparse_array(([[1., 2.]], [3]), shape=(5, 2))
        r.asnumpy()[3]   # [1. 2.]
    """

    __slots__ = ()
    _raw_type = _raw.RowSparse

    @property
    def stype(self):
        """'row_sparse'.

        Example::

            r = nd.sparse.row_sparse_array(([[1., 2.]], [1]), shape=(3, 2))
            r.stype   # 'row_sparse'
        """
        return "row_sparse"

    def _aux(self):
        return (self._sindices,)

    def _set_aux(self, aux):
        self._sindices, = aux

    def __getitem__(self, key):
        """Only ``x[:]`` (the array itself), as in MXNet.

        Raises:
            ValueError: any other key.
        """
        if isinstance(key, _pyslice) and key == _pyslice(None):
            return self
        raise ValueError(f"RowSparseNDArray only supports [:] for __getitem__, got {key!r}")

    def retain(self, *args, **kwargs):
        """The rows given by `indices` only (see `nd.sparse.retain`).

        Example::

            r = nd.sparse.row_sparse_array(([[1., 2.], [3., 4.]], [0, 2]), shape=(3, 2))
            r.retain(nd.array([2], dtype='int64')).indices.asnumpy()   # [2]
        """
        return retain(self, *args, **kwargs)

    def _format_problem(self, full):
        return row_sparse_problem(self._sshape, self._sd, self._six, full)


# ---- building blocks ------------------------------------------------------------------------
def _new_row_sparse(data, indices, shape, ctx=None, check=None):
    """A RowSparseNDArray holding numpy `data` (stored rows) and `indices` (no copy).

    `check`: None for parts a kernel made (trusted); else the name of the public maker, and
    the parts are checked (`sparse_check`) before their first use, the error naming it."""
    x = RowSparseNDArray.__new__(RowSparseNDArray)
    x._sd, x._six, x._sshape = data, np.asarray(indices, _IDX), tuple(shape)
    x._ctx, x._entry, x._grad, x._unverified = ctx or current_context(), None, None, check
    return x


def _new_csr(data, indices, indptr, shape, ctx=None, check=None):
    """A CSRNDArray holding numpy `data`, `indices`, `indptr` (no copy); `check` as for
    `_new_row_sparse`."""
    x = CSRNDArray.__new__(CSRNDArray)
    x._sd, x._sshape = data, tuple(shape)
    x._six, x._sixptr = np.asarray(indices, _IDX), np.asarray(indptr, _IDX)
    x._ctx, x._entry, x._grad, x._unverified = ctx or current_context(), None, None, check
    return x


def _like(x, data, aux):
    if x.stype == "csr":
        return _new_csr(data, aux[1], aux[0], x._sshape, x._ctx)
    return _new_row_sparse(data, aux[0], x._sshape, x._ctx)


def _rebuild(stype, shape, data, aux, ctx):
    ctx = context_from({"ctx": ctx})
    if stype == "csr":
        return _new_csr(data, aux[1], aux[0], shape, ctx)
    return _new_row_sparse(data, aux[0], shape, ctx)


def _host(x):
    """The dense values of NDArray `x` (any storage) as a numpy array."""
    return x._dense() if isinstance(x, BaseSparseNDArray) else x.asnumpy()


def _from_scipy(m, ctx=None, dtype=None):
    if m.format in ("csr", "csc", "bsr"):  # made from parts scipy checked only for size
        try:
            m.check_format(full_check=True)
        except ValueError as e:
            raise ValueError(f"nd.sparse: invalid scipy {m.format} matrix of shape {m.shape}: "
                             f"{e}") from None
    return wrap(_raw.from_scipy(m, dtype), ctx or current_context())


def _from_dense(a, stype, ctx=None):
    """Raw dense array `a` (numpy, or a device array) in storage `stype` (see
    `gluonlite.ops.sparse.arrays.from_dense`)."""
    return wrap(_raw.from_dense(a, stype), ctx or current_context())


def _slice_csr(x, b, e):
    ip = x._sindptr
    lo, hi = ip[b], ip[e]
    return _new_csr(x._sdata[lo:hi].copy(), x._sindices[lo:hi].copy(), ip[b:e + 1] - lo,
                    (e - b, x._sshape[1]), x._ctx)


def _dtype_of(src, dtype):
    """MXNet's default dtype: the source's for arrays, float32 for lists."""
    if dtype is not None:
        return normalize_dtype(dtype)
    if isinstance(src, (NDArray, np.ndarray)) or spsp.issparse(src):
        return np.dtype(src.dtype)
    return np.dtype(np.float32)


def _np(x, dtype=None):
    if isinstance(x, NDArray):
        x = _host(x)
    try:
        return np.asarray(x, dtype=dtype)
    except (TypeError, ValueError):
        raise TypeError(f"nd.sparse: values must be array-like, got {type(x).__name__}") \
            from None


def _check_shape(got, want, what):
    if want is not None and tuple(got) != tuple(want):
        raise ValueError(f"{what}: shape mismatch: the data gives {tuple(got)}, shape= says "
                         f"{tuple(want)}")


def _is_shape(t):
    return isinstance(t, tuple) and all(isinstance(d, (int, np.integer)) for d in t)


# ---- constructors -------------------------------------------------------------------------
def csr_matrix(arg1, shape=None, ctx=None, dtype=None):
    """A `CSRNDArray` (2-D, compressed sparse row).

    Args:
        arg1: one of ``(data, indices, indptr)``; ``(data, (row, col))`` (coordinates);
            ``(M, N)`` (an all-zero matrix); a `CSRNDArray` or scipy sparse matrix; a dense
            NDArray, numpy array or nested list.
        shape: the shape (inferred from the parts when None).
        ctx: the context (default: the current one).
        dtype: the value dtype (default: the source's, float32 for lists).

    Returns:
        A CSRNDArray.

    Raises:
        ValueError: inconsistent parts or shape, a row_sparse source, a tuple of bad length.

    Example::

        x = nd.sparse.csr_matrix(([1., 2.], [0, 2], [0, 1, 2]), shape=(2, 3))
        x.asnumpy()   # [[1. 0. 0.] [0. 0. 2.]]
    """
    if isinstance(arg1, tuple):
        if len(arg1) == 2 and isinstance(arg1[1], tuple) and len(arg1[1]) == 2:
            data, (row, col) = arg1
            coo = spsp.coo_matrix((_np(data), (_np(row, _IDX), _np(col, _IDX))), shape=shape)
            _check_shape(coo.shape, shape, "csr_matrix")
            return _from_scipy(coo.tocsr(), ctx, _dtype_of(coo, dtype))
        if len(arg1) == 2 and _is_shape(arg1):
            _check_shape(arg1, shape, "csr_matrix")
            return zeros("csr", arg1, ctx=ctx, dtype=dtype)
        if len(arg1) == 3:
            data, indices, indptr = arg1
            dt = _dtype_of(data, dtype)
            data, indices, indptr = _np(data, dt), _np(indices, _IDX), _np(indptr, _IDX)
            if shape is None:
                if indices.shape[0] == 0:
                    raise ValueError("csr_matrix: cannot infer the shape of an empty matrix; "
                                     "pass shape=")
                shape = (len(indptr) - 1, int(indices.max()) + 1)
            if data.ndim != 1 or indices.ndim != 1 or indptr.ndim != 1 or \
                    indptr.shape[0] == 0 or len(shape) != 2:
                raise ValueError(f"csr_matrix: data, indices and indptr must be 1-D (indptr "
                                 f"not empty) and the shape 2-D; got data {data.shape}, "
                                 f"indices {indices.shape}, indptr {indptr.shape}, shape "
                                 f"{tuple(shape)}")
            return _new_csr(data.copy(), indices.copy(), indptr.copy(), tuple(shape), ctx,
                            check="csr_matrix")
        raise ValueError(f"csr_matrix: unexpected length of input tuple: {len(arg1)}")
    if isinstance(arg1, RowSparseNDArray):
        raise ValueError("csr_matrix: unexpected input type: RowSparseNDArray")
    if isinstance(arg1, CSRNDArray) or spsp.issparse(arg1):
        _check_shape(arg1.shape, shape, "csr_matrix")
        return array(arg1, ctx=ctx, dtype=dtype)
    dt = _dtype_of(arg1, dtype)
    a = _np(arg1, dt)
    _check_shape(a.shape, shape, "csr_matrix")
    return _from_dense(a, "csr", ctx or (arg1.context if isinstance(arg1, NDArray) else None))


def row_sparse_array(arg1, shape=None, ctx=None, dtype=None):
    """A `RowSparseNDArray`.

    Args:
        arg1: ``(data, indices)`` (the stored rows and their row numbers); a shape tuple (an
            all-zero array); a `RowSparseNDArray`; a dense NDArray, numpy array or list.
        shape: the shape (inferred when None: last index + 1 rows).
        ctx: the context (default: the current one).
        dtype: the value dtype (default: the source's, float32 for lists).

    Returns:
        A RowSparseNDArray.

    Raises:
        ValueError: inconsistent parts or shape, a csr source.

    Example::

        r = nd.sparse.row_sparse_array(([[1., 2.]], [3]), shape=(5, 2))
        r.indices.asnumpy(), r.data.asnumpy()   # (array([3]), array([[1., 2.]], dtype=float32))
    """
    if isinstance(arg1, tuple):
        if len(arg1) < 2:
            raise ValueError(f"row_sparse_array: unexpected length of input tuple: "
                             f"{len(arg1)}")
        if len(arg1) > 2 or _is_shape(arg1):
            _check_shape(arg1, shape, "row_sparse_array")
            return zeros("row_sparse", arg1, ctx=ctx, dtype=dtype)
        data, indices = arg1
        dt = _dtype_of(data, dtype)
        data, indices = _np(data, dt), _np(indices, _IDX)
        if shape is None:
            if indices.shape[0] == 0:
                raise ValueError("row_sparse_array: cannot infer the shape without indices; "
                                 "pass shape=")
            shape = (int(indices[-1]) + 1,) + data.shape[1:]
        shape = tuple(shape)
        if data.ndim != len(shape) or indices.ndim != 1 or np.prod(shape[1:]) == 0 or \
                data.shape[0] != indices.shape[0]:
            raise ValueError(f"row_sparse_array: data must have shape (len(indices),) + "
                             f"shape[1:]; got data {data.shape}, indices {indices.shape}, "
                             f"shape {shape}")
        return _new_row_sparse(data.copy(), indices.copy(), shape, ctx,
                               check="row_sparse_array")
    if isinstance(arg1, CSRNDArray):
        raise ValueError("row_sparse_array: unexpected input type: CSRNDArray")
    if isinstance(arg1, RowSparseNDArray):
        _check_shape(arg1.shape, shape, "row_sparse_array")
        return array(arg1, ctx=ctx, dtype=dtype)
    a = _np(arg1, _dtype_of(arg1, dtype))
    _check_shape(a.shape, shape, "row_sparse_array")
    return _from_dense(a, "row_sparse",
                       ctx or (arg1.context if isinstance(arg1, NDArray) else None))


def array(source_array, ctx=None, dtype=None):
    """A sparse array copied from a sparse source.

    Args:
        source_array: a CSRNDArray, RowSparseNDArray or scipy sparse matrix (made csr).
        ctx: the context (default: the source's, or the current one).
        dtype: the value dtype (default: the source's).

    Raises:
        ValueError: a dense source (use ``nd.array(...).tostype(stype)``).

    Example::

        import scipy.sparse
        x = nd.sparse.array(scipy.sparse.eye(3, format='csr'))
        x.stype, x.indptr.asnumpy()   # ('csr', array([0, 1, 2, 3]))
    """
    if isinstance(source_array, BaseSparseNDArray):
        out = source_array.copy() if dtype is None else source_array.astype(dtype)
        out._ctx = ctx or source_array.context
        return out
    if spsp.issparse(source_array):
        return _from_scipy(source_array, ctx, _dtype_of(source_array, dtype))
    if isinstance(source_array, (NDArray, np.ndarray, np.generic)):
        raise ValueError("nd.sparse.array: the source is dense; use mx.nd.array(...) and "
                         ".tostype('csr' or 'row_sparse')")
    raise ValueError(f"nd.sparse.array: unexpected source type {type(source_array).__name__}")


def zeros(stype, shape, ctx=None, dtype=None, **kwargs):
    """An all-zero array of storage type `stype` (nothing stored).

    Args:
        stype: 'csr', 'row_sparse' or 'default'.
        shape: an int or tuple.
        ctx: the Context of the array (default None: the current context).
        dtype: the element type (default None: float32).
        **kwargs: not used (MXNet's signature).

    Returns:
        CSRNDArray, RowSparseNDArray or NDArray: by `stype`.

    Raises:
        ValueError: an unknown storage type, or a csr shape that is not 2-D.

    Example::

        z = nd.sparse.zeros('row_sparse', (1000, 8))
        z.stype, z.indices.shape   # ('row_sparse', (0,))
    """
    shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(shape)
    dt = normalize_dtype(dtype or np.float32)
    if stype == "default":
        from . import zeros as _dense_zeros
        return _dense_zeros(shape, ctx=ctx, dtype=dt)
    if stype == "row_sparse":
        return _new_row_sparse(np.zeros((0,) + shape[1:], dt), np.zeros(0, _IDX), shape, ctx)
    if stype == "csr":
        if len(shape) != 2:
            raise ValueError(f"zeros: a csr array must be 2-D, got shape {shape}")
        return _new_csr(np.zeros(0, dt), np.zeros(0, _IDX), np.zeros(shape[0] + 1, _IDX),
                        shape, ctx)
    raise ValueError(f"zeros: unknown storage type {stype!r}; expected one of "
                     f"{', '.join(_STYPES)}")


def empty(stype, shape, ctx=None, dtype=None):
    """A new array of storage type `stype` (all zero here, as `zeros`).

    Args:
        stype: 'csr' or 'row_sparse'.
        shape: an int or tuple (2-D for csr).
        ctx: the Context of the array (default None: the current context).
        dtype: the element type (default None: float32).

    Returns:
        CSRNDArray or RowSparseNDArray: with nothing stored.

    Raises:
        ValueError: a storage type other than 'csr' and 'row_sparse', or a csr shape that
            is not 2-D.

    Example::

        nd.sparse.empty('csr', (2, 3)).asnumpy()   # [[0. 0. 0.] [0. 0. 0.]]
    """
    if stype not in ("csr", "row_sparse"):
        raise ValueError(f"empty: unknown sparse storage type {stype!r}; expected 'csr' or "
                         "'row_sparse'")
    return zeros(stype, shape, ctx=ctx, dtype=dtype)


def cast_storage(data, stype, out=None, name=None, **kwargs):
    """`data` converted to storage type `stype` (a copy).

    Args:
        data: an NDArray of any storage type.
        stype: 'default', 'row_sparse' or 'csr'.
        out: an optional array to write into.
        name: not used by the imperative call (MXNet's signature).
        **kwargs: not used.

    Returns:
        NDArray: of storage type `stype` (`out` when given).

    Raises:
        ValueError: csr <-> row_sparse (MXNet has no such cast), a non-2-D array to csr, an
            unknown storage type.

    Example::

        x = nd.cast_storage(nd.array([[0, 1], [0, 0]]), stype='csr')
        x.stype, x.data.asnumpy()   # ('csr', array([1.], dtype=float32))
    """
    if stype not in _STYPES:
        raise ValueError(f"cast_storage: unknown storage type {stype!r}; expected one of "
                         f"{', '.join(_STYPES)}")
    return _gen_cache["cast_storage"](data, stype=stype, out=out)


def zeros_like(data, out=None, name=None, **kwargs):
    """An all-zero array with `data`'s shape, dtype and storage type.

    Args:
        data: an NDArray of any storage type.
        out: an array to write the zeros into and return (default None: a new one).
        name: not used by the imperative call (MXNet's signature).
        **kwargs: not used.

    Returns:
        NDArray: the zeros, on data's context (`out` when given).

    Example::

        r = nd.sparse.row_sparse_array(([[1., 2.]], [1]), shape=(3, 2))
        nd.sparse.zeros_like(r).stype   # 'row_sparse'
    """
    if isinstance(data, BaseSparseNDArray):
        res = zeros(data.stype, data.shape, ctx=data.context, dtype=data.dtype)
    else:
        from . import zeros_like as _dense
        res = _dense(data)
    if out is not None:
        out[:] = res
        return out
    return res


def wrap(raw, ctx):
    """The NDArray of raw result `raw` on `ctx`: a sparse array holding a raw sparse one's
    parts (no copy), a dense NDArray of a dense one (on ctx's device).

    Example::

        from gluonlite.ndarray.sparse import wrap
        r = nd.sparse.row_sparse_array(([[1., 2.]], [1]), shape=(3, 2))
        wrap(r.raw(), mx.cpu()).asnumpy()   # [[0. 0.] [1. 2.] [0. 0.]]
    """
    if raw.__class__ is _raw.CSR:
        return _new_csr(raw.data, raw.indices, raw.indptr, raw.shape, ctx)
    if raw.__class__ is _raw.RowSparse:
        return _new_row_sparse(raw.data, raw.indices, raw.shape, ctx)
    return NDArray(ctx.xp.asarray(raw), ctx)


# ---- MXNet's nd.sparse.add/subtract/multiply/divide (and the `+ - * /` of sparse arrays) ----
_KINDS = {"add": "add", "subtract": "sub", "multiply": "mul", "divide": "div"}
_SCALAR_OPS = {"add": ("_plus_scalar", "_plus_scalar"), "sub": ("_minus_scalar", "_rminus_scalar"),
               "mul": ("_mul_scalar", "_mul_scalar"), "div": ("_div_scalar", "_rdiv_scalar")}


def _operator(name):
    """The arithmetic of the dunders: NotImplemented for an operand that is neither an array
    nor a number, so that Python tries the other operand's method."""
    kind = _KINDS[name]

    def operate(lhs, rhs):
        la, ra = isinstance(lhs, NDArray), isinstance(rhs, NDArray)
        if la and ra:  # one shape: the elemwise operator, else the broadcast one
            same = tuple(lhs.shape) == tuple(rhs.shape)
            return _call(f"elemwise_{kind}" if same else f"broadcast_{kind}", [lhs, rhs])
        if la or ra:
            x, s = (lhs, rhs) if la else (rhs, lhs)
            if not isinstance(s, (int, float, np.number, bool)):
                return NotImplemented
            return _call(_SCALAR_OPS[kind][0 if la else 1], [x], scalar=s)
        return {"add": lambda a, b: a + b, "sub": lambda a, b: a - b,
                "mul": lambda a, b: a * b, "div": lambda a, b: a / b}[kind](lhs, rhs)
    return operate


def _public(name, operate):
    """MXNet's ``nd.sparse.<name>``: `operate`, refusing an operand it cannot take."""
    def f(lhs, rhs):
        res = operate(lhs, rhs)
        if res is NotImplemented:
            bad = rhs if isinstance(lhs, NDArray) else lhs
            raise TypeError(f"nd.sparse.{name}: operands must be NDArrays or numbers, got "
                            f"{type(bad).__name__}")
        return res
    f.__name__ = name
    f.__doc__ = (f"MXNet's sparse `{name}`: elementwise of arrays and/or scalars (the elemwise "
                 "operator for one shape, else the broadcast one); the storage is kept where "
                 "the operator's storage rule keeps it, dense otherwise.\n\n"
                 "Args:\n    lhs: an NDArray (dense or sparse) or a number.\n"
                 "    rhs: an NDArray (dense or sparse) or a number; two arrays of different "
                 "shapes broadcast.\n\n"
                 "Returns:\n    NDArray: the result (a number for two numbers).\n\n"
                 "Raises:\n    ValueError: (a ShapeError) two arrays whose shapes do not "
                 "broadcast.\n"
                 "    TypeError: an operand that is neither an NDArray nor a number.\n\n"
                 "Example::\n\n"
                 "    r = nd.sparse.row_sparse_array(([[1., 2.]], [1]), shape=(3, 2))\n"
                 f"    nd.sparse.{name}(r, {'2' if name in ('multiply', 'divide') else 'r'}).stype"
                 "   # 'row_sparse'\n")
    return f


def _call(name, inputs, **attrs):
    return run_plan(plan_for(get_op(name), attrs), inputs)[0]


def _true_divide(lhs, rhs):
    """``lhs / rhs`` with a sparse operand, as MXNet 1.9.1 computes it under Python 3 (its
    NDArray's ``__truediv__``: broadcast_div, or the scalar operators)."""
    if isinstance(lhs, NDArray) and isinstance(rhs, NDArray):
        return _call("broadcast_div", [lhs, rhs])
    return _divide(lhs, rhs)


_add, _subtract = _operator("add"), _operator("subtract")
_multiply, _divide = _operator("multiply"), _operator("divide")
add, subtract = _public("add", _add), _public("subtract", _subtract)
multiply, divide = _public("multiply", _multiply), _public("divide", _divide)
__all__ += ["add", "subtract", "multiply", "divide"]


def retain(data=None, indices=None, out=None, name=None, **kwargs):
    """The rows of row_sparse `data` whose row numbers are in `indices`; the others dropped.

    Args:
        data: a RowSparseNDArray.
        indices: the row numbers to keep, a 1-D NDArray.
        out: an array to write the result into (default None: a new one).
        name: not used by the imperative call (MXNet's signature).
        **kwargs: refused: any other keyword raises.

    Returns:
        RowSparseNDArray: data's shape, holding only the kept rows.

    Raises:
        ValueError: `data` is not row_sparse.
        MXNetError: an unknown argument, or a missing input.

    Example::

        r = nd.sparse.row_sparse_array(([[1., 2.], [3., 4.]], [0, 2]), shape=(3, 2))
        nd.sparse.retain(r, nd.array([0, 1])).asnumpy()   # [[1. 2.] [0. 0.] [0. 0.]]
    """
    if kwargs or data is None or indices is None:
        raise MXNetError(f"retain: takes data and indices (and out, name); got unknown "
                         f"argument(s) {sorted(kwargs)}" if kwargs else
                         "retain: data and indices are required")
    if data.stype != "row_sparse":  # the operator computes on dense values in a graph only
        raise ValueError(f"retain: storage types ({data.stype}) are not supported; retain "
                         "takes a row_sparse array")
    return _gen_cache["_sparse_retain"](data, indices, out=out)


# MXNet 1.9.1's functions of nd.sparse (beside the constructors above): the nd functions of
# the registered operators, whose storage rules keep the storage where MXNet does
_OP_OF = {"concat": "Concat", "adagrad_update": "_sparse_adagrad_update"}
for _name in FUNCTIONS:
    globals()[_name] = _gen_cache[_OP_OF.get(_name, _name)]
    __all__.append(_name)
gs_retain = retain
__all__ += ["retain", "gs_retain"]
INSTALLED.update(sparse_zeros=zeros, sparse_array=array, sparse_empty=empty)
