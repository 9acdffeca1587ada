"""The bounding-box operators of MXNet 1.9.1's ``contrib`` namespace: `box_iou`, `box_nms`
(also `box_non_maximum_suppression`), `box_encode`, `box_decode` and `bipartite_matching`,
which GluonCV's detectors and target generators call.

Each computes in its input's dtype with MXNet's rounding order, so thresholds decide on the
same numbers as MXNet's kernels (the overlap conventions and the suppression loop are shared
with the SSD and RPN operators: `gluonlite.ops.boxes`). None of them has a gradient except
`box_nms`, whose gradient goes back to the rows it kept, as in MXNet.
"""
import numpy as np

from . import attrs as A
from .boxes import OVERLAPS, best_first, exp, greedy_match, greedy_nms, intersection, log
from .registry import ShapeError, register

__all__ = []


def _host(rc, a):
    return a if rc.xp is np else rc.xp.asnumpy(a)


def _device(rc, *arrays):
    if rc.xp is np:
        return arrays if len(arrays) > 1 else arrays[0]
    out = tuple(rc.xp.asarray(a) for a in arrays)
    return out if len(out) > 1 else out[0]


def _exp(xp, x):
    return exp(x) if xp is np else xp.exp(x)


def _log(xp, x):
    return log(x) if xp is np else xp.log(x)


def _as_dtype(value, dtype):
    """A float attribute as MXNet's kernel sees it: a float32 value, then the data's dtype."""
    return np.dtype(dtype).type(np.float32(value))


# ---- box_iou -------------------------------------------------------------------------------------
def _box_iou_shape(p, ins):
    for arg, s in zip(("lhs", "rhs"), ins):
        if s is not None and (len(s) < 2 or s[-1] != 4):
            raise ShapeError(f"_contrib_box_iou: input {arg} must have at least 2 dimensions "
                             f"and end with 4 box coordinates, got shape {tuple(s)}")
    a, b = ins
    if a is None or b is None:
        return ins, [None]
    return ins, [tuple(a[:-1]) + tuple(b[:-1])]


@register("_contrib_box_iou", inputs=("lhs", "rhs"), nondiff=("lhs", "rhs"),
          attrs={"format": A.Enum("center", "corner", default="corner")},
          shape=_box_iou_shape)
def _box_iou(p, rc, lhs, rhs):
    """box_iou(lhs, rhs, format='corner'): the intersection over union of every box of lhs
    (..., 4) with every box of rhs (..., 4); shape lhs.shape[:-1] + rhs.shape[:-1]. Boxes
    are (xmin, ymin, xmax, ymax) ('corner') or (x, y, width, height) ('center'); boxes that do
    not intersect give 0. No gradient, as in MXNet.
    """
    a = _host(rc, lhs).reshape(-1, 4)
    b = _host(rc, rhs).reshape(-1, 4).astype(a.dtype, copy=False)
    ov = OVERLAPS["box"]
    inter = intersection(ov, a, b, p.format)
    union = ov.area(a, p.format)[:, None] + ov.area(b, p.format)[None, :]
    union -= inter
    # MXNet gives 0 where boxes do not intersect; inter / union is 0 there already, except
    # for a union of 0 (two empty boxes), fixed rather than selected (a select is slower)
    union += union == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = np.divide(inter, union, out=inter)
    return _device(rc, iou.reshape(lhs.shape[:-1] + rhs.shape[:-1]))


# ---- box_nms -------------------------------------------------------------------------------------
_NMS = "_contrib_box_nms"
_NMS_ATTRS = {"overlap_thresh": A.Float(0.5), "valid_thresh": A.Float(0.0), "topk": A.Int(-1),
              "coord_start": A.Int(2), "score_index": A.Int(1), "id_index": A.Int(-1),
              "background_id": A.Int(-1), "force_suppress": A.Bool(False),
              "in_format": A.Enum("center", "corner", default="corner"),
              "out_format": A.Enum("center", "corner", default="corner")}


def _nms_check(p, width):
    """MXNet's checks of the column indices against the box width."""
    def bad(msg):
        raise ShapeError(f"{_NMS}: {msg} (boxes of width {width})")
    coords = range(p.coord_start, p.coord_start + 4)
    if not (0 <= p.coord_start and p.coord_start + 3 < width):
        bad(f"coord_start={p.coord_start} leaves no room for 4 coordinates")
    if not 0 <= p.score_index < width:
        bad(f"score_index={p.score_index} is out of range")
    if p.score_index in coords:
        bad(f"score_index={p.score_index} falls among the coordinates "
            f"{p.coord_start}..{p.coord_start + 3}")
    if p.id_index >= 0:
        if p.id_index >= width:
            bad(f"id_index={p.id_index} is out of range")
        if p.id_index in coords or p.id_index == p.score_index:
            bad(f"id_index={p.id_index} falls on the coordinates or the score")


def _nms_shape(p, ins):
    d = ins[0]
    if d is None:
        return ins, [None, None]
    if len(d) < 2:
        raise ShapeError(f"{_NMS}: data must have at least 2 dimensions (..., num_boxes, "
                         f"box_width), got shape {tuple(d)}")
    _nms_check(p, d[-1])
    return ins, [tuple(d), tuple(d[:-1])]


def _nms_order(p, flat):
    """Per batch row: the candidates box_nms visits, best first (at most topk)."""
    dt = flat.dtype
    score = flat[..., p.score_index]
    valid = score > _as_dtype(p.valid_thresh, dt)
    if p.id_index >= 0:
        valid &= flat[..., p.id_index] != dt.type(p.background_id)
    n = flat.shape[1]
    return best_first(score, valid, min(n, p.topk) if p.topk > 0 else n)


def _class_ids(v):
    # C's static_cast<int>: truncation toward zero (NaN becomes INT_MIN, as on x86)
    with np.errstate(invalid="ignore"):
        return v.astype(np.int32)


def _convert_rows(out, p):
    """MXNet's format conversion of the output rows: a row whose first coordinate is
    negative (the -1 fill, but also a kept box left of the origin) stays as it is."""
    c = out[..., p.coord_start:p.coord_start + 4]
    go = ~(c[..., 0] < 0)
    if p.out_format == "center":
        new = np.stack([(c[..., 0] + c[..., 2]) / 2, (c[..., 1] + c[..., 3]) / 2,
                        c[..., 2] - c[..., 0], c[..., 3] - c[..., 1]], axis=-1)
    else:
        hw, hh = c[..., 2] / 2, c[..., 3] / 2
        new = np.stack([c[..., 0] - hw, c[..., 1] - hh, c[..., 0] + hw, c[..., 1] + hh],
                       axis=-1)
    out[..., p.coord_start:p.coord_start + 4] = np.where(go[..., None], new, c)


@register(_NMS, aliases=("_contrib_box_non_maximum_suppression",),
          outputs=2, visible=1, output_names=("output",), attrs=_NMS_ATTRS, shape=_nms_shape,
          dtype=lambda p, ins: (ins, [ins[0], np.dtype(np.int64)]),
          vjp=lambda p, rc, xs, ys, gys, need: (_nms_vjp(rc, xs, ys, gys),))
def _box_nms(p, rc, data):
    """box_nms(data, overlap_thresh=0.5, valid_thresh=0, topk=-1, coord_start=2,
    score_index=1, id_index=-1, background_id=-1, force_suppress=False, in_format='corner',
    out_format='corner'): non-maximum suppression of the boxes on data's second-to-last axis,
    each a row holding a score (column score_index), 4 coordinates (from coord_start) and
    optionally a class id (id_index).

    Per batch row (every leading axis is a batch axis): the boxes scoring above valid_thresh
    (and, with id_index, not of class background_id) are sorted by descending score (ties keep
    their order); the first topk of them (all when topk < 0) are visited in that order, and a
    box is kept unless a kept box of the same class (any class with force_suppress or without
    id_index; class ids compare as integers) overlaps it by more than overlap_thresh. The kept
    rows come first, whole and in score order, then rows of -1. out_format converts the kept
    coordinates, except in rows whose first coordinate is negative (as MXNet does). topk=0
    returns data unchanged. The gradient goes back to each kept row.

    Example::

        >>> nd.contrib.box_nms(nd.array([[0.9, 0, 0, 2, 2], [0.8, 0, 0, 2, 1.9]]),
        ...                    coord_start=1, score_index=0)
        [[ 0.9  0.   0.   2.   2. ]
         [-1.  -1.  -1.  -1.  -1. ]]
    """
    host = _host(rc, data)
    n, width = host.shape[-2:]
    flat = host.reshape(-1, n, width)
    b = flat.shape[0]
    if p.topk == 0:  # MXNet returns the input as it is
        return _device(rc, host.copy(), np.arange(b * n, dtype=np.int64).reshape(host.shape[:-1]))
    order, count = _nms_order(p, flat)
    cand = np.take_along_axis(flat, order[..., None], axis=1)
    boxes = cand[..., p.coord_start:p.coord_start + 4]
    cls = None
    if p.id_index >= 0 and not p.force_suppress:
        cls = _class_ids(cand[..., p.id_index])
    keep = greedy_nms(boxes, count, _as_dtype(p.overlap_thresh, flat.dtype), "box",
                      p.in_format, cls)
    slot = np.cumsum(keep, axis=1) - 1
    rows, cols = np.nonzero(keep)
    out = np.full_like(flat, -1)
    record = np.full((b, n), -1, np.int64)
    out[rows, slot[rows, cols]] = cand[rows, cols]
    record[rows, slot[rows, cols]] = rows * n + order[rows, cols]
    if p.in_format != p.out_format:
        _convert_rows(out, p)
    return _device(rc, out.reshape(host.shape), record.reshape(host.shape[:-1]))


def _nms_vjp(rc, xs, ys, gys):
    data, record, g = xs[0], _host(rc, ys[1]).reshape(-1), gys[0]
    width = data.shape[-1]
    g = _host(rc, g).reshape(-1, width)
    gd = np.zeros((record.size, width), dtype=data.dtype)
    kept = record >= 0
    gd[record[kept]] = g[kept]
    return _device(rc, gd.reshape(data.shape))


# ---- box_encode, box_decode ----------------------------------------------------------------------
def _box_encode_shape(p, ins):
    samples, matches, anchors, refs, means, stds = ins
    name = "_contrib_box_encode"
    for arg, s, n in (("samples", samples, 2), ("matches", matches, 2), ("anchors", anchors, 3),
                      ("refs", refs, 3)):
        if s is not None and len(s) != n:
            raise ShapeError(f"{name}: {arg} must have {n} dimensions, got shape {tuple(s)}")
    for arg, s in (("anchors", anchors), ("refs", refs)):
        if s is not None and s[-1] != 4:
            raise ShapeError(f"{name}: {arg} must end with 4 box coordinates, got shape "
                             f"{tuple(s)}")
    if anchors is None:
        return ins, [None, None]
    b, n = anchors[:2]
    return [(b, n), (b, n), anchors, refs, (4,), (4,)], [tuple(anchors)] * 2


@register("_contrib_box_encode",
          inputs=("samples", "matches", "anchors", "refs", "means", "stds"), outputs=2,
          nondiff=("samples", "matches", "anchors", "refs", "means", "stds"),
          shape=_box_encode_shape)
def _box_encode(p, rc, samples, matches, anchors, refs, means, stds):
    """box_encode(samples, matches, anchors, refs, means, stds): the regression targets of
    anchors (batch, N, 4, corner format) towards the reference boxes refs (batch, M, 4) they
    are matched to (matches: (batch, N) indices into refs), normalized by means and stds (4,),
    for anchors whose sample is positive (> 0.5); returns (targets, masks), both (batch, N,
    4), zero where the sample is not positive. No gradient, as in MXNet.

    Example: GluonCV's NormalizedBoxCenterEncoder calls it with means (0, 0, 0, 0) and stds
    (0.1, 0.1, 0.2, 0.2)."""
    xp = rc.xp
    m = xp.clip(matches.astype(np.int64), 0, refs.shape[1] - 1)
    ref = xp.take_along_axis(refs, m[..., None], axis=1)

    def center(b):
        w, h = b[..., 2] - b[..., 0], b[..., 3] - b[..., 1]
        return b[..., 0] + w * 0.5, b[..., 1] + h * 0.5, w, h
    rx, ry, rw, rh = center(ref)
    ax, ay, aw, ah = center(anchors)
    valid = (samples > 0.5).astype(anchors.dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = xp.stack([(rx - ax) / aw, (ry - ay) / ah, _log(xp, rw / aw), _log(xp, rh / ah)],
                     axis=-1)
        t = (t - means) / stds
    mask = xp.repeat(valid[..., None], 4, axis=-1)
    return xp.where(mask > 0.5, t, 0).astype(anchors.dtype), mask


def _box_decode_shape(p, ins):
    d, a = ins
    name = "_contrib_box_decode"
    if d is not None and (len(d) != 3 or d[-1] != 4):
        raise ShapeError(f"{name}: data must have shape (batch, N, 4), got {tuple(d)}")
    if a is not None and (len(a) < 3 or a[-1] != 4 or (
            d is not None and int(np.prod(a)) != d[1] * 4)):
        want = f"(1, {d[1]}, 4)" if d is not None else "(1, N, 4)"
        raise ShapeError(f"{name}: anchors must have shape {want} (one box per box of data), "
                         f"got {tuple(a)}")
    return ins, [d]


@register("_contrib_box_decode", inputs=("data", "anchors"), nondiff=("data", "anchors"),
          attrs={"std0": A.Float(1.0), "std1": A.Float(1.0), "std2": A.Float(1.0),
                 "std3": A.Float(1.0), "clip": A.Float(-1.0),
                 "format": A.Enum("center", "corner", default="center")},
          shape=_box_decode_shape)
def _box_decode(p, rc, data, anchors):
    """box_decode(data, anchors, std0..std3=1, clip=-1, format='center'): boxes (corner
    format) from regression offsets data (batch, N, 4) relative to anchors (1, N, 4, in
    `format`); clip > 0 caps the log-size offsets (a NaN offset becomes clip, as in MXNet).
    No gradient, as in MXNet.
    """
    xp = rc.xp
    dt = data.dtype
    a = anchors.reshape(1, data.shape[1], 4)  # MXNet reads anchors as (1, N, 4)
    std0, std1, std2, std3, clip = (_as_dtype(v, dt) for v in
                                    (p.std0, p.std1, p.std2, p.std3, p.clip))
    if p.format == "corner":
        aw, ah = a[..., 2] - a[..., 0], a[..., 3] - a[..., 1]
        ax, ay = a[..., 0] + aw * 0.5, a[..., 1] + ah * 0.5
    else:
        ax, ay, aw, ah = a[..., 0], a[..., 1], a[..., 2], a[..., 3]
    ox = data[..., 0] * std0 * aw + ax
    oy = data[..., 1] * std1 * ah + ay
    dw, dh = data[..., 2] * std2, data[..., 3] * std3
    if p.clip > 0:
        dw, dh = xp.where(dw < clip, dw, clip), xp.where(dh < clip, dh, clip)
    ow, oh = _exp(xp, dw) * aw * 0.5, _exp(xp, dh) * ah * 0.5
    return xp.stack([ox - ow, oy - oh, ox + ow, oy + oh], axis=-1).astype(dt, copy=False)


# ---- bipartite_matching --------------------------------------------------------------------------
def _matching_shape(p, ins):
    d = ins[0]
    if d is None:
        return ins, [None, None]
    if len(d) < 2:
        raise ShapeError(f"_contrib_bipartite_matching: data must have at least 2 dimensions "
                         f"(..., rows, cols), got shape {tuple(d)}")
    return ins, [tuple(d[:-1]), tuple(d[:-2]) + (d[-1],)]


@register("_contrib_bipartite_matching", outputs=2, nondiff=("data",),
          attrs={"is_ascend": A.Bool(False), "threshold": A.Float(), "topk": A.Int(-1)},
          shape=_matching_shape)
def _bipartite_matching(p, rc, data):
    """bipartite_matching(data, threshold, is_ascend=False, topk=-1): greedy bipartite
    matching of each score matrix data (..., rows, cols): entries are visited from the best
    score down (lowest first with is_ascend; ties by position), an entry whose row and column
    are both still free is matched while its score is above threshold (below, with
    is_ascend), and the first free entry that is not ends the matching; topk > 0 stops after
    topk + 1 matches, as MXNet 1.9.1 does. NaN scores never match.

    Returns (row_marker (..., rows): the column matched to each row or -1, col_marker (...,
    cols): the row matched to each column or -1), in data's dtype. No gradient.

    Example::

        >>> nd.contrib.bipartite_matching(nd.array([[0.5, 0.6], [0.1, 0.2], [0.3, 0.4]]),
        ...                               threshold=1e-12)
        [[ 1. -1.  0.], [ 2.  0.]]
    """
    x = _host(rc, data)
    R, C = x.shape[-2:]
    s = x.reshape(-1, R, C).astype(np.float64)
    thresh = float(np.float32(p.threshold))
    if p.is_ascend:
        s, thresh = -s, -thresh
    s = np.where(np.isnan(s), -np.inf, s)
    row, col = greedy_match(s, thresh, p.topk)
    row = row.reshape(x.shape[:-1]).astype(x.dtype)
    col = col.reshape(x.shape[:-2] + (C,)).astype(x.dtype)
    return _device(rc, row, col)

