"""The numpy fast path of the convolution kernels; `conv.py` keeps the plain rule.

The arithmetic is `conv.conv_forward` / `conv.conv_backward`'s (im2col, one matrix product
per group, col2im), arranged for numpy and OpenBLAS on one core:

- No padded copy of the input: each kernel offset copies the part of the input its windows
  read (one strided slice per offset, into the rows of a reused column buffer) and zeroes
  the thin border its windows lose to the padding.
- Forward: W (F, C*K) @ cols (C*K, m*P) for a chunk of m samples, the product the floor
  times; its output (F, m, P) is put back sample-major by the copy that also adds the bias.
- A 1x1 kernel at stride 1 without padding is a plain product per sample: no columns.
- Backward at stride 1 (any dilation): the data gradient is itself a convolution (of the
  output gradient with the flipped, transposed kernel), so it goes through the forward
  path: columns copied, not K strided adds. Otherwise the column gradients W.T @ gy are
  added back into the input gradient, one strided add per kernel offset.
- The weight gradient is gy (F, m*P) @ cols.T, one product per chunk and group.
- Stride-1 layers with few channels (`conv_shifted.RULES`: up to 96 in, or 128 in and 64
  out) make one product per kernel tap over shifted windows of a padded copy of the input
  (`conv_shifted.py`), where im2col's K copies of the input cost more than K products.
- 3x3 stride-1 layers wide enough (`conv_winograd.RULES`) go through Winograd F(2x2, 3x3)
  (`conv_winograd.py`): 16 batched products doing 4/9 of the multiply-adds, their data
  gradient too (it is such a convolution).
- Depthwise layers (groups = channels = filters, 2-D) skip im2col: maps up to
  `_DW_BANDED_WIDTH` wide as banded products per kernel row, wider ones tap by tap over the
  padded input's stride phases (BLAS axpy/dot for long runs); see the comments below.

Columns are made a few samples at a time (`_CHUNK` entries): a whole batch's columns would be
K times the input (925 MB for 32 samples of 64 x 56 x 56, 3 x 3), and paging that in costs
as much as the product; chunks that stay in the cache make the copies cheap.
"""
import weakref
from math import prod

import numpy as np

from . import blas_threads, conv_shifted, conv_winograd

__all__ = ["usable", "forward", "backward"]

_CHUNK = 1 << 21
_BLOCK = 1 << 20
# Columns of at most `_FEW_ROWS` rows (a stem's 3 x 3 x 3, a strided layer of few channels)
# are made `_FEW_ROWS_CHUNK` entries of samples at a time, a quarter of the L2 cache's
# worth, not `_CHUNK`: the product of so few rows reads each column entry for a few
# multiply-adds only, so it runs at the speed its columns come in, from the cache or from
# memory. Measured at batch 8 and 32 (forward / weight gradient): MobileNet v1 0.25's stem
# (3 -> 8, stride 2) 0.68-0.69 / 0.76-0.80, v2's (3 -> 32) 0.63-0.76 / 0.77-0.81, 8 -> 16
# and 16 -> 32 at stride 2 on 112 x 112 0.65-0.81 / 0.81-0.90, ResNet-50's 1 x 1 stride-2
# layer (256 rows) 0.94-0.98; with more rows the chunk's products get narrow (455 columns
# at 1152 rows) and lose (1.03-1.3x).
_FEW_ROWS = 256
_FEW_ROWS_CHUNK = 1 << 19

# False sends every array to the plain kernel in conv.py (benchmarks/conv.py times both).
ENABLED = True


def usable(xp, *arrays):
    """Whether the fast path applies: enabled, and numpy arrays of one BLAS floating dtype.

    Args:
        xp: the array module of the arrays (the fast path is numpy only).
        *arrays: the arrays of the call (None entries are skipped, not the first).

    Returns:
        bool

    Example::

        from gluonlite.ops import conv_fast
        x, w = np.ones((1, 1, 3, 3), np.float32), np.ones((1, 1, 2, 2), np.float32)
        conv_fast.usable(np, x, w)      # True where the fast path is enabled
    """
    if not ENABLED or xp is not np:
        return False
    dt = arrays[0].dtype
    return dt in (np.float32, np.float64) and all(a is None or a.dtype == dt for a in arrays)


def _memo(fn):
    """`fn(g, sp, *rest)` remembered per geometry (its numbers), spatial shape and rest: the
    plans and layouts a geometry needs are made once, not on every call (a network calls
    each layer's geometry again and again; at batch 1 making them cost as much as small
    layers' arithmetic). The results are only read."""
    memo = {}
    missing = object()  # a result may be None (`_live`'s, for most layers): cached too

    def cached(g, sp, *rest):
        key = (g.kernel, g.stride, g.dilate, g.pad, g.pad_end, g.out, tuple(sp), rest)
        hit = memo.get(key, missing)
        if hit is missing:
            if len(memo) > 4096:  # a program running many shapes: start again
                memo.clear()
            hit = memo[key] = fn(g, sp, *rest)
        return hit
    cached.__doc__, cached.__name__ = fn.__doc__, fn.__name__
    return cached


@_memo
def _plan(g, sp, r0=0, r1=None):
    """Per kernel offset, for the output positions whose first-axis index is in [r0, r1):
    (index, output slices, input slices, border slabs). The output slices (relative to r0 on
    the first axis) are the positions whose window at this offset lands inside the input, not
    in the padding; the input slices what they read; the slabs the rest of the positions
    (per axis, before and after)."""
    nd = len(sp)
    r1 = g.out[0] if r1 is None else r1
    plan = []
    for j, k in enumerate(np.ndindex(*g.kernel)):
        dst, src, slabs = [], [], []
        for i in range(nd):
            off = k[i] * g.dilate[i] - g.pad[i]
            s = g.stride[i]
            lo, hi = (r0, r1) if i == 0 else (0, g.out[i])
            o0 = min(hi, max(lo, -(off // s)))
            o1 = max(o0, min(hi, (sp[i] - 1 - off) // s + 1))
            dst.append(slice(o0 - lo, o1 - lo))
            src.append(slice(o0 * s + off, (o1 - 1) * s + off + 1, s) if o1 > o0
                       else slice(0, 0))
            lead = (slice(None),) * i
            if o0 > lo:
                slabs.append(lead + (slice(0, o0 - lo),))
            if o1 < hi:
                slabs.append(lead + (slice(o1 - lo, None),))
        plan.append((j, tuple(dst), tuple(src), slabs))
    return plan


def _im2col(x, s, e, g, plan, buf, rows=None):
    """The columns (C*K, m*Q) of samples s:e of x (N, C, *sp), rows channel-major then kernel
    offset (w.reshape(F, -1)'s order), written into `buf`; Q is the output positions of
    `rows` first-axis indices (all by default) that `plan` was made for."""
    m, c = e - s, x.shape[1]
    osh = ((g.out[0] if rows is None else rows),) + tuple(g.out[1:])
    q = prod(osh)
    cols = buf[:c * len(plan) * m * q].reshape((c, len(plan), m) + osh)
    xs = x[s:e].swapaxes(0, 1)
    both = (slice(None), slice(None))
    for j, dst, src, slabs in plan:
        d = cols[:, j]
        d[both + dst] = xs[both + src]
        for sl in slabs:
            d[both + sl] = 0
    return cols.reshape(c * len(plan), m * q)


def _col2im_add(dcols, dx, s, e, g, plan):
    """Add column gradients (C*K, m*P) into samples s:e of dx (N, C, *sp)."""
    c = dx.shape[1]
    cv = dcols.reshape((c, len(plan), e - s) + tuple(g.out))
    dxs = dx[s:e].swapaxes(0, 1)
    both = (slice(None), slice(None))
    if all(st == 1 for st in g.stride):
        for j, dst, src, _ in plan:
            dxs[both + src] += cv[(slice(None), j) + (slice(None),) + dst]
        return
    # Strided: an add into every stride-th position runs at a fraction of a contiguous add,
    # so each phase of the input (the positions one residue modulo the stride) is summed
    # in a contiguous buffer of its own and copied into place once (dx is zero there: the
    # phases partition it, and no other chunk writes these samples).
    sp = dx.shape[2:]
    phases = {}
    for j, dst, src, _ in plan:
        r = tuple(sl.start % st for sl, st in zip(src, g.stride))
        buf = phases.get(r)
        if buf is None:
            lens = tuple(-(-(n - ri) // st) for n, ri, st in zip(sp, r, g.stride))
            buf = phases[r] = np.zeros(dxs.shape[:2] + lens, dtype=dx.dtype)
        q = tuple(slice(sl.start // st, sl.start // st + (d.stop - d.start))
                  for sl, st, d in zip(src, g.stride, dst))
        if all(d.stop > d.start for d in dst):
            buf[both + q] += cv[(slice(None), j) + (slice(None),) + dst]
    for r, buf in phases.items():
        dxs[both + tuple(slice(ri, None, st) for ri, st in zip(r, g.stride))] = buf


def _chunks(n, per_sample, chunk=None):
    step = max(1, min(n, (chunk or _CHUNK) // max(1, per_sample)))
    return step, [(s, min(n, s + step)) for s in range(0, n, step)]


def _tiles(n, per_sample, g, sp):
    # the chunk sizes are in the key: tests set them small
    few = per_sample // prod(g.out) <= _FEW_ROWS
    return _tiles_of(g, sp, n, per_sample, _FEW_ROWS_CHUNK if few else _CHUNK, _BLOCK)


@_memo
def _tiles_of(g, sp, n, per_sample, chunk, block):
    """The pieces the columns are made in: (s, e, r0, r1, plan) for samples s:e and output
    first-axis rows r0:r1. A sample whose columns exceed `block` entries is cut into blocks
    of rows that stay in the cache, and each block's product is written straight into its
    place in the output; smaller samples are taken several at a time, whole, up to `chunk`
    entries."""
    out0 = g.out[0]
    if per_sample <= block or out0 == 1:
        step, chunks = _chunks(n, per_sample, chunk)
        plan = _plan(g, sp)
        return step * per_sample, [(s, e, 0, out0, plan) for s, e in chunks]
    rows = max(1, min(out0, block * out0 // per_sample))
    plans = {r0: _plan(g, sp, r0, min(out0, r0 + rows)) for r0 in range(0, out0, rows)}
    return rows * (per_sample // out0), [(s, s + 1, r0, min(out0, r0 + rows), plans[r0])
                                          for s in range(n) for r0 in plans]


@_memo
def _live(g, sp):
    """(geometry, kernel slices) of the taps of `g` whose windows reach the input on spatial
    sizes `sp`, when some taps read only padding at every output position; else None.

    A dilated kernel on a small map (DeepLab's atrous branches: dilation 24 and 36 on 16 x 16
    maps) reads padding alone with all but its centre tap, and im2col would make those rows of
    zeros and multiply them. A tap is dead where `_plan` gives it no output positions on some
    axis; per axis the live kernel indices are a run a..b, so the live taps are the kernel's
    block [a..b] on each axis: the same convolution with that smaller kernel and the padding
    moved by a*dilate before and (k-1-b)*dilate after. The output is the same, and the dead
    taps' weights get a zero gradient."""
    taps = list(np.ndindex(*g.kernel))
    runs = []
    for i in range(len(sp)):
        live = sorted({taps[j][i] for j, dst, _, _ in _plan(g, sp) if dst[i].stop > dst[i].start})
        runs.append((live[0], live[-1]) if live else None)
    if None in runs or all(b - a + 1 == k for (a, b), k in zip(runs, g.kernel)):
        return None
    gt = type(g)([b - a + 1 for a, b in runs], g.stride, g.dilate,
                 [p - a * d for (a, _), p, d in zip(runs, g.pad, g.dilate)],
                 [p - (k - 1 - b) * d for (_, b), p, d, k in zip(runs, g.pad_end, g.dilate,
                                                                   g.kernel)], g.out)
    return gt, (slice(None), slice(None)) + tuple(slice(a, b + 1) for a, b in runs)


# Depthwise convolutions (one filter per channel, MobileNet's 3x3 layers) run as a direct
# kernel, one pass per kernel tap: no columns, and no tiny product per channel. A block of
# samples and channels is laid out padded and split into its stride phases (the input
# positions one residue modulo the stride), each phase flat and contiguous, a channel's
# samples one after another; on such a phase a tap's window positions are one contiguous
# run at a fixed offset, so each tap is a multiply and an add over long runs (the output
# computed on the phase's full width and across the gaps between samples, the extra
# entries dropped at the end). The gradient is the same walk the other way (data) and a
# sum of products per tap (weight). The work goes a block of about `_DW_BLOCK` entries at a
# time, as many samples as fit first, so the passes over a block stay in the cache and
# each BLAS call covers several samples: on MobileNet's 56- and 112-wide layers at batch
# 32 the forward and gradient take 0.75-0.91 of the time of blocks of one sample. False
# sends depthwise layers through im2col (benchmarks/models.py --ab nodw times both).
DIRECT_DEPTHWISE = True
# The data gradient of such a layer (on maps too wide for the banded kernel) through the
# forward kernel, one call per stride phase (`_depthwise_dx_as_forward`); False: scattered
# tap by tap (benchmarks/kernel_trees.py times both).
DW_DX_AS_FORWARD = True
_DW_BLOCK = 1 << 16
# blocks spanning several samples take this many times `_DW_BLOCK`: fewer blocks, fewer
# calls (the gradient at batch 32 in 0.87-0.97 of the time with the same budget, the
# forward within 10% either way); a block of one sample's channels keeps the smaller
# budget (MobileNet's inference at batch 1, one cold call, was up to 9% slower with it)
_DW_SAMPLES_SCALE = 2
_DW_SHORT = 2048


def _depthwise(groups, c, f, g):
    return DIRECT_DEPTHWISE and groups == c == f and groups > 1 and len(g.kernel) == 2


class _Phases:
    """The layout of one depthwise geometry: the padded input split into stride phases of
    `rows` x `width` entries each (plus slack, so every tap's run fits: `size` entries),
    and per tap its (weight index, phase, offset in the flat phase). A block of k samples
    keeps, per channel, each phase's k samples one after another, so that one run of a tap
    covers the k samples (`run_of`)."""

    def __init__(self, g, sp):
        (sh, sw), (dh, dw), (ph, pw) = g.stride, g.dilate, g.pad
        oh, ow = g.out
        kh, kw = g.kernel
        # padded extent the windows reach, rounded up to whole phases
        hp = max(sp[0] + ph, (oh - 1) * sh + (kh - 1) * dh + 1)
        wp = max(sp[1] + pw, (ow - 1) * sw + (kw - 1) * dw + 1)
        self.rows, self.width = -(-hp // sh), -(-wp // sw)
        self.strides, self.pad, self.sp, self.out = (sh, sw), (ph, pw), tuple(sp), (oh, ow)
        self.n_phase = sh * sw
        self.taps = []
        for i in range(kh):
            for j in range(kw):
                r, c = i * dh, j * dw
                self.taps.append(((i, j), (r % sh) * sw + c % sw,
                                  (r // sh) * self.width + c // sw))
        self.run = oh * self.width  # output entries computed per channel (extra columns)
        self.size = self.rows * self.width + self.width  # slack: the last tap's tail
        # per phase the input reaches: (phase, the input positions landing in it, where they
        # land in the phase's (rows, width) grid), as indices of (samples, channels, ...)
        self._landings = []
        every = (slice(None), slice(None))
        for a in range(sh):
            for b in range(sw):
                # input rows/cols landing in this phase: padded index a + sh*t = input + pad
                r0 = (a - ph) % sh if a < ph else a - ph
                c0 = (b - pw) % sw if b < pw else b - pw
                if r0 >= sp[0] or c0 >= sp[1]:
                    continue
                t_r, t_c = (r0 + ph) // sh, (c0 + pw) // sw
                n_r, n_c = len(range(r0, sp[0], sh)), len(range(c0, sp[1], sw))
                self._landings.append((a * sw + b, every + (slice(r0, None, sh),
                                                            slice(c0, None, sw)),
                                       every + (slice(t_r, t_r + n_r), slice(t_c, t_c + n_c))))

    def fill(self, buf, xb, zero=True):
        """Lay the input block xb (k, cb, H, W) (k samples of cb channels) into buf (cb,
        phases, k, size), zeros around (`zero` False: buf's border is zero already; every
        block writes the same interior)."""
        if zero:
            buf.fill(0)
        for phase, inside, landing in self._landings:
            self._grid(buf, phase)[landing] = xb[inside].transpose(1, 0, 2, 3)

    def scatter_add(self, buf, dxb):
        """The adjoint of `fill`: add buf's phases back into the input block dxb (k, cb,
        H, W)."""
        for phase, inside, landing in self._landings:
            dst = dxb[inside]
            dst += self._grid(buf, phase)[landing].transpose(1, 0, 2, 3)

    def _grid(self, buf, phase):
        """Phase `phase` of buf (cb, phases, k, size) as (cb, k, rows, width)."""
        return buf[:, phase, :, :self.rows * self.width].reshape(
            (buf.shape[0], buf.shape[2], self.rows, self.width))

    def run_of(self, k):
        """Entries one tap's run covers over a block of k samples laid out as `fill` does:
        the samples' phases follow each other `size` apart, so one run spans all k (the
        entries between a sample's `run` and the next sample are computed and dropped)."""
        return (k - 1) * self.size + self.run

    def starts(self, k):
        """Per tap, where its run starts in a channel's flat buffer of k samples."""
        return [phase * k * self.size + off for _, phase, off in self.taps]

    def output(self, acc, k):
        """The output entries (cb, k, OH, OW) within a block's runs `acc` (cb, >= k * size)."""
        oh, ow = self.out
        cb = acc.shape[0]
        return acc[:, :k * self.size].reshape(cb, k, self.size)[:, :, :self.run].reshape(
            cb, k, oh, self.width)[..., :ow]


_phases = _memo(_Phases)


def _dw_blocks(n, c, per_channel, block=None):
    """(samples, channels) slice pairs cutting a depthwise layer into blocks of about
    `block` (default `_DW_BLOCK`; `_DW_SAMPLES_SCALE` times that for blocks of several
    samples) entries, `per_channel` entries a sample's channel: samples first, so that each
    channel's runs span as many samples as fit (fewer, longer BLAS calls), then as many
    channels as fit."""
    per = max(1, per_channel)
    ms = _block_samples(n, per, block)
    budget = (block or _DW_BLOCK) * (_DW_SAMPLES_SCALE if ms > 1 else 1)
    cb = max(1, min(c, budget // (per * ms)))
    return [(slice(s0, min(n, s0 + ms)), slice(c0, min(c, c0 + cb)))
            for s0 in range(0, n, ms) for c0 in range(0, c, cb)]


def _block_samples(n, per_channel, block=None):
    """The samples of `_dw_blocks`' blocks."""
    return max(1, min(n, (block or _DW_BLOCK) * _DW_SAMPLES_SCALE // max(1, per_channel)))


# Depthwise layers on narrow maps (MobileNet's 28 x 28 and smaller) go as products
# instead: per kernel row i, every output row of a channel is an input row times a banded
# (W, OW) matrix holding that channel's kernel row on its diagonals, so a layer is kh
# batched products (one small GEMM per sample and channel, in C) and no padded copy (the
# horizontal padding is the band's missing rows, the vertical one a range of output rows).
# The band does W / kw times the arithmetic, which on narrow maps costs less than the
# passes of the per-tap kernel; on wide ones more (measured: benchmarks/models.md).
# `_DW_BANDED_WIDTH` is the widest input the band is used for (0: never); `BAND_PRODUCT`
# makes the bands by a small product (`_bands`).
#
# A stride-1 layer wider than `_DW_TAPS_WIDTH` goes tap by tap after all where the batch
# lets a block's runs span samples long enough for BLAS (`_DW_SHORT`): then each tap is
# one BLAS call per channel over several samples, against the band's small GEMM per
# sample and channel and its W / kw times the arithmetic. On MobileNet's 28 x 28 layers
# at batch 4-32, forward and gradient: 0.62-0.72 of the banded kernel's time; on 14 x 14
# and at stride 2 the band stays faster (1.1-2x).
_DW_BANDED_WIDTH = 32
_DW_TAPS_WIDTH = 16
BAND_PRODUCT = True


def _banded(g, sp, n):
    """Whether a depthwise layer of geometry `g` on maps `sp`, batch `n`, takes the banded
    products (above): one rule for the forward and the gradient, decided on the forward's
    blocks (the gradient's, of half the budget, hold at least 55 samples on these maps, so
    their runs are long wherever the forward's are)."""
    if sp[1] > _DW_BANDED_WIDTH:
        return False
    if sp[1] <= _DW_TAPS_WIDTH or any(s != 1 for s in g.stride):
        return True
    lay = _phases(g, sp)
    return lay.run_of(_block_samples(n, lay.n_phase * lay.size)) < _DW_SHORT


@_memo
def _band_plan(g, sp):
    """(spans, (j, col, ox)): per kernel row i, (i, o0, o1, r0, r1) = the output rows
    o0:o1 whose input row at i lies inside the input and those input rows r0:r1 (step the
    stride), widest first; and the band's entries: kernel column j at input column col of
    output column ox."""
    (sh, sw), (dh, dw), (ph, pw) = g.stride, g.dilate, g.pad
    oh, ow = g.out
    kh, kw = g.kernel
    spans = []
    for i in range(kh):
        off = i * dh - ph
        o0 = min(oh, max(0, -(off // sh)))
        o1 = max(o0, min(oh, (sp[0] - 1 - off) // sh + 1))
        if o1 > o0:
            spans.append((i, o0, o1, o0 * sh + off, (o1 - 1) * sh + off + 1))
    spans.sort(key=lambda t: t[1] - t[2])
    js, oxs = np.meshgrid(np.arange(kw), np.arange(ow), indexing="ij")
    cols = oxs * sw + js * dw - pw
    ok = (cols >= 0) & (cols < sp[1])
    return spans, (js[ok], cols[ok], oxs[ok])


@_memo
def _band_taps(g, sp, dtype, transposed):
    """(kw, W * OW) of `dtype`: row j is 1 where kernel column j meets the band, input
    column col of output column ox (laid out (OW, W) when `transposed`), 0 elsewhere."""
    js, cols, oxs = _band_plan(g, sp)[1]
    e = np.zeros((g.kernel[1],) + ((g.out[1], sp[1]) if transposed else (sp[1], g.out[1])),
                 dtype=dtype)
    e[(js, oxs, cols) if transposed else (js, cols, oxs)] = 1
    return e.reshape(g.kernel[1], -1)


# The bands of a weight that nothing can write (read-only, owning its data: the inference
# backend's folded weights, kept between calls) are made once and kept while the weight
# lives: per key, (a weak reference to the weight, its bands).
_KEPT_BANDS = {}


def _bands(w, g, sp, dtype, transposed=False):
    """`_make_bands`' matrices, kept for a weight that cannot change (above)."""
    if w.flags.writeable or w.base is not None:
        return _make_bands(w, g, sp, dtype, transposed)
    key = (id(w), g.kernel, g.stride, g.dilate, g.pad, g.out, tuple(sp), np.dtype(dtype),
           transposed)
    hit = _KEPT_BANDS.get(key)
    if hit is not None and hit[0]() is w:
        return hit[1]
    bands = _make_bands(w, g, sp, dtype, transposed)
    bands.flags.writeable = False

    def forget(ref, key=key):
        if _KEPT_BANDS.get(key, (None,))[0] is ref:
            del _KEPT_BANDS[key]
    _KEPT_BANDS[key] = (weakref.ref(w, forget), bands)
    return bands


def _make_bands(w, g, sp, dtype, transposed=False):
    """The banded matrices (kh, C, W, OW) of depthwise weights w (C, 1, kh, kw), or
    (kh, C, OW, W) when `transposed`, C-contiguous either way.

    Finite weights go through one small product, the kernel rows (kh * C, kw) times the
    taps' 0/1 matrix `_band_taps`: each band entry is one weight times 1 plus zeros, so
    the scattered entries exactly (a weight of -0.0 becomes +0.0), 2-3x faster than
    scattering them into a zeroed array on MobileNet's narrow maps. A non-finite weight
    would spread NaN across its band row (inf * 0), so such weights are scattered (as all
    are when `BAND_PRODUCT` is False: benchmarks/row_blocks.py times both)."""
    kh, kw = g.kernel
    c = w.shape[0]
    rows = np.ascontiguousarray(w[:, 0].swapaxes(0, 1), dtype=dtype)  # (kh, C, kw)
    shape = (kh, c) + ((g.out[1], sp[1]) if transposed else (sp[1], g.out[1]))
    if BAND_PRODUCT and np.isfinite(rows).all():
        return (rows.reshape(kh * c, kw) @ _band_taps(g, sp, dtype, transposed)).reshape(shape)
    js, cols, oxs = _band_plan(g, sp)[1]
    t = np.zeros(shape, dtype=dtype)
    t[(slice(None), slice(None)) + ((oxs, cols) if transposed else (cols, oxs))] = rows[:, :, js]
    return t


def _banded_forward(x, w, g, y4):
    """y4 (N, C, OH, OW) = the depthwise convolution of x (N, C, H, W), as `_banded`."""
    spans = _band_plan(g, x.shape[2:])[0]
    band = _bands(w, g, x.shape[2:], y4.dtype)
    sh = g.stride[0]
    whole = spans and spans[0][1] == 0 and spans[0][2] == g.out[0]
    if not whole:
        y4.fill(0)
    for k, (i, o0, o1, r0, r1) in enumerate(spans):
        rows = x[:, :, r0:r1:sh]
        if k == 0 and whole:
            np.matmul(rows, band[i], out=y4)
        else:
            y4[:, :, o0:o1] += np.matmul(rows, band[i])


def _banded_backward(gy4, w, g, x, x_shape, need_x, need_w):
    """(dx, dw) of `_banded_forward` (None where not needed)."""
    spans, (js, cols, oxs) = _band_plan(g, x_shape[2:])
    sh = g.stride[0]
    kh, kw = g.kernel
    c = x_shape[1]
    dx = np.zeros(x_shape, dtype=gy4.dtype) if need_x else None
    dw = np.zeros((c, kh, kw), dtype=gy4.dtype) if need_w else None
    if need_x:
        # contiguous: numpy's matmul takes a transposed view's products off BLAS
        band_t = _bands(w, g, x_shape[2:], gy4.dtype, transposed=True)
    if need_w:
        # d(band)[c, col, ox] summed into the kernel column j each entry came from
        onehot = np.zeros((len(js), kw), dtype=gy4.dtype)
        onehot[np.arange(len(js)), js] = 1
    for i, o0, o1, r0, r1 in spans:
        gsl = gy4[:, :, o0:o1]
        if need_x:
            dx[:, :, r0:r1:sh] += np.matmul(gsl, band_t[i])
        if need_w:
            dband = np.matmul(x[:, :, r0:r1:sh].swapaxes(2, 3), gsl).sum(axis=0)
            dw[:, i] = dband[:, cols, oxs] @ onehot
    return dx, dw


# Runs at least this long go tap by tap through BLAS's axpy and dot, one call per channel
# and tap: one fused multiply-add pass where numpy needs a multiply and an add (about 2x
# on MobileNet's 112- and 56-wide maps); shorter runs pay more in calls than they save.
_DW_AXPY = 1024


# The weight gradient's taps: with at least this many channels in a block, each tap's dot
# products go as one stack of (1, run) @ (run, 1) products (numpy hands them to BLAS from C,
# channel by channel): 0.6-0.8 of the per-channel `dot` calls, and of a multiply and a sum,
# on MobileNet's 56-wide layers. Blocks of fewer channels (112-wide maps) pay more in the
# stack's call than the calls it saves (1.2x), and keep `dot`.
_DW_STACK = 4


def _blas1(dtype, run):
    """(axpy, dot) of BLAS for `dtype` when runs of `run` entries are long enough, else
    (None, None)."""
    if run < _DW_AXPY or dtype not in (np.float32, np.float64):
        return None, None
    from scipy.linalg import blas
    return (blas.saxpy, blas.sdot) if dtype == np.float32 else (blas.daxpy, blas.ddot)


# scipy's BLAS (axpy, dot) runs one thread inside, so that its worker threads never hold
# the cores numpy's next product needs (`blas_threads`)
@blas_threads.serial()
def _depthwise_forward(x, w, g, y, b, banded=None, epilogue=None):
    """y (N, C, P) = the depthwise convolution of x (N, C, H, W) with w (C, 1, kh, kw),
    plus b (1, C, 1) when given (y may also be a view (N, C, OH, OW) of a larger array,
    when `banded` is False and there is no `epilogue`); `banded` forces or forbids the
    banded products (default: `_banded`'s rule); `epilogue` as `forward`'s, on each block
    of (samples, channels) as it is written (the banded products: on the whole output)."""
    n, c = x.shape[:2]
    if _banded(g, x.shape[2:], n) if banded is None else banded:
        y4 = y.reshape((n, c) + tuple(g.out))
        _banded_forward(x, w, g, y4)
        if b is not None:
            y4 += b[..., None]
        if epilogue is not None:
            epilogue(y, (slice(None),))
        return
    lay = _phases(g, x.shape[2:])
    oh, ow = lay.out
    y4 = y if y.ndim == 4 else y.reshape((n, c, oh, ow))
    wk = w.reshape(c, -1)
    blocks = _dw_blocks(n, c, lay.n_phase * lay.size)
    ms = blocks[0][0].stop - blocks[0][0].start
    cb = blocks[0][1].stop - blocks[0][1].start
    # zeroed once: the blocks write the same interior, so the padding around stays zero
    buf = np.zeros((cb, lay.n_phase, ms, lay.size), dtype=y.dtype)
    acc = np.empty((cb, 1, ms * lay.size), dtype=y.dtype)
    starts = lay.starts(ms)
    run = lay.run_of(ms)
    # Short runs (small maps, many channels per block): the K runs copied side by side and
    # one batched product per block beat 2K passes whose rows are short.
    short = run < _DW_SHORT
    tmp = np.empty((cb, len(lay.taps) if short else 1, run), dtype=y.dtype)
    axpy, _ = _blas1(y.dtype, run)
    if axpy is not None:
        wl = wk.tolist()
    for s, cs in blocks:
        k, m = s.stop - s.start, cs.stop - cs.start
        a, t = acc[:m, 0], tmp[:m]
        # a last block of fewer samples fills the first k slots; the runs stop after them
        lay.fill(buf[:m, :, :k], x[s, cs], zero=False)
        run = lay.run_of(k)
        flat = buf[:m].reshape(m, -1)
        if short:
            for j, start in enumerate(starts):
                t[:, j, :run] = flat[:, start:start + run]
            np.matmul(wk[cs, None, :], t[:, :, :run], out=acc[:m, :, :run])
        elif axpy is not None:
            np.multiply(flat[:, starts[0]:starts[0] + run], wk[cs, :1], out=a[:, :run])
            for ch, wc in enumerate(wl[cs]):
                for j in range(1, len(starts)):
                    axpy(flat[ch], a[ch], run, wc[j], starts[j])
        else:
            for j, start in enumerate(starts):
                src = flat[:, start:start + run]
                if j == 0:
                    np.multiply(src, wk[cs, j:j + 1], out=a[:, :run])
                else:
                    np.multiply(src, wk[cs, j:j + 1], out=t[:, 0, :run])
                    a[:, :run] += t[:, 0, :run]
        res = lay.output(a, k).transpose(1, 0, 2, 3)
        if b is None:
            y4[s, cs] = res
        else:
            np.add(res, b[0, cs, :, None], out=y4[s, cs])
        if epilogue is not None:
            epilogue(y[s, cs], (s, cs))


def _phase_taps(size, out, k, s, d, p, r):
    """Along one axis of a depthwise layer, the data gradient at the input positions r, r + s,
    r + 2s, ... (one stride phase) as a stride-1 correlation of gy: (count, kernel indices in
    the correlation's order, its dilation, padding before, gy entries cropped before,
    padding after), or None where no tap reaches those positions.

    Tap i adds gy[o] times its weight into input position o*s + i*d - p = u*s + r, which is
    in this phase when e_i = (i*d - p - r) / s is a whole number, at phase index u = o + e_i.
    So phase entry u sums gy[u - e_i] times tap i over its taps: a correlation whose kernel
    is those taps in increasing order of -e_i (evenly spaced: the correlation's dilation)."""
    taps = sorted((-((i * d - p - r) // s), i) for i in range(k) if (i * d - p - r) % s == 0)
    count = len(range(r, size, s))
    if not taps or not count:
        return None
    lo, hi = taps[0][0], taps[-1][0]
    step = taps[1][0] - lo if len(taps) > 1 else 1
    return (count, [i for _, i in taps], step, max(0, -lo), max(0, lo),
            max(0, count - 1 + hi - (out - 1)))


def _depthwise_dx_as_forward(gy, w, g, x_shape):
    """The data gradient of a depthwise layer through `_depthwise_forward`: per stride phase
    of the input (one phase at stride 1), the forward kernel on gy with the taps that reach
    that phase (`_phase_taps`; at stride 1 the spatially reversed kernel), written into the
    phase's positions of dx.

    The forward's taps gather from one padded copy of gy, where `_depthwise_backward`'s own
    loop scatters into phase buffers tap by tap and adds them into dx: on MobileNet's 112-
    and 56-wide layers the data gradient takes 0.84-0.86 of that loop's time at stride 1
    and 0.57-0.72 at stride 2 (in-process, 21 rounds; the whole gradient's rows are in
    benchmarks/models.md, ninth pass)."""
    n, c = x_shape[:2]
    sp = tuple(x_shape[2:])
    reached, phases = _dx_phases(g, sp)
    dx = (np.empty if reached else np.zeros)((n, c) + sp, dtype=gy.dtype)
    for dst, gp, ti, tj, crop in phases:
        wp = np.ascontiguousarray(w[:, :, ti][:, :, :, tj])
        # never banded: a band costs its width per output, whatever the taps (one to four
        # per phase at stride 2), and layers narrow enough for it take `_banded_backward`;
        # each phase written straight into its positions of dx (stride 1: dx itself)
        _depthwise_forward(gy[crop], wp, gp, dx.reshape(n, c, -1) if dst is None else dx[dst],
                           None, False)
    return dx


@_memo
def _dx_phases(g, sp):
    """(every phase reached, [(dx's positions of the phase or None at stride 1, geometry of
    its correlation, kernel rows, kernel columns, gy's crop)]) of `_depthwise_dx_as_forward`,
    for the phases that some tap reaches; the others stay zero (a stride wider than the
    kernel)."""
    phases, reached = [], True
    for r in np.ndindex(*g.stride):
        axes = [_phase_taps(size, out, k, s, d, p, ri) for size, out, k, s, d, p, ri in
                zip(sp, g.out, g.kernel, g.stride, g.dilate, g.pad, r)]
        if None in axes:
            reached = False
            continue
        (rows, ti, di, bi, ci, ei), (cols, tj, dj, bj, cj, ej) = axes
        gp = type(g)((len(ti), len(tj)), (1, 1), (di, dj), (bi, bj), (ei, ej), (rows, cols))
        dst = None if all(st == 1 for st in g.stride) else (slice(None), slice(None)) + tuple(
            slice(ri, None, st) for ri, st in zip(r, g.stride))
        phases.append((dst, gp, ti, tj, (slice(None), slice(None), slice(ci, None),
                                         slice(cj, None))))
    return reached, phases


@blas_threads.serial()  # as `_depthwise_forward`
def _depthwise_backward(gy, w, w_shape, g, x, x_shape, need_x, need_w):
    """(dx, dw) of `_depthwise_forward` (None where not needed; `w` may be None when dx is
    not wanted, `x` when dw is not)."""
    n, c = gy.shape[:2]
    if _banded(g, x_shape[2:], n):
        dx, dw = _banded_backward(gy.reshape((n, c) + tuple(g.out)), w, g, x, x_shape,
                                  need_x, need_w)
        return dx, (dw.reshape(w_shape) if need_w else None)
    dx = None
    if need_x and DW_DX_AS_FORWARD:
        dx = _depthwise_dx_as_forward(gy, w, g, x_shape)
        need_x = False
    if not need_x and not need_w:
        return dx, None
    lay = _phases(g, x_shape[2:])
    oh, ow = lay.out
    gy4 = gy.reshape((n, c, oh, ow))
    dt = gy.dtype
    if need_x:
        dx = np.zeros(x_shape, dtype=dt)
    dw = np.zeros((c, len(lay.taps)), dtype=dt) if need_w else None
    wk = w.reshape(c, -1) if need_x else None
    # the gradient walks three arrays per block (gy's grid, the phases, a product)
    blocks = _dw_blocks(n, c, lay.n_phase * lay.size, _DW_BLOCK // 2)
    ms = blocks[0][0].stop - blocks[0][0].start
    cb = blocks[0][1].stop - blocks[0][1].start
    buf = np.empty((cb, lay.n_phase, ms, lay.size), dtype=dt)
    # gy laid out as the runs' outputs: each sample's rows on the phase width, `size`
    # apart, zeros between (the runs' dropped entries then add nothing)
    grid = np.zeros((cb, ms, lay.size), dtype=dt)
    starts = lay.starts(ms)
    tmp = np.empty((cb, lay.run_of(ms)), dtype=dt)
    axpy, dot = _blas1(dt, lay.run_of(ms))
    if axpy is not None:
        wl = wk.tolist() if need_x else None
    for s, cs in blocks:
        k, m = s.stop - s.start, cs.stop - cs.start
        run = lay.run_of(k)
        ph, t = buf[:m], tmp[:m, :run]
        lay.output(grid[:m].reshape(m, -1), k)[...] = gy4[s, cs].transpose(1, 0, 2, 3)
        gflat = grid[:m].reshape(m, -1)
        flat = ph.reshape(m, -1)
        if need_w:
            lay.fill(ph[:, :, :k], x[s, cs])
            if dot is not None and m < _DW_STACK:
                for ch in range(m):
                    row = dw[cs.start + ch]
                    for j, start in enumerate(starts):
                        row[j] += dot(gflat[ch], flat[ch], run, 0, 1, start)
            else:
                rows = gflat[:, None, :run]
                for j, start in enumerate(starts):
                    dw[cs, j] += np.matmul(rows, flat[:, start:start + run, None])[:, 0, 0]
        if need_x:
            ph.fill(0)
            if axpy is not None:
                for ch, wc in enumerate(wl[cs]):
                    for j, start in enumerate(starts):
                        axpy(gflat[ch], flat[ch], run, wc[j], 0, 1, start)
            else:
                for j, start in enumerate(starts):
                    np.multiply(gflat[:, :run], wk[cs, j:j + 1], out=t)
                    flat[:, start:start + run] += t
            lay.scatter_add(ph[:, :, :k], dx[s, cs])
    return dx, (dw.reshape(w_shape) if need_w else None)


# OpenBLAS's kernel for a transposed left operand is slow when the right operand has few
# columns and a long inner dimension. The data gradient's kernels are transposed operands
# (w^T, and the reversed kernel of `_flipped`), and batch-1 layers on maps of 7 x 7 and
# smaller give them few columns. There the product is taken the other way round,
# (b^T a^T)^T, whose left operand is the small one. Measured (`a` (M, K) stored
# transposed, `b` (K, P), the swapped form with its copy back over the plain one):
# 0.77-0.93 for K >= 512 and P <= 49 (0.84 on ResNet's 512 @ 7 reversed kernel,
# K = 4608), but 1.1-1.8 for K <= 256 or P >= 128.
_FEW_COLUMNS = 64
_LONG_INNER = 512


def _product(a, b, out):
    """out = a @ b for a 2-D `a` and a 2-D `b` (or a stack of them, `out` alike); the
    swapped form, one matrix of the stack at a time, where that is faster (above)."""
    if (b.shape[-1] <= _FEW_COLUMNS and b.shape[-2] >= _LONG_INNER
            and a.T.flags.c_contiguous and not a.flags.c_contiguous):
        for bs, os_ in zip(b.reshape((-1,) + b.shape[-2:]), out.reshape((-1,) + out.shape[-2:])):
            os_[...] = np.matmul(bs.T, a.T).T
    else:
        np.matmul(a, b, out=out)


# The output entries of a 1x1 layer's chunk of samples whose bias and epilogue run while the
# chunk is in the cache (`forward`): about a quarter of a 2 MB L2 in float32. A chunk per
# sample on small maps paid more in calls than the cache saved (MobileNet 0.25 at batch 32).
_EPILOGUE_BLOCK = 1 << 17


def _pointwise(g):
    return (all(k == 1 for k in g.kernel) and all(s == 1 for s in g.stride)
            and not any(g.pad) and not any(g.pad_end))


def _rows(a, groups, i):
    r = a.shape[0] // groups
    return a[i * r:(i + 1) * r]


def forward(x, w, groups, g, bias=None, out=None, epilogue=None):
    """y (N, F, *out) = Convolution of x (N, C, *sp) with w (F, C/groups, *kernel), plus
    `bias` (F,) when given.

    Args:
        x: the data, (N, C, *sp), float32 or float64.
        w: the weights, (F, C/groups, *kernel), of x's dtype.
        groups: the number of groups.
        g: the `conv.Geom` of the convolution.
        bias: the bias, (F,) (default None: none).
        out: optional C-contiguous array of y's shape and x's dtype to write y into.
        epilogue: optional ``f(block, index)`` applied to each block of y as soon as it is
            written (bias included), while it is still in the cache: `block` is a view of y
            as (N, F, P) at ``index`` (the same index into any (N, F, P) array), to be
            modified in place (a fused residual add and activation).

    Example::

        from gluonlite.ops import conv, conv_fast
        g = conv.Geom((2, 2), (1, 1), (1, 1), (0, 0), (0, 0), (2, 2))    # 2x2 kernel on 3x3
        x, w = np.ones((1, 1, 3, 3), np.float32), np.ones((1, 1, 2, 2), np.float32)
        conv_fast.forward(x, w, 1, g, bias=np.array([1.0], np.float32))[0, 0]
        # array([[5., 5.], [5., 5.]], dtype=float32)
    """
    n, c = x.shape[:2]
    f, p = w.shape[0], prod(g.out)
    w2 = w.reshape(f, -1)
    b = None if bias is None else bias.astype(x.dtype, copy=False).reshape(1, -1, 1)
    y = np.empty((n, f, p), dtype=x.dtype) if out is None else out.reshape(n, f, p)
    if _depthwise(groups, c, f, g):
        _depthwise_forward(x, w, g, y, b, epilogue=epilogue)
        return y.reshape((n, f) + tuple(g.out))
    trim = _live(g, x.shape[2:])
    if trim is not None:  # taps that read only padding: the smaller kernel that reads data
        # contiguous: a strided weight would keep numpy's matmul off the BLAS
        g, w = trim[0], np.ascontiguousarray(w[trim[1]])
        w2 = w.reshape(f, -1)
    if conv_shifted.applies(x.shape, w.shape, groups, g, x.dtype):
        return conv_shifted.forward(x, w, g, bias=bias, out=y, epilogue=epilogue)
    if conv_winograd.applies(x.shape, w.shape, groups, g):
        return conv_winograd.forward(x, w, g, bias=bias, out=y, epilogue=epilogue)
    if _pointwise(g):
        x3 = x.reshape(n, c, p)
        # samples in chunks of about `_EPILOGUE_BLOCK` output entries, so that the bias and
        # the epilogue run over a chunk's output while it is in the cache (MobileNet v2's
        # expanding 1x1 layers at batch 32: a batch's output is up to 150 MB, a sample's 5)
        step = n if epilogue is None and b is None else max(1, _EPILOGUE_BLOCK // (f * p))
        cg, fg = c // groups, f // groups
        for s0 in range(0, n, step):
            s = slice(s0, min(n, s0 + step))
            ys, xs = y[s], x3[s]
            for i in range(groups):
                _product(_rows(w2, groups, i), xs[:, i * cg:(i + 1) * cg],
                         ys[:, i * fg:(i + 1) * fg])
            if b is not None:
                ys += b
            if epilogue is not None:
                epilogue(ys, (s,))
        return y.reshape((n, f) + tuple(g.out))
    per = c * prod(g.kernel) * p
    size, tiles = _tiles(n, per, g, x.shape[2:])
    buf = np.empty(size, dtype=x.dtype)
    tmp = None
    rest = p // g.out[0]
    for s, e, r0, r1, plan in tiles:
        m = e - s
        cols = _im2col(x, s, e, g, plan, buf, r1 - r0)
        if m == 1:
            index = (s, slice(None), slice(r0 * rest, r1 * rest))
            t = y[index]
        else:
            index = (slice(s, e),)
            if tmp is None:
                tmp = np.empty(f * size // (c * prod(g.kernel)), dtype=x.dtype)
            t = tmp[:f * m * p].reshape(f, m * p)
        for i in range(groups):
            _product(_rows(w2, groups, i), _rows(cols, groups, i), _rows(t, groups, i))
        if m > 1:
            src = t.reshape(f, m, p).swapaxes(0, 1)
            if b is None:
                y[s:e] = src
            else:
                np.add(src, b, out=y[s:e])
        elif b is not None:
            t += b[0]
        if epilogue is not None:
            epilogue(y[index], index)
    return y.reshape((n, f) + tuple(g.out))


def _flipped(w, groups):
    """The kernel of the data gradient as a convolution: w (F, C/groups, *k) -> (C,
    F/groups, *k), spatially reversed.

    With one group the result is a view of one (F, *k, C) copy of w: that copy reads w in
    runs of C, where the (C, F, *k) one reads it in reversed runs of the kernel's few taps
    (5x slower on a 512 x 512 x 3 x 3 kernel); its (C, F * k) matrix is then a transposed
    operand, which the BLAS reads as fast (within 1.1x) except with few columns, where
    `_product` swaps the product."""
    f, cg = w.shape[:2]
    k = w.shape[2:]
    taps = prod(k)
    flip = (slice(None), slice(None), slice(None, None, -1))
    if groups == 1:
        fkc = np.ascontiguousarray(w.reshape(f, cg, taps)[flip].transpose(0, 2, 1))
        return fkc.reshape(f * taps, cg).T.reshape((cg, f) + k)
    wt = w.reshape((groups, f // groups, cg, taps)).swapaxes(1, 2)
    return np.ascontiguousarray(wt[(slice(None),) + flip]).reshape(
        (groups * cg, f // groups) + k)


def _dx_as_conv(gy, w, groups, g, x_shape):
    """The data gradient at stride 1 as the forward convolution of gy, or None where the
    padding is wider than the dilated kernel, its columns would be much larger than
    col2im's, or the weight it copies reversed is larger than col2im's columns."""
    if any(s != 1 for s in g.stride) or any(a != b for a, b in zip(g.pad, g.pad_end)):
        return None
    pad = tuple(d * (k - 1) - p for d, k, p in zip(g.dilate, g.kernel, g.pad))
    if any(q < 0 for q in pad):
        return None
    # Its columns are F*K x (input positions), col2im's C*K x (output positions): a kernel as
    # large as the input (output 1x1) would make the former the input's size times larger.
    if gy.shape[1] * prod(x_shape[2:]) > 2 * x_shape[1] * prod(g.out):
        return None
    # It also copies the weight reversed (`_flipped`). Where the weight is at least as large
    # as the columns col2im adds into dx (deep layers at small batches), that copy costs
    # more than col2im's adds: 512 x 512 x 3 x 3 on 7 x 7 at batch 1, col2im in 0.72 of the
    # time, 256 x 256 on 14 x 14 0.92; 128 x 128 on 28 x 28 1.07 (benchmarks/models.md).
    if w.size >= x_shape[1] * prod(g.kernel) * gy.shape[0] * prod(g.out):
        return None
    # the same kind of geometry as `g` (conv.Geom: conv imports this module, not the reverse)
    gd = type(g)(g.kernel, g.stride, g.dilate, pad, pad, x_shape[2:])
    wd_shape = (x_shape[1], w.shape[0] // groups) + tuple(w.shape[2:])
    if conv_winograd.applies(gy.shape, wd_shape, groups, gd) and not conv_shifted.applies(
            gy.shape, wd_shape, groups, gd, gy.dtype):
        return conv_winograd.forward(gy, None, gd, u=conv_winograd.flipped_kernel(w))
    return forward(gy, _flipped(w, groups), groups, gd)


def _accumulate(acc, a, b, tmp):
    """acc = sum over samples s of a[s] @ b[s].T, the first product written into `acc`
    itself (`tmp`, of acc's shape, takes the others; None for one sample)."""
    np.matmul(a[0], b[0].T, out=acc)
    for s in range(1, a.shape[0]):
        np.matmul(a[s], b[s].T, out=tmp)
        acc += tmp


def backward(gy, w, groups, g, x_shape, x=None, need_x=True, need_w=True, w_shape=None):
    """(dx, dw) of `forward` (None where not needed); `w` may be None when only dw is wanted
    (its shape then given as `w_shape`). Also Deconvolution's forward (dx alone).

    Args:
        gy: the gradient of the output, (N, F, *g.out).
        w: the weights, (F, C/groups, *kernel), or None (see above).
        groups: the number of groups.
        g: the `conv.Geom` of the convolution.
        x_shape: the input's shape (N, C, *sp).
        x: the forward's input (needed for dw; default None).
        need_x: compute dx (default True).
        need_w: compute dw (default True).
        w_shape: the weights' shape when `w` is None (default None).

    Returns:
        (array or None, array or None): dx and dw.

    Example::

        from gluonlite.ops import conv, conv_fast
        g = conv.Geom((2, 2), (1, 1), (1, 1), (0, 0), (0, 0), (2, 2))    # 2x2 kernel on 3x3
        x, w = np.ones((1, 1, 3, 3), np.float32), np.ones((1, 1, 2, 2), np.float32)
        dx, dw = conv_fast.backward(np.ones((1, 1, 2, 2), np.float32), w, 1, g, x.shape, x=x)
        dx[0, 0, 1], dw.sum()               # (array([2., 4., 2.], dtype=float32), 16.0)
    """
    n, c = x_shape[:2]
    w_shape = tuple(w.shape if w is not None else w_shape)
    f, p = w_shape[0], prod(g.out)
    dt = gy.dtype
    if _depthwise(groups, c, f, g) and (w is not None or not need_x) and (
            x is not None or not need_w):
        return _depthwise_backward(gy, w, w_shape, g, x, x_shape, need_x, need_w)
    trim = _live(g, x_shape[2:])
    if trim is not None:  # taps that read only padding (`_live`): their weights' gradient is 0
        gt, sl = trim
        wt = None if w is None else np.ascontiguousarray(w[sl])
        dx, dwt = backward(gy, wt, groups, gt, x_shape, x=x, need_x=need_x, need_w=need_w,
                           w_shape=tuple(w_shape[:2]) + gt.kernel)
        dw = None
        if dwt is not None:
            dw = np.zeros(w_shape, dtype=dwt.dtype)
            dw[sl] = dwt
        return dx, dw
    dx = dw_wino = None
    if need_x:
        dx = _dx_as_conv(gy, w, groups, g, x_shape)
        need_x = dx is None
    if need_w and x is not None and conv_winograd.applies_to_weight_grad(x_shape, w_shape,
                                                                         groups, g):
        dw_wino = conv_winograd.weight_grad(gy, x, g, w_shape)
        need_w = False
    if not need_x and not need_w:
        return dx, dw_wino
    if need_x:
        dx = np.zeros(x_shape, dtype=dt)
    w2 = w.reshape(f, -1) if need_x else None
    gy3 = gy.reshape(n, f, p)
    if _pointwise(g) and need_w:
        # No columns: the input is its own (C, P) columns, sample by sample.
        dw = np.empty((f, c // groups), dtype=dt)
        x3 = x.reshape(n, c, p)
        tmp = np.empty((f // groups, c // groups), dtype=dt) if n > 1 else None
        for i in range(groups):
            fs, cs = slice(i * (f // groups), (i + 1) * (f // groups)), slice(
                i * (c // groups), (i + 1) * (c // groups))
            _accumulate(dw[fs], gy3[:, fs], x3[:, cs], tmp)
            if need_x:
                _product(w2[fs].T, gy3[:, fs], dx.reshape(n, c, p)[:, cs])
        return dx, dw.reshape(w_shape)
    rows = c * prod(g.kernel)
    if need_x:
        # col2im adds whole samples (the phases of a strided add span every row).
        step, chunks = _chunks(n, rows * p)
        plan = _plan(g, x_shape[2:])
        size, tiles = rows * step * p, [(s, e, 0, g.out[0], plan) for s, e in chunks]
    else:
        size, tiles = _tiles(n, rows * p, g, x_shape[2:])
    rest = p // g.out[0]
    buf = np.empty(size, dtype=dt)
    gbuf = None
    dw = np.empty((f, rows // groups), dtype=dt) if need_w else None
    tmp = np.empty((f // groups, rows // groups), dtype=dt) if need_w and len(tiles) > 1 \
        else None
    for t, (s, e, r0, r1, plan) in enumerate(tiles):
        m = e - s
        if m == 1:
            g2 = gy3[s, :, r0 * rest:r1 * rest]
        else:
            if gbuf is None:
                gbuf = np.empty((f, size // (rows * p), p), dtype=dt)
            g3 = gbuf[:, :m]
            np.copyto(g3, gy3[s:e].swapaxes(0, 1))
            g2 = g3.reshape(f, m * p)
        if need_w:
            cols = _im2col(x, s, e, g, plan, buf, r1 - r0)
            for i in range(groups):
                # the first tile's product is written straight into dw: no zero fill, no add
                acc = _rows(dw, groups, i)
                np.matmul(_rows(g2, groups, i), _rows(cols, groups, i).T,
                          out=acc if t == 0 else tmp)
                if t:
                    acc += tmp
        if need_x:
            dcols = buf[:rows * m * p].reshape(rows, m * p)
            for i in range(groups):
                _product(_rows(w2, groups, i).T, _rows(g2, groups, i), _rows(dcols, groups, i))
            _col2im_add(dcols, dx, s, e, g, plan)
    return dx, (dw.reshape(w_shape) if need_w else dw_wino)
