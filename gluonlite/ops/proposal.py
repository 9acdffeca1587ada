"""The region proposal operators of MXNet 1.9.1 (Faster R-CNN's RPN): `Proposal` (one image)
and `MultiProposal` (a batch).

They follow MXNet's CPU kernel, which computes in float32 with some steps in double: the
anchors of every feature-map cell are decoded by the predicted deltas, clipped to the image,
boxes in the padding or smaller than rpn_min_size are demoted (score -1), the best
rpn_pre_nms_top_n are suppressed greedily with pixel-inclusive overlaps (``x2 - x1 + 1``) and
the first rpn_post_nms_top_n kept boxes are returned, repeated cyclically when fewer are kept.
No gradient (MXNet's is zero).
"""
import numpy as np

from ..base import MXNetValueError
from . import attrs as A
from .boxes import exp, greedy_nms
from .registry import ShapeError, register

__all__ = []

_F = np.float32

_ATTRS = {"rpn_pre_nms_top_n": A.Int(6000), "rpn_post_nms_top_n": A.Int(300),
          "threshold": A.Float(0.7), "rpn_min_size": A.Int(16),
          "scales": A.Floats((4.0, 8.0, 16.0, 32.0)), "ratios": A.Floats((0.5, 1.0, 2.0)),
          "feature_stride": A.Int(16), "output_score": A.Bool(False), "iou_loss": A.Bool(False)}


def base_anchors(feature_stride, ratios, scales):
    """The (len(ratios) * len(scales), 4) anchors of one cell, ratio-major, as MXNet's
    GenerateAnchors rounds them (float32, with its floor-based sizes).

    Args:
        feature_stride: the cell's size in input pixels, an int (the base box is
            feature_stride x feature_stride).
        ratios: the aspect ratios (height/width), a sequence of floats.
        scales: the scales of the base box, a sequence of floats.

    Returns:
        numpy.ndarray: float32 (x1, y1, x2, y2) anchors, centred on the base box's centre.

    Example::

        from gluonlite.ops.proposal import base_anchors
        base_anchors(16, (1.0,), (8.0,))       # array([[-56., -56.,  71.,  71.]], dtype=float32)
    """
    side = _F(feature_stride - 1.0)
    w = h = side - _F(0) + _F(1)
    cx = _F(0.0 + 0.5 * (float(w) - 1.0))  # computed in double, stored as float
    cy = _F(0.0 + 0.5 * (float(h) - 1.0))
    out = []
    for ratio in ratios:
        for scale in scales:
            ratio_f, scale_f = _F(ratio), _F(scale)
            size_ratios = np.floor(w * h / ratio_f)
            new_w = np.floor(np.sqrt(size_ratios) + _F(0.5)) * scale_f
            new_h = np.floor(new_w / scale_f * ratio_f + _F(0.5)) * scale_f
            hw, hh = _F(0.5) * (new_w - _F(1)), _F(0.5) * (new_h - _F(1))
            out.append([cx - hw, cy - hh, cx + hw, cy + hh])
    return np.array(out, _F)


def _check(name, p, ins):
    cls, bbox, info = ins
    if cls is not None and len(cls) != 4:
        raise ShapeError(f"{name}: cls_prob must be (batch, 2 * num_anchors, height, width), "
                         f"got shape {tuple(cls)}")
    a = len(p.ratios) * len(p.scales)
    if cls is not None and cls[1] != 2 * a:
        raise ShapeError(f"{name}: cls_prob has {cls[1]} channels but {len(p.ratios)} ratios x "
                         f"{len(p.scales)} scales make {a} anchors (2 channels each)")
    if name == "_contrib_Proposal" and cls is not None and cls[0] != 1:
        raise ShapeError(f"{name}: takes one image (batch 1), got cls_prob of shape "
                         f"{tuple(cls)}; use MultiProposal for a batch")
    if cls is None:
        return ins, [None, None]
    want = [tuple(cls), (cls[0], cls[1] * 2, cls[2], cls[3]), (cls[0], 3)]
    for arg, got, exp_ in (("bbox_pred", bbox, want[1]), ("im_info", info, want[2])):
        if got is not None and tuple(got) != exp_:
            raise ShapeError(f"{name}: {arg} must have shape {exp_} for cls_prob "
                             f"{tuple(cls)}, got {tuple(got)}")
    rows = cls[0] * p.rpn_post_nms_top_n
    return want, [(rows, 5), (rows, 1)]


def _host(rc, a):
    return a if rc.xp is np else rc.xp.asnumpy(a)


def _decode(boxes, deltas, iou_loss):
    """BBoxTransformInv (or IoUTransformInv): proposals (B, K, 4) from anchors (K, 4) and
    deltas (B, K, 4), with MXNet's mix of float and double steps."""
    d = np.float64
    if iou_loss:
        return boxes[None] + deltas
    width = boxes[:, 2] - boxes[:, 0] + _F(1)
    height = boxes[:, 3] - boxes[:, 1] + _F(1)
    cx = (boxes[:, 0].astype(d) + 0.5 * (width.astype(d) - 1.0)).astype(_F)
    cy = (boxes[:, 1].astype(d) + 0.5 * (height.astype(d) - 1.0)).astype(_F)
    pcx = deltas[..., 0] * width + cx
    pcy = deltas[..., 1] * height + cy
    pw = exp(deltas[..., 2]) * width
    ph = exp(deltas[..., 3]) * height
    hw, hh = 0.5 * (pw.astype(d) - 1.0), 0.5 * (ph.astype(d) - 1.0)
    return np.stack([(pcx - hw).astype(_F), (pcy - hh).astype(_F), (pcx + hw).astype(_F),
                     (pcy + hh).astype(_F)], -1)


def _proposals(name, p, cls_prob, bbox_pred, im_info):
    if p.rpn_post_nms_top_n < 1:
        raise MXNetValueError(f"{name}: rpn_post_nms_top_n must be at least 1, got "
                              f"{p.rpn_post_nms_top_n}")
    B, c2, H, W = cls_prob.shape
    a = c2 // 2
    fs = p.feature_stride
    count = a * H * W
    pre = min(p.rpn_pre_nms_top_n if p.rpn_pre_nms_top_n > 0 else count, count)
    post = min(p.rpn_post_nms_top_n, pre)
    info = im_info.astype(_F)
    shift = np.arange(H)[:, None, None] * fs, np.arange(W)[None, :, None] * fs
    anchors = np.empty((H, W, a, 4), _F)
    base = base_anchors(fs, p.ratios, p.scales)
    anchors[..., 0] = base[:, 0] + shift[1].astype(_F)
    anchors[..., 1] = base[:, 1] + shift[0].astype(_F)
    anchors[..., 2] = base[:, 2] + shift[1].astype(_F)
    anchors[..., 3] = base[:, 3] + shift[0].astype(_F)
    anchors = anchors.reshape(-1, 4)  # index h * (W * a) + w * a + anchor
    score = cls_prob[:, a:].astype(_F).transpose(0, 2, 3, 1).reshape(B, -1).copy()
    deltas = bbox_pred.astype(_F).reshape(B, a, 4, H, W).transpose(0, 3, 4, 1, 2)
    boxes = _decode(anchors, deltas.reshape(B, -1, 4), p.iou_loss)
    lim = np.stack([info[:, 1], info[:, 0]], -1) - _F(1)  # (B, 2): width - 1, height - 1
    boxes = np.maximum(np.minimum(boxes, np.tile(lim, 2)[:, None, :]), _F(0))
    real_h = (info[:, 0] / _F(fs)).astype(np.int64)
    real_w = (info[:, 1] / _F(fs)).astype(np.int64)
    if (real_h > H).any() or (real_w > W).any():
        raise MXNetValueError(f"{name}: im_info says the image is {info[:, :2].tolist()} "
                              f"pixels, more than the {H} x {W} feature map covers at "
                              f"feature_stride={fs}")
    rows = np.repeat(np.arange(H), W * a)[None]
    cols = np.tile(np.repeat(np.arange(W), a), H)[None]
    score[(rows >= real_h[:, None]) | (cols >= real_w[:, None])] = -1
    min_size = (_F(p.rpn_min_size) * info[:, 2])[:, None]
    small = ((boxes[..., 2] - boxes[..., 0] + _F(1)) < min_size) | \
        ((boxes[..., 3] - boxes[..., 1] + _F(1)) < min_size)
    grow = np.where(small, min_size / _F(2), _F(0))[..., None] * np.array([-1, -1, 1, 1], _F)
    boxes = boxes + grow
    score[small] = -1
    order = np.argsort(-score, axis=1, kind="stable")[:, :pre]
    ranked = np.take_along_axis(boxes, order[..., None], axis=1)
    ranked_score = np.take_along_axis(score, order, axis=1)
    keep = greedy_nms(ranked, np.full(B, pre), _F(p.threshold), "pixel", max_keep=post)
    n_out = p.rpn_post_nms_top_n
    rois = np.zeros((B, n_out, 5), _F)
    scores = np.zeros((B, n_out, 1), _F)
    for b in range(B):
        kept = np.nonzero(keep[b])[0]
        pick = kept[np.arange(n_out) % kept.size]  # fewer kept than asked: they repeat
        rois[b, :, 0] = b
        rois[b, :, 1:] = ranked[b, pick]
        scores[b, :, 0] = ranked_score[b, pick]
    return rois.reshape(-1, 5), scores.reshape(-1, 1)


def _register(name, doc):
    def kernel(p, rc, cls_prob, bbox_pred, im_info):
        rois, scores = _proposals(name, p, _host(rc, cls_prob), _host(rc, bbox_pred),
                                  _host(rc, im_info))
        dt = cls_prob.dtype
        out = rois.astype(dt), scores.astype(dt)
        return out if rc.xp is np else tuple(rc.xp.asarray(o) for o in out)

    kernel.__doc__ = doc
    register(name, inputs=("cls_prob", "bbox_pred", "im_info"), outputs=2,
             visible=lambda p: 2 if p.output_score else 1,
             output_names=lambda p: ["output", "score"] if p.output_score else ["output"],
             attrs=_ATTRS, shape=lambda p, ins: _check(name, p, ins),
             nondiff=("cls_prob", "bbox_pred", "im_info"))(kernel)


_COMMON = """

    cls_prob (batch, 2 * A, H, W): background then foreground scores of the A = len(ratios)
    * len(scales) anchors of each cell; bbox_pred (batch, 4 * A, H, W): their deltas (dx,
    dy, dw, dh; with iou_loss, offsets of the corners); im_info (batch, 3): image height,
    width and scale. Anchors are feature_stride apart, sized by scales and shaped by ratios.
    Decoded boxes are clipped to the image; boxes in cells past the image (im_info) or
    narrower than rpn_min_size * scale get score -1 (and are widened by half that size, as
    in MXNet). The best rpn_pre_nms_top_n are suppressed greedily at threshold (overlaps
    count pixels inclusively) and the first rpn_post_nms_top_n kept boxes returned, repeated
    cyclically when fewer are kept.

    Returns rois (rows, 5): (batch index, x1, y1, x2, y2), and with output_score the scores
    (rows, 1)."""

_register("_contrib_Proposal", """Proposal(cls_prob, bbox_pred, im_info,
    rpn_pre_nms_top_n=6000, rpn_post_nms_top_n=300, threshold=0.7, rpn_min_size=16,
    scales=(4, 8, 16, 32), ratios=(0.5, 1, 2), feature_stride=16, output_score=False,
    iou_loss=False): Faster R-CNN's region proposals for one image (batch 1): rows =
    rpn_post_nms_top_n.""" + _COMMON)
_register("_contrib_MultiProposal", """MultiProposal(cls_prob, bbox_pred, im_info,
    rpn_pre_nms_top_n=6000, rpn_post_nms_top_n=300, threshold=0.7, rpn_min_size=16,
    scales=(4, 8, 16, 32), ratios=(0.5, 1, 2), feature_stride=16, output_score=False,
    iou_loss=False): Proposal for a batch of images, rows = batch * rpn_post_nms_top_n
    (image b's come b-th, with batch index b).""" + _COMMON)
