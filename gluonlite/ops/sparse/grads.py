"""Row-sparse gradients: the value the autograd tape carries for a `row_sparse` gradient.

``Embedding(..., sparse_grad=True)`` (or of a row_sparse weight) gives its weight a gradient
holding only the rows the batch used (MXNet's `row_sparse`): a 10^6 x 64 embedding read at
100 indices gets a gradient of at most 100 x 64 values, never a dense 10^6 x 64 array; so
does ``dot(csr, w)`` to `w`: the rows of the features the batch holds. Those rules are the
operators' storage rules (`Embedding`'s and `dot`'s, in `gluonlite.ops.sparse.matrix`).

`RowSparseRows` is that gradient on the tape (raw arrays, like every other tape value): it
adds to another one (the union of their rows) or to a dense gradient (a dense result), so
fan-out sums work unchanged; the tape densifies it before any operator's rule reads it.

Example::

    from gluonlite.ops.sparse.grads import RowSparseRows
    g = RowSparseRows(np.array([1, 4]), np.ones((2, 3)), (6, 3))
    (g + g).values           # rows 1 and 4, twos
    (np.zeros((6, 3)) + g)   # dense, ones in rows 1 and 4
"""
import numpy as np

__all__ = ["RowSparseRows"]


class RowSparseRows:
    """A row_sparse raw gradient: `indices` (int64, unique, ascending), `values` (one row per
    index, shape ``(len(indices),) + shape[1:]``), `shape` (the dense shape).

    Example::

        from gluonlite.ops.sparse.grads import RowSparseRows
        g = RowSparseRows(np.array([1, 4]), np.ones((2, 3)), (6, 3))
        (g + g).values.sum(), (np.zeros((6, 3)) + g).shape      # (12.0, (6, 3))
    """

    __slots__ = ("indices", "values", "shape")
    # numpy must hand ``dense + rows`` to __radd__ instead of broadcasting over the object
    __array_ufunc__ = None

    def __init__(self, indices, values, shape):
        self.indices, self.values, self.shape = indices, values, tuple(shape)

    @property
    def dtype(self):
        """The values' dtype.

        Example::

            from gluonlite.ops.sparse.grads import RowSparseRows
            g = RowSparseRows(np.array([0]), np.ones((1, 2), np.float32), (2, 2))
        g.dtype         # dtype('float32')
        """
        return self.values.dtype

    def dense(self, xp=np):
        """The dense gradient (zeros outside the rows).

        Args:
            xp: the array module to allocate with (default numpy).

        Returns:
            array: of `shape`, in the values' dtype.

        Example::

            from gluonlite.ops.sparse.grads import RowSparseRows
            g = RowSparseRows(np.array([0]), np.ones((1, 2)), (2, 2))
        g.dense()       # array([[1., 1.], [0., 0.]])
        """
        out = xp.zeros(self.shape, self.values.dtype)
        out[self.indices] = self.values
        return out

    def add_to(self, dense):
        """Add these rows into the dense raw array `dense`, in place; returns it.

        Example::

            from gluonlite.ops.sparse.grads import RowSparseRows
            g = RowSparseRows(np.array([1]), np.ones((1, 2)), (3, 2))
            g.add_to(np.zeros((3, 2)))      # array([[0., 0.], [1., 1.], [0., 0.]])
        """
        dense[self.indices] += self.values.astype(dense.dtype, copy=False)
        return dense

    def __add__(self, other):
        if other.__class__ is RowSparseRows:
            if other.shape != self.shape:
                raise ValueError(f"row_sparse gradient: cannot add shapes {self.shape} and "
                                 f"{other.shape}")
            idx = np.union1d(self.indices, other.indices)
            vals = np.zeros((idx.size,) + self.shape[1:],
                            np.result_type(self.values, other.values))
            vals[np.searchsorted(idx, self.indices)] += self.values
            vals[np.searchsorted(idx, other.indices)] += other.values
            return RowSparseRows(idx, vals, self.shape)
        return self.add_to(other.astype(np.result_type(other, self.values), copy=True))

    __radd__ = __add__
