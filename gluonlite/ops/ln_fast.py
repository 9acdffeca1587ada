"""The numpy kernels of LayerNorm's fast paths over the last axis; `nn.py` keeps the plain
rule (its meaning) and registers the fast paths, which call these where `usable` says
they apply.

The plain rule writes each step as a whole-array expression: the mean, the variance (itself
a centred temporary and its square), ``x - mean``, ``/ std``, ``* gamma`` and ``+ beta``, each
a temporary of the data's size written to memory and read back, and its gradient about eight
more. BERT-base's LayerNorms at batch 32 and sequence 128 are (4096, 768), 12.6 MB each, and
the plain rule took 0.5 s of the encoder's 6.5 s there. Here the same quantities are
computed on a block of rows at a time that stays in the cache, with the output (or the
gradient) written once. They equal the plain rule's to rounding (the sums are taken in
another order, and ``/ std`` is a multiplication by ``1 / std``):

- forward: each row's mean (a BLAS matrix-vector product with ones), the row centred into
  the output, its variance about the mean (the centred row's dot with itself), then
  ``* (1 / std)``, ``* gamma``, ``+ beta`` in place. The variance is taken about the mean,
  as the plain rule takes it, so a row whose mean dwarfs its spread loses nothing.
- gradient: per row ``sum(g * gamma)`` and ``sum(g * gamma * xhat)``, then ``dx = (g gamma
  - sum(g gamma) / n - xhat * sum(g gamma xhat) / n) / std`` in place (the plain rule's
  ``(n g gamma - ...) / (n std)`` with the division spread over its terms); ``dgamma`` and
  ``dbeta`` summed over the blocks in float64.

`usable` says where it applies: numpy float32 or float64 data, gamma and beta of one dtype,
the normalized axis the last one, C-contiguous. Elsewhere the plain rule runs. ``ENABLED =
False`` sends every call to the plain rule (the tests and benchmarks switch it to compare).

Example::

    from gluonlite.ops import ln_fast
    x = np.array([[1.0, 3.0]], np.float32)
    outs = [np.empty_like(x), np.empty((1, 1), np.float32), np.empty((1, 1), np.float32)]
    ln_fast.forward_into(outs, x, np.ones(2, np.float32), np.zeros(2, np.float32), 1e-5)
    outs[0]                 # array([[-0.999995,  0.999995]], dtype=float32)
"""
import numpy as np

__all__ = ["usable", "forward_into", "vjp", "ENABLED", "BLOCK"]

ENABLED = True
# entries per block of rows, 512 KiB of float32: forward and gradient on BERT's shapes took
# 0.43-0.62 of the plain rule's time, against 0.48-0.78 at 1 << 15 and no better at 1 << 18
BLOCK = 1 << 17
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_VECDOT = getattr(np, "vecdot", None)  # numpy 2's row-dot ufunc; None on numpy 1


def usable(p, xp, x, *others):
    """Whether the fast path applies to LayerNorm params `p` on data `x`, with `others`
    (gamma, beta, the gradient) of x's dtype.

    Args:
        p: LayerNorm's parsed attributes (its ``axis`` must name the last axis).
        xp: the array module of the call (the fast path is numpy only).
        x: the data.
        *others: the arrays read with it, which must be numpy arrays of x's dtype.

    Returns:
        bool

    Example::

        from gluonlite.ops import ln_fast
        p = mx.ops.get("LayerNorm").parse({})[0]
        ln_fast.usable(p, np, np.ones((4, 8), np.float32), np.ones(8, np.float32))  # True
    """
    if not ENABLED or xp is not np or type(x) is not np.ndarray or x.size == 0:
        return False
    return (x.dtype in _FLOATS and p.axis % x.ndim == x.ndim - 1 and x.flags.c_contiguous
            and all(type(o) is np.ndarray and o.dtype == x.dtype and o.flags.c_contiguous
                    for o in others))


def _rows(n, c):
    """Slices of `n` rows of `c` entries, about `BLOCK` entries each (one row at least)."""
    step = max(1, BLOCK // max(1, c))
    return [slice(s, min(n, s + step)) for s in range(0, n, step)]


def forward_into(outs, x, gamma, beta, eps):
    """LayerNorm over the last axis written into `outs` (y, mean, std): ``y = (x - mean) /
    std * gamma + beta`` with ``std = sqrt(var + eps)``, a block of rows at a time.

    Args:
        outs: [y of x's shape, mean and std of x's shape with a last axis of 1], written in
            place (y may not be x).
        x: the data, C-contiguous float32 or float64.
        gamma: the scale, (C,).
        beta: the shift, (C,).
        eps: added to the variance.

    Example::

        from gluonlite.ops import ln_fast
        x = np.array([[1.0, 2.0, 6.0]])
        outs = [np.empty_like(x), np.empty((1, 1)), np.empty((1, 1))]
        ln_fast.forward_into(outs, x, np.ones(3), np.zeros(3), 0.0)
        outs[1], outs[2]        # (array([[3.]]), array([[2.1602469]]))
    """
    c = x.shape[-1]
    x2, y2 = x.reshape(-1, c), outs[0].reshape(-1, c)
    mean, std = outs[1].reshape(-1), outs[2].reshape(-1)
    ones = np.ones(c, x.dtype)
    blocks = _rows(x2.shape[0], c)
    inv_buf = np.empty(x2[blocks[0]].shape[0], x.dtype)
    for rs in blocks:
        xb, yb, mb, sb = x2[rs], y2[rs], mean[rs], std[rs]
        inv = inv_buf[:xb.shape[0]]
        np.matmul(xb, ones, out=mb)             # the row sums: a BLAS matrix-vector product
        np.divide(mb, c, out=mb)
        np.subtract(xb, mb[:, None], out=yb)
        _rowdot(yb, yb, sb)
        np.divide(sb, c, out=sb)
        np.add(sb, eps, out=sb)
        np.sqrt(sb, out=sb)
        np.divide(1, sb, out=inv)
        np.multiply(yb, inv[:, None], out=yb)
        np.multiply(yb, gamma, out=yb)
        np.add(yb, beta, out=yb)


def _rowdot(a, b, out):
    """out[r] = sum(a[r] * b[r]): numpy 2's vecdot ufunc, einsum on numpy 1."""
    if _VECDOT is not None:
        _VECDOT(a, b, out=out)
    else:
        np.einsum("rc,rc->r", a, b, out=out)


def vjp(x, gamma, mean, std, g):
    """LayerNorm's gradients over the last axis (dx, dgamma, dbeta), from the forward's saved
    mean and std and the output's gradient `g`, a block of rows at a time.

    Args:
        x: the forward's data.
        gamma: its scale, (C,).
        mean: the forward's mean, x's shape with a last axis of 1.
        std: the forward's std, the same shape.
        g: the gradient of the output, x's shape.

    Returns:
        tuple: (dx of x's shape, dgamma (C,), dbeta (C,)), in x's dtype.

    Example::

        from gluonlite.ops import ln_fast
        x = np.array([[1.0, 3.0]])
        dx, dgamma, dbeta = ln_fast.vjp(x, np.ones(2), np.array([[2.0]]), np.array([[1.0]]),
                                        np.array([[1.0, 0.0]]))
        dx, dgamma, dbeta       # dx [[0, 0]] (xhat is +-1: no direction left), dgamma [-1, 0]
    """
    c = x.shape[-1]
    x2, g2 = x.reshape(-1, c), g.reshape(-1, c)
    mean2, std2 = mean.reshape(-1, 1), std.reshape(-1, 1)
    dx = np.empty(x.shape, x.dtype)
    dx2 = dx.reshape(-1, c)
    dgamma = np.zeros(c)
    dbeta = np.zeros(c)
    blocks = _rows(x2.shape[0], c)
    rows = x2[blocks[0]].shape[0]
    xhat_buf = np.empty(rows * c, x.dtype)
    inv_buf, s1_buf, s2_buf = (np.empty((rows, 1), x.dtype) for _ in range(3))
    ones = np.ones(rows, x.dtype)
    for rs in blocks:
        xb, gb, db = x2[rs], g2[rs], dx2[rs]
        n = xb.shape[0]
        xh = xhat_buf[:xb.size].reshape(xb.shape)
        inv, s1, s2 = inv_buf[:n], s1_buf[:n], s2_buf[:n]
        np.divide(1, std2[rs], out=inv)
        np.subtract(xb, mean2[rs], out=xh)
        np.multiply(xh, inv, out=xh)            # xhat
        dgamma += np.einsum("rc,rc->c", gb, xh)
        dbeta += ones[:n] @ gb
        np.matmul(gb, gamma, out=s1[:, 0])      # sum(g * gamma) per row
        np.multiply(gb, gamma, out=db)          # g * gamma, the gradient of xhat
        _rowdot(db, xh, s2[:, 0])               # sum(g * gamma * xhat) per row
        # dx = (g gamma - sum(g gamma) / c - xhat sum(g gamma xhat) / c) / std
        np.multiply(db, inv, out=db)
        np.multiply(inv, 1.0 / c, out=inv)
        np.multiply(s1, inv, out=s1)
        np.multiply(s2, inv, out=s2)
        np.subtract(db, s1, out=db)
        np.multiply(xh, s2, out=xh)
        np.subtract(db, xh, out=db)
    return dx, dgamma.astype(x.dtype), dbeta.astype(x.dtype)
