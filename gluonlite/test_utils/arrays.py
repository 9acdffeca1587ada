"""Random test data: numpy arrays, NDArrays and shapes drawn from numpy's global generator
(so `np.random.seed` and `mx.random.seed` make them repeatable)."""
import numpy as np

from .tolerances import default_dtype
from .. import ndarray as nd
from ..ndarray.ndarray import check_stype
from ._envinfo import rand_sparse_ndarray

__all__ = ["random_arrays", "random_uniform_arrays", "random_sample", "rand_ndarray",
           "rand_shape_2d", "rand_shape_3d", "rand_shape_nd", "rand_coord_2d"]


def random_arrays(*shapes):
    """Standard normal float32 numpy arrays, one per shape (one array for one shape).

    Example::

        a, b = mx.test_utils.random_arrays((2, 3), (3,))
        a.shape, b.dtype   # ((2, 3), dtype('float32'))
    """
    arrays = [np.array(np.random.randn(), dtype=default_dtype()) if len(s) == 0
              else np.random.randn(*s).astype(default_dtype()) for s in shapes]
    return arrays[0] if len(arrays) == 1 else arrays


def random_uniform_arrays(*shapes, low=0.0, high=1.0, dtype=None):
    """Uniform [low, high) numpy arrays, one per shape (one array for one shape).

    Args:
        shapes: one shape per array.
        low: default 0.0: the lower bound (included).
        high: default 1.0: the upper bound (excluded).
        dtype: default None: the dtype (None: the default dtype, float32).

    Returns:
        A numpy array for one shape, else a list of them.

    Example::

        a = mx.test_utils.random_uniform_arrays((2, 3), low=-1.0, high=1.0)
        a.shape, bool((a >= -1).all() and (a < 1).all())   # ((2, 3), True)
    """
    dtype = default_dtype() if dtype is None else dtype
    arrays = [np.random.uniform(low, high, size=s).astype(dtype) for s in shapes]
    return arrays[0] if len(arrays) == 1 else arrays


def random_sample(population, k):
    """`k` distinct elements of the list `population` in random order.

    Raises:
        ValueError: `k` is larger than the population.

    Example::

        picked = mx.test_utils.random_sample([1, 2, 3, 4, 5], 3)
        len(set(picked))   # 3: distinct elements
    """
    if not 0 <= k <= len(population):
        raise ValueError(f"random_sample: k must be in [0, {len(population)}], got {k}")
    picks = np.random.permutation(len(population))[:k]
    return [population[i] for i in picks]


def rand_ndarray(shape, stype="default", density=None, dtype=None, modifier_func=None,
                 shuffle_csr_indices=False, distribution=None, ctx=None):
    """An NDArray of standard normal values (float32 unless `dtype` says otherwise).

    Args:
        shape: the shape.
        stype: 'default', or 'row_sparse' / 'csr' for a sparse array whose stored values
            are uniform in [0, 1) (as MXNet's rand_sparse_ndarray makes them).
        dtype: default None: the result's dtype (None: float32).
        ctx: default None: the result's context (None: the default context).
        density: the fraction of rows (row_sparse) or entries (csr) stored (random when None).
        modifier_func: applied to the stored values (sparse only).
        shuffle_csr_indices: accepted for MXNet's signature (sparse only).
        distribution: 'uniform' (default) or 'powerlaw' for a csr array's stored entries
            (see `rand_sparse_ndarray`).

    Example::

        x = mx.test_utils.rand_ndarray((2, 3))
        s = mx.test_utils.rand_ndarray((4, 5), 'csr', density=0.5)
        x.shape, s.stype   # ((2, 3), 'csr')
    """
    if check_stype(stype, "rand_ndarray", sparse_ok=True) == "default":
        return nd.array(random_arrays(tuple(shape)), ctx=ctx, dtype=dtype)
    return rand_sparse_ndarray(shape, stype, density=density, dtype=dtype, ctx=ctx,
                               modifier_func=modifier_func, distribution=distribution,
                               shuffle_csr_indices=shuffle_csr_indices)[0]


def rand_shape_2d(dim0=10, dim1=10, allow_zero_size=False):
    """A random 2-d shape with sizes in [1, dim] ([0, dim] with `allow_zero_size`).

    Args:
        dim0: default 10: the largest first size.
        dim1: default 10: the largest second size.
        allow_zero_size: default False: sizes may be 0.

    Returns:
        A tuple of two ints.

    Example::

        shape = mx.test_utils.rand_shape_2d(4, 5)
        len(shape), 1 <= shape[0] <= 4   # (2, True)
    """
    low = 0 if allow_zero_size else 1
    return np.random.randint(low, dim0 + 1), np.random.randint(low, dim1 + 1)


def rand_shape_3d(dim0=10, dim1=10, dim2=10, allow_zero_size=False):
    """A random 3-d shape with sizes in [1, dim] ([0, dim] with `allow_zero_size`).

    Args:
        dim0: default 10: the largest first size.
        dim1: default 10: the largest second size.
        dim2: default 10: the largest third size.
        allow_zero_size: default False: sizes may be 0.

    Returns:
        A tuple of three ints.

    Example::

        shape = mx.test_utils.rand_shape_3d(2, 3, 4)
        len(shape), 1 <= shape[2] <= 4   # (3, True)
    """
    low = 0 if allow_zero_size else 1
    return (np.random.randint(low, dim0 + 1), np.random.randint(low, dim1 + 1),
            np.random.randint(low, dim2 + 1))


def rand_shape_nd(num_dim, dim=10, allow_zero_size=False):
    """A random `num_dim`-d shape (a tuple) with sizes in [1, dim] ([0, dim] with
    `allow_zero_size`).

    Args:
        num_dim: the number of dimensions.
        dim: default 10: the largest size.
        allow_zero_size: default False: sizes may be 0.

    Example::

        shape = mx.test_utils.rand_shape_nd(4, dim=3)
        len(shape), max(shape) <= 3   # (4, True)
    """
    low = 0 if allow_zero_size else 1
    return tuple(np.random.randint(low, dim + 1, size=num_dim))


def rand_coord_2d(x_low, x_high, y_low, y_high):
    """A random integer point (x, y) with x in [x_low, x_high) and y in [y_low, y_high).

    Args:
        x_low: the least x.
        x_high: the bound x stays below.
        y_low: the least y.
        y_high: the bound y stays below.

    Returns:
        A tuple of two numpy int64.

    Example::

        x, y = mx.test_utils.rand_coord_2d(0, 10, 5, 6)
        0 <= x < 10, y   # (True, 5)
    """
    return (np.random.randint(x_low, x_high, dtype=np.int64),
            np.random.randint(y_low, y_high, dtype=np.int64))
