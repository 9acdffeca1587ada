"""Normalisations of MXNet's older layer API: L2Normalization, LRN, SoftmaxActivation.

Gradients are written with array-module functions on the saved input and output.
"""
from . import attrs as A
from .registry import ShapeError, register
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

    Example: ``nd.L2Normalization(nd.array([[3., 4.]]))`` -> ``[[0.6, 0.8]]``.
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
