"""Max pooling on 2-D maps a stride phase at a time: the same numbers as the plain rule
(`gluonlite.ops.conv`'s Pooling), in contiguous passes.

The plain rule pads the input and, per kernel offset, reads a strided view of it (every
stride-th row and column) and, in the gradient, adds into a strided view of the padded
gradient. With a stride of 2 those passes run at a fraction of a contiguous pass' speed: on
ResNet's stem (3x3, stride 2, 32 x 64 x 112 x 112) the gradient took about 7% of a
training step. Here the padded input is laid out once as its stride phases (the positions one
residue modulo the stride, each phase its own contiguous array), so that every offset reads
a block of rows of one phase, and the gradient is summed into phase buffers copied into
place once at the end. Each element sees the same comparisons and additions in the same
order, so the results are the plain rule's bit for bit.

That copy pays where windows overlap (ResNet's 3x3 stride-2 stem reads each phase from 2-4
offsets). Where they tile the map (VGG's 2x2 stride 2: stride at least the kernel), each
phase is read by one offset, so the offsets read their strided views of the input in place,
skip the padding (which can never hold a maximum) and write the gradient straight into its
strided view: on VGG's first pooling (64 x 224 x 224), forward and gradient take 0.71 of
the phase copies' time at batch 1 and 0.84 at batch 8 (benchmarks/kernel_trees.py --only
pool). On ResNet's stem the same in-place reads took 1.25-1.38 of the phases' time, so it
keeps them.

Example::

    from gluonlite.ops import conv, pool_fast
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    g = conv.Geom((2, 2), (2, 2), (1, 1), (0, 0), (0, 0), (2, 2))
    pool_fast.max_forward(x, g, -np.inf)[0, 0]      # [[5., 7.], [13., 15.]]
"""
import numpy as np

from . import conv_fast

__all__ = ["usable", "max_forward", "max_backward", "first_hits", "ENABLED"]

ENABLED = True   # False: the plain rule everywhere (tests and benchmarks switch it)
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def usable(xp, g, *arrays):
    """Whether `max_forward`/`max_backward` apply: numpy float32/float64 data of one dtype,
    4-D (channels first), an undilated window with some stride above 1.

    Args:
        xp: the array module of the call.
        g: the pooling's `conv.Geom`.
        *arrays: the arrays the fast path would read.

    Returns:
        bool.

    Example::

        from gluonlite.ops import conv, pool_fast
        g = conv.Geom((3, 3), (2, 2), (1, 1), (1, 1), (1, 1), (2, 2))
        pool_fast.usable(np, g, np.zeros((1, 1, 4, 4), np.float32))    # True
    """
    if not ENABLED or xp is not np or len(g.kernel) != 2:
        return False
    if any(d != 1 for d in g.dilate) or all(s == 1 for s in g.stride):
        return False
    a0 = arrays[0]
    return all(type(a) is np.ndarray and a.ndim == 4 and a.dtype in _FLOATS
               and a.dtype == a0.dtype for a in arrays)


def _phase_slices(r, s, pad, size, length):
    """(phase index range, input index start) of phase `r` (stride `s`) along one axis: the
    phase's entries i with padded index r + s*i inside the input, and the first one's input
    index."""
    lo = max(0, -(-(pad - r) // s))
    hi = min(length, (pad + size - 1 - r) // s + 1)
    return slice(lo, max(lo, hi)), r + s * lo - pad


@conv_fast._memo
def _layout(g, sizes):
    """{phase: ([rows, cols], input slice, phase slice)} of the phases the window reads, made
    once per geometry and map size (a network pools the same shapes on every call)."""
    padded = [sizes[i] + g.pad[i] + g.pad_end[i] for i in range(2)]
    out = {}
    for ky in range(g.kernel[0]):
        for kx in range(g.kernel[1]):
            r = (ky % g.stride[0], kx % g.stride[1])
            if r in out:
                continue
            lens = [-(-(padded[i] - r[i]) // g.stride[i]) for i in range(2)]
            ph, src = [], []
            for i in range(2):
                sl, start = _phase_slices(r[i], g.stride[i], g.pad[i], sizes[i], lens[i])
                ph.append(sl)
                src.append(slice(start, start + g.stride[i] * (sl.stop - sl.start),
                                 g.stride[i]))
            out[r] = (lens, (slice(None), slice(None)) + tuple(src),
                      (slice(None), slice(None)) + tuple(ph))
    return out


# Every pass runs on a block of channel planes (of all samples) about this many input
# entries large, so that the phases, the masks and the gradient's phase buffers of one block
# stay in the cache across the kernel's offsets: planes are independent, and a whole batch at
# once made each of the ~45 passes a trip to memory (ResNet's stem at batch 32: 103 MB).
_BLOCK = 1 << 17


def _planes(x, sizes):
    """(x as (N C, 1, H, W), a new (N, C, *sizes) result, the result seen the same way)."""
    res = np.empty(x.shape[:2] + tuple(sizes), dtype=x.dtype)
    return x.reshape((-1, 1) + x.shape[2:]), res, res.reshape((-1, 1) + res.shape[2:])


def _blocks(xf):
    """Slices of the plane axis of `xf` (N C, 1, H, W), each about `_BLOCK` entries."""
    planes = xf.shape[0]
    step = max(1, _BLOCK // max(1, xf.shape[2] * xf.shape[3]))
    return [slice(s, min(planes, s + step)) for s in range(0, planes, step)]


def _phases(x, layout, fill):
    """{phase: the padded input's entries of that phase, contiguous}."""
    res = {}
    for r, (lens, src, dst) in layout.items():
        buf = np.full(x.shape[:2] + tuple(lens), fill, dtype=x.dtype)
        buf[dst] = x[src]
        res[r] = buf
    return res


def _offsets(g):
    """(phase, the output-sized block of it) per kernel offset, in the plain rule's order."""
    oh, ow = g.out
    for ky in range(g.kernel[0]):
        for kx in range(g.kernel[1]):
            qy, qx = ky // g.stride[0], kx // g.stride[1]
            yield ((ky % g.stride[0], kx % g.stride[1]),
                   (slice(None), slice(None), slice(qy, qy + oh), slice(qx, qx + ow)))


def max_forward(x, g, fill):
    """The max over each window, as the plain rule takes it: from the lowest finite value,
    NaN passed over (``fmax``).

    Args:
        x: the data, (N, C, H, W).
        g: the pooling's `conv.Geom`.
        fill: the padding's value (-inf for floats).

    Returns:
        array: (N, C, *g.out).

    Example::

        from gluonlite.ops import conv, pool_fast
        g = conv.Geom((3, 3), (2, 2), (1, 1), (1, 1), (1, 1), (2, 2))
        pool_fast.max_forward(np.ones((1, 1, 4, 4), np.float32), g, -np.inf).shape  # (1, 1, 2, 2)
    """
    if _tiled(g, fill, x.dtype):
        return _tiled_forward(x, g)
    layout = _layout(g, x.shape[2:])
    xf, y, yf = _planes(x, g.out)
    for b in _blocks(xf):
        phases = _phases(xf[b], layout, fill)
        yb = yf[b]
        yb.fill(np.finfo(x.dtype).min)
        for r, block in _offsets(g):
            np.fmax(yb, phases[r][block], out=yb)
    return y


def first_hits(xp, window, y, hit, open_):
    """One kernel offset of max pooling's gradient rule: `hit` (bool, y's shape) is set to
    the windows whose maximum y this offset's input `window` holds and no earlier offset
    held (MXNet's gradient goes to the first input equal to the output).

    Args:
        xp: the array module.
        window: the inputs this offset reads, y's shape.
        y: the pooled output.
        hit: the bool array to write the windows into.
        open_: the windows no earlier offset held, or None at the first offset.

    Returns:
        array: the windows still open after this offset.

    Example::

        from gluonlite.ops import pool_fast
        y, hit = np.array([2.0, 3.0]), np.empty(2, bool)
        still = pool_fast.first_hits(np, np.array([2.0, 1.0]), y, hit, None)
        hit, still                  # [True, False], [False, True]
    """
    xp.equal(window, y, out=hit)
    if open_ is None:
        return ~hit
    hit &= open_
    open_ ^= hit
    return open_


def max_backward(x, y, gy, g, fill):
    """The gradient of `max_forward`: each window's gradient to its first input equal to the
    window's output (none for a window of NaN), as MXNet's kernel does.

    Args:
        x: the forward's data, (N, C, H, W).
        y: its output.
        gy: the output's gradient.
        g: the pooling's `conv.Geom`.
        fill: the padding's value the forward used.

    Returns:
        array: x's gradient, a new (N, C, H, W) array.

    Example::

        from gluonlite.ops import conv, pool_fast
        g = conv.Geom((2, 2), (2, 2), (1, 1), (0, 0), (0, 0), (1, 1))
        x = np.array([[[[1, 3], [3, 2]]]], np.float32)
        y = pool_fast.max_forward(x, g, -np.inf)
        pool_fast.max_backward(x, y, np.ones_like(y), g, -np.inf)[0, 0]  # [[0., 1.], [0., 0.]]
    """
    if _tiled(g, fill, x.dtype):
        return _tiled_backward(x, y, gy, g)
    layout = _layout(g, x.shape[2:])
    xf, gx, gxf = _planes(x, x.shape[2:])
    yf, gyf = (a.reshape((-1, 1) + a.shape[2:]) for a in (y, gy))
    # Windows that do not overlap write each input position once: a copy, as the plain rule
    # does (0 + -0.0 would be 0.0)
    disjoint = all(s >= k for s, k in zip(g.stride, g.kernel))
    # the phases the windows read cover the input unless the stride skips positions
    covered = len(layout) == g.stride[0] * g.stride[1]
    blocks = _blocks(xf)
    # the first block is the largest: the masks of every block are views of these
    hits = np.empty(yf[blocks[0]].shape, dtype=bool)
    contribs = np.empty(hits.shape, dtype=gy.dtype)
    for b in blocks:
        phases = _phases(xf[b], layout, fill)
        yb, gyb, gxb = yf[b], gyf[b], gxf[b]
        grads = {r: np.zeros(ph.shape, dtype=gy.dtype) for r, ph in phases.items()}
        hit, contrib = hits[:len(yb)], contribs[:len(yb)]
        open_ = None   # the windows whose maximum no earlier offset held
        for r, block in _offsets(g):
            open_ = first_hits(np, phases[r][block], yb, hit, open_)
            np.multiply(gyb, hit, out=contrib)
            if disjoint:
                grads[r][block] = contrib
            else:
                grads[r][block] += contrib
        if not covered:
            gxb.fill(0)
        for r, (_, src, dst) in layout.items():
            gxb[src] = grads[r][dst]
    return gx


# ---- windows that tile the map: each stride phase read by one offset, in place -------------
def _tiled(g, fill, dtype):
    """Whether the windows do not overlap (stride at least the kernel on both axes) and the
    padding can never hold a maximum (`fill` below the lowest finite value; a window's
    output is at least that value): then each stride phase is read by at most one kernel
    offset, and copying it out first is a pass that buys nothing, so the offsets read their
    strided views of the input in place and skip the padding."""
    return all(s >= k for s, k in zip(g.stride, g.kernel)) and fill < np.finfo(dtype).min


@conv_fast._memo
def _in_place_offsets(g, sizes):
    """Per kernel offset in the plain rule's order, (output slices, input slices) of the
    positions whose window reads the input there (`conv_fast._plan`), the planes axes
    first; offsets that read only padding are left out."""
    both = (slice(None), slice(None))
    return [(both + dst, both + src) for _, dst, src, _ in conv_fast._plan(g, tuple(sizes))
            if all(d.stop > d.start for d in dst)]


@conv_fast._memo
def _covered(g, sizes):
    """Whether the windows read every input position (a stride larger than the kernel, or
    the 'valid' convention's leftover rows and columns, skip some)."""
    seen = np.zeros((1, 1) + tuple(sizes), dtype=bool)
    for _, src in _in_place_offsets(g, sizes):
        seen[src] = True
    return bool(seen.all())


def _tiled_forward(x, g):
    """`max_forward` where `_tiled` holds: per block of planes, fmax of each offset's
    strided view of the input into the outputs that read it."""
    offsets = _in_place_offsets(g, x.shape[2:])
    xf, y, yf = _planes(x, g.out)
    for b in _blocks(xf):
        xb, yb = xf[b], yf[b]
        yb.fill(np.finfo(x.dtype).min)
        for dst, src in offsets:
            yd = yb[dst]
            np.fmax(yd, xb[src], out=yd)
    return y


def _tiled_backward(x, y, gy, g):
    """`max_backward` where `_tiled` holds: each offset's first hits found on its strided
    view of the input, and the gradient written into the same view of the result."""
    offsets = _in_place_offsets(g, x.shape[2:])
    xf, gx, gxf = _planes(x, x.shape[2:])
    yf, gyf = (a.reshape((-1, 1) + a.shape[2:]) for a in (y, gy))
    blocks = _blocks(xf)
    hits = np.empty(yf[blocks[0]].shape, dtype=bool)
    opens = np.empty(hits.shape, dtype=bool)
    covered = _covered(g, x.shape[2:])
    for b in blocks:
        xb, yb, gyb, gxb = xf[b], yf[b], gyf[b], gxf[b]
        hit, open_ = hits[:len(yb)], opens[:len(yb)]
        open_.fill(True)     # the windows whose maximum no earlier offset held
        if not covered:
            gxb.fill(0)
        for dst, src in offsets:
            h, o = hit[dst], open_[dst]
            np.equal(xb[src], yb[dst], out=h)
            h &= o
            o ^= h
            # each input position is one window's: written once, as the plain rule copies
            np.multiply(gyb[dst], h, out=gxb[src])
    return gx
