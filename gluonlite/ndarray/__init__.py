"""`nd`: imperative arrays. Every registered operator is a function here (generated from the
registry), plus creation helpers, `random` and `contrib` (control flow)."""
import numpy as _np

from .. import _profiling
from .. import ops as _ops  # noqa: F401  (registers the operators)
from ..base import normalize_dtype
from ..context import current_context, synchronize
from .ndarray import INSTALLED, NDArray, array, empty, check_stype
from . import register as _register
from ..base import MXNetValueError
from ..util import is_np_shape

_register.populate(globals())


def _shape(shape):
    return (int(shape),) if isinstance(shape, (int, _np.integer)) else tuple(shape)


def _creation(shape, ctx, dtype, fill, stype=None, what="zeros", out=None):
    if _profiling.ACTIVE:  # MXNet's profiler sees the operator _zeros, _ones or _full
        return _profiling.timed_op(f"_{what}", _create, shape, ctx, dtype, fill, stype, what,
                                   out)
    return _create(shape, ctx, dtype, fill, stype, what, out)


def _create(shape, ctx, dtype, fill, stype, what, out):
    if out is not None:  # MXNet's out=: fill the given array and return it
        if not isinstance(out, NDArray):
            raise TypeError(f"{what}: out must be an NDArray, got {type(out).__name__}")
        if tuple(out.shape) != _shape(shape):
            raise ValueError(f"{what}: out has shape {out.shape} but shape is {_shape(shape)}")
        out[:] = fill
        return out
    if check_stype(stype, what, sparse_ok=True) != "default":
        out = INSTALLED["sparse_zeros"](stype, _shape(shape), ctx=ctx, dtype=dtype)
        if fill != 0:
            out[:] = _creation(shape, ctx, dtype, fill)
        return out
    ctx = ctx or current_context()
    if what in ("zeros", "ones") and not _np_shape() and (not _shape(shape)
                                                          or 0 in _shape(shape)):
        raise MXNetValueError(
            f"Operator _{what} inferring shapes failed: shape {_shape(shape)}: outside NumPy "
            "shape semantics a 0 dimension is unknown and () is not a shape (as in MXNet); "
            "use mx.np_shape() / npx.set_np() for zero-size and 0-d arrays")
    return NDArray(ctx.xp.full(_shape(shape), fill, dtype=normalize_dtype(dtype or _np.float32)),
                   ctx)


def _np_shape():
    return is_np_shape()


def zeros(shape, ctx=None, dtype=None, stype=None, **kwargs):
    """An array of zeros; `stype` 'row_sparse' or 'csr' gives a sparse one (nothing
    stored).

    Args:
        shape: the array's shape, an int or a tuple of ints. Outside NumPy shape semantics
            (`mx.np_shape`) neither () nor a 0 dimension is allowed, as in MXNet.
        ctx: the Context of the array (default None: the current context).
        dtype: the element type (default None: float32).
        stype: the storage type: None or 'default' for dense, 'row_sparse' or 'csr'.
        **kwargs: ``out``: an NDArray of `shape` to fill with zeros and return instead.

    Returns:
        NDArray: the new array (`out` when given).

    Raises:
        ValueError: an unknown `stype`, or an `out` whose shape is not `shape`
            (MXNetValueError, a ValueError, for a () or 0-size shape outside NumPy shape
            semantics).
        TypeError: an `out` that is not an NDArray.

    Example::

        nd.zeros((2, 3), dtype='int32').asnumpy()   # [[0 0 0] [0 0 0]]
        nd.zeros((2, 3), stype='csr').stype         # 'csr'
    """
    return _creation(shape, ctx, dtype, 0, stype, "zeros", kwargs.get("out"))


def ones(shape, ctx=None, dtype=None, stype=None, **kwargs):
    """An array of ones (`stype` as in `zeros`).

    Args:
        shape: the array's shape, an int or a tuple of ints (as in `zeros`).
        ctx: the Context of the array (default None: the current context).
        dtype: the element type (default None: float32).
        stype: the storage type: None or 'default' for dense, 'row_sparse' or 'csr'.
        **kwargs: ``out``: an NDArray of `shape` to fill with ones and return instead.

    Returns:
        NDArray: the new array (`out` when given).

    Raises:
        ValueError: as `zeros` does.
        TypeError: an `out` that is not an NDArray.

    Example::

        nd.ones((2, 2)).asnumpy()   # [[1. 1.] [1. 1.]]
    """
    return _creation(shape, ctx, dtype, 1, stype, "ones", kwargs.get("out"))


def full(shape, val, ctx=None, dtype=None, stype=None, **kwargs):
    """An array filled with `val` (`stype` as in `zeros`).

    Args:
        shape: the array's shape, an int or a tuple of ints.
        val: the fill value, a number.
        ctx: the Context of the array (default None: the current context).
        dtype: the element type (default None: float32).
        stype: the storage type: None or 'default' for dense, 'row_sparse' or 'csr'.
        **kwargs: ``out``: an NDArray of `shape` to fill with `val` and return instead.

    Returns:
        NDArray: the new array (`out` when given).

    Raises:
        ValueError: an unknown `stype`, or an `out` whose shape is not `shape`.
        TypeError: an `out` that is not an NDArray.

    Example::

        nd.full((2,), 7, dtype='int32').asnumpy()   # [7 7]
    """
    return _creation(shape, ctx, dtype, val, stype, "full", kwargs.get("out"))


def arange(start, stop=None, step=1.0, repeat=1, infer_range=False, ctx=None, dtype=None,
           **kwargs):
    """Evenly spaced values in [start, stop) (float32 by default), each repeated `repeat` times.

    Args:
        start: the first value; with `stop` None, the stop, and the values start at 0.
        stop: the end of the interval, not included (default None: see `start`).
        step: the spacing of the values (default 1.0).
        repeat: how many times each value is repeated in a row (default 1).
        infer_range: MXNet's flag to take the range from the graph; only False works.
        ctx: the Context of the array (default None: the current context).
        dtype: the element type (default None: float32).
        **kwargs: more attributes for the ``_arange`` operator (``out``, ``name``).

    Returns:
        NDArray: the 1-D array of values.

    Raises:
        NotImplementedError: infer_range=True.

    Example::

        nd.arange(3).asnumpy()                   # [0. 1. 2.]
        nd.arange(1, 3, repeat=2).asnumpy()      # [1. 1. 2. 2.]
    """
    return _register._gen_cache["_arange"](start=start, stop=stop, step=step, repeat=repeat,
                                           infer_range=infer_range,
                                           ctx=ctx,
                                           dtype=normalize_dtype(dtype or _np.float32).name)


def maximum(lhs, rhs):
    """Elementwise maximum of arrays and/or scalars (broadcasting).

    Args:
        lhs: an NDArray or a number.
        rhs: an NDArray or a number; two arrays broadcast against each other.

    Returns:
        NDArray: the elementwise maximum (with an array), or a number (two numbers, numpy's
        ``maximum`` of them).

    Example::

        nd.maximum(nd.array([1, 5]), 3).asnumpy()   # [3. 5.]
    """
    return _scalar_or_array(lhs, rhs, "broadcast_maximum", "_maximum_scalar", _np.maximum)


def minimum(lhs, rhs):
    """Elementwise minimum of arrays and/or scalars (broadcasting).

    Args:
        lhs: an NDArray or a number.
        rhs: an NDArray or a number; two arrays broadcast against each other.

    Returns:
        NDArray: the elementwise minimum (with an array), or a number (two numbers, numpy's
        ``minimum`` of them).

    Example::

        nd.minimum(nd.array([1, 5]), nd.array([[2], [4]])).asnumpy()   # [[1. 2.] [1. 4.]]
    """
    return _scalar_or_array(lhs, rhs, "broadcast_minimum", "_minimum_scalar", _np.minimum)


def power(base, exp):
    """``base ** exp`` elementwise for arrays and/or scalars (broadcasting); two scalars give
    a Python number, as in MXNet.

    Args:
        base: an NDArray or a number.
        exp: the exponent, an NDArray or a number; two arrays broadcast against each other.

    Returns:
        NDArray: the powers (with an array), or ``base ** exp`` for two numbers.

    Example::

        nd.power(nd.array([1, 2, 3]), 2).asnumpy()   # [1. 4. 9.]
        nd.power(2, nd.array([1, 3])).asnumpy()      # [2. 8.]
    """
    f = _register._gen_cache
    if isinstance(base, NDArray) and isinstance(exp, NDArray):
        return f["broadcast_power"](base, exp)
    if isinstance(base, NDArray):
        return f["_power_scalar"](base, scalar=exp)
    if isinstance(exp, NDArray):
        return f["_rpower_scalar"](exp, scalar=base)
    return base ** exp


def _scalar_or_array(lhs, rhs, name, scalar_name, fn):
    f = _register._gen_cache
    if isinstance(lhs, NDArray) and isinstance(rhs, NDArray):
        return f[name](lhs, rhs)
    if isinstance(lhs, NDArray):
        return f[scalar_name](lhs, scalar=rhs)
    if isinstance(rhs, NDArray):
        return f[scalar_name](rhs, scalar=lhs)
    return fn(lhs, rhs)


def concat(*data, dim=1, **kwargs):
    """Join arrays along axis `dim`.

    Example::

        nd.concat(nd.ones((2, 1)), nd.zeros((2, 2)), dim=1).shape   # (2, 3)
    """
    return _register._gen_cache["Concat"](*data, dim=dim, **kwargs)


def stack(*data, axis=0, **kwargs):
    """Join same-shape arrays along a new axis.

    Args:
        *data: the NDArrays to stack, all of one shape.
        axis: the position of the new axis in the output (default 0).
        **kwargs: more attributes for the ``stack`` operator (``out``, ``name``).

    Returns:
        NDArray: the stacked array, with one more axis of length len(data).

    Raises:
        ValueError: if the arrays' shapes differ (a `gluonlite.ops.registry.ShapeError`).

    Example::

        nd.stack(nd.array([1, 2]), nd.array([3, 4]), axis=1).asnumpy()   # [[1. 3.] [2. 4.]]
    """
    return _register._gen_cache["stack"](*data, axis=axis, **kwargs)


def waitall():
    """Wait until every device has finished its queued work: numpy computes synchronously,
    CuPy does not, so on a GPU this is the device sync a timer needs before it reads the
    clock (`gluonlite.context.synchronize`).

    Example::

        y = nd.ones((2, 2)) * 3
        nd.waitall()   # y is computed once this returns
    """
    synchronize()


from . import sparse  # noqa: E402,F401
from .sparse import cast_storage  # noqa: E402,F401
from . import storage  # noqa: E402,F401  (installs the storage-type dispatcher of invoke)
from . import sparse_grad  # noqa: E402,F401  (installs the tape's sparse-gradient writer)
from . import random  # noqa: E402
from .serialization import save, load, load_frombuffer  # noqa: E402,F401
from .dlpack import to_dlpack_for_read, to_dlpack_for_write, from_dlpack  # noqa: E402,F401
from .ndarray import from_numpy  # noqa: E402,F401
from . import contrib  # noqa: E402
from . import _internal  # noqa: E402,F401
from .functions import *  # noqa: E402,F401,F403  (MXNet's array-or-scalar functions)
from .imdecode import imdecode  # noqa: E402,F401
from . import linalg  # noqa: E402,F401
from .custom import Custom  # noqa: E402,F401
from . import image  # noqa: E402,F401
from ..ops import fluent as _fluent  # noqa: E402
from . import ufuncs as _ufuncs  # noqa: E402
from .ufuncs import moveaxis, concatenate  # noqa: E402,F401
from .indexing import (indexing_key_expand_implicit_axes, get_indexing_dispatch_code,  # noqa
                       get_oshape_of_gather_nd_op)

_ufuncs.install(globals())

_fluent.install(NDArray, globals(), "NDArray")
from . import numpy as np  # noqa: E402  (mx.nd.np: the NumPy dialect, imperative)
from . import numpy_extension as npx  # noqa: E402
# MXNet's modules of the operator functions, last: they repeat the namespaces above
from . import (gen_op, gen__internal, gen_contrib, gen_image, gen_linalg,  # noqa: E402,F401
               gen_random, gen_sparse, op, utils)
from ..ops.missing_names import missing_attribute  # noqa: E402


def __getattr__(name):
    # A name MXNet 1.9.1 has here is reported as an operator gluonlite lacks, not as a typo.
    if name.startswith("__"):
        raise AttributeError(name)
    raise missing_attribute("ndarray", name)
