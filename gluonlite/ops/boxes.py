"""Rules shared by the detection operators (`detection`, `multibox`, `proposal`): box formats,
MXNet's three overlap conventions, and greedy non-maximum suppression run as array operations.

MXNet 1.9.1 computes a box overlap in three slightly different ways, and each operator's
numbers (which box a threshold keeps) depend on its own. `OVERLAPS` lists them, one row each:

==============  ==============================  ===============================  ==========
convention      used by                         intersection over union          suppresses
==============  ==============================  ===============================  ==========
``box``         box_nms, box_iou                negative sides and areas are 0    iou > t
``pixel``       Proposal, MultiProposal         sides are ``x2 - x1 + 1``         iou > t
``multibox``    MultiBoxDetection               union <= 0 gives 0                iou >= t
==============  ==============================  ===============================  ==========

Every rule computes in the boxes' own dtype, one rounding per operation as MXNet's kernels
do, so a threshold decides the same way on the same float32 numbers.

`greedy_nms` is the suppression itself: candidates come sorted by score; a candidate is kept
unless a kept candidate before it suppresses it. It never loops over pairs: it takes the
candidates in blocks, resolves a block against itself with an iteration over boolean matrix
products (each pass settles at least one more candidate, as the greedy order prescribes),
then removes whatever the block's kept boxes suppress from every later candidate at once.
"""
from collections import namedtuple

import numpy as np

__all__ = ["exp", "log", "corners", "to_format", "OVERLAPS", "Overlap", "intersection", "overlap",
           "greedy_nms", "greedy_match"]


def exp(x):
    """e**x rounded once to x's dtype, as C's expf (correctly rounded in glibc) gives it for
    float32; numpy's own float32 exp may differ in the last bit."""
    if x.dtype == np.float32:
        with np.errstate(over="ignore"):
            return np.exp(x.astype(np.float64)).astype(np.float32)
    return np.exp(x)


def log(x):
    """log(x) rounded once to x's dtype (C's logf for float32; see `exp`)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        if x.dtype == np.float32:
            return np.log(x.astype(np.float64)).astype(np.float32)
        return np.log(x)


def corners(b, fmt):
    """(xmin, ymin, xmax, ymax) of boxes b (..., 4) in `fmt`: 'corner' (xmin, ymin, xmax,
    ymax) or 'center' (x, y, width, height)."""
    if fmt == "corner":
        return b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    x, y, w, h = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    return x - w / 2, y - h / 2, x + w / 2, y + h / 2


def to_format(b, fin, fout):
    """Boxes b (..., 4) converted from format `fin` to `fout` ('corner' or 'center'), in b's
    dtype."""
    if fin == fout:
        return b
    if fout == "center":
        return np.stack([(b[..., 0] + b[..., 2]) / 2, (b[..., 1] + b[..., 3]) / 2,
                         b[..., 2] - b[..., 0], b[..., 3] - b[..., 1]], axis=-1)
    half_w, half_h = b[..., 2] / 2, b[..., 3] / 2
    return np.stack([b[..., 0] - half_w, b[..., 1] - half_h, b[..., 0] + half_w,
                     b[..., 1] + half_h], axis=-1)


def _pick_max(a, b):
    # C's `a > b ? a : b`: a NaN in `a` yields b (np.maximum would yield NaN)
    return np.where(a > b, a, b)


def _pick_min(a, b):
    return np.where(a < b, a, b)


def _positive(w, exact):
    """C's `w > 0 ? w : 0` (in place where it can)."""
    if exact:
        return np.where(w > 0, w, np.zeros((), w.dtype))
    return np.maximum(w, 0, out=w)


def _side(lo_a, hi_a, lo_b, hi_b, plus, exact):
    """Overlap of intervals [lo, hi] of every a (..., r, 1) with every b (..., 1, c); `plus`
    is added before the clamp (1 for pixel widths)."""
    if exact:
        w = _pick_min(hi_a, hi_b) - _pick_max(lo_a, lo_b)
    else:
        w = np.minimum(hi_a, hi_b)
        w -= np.maximum(lo_a, lo_b)
    if plus:
        w += plus
    return _positive(w, exact)


def _edges(b, fmt):
    """(x1, y1, x2, y2) as box_nms's intersection reads them: center boxes are turned into
    corners in the boxes' dtype (x - w / 2, x + w / 2), as MXNet's Intersect does."""
    if fmt == "center":
        hw, hh = b[..., 2] / 2, b[..., 3] / 2
        return b[..., 0] - hw, b[..., 1] - hh, b[..., 0] + hw, b[..., 1] + hh
    return b[..., 0], b[..., 1], b[..., 2], b[..., 3]


def _intersection(a, b, fmt, plus, exact):
    ax1, ay1, ax2, ay2 = (v[..., :, None] for v in _edges(a, fmt))
    bx1, by1, bx2, by2 = (v[..., None, :] for v in _edges(b, fmt))
    if exact and fmt == "center":  # MXNet's center Intersect compares b's side first
        w = _pick_min(bx2, ax2) - _pick_max(bx1, ax1)
        h = _pick_min(by2, ay2) - _pick_max(by1, ay1)
        return _positive(w, True) * _positive(h, True)
    w = _side(ax1, ax2, bx1, bx2, plus, exact)
    w *= _side(ay1, ay2, by1, by2, plus, exact)
    return w


def _area_box(b, fmt):
    if fmt == "center":
        w, h = b[..., 2], b[..., 3]
    else:
        w, h = b[..., 2] - b[..., 0], b[..., 3] - b[..., 1]
    return np.where((w < 0) | (h < 0), np.zeros((), b.dtype), w * h)


def _area_pixel(b, fmt=None):
    one = b.dtype.type(1)
    return (b[..., 2] - b[..., 0] + one) * (b[..., 3] - b[..., 1] + one)


def _area_multibox(b, fmt=None):
    return (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1])


def _iou_plain(inter, area_a, area_b):
    """inter / (area_a + area_b - inter), in place in inter."""
    u = area_a[..., :, None] + area_b[..., None, :]
    u -= inter
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.divide(inter, u, out=inter)


def _iou_multibox(inter, area_a, area_b):
    u = area_a[..., :, None] + area_b[..., None, :]
    u -= inter
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(u <= 0, np.zeros((), u.dtype), inter / u)


# area(boxes, fmt); plus: what a side gains (1 for pixel widths); iou(inter, area_a,
# area_b); suppresses(iou, thresh) -> bool
Overlap = namedtuple("Overlap", ["area", "plus", "iou", "suppresses"])

OVERLAPS = {
    "box": Overlap(_area_box, 0, _iou_plain, lambda iou, t: iou > t),
    "pixel": Overlap(_area_pixel, 1, _iou_plain, lambda iou, t: iou > t),
    "multibox": Overlap(_area_multibox, 0, _iou_multibox, lambda iou, t: iou >= t),
}


def intersection(rule, a, b, fmt="corner"):
    """The intersection area of every box of a (..., n, 4) with every box of b (..., m, 4)
    under the convention `rule` (a key of OVERLAPS), in a's dtype: shape (..., n, m)."""
    ov = OVERLAPS[rule] if isinstance(rule, str) else rule
    exact = not (np.isfinite(a).all() and np.isfinite(b).all())
    return _intersection(a, b, fmt, a.dtype.type(ov.plus) if ov.plus else 0, exact)


def overlap(rule, a, b, fmt="corner", area_a=None, area_b=None):
    """The overlap of every box of a (..., n, 4) with every box of b (..., m, 4) under the
    convention `rule` (a key of OVERLAPS), in a's dtype: shape (..., n, m). Boxes holding
    NaN or infinity follow C's comparison semantics exactly; finite ones take a faster path
    with the same results."""
    ov = OVERLAPS[rule] if isinstance(rule, str) else rule
    inter = intersection(ov, a, b, fmt)
    if area_a is None:
        area_a = ov.area(a, fmt)
    if area_b is None:
        area_b = ov.area(b, fmt)
    return ov.iou(inter, area_a, area_b)


def _suppression(ov, boxes, areas, cls, thresh, fmt, rows, cols):
    """(B, len(rows), len(cols)) bool: row box suppresses column box (rows, cols: index
    arrays (B, n) into the candidates)."""
    take = np.take_along_axis
    iou = overlap(ov, take(boxes, rows[..., None], axis=1), take(boxes, cols[..., None], axis=1),
                  fmt, take(areas, rows, axis=1), take(areas, cols, axis=1))
    s = ov.suppresses(iou, thresh)
    if cls is not None:
        s &= take(cls, rows, axis=1)[:, :, None] == take(cls, cols, axis=1)[:, None, :]
    return s


def _front(mask):
    """Index arrays (B, k) bringing each row's True entries first (in order), and the mask of
    which of those k slots are real (rows with fewer Trues are padded)."""
    k = int(mask.sum(axis=1).max()) if mask.size else 0
    order = np.argsort(~mask, axis=1, kind="stable")[:, :k]
    return order, np.take_along_axis(mask, order, axis=1)


def greedy_nms(boxes, count, thresh, rule="box", fmt="corner", cls=None, max_keep=None,
               block=256):
    """Greedy non-maximum suppression of candidates already sorted by descending score.

    Args:
        boxes: (B, T, 4) candidate boxes per batch row, best first (rows past count[b] are
            padding and never kept).
        count: (B,) how many candidates each row has.
        thresh: the overlap threshold, in boxes' dtype.
        rule: the overlap convention, a key of `OVERLAPS`.
        fmt: 'corner' or 'center' (the 'box' rule reads both).
        cls: None, or (B, T) class labels: a box only suppresses boxes of its own class.
        max_keep: stop once a row has kept this many (Proposal's post-NMS count).
        block: candidates resolved together.

    Returns:
        (B, T) bool: which candidates are kept.

    Example::

        keep = greedy_nms(sorted_boxes[None], np.array([n]), np.float32(0.5))[0]
    """
    ov = OVERLAPS[rule]
    B, T = boxes.shape[:2]
    areas = ov.area(boxes, fmt)
    alive = np.arange(T)[None, :] < np.asarray(count)[:, None]
    keep = np.zeros((B, T), bool)
    kept = np.zeros(B, np.int64)
    for s in range(0, T, block):
        e = min(s + block, T)
        live = alive[:, s:e]
        if not live.any():
            continue
        idx = np.broadcast_to(np.arange(s, e), (B, e - s))
        m = _suppression(ov, boxes, areas, cls, thresh, fmt, idx, idx)
        m &= np.triu(np.ones((e - s, e - s), bool), 1)[None]
        m &= live[:, :, None] & live[:, None, :]
        # Jacobi passes over the triangular system keep_j = live_j and no kept i < j
        # suppresses j; pass t fixes candidate t at the latest, most settle in a few passes
        mf = m.astype(np.float32)
        k = live.copy()
        while True:
            hit = np.matmul(k.astype(np.float32)[:, None, :], mf)[:, 0] > 0
            new = live & ~hit
            if np.array_equal(new, k):
                break
            k = new
        if max_keep is not None:
            k &= (kept[:, None] + np.cumsum(k, axis=1)) <= max_keep
        keep[:, s:e] = k
        kept += k.sum(axis=1)
        if max_keep is not None:
            alive[kept >= max_keep] = False  # a full row keeps nothing more
            if not alive[:, e:].any():
                break
        later = alive[:, e:]
        if e < T and later.any() and k.any():
            rows, rows_ok = _front(k)
            cols, cols_ok = _front(later)
            rows += s
            cols += e
            hit = _suppression(ov, boxes, areas, cls, thresh, fmt, rows, cols)
            hit &= rows_ok[:, :, None]
            dead = hit.any(axis=1) & cols_ok
            np.put_along_axis(alive, cols, np.take_along_axis(alive, cols, axis=1) & ~dead,
                              axis=1)
    return keep


def greedy_match(s, thresh, topk=-1):
    """Greedy bipartite matching of score matrices s (B, R, C), best score first.

    The entries are visited in a stable sort of each matrix by descending score (ties by
    position); an entry whose row and column are both free is matched if its score exceeds
    thresh, and the first one that does not ends that matrix's matching; with topk > 0 the
    matching ends after topk + 1 matches (bipartite_matching's count, as in MXNet). Each step
    takes, per column, its best free row (kept up to date as rows are taken), so the work is
    about R * C per matrix, not a visit of every entry.

    Returns:
        (row (B, R), col (B, C)) int64: the column matched to each row, the row matched to
        each column, -1 where none.

    Example::

        row, col = greedy_match(ious[None], 1e-6)
    """
    B, R, C = s.shape
    row = np.full((B, R), -1, np.int64)
    col = np.full((B, C), -1, np.int64)
    if R == 0 or C == 0:
        return row, col
    free_r = np.ones((B, R), bool)
    free_c = np.ones((B, C), bool)
    best_r = s.argmax(axis=1)                       # (B, C): per column, its best free row
    best_v = np.take_along_axis(s, best_r[:, None, :], axis=1)[:, 0]
    active = np.ones(B, bool)
    count = np.zeros(B, np.int64)
    bi = np.arange(B)
    flat = best_r * C + np.arange(C)[None, :]
    for _ in range(min(R, C)):
        v = np.where(free_c, best_v, -np.inf)
        top = v.max(axis=1)
        tie = np.where(free_c & (v == top[:, None]), flat, R * C)
        c = tie.argmin(axis=1)
        r = best_r[bi, c]
        ok = active & (top > thresh) & free_c[bi, c]
        active &= ok
        if not active.any():
            break
        b = bi[active]
        row[b, r[active]] = c[active]
        col[b, c[active]] = r[active]
        free_r[b, r[active]] = False
        free_c[b, c[active]] = False
        count[b] += 1
        if topk > 0:
            active &= count <= topk
        # columns whose best row was just taken look for their next free row
        stale = free_c & (best_r == np.where(active, r, -1)[:, None])
        sb, sc = np.nonzero(stale)
        if sb.size:
            cand = np.where(free_r[sb], s[sb, :, sc], -np.inf)
            best_r[sb, sc] = cand.argmax(axis=1)
            best_v[sb, sc] = cand.max(axis=1)
            flat[sb, sc] = best_r[sb, sc] * C + sc
    return row, col
