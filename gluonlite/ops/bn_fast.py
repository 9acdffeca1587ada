"""The numpy kernels of BatchNorm's fast paths; `nn.py` keeps the plain rule (its meaning)
and registers the fast paths, which call these where `usable` says they apply.

The arithmetic is the plain rule's, arranged in fewer passes over the data:

- Statistics in one pass: per channel, the sum and the sum of squares (``einsum``, one call
  a block, each sample's sums added in float64), so ``var = E[x^2] - mean^2``. Where
  that difference loses the variance to cancellation (a channel whose mean is large
  against its spread: ``var < E[x^2] / 1024``), the channel's variance is taken again
  the plain way, about its mean.
- The output in place in the plan's buffer (`normalize_into`), equal to the plain rule up
  to float32 rounding: ``y = x * k + (beta - mean * k)`` with ``k = gamma / std``, two passes
  and no temporaries.
- The gradient: per channel ``sum(gy)`` and ``sum(gy * x)`` in one pass, then ``dx = gy * k1
  + x * k2 + k3`` per channel (the plain rule's ``(n gy - sum(gy) - xhat sum(gy xhat)) *
  gamma / (n std)`` with ``xhat = (x - mean) / std`` multiplied out), four passes.

Both fold the mean into a per-channel constant. That saves a pass, but ``x * k`` then carries
the mean: its rounding error is ``|mean| / std`` times the normalized value's. So the fold
is taken only for the channels whose ``|mean| / std`` is at most `FOLD_MEAN` (8: at most
about 8 float32 ulps more; the channels of the ResNet, MobileNet and VGG layers measured
while training stay under 7). The other channels are computed again the plain way, the mean
subtracted first, so a large mean loses nothing; their ``sum(gy * xhat)`` (dgamma, and a
term of dx) is summed about the mean too, where ``sum(gy * x) - mean * sum(gy)`` would
cancel. A numpy pass over a block in the cache costs a third to a half of reading it from
memory, so a pass fewer shows: on ResNet-50's 53 layers the forward (statistics and output)
takes 0.87 of the time at batch 32 and 0.79 at batch 1, the data gradient (sums and dx)
0.94 and 0.95 (benchmarks/bn_passes.py).

Where a sample's rows are short (the 7 x 7 to 56 x 56 maps) and the batch has several
samples, the per-channel constants go into the passes as (C, P) tiles, not (C, 1) columns:
numpy's loop over a column operand starts again on every row, and on rows this short that
costs more than the arithmetic. The products are the same, bit for bit. With the sums taken
a block at a time (one einsum call for several samples), MobileNet v1 0.25's BatchNorms at
batch 32 take 0.84-0.88 of their forward time and 0.93-0.95 of their gradient's, and the
training steps of four models at batch 32 0.97-0.99 of theirs
(`benchmarks/data/models_bn_tiles_ab.jsonl`).

`usable` says where it applies: numpy float32/float64 arrays of one dtype, channels on
axis 1, and more than one entry per channel; elsewhere BatchNorm's fast paths run the plain
rule. They are registered with the operator (``Fast(kernel=..., into=..., vjp=...)`` in
`nn.py`), so the registry walk holds them against the plain rule. ``ENABLED = False`` sends every
call to the plain rule (benchmarks/models.py --ab nobn1 times both).
"""
import numpy as np

__all__ = ["usable", "moments", "normalize_into", "vjp", "relu_grad", "FOLD_MEAN"]

ENABLED = True
# a channel's E[x^2] - mean^2 is recomputed about the mean below this share of E[x^2]
_CANCEL = 1.0 / 1024
# entries of the blocks the gradient is written in: about half the L2 cache in float32
_BLOCK = 1 << 17
# the largest |mean| / std of a channel whose mean is folded into a constant (module docstring)
FOLD_MEAN = 8.0
# Rows (a sample's positions per channel) shorter than this take their per-channel constants
# as whole (C, P) tiles, in batches of at least _TILE_SAMPLES samples: numpy's loop over a
# (C, 1) operand restarts on every row, which costs more than the arithmetic on short rows
_TILE_ROWS = 4096
_TILE_SAMPLES = 4


def usable(p, rc, x, *others):
    """Whether the fast path applies to BatchNorm params `p` on data `x` (and `others`, the
    per-channel inputs, of x's dtype).

    Args:
        p: BatchNorm's parsed attributes (its ``axis`` must be the channel axis 1).
        rc: the `RunCtx` (the fast path is numpy only).
        x: the data, C-contiguous float32 or float64 with at least 2 axes.
        *others: the per-channel arrays that must share x's dtype.

    Returns:
        bool

    Example::

        from gluonlite.ops import bn_fast
        from gluonlite.ops.registry import RunCtx
        p = mx.ops.get("BatchNorm").parse({"fix_gamma": False})[0]
        x = np.arange(8, dtype=np.float32).reshape(2, 2, 2)
        gamma, beta = np.ones(2, np.float32), np.zeros(2, np.float32)
        bn_fast.usable(p, RunCtx(True, np), x, gamma, beta)  # True where the fast path is on
    """
    return (ENABLED and rc.xp is np and x.dtype in (np.float32, np.float64) and x.ndim >= 2
            and p.axis % x.ndim == 1 and x.size > x.shape[1] and x.flags.c_contiguous
            and all(o.dtype == x.dtype for o in others))


def moments(x):
    """(mean, biased variance) per channel (axis 1) of x, in x's dtype: the sums of one pass
    (see the module docstring).

    Args:
        x: the data, (N, C, ...), float32 or float64.

    Returns:
        (numpy.ndarray, numpy.ndarray): the mean and the variance, each (C,).

    Example::

        from gluonlite.ops.bn_fast import moments
        x = np.arange(8, dtype=np.float32).reshape(2, 2, 2)
        moments(x)      # (array([2.5, 4.5], dtype=float32), array([4.25, 4.25], dtype=float32))
    """
    n, c = x.shape[:2]
    x3 = x.reshape(n, c, -1)
    s = np.zeros(c)
    q = np.zeros(c)
    for index in _blocks(x3):
        b = x3[index]
        s[index[1]] += _sums(b)
        q[index[1]] += _sums(b, b)
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


def normalize_into(p, outs, x, gamma, beta, mean, var, then=None):
    """BatchNorm's output and saved statistics written into `outs` (y, mean, 1/std), given
    the statistics it normalizes with: ``y = (x - mean) * (gamma / std) + beta``, computed in
    place in y as ``x * k + (beta - mean * k)`` (the plain way for the channels `FOLD_MEAN`
    excludes).

    Args:
        p: BatchNorm's parsed attributes (``fix_gamma``: gamma taken as ones; ``eps``).
        outs: [y of x's shape, mean (C,), 1/std (C,)], written in place.
        x: the data, (N, C, ...).
        gamma: the scale, (C,).
        beta: the shift, (C,).
        mean: the mean to normalize with, (C,).
        var: the variance to normalize with, (C,).
        then: optional ``f(block, index)`` applied in place to each block of y as soon as it
            is written, while it is in the cache (BatchNormWithReLU's relu; the addend and
            relu of `bn_relu`'s ``_bn_add_relu``): `block` is a view of y as (N, C, P) at
            ``index``, the same index into any array of y's shape viewed as (N, C, P);
            default None.

    Example::

        from gluonlite.ops import bn_fast
        p = mx.ops.get("BatchNorm").parse({"fix_gamma": False})[0]
        x = np.arange(8, dtype=np.float32).reshape(2, 2, 2)
        gamma, beta = np.ones(2, np.float32), np.zeros(2, np.float32)
        mean, var = bn_fast.moments(x)
        outs = [np.empty_like(x), np.empty(2, np.float32), np.empty(2, np.float32)]
        bn_fast.normalize_into(p, outs, x, gamma, beta, mean, var)
        outs[0].mean(axis=(0, 2))           # about [0, 0]: each channel centred
    """
    inv = 1.0 / np.sqrt(var + p.eps)
    n, c = x.shape[:2]
    x3, y3 = x.reshape(n, c, -1), outs[0].reshape(n, c, -1)
    k, k2, b2 = _folded(p, x.dtype, gamma, beta, mean, inv)
    k2, b2 = _rows_of(x3, k2, b2)
    for i, cs in _blocks(x3):
        y = y3[i, cs]
        np.multiply(x3[i, cs], k2[cs], out=y)
        np.add(y, b2[cs], out=y)
        if then is not None:
            then(y, (i, cs))
    exact = _unfolded(mean, inv)
    if exact is not None:
        t = _plain_channels(x, exact, mean, k, beta)
        if then is not None:
            then(t.reshape(n, len(exact), -1), (slice(None), exact))
        outs[0][:, exact] = t
    np.copyto(outs[1], mean, casting="unsafe")
    np.copyto(outs[2], inv, casting="unsafe")


def _folded(p, dtype, gamma, beta, mean, inv):
    """(k, k as (C, 1), shift as (C, 1)) in `dtype`: ``x * k + shift`` is BatchNorm's output
    with the mean folded into the shift (taken in float64: ``beta - mean * k``). The forward
    and the gradients that recompute that output (``_bn_clip``'s) share it, bit for bit."""
    g = np.ones_like(gamma) if p.fix_gamma else gamma
    k = inv * g
    shift = beta.astype(np.float64) - mean.astype(np.float64) * k.astype(np.float64)
    c = k.shape[0]
    return k, k.reshape(c, 1), shift.astype(dtype).reshape(c, 1)


def _rows_of(x3, *columns):
    """The per-channel constants `columns` ((C, 1) each) as the block passes of x3 (N, C, P)
    take them: repeated along the positions into (C, P) tiles where rows are short and the
    samples many (`_TILE_ROWS`), else as they are; either way the same products, bit for
    bit."""
    n, _, p = x3.shape
    if p >= _TILE_ROWS or n < _TILE_SAMPLES:
        return columns
    return tuple(np.repeat(v, p, axis=1) for v in columns)


def _plain_channels(x, exact, mean, k, beta):
    """BatchNorm's output for the channels `exact` (the ones `_unfolded` names), the mean
    subtracted first: (N, len(exact), ...) in x's dtype."""
    m, kc, b = (_channel(v[exact], x) for v in (mean, k, beta))
    t = x[:, exact] - m
    t *= kc
    t += b
    return t


def _channel(v, x):
    return v.reshape((1, -1) + (1,) * (x.ndim - 2))


def _unfolded(mean, inv):
    """The indices of the channels whose mean is too large against their spread to be
    folded into a constant (``|mean| / std > FOLD_MEAN``), or None when there are none."""
    big = np.abs(mean.astype(np.float64)) * inv.astype(np.float64) > FOLD_MEAN
    return np.nonzero(big)[0] if big.any() else None


def _blocks(x3):
    """(samples, channels) index pairs cutting `x3` (N, C, P) into blocks of about
    `_BLOCK` entries, so that the passes over one block run in the cache: several whole
    samples where a sample is small, else a few channels of one sample."""
    n, c, p = x3.shape
    if c * p <= _BLOCK:
        step = max(1, _BLOCK // max(1, c * p))
        return [(slice(s, min(n, s + step)), slice(None)) for s in range(0, n, step)]
    step = max(1, _BLOCK // max(1, p))
    return [(i, slice(s, min(c, s + step))) for i in range(n) for s in range(0, c, step)]


def _sums(a, b=None):
    """Per-channel sums of a block of `_blocks`, (C, P) or (N, C, P): of `a`, or of ``a *
    b``; each sample's sum in the data's dtype, the samples' added in float64 (one call a
    block: a call a sample cost more than the sums on small maps)."""
    if a.ndim == 2:
        return np.einsum("cp->c", a) if b is None else np.einsum("cp,cp->c", a, b)
    s = np.einsum("ncp->nc", a) if b is None else np.einsum("ncp,ncp->nc", a, b)
    return s.sum(axis=0, dtype=np.float64)


def relu_grad(g, r, out):
    """``g * sign(r)`` into `out`: the gradient through a relu whose output is `r` (relu's
    rule). For float32, whose relu output is never NaN (Activation's relu gives 0 for NaN),
    as a multiply by ``r > 0``, a vectorised comparison where numpy's ``sign`` is not; the
    same numbers, an infinite or NaN `g` included (times 0 is NaN either way).

    Args:
        g: the gradient of the relu's output.
        r: the relu's output, of g's shape.
        out: where to write, of g's shape and dtype (may be `g`).

    Returns:
        `out`.

    Example::

        from gluonlite.ops import bn_fast
        g, r = np.array([1.0, 2.0, 3.0], np.float32), np.array([0.0, 1.0, 0.5], np.float32)
        bn_fast.relu_grad(g, r, np.empty(3, np.float32))    # array([0., 2., 3.], dtype=float32)
    """
    if r.dtype == np.float32:
        return np.multiply(g, np.greater(r, 0), out=out)
    return np.multiply(g, np.sign(r), out=out)


def vjp(p, xs, ys, gys, batch_stats, relu_out=None, gy_into=None, clip=None):
    """BatchNorm's gradients (dx, dgamma, dbeta, None, None) from per-channel sums of one
    pass over gy and x; `batch_stats`: the forward normalized with the batch's statistics
    (training), so dx has their terms too.

    Args:
        p: BatchNorm's parsed attributes.
        xs: the forward's inputs [x, gamma, beta, ...].
        ys: the forward's outputs [y, mean, 1/std] (`normalize_into`'s `outs`).
        gys: the output gradients; gys[0] is the gradient of y.
        relu_out: BatchNormWithReLU's output relu(y), when the gradient is that operator's:
            gys[0] is then the gradient of relu(y), taken through the relu (`relu_grad`) a
            block at a time in the pass that sums it (default None: plain BatchNorm).
        gy_into: with `relu_out` or `clip`, an array of x's shape and dtype to keep the
            gradient of y in (``_bn_add_relu``'s addend has that gradient too); dx then gets
            an array of its own (default None: dx is computed over the gradient of y, in
            place).
        clip: ``(a_min, a_max)`` when the gradient is ``_bn_clip``'s: gys[0] is then the
            gradient of ys[0] = clip(y), taken through clip's rule (where ``a_min <= y <=
            a_max``) a block at a time in the pass that sums it, y recomputed from x and the
            saved statistics as the forward computed it (default None).

    Returns:
        tuple: (dx, dgamma, dbeta, None, None); dgamma is zeros with ``fix_gamma``.

    Example::

        from gluonlite.ops import bn_fast
        p = mx.ops.get("BatchNorm").parse({"fix_gamma": False})[0]
        x = np.arange(8, dtype=np.float32).reshape(2, 2, 2)
        gamma, beta = np.ones(2, np.float32), np.zeros(2, np.float32)
        mean, var = bn_fast.moments(x)
        outs = [np.empty_like(x), np.empty(2, np.float32), np.empty(2, np.float32)]
        bn_fast.normalize_into(p, outs, x, gamma, beta, mean, var)
        dx, dgamma, dbeta, _, _ = bn_fast.vjp(p, [x, gamma, beta], outs, [np.ones_like(x)], True)
        dbeta                               # array([4., 4.], dtype=float32): gy summed per channel
    """
    x, gamma = xs[0], xs[1]
    mean, inv = ys[1].astype(np.float64), ys[2].astype(np.float64)
    g = gys[0]
    n, c = x.shape[:2]
    x3, g3 = x.reshape(n, c, -1), g.reshape(n, c, -1)
    through = None
    if relu_out is not None:
        through = _ThroughRelu(relu_out)
    elif clip is not None:
        through = _ThroughClip(p, clip, x, ys[0], gamma, xs[2], ys[1], ys[2])
    if through is not None:
        # the gradient of y, a piece at a time in the pass that sums it, written into
        # `gy_into` or else into the array that becomes dx (computed from it in place below)
        gb = np.empty(x.shape, dtype=x.dtype) if gy_into is None else gy_into
        gb3 = gb.reshape(n, c, -1)
    sg = np.zeros(c)
    sgx = np.zeros(c)
    for index in _blocks(x3):
        gp = g3[index] if through is None else through.piece(g3[index], index, gb3[index])
        sg[index[1]] += _sums(gp)
        sgx[index[1]] += _sums(gp, x3[index])
    if through is not None:
        g, g3 = gb, gb3
    over = through is not None and gy_into is None  # dx written over the gradient of y
    dbeta = sg
    dgamma = (sgx - mean * sg) * inv  # sum(gy * xhat)
    exact = _unfolded(mean, inv)
    if exact is not None:
        # sgx - mean * sg cancels in such channels (sgx is about mean * sg): their sum of
        # gy * xhat is taken about the mean instead, in float64
        centred = x3[:, exact].astype(np.float64) - mean[exact, None]
        dgamma[exact] = np.einsum("ncp,ncp->c", g3[:, exact], centred) * inv[exact]
    gam = np.ones(c) if p.fix_gamma else gamma.astype(np.float64)
    k1 = gam * inv
    dt = x.dtype
    if batch_stats:
        count = x.size // c
        k2 = -gam * inv * inv * dgamma / count
        k3 = -k1 * dbeta / count
        # dx = gy k1 + (x - mean) k2 + k3, the mean folded into the constant (module docstring)
        vecs = _rows_of(x3, *(v.astype(dt).reshape(c, 1) for v in (k1, k2, k3 - mean * k2)))
        dx = gb if over else np.empty(x.shape, dtype=dt)
        dx3 = dx.reshape(n, c, -1)
        # a block at a time, so that the four passes run over it in the cache (in place
        # over gy's block where that is BatchNormWithReLU's own buffer)
        blocks = _blocks(x3)
        tmp = np.empty(dx3[blocks[0]].size, dtype=dt)
        for i, cs in blocks:
            d = dx3[i, cs]
            t = tmp[:d.size].reshape(d.shape)
            k1c, k2c, k3c = (v[cs] for v in vecs)
            np.multiply(g3[i, cs], k1c, out=d)
            np.multiply(x3[i, cs], k2c, out=t)
            d += t
            d += k3c
        if exact is not None:
            if over:  # taken again: dx overwrote it
                gex = through.channels(gys[0][:, exact], exact,
                                       np.empty(x[:, exact].shape, dtype=dt))
            else:
                gex = g[:, exact]
            k1c, mc, k2c, k3c = (_channel(v[exact].astype(dt), x) for v in (k1, mean, k2, k3))
            t = x[:, exact] - mc
            t *= k2c
            t += gex * k1c
            t += k3c
            dx[:, exact] = t
    else:
        dx = np.multiply(g, _channel(k1.astype(dt), x), out=gb if over else None)
    dg = np.zeros_like(gamma) if p.fix_gamma else dgamma.astype(gamma.dtype)
    return dx, dg, dbeta.astype(xs[2].dtype), None, None


class _ThroughRelu:
    """The gradient of y from the gradient of relu(y), given relu(y) (BatchNormWithReLU's
    and ``_bn_add_relu``'s output): `relu_grad`, a piece or some channels at a time."""

    def __init__(self, relu_out):
        self.r = relu_out
        self.r3 = relu_out.reshape(relu_out.shape[:2] + (-1,))

    def piece(self, g, index, out):
        """`g`, a block of the (N, C, P) view at `index`, taken through the relu into `out`
        (returned)."""
        return relu_grad(g, self.r3[index], out)

    def channels(self, g, exact, out):
        """`g`, the channels `exact` of the whole gradient, taken through the relu into
        `out` (returned)."""
        return relu_grad(g, self.r[:, exact], out)


class _ThroughClip:
    """The gradient of y from the gradient of clip(y, a_min, a_max) (``_bn_clip``), by
    clip's rule: where ``a_min <= y <= a_max`` (NaN: nowhere). clip's output cannot tell a
    y on a bound from one beyond it (relu6 clips half its inputs to 0 exactly), so y is
    computed again from x and the saved statistics, a piece at a time in the cache, by the
    forward's own arithmetic (`_folded`, `_plain_channels`): the same bits. The output then
    equals it exactly where y is within the bounds (clip returns y itself there), one
    comparison instead of two and their conjunction; bounds the wrong way round (clip then
    gives a_max everywhere) take the two comparisons."""

    def __init__(self, p, bounds, x, out, gamma, beta, mean, inv):
        self.lo, self.hi = bounds
        n, c = x.shape[:2]
        self.x3, self.out3 = x.reshape(n, c, -1), out.reshape(n, c, -1)
        _, self.k2, self.b2 = _folded(p, x.dtype, gamma, beta, mean, inv)
        self.exact = _unfolded(mean, inv)
        if self.exact is not None:  # their y, the plain way, once: such channels are rare
            self.y_exact = _plain_channels(x, self.exact, mean, self.k2.reshape(c), beta)
            self.y3_exact = self.y_exact.reshape(n, len(self.exact), -1)
        self.k2, self.b2 = _rows_of(self.x3, self.k2, self.b2)
        size = self.x3[_blocks(self.x3)[0]].size   # the first block is the largest
        self.y = np.empty(size, dtype=x.dtype)
        self.hit = np.empty(size, dtype=bool)

    def _within(self, y, clipped, g, out, hit):
        if self.lo <= self.hi:
            np.equal(clipped, y, out=hit)
        else:
            np.greater_equal(y, self.lo, out=hit)
            hit &= np.less_equal(y, self.hi)
        return np.multiply(g, hit, out=out)

    def piece(self, g, index, out):
        """`g`, a block (some samples, or some channels `cs` of one) of the (N, C, P) view
        at `index`, taken through the clip into `out` (returned)."""
        i, cs = index
        y = self.y[:g.size].reshape(g.shape)
        np.multiply(self.x3[index], self.k2[cs], out=y)
        np.add(y, self.b2[cs], out=y)
        if self.exact is not None:
            start, stop, _ = cs.indices(self.x3.shape[1])
            inside = (self.exact >= start) & (self.exact < stop)
            if inside.any():
                y[..., self.exact[inside] - start, :] = self.y3_exact[i][..., inside, :]
        hit = self.hit[:y.size].reshape(y.shape)
        return self._within(y, self.out3[index], g, out, hit)

    def channels(self, g, exact, out):
        """`g`, the channels `exact` (this object's unfolded ones) of the whole gradient,
        taken through the clip into `out` (returned)."""
        clipped = self.out3[:, exact].reshape(g.shape)
        return self._within(self.y_exact, clipped, g, out, np.empty(g.shape, dtype=bool))
