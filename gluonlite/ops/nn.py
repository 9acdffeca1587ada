"""Neural-network operators: softmax, log_softmax, Dropout, BatchNorm, LayerNorm."""
import numpy as np

from . import attrs as A
from . import bn_fast, ln_fast, onednn_softmax, softmax_fast
from .fast import Fast
from . import mxnet_samplers
from .registry import register, ShapeError
from .rules import norm_axis


def _length_mask(p, xp, x, length):
    """True where the index along p.axis is below that row's length (softmax's use_length)."""
    ax = p.axis % x.ndim
    idx = xp.arange(x.shape[ax]).reshape((-1,) + (1,) * (x.ndim - ax - 1))
    return idx < xp.expand_dims(length.astype(np.int64), ax)


# MXNet 1.9.1's CPU build runs float32 softmax and log_softmax over the last axis (of 1 to 4
# axes, no temperature, no length) through oneDNN. Both and their gradients there take
# oneDNN's arithmetic to the bit (`onednn_softmax`, up to `EXACT_ENTRIES` entries: its
# `applies`).
# oneDNN treats a row holding NaN or +inf its own way: the row maximum skips NaN (and starts
# at -FLT_MAX), a NaN in the sum makes log(sum) log(FLT_MAX), and softmax is
# exp(x - max - log(sum)), so such a row gives NaN at its NaN and +inf entries and 0
# (log_softmax: x - max - log(FLT_MAX), or -inf) elsewhere.
# Every other case follows MXNet's own kernel: a NaN or +inf makes the whole row NaN.
_LN_FLT_MAX = np.float32(np.log(np.finfo(np.float32).max))


def _onednn_path(p, xp, x, length):
    """Whether MXNet's CPU build would run this call through oneDNN (never on a GPU)."""
    return (xp is np and x.dtype == np.float32 and 1 <= x.ndim <= 4
            and p.axis % x.ndim == x.ndim - 1
            and p.temperature is None and length is None
            and (p.dtype is None or np.dtype(p.dtype) == np.float32))


def _onednn_rows(xp, x, log):
    """softmax (or log_softmax) of rows (..., n) holding NaN or +inf, as oneDNN gives them."""
    finite_max = xp.where(xp.isnan(x), -np.inf, x).max(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore"):
        d = x - xp.maximum(finite_max, np.finfo(np.float32).min)
        total = xp.exp(d).sum(axis=-1, keepdims=True)
        lse = xp.where(xp.isnan(total), _LN_FLT_MAX, xp.log(total))
        y = d - lse
    if log:
        return y
    out = xp.exp(y)
    out[out < np.finfo(np.float32).tiny] = 0  # oneDNN flushes subnormal results to zero
    return out


def _softmax_fwd(p, rc, x, log, length=None, fast=False, onednn=True):
    """softmax (or log_softmax) of x as MXNet computes it; `fast`: normalize through
    `softmax_fast` where it applies (the same numbers, fewer passes); `onednn` False: MXNet
    never takes the call to oneDNN (softmin), so a row with NaN or +inf is all NaN."""
    xp = rc.xp
    if x.size == 0:  # nothing to normalize (the max below has no identity)
        return x.astype(p.dtype or x.dtype)
    z = x / x.dtype.type(p.temperature) if p.temperature not in (None, 1.0) else x
    if length is not None:
        mask = _length_mask(p, xp, x, length)
        z = xp.where(mask, z, -np.inf)
    top = z.max(axis=p.axis, keepdims=True)
    onednn = onednn and _onednn_path(p, xp, x, length)
    if onednn and not xp.isfinite(top).all():
        odd = ~xp.isfinite(top[..., 0]) & ~xp.isneginf(top[..., 0])  # rows with NaN or +inf
        if odd.any():
            y = _plain_softmax(xp, z, top, p.axis, log, None)
            if onednn_softmax.applies(z.size):
                fine = ~odd
                y[fine] = _onednn_kernel(log)(z[fine])
            y[odd] = _onednn_rows(xp, z[odd], log)
            return y.astype(p.dtype or x.dtype, copy=False)
    if onednn and onednn_softmax.applies(z.size):
        return _onednn_kernel(log)(z)
    if fast and length is None and softmax_fast.usable(xp, p.axis, z):
        y = softmax_fast.forward(z, top, log)
    else:
        y = _plain_softmax(xp, z, top, p.axis, log, mask if length is not None else None)
    return y.astype(p.dtype or x.dtype, copy=False)


def _onednn_kernel(log):
    return onednn_softmax.log_softmax if log else onednn_softmax.softmax


def _plain_softmax(xp, z, top, axis, log, mask):
    """MXNet's own kernel: subtract the row maximum, exponentiate, normalize (inf - inf is
    NaN silently: operators run with numpy's errors ignored, ops/float_errors.py)."""
    z = z - top
    if log:
        return z - xp.log(xp.exp(z).sum(axis=axis, keepdims=True))
    e = xp.exp(z)
    y = e / e.sum(axis=axis, keepdims=True)
    return y if mask is None else xp.where(mask, y, 0)


_SOFTMAX_ATTRS = {"axis": A.Int(-1), "temperature": A.OptionalFloat(), "dtype": A.Dtype(None),
    "use_length": A.Bool(False)}


def _onednn_grad(p, rc, xs):
    """Whether softmax's gradient takes oneDNN's backward kernel (`onednn_softmax`)."""
    return onednn_softmax.applies(xs[0].size) and _onednn_path(
        p, rc.xp, xs[0], xs[1] if len(xs) > 1 else None)


def _softmax_vjp(p, rc, xs, ys, gys, need):
    y, g = ys[0], gys[0]
    if _onednn_grad(p, rc, xs):
        return (onednn_softmax.softmax_grad(y, g), None)[:len(xs)]
    t = p.temperature or 1.0
    gx = (g - (g * y).sum(axis=p.axis, keepdims=True)) * y / t
    return (gx.astype(xs[0].dtype, copy=False), None)[:len(xs)]


def _log_softmax_vjp(p, rc, xs, ys, gys, need):
    y, g = ys[0], gys[0]
    if _onednn_grad(p, rc, xs):
        return (onednn_softmax.log_softmax_grad(y, g),)
    t = p.temperature or 1.0
    gx = (g - rc.xp.exp(y) * g.sum(axis=p.axis, keepdims=True)) / t
    return (gx.astype(xs[0].dtype, copy=False),)


# The fast paths (`softmax_fast`: the same numbers in fewer passes over large arrays).
def _softmax_fast(p, rc, x, length=None):
    return _softmax_fwd(p, rc, x, False, length, fast=True)


def _log_softmax_fast(p, rc, x):
    _log_softmax_length(p)
    return _softmax_fwd(p, rc, x, True, fast=True)


def _softmax_fast_vjp(p, rc, xs, ys, gys, need):
    y, g = ys[0], gys[0]
    if _onednn_grad(p, rc, xs) or not softmax_fast.usable(rc.xp, p.axis, y, g):
        return _softmax_vjp(p, rc, xs, ys, gys, need)
    gx = softmax_fast.softmax_grad(y, g, p.temperature or 1.0)
    return (gx.astype(xs[0].dtype, copy=False), None)[:len(xs)]


def _log_softmax_fast_vjp(p, rc, xs, ys, gys, need):
    y, g = ys[0], gys[0]
    if _onednn_grad(p, rc, xs) or not softmax_fast.usable(rc.xp, p.axis, y, g):
        return _log_softmax_vjp(p, rc, xs, ys, gys, need)
    gx = softmax_fast.log_softmax_grad(y, g, p.temperature or 1.0)
    return (gx.astype(xs[0].dtype, copy=False),)


def _softmax_dtype(p, ins):
    return ins, [np.dtype(p.dtype) if p.dtype else ins[0]]


def _softmax_shape(name):
    def rule(p, ins):
        d = ins[0]
        if d is None:
            return ins, [None]
        ax = norm_axis(name, p.axis, len(d))
        if len(ins) > 1:
            want = tuple(s for i, s in enumerate(d) if i != ax)
            if ins[1] is not None and tuple(ins[1]) != want:
                raise ShapeError(f"{name}: length must have shape {want} for data {tuple(d)} "
                                 f"and axis={p.axis}, got {tuple(ins[1])}")
            ins[1] = want
        return ins, [tuple(d)]
    return rule


def _softmax(p, rc, x, length=None):
    """softmax(data, length=None, axis=-1, temperature=None, dtype=None, use_length=False):
    exp(x / temperature) normalized along axis. With use_length, only the first length[i]
    entries of each row take part and the rest are 0."""
    return _softmax_fwd(p, rc, x, False, length)


def _log_softmax(p, rc, x):
    """log_softmax(data, axis=-1, temperature=None, dtype=None): log of softmax, computed
    stably."""
    _log_softmax_length(p)
    return _softmax_fwd(p, rc, x, True)


def _log_softmax_length(p):
    if p.use_length:
        raise ValueError("log_softmax: use_length=True is not supported; use softmax with length")


register("softmax", attrs=_SOFTMAX_ATTRS, vjp=_softmax_vjp, shape=_softmax_shape("softmax"),
         inputs=lambda p: ["data", "length"] if p.use_length else ["data"],
         signature=("data", "length"), nondiff=("length",), dtype=_softmax_dtype,
         fast=Fast(kernel=_softmax_fast, vjp=_softmax_fast_vjp))(_softmax)
register("log_softmax", attrs=_SOFTMAX_ATTRS, vjp=_log_softmax_vjp,
         shape=_softmax_shape("log_softmax"), dtype=_softmax_dtype,
         fast=Fast(kernel=_log_softmax_fast, vjp=_log_softmax_fast_vjp))(_log_softmax)


# ---- Dropout ---------------------------------------------------------------------------------
def _dropout_active(p, rc):
    return p.p > 0 and (p.mode == "always" or rc.is_train)


@register("Dropout", outputs=2, visible=1, random=True,
          attrs={"p": A.Float(0.5), "mode": A.Enum("training", "always", default="training"),
                 "axes": A.Shape(()), "cudnn_off": A.Bool(False)},
          shape=lambda p, ins: (ins, [ins[0], ins[0]]),
          vjp=lambda p, rc, xs, ys, gys, need: (gys[0] * ys[1],))
def _dropout(p, rc, x):
    """Dropout(data, p=0.5, mode='training', axes=()): in training, zero each entry with
    probability p and scale the rest by 1/(1-p); identity otherwise. `axes` shares the mask
    along those axes. The mask is a hidden second output, kept for the gradient."""
    if not _dropout_active(p, rc):
        return x.copy(), rc.xp.ones_like(x)
    mshape = tuple(1 if i in p.axes else d for i, d in enumerate(x.shape))
    # MXNet's own draws (a seeded program drops MXNet's units)
    mask = mxnet_samplers.dropout_mask(mshape, p.p, x.dtype, shared_axes=bool(p.axes))
    mask = rc.xp.asarray(np.broadcast_to(mask, x.shape))
    return x * mask, mask


# ---- normalization -----------------------------------------------------------------------------
def _bn_shape(p, ins):
    d = ins[0]
    if d is None:
        return ins, [None, None, None]
    ax = norm_axis("BatchNorm", p.axis, len(d))
    c = (d[ax],)
    for i, name in enumerate(("gamma", "beta", "moving_mean", "moving_var"), start=1):
        if ins[i] is not None and tuple(ins[i]) != c:
            raise ShapeError(f"BatchNorm: {name} must have shape {c} for data {tuple(d)} "
                             f"(axis={p.axis}), got {tuple(ins[i])}")
        ins[i] = c
    return ins, [tuple(d), c, c]


def _bn_bshape(p, x):
    ax = p.axis % x.ndim
    return ax, tuple(x.shape[ax] if i == ax else 1 for i in range(x.ndim)), \
        tuple(i for i in range(x.ndim) if i != ax)


def bn_uses_batch(p, rc):
    """Whether BatchNorm (params `p`) normalizes with the batch's statistics in this call
    (training, not `use_global_stats`), so that its gradient has their terms.

    Args:
        p: BatchNorm's parsed attributes.
        rc: the call's `RunCtx` (``is_train``).

    Returns:
        bool

    Example::

        from gluonlite.ops.nn import bn_uses_batch
        from gluonlite.ops.registry import RunCtx
        p = mx.ops.get("BatchNorm").parse({})[0]
        bn_uses_batch(p, RunCtx(True, np)), bn_uses_batch(p, RunCtx(False, np))  # (True, False)
    """
    return rc.is_train and not p.use_global_stats


def _bn_stats(p, rc, x, mmean, mvar, red, moments=None):
    """(mean, var) BatchNorm normalizes with: the batch's (and the moving ones updated in
    place), or the moving ones. `moments(x)`: the batch's (mean, var) computed another way
    (the fast path's one pass); default: numpy's mean and var over `red`."""
    if bn_uses_batch(p, rc):
        mean, var = moments(x) if moments else (x.mean(axis=red), x.var(axis=red))
        mmean *= p.momentum
        mmean += (1 - p.momentum) * mean
        mvar *= p.momentum
        mvar += (1 - p.momentum) * var
        return mean, var
    return mmean.copy(), mvar.copy()


def _batchnorm(p, rc, x, gamma, beta, mmean, mvar):
    """BatchNorm(data, gamma, beta, moving_mean, moving_var, eps=1e-3, momentum=0.9,
    fix_gamma=True, use_global_stats=False, axis=1): normalize over every axis but `axis`.
    In training the batch statistics are used and the moving ones (auxiliary states, updated
    in place) become ``momentum * old + (1 - momentum) * batch`` (biased variance). With
    fix_gamma, gamma counts as 1, and a training call writes 1 into it, as MXNet's does."""
    ax, bshape, red = _bn_bshape(p, x)
    if p.fix_gamma and rc.is_train:
        gamma[...] = 1
    mean, var = _bn_stats(p, rc, x, mmean, mvar, red)
    inv = 1.0 / rc.xp.sqrt(var + p.eps)
    return bn_normalize(p, rc, x, gamma, beta, mean, inv), mean.astype(x.dtype), \
        inv.astype(x.dtype)


def bn_normalize(p, rc, x, gamma, beta, mean, inv):
    """BatchNorm's output by its plain rule, given the statistics it normalizes with:
    ``(x - mean) * (inv * gamma) + beta`` per channel (gamma taken as ones with
    ``fix_gamma``), in x's dtype. A gradient that needs that output again (``_bn_clip``'s)
    recomputes it here from the saved mean and 1/std, to the same bits.

    Args:
        p: BatchNorm's parsed attributes.
        rc: the call's `RunCtx`.
        x: the data.
        gamma: the scale, (C,).
        beta: the shift, (C,).
        mean: the mean, (C,).
        inv: 1 / sqrt(var + eps), (C,).

    Returns:
        array: of x's shape and dtype.

    Example::

        from gluonlite.ops.nn import bn_normalize
        from gluonlite.ops.registry import RunCtx
        p = mx.ops.get("BatchNorm").parse({"fix_gamma": False})[0]
        x = np.array([[1.0, 2.0], [3.0, 6.0]])
        bn_normalize(p, RunCtx(True, np), x, np.ones(2), np.zeros(2), np.array([2.0, 4.0]),
                     np.array([1.0, 0.5]))       # [[-1., -1.], [1., 1.]]
    """
    _, bshape, _ = _bn_bshape(p, x)
    g = rc.xp.ones_like(gamma) if p.fix_gamma else gamma
    y = (x - mean.reshape(bshape)) * (inv * g).reshape(bshape) + beta.reshape(bshape)
    return y.astype(x.dtype, copy=False)


def _bn_vjp(p, rc, xs, ys, gys, need):
    x, gamma = xs[0], xs[1]
    mean, inv = ys[1], ys[2]
    ax, bshape, red = _bn_bshape(p, x)
    g = gys[0]
    xhat = (x - mean.reshape(bshape)) * inv.reshape(bshape)
    gam = rc.xp.ones_like(gamma) if p.fix_gamma else gamma
    dbeta = g.sum(axis=red)
    dgamma = (g * xhat).sum(axis=red)
    if bn_uses_batch(p, rc):
        n = x.size // x.shape[ax]
        dx = (gam * inv).reshape(bshape) / n * (
            n * g - dbeta.reshape(bshape) - xhat * dgamma.reshape(bshape))
    else:
        dx = g * (gam * inv).reshape(bshape)
    return dx, (rc.xp.zeros_like(gamma) if p.fix_gamma else dgamma), dbeta, None, None


# What the entries of BatchNorm and the operators built on it share: its five inputs, the
# moving statistics as auxiliary states, and the mean and 1/std as hidden outputs that
# output_mean_var shows
BN_INPUTS = ("data", "gamma", "beta", "moving_mean", "moving_var")
BN_OUTPUTS = dict(aux=("moving_mean", "moving_var"), outputs=3,
                  visible=lambda p: 3 if p.output_mean_var else 1,
                  output_names=lambda p: (["output", "mean", "var"] if p.output_mean_var
                                          else ["output"]))


# BatchNorm's fast paths: bn_fast's one-pass kernels for numpy float data, else the plain rule
def _bn_fast_into(p, rc, outs, x, gamma, beta, mmean, mvar, then=None):
    # then(block, index): an in-place step on the output (BatchNormWithReLU's relu), taken
    # by the fast path a block at a time while each block is in the cache (`normalize_into`),
    # else on the whole output (index Ellipsis)
    if not bn_fast.usable(p, rc, x, gamma, beta, mmean, mvar):
        for o, r in zip(outs, _batchnorm(p, rc, x, gamma, beta, mmean, mvar)):
            rc.xp.copyto(o, r, casting="unsafe")
        if then is not None:
            then(outs[0], ...)
        return
    if p.fix_gamma and rc.is_train:  # the plain rule's side effect, kept on this path too
        gamma[...] = 1
    _, _, red = _bn_bshape(p, x)
    mean, var = _bn_stats(p, rc, x, mmean, mvar, red, bn_fast.moments)
    bn_fast.normalize_into(p, outs, x, gamma, beta, mean, var, then=then)


def _bn_fast_kernel(p, rc, x, gamma, beta, mmean, mvar, then=None):
    if not bn_fast.usable(p, rc, x, gamma, beta, mmean, mvar):
        outs = _batchnorm(p, rc, x, gamma, beta, mmean, mvar)
        if then is not None:
            then(outs[0], ...)
        return outs
    c = x.shape[1]
    outs = (np.empty_like(x), np.empty(c, x.dtype), np.empty(c, x.dtype))
    _bn_fast_into(p, rc, outs, x, gamma, beta, mmean, mvar, then=then)
    return outs


def _bn_fast_vjp(p, rc, xs, ys, gys, need):
    if bn_fast.usable(p, rc, *xs[:3]):
        return bn_fast.vjp(p, xs, ys, gys, bn_uses_batch(p, rc))
    return _bn_vjp(p, rc, xs, ys, gys, need)


register("BatchNorm", inputs=BN_INPUTS, **BN_OUTPUTS,
         attrs={"eps": A.Float(1e-3), "momentum": A.Float(0.9), "fix_gamma": A.Bool(True),
                "use_global_stats": A.Bool(False), "output_mean_var": A.Bool(False),
                "axis": A.Int(1), "cudnn_off": A.Bool(False),
                "min_calib_range": A.Attr(lambda v: v, None),
                "max_calib_range": A.Attr(lambda v: v, None), "act_type": A.Str("None")},
         shape=_bn_shape, vjp=_bn_vjp, same_dtype=(),
         fast=Fast(kernel=_bn_fast_kernel, into=_bn_fast_into, vjp=_bn_fast_vjp),
         dtype=lambda p, ins: ([ins[0]] + [d or ins[0] for d in ins[1:]], [ins[0]] * 3))(_batchnorm)


def _ln_shape(p, ins):
    d = ins[0]
    if d is None:
        return ins, [None, None, None]
    ax = norm_axis("LayerNorm", p.axis, len(d))
    c = (d[ax],)
    for i, name in ((1, "gamma"), (2, "beta")):
        if ins[i] is not None and tuple(ins[i]) != c:
            raise ShapeError(f"LayerNorm: {name} must have shape {c}, got {tuple(ins[i])}")
        ins[i] = c
    red = tuple(1 if i == ax else s for i, s in enumerate(d))
    return ins, [tuple(d), red, red]


def _layernorm(p, rc, x, gamma, beta):
    """LayerNorm(data, gamma, beta, axis=-1, eps=1e-5): normalize along `axis`, then scale
    and shift."""
    ax = p.axis % x.ndim
    bshape = tuple(x.shape[ax] if i == ax else 1 for i in range(x.ndim))
    mean = x.mean(axis=ax, keepdims=True)
    std = rc.xp.sqrt(x.var(axis=ax, keepdims=True) + p.eps)
    y = (x - mean) / std * gamma.reshape(bshape) + beta.reshape(bshape)
    return y.astype(x.dtype, copy=False), mean, std


def _ln_vjp(p, rc, xs, ys, gys, need):
    x, gamma = xs[0], xs[1]
    mean, std = ys[1], ys[2]
    ax = p.axis % x.ndim
    bshape = tuple(x.shape[ax] if i == ax else 1 for i in range(x.ndim))
    red = tuple(i for i in range(x.ndim) if i != ax)
    xhat = (x - mean) / std
    g = gys[0]
    gx_hat = g * gamma.reshape(bshape)
    n = x.shape[ax]
    dx = (n * gx_hat - gx_hat.sum(axis=ax, keepdims=True)
          - xhat * (gx_hat * xhat).sum(axis=ax, keepdims=True)) / (n * std)
    return dx, (g * xhat).sum(axis=red), g.sum(axis=red)


# LayerNorm's fast paths: ln_fast's blocked kernels for numpy float data over the last
# axis, else the plain rule
def _ln_fast_into(p, rc, outs, x, gamma, beta):
    if ln_fast.usable(p, rc.xp, x, gamma, beta, *outs):
        ln_fast.forward_into(outs, x, gamma, beta, p.eps)
        return
    for o, r in zip(outs, _layernorm(p, rc, x, gamma, beta)):
        rc.xp.copyto(o, r, casting="unsafe")


def _ln_fast_kernel(p, rc, x, gamma, beta):
    if not ln_fast.usable(p, rc.xp, x, gamma, beta):
        return _layernorm(p, rc, x, gamma, beta)
    red = x.shape[:-1] + (1,)
    outs = (np.empty_like(x), np.empty(red, x.dtype), np.empty(red, x.dtype))
    ln_fast.forward_into(outs, x, gamma, beta, p.eps)
    return outs


def _ln_fast_vjp(p, rc, xs, ys, gys, need):
    x, gamma = xs[0], xs[1]
    if ln_fast.usable(p, rc.xp, x, gamma, ys[1], ys[2], gys[0]):
        return ln_fast.vjp(x, gamma, ys[1], ys[2], gys[0])
    return _ln_vjp(p, rc, xs, ys, gys, need)


register("LayerNorm", inputs=("data", "gamma", "beta"), outputs=3,
         visible=lambda p: 3 if p.output_mean_var else 1,
         attrs={"axis": A.Int(-1), "eps": A.Float(1e-5), "output_mean_var": A.Bool(False)},
         shape=_ln_shape, vjp=_ln_vjp,
         fast=Fast(kernel=_ln_fast_kernel, into=_ln_fast_into, vjp=_ln_fast_vjp))(_layernorm)


def _softmin(p, rc, x):
    """softmin(data, axis=-1, temperature=None, dtype=None): softmax of -data."""
    return _softmax_fwd(p, rc, -x, False, onednn=False)


def _softmin_vjp(p, rc, xs, ys, gys, need):
    return (-_softmax_vjp(p, rc, xs, ys, gys, need)[0],)


register("softmin", attrs=_SOFTMAX_ATTRS, vjp=_softmin_vjp, shape=_softmax_shape("softmin"),
         dtype=_softmax_dtype)(_softmin)
