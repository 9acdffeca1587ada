"""The detection operator cases of benchmarks/detection_ops.py, shared by its gluonlite side
and its MXNet worker (mxnet_detection_rows.py): numpy and the standard library only, so the
same inputs are made under either interpreter.

Shapes follow GluonCV 0.10's models at their defaults on a 512 x 512 image (VOC, 20 classes):
Faster R-CNN (ResNet-50, C4 features at stride 16) suppresses its region proposals and its
per-class detections and pools regions with ROIAlign; SSD-512 and YOLOv3 suppress their
per-class detections (nms_topk 400); SSD's target generator matches anchors to objects.

Example:
    >>> from _detection_cases import CASES, inputs               # doctest: +SKIP
    >>> name, path, attrs, grads = CASES[0]; arrays = inputs(name)  # doctest: +SKIP
"""
import zlib

import numpy as np

__all__ = ["CASES", "inputs"]


def _rpn_rows(r, n, img=512):
    """(n, 5) rows (score, x1, y1, x2, y2): region proposals clustered around a few objects
    (proposals overlap heavily, as a trained RPN's do)."""
    centers = r.uniform(40, img - 40, (12, 2))
    pick = r.randint(0, 12, n)
    c = centers[pick] + r.normal(0, 30, (n, 2))
    wh = np.exp(r.uniform(np.log(16), np.log(300), (n, 2)))
    box = np.concatenate([c - wh / 2, c + wh / 2], 1).clip(0, img - 1)
    return np.concatenate([r.uniform(0, 1, (n, 1)), box], 1)


def _class_rows(r, classes, per_class, img=512, keep=0.05):
    """(classes * per_class, 6) rows (class, score, box): per-class copies of the same boxes
    with softmax-like scores, most below GluonCV's valid_thresh of 0.01."""
    box = _rpn_rows(r, per_class, img)[:, 1:]
    rows = []
    for c in range(classes):
        score = np.where(r.uniform(size=per_class) < keep, r.uniform(0.01, 1, per_class),
                         r.uniform(0, 0.01, per_class))
        rows.append(np.concatenate([np.full((per_class, 1), float(c)), score[:, None], box], 1))
    return np.concatenate(rows)


def _anchors(r, n):
    a = r.uniform(0, 0.9, (n, 2))
    return np.concatenate([a, a + r.uniform(0.02, 0.4, (n, 2))], 1).clip(0, 1)


def inputs(name):
    """The float32 numpy inputs of case `name` (fixed seed)."""
    r = np.random.RandomState(zlib.crc32(name.encode()))
    f = np.float32
    if name == "box_nms rpn":
        return [_rpn_rows(r, 12288)[None].astype(f)]
    if name == "box_nms faster-rcnn":
        return [_class_rows(r, 20, 300)[None].astype(f)]
    if name == "box_nms ssd-512":
        return [_class_rows(r, 20, 24564, keep=0.002)[None].astype(f)]
    if name == "box_nms yolov3":
        return [_class_rows(r, 20, 10647, keep=0.004)[None].astype(f)]
    if name == "ROIAlign faster-rcnn":
        feat = r.normal(size=(1, 1024, 32, 32)).astype(f)
        rows = _rpn_rows(r, 300)
        return [feat, np.concatenate([np.zeros((300, 1)), rows[:, 1:]], 1).astype(f)]
    if name == "ROIPooling faster-rcnn":
        feat = r.normal(size=(1, 1024, 32, 32)).astype(f)
        rows = _rpn_rows(r, 300)
        return [feat, np.concatenate([np.zeros((300, 1)), rows[:, 1:]], 1).astype(f)]
    if name == "PSROIPooling r-fcn":
        feat = r.normal(size=(1, 21 * 49, 32, 32)).astype(f)
        rows = _rpn_rows(r, 300)
        return [feat, np.concatenate([np.zeros((300, 1)), rows[:, 1:]], 1).astype(f)]
    if name == "box_iou ssd-target":
        return [_anchors(r, 24564).astype(f), _anchors(r, 8 * 20).reshape(8, 20, 4).astype(f)]
    if name == "bipartite_matching ssd-target":
        return [r.uniform(0, 1, (8, 24564, 20)).astype(f) ** 4]
    if name == "box_decode ssd":
        return [r.normal(0, 1, (8, 24564, 4)).astype(f), _anchors(r, 24564)[None].astype(f)]
    if name == "MultiBoxPrior ssd":
        return [np.zeros((1, 512, 32, 32), f)]
    if name == "MultiBoxDetection ssd":
        logits = r.normal(0, 2, (1, 21, 24564))
        prob = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
        return [prob.astype(f), r.normal(0, 1, (1, 24564 * 4)).astype(f),
                _anchors(r, 24564)[None].astype(f)]
    if name == "MultiBoxTarget ssd":
        a = _anchors(r, 5444)[None]
        lab = -np.ones((8, 6, 5))
        for b in range(8):
            m = 1 + b % 5
            lab[b, :m, 0] = r.randint(0, 20, m)
            lab[b, :m, 1:] = _anchors(r, m)
        return [a.astype(f), lab.astype(f), r.normal(0, 1, (8, 21, 5444)).astype(f)]
    if name == "MultiProposal":
        prob = 1 / (1 + np.exp(-r.normal(0, 1, (2, 30, 32, 32))))
        return [prob.astype(f), r.normal(0, 0.2, (2, 60, 32, 32)).astype(f),
                np.array([[512, 512, 1.0]] * 2, f)]
    if name.startswith("DeformableConvolution"):
        x = r.normal(size=(1, 64, 64, 64)).astype(f)
        off = r.uniform(-2, 2, (1, 18, 64, 64)).astype(f)
        w = (r.normal(size=(64, 64, 3, 3)) * 0.05).astype(f)
        return [x, off, w, np.zeros(64, f)]
    raise KeyError(f"no detection case {name!r}")


# (name, function path under nd, attributes, indices of inputs that take a gradient: a
# non-empty list times forward + backward)
CASES = [
    ("box_nms rpn", "contrib.box_nms",
     dict(overlap_thresh=0.7, topk=6000, coord_start=1, score_index=0, id_index=-1,
          force_suppress=True), []),
    ("box_nms faster-rcnn", "contrib.box_nms",
     dict(overlap_thresh=0.3, topk=400, valid_thresh=0.01, id_index=0, score_index=1,
          coord_start=2), []),
    ("box_nms ssd-512", "contrib.box_nms",
     dict(overlap_thresh=0.45, topk=400, valid_thresh=0.01, id_index=0, score_index=1,
          coord_start=2), []),
    ("box_nms yolov3", "contrib.box_nms",
     dict(overlap_thresh=0.45, topk=400, valid_thresh=0.01, id_index=0, score_index=1,
          coord_start=2), []),
    ("ROIAlign faster-rcnn", "contrib.ROIAlign",
     dict(pooled_size=(14, 14), spatial_scale=1 / 16., sample_ratio=2), []),
    ("ROIAlign faster-rcnn", "contrib.ROIAlign",
     dict(pooled_size=(14, 14), spatial_scale=1 / 16., sample_ratio=2), [0]),
    ("ROIPooling faster-rcnn", "ROIPooling", dict(pooled_size=(14, 14), spatial_scale=1 / 16.),
     []),
    ("ROIPooling faster-rcnn", "ROIPooling", dict(pooled_size=(14, 14), spatial_scale=1 / 16.),
     [0]),
    ("PSROIPooling r-fcn", "contrib.PSROIPooling",
     dict(spatial_scale=1 / 16., output_dim=21, pooled_size=7), []),
    ("box_iou ssd-target", "contrib.box_iou", {}, []),
    ("bipartite_matching ssd-target", "contrib.bipartite_matching",
     dict(threshold=1e-12, is_ascend=False), []),
    ("box_decode ssd", "contrib.box_decode",
     dict(std0=0.1, std1=0.1, std2=0.2, std3=0.2, format="corner"), []),
    ("MultiBoxPrior ssd", "contrib.MultiBoxPrior", dict(sizes=(0.1, 0.141), ratios=(1, 2, 0.5)),
     []),
    ("MultiBoxDetection ssd", "contrib.MultiBoxDetection", dict(nms_topk=400), []),
    ("MultiBoxTarget ssd", "contrib.MultiBoxTarget", dict(negative_mining_ratio=3), []),
    ("MultiProposal", "contrib.MultiProposal",
     dict(rpn_pre_nms_top_n=6000, rpn_post_nms_top_n=300, scales=(2, 4, 8, 16, 32),
          ratios=(0.5, 1, 2)), []),
    ("DeformableConvolution 64ch 64x64", "contrib.DeformableConvolution",
     dict(kernel=(3, 3), pad=(1, 1), num_filter=64), []),
    ("DeformableConvolution 64ch 64x64", "contrib.DeformableConvolution",
     dict(kernel=(3, 3), pad=(1, 1), num_filter=64), [0, 1, 2, 3]),
]
