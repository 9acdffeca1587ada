"""Registry-walk entries of the rotated and deformable region poolings
(`gluonlite.ops.rotated_roi`, `gluonlite.ops.deformable_psroi`): numpy references written as
plain loops over regions, bins and samples, independently of the kernels' array formulations;
tests/ops_math/test_rotated_roi_ops.py holds the operators against MXNet's numbers."""
import math

import numpy as np

from .common import C, Idx

# rotated boxes (batch index, center x, center y, width, height, degrees): one past the
# map's edge, one turned past 90 degrees, one under a cell
_RROIS = Idx([[0, 2.2, 1.9, 3.1, 2.3, 30.0], [0, 4.6, 0.7, 2.6, 4.2, 123.0],
              [0, 1.3, 3.1, 0.6, 1.7, -61.0]])
_ROIS = Idx([[0, 0.6, 1.2, 4.3, 3.6], [0, 2.2, 0.4, 5.6, 4.4]])


def bilinear(img, y, x):
    """MXNet's ROIAlign read: 0 outside [-1, H] x [-1, W], edges clamp."""
    h, w = img.shape
    if y < -1 or y > h or x < -1 or x > w:
        return 0.0
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = int(y), int(x)
    if y0 >= h - 1:
        y0 = y1 = h - 1
        y = float(y0)
    else:
        y1 = y0 + 1
    if x0 >= w - 1:
        x0 = x1 = w - 1
        x = float(x0)
    else:
        x1 = x0 + 1
    ly, lx = y - y0, x - x0
    return ((1 - ly) * (1 - lx) * img[y0, x0] + (1 - ly) * lx * img[y0, x1]
            + ly * (1 - lx) * img[y1, x0] + ly * lx * img[y1, x1])


def rroi_align(x, rois, pooled, scale, ratio=-1):
    ph, pw = pooled
    out = np.zeros((len(rois), x.shape[1], ph, pw))
    for r, (b, cx, cy, w, h, deg) in enumerate(rois):
        cx, cy = cx * scale, cy * scale
        w, h = max(w * scale, 1.0), max(h * scale, 1.0)
        t = deg * math.pi / 180
        gh = ratio if ratio > 0 else math.ceil(h / ph)
        gw = ratio if ratio > 0 else math.ceil(w / pw)
        for i in range(ph):
            for j in range(pw):
                for iy in range(gh):
                    for ix in range(gw):
                        yy = -h / 2 + i * h / ph + (iy + 0.5) * h / ph / gh
                        xx = -w / 2 + j * w / pw + (ix + 0.5) * w / pw / gw
                        px = xx * math.cos(t) + yy * math.sin(t) + cx
                        py = yy * math.cos(t) - xx * math.sin(t) + cy
                        for c in range(x.shape[1]):
                            out[r, c, i, j] += bilinear(x[int(b), c], py, px) / (gh * gw)
    return out


def _psroi_read(img, y, x):
    """Deformable PS-ROI pooling's read: clamped into the map, then bilinear."""
    h, w = img.shape
    y, x = min(max(y, 0.0), h - 1.0), min(max(x, 0.0), w - 1.0)
    y0, x0, y1, x1 = math.floor(y), math.floor(x), math.ceil(y), math.ceil(x)
    dy, dx = y - y0, x - x0
    return ((1 - dx) * (1 - dy) * img[y0, x0] + (1 - dx) * dy * img[y1, x0]
            + dx * (1 - dy) * img[y0, x1] + dx * dy * img[y1, x1])


def _round(v):  # C's round: halves away from zero
    return float(np.sign(v) * np.floor(abs(v) + 0.5))


def deformable_psroi(x, rois, trans, scale, dim, group, k, part=0, spp=1, std=0.0):
    """Returns (output, count), as the operator's outputs."""
    part = part or k
    std = float(np.float32(std))  # MXNet keeps trans_std as a float32 whatever the data
    out, count = np.zeros((len(rois), dim, k, k)), np.zeros((len(rois), dim, k, k))
    classes = 1 if trans is None else trans.shape[1] // 2
    for r, roi in enumerate(rois):
        b = int(roi[0])
        x0, y0 = _round(roi[1]) * scale - 0.5, _round(roi[2]) * scale - 0.5
        x1, y1 = (_round(roi[3]) + 1) * scale - 0.5, (_round(roi[4]) + 1) * scale - 0.5
        w, h = max(x1 - x0, 0.1), max(y1 - y0, 0.1)
        for c in range(dim):
            cls = c // (dim // classes)
            for i in range(k):
                for j in range(k):
                    pi, pj = int(i / k * part), int(j / k * part)
                    dx = 0.0 if trans is None else trans[r, 2 * cls, pi, pj] * std * w
                    dy = 0.0 if trans is None else trans[r, 2 * cls + 1, pi, pj] * std * h
                    gi, gj = min(int(i * group / k), group - 1), min(int(j * group / k), group - 1)
                    img = x[b, (c * group + gi) * group + gj]
                    total, n = 0.0, 0
                    for sy in range(spp):
                        for sx in range(spp):
                            py = y0 + i * h / k + dy + sy * h / k / spp
                            px = x0 + j * w / k + dx + sx * w / k / spp
                            if -0.5 <= py <= img.shape[0] - 0.5 and \
                                    -0.5 <= px <= img.shape[1] - 0.5:
                                total += _psroi_read(img, py, px)
                                n += 1
                    out[r, c, i, j] = total / n if n else 0.0
                    count[r, c, i, j] = n
    return out, count


_DPS = {"spatial_scale": 0.75, "output_dim": 2, "group_size": 2, "pooled_size": 2,
        "sample_per_part": 2, "trans_std": 0.1}

SPECS = {
    "_contrib_RROIAlign": [
        C([(1, 2, 5, 6), _RROIS], {"pooled_size": (2, 3), "spatial_scale": 1.0},
          ref=lambda x, r: rroi_align(x, r, (2, 3), 1.0)),
        C([(2, 1, 6, 4), Idx([[1, 2.0, 3.0, 5.0, 2.5, 200.0], [0, 1.0, 1.0, 3.0, 3.0, -15.0]])],
          {"pooled_size": (1, 2), "spatial_scale": 0.75, "sampling_ratio": 3},
          ref=lambda x, r: rroi_align(x, r, (1, 2), 0.75, 3))],
    "_contrib_DeformablePSROIPooling": [
        C([(1, 8, 5, 6), _ROIS, (2, 2, 2, 2)], _DPS,
          ref=lambda x, r, t: deformable_psroi(x, r, t, 0.75, 2, 2, 2, spp=2, std=0.1)[0]),
        # two classes of offsets, part_size other than pooled_size, spare channels
        C([(1, 9, 6, 5), _ROIS, (2, 4, 2, 2)],
          dict(_DPS, output_dim=2, group_size=2, pooled_size=3, part_size=2, trans_std=0.2),
          ref=lambda x, r, t: deformable_psroi(x, r, t, 0.75, 2, 2, 3, part=2, spp=2,
                                               std=0.2)[0]),
        C([(1, 8, 5, 6), _ROIS], dict(_DPS, no_trans=True, sample_per_part=3),
          ref=lambda x, r: deformable_psroi(x, r, None, 0.75, 2, 2, 2, spp=3)[0])],
}
