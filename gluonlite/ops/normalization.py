"""Per-sample normalization operators: InstanceNorm and GroupNorm, from one table.

Both normalize groups of entries of each sample (an instance: one channel's spatial entries;
a group: num_groups channels' entries together), then scale and shift. One row of `_NORMS`
says how an operator groups its data and which axis its gamma and beta follow.
"""

from . import attrs as A
from .registry import register, ShapeError


def _groups(name, p, shape):
    """(number of groups per sample, the shape gamma and beta must have)."""
    if len(shape) < 3 and name == "InstanceNorm":
        raise ShapeError(f"InstanceNorm: data must have at least 3 dimensions (batch, channel, "
                         f"spatial...), got {tuple(shape)}")
    if len(shape) < 2:
        raise ShapeError(f"{name}: data must have at least 2 dimensions, got {tuple(shape)}")
    c = shape[1]
    if name == "InstanceNorm":
        return c, (c,)
    if p.num_groups <= 0 or c % p.num_groups:
        raise ShapeError(f"GroupNorm: num_groups={p.num_groups} must divide the channels of data "
                         f"{tuple(shape)} ({c})")
    return p.num_groups, (p.num_groups,)


def _norm_shape(name):
    def rule(p, ins):
        d = ins[0]
        if d is None:
            return ins, [None, None, None]
        groups, c = _groups(name, p, d)
        for i, what in ((1, "gamma"), (2, "beta")):
            if ins[i] is not None and tuple(ins[i]) != c:
                raise ShapeError(f"{name}: {what} must have shape {c} for data {tuple(d)}, "
                                 f"got {tuple(ins[i])}")
            ins[i] = c
        return ins, [tuple(d), (d[0], groups), (d[0], groups)]
    return rule


def _grouped(x, groups):
    """x as (N, groups, entries per group)."""
    return x.reshape(x.shape[0], groups, -1)


def _norm_fwd(name):
    def kernel(p, rc, x, gamma, beta):
        groups, _ = _groups(name, p, x.shape)
        xg = _grouped(x, groups)
        mean = xg.mean(axis=2, keepdims=True)
        var = xg.var(axis=2, keepdims=True)
        std = rc.xp.sqrt(var + p.eps)
        xhat = (xg - mean) / std
        y = xhat * gamma.reshape(1, groups, 1) + beta.reshape(1, groups, 1)
        return (y.reshape(x.shape).astype(x.dtype, copy=False),
                mean.reshape(x.shape[0], groups).astype(x.dtype),
                std.reshape(x.shape[0], groups).astype(x.dtype))
    return kernel


def _norm_vjp(name):
    def vjp(p, rc, xs, ys, gys, need):
        x, gamma = xs[0], xs[1]
        groups, _ = _groups(name, p, x.shape)
        mean = ys[1].reshape(x.shape[0], groups, 1)
        std = ys[2].reshape(x.shape[0], groups, 1)
        xhat = (_grouped(x, groups) - mean) / std
        g = _grouped(gys[0], groups)
        ghat = g * gamma.reshape(1, groups, 1)
        dx = (ghat - ghat.mean(axis=2, keepdims=True)
              - xhat * (ghat * xhat).mean(axis=2, keepdims=True)) / std
        return (dx.reshape(x.shape).astype(x.dtype, copy=False),
                (g * xhat).sum(axis=(0, 2)).astype(gamma.dtype, copy=False),
                g.sum(axis=(0, 2)).astype(xs[2].dtype, copy=False))
    return vjp


# name, attributes, default eps, doc
_NORMS = [
    ("InstanceNorm", {"eps": A.Float(1e-3)},
     """InstanceNorm(data, gamma, beta, eps=1e-3): each sample's channel normalized over its
    spatial entries, ``(x - mean) / sqrt(var + eps) * gamma[c] + beta[c]`` (biased variance;
    gamma and beta of shape (C,))."""),
    ("GroupNorm", {"num_groups": A.Int(1), "eps": A.Float(1e-5),
                   "output_mean_var": A.Bool(False)},
     """GroupNorm(data, gamma, beta, num_groups=1, eps=1e-5, output_mean_var=False): the
    channels of each sample split into num_groups groups, each normalized over all its
    entries, then ``* gamma[group] + beta[group]`` (MXNet 1.x keeps one gamma and beta per
    group: shape (num_groups,))."""),
]

for _name, _attrs, _doc in _NORMS:
    _k = _norm_fwd(_name)
    _k.__doc__ = _doc
    register(_name, inputs=("data", "gamma", "beta"), outputs=3,
             visible=(lambda p: 3 if p.get("output_mean_var") else 1),
             attrs=_attrs, shape=_norm_shape(_name), vjp=_norm_vjp(_name),
             dtype=lambda p, ins: ([ins[0]] + [d or ins[0] for d in ins[1:]],
                                   [ins[0]] * 3))(_k)

