"""Registry-walk entries of the vision sampling operators (`gluonlite.ops.vision_ops`):
numpy references written as loops; `tests/ops_math/test_contrib_ops.py` holds the operators
against MXNet's numbers."""
import numpy as np

from .common import C, Idx

_GRID = Idx(np.array([[[[-0.83, 0.12, 0.71], [0.37, -0.41, 0.93]],
                       [[0.21, -0.66, 0.48], [-0.92, 0.55, 0.07]]]]))
_LOC = Idx([[0.9, 0.1, 0.05, -0.1, 1.1, -0.05]])
_ROIS = Idx([[0, 0.5, 1.0, 4.0, 3.5], [0, 2.0, 0.0, 5.5, 4.5]])


def _affine_grid(theta, h, w):
    out = np.zeros((theta.shape[0], 2, h, w))
    for n, t in enumerate(theta.reshape(-1, 2, 3)):
        for i in range(h):
            for j in range(w):
                x, y = -1 + 2 * j / (w - 1), -1 + 2 * i / (h - 1)
                out[n, :, i, j] = t @ [x, y, 1]
    return out


def _sample(data, grid):
    n, c, h, w = data.shape
    out = np.zeros((n, c) + grid.shape[2:])
    for b in range(n):
        for i in range(grid.shape[2]):
            for j in range(grid.shape[3]):
                x = (grid[b, 0, i, j] + 1) * (w - 1) / 2
                y = (grid[b, 1, i, j] + 1) * (h - 1) / 2
                x0, y0 = int(np.floor(x)), int(np.floor(y))
                for yy in (y0, y0 + 1):
                    for xx in (x0, x0 + 1):
                        if 0 <= yy < h and 0 <= xx < w:
                            wgt = (1 - abs(x - xx)) * (1 - abs(y - yy))
                            out[b, :, i, j] += wgt * data[b, :, yy, xx]
    return out


def _khatri_rao(*ms):
    return np.stack([np.kron(*[m[:, j] for m in ms]) if len(ms) == 2 else
                     np.kron(np.kron(ms[0][:, j], ms[1][:, j]), ms[2][:, j])
                     for j in range(ms[0].shape[1])], 1)


def _corr(a, b, k, md, s1, s2, pad, mult):
    a = np.pad(a, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    b = np.pad(b, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, c, h, w = a.shape
    border = md + (k - 1) // 2
    th, tw = -(-(h - 2 * border) // s1), -(-(w - 2 * border) // s1)
    r = md // s2
    out = np.zeros((n, (2 * r + 1) ** 2, th, tw))
    for i in range(th):
        for j in range(tw):
            y1, x1 = i * s1 + md, j * s1 + md
            for p in range(-r, r + 1):
                for o in range(-r, r + 1):
                    pa = a[:, :, y1:y1 + k, x1:x1 + k]
                    pb = b[:, :, y1 + p * s2:y1 + p * s2 + k, x1 + o * s2:x1 + o * s2 + k]
                    v = pa * pb if mult else np.abs(pa - pb)
                    out[:, (p + r) * (2 * r + 1) + o + r, i, j] = v.sum((1, 2, 3)) / (k * k * c)
    return out


SPECS = {
    "GridGenerator": [
        C([(2, 6)], {"transform_type": "affine", "target_shape": (3, 4)},
          ref=lambda t: _affine_grid(t, 3, 4)),
        C([(1, 2, 3, 4)], {"transform_type": "warp"},
          ref=lambda f: (f + np.stack(np.meshgrid(np.arange(4.0), np.arange(3.0))))
          / np.array([1.5, 1.0])[:, None, None] - 1)],
    "BilinearSampler": C([(1, 2, 4, 5), _GRID], ref=_sample),
    "SpatialTransformer": C([(1, 2, 4, 5), _LOC], {"target_shape": (3, 3),
                                                   "transform_type": "affine",
                                                   "sampler_type": "bilinear"},
                            ref=lambda d, t: _sample(d, _affine_grid(t, 3, 3))),
    "ROIPooling": C([(1, 2, 5, 6), _ROIS], {"pooled_size": (2, 2), "spatial_scale": 1.0}),
    "Correlation": [
        C([(1, 2, 5, 5), (1, 2, 5, 5)], {"pad_size": 1},
          ref=lambda a, b: _corr(a, b, 1, 1, 1, 1, 1, True)),
        C([(1, 2, 6, 6), (1, 2, 6, 6)], {"kernel_size": 3, "max_displacement": 2,
                                         "stride2": 2, "pad_size": 2, "is_multiply": False},
          ref=lambda a, b: _corr(a, b, 3, 2, 1, 2, 2, False))],
    "khatri_rao": [C([(2, 3), (4, 3)], ref=_khatri_rao),
                   C([(2, 2), (1, 2), (3, 2)], ref=_khatri_rao)],
}
