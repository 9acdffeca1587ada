"""What a test run may ask about its surroundings: environment variables (`getenv`,
`setenv`), the kind of run (`is_cd_run`, `is_aarch64_run`), the GPU (`get_cuda_compute_
capability`), which operators can run (`has_tvm_ops`, `is_op_runnable`), the sparse test-data
helpers (`rand_sparse_ndarray`, `create_sparse_array`, `shuffle_csr_column_indices`) and
`use_np` (MXNet's test_utils re-exports `mx.util.use_np`)."""
import os
import platform
from ..ndarray import sparse

import numpy as np

from ..util import use_np  # noqa: F401  (MXNet's test_utils re-exports it)

__all__ = ["getenv", "setenv", "use_np", "is_cd_run", "is_aarch64_run", "has_tvm_ops",
           "is_op_runnable", "get_cuda_compute_capability", "rand_sparse_ndarray",
           "create_sparse_array", "create_sparse_array_zd", "shuffle_csr_column_indices"]


def getenv(name):
    """The value of environment variable `name`, or None (MXNet reads it through its C
    library; here it is the process environment).

    Example::

        mx.test_utils.setenv('MY_TEST_FLAG', '1')
        mx.test_utils.getenv('MY_TEST_FLAG')   # '1'
        mx.test_utils.setenv('MY_TEST_FLAG', None)
    """
    return os.environ.get(name)


def setenv(name, value):
    """Set (or, with None, unset) environment variable `name`.

    Raises:
        TypeError: `value` is neither a str nor None.

    Example::

        mx.test_utils.setenv('MY_TEST_FLAG', 'on')
        mx.test_utils.getenv('MY_TEST_FLAG')   # 'on'
        mx.test_utils.setenv('MY_TEST_FLAG', None)   # unset again
    """
    if value is None:
        os.environ.pop(name, None)
    elif not isinstance(value, str):
        raise TypeError(f"setenv: the value of {name!r} must be a str or None, got "
                        f"{type(value).__name__}")
    else:
        os.environ[name] = value


def is_cd_run():
    """Whether the run is part of a continuous-delivery job (CD_JOB=1).

    Example::

        with mx.test_utils.environment('CD_JOB', '1'):
            mx.test_utils.is_cd_run()   # True
    """
    return os.environ.get("CD_JOB", "0") == "1"


def is_aarch64_run():
    """Whether the machine is an aarch64 one.

    Example::

        import platform
        mx.test_utils.is_aarch64_run() == (platform.machine() == 'aarch64')   # True
    """
    return platform.machine() == "aarch64"


def get_cuda_compute_capability(ctx):
    """The compute capability of `ctx`'s GPU as an int (``75`` for sm_75).

    Raises:
        ValueError: `ctx` is not a gpu context.
        RuntimeError: no GPU backend (CuPy and a device) is available.

    Example::

        if mx.test_utils.list_gpus():
            mx.test_utils.get_cuda_compute_capability(mx.gpu(0))   # e.g. 80 on an A100
    """
    if ctx.device_type != "gpu":
        raise ValueError(f"get_cuda_compute_capability: expected a gpu context, got {ctx}")
    cp = ctx.xp
    return int(cp.cuda.Device(ctx.device_id).compute_capability)


def has_tvm_ops():
    """Whether TVM-generated operators are built in: never in gluonlite.

    Example::

        mx.test_utils.has_tvm_ops()   # False
    """
    return False


def is_op_runnable():
    """Whether the current context can run every operator: always (no TVM operators).

    Example::

        mx.test_utils.is_op_runnable()   # True
    """
    return True


def rand_sparse_ndarray(shape, stype, density=None, dtype=None, distribution=None,
                        data_init=None, rsp_indices=None, modifier_func=None,
                        shuffle_csr_indices=False, ctx=None):
    """A random sparse array and its parts, as MXNet's helper returns them.

    Args:
        shape: the shape (2-D for csr).
        stype: 'row_sparse' or 'csr'.
        density: the fraction of rows (row_sparse) or entries (csr) stored (random when None).
        dtype: default None: the result's dtype (None: float32).
        ctx: default None: the result's context (None: the current context).
        data_init: a value for every stored entry (else uniform in [0, 1)).
        rsp_indices: the stored rows of a row_sparse array (else random).
        modifier_func: applied to each stored value.
        distribution: for csr, 'uniform' (default) or 'powerlaw' (MXNet's layout: row i has
            twice the leading entries of row i - 1).
        shuffle_csr_indices: accepted for MXNet's signature.

    Returns:
        ``(arr, (data, indices))`` for row_sparse, ``(arr, (data, indptr, indices))`` for csr
        (numpy parts).

    Raises:
        ValueError: an unknown storage type or distribution, a powerlaw density that does
            not fit.

    Example::

        made = mx.test_utils.rand_sparse_ndarray((5, 3), 'row_sparse', rsp_indices=[0, 3])
        arr, (vals, rows) = made
        arr.stype, rows.tolist(), vals.shape   # ('row_sparse', [0, 3], (2, 3))
    """
    import numpy as np
    import scipy.sparse as spsp
    density = np.random.rand() if density is None else density
    dt = np.dtype(dtype or np.float32)

    def values(v):
        if data_init is not None:
            v = np.full(v.shape, data_init, dtype=np.float64)
        if modifier_func is not None:
            v = np.vectorize(modifier_func, otypes=[np.float64])(v) if v.size else v
        return v.astype(dt)

    if stype == "row_sparse":
        if distribution not in (None, "uniform"):
            raise ValueError(f"rand_sparse_ndarray: distribution {distribution!r} is for csr "
                             "arrays; a row_sparse array's rows are drawn 'uniform'")
        idx = np.asarray(rsp_indices, np.int64) if rsp_indices is not None else \
            np.flatnonzero(np.random.rand(shape[0]) < density)
        idx = np.unique(idx)
        val = values(np.random.rand(idx.size, *shape[1:]))
        arr = sparse.row_sparse_array((val, idx), shape=tuple(shape), ctx=ctx, dtype=dt)
        return arr, (val, idx)
    if stype == "csr" and distribution == "powerlaw":
        arr = sparse.csr_matrix(_powerlaw_csr(shape[0], shape[1], density).astype(dt), ctx=ctx)
        return arr, (arr._sdata, arr._sindptr, arr._sindices)
    if stype == "csr":
        if distribution not in (None, "uniform"):
            raise ValueError(f"rand_sparse_ndarray: distribution must be 'uniform' or "
                             f"'powerlaw', got {distribution!r}")
        m = spsp.random(shape[0], shape[1], density=density, format="csr", dtype=np.float64)
        m.data = values(m.data)
        arr = sparse.csr_matrix(m.astype(dt), ctx=ctx)
        return arr, (arr._sdata, arr._sindptr, arr._sindices)
    raise ValueError(f"rand_sparse_ndarray: unknown storage type {stype!r}; expected "
                     "'row_sparse' or 'csr'")


def _powerlaw_csr(num_rows, num_cols, density):
    """MXNet's power-law csr test data (dense here): every row's first entry, then 1, 3, 7,
    ... more leading entries per row (twice the previous row's count), whole rows once the
    columns run out, until ``int(num_rows * num_cols * density)`` entries are used.

    Raises:
        ValueError: a density outside [0, 1], or fewer entries than twice the rows (as
            MXNet).
    """
    import numpy as np
    total = int(num_rows * num_cols * density)
    if not 0 <= density <= 1:
        raise ValueError(f"rand_sparse_ndarray: density must be in [0, 1], got {density}")
    if total < 2 * num_rows:
        raise ValueError(f"rand_sparse_ndarray: the powerlaw distribution needs num_rows * "
                         f"num_cols * density >= 2 * num_rows, got density {density} for "
                         f"shape ({num_rows}, {num_cols})")
    out = np.zeros((num_rows, num_cols))
    out[:, 0] = 1 + np.random.uniform(0.001, 2, num_rows)
    unused = total - num_rows
    width = 2
    for row in range(num_rows):
        if unused <= 0:
            break
        limit = min(num_cols, width)
        if limit == num_cols and unused > limit:
            out[row] = 1 + np.random.uniform(0.001, 2)
            unused -= limit - 1
            continue
        k = min(limit - 1, unused)
        out[row, 1:1 + k] = 1 + np.random.uniform(0.001, 2, k)
        unused -= k
        width *= 2
    if unused > 0:
        raise ValueError(f"rand_sparse_ndarray: the powerlaw distribution cannot hold density "
                         f"{density} in shape ({num_rows}, {num_cols})")
    return out


def create_sparse_array(shape, stype, data_init=None, rsp_indices=None, dtype=None,
                        modifier_func=None, density=0.5, shuffle_csr_indices=False):
    """A random sparse array (`rand_sparse_ndarray`'s array, density 0.5 by default).

    Args:
        shape: the array's shape (2-D for csr).
        stype: the storage type: 'row_sparse' or 'csr'.
        data_init: default None: a value for every stored entry (else uniform in [0, 1)).
        rsp_indices: default None: the stored rows of a row_sparse array (else random).
        dtype: default None: the dtype (None: float32).
        modifier_func: default None: a function applied to each stored value.
        density: default 0.5: the fraction of rows (row_sparse) or entries (csr) stored.
        shuffle_csr_indices: accepted for MXNet's signature; not used.

    Returns:
        A sparse NDArray.

    Raises:
        ValueError: an unknown storage type (as `rand_sparse_ndarray`).

    Example::

        arr = mx.test_utils.create_sparse_array((4, 3), 'csr', data_init=1.0)
        arr.stype, arr.shape   # ('csr', (4, 3))
    """
    return rand_sparse_ndarray(shape, stype, density=density, dtype=dtype, data_init=data_init,
                               rsp_indices=rsp_indices, modifier_func=modifier_func)[0]


def create_sparse_array_zd(shape, stype, density, data_init=None, rsp_indices=None,
                           dtype=None, modifier_func=None, shuffle_csr_indices=False):
    """A random sparse array that may hold nothing: a row_sparse one stores exactly the rows
    `rsp_indices` (none when None; `density` is ignored, as in MXNet), a csr one entries of
    `density` (0 allowed).

    Args:
        shape: the array's shape (2-D for csr).
        stype: the storage type: 'row_sparse' or 'csr'.
        density: the fraction of entries a csr array stores (0 allowed); ignored for row_sparse.
        data_init: default None: a value for every stored entry (else uniform in [0, 1)).
        rsp_indices: default None: the rows a row_sparse array stores (none when None).
        dtype: default None: the dtype (None: float32).
        modifier_func: default None: a function applied to each stored value.
        shuffle_csr_indices: accepted for MXNet's signature; not used.

    Returns:
        A sparse NDArray.

    Raises:
        ValueError: more rsp_indices than rows, or an unknown storage type.

    Example::

        arr = mx.test_utils.create_sparse_array_zd((4, 3), 'row_sparse', 0.5, rsp_indices=[1, 3])
        arr.indices.asnumpy().tolist()   # [1, 3]
    """
    if stype == "row_sparse":
        density = 0.0
        if rsp_indices is not None and len(rsp_indices) > shape[0]:
            raise ValueError(f"create_sparse_array_zd: {len(rsp_indices)} rsp_indices for "
                             f"{shape[0]} rows")
        if rsp_indices is not None:
            rsp_indices = sorted(rsp_indices)
    return rand_sparse_ndarray(shape, stype, density=density, dtype=dtype, data_init=data_init,
                               rsp_indices=rsp_indices, modifier_func=modifier_func)[0]


def shuffle_csr_column_indices(csr):
    """Shuffle a csr array's column indices within each row, in place, with numpy's global
    random state, as MXNet's helper does: the values stay where they are, so the array's
    entries move within their rows (tests use it to make unsorted indices).

    Args:
        csr: a `CSRNDArray`.

    Raises:
        TypeError: `csr` is not a csr array.

    Example::

        csr = nd.array(np.ones((2, 3))).tostype('csr')
        mx.test_utils.shuffle_csr_column_indices(csr)   # column order within each row is shuffled
        sorted(csr.indices.asnumpy()[:3].tolist())   # [0, 1, 2]
    """
    if getattr(csr, "stype", None) != "csr":
        raise TypeError(f"shuffle_csr_column_indices: csr must be a CSRNDArray, got "
                        f"{type(csr).__name__}")
    _, indptr, indices = csr.handle
    for row in range(len(indptr) - 1):
        np.random.shuffle(indices[indptr[row]:indptr[row + 1]])
