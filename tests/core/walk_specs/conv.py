"""Walk entries of the convolution family (Convolution, Deconvolution, Pooling, im2col,
col2im), the per-sample norms (InstanceNorm, GroupNorm), Pad, UpSampling and softmin. The
references are direct loops over output positions, written apart from the kernels."""
import itertools

import numpy as np

from .common import C, Pos


def _pad(x, pad, value=0.0):
    return np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad], constant_values=value)


def _conv_ref(x, w, b=None, stride=None, pad=None, dilate=None, groups=1):
    nd = x.ndim - 2
    stride, pad, dilate = stride or (1,) * nd, pad or (0,) * nd, dilate or (1,) * nd
    xp = _pad(x, pad)
    k = w.shape[2:]
    out = [(xp.shape[2 + i] - dilate[i] * (k[i] - 1) - 1) // stride[i] + 1 for i in range(nd)]
    f, cg = w.shape[0], w.shape[1]
    y = np.zeros((x.shape[0], f) + tuple(out))
    for o in itertools.product(*map(range, out)):
        for j in range(f):
            grp = j // (f // groups)
            win = xp[(slice(None), slice(grp * cg, (grp + 1) * cg)) + tuple(
                slice(o[i] * stride[i], o[i] * stride[i] + dilate[i] * (k[i] - 1) + 1,
                      dilate[i]) for i in range(nd))]
            y[(slice(None), j) + o] = (win * w[j]).reshape(x.shape[0], -1).sum(1)
    if b is not None:
        y += b.reshape((1, -1) + (1,) * nd)
    return y


def _deconv_ref(x, w, b=None, stride=None, pad=None, adj=None, groups=1):
    nd = x.ndim - 2
    stride, pad, adj = stride or (1,) * nd, pad or (0,) * nd, adj or (0,) * nd
    k = w.shape[2:]
    cin, fg = w.shape[0], w.shape[1]
    full = [(x.shape[2 + i] - 1) * stride[i] + k[i] + adj[i] for i in range(nd)]
    y = np.zeros((x.shape[0], fg * groups) + tuple(full))
    for pos in itertools.product(*map(range, x.shape[2:])):
        for c in range(cin):
            grp = c // (cin // groups)
            sl = tuple(slice(pos[i] * stride[i], pos[i] * stride[i] + k[i]) for i in range(nd))
            y[(slice(None), slice(grp * fg, (grp + 1) * fg)) + sl] += \
                x[(slice(None), c) + pos][:, None, ...].reshape(
                    (-1, 1) + (1,) * nd) * w[c][None]
    crop = tuple(slice(pad[i], full[i] - pad[i]) for i in range(nd))
    y = y[(slice(None), slice(None)) + crop]
    if b is not None:
        y += b.reshape((1, -1) + (1,) * nd)
    return y


def _pool_ref(x, kernel, stride, pad, kind, include_pad=True, p=2):
    nd = x.ndim - 2
    out = [(x.shape[2 + i] + 2 * pad[i] - kernel[i]) // stride[i] + 1 for i in range(nd)]
    xp = _pad(x, pad, -np.inf if kind == "max" else 0.0)
    ones = _pad(np.ones(x.shape), pad)
    y = np.zeros(x.shape[:2] + tuple(out))
    for o in itertools.product(*map(range, out)):
        sl = (slice(None), slice(None)) + tuple(
            slice(o[i] * stride[i], o[i] * stride[i] + kernel[i]) for i in range(nd))
        win = xp[sl].reshape(x.shape[:2] + (-1,))
        if kind == "max":
            v = win.max(-1)
        elif kind == "sum":
            v = win.sum(-1)
        elif kind == "lp":
            v = (win ** p).sum(-1) ** (1 / p)
        else:
            n = np.prod(kernel) if include_pad else ones[sl].reshape(x.shape[:2] + (-1,)).sum(-1)
            v = win.sum(-1) / n
        y[(slice(None), slice(None)) + o] = v
    return y


def _inorm_ref(x, g, b, eps=1e-3):
    ax = tuple(range(2, x.ndim))
    m, v = x.mean(ax, keepdims=True), x.var(ax, keepdims=True)
    s = (1, -1) + (1,) * (x.ndim - 2)
    return (x - m) / np.sqrt(v + eps) * g.reshape(s) + b.reshape(s)


def _gnorm_ref(x, g, b, groups, eps=1e-5):
    xg = x.reshape(x.shape[0], groups, -1)
    y = (xg - xg.mean(-1, keepdims=True)) / np.sqrt(xg.var(-1, keepdims=True) + eps)
    return (y * g.reshape(1, -1, 1) + b.reshape(1, -1, 1)).reshape(x.shape)


def _softmin_ref(x, axis=-1):
    e = np.exp(-x - (-x).max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _im2col_ref(x, kernel, stride, pad):
    nd = x.ndim - 2
    xp = _pad(x, pad)
    out = [(xp.shape[2 + i] - kernel[i]) // stride[i] + 1 for i in range(nd)]
    cols = []
    for o in itertools.product(*map(range, out)):
        sl = (slice(None), slice(None)) + tuple(
            slice(o[i] * stride[i], o[i] * stride[i] + kernel[i]) for i in range(nd))
        cols.append(xp[sl].reshape(x.shape[0], -1))
    return np.stack(cols, axis=-1)


_X4 = (2, 3, 5, 4)

SPECS = {
    "Convolution": [
        C([_X4, (4, 3, 3, 2), (4,)], {"kernel": (3, 2), "num_filter": 4},
          ref=_conv_ref, more=[[(1, 3, 3, 3), (4, 3, 3, 2), (4,)]]),
        C([(2, 4, 6, 5), (4, 2, 3, 3)], {"kernel": (3, 3), "num_filter": 4, "num_group": 2,
                                          "stride": (2, 1), "pad": (1, 1), "dilate": (1, 2),
                                          "no_bias": True},
          ref=lambda x, w: _conv_ref(x, w, stride=(2, 1), pad=(1, 1), dilate=(1, 2), groups=2)),
        C([(2, 2, 7), (3, 2, 3), (3,)], {"kernel": (3,), "num_filter": 3, "stride": (2,),
                                          "pad": (1,)},
          ref=lambda x, w, b: _conv_ref(x, w, b, stride=(2,), pad=(1,))),
        C([(1, 2, 3, 4, 3), (2, 2, 2, 2, 2), (2,)], {"kernel": (2, 2, 2), "num_filter": 2},
          ref=_conv_ref),
        C([(2, 5, 4, 3), (4, 3, 2, 3), (4,)], {"kernel": (3, 2), "num_filter": 4,
                                               "layout": "NHWC"},
          ref=lambda x, w, b: _conv_ref(x.transpose(0, 3, 1, 2), w.transpose(0, 3, 1, 2),
                                        b).transpose(0, 2, 3, 1)),
    ],
    "Deconvolution": [
        C([(2, 3, 3, 2), (3, 2, 3, 3), (2,)], {"kernel": (3, 3), "num_filter": 2,
                                               "stride": (2, 2), "pad": (1, 1), "adj": (1, 0),
                                               "no_bias": False},
          ref=lambda x, w, b: _deconv_ref(x, w, b, stride=(2, 2), pad=(1, 1), adj=(1, 0))),
        C([(2, 4, 3), (4, 1, 2)], {"kernel": (2,), "num_filter": 2, "num_group": 2},
          ref=lambda x, w: _deconv_ref(x, w, groups=2)),
        C([(1, 2, 2, 2, 3), (2, 2, 2, 2, 2)], {"kernel": (2, 2, 2), "num_filter": 2,
                                               "stride": (2, 1, 1)},
          ref=lambda x, w: _deconv_ref(x, w, stride=(2, 1, 1))),
    ],
    "Pooling": [
        C([_X4], {"kernel": (2, 2), "stride": (2, 1), "pad": (1, 0)},
          ref=lambda x: _pool_ref(x, (2, 2), (2, 1), (1, 0), "max")),
        C([_X4], {"kernel": (3, 2), "pool_type": "avg", "pad": (1, 1)},
          ref=lambda x: _pool_ref(x, (3, 2), (1, 1), (1, 1), "avg")),
        C([_X4], {"kernel": (3, 2), "pool_type": "avg", "pad": (1, 1),
                  "count_include_pad": False},
          ref=lambda x: _pool_ref(x, (3, 2), (1, 1), (1, 1), "avg", include_pad=False)),
        C([(2, 3, 7)], {"kernel": (3,), "pool_type": "sum", "stride": (2,)},
          ref=lambda x: _pool_ref(x, (3,), (2,), (0,), "sum")),
        C([Pos(2, 2, 4, 4)], {"kernel": (2, 2), "pool_type": "lp", "p_value": 2},
          ref=lambda x: _pool_ref(x, (2, 2), (1, 1), (0, 0), "lp")),
        C([(2, 2, 3, 2, 3)], {"kernel": (1, 1, 1), "global_pool": True, "pool_type": "avg"},
          ref=lambda x: x.mean(axis=(2, 3, 4), keepdims=True)),
        C([_X4], {"kernel": (1, 1), "global_pool": True},
          ref=lambda x: x.max(axis=(2, 3), keepdims=True)),
        C([(2, 3, 5)], {"kernel": (1,), "global_pool": True, "pool_type": "sum"},
          ref=lambda x: x.sum(axis=2, keepdims=True)),
        C([Pos(2, 2, 3, 4)], {"kernel": (1, 1), "global_pool": True, "pool_type": "lp",
                              "p_value": 2},
          ref=lambda x: np.sqrt((x ** 2).sum(axis=(2, 3), keepdims=True))),
        C([(2, 4, 3, 2)], {"kernel": (1, 1), "global_pool": True, "layout": "NHWC"},
          ref=lambda x: x.max(axis=(1, 2), keepdims=True)),
    ],
    "im2col": C([(2, 2, 4, 5)], {"kernel": (2, 3), "stride": (1, 2), "pad": (1, 0)},
                ref=lambda x: _im2col_ref(x, (2, 3), (1, 2), (1, 0))),
    "col2im": C([(2, 12, 10)], {"kernel": (2, 3), "stride": (1, 2), "pad": (1, 0),
                                "output_size": (4, 5)}),
    "InstanceNorm": C([(2, 3, 4, 2), (3,), (3,)], ref=_inorm_ref, more=[[(2, 2, 5), (2,), (2,)]]),
    "GroupNorm": C([(2, 4, 3, 2), (2,), (2,)], {"num_groups": 2},
                   ref=lambda x, g, b: _gnorm_ref(x, g, b, 2)),
    "softmin": C([(3, 4)], {"axis": 0}, ref=lambda x: _softmin_ref(x, 0)),
    "Pad": [C([_X4], {"mode": "constant", "pad_width": (0, 0, 0, 0, 1, 2, 0, 1),
                      "constant_value": 0.5},
              ref=lambda x: np.pad(x, [(0, 0), (0, 0), (1, 2), (0, 1)], constant_values=0.5)),
            C([_X4], {"mode": "edge", "pad_width": (0, 0, 0, 0, 2, 1, 1, 3)},
              ref=lambda x: np.pad(x, [(0, 0), (0, 0), (2, 1), (1, 3)], mode="edge")),
            C([(1, 2, 3, 4, 3)], {"mode": "reflect", "pad_width": (0, 0, 0, 0, 2, 1, 1, 3, 1, 1)},
              ref=lambda x: np.pad(x, [(0, 0), (0, 0), (2, 1), (1, 3), (1, 1)],
                                   mode="reflect"))],
    "UpSampling": [
        C([(2, 3, 2, 3)], {"scale": 2, "sample_type": "nearest"},
          ref=lambda x: x.repeat(2, 2).repeat(2, 3)),
        C([(1, 2, 2, 2), (1, 1, 4, 4)], {"scale": 2, "sample_type": "nearest"},
          ref=lambda a, b: np.concatenate([a.repeat(2, 2).repeat(2, 3), b], 1)),
        C([(1, 2, 2, 3), (2, 1, 4, 4)], {"scale": 2, "sample_type": "bilinear",
                                         "num_filter": 2},
          ref=lambda x, w: _deconv_ref(x, w, stride=(2, 2), pad=(1, 1), groups=2)),
    ],
}
