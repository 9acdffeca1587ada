"""Layers of MXNet's older symbolic API: the normalisations L2Normalization, LRN and
BatchNorm_v1, SoftmaxActivation, and the regulariser IdentityAttachKLSparseReg.

Gradients are written with array-module functions on the saved input and output.
"""
from . import attrs as A
from .nn import BN_INPUTS, BN_OUTPUTS, _batchnorm, _bn_shape, _bn_vjp
from .registry import Params, ShapeError, register
from .rules import same_shape


# ---- L2Normalization ----
def _l2_axes(name, p, ndim):
    if p.mode == "instance":
        return tuple(range(1, ndim))
    if ndim < 2 or (p.mode == "spatial" and ndim < 3):
        raise ShapeError(f"{name}: mode={p.mode!r} needs data with at least "
                         f"{2 if p.mode == 'channel' else 3} dimensions, got {ndim}")
    return (1,) if p.mode == "channel" else tuple(range(2, ndim))


def _l2_vjp(p, rc, xs, ys, gys, need):
    x, y, g = xs[0], ys[0], gys[0]
    axes = _l2_axes("L2Normalization", p, x.ndim)
    norm = rc.xp.sqrt((x * x).sum(axis=axes, keepdims=True) + p.eps)
    return ((g - y * (g * y).sum(axis=axes, keepdims=True)) / norm,)


@register("L2Normalization", attrs={"eps": A.Float(1e-10),
                                    "mode": A.Enum("channel", "instance", "spatial",
                                                   default="instance")},
          shape=same_shape("L2Normalization"), vjp=_l2_vjp)
def _l2_normalization(p, rc, x):
    """L2Normalization(data, eps=1e-10, mode='instance'): data divided by
    ``sqrt(sum(data**2) + eps)``, the sum over each sample ('instance'), over axis 1 at each
    position ('channel'), or over the spatial axes of each channel ('spatial').
    """
    axes = _l2_axes("L2Normalization", p, x.ndim)
    return x / rc.xp.sqrt((x * x).sum(axis=axes, keepdims=True) + p.eps)


# ---- LRN ----
def _window_sum(xp, a, n):
    """Sum over a window of n channels (axis 1) centred on each channel, zero-padded."""
    half = n // 2
    c = a.shape[1]
    pad = xp.pad(a, [(0, 0), (half, n - 1 - half)] + [(0, 0)] * (a.ndim - 2))
    csum = xp.cumsum(pad, axis=1)
    zero = xp.zeros_like(csum[:, :1])
    csum = xp.concatenate([zero, csum], axis=1)
    return csum[:, n:n + c] - csum[:, :c]


def _lrn_scale(p, xp, x):
    return p.knorm + (p.alpha / p.nsize) * _window_sum(xp, x * x, p.nsize)


def _lrn_vjp(p, rc, xs, ys, gys, need):
    xp, x, g = rc.xp, xs[0], gys[0]
    s = _lrn_scale(p, xp, x)
    sb = s ** -p.beta
    # d out_c / d x_j = delta_cj s_c^-b - 2 b alpha/n x_c x_j s_c^(-b-1) (j in c's window);
    # the window is symmetric, so summing over c is the same window sum.
    t = g * x * s ** (-p.beta - 1)
    return (g * sb - (2 * p.beta * p.alpha / p.nsize) * x * _window_sum(xp, t, p.nsize),)


def _lrn_shape(p, ins):
    if p.nsize <= 0 or p.nsize % 2 == 0:
        raise ShapeError(f"LRN: nsize must be a positive odd number, got {p.nsize}")
    if ins[0] is not None and len(ins[0]) < 2:
        raise ShapeError(f"LRN: data must have a channel axis (at least 2-D), got "
                         f"{tuple(ins[0])}")
    return same_shape("LRN")(p, ins)


@register("LRN", attrs={"alpha": A.Float(1e-4), "beta": A.Float(0.75), "knorm": A.Float(2.0),
                        "nsize": A.Int()},
          shape=_lrn_shape, vjp=_lrn_vjp)
def _lrn(p, rc, x):
    """LRN(data, nsize, alpha=1e-4, beta=0.75, knorm=2): local response normalisation across
    channels (axis 1): ``x / (knorm + alpha / nsize * sum of x**2 over nsize channels)**beta``.

    Raises:
        ValueError: nsize not a positive odd number.
    """
    return x * _lrn_scale(p, rc.xp, x) ** -p.beta


# ---- SoftmaxActivation ----
def _sa_view(p, shape):
    """The shape SoftmaxActivation works on, softmax along its axis 1."""
    if p.mode == "channel":
        return (shape[0], shape[1], -1)
    return (shape[0], -1)


def _sa_vjp(p, rc, xs, ys, gys, need):
    x = xs[0]
    y, g = ys[0].reshape(_sa_view(p, x.shape)), gys[0].reshape(_sa_view(p, x.shape))
    return ((y * (g - (g * y).sum(axis=1, keepdims=True))).reshape(x.shape),)


@register("SoftmaxActivation", attrs={"mode": A.Enum("channel", "instance", default="instance")},
          shape=same_shape("SoftmaxActivation"), vjp=_sa_vjp)
def _softmax_activation(p, rc, x):
    """SoftmaxActivation(data, mode='instance'): softmax over all but the first axis of each
    sample ('instance') or over axis 1 at each position ('channel')."""
    xp = rc.xp
    v = x.reshape(_sa_view(p, x.shape))
    e = xp.exp(v - v.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).reshape(x.shape)


# ---- BatchNorm_v1 ----
def _v1(p):
    """BatchNorm's params for a BatchNorm_v1 node: channels on axis 1, as the old op has."""
    return Params({**p, "axis": 1})


register("BatchNorm_v1", inputs=BN_INPUTS, **BN_OUTPUTS,
         attrs={"eps": A.Float(1e-3), "momentum": A.Float(0.9), "fix_gamma": A.Bool(True),
                "use_global_stats": A.Bool(False), "output_mean_var": A.Bool(False)},
         shape=lambda p, ins: _bn_shape(_v1(p), ins),
         vjp=lambda p, rc, xs, ys, gys, need: _bn_vjp(_v1(p), rc, xs, ys, gys, need),
         same_dtype=(),
         dtype=lambda p, ins: ([ins[0]] + [d or ins[0] for d in ins[1:]], [ins[0]] * 3),
         doc="BatchNorm_v1(data, gamma, beta, moving_mean, moving_var, eps=1e-3, momentum=0.9, "
             "fix_gamma=True, use_global_stats=False, output_mean_var=False): MXNet's first "
             "batch normalisation, BatchNorm with channels on axis 1.")(
    lambda p, rc, *xs: _batchnorm(_v1(p), rc, *xs))


# ---- IdentityAttachKLSparseReg ----
def _kl_shape(p, ins):
    d = ins[0]
    if d is None:
        return ins, [None, None]
    d = tuple(d)
    if len(d) != 2:
        raise ShapeError(f"IdentityAttachKLSparseReg: data must be 2-D (batch, units), got {d}")
    if ins[1] is not None and tuple(ins[1]) != (d[1],):
        raise ShapeError(f"IdentityAttachKLSparseReg: moving_avg must have shape {(d[1],)}, "
                         f"got {tuple(ins[1])}")
    ins[1] = (d[1],)
    return ins, [d, (d[1],)]


def _kl_vjp(p, rc, xs, ys, gys, need):
    avg, new_avg = xs[1], ys[1]
    # MXNet moves the average of each unit's mean activation in the backward pass
    avg[...] = new_avg
    t = p.sparseness_target
    return gys[0] + p.penalty * (-t / new_avg + (1 - t) / (1 - new_avg)), None


@register("IdentityAttachKLSparseReg", inputs=("data", "moving_avg"), aux=("moving_avg",),
          outputs=2, visible=1,
          attrs={"sparseness_target": A.Float(0.1), "penalty": A.Float(0.001),
                 "momentum": A.Float(0.9)},
          shape=_kl_shape, vjp=_kl_vjp, same_dtype=(),
          dtype=lambda p, ins: ([ins[0], ins[1] or ins[0]], [ins[0], ins[0]]))
def _kl_sparse_reg(p, rc, x, avg):
    """IdentityAttachKLSparseReg(data, moving_avg, sparseness_target=0.1, penalty=0.001,
    momentum=0.9): data itself; its gradient gets the KL sparseness penalty of sigmoid units,
    ``penalty * (-target / avg + (1 - target) / (1 - avg))``, where `avg` (the auxiliary
    state moving_avg) is the moving average of each unit's mean activation, moved (by
    `momentum`) in the backward pass. The moved average is a hidden output, kept for it."""
    return x.copy(), (p.momentum * avg + (1 - p.momentum) * x.mean(axis=0)).astype(x.dtype)
