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

from .onednn_softmax import _HI, _LN2, _LO, _LOG2E, _POLY, _halfway, exp, fma32

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
    flat = np.ascontiguousarray(x, dtype=np.float32).reshape(-1)
    out = np.empty(flat.size, np.float32)
    work = _Work(min(flat.size, _BLOCK))
    for s in range(0, flat.size, _BLOCK):
        _soft_relu_into(flat[s:s + _BLOCK], out[s:s + _BLOCK], work)
    return out.reshape(shape)


# Entries `soft_relu` takes a block at a time: the float64 sums of its 13 multiply-adds
# (kept for one check at the end) then fill 420 kB, within a core's L2.
_BLOCK = 4096
# multiply-adds per entry: the exp polynomial's one per coefficient below its top (its
# constant 1 among them), the log polynomial's likewise
_STEPS = len(_POLY) + len(_LOG_POLY) - 1


class _Work:
    """Scratch of `_soft_relu_into` for blocks of up to `m` entries."""

    def __init__(self, m):
        self.f32 = [np.empty(m, np.float32) for _ in range(4)]
        self.f64 = np.empty(m, np.float64)
        self.sums = np.empty((_STEPS, m), np.float64)
        self.bits = np.empty((_STEPS, m), np.uint64)
        self.tie = np.empty((_STEPS, m), bool)


def _soft_relu_into(x, out, work, checked=False):
    """`soft_relu` of the flat float32 block `x` into `out`.

    Each fused multiply-add of the two polynomials is a float64 product and sum rounded to
    float32, which rounds once unless the float64 sum fell exactly halfway between two float32
    values (`onednn_softmax.fma32`). With `checked`, each goes through `fma32`; else the sums
    are kept, one row a step, and checked together at the end, and the entries with such a
    sum at any step (about one in 10**7 of most data; more of the exact ties below -16) are
    computed again, checked."""
    m = x.size
    s, n, n_ln2, r = (w[:m] for w in work.f32)
    v64, steps = work.f64[:m], iter(work.sums[:, :m])

    def fma_steps(acc, v, coeffs):   # acc = fma32(acc, v, c) for each c, in place
        if checked:
            for c in coeffs:
                acc[...] = fma32(acc, v, c)
            return
        np.copyto(v64, v)
        for c in coeffs:
            s64 = next(steps)
            np.multiply(acc, v64, out=s64)
            np.add(s64, np.float64(c), out=s64)
            np.copyto(acc, s64, casting="same_kind")

    with np.errstate(all="ignore"):
        np.fmin(x, _HI, out=s)
        np.maximum(s, _LO, out=s)          # min, then max: NaN becomes the upper bound
        np.multiply(s, _LOG2E, out=n)
        n += _HALF
        np.floor(n, out=n)
        np.multiply(n, _LN2, out=n_ln2)
        np.subtract(s, n_ln2, out=r)
        e = out                             # e^r, then the sum, then the result
        e.fill(_POLY[4])
        fma_steps(e, r, (_POLY[3], _POLY[2], _POLY[1], _POLY[0], _ONE))
        # 2^-(n-1) from its exponent bits (n - 1 = 127 gives the bits of 0)
        power = s.view(np.int32)
        np.subtract(_ONE, n, out=n)
        np.rint(n, out=n)
        np.copyto(power, n, casting="unsafe")
        power += 127
        power <<= 23
        e *= _TWO
        e += power.view(np.float32)
        e /= _TWO
        total = e.view(np.uint32)
        np.right_shift(total, np.uint32(23), out=n, casting="unsafe")   # m + 126
        n -= np.float32(126)
        y = r
        np.bitwise_and(total, np.uint32(0x807fffff), out=y.view(np.uint32))
        y.view(np.uint32)[...] |= _HALF.view(np.uint32)
        y -= _ONE
        p = out
        p.fill(_LOG_POLY[8])
        fma_steps(p, y, reversed(_LOG_POLY[:8]))
        n *= _LN2
        n += p
        n += n_ln2
        np.copyto(out, n)
        # the kernel's "greater than" is "not less or equal": NaN keeps itself too
        keep = s.view(bool)[:m]
        np.less_equal(x, _HI, out=keep)
        np.logical_not(keep, out=keep)
        np.copyto(out, x, where=keep)
    if checked:
        return
    tie = _halfway(work.sums[:, :m], work.bits[:, :m], work.tie[:, :m])
    if tie.any():
        at = np.flatnonzero(tie.any(axis=0))
        again = np.empty(at.size, np.float32)
        _soft_relu_into(x[at], again, _Work(at.size), checked=True)
        out[at] = again


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
