"""softmax and log_softmax over the last axis of large numpy float arrays, and their
gradients, with one output array and a cache-sized block of rows at a time.

The plain rules in `gluonlite.ops.nn` write each step as a whole-array expression: a
log_softmax of a language model's logits (35 x 32 rows of 10000 words, 45 MB in float32)
makes four temporaries of that size and its gradient three more, each written out to memory
and read back. Here the same ufuncs run in the same order on each element, so the results
are the same bit for bit: the shifted rows are written once into the output, and what the
rules keep in a temporary only to reduce it (``exp(z)`` before its row sums, ``g * y``
before its row sums, ``exp(y) * sum(g)``) lives in one block of rows that stays in the
cache.

`usable` says where these apply: numpy, float32 or float64, C-contiguous, the last axis,
and large enough for the blocks to pay (below `MIN_SIZE` the plain rule runs; its numbers
are the same).

Example::

    from gluonlite.ops import softmax_fast
    z = np.array([[1.0, 2.0, 3.0]], np.float32)
    softmax_fast.forward(z, z.max(axis=-1, keepdims=True), log=False)
    # array([[0.09003057, 0.24472848, 0.66524094]], dtype=float32)
"""
import numpy as np

__all__ = ["usable", "forward", "softmax_grad", "log_softmax_grad", "BLOCK_BYTES",
           "MIN_SIZE", "ENABLED"]

BLOCK_BYTES = 1 << 18   # one block of rows in L2
MIN_SIZE = 1 << 15      # entries; below it one whole-array pass costs less than the loop
ENABLED = True          # False: the plain rules everywhere (benchmarks switch it to measure)
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def usable(xp, axis, *arrays):
    """Whether `forward` and the gradients apply to `arrays` (inputs, outputs, gradients of
    one call) reduced over `axis`.

    Args:
        xp: the array module of the call.
        axis: the softmax axis (negative allowed).
        *arrays: the arrays the fast path would read, all of one shape.

    Returns:
        bool.

    Example::

        from gluonlite.ops import softmax_fast
        softmax_fast.usable(np, -1, np.ones((4, 10000), np.float32))    # True
    """
    if not ENABLED or xp is not np:
        return False
    a0 = arrays[0]
    if type(a0) is not np.ndarray or a0.dtype not in _FLOATS or a0.ndim == 0 \
            or a0.size < MIN_SIZE or axis % a0.ndim != a0.ndim - 1:
        return False
    return all(type(a) is np.ndarray and a.dtype == a0.dtype and a.shape == a0.shape
               and a.flags.c_contiguous for a in arrays)


def _blocks(rows, n, itemsize):
    step = max(1, BLOCK_BYTES // max(1, n * itemsize))
    for s in range(0, rows, step):
        yield s, min(rows, s + step)


def _scratch(rows, n, dtype):
    return np.empty(min(rows, max(1, BLOCK_BYTES // max(1, n * dtype.itemsize))) * n, dtype)


def forward(z, top, log):
    """softmax (or with `log`, log_softmax) of `z` over its last axis, given its row maxima.

    The plain rule's steps: ``d = z - top``; log_softmax is ``d - log(sum(exp(d)))``,
    softmax ``exp(d) / sum(exp(d))``.

    Args:
        z: the data, C-contiguous float32 or float64, (..., n).
        top: its maxima over the last axis, (..., 1).
        log: give log_softmax.

    Returns:
        array: a new array of z's shape and dtype.

    Example::

        from gluonlite.ops import softmax_fast
        z = np.zeros((2, 4), np.float32)
        softmax_fast.forward(z, z.max(axis=-1, keepdims=True), log=True)[0, 0]   # -1.3862944
    """
    n = z.shape[-1]
    with np.errstate(invalid="ignore"):
        out = np.subtract(z, top)
    rows2 = out.reshape(-1, n)
    sums = np.empty((rows2.shape[0], 1), z.dtype)
    buf = _scratch(rows2.shape[0], n, z.dtype) if log else None
    for s, e in _blocks(rows2.shape[0], n, z.dtype.itemsize):
        d = rows2[s:e]
        if log:
            d = np.exp(d, out=buf[:(e - s) * n].reshape(e - s, n))
        else:
            np.exp(d, out=d)
        np.sum(d, axis=-1, keepdims=True, out=sums[s:e])
    if log:
        np.log(sums, out=sums)
        np.subtract(rows2, sums, out=rows2)
    else:
        np.divide(rows2, sums, out=rows2)
    return out


def _gradient_blocks(y, g):
    """(out, blocks): a new array of y's shape, and per block of rows its views (rows of y,
    of g, of out) with a scratch block of their shape."""
    n = y.shape[-1]
    out = np.empty_like(y)
    y2, g2, o2 = (a.reshape(-1, n) for a in (y, g, out))
    buf = _scratch(y2.shape[0], n, y.dtype)
    return out, ((y2[s:e], g2[s:e], o2[s:e], buf[:(e - s) * n].reshape(e - s, n))
                 for s, e in _blocks(y2.shape[0], n, y.dtype.itemsize))


def _over(out, temperature):
    """out / temperature in place (the plain rules divide last; by 1.0 it changes nothing)."""
    if temperature != 1.0:
        np.divide(out, temperature, out=out)
    return out


def softmax_grad(y, g, temperature):
    """The gradient of softmax: ``(g - sum(g * y)) * y / temperature`` over the last axis.

    Args:
        y: softmax's output, (..., n).
        g: the gradient of y, of y's shape and dtype.
        temperature: the softmax temperature (1.0 when none).

    Returns:
        array: a new array of y's shape and dtype.

    Example::

        from gluonlite.ops import softmax_fast
        y = np.full((1, 4), 0.25, np.float32)
        softmax_fast.softmax_grad(y, np.eye(4, dtype=np.float32)[:1], 1.0)[0, 0]   # 0.1875
    """
    out, blocks = _gradient_blocks(y, g)
    for yb, gb, ob, tb in blocks:
        np.multiply(gb, yb, out=tb)
        np.subtract(gb, tb.sum(axis=-1, keepdims=True), out=ob)
        np.multiply(ob, yb, out=ob)
    return _over(out, temperature)


def log_softmax_grad(y, g, temperature):
    """The gradient of log_softmax: ``(g - exp(y) * sum(g)) / temperature`` over the last
    axis.

    Args:
        y: log_softmax's output, (..., n).
        g: the gradient of y, of y's shape and dtype.
        temperature: the softmax temperature (1.0 when none).

    Returns:
        array: a new array of y's shape and dtype.

    Example::

        from gluonlite.ops import softmax_fast
        y = np.log(np.full((1, 4), 0.25, np.float32))
        softmax_fast.log_softmax_grad(y, np.ones((1, 4), np.float32), 1.0)   # zeros
    """
    out, blocks = _gradient_blocks(y, g)
    for yb, gb, ob, tb in blocks:
        np.exp(yb, out=tb)
        np.multiply(tb, gb.sum(axis=-1, keepdims=True), out=tb)
        np.subtract(gb, tb, out=ob)
    return _over(out, temperature)
