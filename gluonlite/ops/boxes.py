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
import functools
from collections import namedtuple

import numpy as np

__all__ = ["exp", "log", "corners", "to_format", "OVERLAPS", "Overlap", "intersection", "overlap",
           "greedy_nms", "greedy_match",
           "best_first"]


def exp(x):
    """e**x rounded once to x's dtype, as C's expf (correctly rounded in glibc) gives it for
    float32; numpy's own float32 exp may differ in the last bit.

    Args:
        x: a numpy float array.

    Returns:
        numpy.ndarray: e**x in x's dtype (overflow gives inf without a warning).

    Example::

        from gluonlite.ops import boxes
        boxes.exp(np.array([0.0, 1.0], np.float32))     # array([1., 2.7182817], dtype=float32)
    """
    if x.dtype == np.float32:
        with np.errstate(over="ignore"):
            return np.exp(x.astype(np.float64)).astype(np.float32)
    return np.exp(x)


def log(x):
    """log(x) rounded once to x's dtype (C's logf for float32; see `exp`).

    Args:
        x: a numpy float array.

    Returns:
        numpy.ndarray: log(x) in x's dtype (-inf for 0, NaN for negatives, no warning).

    Example::

        from gluonlite.ops import boxes
        boxes.log(np.array([1.0, 0.0], np.float32))     # array([0., -inf], dtype=float32)
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        if x.dtype == np.float32:
            return np.log(x.astype(np.float64)).astype(np.float32)
        return np.log(x)


def corners(b, fmt):
    """(xmin, ymin, xmax, ymax) of boxes b (..., 4) in `fmt`: 'corner' (xmin, ymin, xmax,
    ymax) or 'center' (x, y, width, height).

    Args:
        b: the boxes, an array (..., 4).
        fmt: 'corner' or 'center' (any other value is read as 'center').

    Returns:
        tuple of 4 arrays: xmin, ymin, xmax, ymax, each of shape b.shape[:-1].

    Example::

        from gluonlite.ops import boxes
        xmin, ymin, xmax, ymax = boxes.corners(np.array([5.0, 5.0, 2.0, 4.0]), "center")
        (xmin, ymin, xmax, ymax)        # (4.0, 3.0, 6.0, 7.0)
    """
    if fmt == "corner":
        return b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    x, y, w, h = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    return x - w / 2, y - h / 2, x + w / 2, y + h / 2


def to_format(b, fin, fout):
    """Boxes b (..., 4) converted from format `fin` to `fout` ('corner' or 'center'), in b's
    dtype.

    Args:
        b: the boxes, an array (..., 4).
        fin: their format, 'corner' or 'center'.
        fout: the format wanted, 'corner' or 'center'.

    Returns:
        numpy.ndarray: the boxes in `fout` (b itself when the formats agree).

    Example::

        from gluonlite.ops import boxes
        boxes.to_format(np.array([4.0, 3.0, 6.0, 7.0]), "corner", "center")
        # array([5., 5., 2., 4.])
    """
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
    area = w * h
    empty = (w < 0) | (h < 0)
    if empty.any():
        area[empty] = 0
    return area


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
    bad = u <= 0
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = np.divide(inter, u, out=inter)
    if bad.any():  # a union of 0 or less gives 0 (a select on every entry is slower)
        iou[bad] = 0
    return iou


# area(boxes, fmt); plus: what a side gains (1 for pixel widths); iou(inter, area_a,
# area_b); suppresses(iou, thresh) -> bool
Overlap = namedtuple("Overlap", ["area", "plus", "iou", "suppresses"])
Overlap.__doc__ = """One overlap convention of `OVERLAPS` (see the comment above).

Example::

    from gluonlite.ops.boxes import OVERLAPS
    ov = OVERLAPS["pixel"]
    ov.plus, ov.suppresses(0.5, 0.5)        # (1, False): pixel sides gain 1; iou > t suppresses
"""

OVERLAPS = {
    "box": Overlap(_area_box, 0, _iou_plain, lambda iou, t: iou > t),
    "pixel": Overlap(_area_pixel, 1, _iou_plain, lambda iou, t: iou > t),
    "multibox": Overlap(_area_multibox, 0, _iou_multibox, lambda iou, t: iou >= t),
}


def intersection(rule, a, b, fmt="corner", exact=None):
    """The intersection area of every box of a (..., n, 4) with every box of b (..., m, 4)
    under the convention `rule` (a key of OVERLAPS), in a's dtype: shape (..., n, m).
    `exact` (default: whether a box holds NaN or infinity) follows C's comparisons exactly;
    finite boxes take a faster path with the same results.

    Args:
        rule: a key of OVERLAPS ('box', 'pixel', 'multibox') or an `Overlap`.
        a: the first boxes, (..., n, 4).
        b: the second boxes, (..., m, 4).
        fmt: the boxes' format, 'corner' (default) or 'center'.
        exact: use C's comparisons exactly (default None: when a box is not finite).

    Returns:
        numpy.ndarray: (..., n, m) areas, in a's dtype.

    Example::

        from gluonlite.ops import boxes
        a = np.array([[0.0, 0.0, 2.0, 2.0]])
        boxes.intersection("box", a, a + 1)     # array([[1.]])
    """
    ov = OVERLAPS[rule] if isinstance(rule, str) else rule
    if exact is None:
        exact = not (np.isfinite(a).all() and np.isfinite(b).all())
    return _intersection(a, b, fmt, a.dtype.type(ov.plus) if ov.plus else 0, exact)


def overlap(rule, a, b, fmt="corner", area_a=None, area_b=None, exact=None):
    """The overlap of every box of a (..., n, 4) with every box of b (..., m, 4) under the
    convention `rule` (a key of OVERLAPS), in a's dtype: shape (..., n, m) (`exact`: see
    `intersection`).

    Args:
        rule: a key of OVERLAPS ('box', 'pixel', 'multibox') or an `Overlap`.
        a: the first boxes, (..., n, 4).
        b: the second boxes, (..., m, 4).
        fmt: the boxes' format, 'corner' (default) or 'center'.
        area_a: the areas of a's boxes, (..., n), when already known (default None:
            computed).
        area_b: the areas of b's boxes, (..., m) (default None: computed).
        exact: use C's comparisons exactly (default None: when a box is not finite).

    Returns:
        numpy.ndarray: (..., n, m) overlaps (intersection over union by the rule's
        convention), in a's dtype.

    Example::

        from gluonlite.ops import boxes
        a = np.array([[0.0, 0.0, 2.0, 2.0]])
        boxes.overlap("box", a, a + 1)          # array([[0.14285714]]): 1 / 7
    """
    ov = OVERLAPS[rule] if isinstance(rule, str) else rule
    inter = intersection(ov, a, b, fmt, exact)
    if area_a is None:
        area_a = ov.area(a, fmt)
    if area_b is None:
        area_b = ov.area(b, fmt)
    return ov.iou(inter, area_a, area_b)


_PAIRS = 1 << 16  # overlaps evaluated at once: small enough to stay in the CPU's cache


def _take(a, idx):
    """a[b, idx[b]] for every batch row b (take_along_axis; one row, the common case,
    indexes directly)."""
    if a.shape[0] == 1:
        return a[0, idx[0]][None]
    return a[np.arange(a.shape[0])[:, None], idx]


class _Candidates:
    """What the suppression of one call reads: its sorted boxes, their areas and classes, the
    overlap rule, the threshold and whether a box holds NaN or infinity."""

    def __init__(self, ov, boxes, cls, thresh, fmt):
        self.ov, self.boxes, self.cls, self.thresh, self.fmt = ov, boxes, cls, thresh, fmt
        self.areas = ov.area(boxes, fmt)
        self.exact = not np.isfinite(boxes).all()

    def pairs(self, rows, cols):
        """(B, len(rows), len(cols)) bool: row candidate suppresses column candidate (rows,
        cols: index arrays (B, n) into the candidates)."""
        iou = overlap(self.ov, _take(self.boxes, rows), _take(self.boxes, cols), self.fmt,
                      _take(self.areas, rows), _take(self.areas, cols), self.exact)
        s = self.ov.suppresses(iou, self.thresh)
        if self.cls is not None:
            s &= _take(self.cls, rows)[:, :, None] == _take(self.cls, cols)[:, None, :]
        return s

    def hit(self, rows, rows_ok, cols):
        """(B, len(cols)) bool: whether some real row candidate (rows_ok) suppresses each
        column candidate; the overlaps are taken a cache-sized slab of columns at a time."""
        out = np.zeros(cols.shape, bool)
        if not rows.shape[1]:
            return out
        step = max(1, _PAIRS // (rows.shape[0] * rows.shape[1]))
        for c0 in range(0, cols.shape[1], step):
            s = self.pairs(rows, cols[:, c0:c0 + step])
            s &= rows_ok[:, :, None]
            out[:, c0:c0 + step] = s.any(axis=1)
        return out


def _front(mask):
    """Index arrays (B, k) bringing each row's True entries first (in order), and the mask of
    which of those k slots are real (rows with fewer Trues are padded)."""
    if mask.shape[0] == 1:
        idx = np.flatnonzero(mask[0])[None]
        return idx, np.ones(idx.shape, bool)
    k = int(mask.sum(axis=1).max()) if mask.size else 0
    order = np.argsort(~mask, axis=1, kind="stable")[:, :k]
    return order, np.take_along_axis(mask, order, axis=1)


@functools.lru_cache(maxsize=8)
def _upper(n):
    """(1, n, n) bool: i < j."""
    return np.triu(np.ones((n, n), bool), 1)[None]


def _settle(m, live):
    """The greedy keep mask of one block: keep_j = live_j and no kept i < j suppresses j (m:
    (B, n, n) bool, row suppresses column, upper triangle only). Solved by Jacobi passes over
    the triangular system: pass t fixes candidate t at the latest, and most blocks settle in
    a few passes (a matrix-vector product each)."""
    mf = m.astype(np.float32)
    k = live
    while True:
        new = live & ~(np.matmul(k.astype(np.float32)[:, None, :], mf)[:, 0] > 0)
        if np.array_equal(new, k):
            return k
        k = new


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

    Without max_keep, the kept boxes of a block remove what they suppress from every later
    candidate at once, so later blocks only weigh the survivors; with max_keep, a block is
    instead held against every box kept so far, so the work stops with the last box needed.
    With classes (and no max_keep) each class is suppressed on its own, classes of similar
    sizes side by side as rows of one call: boxes of different classes are never compared.

    Example::

        from gluonlite.ops.boxes import greedy_nms
        b = np.array([[0, 0, 2, 2], [0, 0, 2, 1.9], [3, 3, 4, 4]], np.float32)  # best first
        greedy_nms(b[None], np.array([3]), np.float32(0.5))[0]
        # array([ True, False,  True]): the second overlaps the first too much
    """
    if cls is not None and max_keep is None:
        return _by_class(boxes, count, thresh, rule, fmt, cls, block)
    B, T = boxes.shape[:2]
    cand = _Candidates(OVERLAPS[rule], boxes, cls, thresh, fmt)
    alive = np.arange(T)[None, :] < np.asarray(count)[:, None]
    keep = np.zeros((B, T), bool)
    kept = np.zeros(B, np.int64)
    for s in range(0, T, block):
        e = min(s + block, T)
        live = alive[:, s:e].copy()
        if max_keep is not None and keep[:, :s].any():  # held against all kept so far
            rows, rows_ok = _front(keep[:, :s])
            live &= ~cand.hit(rows, rows_ok, np.broadcast_to(np.arange(s, e), live.shape))
        if not live.any():
            continue
        idx, ok = _front(live)  # the block's survivors only
        m = cand.pairs(idx + s, idx + s)
        m &= _upper(idx.shape[1])
        m &= ok[:, :, None] & ok[:, None, :]
        k = np.zeros_like(live)
        np.put_along_axis(k, idx, _settle(m, ok), axis=1)
        k &= live  # padding slots of _front point at dead candidates
        if max_keep is not None:
            k &= (kept[:, None] + np.cumsum(k, axis=1)) <= max_keep
        keep[:, s:e] = k
        kept += k.sum(axis=1)
        if max_keep is not None:
            alive[kept >= max_keep] = False  # a full row keeps nothing more
            if not alive[:, e:].any():
                break
            continue
        later = alive[:, e:]
        if e < T and later.any() and k.any():
            rows, rows_ok = _front(k)
            cols, cols_ok = _front(later)
            dead = cand.hit(rows + s, rows_ok, cols + e) & cols_ok
            np.put_along_axis(alive, cols + e,
                              np.take_along_axis(alive, cols + e, axis=1) & ~dead, axis=1)
    return keep


def best_first(score, valid, limit):
    """Per batch row: the indices of the valid entries by descending score (ties by
    position: a stable sort), only the first `limit`; (B, T) padded with 0, and the count per
    row. Only rows with more than `limit` valid entries are partitioned first, so a topk of
    400 among 500,000 boxes sorts 400 of them.

    Args:
        score: the scores, (B, N).
        valid: which entries count, a boolean array (B, N).
        limit: the most indices kept per row.

    Returns:
        (numpy.ndarray, numpy.ndarray): the int64 indices (B, T), T the largest count, and
        the int64 count per row (B,).

    Example::

        from gluonlite.ops import boxes
        score = np.array([[0.5, 0.9, 0.1]])
        order, count = boxes.best_first(score, score > 0.2, limit=10)
        order, count            # (array([[1, 0]]), array([2]))
    """
    rows, counts = [], []
    for s_row, v_row in zip(score, valid):
        idx = np.flatnonzero(v_row)
        s = s_row[idx]
        if idx.size > limit:
            kth = np.partition(s, idx.size - limit)[idx.size - limit]  # the limit-th largest
            above = s > kth
            ties = np.flatnonzero(s == kth)[:limit - int(above.sum())]
            sel = np.sort(np.concatenate([np.flatnonzero(above), ties]))
            idx, s = idx[sel], s[sel]
        rows.append(idx[np.argsort(-s, kind="stable")])
        counts.append(idx.size)
    order = np.zeros((len(rows), max(counts, default=0)), np.int64)
    for b, r in enumerate(rows):
        order[b, :r.size] = r
    return order, np.array(counts, np.int64)


def _by_class(boxes, count, thresh, rule, fmt, cls, block):
    """greedy_nms with classes, one class of one batch row at a time: the classes' candidates
    (in score order) become the rows of calls without classes, grouped by padded size (a
    power of two), so padding at most doubles the work."""
    B, T = boxes.shape[:2]
    keep = np.zeros((B, T), bool)
    bb, tt = np.nonzero(np.arange(T)[None, :] < np.asarray(count)[:, None])
    if not bb.size:
        return keep
    key = bb.astype(np.int64) << 32 | (cls[bb, tt].astype(np.int64) & 0xFFFFFFFF)
    _, group, sizes = np.unique(key, return_inverse=True, return_counts=True)
    order = np.argsort(group, kind="stable")  # by class, score order kept inside each
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    width = 1 << np.ceil(np.log2(np.maximum(sizes, 1))).astype(np.int64)
    for w in np.unique(width):
        gs = np.nonzero(width == w)[0]
        pos = np.minimum(starts[gs, None] + np.arange(w)[None, :],
                         (starts[gs] + sizes[gs] - 1)[:, None])  # padding repeats the last
        member = order[pos]
        k = greedy_nms(boxes[bb[member], tt[member]], sizes[gs], thresh, rule, fmt,
                       block=block)
        keep[bb[member[k]], tt[member[k]]] = True
    return keep


def greedy_match(s, thresh, topk=-1):
    """Greedy bipartite matching of score matrices s (B, R, C), best score first.

    The entries are visited in a stable sort of each matrix by descending score (ties by
    position); an entry whose row and column are both free is matched if its score exceeds
    thresh, and the first one that does not ends that matrix's matching; with topk > 0 the
    matching ends after topk + 1 matches (bipartite_matching's count, as in MXNet). Each step
    takes, per column, its best free row (kept up to date as rows are taken), so the work is
    about R * C per matrix, not a visit of every entry.

    Args:
        s: the score matrices, (B, R, C).
        thresh: the score an entry must exceed to be matched.
        topk: with topk > 0, stop after topk + 1 matches (default -1: no limit).

    Returns:
        (row (B, R), col (B, C)) int64: the column matched to each row, the row matched to
        each column, -1 where none.

    Example::

        from gluonlite.ops.boxes import greedy_match
        ious = np.array([[0.9, 0.2], [0.8, 0.3]])
        row, col = greedy_match(ious[None], 1e-6)
        row, col        # (array([[0, 1]]), array([[0, 1]]))
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
