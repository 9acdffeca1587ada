"""The raw forms of the sparse storage types, what sparse kernels read and return, as numpy
arrays are for dense storage: `RowSparse` and `CSR` hold their compressed parts (numpy
arrays on the host) and their logical shape.

- `RowSparse` (``row_sparse``), any rank >= 1: ``data``, the stored rows, shape ``(nnz_rows,)
  + shape[1:]``; ``indices``, int64 row numbers, strictly increasing.
- `CSR` (``csr``), rank 2: ``data`` (the values, 1-D), ``indices`` (int64 column numbers),
  ``indptr`` (int64, ``shape[0] + 1`` row offsets), as scipy's ``csr_matrix`` keeps them
  (columns sorted within a row, no duplicates).

The sparse NDArrays (`gluonlite.ndarray.sparse`) hold the same parts; ``x.raw()`` gives
their raw form (no copy) and the storage dispatcher wraps a kernel's raw result back.

Example::

    from gluonlite.ops.sparse.arrays import from_dense
    r = from_dense(np.eye(3)[[0, 2]], "row_sparse")    # rows 0 and 1 stored
    r.dense()                                          # the 2 x 3 array again
"""
import numpy as np
import scipy.sparse as spsp

__all__ = ["RowSparse", "CSR", "STYPES", "from_dense", "from_scipy", "zeros", "like", "host",
           "is_sparse"]

IDX = np.int64
STYPES = ("default", "row_sparse", "csr")


class RowSparse:
    """A row_sparse array's parts (see the module docstring). The class's `stype` is
    ``'row_sparse'``.

    Args:
        data: the stored rows, (k,) + shape[1:] (numpy, or a device array).
        indices: the row number of each stored row, ascending (made an int64 numpy array).
        shape: the full array's shape (made a tuple).

    Example::

        from gluonlite.ops.sparse.arrays import RowSparse
        r = RowSparse(np.ones((1, 2)), [1], (3, 2))     # row 1 stored of a 3 x 2 array
        r.stype, r.dense()[1]       # ('row_sparse', array([1., 1.]))
    """

    __slots__ = ("data", "indices", "shape")
    stype = "row_sparse"

    def __init__(self, data, indices, shape):
        self.data, self.indices, self.shape = data, np.asarray(indices, IDX), tuple(shape)

    @property
    def dtype(self):
        """The values' dtype.

        Example::

            from gluonlite.ops.sparse.arrays import RowSparse
            RowSparse(np.ones((1, 2), np.float32), [1], (3, 2)).dtype    # dtype('float32')
        """
        return self.data.dtype

    @property
    def ndim(self):
        """The number of dimensions of the logical shape.

        Example::

            from gluonlite.ops.sparse.arrays import RowSparse
            RowSparse(np.ones((1, 2)), [1], (3, 2)).ndim    # 2
        """
        return len(self.shape)

    def aux(self):
        """The index arrays in MXNet's order: (indices,).

        Example::

            from gluonlite.ops.sparse.arrays import RowSparse
            RowSparse(np.ones((1, 2)), [1], (3, 2)).aux()   # (array([1]),)
        """
        return (self.indices,)

    def dense(self):
        """The dense values (a new numpy array).

        Example::

            from gluonlite.ops.sparse.arrays import RowSparse
            RowSparse(np.ones((1, 2)), [1], (3, 2)).dense()
            # array([[0., 0.], [1., 1.], [0., 0.]])
        """
        out = np.zeros(self.shape, self.data.dtype)
        out[self.indices] = self.data
        return out


class CSR:
    """A csr matrix's parts (see the module docstring). The class's `stype` is ``'csr'``.

    Args:
        data: the stored values, (nnz,).
        indices: the column of each value (made an int64 numpy array).
        indptr: the row offsets into data, rows + 1 of them (made an int64 numpy array).
        shape: the matrix's (rows, columns) (made a tuple).

    Example::

        from gluonlite.ops.sparse.arrays import CSR
        m = CSR(np.array([5.0]), [2], [0, 1, 1], (2, 3))    # one value, at row 0, column 2
        m.stype, m.dense()[0]       # ('csr', array([0., 0., 5.]))
    """

    __slots__ = ("data", "indices", "indptr", "shape")
    stype = "csr"

    def __init__(self, data, indices, indptr, shape):
        self.data, self.shape = data, tuple(shape)
        self.indices, self.indptr = np.asarray(indices, IDX), np.asarray(indptr, IDX)

    @property
    def dtype(self):
        """The values' dtype.

        Example::

            from gluonlite.ops.sparse.arrays import CSR
            CSR(np.array([5.0]), [2], [0, 1, 1], (2, 3)).dtype  # dtype('float64')
        """
        return self.data.dtype

    @property
    def ndim(self):
        """2.

        Example::

            from gluonlite.ops.sparse.arrays import CSR
            CSR(np.array([5.0]), [2], [0, 1, 1], (2, 3)).ndim   # 2
        """
        return 2

    def aux(self):
        """The index arrays in MXNet's order: (indptr, indices).

        Example::

            from gluonlite.ops.sparse.arrays import CSR
            CSR(np.array([5.0]), [2], [0, 1, 1], (2, 3)).aux()  # (array([0, 1, 1]), array([2]))
        """
        return (self.indptr, self.indices)

    def scipy(self):
        """A scipy csr_matrix over the same parts (no copy).

        Example::

            from gluonlite.ops.sparse.arrays import CSR
            m = CSR(np.array([5.0]), [2], [0, 1, 1], (2, 3)).scipy()
            m.nnz, m.shape              # (1, (2, 3))
        """
        return spsp.csr_matrix((self.data, self.indices, self.indptr), shape=self.shape)

    def dense(self):
        """The dense values (a new numpy array).

        Example::

            from gluonlite.ops.sparse.arrays import CSR
            CSR(np.array([5.0]), [2], [0, 1, 1], (2, 3)).dense()
            # array([[0., 0., 5.], [0., 0., 0.]])
        """
        out = np.zeros(self.shape, self.data.dtype)
        rows = np.repeat(np.arange(self.shape[0]), np.diff(self.indptr))
        out[rows, self.indices] = self.data
        return out


def is_sparse(x):
    """Whether `x` is a raw sparse array (`RowSparse` or `CSR`).

    Example::

        from gluonlite.ops.sparse.arrays import is_sparse, zeros
        is_sparse(zeros("row_sparse", (3,), np.float32)), is_sparse(np.zeros(3))  # (True, False)
    """
    return x.__class__ is RowSparse or x.__class__ is CSR


def host(x):
    """The dense values of raw `x` as a numpy array: a sparse one's made dense, a device
    array copied to the host, a numpy array itself.

    Example::

        from gluonlite.ops.sparse.arrays import host, zeros
        host(zeros("csr", (2, 2), np.float32))      # a dense (2, 2) array of zeros
    """
    if is_sparse(x):
        return x.dense()
    return x if isinstance(x, np.ndarray) else x.get()


def like(x, data, aux):
    """A raw array of `x`'s storage type and shape holding `data` and index arrays `aux`
    (in `aux()`'s order).

    Example::

        from gluonlite.ops.sparse.arrays import from_dense, like
        r = from_dense(np.eye(2), "row_sparse")
        like(r, r.data * 2, r.aux()).dense()        # 2 * eye(2)
    """
    if x.stype == "csr":
        return CSR(data, aux[1], aux[0], x.shape)
    return RowSparse(data, aux[0], x.shape)


def from_scipy(m, dtype=None):
    """A `CSR` from scipy sparse matrix `m` (duplicates summed, columns sorted).

    Args:
        m: a scipy sparse matrix of any format (converted to csr).
        dtype: the values' dtype (default None: m's).

    Returns:
        CSR: holding copies of the values.

    Example::

        from gluonlite.ops.sparse.arrays import from_scipy
        import scipy.sparse
        m = from_scipy(scipy.sparse.eye(2), dtype=np.float32)
        m.indptr, m.data            # (array([0, 1, 2]), array([1., 1.], dtype=float32))
    """
    m = spsp.csr_matrix(m)
    m.sum_duplicates()
    m.sort_indices()
    data = m.data if dtype is None else m.data.astype(dtype)
    return CSR(data.copy(), m.indices.astype(IDX), m.indptr.astype(IDX), m.shape)


def from_dense(a, stype):
    """Raw dense array `a` (numpy, or a device array) in storage `stype`: only the nonzero
    entries (csr) or the rows holding a nonzero (row_sparse) are stored.

    Raises:
        ValueError: a 0-d array to row_sparse, a non-2-D one to csr, an unknown stype.

    Example::

        from gluonlite.ops.sparse.arrays import from_dense
        r = from_dense(np.array([[0.0, 0.0], [3.0, 0.0]]), "row_sparse")
        r.indices, r.data           # (array([1]), array([[3., 0.]]))
    """
    a = a if isinstance(a, np.ndarray) else a.get()
    if stype == "row_sparse":
        if a.ndim == 0:
            raise ValueError("cast_storage: a row_sparse array needs at least one dimension")
        flat = a.reshape(a.shape[0], -1)
        rows = np.flatnonzero((flat != 0).any(axis=1))
        return RowSparse(a[rows].copy(), rows, a.shape)
    if stype == "csr":
        if a.ndim != 2:
            raise ValueError(f"cast_storage: a csr array must be 2-D, got shape {a.shape}")
        # numpy's row-major nonzero gives the columns sorted in each row; scipy is not asked,
        # as it refuses float16, which MXNet stores as csr
        rows, cols = np.nonzero(a)
        indptr = np.zeros(a.shape[0] + 1, IDX)
        np.cumsum(np.bincount(rows, minlength=a.shape[0]), out=indptr[1:])
        return CSR(a[rows, cols], cols.astype(IDX), indptr, a.shape)
    raise ValueError(f"cast_storage: unknown storage type {stype!r}; expected one of "
                     f"{', '.join(STYPES)}")


def zeros(stype, shape, dtype):
    """An all-zero raw array of sparse storage `stype` (nothing stored).

    Args:
        stype: 'row_sparse' or 'csr'.
        shape: the array's shape (2-D for csr).
        dtype: the values' dtype.

    Returns:
        RowSparse or CSR.

    Raises:
        ValueError: a csr shape that is not 2-D, or a storage type that is not sparse.

    Example::

        from gluonlite.ops.sparse.arrays import zeros
        z = zeros("row_sparse", (4, 2), np.float32)
        z.data.shape, z.shape       # ((0, 2), (4, 2)): nothing stored
    """
    shape = tuple(shape)
    if stype == "row_sparse":
        return RowSparse(np.zeros((0,) + shape[1:], dtype), np.zeros(0, IDX), shape)
    if stype == "csr":
        if len(shape) != 2:
            raise ValueError(f"zeros: a csr array must be 2-D, got shape {shape}")
        return CSR(np.zeros(0, dtype), np.zeros(0, IDX), np.zeros(shape[0] + 1, IDX), shape)
    raise ValueError(f"zeros: unknown sparse storage type {stype!r}; expected 'csr' or "
                     "'row_sparse'")
