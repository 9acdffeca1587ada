"""What a test run may ask about its surroundings: environment variables (`getenv`,
`setenv`), the kind of run (`is_cd_run`, `is_aarch64_run`), the GPU (`get_cuda_compute_
capability`), which operators can run (`has_tvm_ops`, `is_op_runnable`), and the sparse and
`mx.np` helpers, which gluonlite does not have (they raise, naming why)."""
import os
import platform

__all__ = ["getenv", "setenv", "use_np", "is_cd_run", "is_aarch64_run", "has_tvm_ops",
           "is_op_runnable", "get_cuda_compute_capability", "rand_sparse_ndarray",
           "create_sparse_array", "create_sparse_array_zd", "shuffle_csr_column_indices"]


def getenv(name):
    """The value of environment variable `name`, or None (MXNet reads it through its C
    library; here it is the process environment).

    Example: ``getenv("MXNET_HOME")``.
    """
    return os.environ.get(name)


def setenv(name, value):
    """Set (or, with None, unset) environment variable `name`.

    Raises:
        TypeError: `value` is neither a str nor None.
    """
    if value is None:
        os.environ.pop(name, None)
    elif not isinstance(value, str):
        raise TypeError(f"setenv: the value of {name!r} must be a str or None, got "
                        f"{type(value).__name__}")
    else:
        os.environ[name] = value


def use_np(func):
    """MXNet's decorator that runs a function or class under the `mx.np` semantics
    (re-exported by MXNet's test_utils from `mx.util`).

    gluonlite has no `mx.np` arrays: the decorated function or class is returned with
    calls that raise NotImplementedError, so a module using the decorator still imports and
    only the numpy-interface tests fail, saying why.
    """
    import functools
    import inspect
    why = (f"{getattr(func, '__name__', func)}: the mx.np (numpy-compatible) interface "
           "(use_np) is not supported in gluonlite")
    if inspect.isclass(func):
        def refuse_init(self, *args, **kwargs):
            raise NotImplementedError(why)
        func.__init__ = refuse_init
        return func

    @functools.wraps(func)
    def refused(*args, **kwargs):
        raise NotImplementedError(why)
    return refused


def is_cd_run():
    """Whether the run is part of a continuous-delivery job (CD_JOB=1)."""
    return os.environ.get("CD_JOB", "0") == "1"


def is_aarch64_run():
    """Whether the machine is an aarch64 one."""
    return platform.machine() == "aarch64"


def get_cuda_compute_capability(ctx):
    """The compute capability of `ctx`'s GPU as an int (``75`` for sm_75).

    Raises:
        ValueError: `ctx` is not a gpu context.
        RuntimeError: no GPU backend (CuPy and a device) is available.
    """
    if ctx.device_type != "gpu":
        raise ValueError(f"get_cuda_compute_capability: expected a gpu context, got {ctx}")
    cp = ctx.xp
    return int(cp.cuda.Device(ctx.device_id).compute_capability)


def has_tvm_ops():
    """Whether TVM-generated operators are built in: never in gluonlite."""
    return False


def is_op_runnable():
    """Whether the current context can run every operator: always (no TVM operators)."""
    return True


def _sparse(what):
    raise NotImplementedError(f"{what}: sparse storage (row_sparse, csr) is not supported; "
                              "gluonlite arrays are dense")


def rand_sparse_ndarray(shape, stype, density=None, dtype=None, distribution=None,
                        data_init=None, rsp_indices=None, modifier_func=None,
                        shuffle_csr_indices=False, ctx=None):
    """A random sparse array. Raises NotImplementedError: gluonlite has no sparse storage."""
    _sparse("rand_sparse_ndarray")


def create_sparse_array(shape, stype, data_init=None, rsp_indices=None, dtype=None,
                        modifier_func=None, density=0.5, shuffle_csr_indices=False):
    """A sparse array. Raises NotImplementedError: gluonlite has no sparse storage."""
    _sparse("create_sparse_array")


def create_sparse_array_zd(shape, stype, density, data_init=None, rsp_indices=None,
                           dtype=None, modifier_func=None, shuffle_csr_indices=False):
    """A sparse array. Raises NotImplementedError: gluonlite has no sparse storage."""
    _sparse("create_sparse_array_zd")


def shuffle_csr_column_indices(csr):
    """Shuffle a CSR array's column indices. Raises NotImplementedError: no sparse storage."""
    _sparse("shuffle_csr_column_indices")
