"""The numpy fast path of BatchNorm; `nn.py` keeps the plain rule (its meaning).

The arithmetic is the plain rule's, arranged in fewer passes over the data:

- Statistics in one pass: per channel, the sum and the sum of squares (``einsum``, a sample
  at a time, each sample's sums added in float64), so ``var = E[x^2] - mean^2``. Where
  that difference loses the variance to cancellation (a channel whose mean is large
  against its spread: ``var < E[x^2] / 1024``), the channel's variance is taken again
  the plain way, about its mean.
- The output in place in the plan's buffer (`forward_into`; `forward` allocates the buffers
  for an imperative call), equal to the plain rule up to the statistics' rounding:
  ``y = (x - mean) * (gamma / std) + beta``, no temporaries.
- The gradient: per channel ``sum(gy)`` and ``sum(gy * x)`` in one pass, then ``dx = gy * k1
  + (x - mean) * k2 + k3`` per channel (the plain rule's ``(n gy - sum(gy) - xhat sum(gy
  xhat)) * gamma / (n std)`` with ``xhat = (x - mean) / std`` multiplied out; the mean is
  subtracted first, as the plain rule does, so a large mean loses nothing).

`usable` says where it applies: numpy float32/float64 arrays of one dtype, channels on
axis 1, and more than one entry per channel; elsewhere each entry point runs the plain rule.
All three are registered as BatchNorm's fast paths (``Fast(kernel=forward,
into=forward_into, vjp=fast_vjp)``), so the registry walk holds them against the plain rule. ``ENABLED = False`` sends every
call to the plain rule (benchmarks/models.py --ab nobn1 times both).
"""
import numpy as np

__all__ = ["usable", "moments", "forward", "forward_into", "vjp", "fast_vjp"]

ENABLED = True
# a channel's E[x^2] - mean^2 is recomputed about the mean below this share of E[x^2]
_CANCEL = 1.0 / 1024


def usable(p, rc, x, *others):
    """Whether the fast path applies to BatchNorm params `p` on data `x` (and `others`, the
    per-channel inputs, of x's dtype)."""
    return (ENABLED and rc.xp is np and x.dtype in (np.float32, np.float64) and x.ndim >= 2
            and p.axis % x.ndim == 1 and x.size > x.shape[1] and x.flags.c_contiguous
            and all(o.dtype == x.dtype for o in others))


def moments(x):
    """(mean, biased variance) per channel (axis 1) of x, in x's dtype: the sums of one pass
    (see the module docstring)."""
    n, c = x.shape[:2]
    x3 = x.reshape(n, c, -1)
    s = np.zeros(c)
    q = np.zeros(c)
    for i in range(n):
        s += np.einsum("cp->c", x3[i])
        q += np.einsum("cp,cp->c", x3[i], x3[i])
    count = n * x3.shape[2]
    mean = s / count
    sq = q / count
    var = sq - mean * mean
    lost = var < sq * _CANCEL
    if lost.any():
        idx = np.nonzero(lost)[0]
        xs = x3[:, idx].astype(np.float64)
        var[idx] = ((xs - mean[idx, None]) ** 2).mean(axis=(0, 2))
    return mean.astype(x.dtype), np.maximum(var, 0.0).astype(x.dtype)


def forward(p, rc, x, gamma, beta, mmean, mvar):
    """BatchNorm's forward (y, mean, 1/std) in new arrays, by `forward_into`."""
    from .nn import _batchnorm
    if not usable(p, rc, x, gamma, beta, mmean, mvar):
        return _batchnorm(p, rc, x, gamma, beta, mmean, mvar)
    c = x.shape[1]
    outs = (np.empty_like(x), np.empty(c, x.dtype), np.empty(c, x.dtype))
    forward_into(p, rc, outs, x, gamma, beta, mmean, mvar)
    return outs


def fast_vjp(p, rc, xs, ys, gys, need):
    """BatchNorm's gradient: `vjp`'s one pass where `usable`, else the plain rule."""
    from .nn import _bn_vjp
    if usable(p, rc, *xs[:3]):
        return vjp(p, rc, xs, ys, gys)
    return _bn_vjp(p, rc, xs, ys, gys, need)


def forward_into(p, rc, outs, x, gamma, beta, mmean, mvar):
    """BatchNorm's forward written into `outs` (y, mean, 1/std): the plain rule's
    arithmetic, its output computed in place in y instead of through three temporaries."""
    from .nn import _batchnorm, _bn_bshape, _bn_stats
    if not usable(p, rc, x, gamma, beta, mmean, mvar):
        for o, r in zip(outs, _batchnorm(p, rc, x, gamma, beta, mmean, mvar)):
            np.copyto(o, r, casting="unsafe")
        return
    _, bshape, red = _bn_bshape(p, x)
    if p.fix_gamma and rc.is_train:  # the plain rule's side effect, kept on this path too
        gamma[...] = 1
    mean, var = _bn_stats(p, rc, x, mmean, mvar, red, moments)
    g = np.ones_like(gamma) if p.fix_gamma else gamma
    inv = 1.0 / np.sqrt(var + p.eps)
    y = outs[0]
    np.subtract(x, mean.reshape(bshape), out=y)
    np.multiply(y, (inv * g).reshape(bshape), out=y)
    np.add(y, beta.reshape(bshape), out=y)
    np.copyto(outs[1], mean, casting="unsafe")
    np.copyto(outs[2], inv, casting="unsafe")


def _channel(v, x):
    return v.reshape((1, -1) + (1,) * (x.ndim - 2))


def vjp(p, rc, xs, ys, gys):
    """BatchNorm's gradients (dx, dgamma, dbeta, None, None) from per-channel sums of one
    pass over gy and x."""
    from .nn import _bn_uses_batch
    x, gamma = xs[0], xs[1]
    mean, inv = ys[1].astype(np.float64), ys[2].astype(np.float64)
    g = gys[0]
    n, c = x.shape[:2]
    g3, x3 = g.reshape(n, c, -1), x.reshape(n, c, -1)
    sg = np.zeros(c)
    sgx = np.zeros(c)
    for i in range(n):
        sg += np.einsum("cp->c", g3[i])
        sgx += np.einsum("cp,cp->c", g3[i], x3[i])
    dbeta = sg
    dgamma = (sgx - mean * sg) * inv  # sum(gy * xhat)
    gam = np.ones(c) if p.fix_gamma else gamma.astype(np.float64)
    k1 = gam * inv
    dt = x.dtype
    if _bn_uses_batch(p, rc):
        count = x.size // c
        k2 = -gam * inv * inv * dgamma / count
        dx = np.multiply(g, _channel(k1.astype(dt), x))
        tmp = np.subtract(x, _channel(mean.astype(dt), x))
        tmp *= _channel(k2.astype(dt), x)
        dx += tmp
        dx += _channel((-k1 * dbeta / count).astype(dt), x)
    else:
        dx = np.multiply(g, _channel(k1.astype(dt), x))
    dg = np.zeros_like(gamma) if p.fix_gamma else dgamma.astype(gamma.dtype)
    return dx, dg, dbeta.astype(xs[2].dtype), None, None
