"""Test data that MXNet's tests build: arrays mapped elementwise through a Python function,
large-tensor helpers, and well-conditioned matrices for the linear-algebra tests."""
import numpy as np

__all__ = ["assign_each", "assign_each2", "create_2d_tensor", "create_vector",
           "get_identity_mat", "get_identity_mat_batch", "new_matrix_with_real_eigvals_2d",
           "new_matrix_with_real_eigvals_nd", "new_orthonormal_matrix_2d",
           "new_sym_matrix_with_real_eigvals_2d", "new_sym_matrix_with_real_eigvals_nd"]


def assign_each(the_input, function):
    """`function` applied to every element of numpy array `the_input` (float64 result), or a
    copy of it when `function` is None.

    Example::

        import math
        mx.test_utils.assign_each(np.array([1., 4.]), math.sqrt)   # array([1., 2.])
    """
    if function is None:
        return np.array(the_input)
    flat = [function(v) for v in np.asarray(the_input).ravel()]
    return np.array(flat, dtype=np.float64).reshape(np.shape(the_input))


def assign_each2(input1, input2, function):
    """`function(a, b)` for every pair of elements of two same-shape numpy arrays (float64
    result), or a copy of `input1` when `function` is None.

    Args:
        input1: a numpy array (or array-like).
        input2: an array of `input1`'s shape.
        function: ``function(a, b) -> number``, or None.

    Returns:
        A float64 numpy array of `input1`'s shape.

    Raises:
        ValueError: the shapes differ.

    Example::

        import operator
        mx.test_utils.assign_each2(np.ones(2), np.ones(2), operator.add)   # array([2., 2.])
    """
    if function is None:
        return np.array(input1)
    a, b = np.asarray(input1), np.asarray(input2)
    if a.shape != b.shape:
        raise ValueError(f"assign_each2: the inputs must have one shape, got {a.shape} and "
                         f"{b.shape}")
    flat = [function(x, y) for x, y in zip(a.ravel(), b.ravel())]
    return np.array(flat, dtype=np.float64).reshape(a.shape)


def create_2d_tensor(rows, columns, dtype=np.int64):
    """An NDArray of shape (rows, columns) whose row i holds i (MXNet's large-tensor helper).

    Args:
        rows: the number of rows.
        columns: the number of columns.
        dtype: default int64: the dtype.

    Returns:
        An NDArray (rows, columns).

    Example::

        mx.test_utils.create_2d_tensor(2, 3).asnumpy().tolist()   # [[0, 0, 0], [1, 1, 1]]
    """
    import gluonlite as mx
    col = mx.nd.arange(0, rows, dtype=dtype).reshape(rows, 1)
    return mx.nd.broadcast_to(col, shape=(rows, columns))


def create_vector(size, dtype=np.int64):
    """``nd.arange(0, size)`` of `dtype` (MXNet's large-vector helper).

    Args:
        size: the number of entries.
        dtype: default int64: the dtype.

    Returns:
        A 1-D NDArray.

    Example::

        mx.test_utils.create_vector(4).asnumpy().tolist()   # [0, 1, 2, 3]
    """
    import gluonlite as mx
    return mx.nd.arange(0, size, dtype=dtype)


def get_identity_mat(size):
    """The float32 identity matrix of `size` x `size` as an NDArray.

    Example::

        mx.test_utils.get_identity_mat(2).asnumpy().tolist()   # [[1.0, 0.0], [0.0, 1.0]]
    """
    import gluonlite as mx
    return mx.nd.array(np.eye(size, dtype=np.float32))


def get_identity_mat_batch(size):
    """A batch of two identity matrices, shape (2, size, size).

    Args:
        size: the size of each identity matrix.

    Returns:
        A float32 NDArray (2, size, size).

    Example::

        mx.test_utils.get_identity_mat_batch(3).shape   # (2, 3, 3)
    """
    import gluonlite as mx
    eye = np.eye(size, dtype=np.float32)
    return mx.nd.array(np.stack([eye, eye]))


def new_orthonormal_matrix_2d(n):
    """A random `n` x `n` orthonormal matrix (the Q of a random symmetric matrix's QR).

    Example::

        q = mx.test_utils.new_orthonormal_matrix_2d(3)
        np.allclose(q @ q.T, np.eye(3))   # True
    """
    x = np.random.randn(n, n)
    return np.linalg.qr(x.T @ x)[0]


def new_matrix_with_real_eigvals_2d(n):
    """A random `n` x `n` matrix with real eigenvalues in [-10, 10], similar to a diagonal
    matrix through a well-conditioned (condition number < 3) change of basis.

    Example::

        a = mx.test_utils.new_matrix_with_real_eigvals_2d(3)
        eig = np.linalg.eigvals(a)
        bool(np.allclose(eig.imag, 0) and (abs(eig.real) <= 10).all())   # True
    """
    while True:
        d = np.diag(np.random.uniform(-1.0, 1.0, n))
        v = np.random.uniform(-1.0, 1.0, (n, 1))
        v /= np.linalg.norm(v)
        q = (np.eye(n) - 2 * v @ v.T) @ d  # a Householder reflection times a diagonal
        if np.linalg.cond(q, 2) < 3:
            break
    return np.linalg.inv(q) @ np.diag(np.random.uniform(-10.0, 10.0, n)) @ q


def new_sym_matrix_with_real_eigvals_2d(n):
    """A random symmetric `n` x `n` matrix with eigenvalues in [-10, 10].

    Example::

        a = mx.test_utils.new_sym_matrix_with_real_eigvals_2d(3)
        np.allclose(a, a.T)   # True
    """
    q = new_orthonormal_matrix_2d(n)
    return q.T @ np.diag(np.random.uniform(-10.0, 10.0, n)) @ q


def _batched(make, shape):
    count = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    return np.array([make(shape[-1]) for _ in range(count)]).reshape(shape)


def new_matrix_with_real_eigvals_nd(shape):
    """A batch of `new_matrix_with_real_eigvals_2d` matrices of `shape` (..., n, n).

    Example::

        mx.test_utils.new_matrix_with_real_eigvals_nd((2, 4, 3, 3)).shape   # (2, 4, 3, 3)
    """
    return _batched(new_matrix_with_real_eigvals_2d, shape)


def new_sym_matrix_with_real_eigvals_nd(shape):
    """A batch of `new_sym_matrix_with_real_eigvals_2d` matrices of `shape` (..., n, n).

    Example::

        a = mx.test_utils.new_sym_matrix_with_real_eigvals_nd((2, 3, 3))
        a.shape, np.allclose(a, a.transpose(0, 2, 1))   # ((2, 3, 3), True)
    """
    return _batched(new_sym_matrix_with_real_eigvals_2d, shape)
