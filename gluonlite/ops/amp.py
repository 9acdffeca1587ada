"""MXNet 1.9.1's mixed-precision casts, `amp_cast` and `amp_multicast`, which mixed-precision
graphs and GluonCV's box decoders call (``F.amp_multicast(x, anchors, num_outputs=2,
cast_narrow=True)``).

Unlike `Cast`, they only touch floating-point values of the kinds mixed precision trades
(float16 and float32; numpy has no bfloat16): any other input passes through unchanged, so a
float64 or integer array keeps its dtype. Their gradients cast back to each input's dtype.
"""
import numpy as np

from . import attrs as A
from .registry import register

__all__ = ["cast_type", "multicast_dtypes"]

_AMP = (np.dtype(np.float16), np.dtype(np.float32))


def cast_type(src, dst):
    """The dtype amp casts `src` to when asked for `dst`: dst for float16/float32, else src.

    Example::

        from gluonlite.ops.amp import cast_type
        cast_type(np.dtype("float32"), np.float16), cast_type(np.dtype("int32"), np.float16)
        # (dtype('float16'), dtype('int32')): only floats are cast
    """
    return np.dtype(dst) if src is not None and np.dtype(src) in _AMP else src


@register("amp_cast", attrs={"dtype": A.Dtype()},
          shape=lambda p, ins: (ins, [ins[0]]),
          dtype=lambda p, ins: (ins, [cast_type(ins[0], p.dtype)]),
          vjp=lambda p, rc, xs, ys, gys, need: (gys[0].astype(xs[0].dtype, copy=False),))
def _amp_cast(p, rc, data):
    """amp_cast(data, dtype): data cast to dtype if it is float16 or float32; any other
    dtype (float64, integers) passes through unchanged. The gradient is cast back to data's
    dtype.
    """
    return data.astype(cast_type(data.dtype, p.dtype), copy=False)


def _widest(p, dtypes):
    """MXNet's target dtype: without cast_narrow, float32 when some input is float32, else
    the first input's; with cast_narrow, float16 when some input is float16, else float32."""
    known = [np.dtype(d) for d in dtypes if d is not None]
    if p.cast_narrow:
        return np.dtype(np.float16) if np.dtype(np.float16) in known else np.dtype(np.float32)
    if np.dtype(np.float32) in known:
        return np.dtype(np.float32)
    return np.dtype(dtypes[0]) if dtypes and dtypes[0] is not None else None


def multicast_dtypes(p, ins):
    """(input dtypes, output dtypes) of amp_multicast with params p (None where unknown).

    Args:
        p: amp_multicast's parsed attributes (``cast_narrow``: float16 when an input is
            float16, else float32; without it float32 when an input is float32, else the
            first input's dtype).
        ins: the input dtypes, None for an unknown one.

    Returns:
        (list, list): `ins` unchanged, and every input's dtype cast to the common one
        (all None while it is unknown).

    Example::

        from gluonlite.ops.amp import multicast_dtypes
        op = mx.ops.get("amp_multicast")
        p, _ = op.parse({"num_outputs": 2})
        multicast_dtypes(p, [np.dtype("float16"), np.dtype("float32")])
        # ([dtype('float16'), dtype('float32')], [dtype('float32'), dtype('float32')])
    """
    target = _widest(p, ins)
    if target is None:
        return ins, [None] * len(ins)
    return ins, [cast_type(d, target) for d in ins]


@register("amp_multicast", variadic="num_outputs", outputs=lambda p: p.num_outputs,
          attrs={"num_outputs": A.Int(), "cast_narrow": A.Bool(False)}, same_dtype=(),
          shape=lambda p, ins: (ins, list(ins)), dtype=multicast_dtypes,
          vjp=lambda p, rc, xs, ys, gys, need: tuple(
              None if g is None else g.astype(x.dtype, copy=False) for x, g in zip(xs, gys)))
def _amp_multicast(p, rc, *data):
    """amp_multicast(*data, num_outputs, cast_narrow=False): casts the float16/float32
    inputs to one dtype: float32 when some input is float32 (else the first input's dtype),
    or with cast_narrow float16 when some input is float16 (else float32). Other dtypes pass
    through. Returns num_outputs arrays; gradients are cast back to each input's dtype.
    """
    _, out = multicast_dtypes(p, [x.dtype for x in data])
    return tuple(x.astype(d, copy=False) for x, d in zip(data, out))
