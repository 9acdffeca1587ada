"""GELU (``LeakyReLU(act_type='gelu')``) on numpy float arrays a cache-sized block at a time,
into an output that may be the input itself.

The rule in `gluonlite.ops.elementwise` is `normal_cdf.gelu_float32` on float32 data and one
expression, ``0.5 * x * (1 + erf(x / sqrt(2)))``, on float64; its gradient is another
(``g * (Phi(x) + x * exp(-x*x / 2) / sqrt(2 pi))``, Phi read from the output). On a BERT
layer's feed-forward activations (4096 x 3072 at batch 32) each whole-array step makes or
fills a temporary of 50 MB, three or four in the forward, eight in the gradient. Here the
same ufuncs run in the same order on each element, so the results are the same bit for bit,
on one block of each array at a time with a few small scratch blocks; the forward can write
over its input (what a fused product's epilogue asks for).

Example::

    from gluonlite.ops import gelu_fast
    x = np.array([-1.0, 0.0, 2.0], np.float32)
    gelu_fast.forward(x)       # array([-0.15865524,  0.        ,  1.9544997 ], dtype=float32)
"""
import math

import numpy as np

from . import normal_cdf

__all__ = ["usable", "forward", "backward", "BLOCK", "ENABLED"]

BLOCK = 1 << 15  # elements per block: 128 KiB of float32 (0.88 of 1 << 14's time on BERT's shapes)
ENABLED = True   # False: the plain rule everywhere (benchmarks switch it to measure)
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
# Python floats, as the rule has them (weak scalars: the data's dtype)
_SQRT2, _SQRT_2PI = math.sqrt(2.0), math.sqrt(2.0 * math.pi)


def usable(xp, *arrays):
    """Whether `forward`/`backward` apply: numpy, float32 or float64, one dtype and size,
    C-contiguous.

    Args:
        xp: the array module of the call.
        *arrays: the arrays the fast path would read and write.

    Returns:
        bool.

    Example::

        from gluonlite.ops import gelu_fast
        gelu_fast.usable(np, np.ones(3, np.float32))      # True
    """
    if not ENABLED or xp is not np:
        return False
    a0 = arrays[0]
    return all(type(a) is np.ndarray and a.dtype in _FLOATS and a.dtype == a0.dtype
               and a.size == a0.size and a.flags.c_contiguous for a in arrays)


def _erf():
    from scipy.special import erf
    return erf


def _blocks(n):
    for s in range(0, n, BLOCK):
        yield s, min(n, s + BLOCK)


def forward(x, out=None):
    """GELU in x's dtype: `normal_cdf.gelu_float32` on float32 data, ``0.5 * x * (1 + erf(x /
    sqrt(2)))`` on float64 (the rule's two forms).

    Args:
        x: the data, C-contiguous float32 or float64.
        out: the array to write into (x itself allowed; default: a new one).

    Returns:
        array: `out`.

    Example::

        from gluonlite.ops import gelu_fast
        x = np.array([1.0], np.float64)
        gelu_fast.forward(x, out=x)        # array([0.84134475])
    """
    out = np.empty_like(x) if out is None else out
    xf, of = x.reshape(-1), out.reshape(-1)
    size = min(xf.size, BLOCK)
    if x.dtype == np.float32:
        work = [np.empty(size, x.dtype) for _ in range(3)]
        for s, e in _blocks(xf.size):
            normal_cdf.gelu_float32(np, xf[s:e], of[s:e], [w[:e - s] for w in work])
        return out
    erf = _erf()
    t = np.empty(size, x.dtype)
    for s, e in _blocks(xf.size):
        xb, tb, ob = xf[s:e], t[:e - s], of[s:e]
        np.divide(xb, _SQRT2, out=tb)
        erf(tb, out=tb)
        np.add(1, tb, out=tb)
        np.multiply(0.5, xb, out=ob)  # after tb: `out` may be `x`
        np.multiply(ob, tb, out=ob)
    return out


def backward(x, y, g):
    """The gradient ``g * (Phi(x) + x * exp(-0.5 * x * x) / sqrt(2 pi))``, Phi(x) read as
    ``y / x`` (1/2 at 0).

    Args:
        x: the forward's input.
        y: its output.
        g: the output's gradient.

    Returns:
        array: a new array of x's shape and dtype.

    Example::

        from gluonlite.ops import gelu_fast
        x = np.array([0.0, 1.0], np.float32)
        gelu_fast.backward(x, gelu_fast.forward(x), np.ones(2, np.float32))
        # array([0.5      , 1.0833155], dtype=float32)
    """
    out = np.empty_like(x)
    xf, yf, gf, of = x.reshape(-1), y.reshape(-1), g.reshape(-1), out.reshape(-1)
    size = min(xf.size, BLOCK)
    t, u = np.empty(size, x.dtype), np.empty(size, x.dtype)
    zero = np.empty(size, np.bool_)
    for s, e in _blocks(xf.size):
        xb, tb, ub, zb = xf[s:e], t[:e - s], u[:e - s], zero[:e - s]
        np.multiply(-0.5, xb, out=tb)
        np.multiply(tb, xb, out=tb)
        np.exp(tb, out=tb)
        np.multiply(xb, tb, out=tb)
        np.divide(tb, _SQRT_2PI, out=tb)
        np.equal(xb, 0, out=zb)
        np.copyto(ub, xb)
        ub[zb] = 1
        np.divide(yf[s:e], ub, out=ub)
        ub[zb] = 0.5
        np.add(ub, tb, out=ub)
        np.multiply(gf[s:e], ub, out=of[s:e])
    return out
