"""Registry-walk entries of the detection family (`gluonlite.ops.detection`, `multibox`,
`proposal`, `roi`, `deformable`) and the amp casts: numpy references written as plain loops,
independently of the kernels' array formulations; `tests/ops_math/test_detection_ops.py`
holds the operators against MXNet's numbers."""
import numpy as np

from .common import C, Idx

_BOXES = np.array([[0.1, 0.2, 0.6, 0.7], [0.3, 0.1, 0.9, 0.5], [0.0, 0.0, 1.0, 1.0]])
_NMS_IN = np.array([[[0, 0.9, 0, 0, 2, 2], [0, 0.8, 0.1, 0.1, 2.1, 2.1], [1, 0.7, 0, 0, 2, 2],
                     [0, 0.95, 5, 5, 6, 6], [0, 0.01, 1, 1, 2, 2]]])
# _NMS_IN with valid_thresh=0.05 and force_suppress (class ids, discrete, left out so that
# finite differences see a smooth function): the box of score 0.95, then that of 0.9, which
# suppresses the boxes of 0.8 and 0.7 (IoU > 0.5); 0.01 is below valid_thresh.
_NMS_OUT = np.array([[[0, 0.95, 5, 5, 6, 6], [0, 0.9, 0, 0, 2, 2], [-1] * 6, [-1] * 6,
                      [-1] * 6]])
_ROIS = Idx([[0, 0.5, 1.0, 4.0, 3.5], [0, 2.0, 0.0, 5.5, 4.5]])
_LABEL = Idx([[[1, 0.1, 0.1, 0.5, 0.6], [0, 0.5, 0.4, 0.9, 0.95], [-1, -1, -1, -1, -1]]])


def _iou(a, b):
    out = np.zeros((len(a), len(b)))
    for i, p in enumerate(a):
        for j, q in enumerate(b):
            iw = max(0, min(p[2], q[2]) - max(p[0], q[0]))
            ih = max(0, min(p[3], q[3]) - max(p[1], q[1]))
            u = (p[2] - p[0]) * (p[3] - p[1]) + (q[2] - q[0]) * (q[3] - q[1]) - iw * ih
            out[i, j] = iw * ih / u
    return out


def _matching(s, thresh):
    """Visit every entry from the best score down; match free rows and columns."""
    flat = sorted(range(s.size), key=lambda k: -s.flat[k])  # sorted() is stable
    rows, cols = -np.ones(s.shape[0]), -np.ones(s.shape[1])
    for k in flat:
        r, c = divmod(k, s.shape[1])
        if rows[r] < 0 and cols[c] < 0:
            if s[r, c] <= thresh:
                break
            rows[r], cols[c] = c, r
    return rows, cols


def _prior(x, sizes, ratios):
    """Anchors per location, in float32 as MXNet computes them whatever the data's dtype."""
    f = np.float32
    h, w = x.shape[2:]
    out = []
    for r in range(h):
        for c in range(w):
            cy, cx = (f(r) + f(0.5)) * (f(1) / f(h)), (f(c) + f(0.5)) * (f(1) / f(w))
            for s, q in [(s, ratios[0]) for s in sizes] + [(sizes[0], q) for q in ratios[1:]]:
                s, q = f(s), np.sqrt(f(q))
                bw, bh = s * f(h) / f(w) * q / f(2), s / q / f(2)
                out.append([cx - bw, cy - bh, cx + bw, cy + bh])
    return np.array(out, np.float32)[None]


def _bilinear_v1(img, y, x):
    h, w = img.shape
    if not (0 <= y < h and 0 <= x < w):
        return 0.0
    y0, x0 = int(np.floor(y)), int(np.floor(x))
    y1, x1 = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
    ly, lx = (y - y0 if y0 < h - 1 else 0.0), (x - x0 if x0 < w - 1 else 0.0)
    return ((1 - ly) * (1 - lx) * img[y0, x0] + (1 - ly) * lx * img[y0, x1]
            + ly * (1 - lx) * img[y1, x0] + ly * lx * img[y1, x1])


def _deformable(x, off, w, b, pad=1):
    """DCN v1, stride 1, one group: each output tap read at its offset position."""
    n, c, h, wd = x.shape
    f, _, kh, kw = w.shape
    out = np.zeros((n, f, h, wd))
    for i in range(n):
        for y in range(h):
            for z in range(wd):
                for u in range(kh):
                    for v in range(kw):
                        k = u * kw + v
                        py = y - pad + u + off[i, 2 * k, y, z]
                        px = z - pad + v + off[i, 2 * k + 1, y, z]
                        for ch in range(c):
                            out[i, :, y, z] += w[:, ch, u, v] * _bilinear_v1(x[i, ch], py, px)
    return out + b[None, :, None, None]


def _round(v):  # C's round: halves away from zero (np.round rounds them to even)
    return float(np.sign(v) * np.floor(abs(v) + 0.5))


def _psroi(x, rois, scale, od, k):
    out = np.zeros((len(rois), od, k, k))
    for r, roi in enumerate(rois):
        b = int(roi[0])
        x0, y0 = _round(roi[1]) * scale, _round(roi[2]) * scale
        x1, y1 = (_round(roi[3]) + 1) * scale, (_round(roi[4]) + 1) * scale
        bh, bw = max(y1 - y0, 0.1) / k, max(x1 - x0, 0.1) / k
        for c in range(od):
            for i in range(k):
                for j in range(k):
                    hs = min(max(int(np.floor(i * bh + y0)), 0), x.shape[2])
                    he = min(max(int(np.ceil((i + 1) * bh + y0)), 0), x.shape[2])
                    ws = min(max(int(np.floor(j * bw + x0)), 0), x.shape[3])
                    we = min(max(int(np.ceil((j + 1) * bw + x0)), 0), x.shape[3])
                    if he > hs and we > ws:
                        out[r, c, i, j] = x[b, (c * k + i) * k + j, hs:he, ws:we].mean()
    return out


SPECS = {
    "_contrib_box_iou": C([_BOXES, _BOXES[1:]], ref=_iou),
    "_contrib_box_nms": C([_NMS_IN], {"valid_thresh": 0.05, "id_index": 0,
                                      "force_suppress": True}, ref=lambda d: _NMS_OUT),
    "_contrib_box_encode": C([Idx([[1.0, 0.0, 1.0]]), Idx([[2.0, 0.0, 1.0]]), _BOXES[None],
                              _BOXES[None, ::-1] * 0.9 + 0.05, Idx([0, 0, 0, 0.0]),
                              Idx([0.1, 0.1, 0.2, 0.2])]),
    "_contrib_box_decode": C([(2, 3, 4), _BOXES[None]], {"format": "corner", "clip": 0.5}),
    "_contrib_bipartite_matching": C(
        [Idx([[0.5, 0.6, 0.1], [0.2, 0.6, 0.3], [0.3, 0.4, 0.7], [0.05, 0.9, 0.2]])],
        {"threshold": 0.25}, ref=lambda s: _matching(s, 0.25)),
    "_contrib_MultiBoxPrior": C([(1, 2, 3, 4)], {"sizes": (0.3, 0.6), "ratios": (1, 2)},
                                ref=lambda x: _prior(x, (0.3, 0.6), (1, 2))),
    "_contrib_MultiBoxTarget": C([_BOXES[None], _LABEL, (1, 3, 3)],
                                 {"negative_mining_ratio": 1, "negative_mining_thresh": 0.9}),
    "_contrib_MultiBoxDetection": C([Idx([[[0.1, 0.5, 0.2], [0.7, 0.2, 0.3], [0.2, 0.3, 0.5]]]),
                                     (1, 12), _BOXES[None]], {"threshold": 0.25}),
    "_contrib_Proposal": C([(1, 6, 3, 3), (1, 12, 3, 3), Idx([[40, 45, 1.0]])],
                           {"scales": (2, 4, 8), "ratios": (1,), "rpn_post_nms_top_n": 5,
                            "rpn_min_size": 4}),
    "_contrib_MultiProposal": C([(2, 4, 3, 3), (2, 8, 3, 3), Idx([[40, 45, 1.0], [30, 47, 2]])],
                                {"scales": (2, 4), "ratios": (1,), "rpn_post_nms_top_n": 4,
                                 "output_score": True, "threshold": 0.5}),
    "_contrib_ROIAlign": [
        C([(1, 2, 5, 6), _ROIS], {"pooled_size": (2, 2), "spatial_scale": 1.0}),
        C([(1, 4, 5, 6), _ROIS], {"pooled_size": (2, 1), "spatial_scale": 0.5,
                                  "position_sensitive": True, "sample_ratio": 2})],
    # spatial_scale 0.75 is exact in float32: bin edges fall alike in float32 and float64
    "_contrib_PSROIPooling": C([(1, 8, 5, 6), _ROIS], {"spatial_scale": 0.75, "output_dim": 2,
                                                       "pooled_size": 2},
                               ref=lambda x, r: _psroi(x, r, 0.75, 2, 2)),
    "_contrib_DeformableConvolution": C(
        [(1, 2, 4, 3), Idx(np.random.RandomState(3).uniform(-1.7, 1.7, (1, 18, 4, 3))),
         (3, 2, 3, 3), (3,)], {"kernel": (3, 3), "pad": (1, 1), "num_filter": 3},
        ref=lambda x, o, w, b: _deformable(x, o, w, b)),
    "_contrib_ModulatedDeformableConvolution": C(
        [(1, 2, 4, 3), Idx(np.random.RandomState(4).uniform(-1.7, 1.7, (1, 36, 4, 3))),
         (1, 18, 4, 3), (4, 1, 3, 3), (4,)],
        {"kernel": (3, 3), "pad": (1, 1), "num_filter": 4, "num_group": 2,
         "num_deformable_group": 2}),
    "amp_cast": C([(2, 3)], {"dtype": "float32"}, ref=lambda x: x),
    "amp_multicast": C([(2, 3), (3,)], {"num_outputs": 2}, ref=lambda a, b: [a, b]),
}
