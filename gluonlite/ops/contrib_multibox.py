"""MXNet's SSD operators: ``_contrib_MultiBoxPrior`` (anchor boxes), ``_contrib_MultiBoxTarget``
(training targets of anchors against labelled boxes) and ``_contrib_MultiBoxDetection`` (boxes
decoded from predictions, then non-maximum suppression), with MXNet 1.9.1's algorithms step for
step (the matching order, the float32 arithmetic, the stable sorts), and MXNet's npx names
``multibox_prior``, ``multibox_target``, ``multibox_detection``.

Boxes are corners ``[xmin, ymin, xmax, ymax]`` relative to the image (0..1). None of the three
has a gradient (MXNet's backward writes zeros).
"""
import numpy as np

from . import attrs as A
from .registry import ShapeError, register


def _floats(v):
    v = A._literal(v)
    if isinstance(v, (int, float, np.number)):
        return (float(v),)
    if isinstance(v, (list, tuple)):
        return tuple(float(e) for e in v)
    raise ValueError(f"expected a number or a tuple of numbers, got {v!r}")


def _Floats(default):
    return A.Attr(_floats, default, "tuple")


def _host(x):
    return x.get() if hasattr(x, "get") else np.asarray(x)


def _zeros_vjp(p, rc, xs, ys, gys, need):
    return tuple(rc.xp.zeros_like(x) if n else None for x, n in zip(xs, need))


# ---- MultiBoxPrior ---------------------------------------------------------------------------
def _prior_check(p):
    if not p.sizes or not p.ratios:
        raise ShapeError("_contrib_MultiBoxPrior: sizes and ratios must not be empty")
    if len(p.steps) != 2:
        raise ShapeError("_contrib_MultiBoxPrior: Step ndim must be 2: (step_y, step_x)")
    if len(p.offsets) != 2 or not all(0.0 <= o <= 1.0 for o in p.offsets):
        raise ShapeError("_contrib_MultiBoxPrior: offsets must be two numbers in [0, 1]")


def _prior_shape(p, ins):
    d = ins[0]
    if d is None:
        return ins, [None]
    _prior_check(p)
    if len(d) < 4:
        raise ShapeError(f"_contrib_MultiBoxPrior: Input data should be 4D: batch-channel-y-x, "
                         f"got {tuple(d)}")
    if d[2] <= 0 or d[3] <= 0:
        raise ShapeError("_contrib_MultiBoxPrior: input height and width must be > 0")
    n = d[2] * d[3] * (len(p.sizes) + len(p.ratios) - 1)
    return ins, [(1, n, 4)]


@register("_contrib_MultiBoxPrior", shape=_prior_shape, vjp=_zeros_vjp,
          attrs={"sizes": _Floats((1.0,)), "ratios": _Floats((1.0,)), "clip": A.Bool(False),
                 "steps": _Floats((-1.0, -1.0)), "offsets": _Floats((0.5, 0.5))})
def _multibox_prior(p, rc, data):
    """MultiBoxPrior(data, sizes=(1,), ratios=(1,), clip=False, steps=(-1, -1),
    offsets=(0.5, 0.5)): anchor boxes centred on every cell of data's (height, width) grid,
    shape (1, height * width * (len(sizes) + len(ratios) - 1), 4): per cell the sizes at the
    first ratio, then the other ratios at the first size."""
    _prior_check(p)
    h, w = int(data.shape[2]), int(data.shape[3])
    f = np.float32
    step_y, step_x = p.steps
    if step_y * step_x < 0:
        raise ShapeError("_contrib_MultiBoxPrior: Must specify both step_y and step_x")
    if step_y <= 0 or step_x <= 0:
        step_y, step_x = 1.0 / h, 1.0 / w
    cy = (np.arange(h, dtype=f) + f(p.offsets[0])) * f(step_y)
    cx = (np.arange(w, dtype=f) + f(p.offsets[1])) * f(step_x)
    half = []  # (w/2, h/2) of each anchor of a cell, in MXNet's order
    r0 = np.sqrt(f(p.ratios[0]))
    for s in p.sizes:
        half.append((f(s) * f(h) / f(w) * r0 / f(2), f(s) / r0 / f(2)))
    for r in p.ratios[1:]:
        rr = np.sqrt(f(r))
        s = f(p.sizes[0])
        half.append((s * f(h) / f(w) * rr / f(2), s / rr / f(2)))
    half = np.asarray(half, dtype=f)                        # (k, 2)
    gy, gx = np.meshgrid(cy, cx, indexing="ij")             # (h, w)
    cxs = gx[:, :, None]
    cys = gy[:, :, None]
    out = np.stack([cxs - half[:, 0], cys - half[:, 1], cxs + half[:, 0], cys + half[:, 1]],
                   axis=-1).reshape(1, -1, 4)
    if p.clip:
        out = np.clip(out, 0.0, 1.0)
    return rc.xp.asarray(out.astype(data.dtype))


# ---- MultiBoxTarget --------------------------------------------------------------------------
def _target_shape(p, ins):
    a, lab, cls = ins
    if a is not None:
        if len(a) != 3 or a[0] != 1 or a[2] != 4:
            raise ShapeError(f"_contrib_MultiBoxTarget: anchor must have shape (1, N, 4), got "
                             f"{tuple(a)}")
    if lab is not None and (len(lab) != 3 or lab[2] < 5):
        raise ShapeError(f"_contrib_MultiBoxTarget: label must be (batch, num_labels, >=5), "
                         f"got {tuple(lab)}")
    if cls is not None and len(cls) != 3:
        raise ShapeError(f"_contrib_MultiBoxTarget: cls_pred must be (batch, num_classes, "
                         f"num_anchors), got {tuple(cls)}")
    if a is not None and cls is not None and cls[2] != a[1]:
        raise ShapeError("_contrib_MultiBoxTarget: Number of anchors mismatch")
    if a is None or lab is None:
        return ins, [None, None, None]
    return ins, [(lab[0], a[1] * 4), (lab[0], a[1] * 4), (lab[0], a[1])]


def _ious(anchors, boxes):
    """IoU of every anchor with every box (float32, MXNet's safe division)."""
    f = np.float32
    al, at, ar, ab = (anchors[:, i:i + 1] for i in range(4))
    gl, gt, gr, gb = (boxes[None, :, i] for i in range(4))
    iw = np.maximum(f(0), np.minimum(ar, gr) - np.maximum(al, gl))
    ih = np.maximum(f(0), np.minimum(ab, gb) - np.maximum(at, gt))
    inter = iw * ih
    union = (ar - al) * (ab - at) + (gr - gl) * (gb - gt) - inter
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(union == 0, f(0), inter / union).astype(f)


def _loc_targets(anchor, box, var):
    f = np.float32
    aw, ah = anchor[2] - anchor[0], anchor[3] - anchor[1]
    ax, ay = (anchor[0] + anchor[2]) * f(0.5), (anchor[1] + anchor[3]) * f(0.5)
    gw, gh = box[2] - box[0], box[3] - box[1]
    gx, gy = (box[0] + box[2]) * f(0.5), (box[1] + box[3]) * f(0.5)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.array([(gx - ax) / aw / f(var[0]), (gy - ay) / ah / f(var[1]),
                         np.log(gw / aw) / f(var[2]), np.log(gh / ah) / f(var[3])], dtype=f)


def _target_one(p, anchors, label, preds, loc_t, loc_m, cls_t):
    n_anchor = anchors.shape[0]
    valid = 0
    for row in label:
        if row[0] == -1.0:
            break
        valid += 1
    if valid == 0:
        return
    overlaps = _ious(anchors, label[:valid, 1:5])          # (anchors, gts)
    gt_done = np.zeros(valid, bool)
    flags = np.full(n_anchor, -1, np.int8)                  # -1 don't care, 1 pos, 0 neg
    match_iou = np.full(n_anchor, -1.0, np.float32)
    match_gt = np.full(n_anchor, -1, np.int64)
    num_pos = 0
    while not gt_done.all():  # the best remaining (anchor, gt) pair, one per gt
        ov = np.where(flags[:, None] == 1, -np.inf, overlaps)
        ov = np.where(gt_done[None, :], -np.inf, ov)
        flat = int(np.argmax(ov))  # the first maximum in (anchor, gt) order, as MXNet's loop
        j, k = divmod(flat, valid)
        if not ov[j, k] > 1e-6:
            break
        match_iou[j], match_gt[j] = ov[j, k], k
        num_pos += 1
        gt_done[k] = True
        flags[j] = 1
    if p.overlap_threshold > 0:
        for j in range(n_anchor):
            if flags[j] == 1:
                continue
            k = int(np.argmax(overlaps[j]))
            match_iou[j], match_gt[j] = overlaps[j, k], k
            if overlaps[j, k] > p.overlap_threshold:
                num_pos += 1
                gt_done[k] = True
                flags[j] = 1
    if p.negative_mining_ratio > 0:
        num_neg = int(num_pos * p.negative_mining_ratio)
        num_neg = min(num_neg, n_anchor - num_pos)
        if num_neg > 0:
            cand = []
            for j in range(n_anchor):
                if flags[j] == 1:
                    continue
                if match_iou[j] < 0:
                    k = int(np.argmax(overlaps[j]))
                    match_iou[j], match_gt[j] = overlaps[j, k], k
                if match_iou[j] < p.negative_mining_thresh and flags[j] == -1:
                    col = preds[:, j].astype(np.float32)
                    e = np.exp(col - col.max())
                    cand.append((-(e[0] / e.sum()), j))
            if len(cand) < num_neg:
                raise ShapeError("_contrib_MultiBoxTarget: not enough negative samples")
            # MXNet's stable sort, descending by the negated background probability: the
            # anchors the model least believes background come first
            cand.sort(key=lambda t: -t[0])
            for _, j in cand[:num_neg]:
                flags[j] = 0
    else:
        flags[flags != 1] = 0
    for i in range(n_anchor):
        if flags[i] == 1:
            box = label[match_gt[i]]
            cls_t[i] = box[0] + 1
            loc_m[i * 4:i * 4 + 4] = 1
            loc_t[i * 4:i * 4 + 4] = _loc_targets(anchors[i], box[1:5], p.variances)
        elif flags[i] == 0:
            cls_t[i] = 0
            loc_m[i * 4:i * 4 + 4] = 0


@register("_contrib_MultiBoxTarget", inputs=("anchor", "label", "cls_pred"), outputs=3,
          shape=_target_shape, vjp=_zeros_vjp,
          attrs={"overlap_threshold": A.Float(0.5), "ignore_label": A.Float(-1.0),
                 "negative_mining_ratio": A.Float(-1.0), "negative_mining_thresh": A.Float(0.5),
                 "minimum_negative_samples": A.Int(0),
                 "variances": _Floats((0.1, 0.1, 0.2, 0.2))})
def _multibox_target(p, rc, anchor, label, cls_pred):
    """MultiBoxTarget(anchor, label, cls_pred, overlap_threshold=0.5, ignore_label=-1,
    negative_mining_ratio=-1, negative_mining_thresh=0.5, minimum_negative_samples=0,
    variances=(0.1, 0.1, 0.2, 0.2)): per batch entry the box offsets (batch, anchors * 4),
    their mask, and the class of each anchor (0 background, label + 1 for a matched anchor,
    ignore_label when neither)."""
    if len(p.variances) != 4:
        raise ShapeError("_contrib_MultiBoxTarget: variances must hold 4 numbers")
    _target_shape(p, [anchor.shape, label.shape, cls_pred.shape])
    anchors = _host(anchor).reshape(-1, 4).astype(np.float32)
    labels = _host(label).astype(np.float32)
    preds = _host(cls_pred).astype(np.float32)
    batch, n = labels.shape[0], anchors.shape[0]
    loc_t = np.zeros((batch, n * 4), np.float32)
    loc_m = np.zeros((batch, n * 4), np.float32)
    cls_t = np.full((batch, n), p.ignore_label, np.float32)
    for b in range(batch):
        _target_one(p, anchors, labels[b], preds[b], loc_t[b], loc_m[b], cls_t[b])
    dt = anchor.dtype
    return (rc.xp.asarray(loc_t.astype(dt)), rc.xp.asarray(loc_m.astype(dt)),
            rc.xp.asarray(cls_t.astype(dt)))


# ---- MultiBoxDetection -----------------------------------------------------------------------
def _detection_shape(p, ins):
    c, loc, a = ins
    for name, s, nd in (("cls_prob", c, 3), ("loc_pred", loc, 2), ("anchor", a, 3)):
        if s is not None and len(s) != nd:
            raise ShapeError(f"_contrib_MultiBoxDetection: {name} must be {nd}-D, got "
                             f"{tuple(s)}")
    if c is not None and a is not None and c[2] != a[1]:
        raise ShapeError("_contrib_MultiBoxDetection: Number of anchors mismatch")
    if c is not None and loc is not None and c[2] * 4 != loc[1]:
        raise ShapeError("_contrib_MultiBoxDetection: # anchors mismatch with # loc")
    if a is not None and a[2] != 4:
        raise ShapeError("_contrib_MultiBoxDetection: anchor boxes must have 4 coordinates")
    if c is None or a is None:
        return ins, [None]
    return ins, [(c[0], a[1], 6)]


def _overlap(a, b):
    f = np.float32
    w = max(f(0), min(a[2], b[2]) - max(a[0], b[0]))
    h = max(f(0), min(a[3], b[3]) - max(a[1], b[1]))
    i = f(w * h)
    u = f((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - i)
    return f(0) if u <= 0 else f(i / u)


@register("_contrib_MultiBoxDetection", inputs=("cls_prob", "loc_pred", "anchor"),
          shape=_detection_shape, vjp=_zeros_vjp,
          attrs={"clip": A.Bool(True), "threshold": A.Float(0.01), "background_id": A.Int(0),
                 "nms_threshold": A.Float(0.5), "force_suppress": A.Bool(False),
                 "variances": _Floats((0.1, 0.1, 0.2, 0.2)), "nms_topk": A.Int(-1)})
def _multibox_detection(p, rc, cls_prob, loc_pred, anchor):
    """MultiBoxDetection(cls_prob, loc_pred, anchor, clip=True, threshold=0.01,
    background_id=0, nms_threshold=0.5, force_suppress=False, variances=(0.1, 0.1, 0.2, 0.2),
    nms_topk=-1): per batch entry the rows ``[class_id, score, xmin, ymin, xmax, ymax]`` of
    the anchors' decoded boxes, most confident first, class_id -1 for background and for
    boxes non-maximum suppression removed."""
    if len(p.variances) != 4:
        raise ShapeError("_contrib_MultiBoxDetection: Variance size must be 4")
    _detection_shape(p, [cls_prob.shape, loc_pred.shape, anchor.shape])
    f = np.float32
    probs = _host(cls_prob).astype(f)
    locs = _host(loc_pred).astype(f)
    anchors = _host(anchor).reshape(-1, 4).astype(f)
    batch, n_cls, n = probs.shape
    var = [f(v) for v in p.variances]
    out = np.full((batch, n, 6), -1, f)
    aw, ah = anchors[:, 2] - anchors[:, 0], anchors[:, 3] - anchors[:, 1]
    ax, ay = (anchors[:, 0] + anchors[:, 2]) / f(2), (anchors[:, 1] + anchors[:, 3]) / f(2)
    for b in range(batch):
        if n_cls > 1:
            fg = probs[b, 1:, :]
            ids = np.argmax(fg, axis=0) + 1   # the first maximum, as MXNet's loop
            score = fg[ids - 1, np.arange(n)]
            neg = score <= f(-1)              # MXNet starts from score -1 with id 0
            ids = np.where(neg, 0, ids)
            score = np.where(neg, f(-1), score)
        else:
            ids, score = np.zeros(n, np.int64), np.full(n, f(-1))
        ids = np.where((ids > 0) & (score < f(p.threshold)), 0, ids)
        lp = locs[b].reshape(n, 4)
        ox = lp[:, 0] * var[0] * aw + ax
        oy = lp[:, 1] * var[1] * ah + ay
        ow = np.exp(lp[:, 2] * var[2]) * aw / f(2)
        oh = np.exp(lp[:, 3] * var[3]) * ah / f(2)
        boxes = np.stack([ox - ow, oy - oh, ox + ow, oy + oh], axis=1)
        if p.clip:
            boxes = np.clip(boxes, f(0), f(1))
        rows = np.concatenate([(ids - 1).astype(f)[:, None], score[:, None], boxes], axis=1)
        keep = rows[rows[:, 0] >= 0]
        valid = keep.shape[0]
        out[b, :valid] = keep
        if valid < 1 or p.nms_threshold <= 0 or p.nms_threshold > 1:
            continue
        order = np.argsort(-out[b, :valid, 1], kind="stable")
        nkeep = valid
        if 0 < p.nms_topk < nkeep:
            nkeep = p.nms_topk
            out[b, nkeep:valid, 0] = -1
        out[b, :nkeep] = keep[order[:nkeep]]
        rows_b = out[b]
        for i in range(nkeep):
            if rows_b[i, 0] < 0:
                continue
            for j in range(i + 1, nkeep):
                if rows_b[j, 0] < 0:
                    continue
                if p.force_suppress or rows_b[i, 0] == rows_b[j, 0]:
                    if _overlap(rows_b[i, 2:], rows_b[j, 2:]) >= f(p.nms_threshold):
                        rows_b[j, 0] = -1
    return rc.xp.asarray(out.astype(cls_prob.dtype))
