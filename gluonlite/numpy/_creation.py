"""`mx.np`'s array-creation functions: each a front end of one creation operator
(``_npi_zeros``, ``_npi_arange``, ...), with MXNet 1.9.1's signatures (``ctx=`` for the
device, float32 unless `dtype` says otherwise, float64 under ``npx.set_np(dtype=True)``)."""
import numbers

import numpy as _onp

from ..base import MXNetTypeError, MXNetValueError, normalize_dtype
from ..context import current_context
from ..ndarray.ndarray import NDArray
from ..symbol.symbol import Symbol
from ._dispatch import invoke, default_float, is_symbolic

__all__ = ["zeros", "ones", "full", "zeros_like", "ones_like", "full_like", "empty_like",
           "arange", "linspace", "logspace", "eye", "identity", "indices", "hanning",
           "hamming", "blackman", "meshgrid", "tri_dtype"]


def _shape(shape, fname):
    if isinstance(shape, (numbers.Integral, _onp.integer)):
        return (int(shape),)
    try:
        return tuple(int(d) for d in shape)
    except TypeError:
        raise MXNetTypeError(f"{fname}: shape must be an int or a tuple of ints, got "
                             f"{shape!r}") from None


def _dtype(dtype, fname, default=None):
    if dtype is None:
        dtype = default if default is not None else default_float()
    return normalize_dtype(dtype, f"{fname}: dtype").name


def _ctx(ctx):
    return str(ctx if ctx is not None else current_context())


def _check_order(order, fname):
    if order != "C":
        raise NotImplementedError(f"{fname}: only C order is supported, got order={order!r}")


def zeros(shape, dtype=None, order="C", ctx=None):
    """An array of zeros of `shape` (() is a 0-d array).

    Args:
        shape: an int or a tuple of ints.
        dtype: the dtype (default float32; float64 under ``npx.set_np(dtype=True)``).
        order: 'C' only.
        ctx: the context (default: the current one).

    Raises:
        NotImplementedError: an order other than 'C'.

    Example::

        mx.np.zeros((2, 3)).shape   # (2, 3)
    """
    _check_order(order, "zeros")
    return invoke("_npi_zeros", [], {"shape": _shape(shape, "zeros"),
                                     "dtype": _dtype(dtype, "zeros"), "ctx": _ctx(ctx)},
                  fname="zeros")


def ones(shape, dtype=None, order="C", ctx=None):
    """An array of ones of `shape` (as `zeros`).

    Args:
        shape: an int or a tuple of ints (() gives a 0-d array).
        dtype: default None: float32 (float64 under ``npx.set_np(dtype=True)``); else a dtype name
            or NumPy dtype.
        order (str): default 'C', the only layout supported.
        ctx: default None: the current context; else the `Context` (device) of the result.

    Returns:
        An `mx.np.ndarray` of ones.

    Raises:
        NotImplementedError: an order other than 'C'.
        TypeError: a shape that is not an int or a tuple of ints.

    Example::

        mx.np.ones(3, dtype='int32')   # array([1, 1, 1], dtype=int32)
    """
    _check_order(order, "ones")
    return invoke("_npi_ones", [], {"shape": _shape(shape, "ones"),
                                    "dtype": _dtype(dtype, "ones"), "ctx": _ctx(ctx)},
                  fname="ones")


def full(shape, fill_value, dtype=None, order="C", ctx=None, out=None):
    """An array of `shape` filled with `fill_value` (a number, or an array broadcast to
    `shape`); a bool value gives a bool array unless `dtype` says otherwise.

    Args:
        shape: an int or a tuple of ints.
        fill_value: a number (a bool gives a bool array unless `dtype` is given), or an array
            broadcast to `shape` (then `out` is not used).
        dtype: default None: float32 (float64 under ``npx.set_np(dtype=True)``), bool for a bool
            `fill_value`, the array's dtype for an array `fill_value`; else a dtype name or NumPy
            dtype.
        order (str): default 'C', the only layout supported.
        ctx: default None: the current context; else the `Context` (device) of the result.
        out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype that
            receives the values (and is returned).

    Returns:
        An `mx.np.ndarray` of `shape`.

    Raises:
        NotImplementedError: an order other than 'C'.
        TypeError: a shape that is not an int or a tuple of ints.

    Example::

        mx.np.full((2, 2), 7)   # array([[7., 7.], [7., 7.]])
    """
    _check_order(order, "full")
    if isinstance(fill_value, (NDArray, Symbol)):
        res = invoke("_npi_broadcast_to", [fill_value], {"shape": _shape(shape, "full")},
                     fname="full")
        return res if dtype is None else res.astype(dtype)
    if isinstance(fill_value, (bool, _onp.bool_)):
        fill_value = int(fill_value)
        dtype = _onp.bool_ if dtype is None else dtype
    return invoke("_npi_full", [], {"shape": _shape(shape, "full"), "value": float(fill_value),
                                    "dtype": _dtype(dtype, "full"), "ctx": _ctx(ctx)},
                  out=out, fname="full")


def full_like(a, fill_value, dtype=None, order="C", ctx=None, out=None):
    """An array of `a`'s shape filled with `fill_value`, in `dtype` (default `a`'s).

    Args:
        a: the `mx.np.ndarray` whose shape (and dtype) the result takes.
        fill_value: the number to fill with (a bool counts as 0 or 1).
        dtype: default None: `a`'s dtype; else a dtype name or NumPy dtype.
        order (str): default 'C', the only layout supported.
        ctx: default None: the current context; else the `Context` (device) of the result.
        out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype that
            receives the values (and is returned).

    Returns:
        An `mx.np.ndarray` of `a`'s shape.

    Raises:
        NotImplementedError: an order other than 'C'.
        TypeError: `a` is not an `mx.np.ndarray`.

    Example::

        x = mx.np.zeros((2,))
        mx.np.full_like(x, 0.5)   # array([0.5, 0.5])
    """
    _check_order(order, "full_like")
    if isinstance(fill_value, (bool, _onp.bool_)):
        fill_value = int(fill_value)
    attrs = {"fill_value": float(fill_value), "ctx": _ctx(ctx),
             "dtype": None if dtype is None else _dtype(dtype, "full_like")}
    return invoke("_npi_full_like", [a], attrs, out=out, fname="full_like")


def zeros_like(a, dtype=None, order="C", ctx=None, out=None):
    """An array of zeros with `a`'s shape (and dtype unless `dtype` is given).

    Args:
        a: the `mx.np.ndarray` whose shape (and dtype) the result takes.
        dtype: default None: `a`'s dtype; else a dtype name or NumPy dtype.
        order (str): default 'C', the only layout supported.
        ctx: default None: the current context; else the `Context` (device) of the result.
        out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype that
            receives the values (and is returned).

    Returns:
        An `mx.np.ndarray` of zeros of `a`'s shape.

    Raises:
        NotImplementedError: an order other than 'C'.
        TypeError: `a` is not an `mx.np.ndarray`.

    Example::

        a = mx.np.array([[1., 2.], [3., 4.]])
        mx.np.zeros_like(a)  # array([[0., 0.], [0., 0.]])
    """
    return full_like(a, 0, dtype=dtype, order=order, ctx=ctx, out=out)


def ones_like(a, dtype=None, order="C", ctx=None, out=None):
    """An array of ones with `a`'s shape (and dtype unless `dtype` is given).

    Args:
        a: the `mx.np.ndarray` whose shape (and dtype) the result takes.
        dtype: default None: `a`'s dtype; else a dtype name or NumPy dtype.
        order (str): default 'C', the only layout supported.
        ctx: default None: the current context; else the `Context` (device) of the result.
        out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype that
            receives the values (and is returned).

    Returns:
        An `mx.np.ndarray` of ones of `a`'s shape.

    Raises:
        NotImplementedError: an order other than 'C'.
        TypeError: `a` is not an `mx.np.ndarray`.

    Example::

        a = mx.np.array([[1., 2.], [3., 4.]])
        mx.np.ones_like(a)  # array([[1., 1.], [1., 1.]])
    """
    return full_like(a, 1, dtype=dtype, order=order, ctx=ctx, out=out)


def empty_like(prototype, dtype=None, order="C", subok=False, shape=None):
    """A new array with `prototype`'s shape and dtype (zeros here: never stale memory).

    Args:
        prototype: the `mx.np.ndarray` whose shape and dtype the result takes.
        dtype: default None: `prototype`'s dtype; else a dtype name or NumPy dtype.
        order (str): default 'C', the only layout supported.
        subok (bool): default False, the only value supported.
        shape: default None, the only value supported (the prototype's shape).

    Returns:
        An `mx.np.ndarray` of zeros of `prototype`'s shape.

    Raises:
        NotImplementedError: order other than 'C', subok=True or a new shape (as in MXNet).

    Example::

        a = mx.np.array([[1., 2.], [3., 4.]])
        mx.np.empty_like(a).shape  # (2, 2)
    """
    _check_order(order, "empty_like")
    if subok:
        raise NotImplementedError("empty_like: creating an array of a sub-class is not "
                                  "supported (subok=True)")
    if shape is not None:
        raise NotImplementedError("empty_like: assigning a new shape is not supported")
    return full_like(prototype, 0, dtype=dtype)


def arange(start, stop=None, step=1, dtype=None, ctx=None):
    """Evenly spaced values in [start, stop) with `step` (float32 by default).

    Args:
        start: the first value; alone (``stop`` None) it is the end and the start is 0 (a lone
            None gives an empty range, as in MXNet).
        stop: default None: see `start`; else the end, not included.
        step: default 1: the spacing (None counts as 1).
        dtype: default None: float32 (float64 under ``npx.set_np(dtype=True)``); else a dtype name
            or NumPy dtype.
        ctx: default None: the current context; else the `Context` (device) of the result.

    Returns:
        A 1-D `mx.np.ndarray` of ceil((stop - start) / step) values.

    Raises:
        MXNetTypeError: `start` is None while `stop` is given (MXNet refuses it too).
        ZeroDivisionError: step is 0.

    Example::

        mx.np.arange(1, 2, 0.25)   # array([1. , 1.25, 1.5 , 1.75])
    """
    if stop is None:
        # MXNet reads a lone None as an empty range, as if the end were 0
        start, stop = 0, (0 if start is None else start)
    elif start is None:
        raise MXNetTypeError("arange: start is None while stop is given; expected a number")
    if step is None:
        step = 1
    if step == 0:
        raise ZeroDivisionError("arange: step cannot be 0")
    return invoke("_npi_arange", [], {"start": float(start), "stop": float(stop),
                                      "step": float(step), "dtype": _dtype(dtype, "arange"),
                                      "ctx": _ctx(ctx)}, fname="arange")


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, ctx=None):
    """`num` evenly spaced numbers over [start, stop] (or [start, stop) without the end
    point); with `retstep`, also the step.

    Args:
        start: the first value (a number).
        stop: the last value (a number), included unless `endpoint` is False.
        num (int): default 50: how many values.
        endpoint (bool): default True: `stop` is the last value; False leaves it out (the step is
            then (stop - start) / num).
        retstep (bool): default False: return the values only; True returns (values, step).
        dtype: default None: float32 (float64 under ``npx.set_np(dtype=True)``); else a dtype name
            or NumPy dtype.
        axis (int): default 0, the only value supported.
        ctx: default None: the current context; else the `Context` (device) of the result.

    Returns:
        A 1-D `mx.np.ndarray` of `num` values, or the pair (values, step) with `retstep`.

    Raises:
        NotImplementedError: array start/stop, or an axis other than 0 (as in MXNet 1.9.1).

    Example::

        mx.np.linspace(0, 1, 5)  # array([0. , 0.25, 0.5 , 0.75, 1. ])
    """
    if isinstance(start, (list, tuple, _onp.ndarray, NDArray)) or \
            isinstance(stop, (list, tuple, _onp.ndarray, NDArray)):
        raise NotImplementedError("linspace: start and stop must be numbers")
    if axis != 0:
        raise NotImplementedError("linspace: only axis=0 is supported")
    res = invoke("_npi_linspace", [], {"start": float(start), "stop": float(stop),
                                       "num": int(num), "endpoint": bool(endpoint),
                                       "dtype": _dtype(dtype, "linspace"), "ctx": _ctx(ctx)},
                 fname="linspace")
    if retstep:
        div = (num - 1) if endpoint else num
        return res, (stop - start) / div if div > 0 else _onp.nan
    return res


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0, ctx=None):
    """`num` numbers spaced evenly on a log scale from base**start to base**stop.

    Args:
        start: the exponent of the first value, base**start (a number).
        stop: the exponent of the last value, base**stop (a number).
        num (int): default 50: how many values.
        endpoint (bool): default True: base**stop is the last value; False leaves it out.
        base (float): default 10.0: the base of the powers.
        dtype: default None: float32 (float64 under ``npx.set_np(dtype=True)``); else a dtype name
            or NumPy dtype.
        axis (int): default 0, the only value supported.
        ctx: default None: the current context; else the `Context` (device) of the result.

    Returns:
        A 1-D `mx.np.ndarray` of `num` values.

    Raises:
        NotImplementedError: array start/stop, or an axis other than 0.

    Example::

        mx.np.logspace(0, 2, 3)  # array([1., 10., 100.])
    """
    if isinstance(start, (list, tuple, _onp.ndarray, NDArray)) or \
            isinstance(stop, (list, tuple, _onp.ndarray, NDArray)):
        raise NotImplementedError("logspace: start and stop must be numbers")
    if axis != 0:
        raise NotImplementedError("logspace: only axis=0 is supported")
    return invoke("_npi_logspace", [], {"start": float(start), "stop": float(stop),
                                        "num": int(num), "endpoint": bool(endpoint),
                                        "base": float(base), "dtype": _dtype(dtype, "logspace"),
                                        "ctx": _ctx(ctx)}, fname="logspace")


def eye(N, M=None, k=0, dtype=None, **kwargs):
    """An N x M array with ones on diagonal `k` (``ctx=`` is taken as a keyword).

    Args:
        N (int): the number of rows.
        M (int): default None: N columns; else the number of columns.
        k (int): default 0: the main diagonal; positive above it, negative below.
        dtype: default None: float32 (float64 under ``npx.set_np(dtype=True)``); else a dtype name
            or NumPy dtype.
        **kwargs: ``ctx`` only: the `Context` of the result (default the current one).

    Returns:
        An (N, M) `mx.np.ndarray`.

    Raises:
        TypeError: a keyword other than ctx.
        NotImplementedError: `order` (MXNet 1.9.1 refuses it).

    Example::

        mx.np.eye(2)  # array([[1., 0.], [0., 1.]])
    """
    if "order" in kwargs:
        raise NotImplementedError("eye: order is not supported")
    ctx = kwargs.pop("ctx", None)
    if kwargs:
        raise TypeError(f"eye: unexpected keyword argument {next(iter(kwargs))!r}")
    return invoke("_npi_eye", [], {"N": int(N), "M": None if M is None else int(M),
                                   "k": int(k), "dtype": _dtype(dtype, "eye"),
                                   "ctx": _ctx(ctx)}, fname="eye")


def identity(n, dtype=None, ctx=None):
    """The n x n identity matrix.

    Args:
        n (int): the number of rows and columns.
        dtype: default None: float32 (float64 under ``npx.set_np(dtype=True)``); else a dtype name
            or NumPy dtype.
        ctx: default None: the current context; else the `Context` (device) of the result.

    Returns:
        An (n, n) `mx.np.ndarray`.

    Raises:
        TypeError: n is not an int. ValueError: n is negative.

    Example::

        mx.np.identity(2)  # array([[1., 0.], [0., 1.]])
    """
    if not isinstance(n, (numbers.Integral, _onp.integer)) or isinstance(n, bool):
        raise MXNetTypeError("identity: input 'n' should be an integer")
    if n < 0:
        raise MXNetValueError("identity: input 'n' cannot be negative")
    return invoke("_npi_identity", [], {"shape": (int(n), int(n)),
                                        "dtype": _dtype(dtype, "identity"), "ctx": _ctx(ctx)},
                  fname="identity")


def indices(dimensions, dtype=None, ctx=None):
    """The grid of indices of an array of shape `dimensions` (int32 by default).

    Args:
        dimensions: a tuple or list of ints: the shape of the grid.
        dtype: default None: int32; else a dtype name or NumPy dtype.
        ctx: default None: the current context; else the `Context` (device) of the result.

    Returns:
        An `mx.np.ndarray` of shape ``(len(dimensions),) + tuple(dimensions)``; entry i holds the
        i-th index of each position.

    Raises:
        ValueError: dimensions is not a sequence of ints.

    Example::

        mx.np.indices((2, 2)).shape  # (2, 2, 2)
    """
    if not isinstance(dimensions, (tuple, list)):
        raise MXNetValueError("indices: the dimensions must be a sequence of ints")
    return invoke("_npi_indices", [], {"dimensions": tuple(int(d) for d in dimensions),
                                       "dtype": _dtype(dtype, "indices", "int32"),
                                       "ctx": _ctx(ctx)}, fname="indices")


def _window(fname):
    def f(M, dtype=None, ctx=None):
        return invoke(f"_npi_{fname}", [], {"M": int(M), "dtype": _dtype(dtype, fname),
                                             "ctx": _ctx(ctx)}, fname=fname)
    f.__name__ = f.__qualname__ = fname
    f.__doc__ = (f"The {fname.capitalize()} window of M points (float32 by default).\n\n"
                 "Args:\n    M (int): the number of points (0 or less gives an empty array).\n"
                 "    dtype: default None: float32 (float64 under ``npx.set_np(dtype=True)``); "
                 "else a\n        dtype name or NumPy dtype.\n"
                 "    ctx: default None: the current context; else the `Context` of the "
                 "result.\n\n"
                 "Returns:\n    A 1-D `mx.np.ndarray` of M values.\n\n"
                 f"Example::\n\n    mx.np.{fname}(5).shape   # (5,)\n")
    return f


hanning = _window("hanning")
hamming = _window("hamming")
blackman = _window("blackman")


def meshgrid(*xi, **kwargs):
    """Coordinate matrices from coordinate vectors (NumPy's meshgrid: ``indexing='xy'`` or
    'ij', ``sparse``, ``copy``).

    Raises:
        ValueError: an unknown indexing.

    Example::

        xx, yy = mx.np.meshgrid(mx.np.arange(3), mx.np.arange(2))
        xx.shape  # (2, 3)
    """
    indexing = kwargs.pop("indexing", "xy")
    sparse = kwargs.pop("sparse", False)
    kwargs.pop("copy", True)
    if kwargs:
        raise TypeError(f"meshgrid: unexpected keyword argument {next(iter(kwargs))!r}")
    if indexing not in ("xy", "ij"):
        raise ValueError("meshgrid: valid values for `indexing` are 'xy' and 'ij'.")
    ndim = len(xi)
    shape1 = (1,) * ndim
    def reshape(x, shape):
        return invoke("_np_reshape", [x], {"newshape": shape, "order": "C"}, fname="meshgrid")

    out = [reshape(x, shape1[:i] + (-1,) + shape1[i + 1:]) for i, x in enumerate(xi)]
    if indexing == "xy" and ndim > 1:
        out[0] = reshape(xi[0], (1, -1) + shape1[2:])
        out[1] = reshape(xi[1], (-1, 1) + shape1[2:])
    if not sparse:
        sizes = [x.size for x in xi]
        if indexing == "xy" and ndim > 1:
            sizes[0], sizes[1] = sizes[1], sizes[0]
        out = [invoke("_npi_broadcast_to", [x], {"shape": tuple(sizes)}, fname="meshgrid")
               for x in out]
    return out


def tri_dtype(dtype):
    """`dtype` normalized, or the default float.

    Args:
        dtype: a dtype name, a NumPy dtype, or None for the default float (float32; float64 under
            ``npx.set_np(dtype=True)``).

    Returns:
        str: the dtype's name.

    Example::

        mx.np.tri_dtype(None)  # 'float32'
    """
    return _dtype(dtype, "tri")


def _is_sym(*xs):
    return is_symbolic(xs)
