"""The SSD operators of MXNet 1.9.1 (`nd.contrib` / `sym.contrib`, and ``npx.multibox_*``):
`MultiBoxPrior` (anchor boxes), `MultiBoxTarget` (training targets, with hard negative
mining) and `MultiBoxDetection` (decoding and per-class suppression).

They follow MXNet's CPU kernels, rounding included: anchors are computed in float32, targets
and decoded boxes in the data's dtype, and the matching and suppression visit boxes in the
same order with the same comparisons, so a threshold decides as MXNet's does. None of them
passes a gradient (MXNet's are zero).
"""
import numpy as np

from ..base import MXNetValueError
from . import attrs as A
from .boxes import best_first, exp, greedy_match, greedy_nms, intersection, log
from .registry import ShapeError, register

__all__ = []

_VARIANCES = (0.1, 0.1, 0.2, 0.2)


def _host(rc, a):
    return a if rc.xp is np else rc.xp.asnumpy(a)


def _device(rc, *arrays):
    out = arrays if rc.xp is np else tuple(rc.xp.asarray(a) for a in arrays)
    return out if len(out) > 1 else out[0]


def _variances(name, p):
    v = tuple(p.variances)
    if len(v) != 4:
        raise MXNetValueError(f"{name}: variances must hold 4 numbers (x, y, width, height), "
                              f"got {v}")
    return np.asarray(v, np.float32)


# ---- MultiBoxPrior -----------------------------------------------------------------------------
_PRIOR = "_contrib_MultiBoxPrior"


def _prior_check(p):
    if not p.sizes or not p.ratios:
        raise MXNetValueError(f"{_PRIOR}: sizes and ratios must each hold at least one number, "
                              f"got sizes={p.sizes}, ratios={p.ratios}")
    if len(p.steps) != 2:
        raise MXNetValueError(f"{_PRIOR}: steps must be (step_y, step_x), got {p.steps}")
    if len(p.offsets) != 2 or not all(0 <= o <= 1 for o in p.offsets):
        raise MXNetValueError(f"{_PRIOR}: offsets must be (offset_y, offset_x), each in [0, 1], "
                              f"got {p.offsets}")
    if p.steps[0] * p.steps[1] < 0:
        raise MXNetValueError(f"{_PRIOR}: give both steps or neither (-1 for both), got "
                              f"{p.steps}")


def _prior_shape(p, ins):
    d = ins[0]
    _prior_check(p)
    if d is None:
        return ins, [None]
    if len(d) < 4 or d[2] <= 0 or d[3] <= 0:
        raise ShapeError(f"{_PRIOR}: data must be (batch, channels, height, width) with a "
                         f"positive height and width, got shape {tuple(d)}")
    return ins, [(1, d[2] * d[3] * (len(p.sizes) + len(p.ratios) - 1), 4)]


def prior_boxes(sizes, ratios, height, width, steps=(-1.0, -1.0), offsets=(0.5, 0.5),
                clip=False):
    """The anchors MultiBoxPrior gives for a height x width feature map, (H * W * (len(sizes)
    + len(ratios) - 1), 4) in float32: at each location (row-major), one box per size at the
    first ratio, then one per further ratio at the first size.

    Args:
        sizes: the box sizes, fractions of the image (a sequence of floats).
        ratios: the width/height aspect ratios (a sequence of floats).
        height: the feature map's height.
        width: the feature map's width.
        steps: the (y, x) distance between cell centres, as fractions of the image
            (default (-1, -1): 1/height and 1/width).
        offsets: the (y, x) position of a box centre within its cell, in steps (default
            (0.5, 0.5): the middle).
        clip: clip the corners to [0, 1] (default False).

    Returns:
        numpy.ndarray: the float32 (xmin, ymin, xmax, ymax) boxes, as fractions of the image.

    Example::

        from gluonlite.ops.multibox import prior_boxes
        boxes = prior_boxes((0.5,), (1.0,), 2, 2)
        boxes.shape, boxes[0]       # ((4, 4), array([0. , 0. , 0.5, 0.5], dtype=float32))
    """
    f = np.float32
    step_y, step_x = f(steps[0]), f(steps[1])
    if step_y <= 0 or step_x <= 0:
        step_y, step_x = f(1) / f(height), f(1) / f(width)
    cy = (np.arange(height, dtype=f) + f(offsets[0])) * step_y
    cx = (np.arange(width, dtype=f) + f(offsets[1])) * step_x
    shapes = [(f(s), np.sqrt(f(ratios[0]))) for s in sizes] + \
        [(f(sizes[0]), np.sqrt(f(r))) for r in ratios[1:]]
    half = np.array([[s * f(height) / f(width) * r / f(2), s / r / f(2)] for s, r in shapes],
                    dtype=f)
    cyx = np.stack(np.broadcast_arrays(cx[None, :], cy[:, None]), -1).reshape(-1, 1, 2)
    out = np.concatenate([cyx - half[None], cyx + half[None]], -1).reshape(-1, 4)
    return np.clip(out, f(0), f(1)) if clip else out


@register(_PRIOR, nondiff=("data",), shape=_prior_shape, same_dtype=(),
          attrs={"sizes": A.Floats((1.0,)), "ratios": A.Floats((1.0,)), "clip": A.Bool(False),
                 "steps": A.Floats((-1.0, -1.0)), "offsets": A.Floats((0.5, 0.5))})
def _multibox_prior(p, rc, data):
    """MultiBoxPrior(data, sizes=(1,), ratios=(1,), clip=False, steps=(-1, -1),
    offsets=(0.5, 0.5)): anchor boxes (1, H * W * (len(sizes) + len(ratios) - 1), 4) in
    corner format, normalized to [0, 1], for the (N, C, H, W) feature map data: centered at
    ((row, col) + offsets) * steps (steps -1: 1/H and 1/W), one box per size at the first
    aspect ratio and one per further ratio at the first size; a box of size s and ratio r is
    s * H / W * sqrt(r) wide and s / sqrt(r) high. clip keeps them inside [0, 1]. Only
    data's shape is read.
    """
    _prior_check(p)
    out = prior_boxes(p.sizes, p.ratios, data.shape[2], data.shape[3], p.steps, p.offsets,
                      p.clip)
    return _device(rc, out[None].astype(data.dtype))


# ---- MultiBoxTarget ----------------------------------------------------------------------------
_TARGET = "_contrib_MultiBoxTarget"


def _target_shape(p, ins):
    a, lab, cls = ins
    if a is not None and (len(a) != 3 or a[0] != 1 or a[2] != 4):
        raise ShapeError(f"{_TARGET}: anchor must have shape (1, num_anchors, 4) (shared by "
                         f"the batch), got {tuple(a)}")
    if lab is not None and (len(lab) != 3 or lab[2] < 5):
        raise ShapeError(f"{_TARGET}: label must have shape (batch, num_labels, >= 5) (class, "
                         f"xmin, ymin, xmax, ymax), got {tuple(lab)}")
    if cls is not None and len(cls) != 3:
        raise ShapeError(f"{_TARGET}: cls_pred must have shape (batch, num_classes, "
                         f"num_anchors), got {tuple(cls)}")
    if a is not None and cls is not None and cls[2] != a[1]:
        raise ShapeError(f"{_TARGET}: cls_pred has {cls[2]} anchors but anchor has {a[1]}")
    if a is None or lab is None:
        return ins, [None, None, None]
    return ins, [(lab[0], a[1] * 4), (lab[0], a[1] * 4), (lab[0], a[1])]


def _valid_labels(labels, b):
    """How many label rows come before the first whose class is -1 (MXNet's padding)."""
    pad = np.nonzero(labels[:, 0].astype(np.float32) == -1)[0]
    n = int(pad[0]) if pad.size else labels.shape[0]
    if pad.size and not (labels[n, 1:5].astype(np.float32) == -1).all():
        raise MXNetValueError(f"{_TARGET}: label row {n} of batch {b} has class -1 (padding) "
                              f"but coordinates {labels[n, 1:5].tolist()}; padding rows must "
                              "be all -1")
    return n


def _target_iou(anchors, gt):
    """Anchor-object overlaps as MultiBoxTarget computes them: plain areas (no clamping) and
    a union of 0 giving 0."""
    inter = intersection("multibox", anchors, gt)
    union = ((anchors[:, 2] - anchors[:, 0]) * (anchors[:, 3] - anchors[:, 1]))[:, None] + \
        ((gt[:, 2] - gt[:, 0]) * (gt[:, 3] - gt[:, 1]))[None, :]
    union -= inter
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(union == 0, np.zeros((), inter.dtype), inter / union)


def _loc_targets(anchors, gt, var):
    """AssignLocTargets in float32: the center offsets and log sizes of gt boxes relative to
    anchors, divided by the variances."""
    f = np.float32
    a, g = anchors.astype(f), gt.astype(f)
    aw, ah = a[:, 2] - a[:, 0], a[:, 3] - a[:, 1]
    ax, ay = (a[:, 0] + a[:, 2]) * f(0.5), (a[:, 1] + a[:, 3]) * f(0.5)
    gw, gh = g[:, 2] - g[:, 0], g[:, 3] - g[:, 1]
    gx, gy = (g[:, 0] + g[:, 2]) * f(0.5), (g[:, 1] + g[:, 3]) * f(0.5)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.stack([(gx - ax) / aw / var[0], (gy - ay) / ah / var[1],
                         log(gw / aw) / var[2], log(gh / ah) / var[3]], -1)


def _background_prob(pred):
    """Softmax probability of class 0 per anchor, pred (num_classes, N), accumulated class by
    class in pred's dtype as MXNet's loop does."""
    top = pred[0].copy()
    for row in pred[1:]:
        top = np.where(row > top, row, top)
    total = np.zeros_like(top)
    for row in pred:
        total += exp(row - top)
    return exp(pred[0] - top) / total


def _match_one(p, iou, pred, n_anchor):
    """Per anchor of one image: flag (1 positive, 0 negative, -1 ignored) and matched gt."""
    flags = np.full(n_anchor, -1, np.int8)
    best = np.full(n_anchor, -1, np.int64)
    iou32 = iou.astype(np.float32)  # MXNet compares the overlaps as floats
    ranked = np.where(np.isnan(iou32), -np.inf, iou32)  # a NaN overlap is never the best
    row, _ = greedy_match(ranked[None].astype(np.float64), float(np.float32(1e-6)))
    matched = row[0] >= 0
    flags[matched] = 1
    best[matched] = row[0][matched]
    n_pos = int(matched.sum())
    top_gt = ranked.argmax(axis=1)
    top_iou = np.take_along_axis(ranked, top_gt[:, None], axis=1)[:, 0]
    if p.overlap_threshold > 0:
        pos = ~matched & (top_iou > np.float32(p.overlap_threshold))
        flags[pos] = 1
        best[pos] = top_gt[pos]
        n_pos += int(pos.sum())
    if p.negative_mining_ratio > 0:
        n_neg = min(int(np.float32(n_pos) * np.float32(p.negative_mining_ratio)),
                    n_anchor - n_pos)
        if n_neg > 0:
            cand = np.nonzero((flags == -1) & (top_iou < np.float32(p.negative_mining_thresh))
                              )[0]
            if cand.size < n_neg:
                raise MXNetValueError(
                    f"{_TARGET}: hard negative mining wants {n_neg} negatives but only "
                    f"{cand.size} anchors overlap every object by less than "
                    f"negative_mining_thresh={p.negative_mining_thresh}; raise "
                    "negative_mining_thresh or lower negative_mining_ratio")
            prob = _background_prob(pred[:, cand]).astype(np.float32)
            hardest = cand[np.argsort(prob, kind="stable")[:n_neg]]
            flags[hardest] = 0
    else:
        flags[flags != 1] = 0
    return flags, best


@register(_TARGET, inputs=("anchor", "label", "cls_pred"), outputs=3,
          output_names=("loc_target", "loc_mask", "cls_target"), shape=_target_shape,
          nondiff=("anchor", "label", "cls_pred"), same_dtype=(),
          attrs={"overlap_threshold": A.Float(0.5), "ignore_label": A.Float(-1.0),
                 "negative_mining_ratio": A.Float(-1.0), "negative_mining_thresh": A.Float(0.5),
                 "minimum_negative_samples": A.Int(0), "variances": A.Floats(_VARIANCES)})
def _multibox_target(p, rc, anchor, label, cls_pred):
    """MultiBoxTarget(anchor, label, cls_pred, overlap_threshold=0.5, ignore_label=-1,
    negative_mining_ratio=-1, negative_mining_thresh=0.5, minimum_negative_samples=0,
    variances=(0.1, 0.1, 0.2, 0.2)): SSD's training targets.

    anchor (1, N, 4) corner boxes; label (batch, M, >= 5) rows (class, xmin, ymin, xmax,
    ymax), padded at the end with rows of -1; cls_pred (batch, num_classes, N). Each object
    first takes its best anchor (greedily, highest overlap first); with overlap_threshold >
    0, every other anchor whose best overlap exceeds it is positive too. With
    negative_mining_ratio > 0, the ratio times the positives, among anchors overlapping every
    object by less than negative_mining_thresh, with the lowest background probability under
    cls_pred, are negatives and the rest are ignored; otherwise every non-positive anchor is
    negative. (minimum_negative_samples is accepted and, as in MXNet's CPU kernel, unused.)

    Returns (loc_target (batch, N * 4): the matched object's box relative to the anchor,
    divided by the variances; loc_mask (batch, N * 4): 1 for positives; cls_target (batch,
    N): class + 1 for positives, 0 for negatives, ignore_label otherwise).
    """
    var = _variances(_TARGET, p)
    anchors = _host(rc, anchor).reshape(-1, 4)
    labels, preds = _host(rc, label), _host(rc, cls_pred)
    dt = anchors.dtype
    B, n = labels.shape[0], anchors.shape[0]
    loc = np.zeros((B, n, 4), dt)
    mask = np.zeros((B, n, 4), dt)
    cls = np.full((B, n), np.float32(p.ignore_label), dt)
    for b in range(B):
        m = _valid_labels(labels[b], b)
        if m == 0:
            continue
        gt = labels[b, :m, 1:5].astype(dt)
        iou = _target_iou(anchors, gt)
        flags, best = _match_one(p, iou, preds[b].astype(dt), n)
        pos = flags == 1
        loc[b, pos] = _loc_targets(anchors[pos], gt[best[pos]], var)
        mask[b, pos] = 1
        cls[b, pos] = labels[b, best[pos], 0] + 1
        cls[b, flags == 0] = 0
    return _device(rc, loc.reshape(B, -1), mask.reshape(B, -1), cls)


# ---- MultiBoxDetection -------------------------------------------------------------------------
_DET = "_contrib_MultiBoxDetection"


def _detection_shape(p, ins):
    c, loc, a = ins
    if c is not None and len(c) != 3:
        raise ShapeError(f"{_DET}: cls_prob must have shape (batch, num_classes, num_anchors), "
                         f"got {tuple(c)}")
    if loc is not None and len(loc) != 2:
        raise ShapeError(f"{_DET}: loc_pred must have shape (batch, num_anchors * 4), got "
                         f"{tuple(loc)}")
    if a is not None and (len(a) != 3 or a[2] != 4 or a[1] <= 0):
        raise ShapeError(f"{_DET}: anchor must have shape (1, num_anchors, 4), got {tuple(a)}")
    if c is not None and a is not None and c[2] != a[1]:
        raise ShapeError(f"{_DET}: cls_prob has {c[2]} anchors but anchor has {a[1]}")
    if c is not None and loc is not None and loc[1] != c[2] * 4:
        raise ShapeError(f"{_DET}: loc_pred must hold 4 offsets per anchor ({c[2] * 4}), got "
                         f"{loc[1]}")
    if c is None or a is None:
        return ins, [None]
    return ins, [(c[0], a[1], 6)]


def _decode(anchors, loc, var, clip):
    """TransformLocations in the data's dtype: corner boxes from offsets loc (B, N, 4)."""
    dt = loc.dtype
    v = var.astype(dt)
    two = dt.type(2)
    aw, ah = anchors[:, 2] - anchors[:, 0], anchors[:, 3] - anchors[:, 1]
    ax, ay = (anchors[:, 0] + anchors[:, 2]) / two, (anchors[:, 1] + anchors[:, 3]) / two
    ox = loc[..., 0] * v[0] * aw + ax
    oy = loc[..., 1] * v[1] * ah + ay
    ow = exp(loc[..., 2] * v[2]) * aw / two
    oh = exp(loc[..., 3] * v[3]) * ah / two
    out = np.stack([ox - ow, oy - oh, ox + ow, oy + oh], -1)
    return np.clip(out, dt.type(0), dt.type(1)) if clip else out


@register(_DET, inputs=("cls_prob", "loc_pred", "anchor"),
          nondiff=("cls_prob", "loc_pred", "anchor"), shape=_detection_shape, same_dtype=(),
          attrs={"clip": A.Bool(True), "threshold": A.Float(0.01), "background_id": A.Int(0),
                 "nms_threshold": A.Float(0.5), "force_suppress": A.Bool(False),
                 "variances": A.Floats(_VARIANCES), "nms_topk": A.Int(-1)})
def _multibox_detection(p, rc, cls_prob, loc_pred, anchor):
    """MultiBoxDetection(cls_prob, loc_pred, anchor, clip=True, threshold=0.01,
    background_id=0, nms_threshold=0.5, force_suppress=False, variances=(0.1, 0.1, 0.2,
    0.2), nms_topk=-1): SSD's detections (batch, num_anchors, 6), rows (class, score, xmin,
    ymin, xmax, ymax).

    Each anchor takes its best non-background class (class 0 is the background, whatever
    background_id says, as in MXNet) and decodes its box from loc_pred (clipped to [0, 1]
    with clip); anchors whose best score is below threshold are dropped. The rest come first,
    sorted by descending score; with 0 < nms_threshold <= 1, a box is suppressed (its class
    set to -1) when a better box of its class (any class with force_suppress) overlaps it by
    nms_threshold or more. nms_topk > 0 keeps only that many before suppression (the class of
    the rows past it is -1). Rows past the detections are -1.
    """
    var = _variances(_DET, p)
    prob, loc = _host(rc, cls_prob), _host(rc, loc_pred)
    dt = prob.dtype
    B, C, n = prob.shape
    anchors = _host(rc, anchor).reshape(-1, 4).astype(dt, copy=False)
    score = np.full((B, n), -1, dt)
    cid = np.zeros((B, n), np.int64)
    for j in range(1, C):  # MXNet's scan: the first class scoring highest (NaN never does)
        better = prob[:, j] > score
        cid += better * (j - cid)  # arithmetic: a select on a random mask is far slower
        score = np.fmax(score, prob[:, j])
    cid *= ~((cid > 0) & (score < np.float32(p.threshold)))
    rows = np.concatenate([(cid - 1).astype(dt)[..., None], score[..., None],
                           _decode(anchors, loc.reshape(B, n, 4).astype(dt), var, p.clip)], -1)
    out = np.full((B, n, 6), -1, dt)
    for b in range(B):
        valid = rows[b, cid[b] > 0]
        k = valid.shape[0]
        out[b, :k] = valid
        if k < 1 or not 0 < p.nms_threshold <= 1:
            continue
        keep_n = p.nms_topk if 0 < p.nms_topk < k else k
        order, _ = best_first(valid[None, :, 1], np.ones((1, k), bool), keep_n)
        out[b, keep_n:k, 0] = -1
        ranked = valid[order[0]]
        out[b, :keep_n] = ranked
        cls = None if p.force_suppress else ranked[:, 0].astype(np.int64)[None]
        keep = greedy_nms(ranked[None, :, 2:6], np.array([keep_n]), dt.type(np.float32(
            p.nms_threshold)), "multibox", cls=cls)[0]
        out[b, :keep_n, 0] = np.where(keep, ranked[:, 0], dt.type(-1))
    return _device(rc, out)
