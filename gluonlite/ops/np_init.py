"""Creation operators of MXNet's NumPy dialect: zeros, ones, identity, eye, arange, full_like,
indices, logspace and the window functions, with NumPy's shapes (``()`` is a 0-d array, a 0
is a real size) and MXNet's float32 default (``dtype`` given by the front end)."""
import numpy as np

from ..base import MXNetValueError
from . import attrs as A
from .registry import register
from .rules import same_shape

_CTX_DTYPE = {"ctx": A.Str(""), "dtype": A.Dtype("float32")}


def _dtype_attr(p, ins):
    return ins, [np.dtype(p.dtype or "float32")]


def _fill(name, value):
    def kernel(p, rc):
        return rc.xp.full(p.shape, value, dtype=p.dtype or "float32")

    kernel.__doc__ = f"{name}(shape, ctx, dtype): an array of {value}s of `shape` (() is 0-d)."
    register(name, inputs=(), attrs={"shape": A.Shape(()), **_CTX_DTYPE},
             shape=lambda p, ins: (ins, [tuple(p.shape)]), dtype=_dtype_attr)(kernel)


_fill("_npi_zeros", 0)
_fill("_npi_ones", 1)


@register("_npi_identity", inputs=(), attrs={"shape": A.Shape(()), **_CTX_DTYPE},
          shape=lambda p, ins: (ins, [tuple(p.shape)]), dtype=_dtype_attr)
def _identity(p, rc):
    """_npi_identity(shape=(n, n), ctx, dtype): the identity matrix."""
    if len(p.shape) != 2 or p.shape[0] != p.shape[1]:
        raise MXNetValueError(f"_npi_identity: shape must be (n, n), got {p.shape}")
    return rc.xp.eye(p.shape[0], dtype=p.dtype)


def _eye_m(p):
    return p.N if p.M is None else p.M


@register("_npi_eye", inputs=(),
          attrs={"N": A.Int(), "M": A.OptionalInt(), "k": A.Int(0), **_CTX_DTYPE},
          shape=lambda p, ins: (ins, [(p.N, _eye_m(p))]), dtype=_dtype_attr)
def _eye(p, rc):
    """_npi_eye(N, M=None, k=0, ctx, dtype): ones on diagonal `k` of an N x M matrix."""
    return rc.xp.eye(p.N, _eye_m(p), p.k, dtype=p.dtype)


def _arange_n(p):
    if p.infer_range:
        raise NotImplementedError("_npi_arange: infer_range=True is not supported; give stop")
    start, stop = (0.0, p.start) if p.stop is None else (p.start, p.stop)
    if p.step == 0:
        raise MXNetValueError("_npi_arange: step must not be 0")
    return max(int(np.ceil((stop - start) / p.step)), 0), start


@register("_npi_arange", inputs=(),
          attrs={"start": A.Float(0.0), "stop": A.OptionalFloat(), "step": A.Float(1.0),
                 "repeat": A.Int(1), "infer_range": A.Bool(False), **_CTX_DTYPE},
          shape=lambda p, ins: (ins, [(_arange_n(p)[0] * p.repeat,)]), dtype=_dtype_attr)
def _arange(p, rc):
    """_npi_arange(start, stop=None, step=1, repeat=1, ctx, dtype): NumPy's arange (each
    value repeated `repeat` times)."""
    n, start = _arange_n(p)
    vals = start + np.arange(n, dtype=np.float64) * p.step
    return rc.xp.asarray(np.repeat(vals, p.repeat).astype(p.dtype))


def _full_like_dtype(p, ins):
    return ins, [np.dtype(p.dtype) if p.dtype else ins[0]]


@register("_npi_full_like", inputs=("a",), nondiff=("a",),
          attrs={"fill_value": A.Float(), "ctx": A.Str(""), "dtype": A.Dtype(None)},
          shape=same_shape("_npi_full_like"), dtype=_full_like_dtype, same_dtype=())
def _full_like(p, rc, a):
    """_npi_full_like(a, fill_value, ctx, dtype=None): an array of a's shape filled with
    `fill_value`, in `dtype` (default a's)."""
    return rc.xp.full(a.shape, p.fill_value, dtype=p.dtype or a.dtype)


@register("_npi_indices", inputs=(),
          attrs={"dimensions": A.Shape(), "dtype": A.Dtype("int32"), "ctx": A.Str("")},
          shape=lambda p, ins: (ins, [(len(p.dimensions),) + tuple(p.dimensions)]),
          dtype=_dtype_attr)
def _indices(p, rc):
    """_npi_indices(dimensions, dtype='int32', ctx): NumPy's indices grid."""
    return rc.xp.asarray(np.indices(p.dimensions, dtype=p.dtype))


@register("_npi_logspace", inputs=(),
          attrs={"start": A.Float(), "stop": A.Float(), "num": A.Int(), "endpoint": A.Bool(True),
                 "base": A.Float(10.0), **_CTX_DTYPE},
          shape=lambda p, ins: (ins, [(p.num,)]), dtype=_dtype_attr)
def _logspace(p, rc):
    """_npi_logspace(start, stop, num, endpoint=True, base=10.0, ctx, dtype): numbers spaced
    evenly on a log scale."""
    if p.num < 0:
        raise MXNetValueError(f"_npi_logspace: num must be non-negative, got {p.num}")
    return rc.xp.asarray(np.logspace(p.start, p.stop, p.num, endpoint=p.endpoint,
                                     base=p.base).astype(p.dtype))


def _window(name, fn):
    def kernel(p, rc):
        return rc.xp.asarray(fn(max(p.M, 0)).astype(p.dtype))  # M <= 0: empty, as NumPy

    kernel.__doc__ = (f"{name}(M, ctx, dtype): NumPy's {fn.__name__} window of M points "
                      "(empty for M <= 0).")
    register(name, inputs=(), attrs={"M": A.Int(), **_CTX_DTYPE},
             shape=lambda p, ins: (ins, [(max(p.M, 0),)]), dtype=_dtype_attr)(kernel)


_window("_npi_hanning", np.hanning)
_window("_npi_hamming", np.hamming)
_window("_npi_blackman", np.blackman)


@register("_np_copy", inputs=("a",), shape=same_shape("_np_copy"),
          vjp=lambda p, rc, xs, ys, gys, need: (gys[0],))
def _copy(p, rc, a):
    """_np_copy(a): a copy of `a`."""
    return a.copy()
