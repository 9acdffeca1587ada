"""relu's ``max(x, 0)`` on numpy float arrays against a block of zeros instead of the scalar 0.

numpy's vectorised loops for ``maximum``/``fmax`` run only when both operands advance
through memory: with a scalar 0 (a zero-stride operand) they fall back to an element-at-a-
time loop, 5-8x slower than a multiply of the same size (numpy 1.23 and 2.x alike, float32
and float64). Here the second operand is a read-only array of zeros the size of one
cache-sized block, and a large array goes through it a block at a time. The ufunc and the
values per element are the same, and so is every result (NaN and signed zeros included):
where this numpy's loop would give another zero than the scalar form (numpy 2's fmax turns
some -0 into -0, the scalar form into +0), the scalar form stays.

Example::

    from gluonlite.ops import relu_fast
    relu_fast.max_zero(np.fmax, np.array([-1.0, np.nan, 2.0], np.float32))
    # array([0., 0., 2.], dtype=float32)
"""
import numpy as np

__all__ = ["max_zero", "BLOCK"]

# Elements per block: 256 KiB of float32. Each block is one ufunc call of about 1.5 us; at
# 1 << 14 the calls were a third of relu's time on ResNet-18's batch-1 activations, which
# take 0.70 of that time at 1 << 16 (0.81 at 1 << 15; 1 << 17 no better and twice the
# zeros to keep in the cache).
BLOCK = 1 << 16
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_ZEROS = {}
_AGREES = {}


def _agrees(ufunc, dtype):
    """Whether `ufunc` against an array of zeros gives, bit for bit, what it gives against
    the scalar 0 on this numpy: numpy 2's fmax loops return -0 for some -0 inputs (the
    scalar form +0), so fmax keeps the scalar form there. Probed once per ufunc and dtype,
    on every length up to two vector widths and at every offset of the specials."""
    key = (ufunc, dtype)
    ok = _AGREES.get(key)
    if ok is None:
        specials = np.array([-0.0, np.nan, -np.nan, 0.0, -np.inf, 2.0], dtype)
        ok = True
        for n in range(1, 36):
            for shift in range(len(specials)):
                x = np.resize(np.roll(specials, shift), n)
                a, b = ufunc(x, 0), ufunc(x, np.zeros(n, dtype))
                if a.dtype != b.dtype or a.tobytes() != b.tobytes():
                    ok = False
                    break
            if not ok:
                break
        _AGREES[key] = ok
    return ok


def _zeros(dtype):
    z = _ZEROS.get(dtype)
    if z is None:
        z = np.zeros(BLOCK, dtype)
        z.flags.writeable = False
        _ZEROS[dtype] = z
    return z


def max_zero(ufunc, x, out=None):
    """``ufunc(x, 0, out=out)`` (`ufunc`: ``np.maximum`` or ``np.fmax``), with the zero as an
    array operand so numpy's vectorised loop runs.

    Args:
        ufunc: ``np.maximum`` (NaN stays NaN) or ``np.fmax`` (NaN gives 0).
        x: a numpy array; float32 and float64 take the block path where this numpy's
            loops give the scalar form's results (`_agrees`), any other goes to `ufunc`
            with the scalar.
        out: the array to write into (x's shape and dtype; may be `x`), or None for a new one.

    Returns:
        numpy.ndarray: `out`, or the new array.

    Example::

        from gluonlite.ops import relu_fast
        relu_fast.max_zero(np.maximum, np.array([-1.0, 3.0]))     # array([0., 3.])
    """
    if type(x) is not np.ndarray or x.ndim == 0 or x.dtype not in _FLOATS or \
            (out is not None and (type(out) is not np.ndarray or out.dtype != x.dtype)) or \
            not _agrees(ufunc, x.dtype):
        return ufunc(x, 0, out=out)
    z = _zeros(x.dtype)
    n = x.size
    if n <= BLOCK:
        return ufunc(x, z[:n].reshape(x.shape), out=out)
    if out is None:
        out = np.empty(x.shape, x.dtype)
    if not (x.flags.c_contiguous and out.flags.c_contiguous):
        return _rows(ufunc, x, out, z)
    xf, of = x.reshape(-1), out.reshape(-1)
    for s in range(0, n, BLOCK):
        e = min(s + BLOCK, n)
        ufunc(xf[s:e], z[:e - s], out=of[s:e])
    return out


def _rows(ufunc, x, out, z):
    """A 2-D strided array with contiguous rows (a column block of a larger output) a few
    whole rows at a time; any other layout takes the scalar form."""
    size = x.dtype.itemsize
    if x.ndim != 2 or x.strides[1] != size or out.strides[1] != size or x.shape[1] > BLOCK:
        return ufunc(x, 0, out=out)
    cols = x.shape[1]
    step = BLOCK // cols
    for s in range(0, x.shape[0], step):
        e = min(s + step, x.shape[0])
        ufunc(x[s:e], z[:(e - s) * cols].reshape(e - s, cols), out=out[s:e])
    return out
