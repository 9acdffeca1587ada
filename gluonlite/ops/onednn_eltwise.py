"""oneDNN 2.4's elementwise soft_relu and logistic, as MXNet 1.9.1's CPU build computes
``Activation(act_type='softrelu')`` of float32 data and its gradient, to the last bit.

MXNet hands a float32 Activation of 1 to 5 axes to oneDNN's eltwise primitive. Its
soft_relu, ``log(1 + exp(x))``, is its own arithmetic (AVX-512 kernel, every step float32):

- ``x`` clamped to [log(FLT_MIN), log(FLT_MAX)] (NaN taken as the upper bound), then
  ``n = floor(x log2(e) + 1/2)`` and ``r = x - n ln2`` (a product and a difference, each
  rounded), ``e^r`` by oneDNN's degree-5 exp polynomial in fused multiply-adds;
- ``log(1 + 2^n e^r) = n ln2 + log(2^-n + e^r)``, the sum formed as ``(2^-(n-1) + 2 e^r) / 2``
  (so that 2^-n need not be representable), split into ``2^m y`` with y in [0.5, 1), and
  ``log(y)`` by a degree-8 polynomial in ``y - 1`` in fused multiply-adds;
- the result ``(m ln2 + log(y)) + n ln2``, or x itself above log(FLT_MAX) (and at NaN).

It keeps about 1e-5 absolutely: below 0 small results lose their relative accuracy, and
far below 0 they come out 0 or a little below it (-1.9e-6 at -25), on MXNet as here.

The gradient is ``logistic(x) * g``, oneDNN's logistic being ``e / (e + 1)`` with ``e``
oneDNN's exp of ``-|x|`` (`onednn_softmax.exp`), or one less that for x >= 0.

Example::

    from gluonlite.ops import onednn_eltwise
    onednn_eltwise.soft_relu(np.array([-1.0, 0.0, 2.0], np.float32))
    # array([0.31326175, 0.69314724, 2.1269279 ], dtype=float32): log(2) is 0.6931472
"""
import numpy as np

from .onednn_softmax import _HI, _LN2, _LO, _LOG2E, _POLY, exp, fma32

__all__ = ["soft_relu", "soft_relu_grad", "logistic"]


def _f32(bits):
    return np.array(bits, np.uint32).view(np.float32)[()]


# log(y) for y in [0.5, 1): coefficients of (y - 1)^0 .. (y - 1)^8, as float32 bit patterns
_LOG_POLY = tuple(_f32(b) for b in (0xb2b4637d, 0x3f7fff8e, 0xbf001759, 0x3ea70608, 0xbea3d7bf,
                                    0xbe361d04, 0xbfa8f1e6, 0xbfe1e812, 0xbfc4d30e))
_ONE, _HALF, _TWO = np.float32(1), np.float32(0.5), np.float32(2)


def soft_relu(x):
    """oneDNN 2.4's soft_relu, ``log(1 + exp(x))``, of float32 entries, bit for bit.

    Args:
        x: float32 array, any shape.

    Returns:
        array: a new float32 array of x's shape.

    Example::

        from gluonlite.ops import onednn_eltwise
        onednn_eltwise.soft_relu(np.array([0.0, 100.0], np.float32))   # [0.69314724, 100.]
    """
    shape = np.shape(x)
    x = np.asarray(x, dtype=np.float32).reshape(-1)
    with np.errstate(all="ignore"):
        s = np.maximum(np.fmin(x, _HI), _LO)   # min, then max: NaN becomes the upper bound
        n = np.floor(s * _LOG2E + _HALF)
        n_ln2 = n * _LN2
        r = s - n_ln2
        e = np.full(x.shape, _POLY[4], np.float32)
        for c in (_POLY[3], _POLY[2], _POLY[1], _POLY[0], _ONE):
            e = fma32(e, r, c)
        # 2^-(n-1) from its exponent bits (n - 1 = 127 gives the bits of 0)
        power = ((np.rint(-(n - _ONE)).astype(np.int32) + 127) << 23).view(np.float32)
        total = (e * _TWO + power) / _TWO
        bits = total.view(np.uint32)
        m = (bits >> np.uint32(23)).astype(np.float32) - np.float32(126)
        y = ((bits & np.uint32(0x807fffff)) | _HALF.view(np.uint32)).view(np.float32) - _ONE
        p = np.full(x.shape, _LOG_POLY[8], np.float32)
        for c in reversed(_LOG_POLY[:8]):
            p = fma32(p, y, c)
        out = (m * _LN2 + p) + n_ln2
        # the kernel's "greater than" is "not less or equal": NaN keeps itself too
        return np.where(~(x <= _HI), x, out).reshape(shape)


def logistic(x):
    """oneDNN 2.4's logistic of float32 entries: ``e / (e + 1)`` with ``e`` its exp of
    ``-|x|``, or one less that for x >= 0.

    Args:
        x: float32 array, any shape.

    Returns:
        array: a new float32 array of x's shape.

    Example::

        from gluonlite.ops import onednn_eltwise
        onednn_eltwise.logistic(np.array([0.0], np.float32))   # array([0.5], dtype=float32)
    """
    x = np.asarray(x, dtype=np.float32)
    e = exp(-np.abs(x))
    with np.errstate(invalid="ignore"):
        y = e / (e + _ONE)
    return np.where(np.signbit(x), y, _ONE - y)


def soft_relu_grad(x, g):
    """The gradient of soft_relu as oneDNN 2.4's backward kernel computes it:
    ``logistic(x) * g``.

    Args:
        x: soft_relu's float32 input.
        g: the float32 gradient of its output, of x's shape.

    Returns:
        array: a new float32 array of x's shape.

    Example::

        from gluonlite.ops import onednn_eltwise
        onednn_eltwise.soft_relu_grad(np.zeros(1, np.float32), np.ones(1, np.float32))
        # array([0.5], dtype=float32)
    """
    return logistic(x) * np.asarray(g, dtype=np.float32)
