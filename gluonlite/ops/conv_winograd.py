"""Winograd F(2x2, 3x3): a fast path of 3x3, stride-1 convolutions; `conv.py` keeps the rule.

Each 2 x 2 block of output positions (a tile) reads a 4 x 4 block of the padded input. In
the Winograd domain the 3 x 3 correlation of such a block becomes 16 elementwise products,
so a layer's arithmetic is 16 batched matrix products

    M[k] (F, T) = U[k] (F, C) @ V[k] (C, T),   k = 0..15,  T = tiles of a chunk of samples,

with U = G w G^T (the kernel, 4 x 4 per filter and channel) and V = B^T d B (the input
tiles), and the output tiles are A^T M A. That is 16 F C T = 4 F C P multiply-adds against
im2col's 9 F C P (P output positions): 2.25x fewer, on products of the same shape family.
The transforms are additions and halvings only, so float32 rounding stays at im2col's own
scale (tests/nn/test_conv_winograd.py holds it against float64; F(4x4, 3x3) was 10-25x
im2col's error, benchmarks/winograd_f43_accuracy.py, so it is not used).

The transforms run as a few long contiguous numpy passes (rows first, then columns) over
the padded input split by row and column parity and over the products, a few samples at a
time (`_CHUNK` entries of V) so the passes stay near the cache. `RULES` says which layers
take it: what was measured faster (benchmarks/conv_winograd.py; benchmarks/models.md has
the numbers). The data gradient of a stride-1 convolution is itself a 3x3 stride-1
convolution (`conv_fast._dx_as_conv`), so it takes this path under the same rules; the
weight gradient (`weight_grad`) uses the same input tiles and the adjoint of the output
transform, under a stricter rule.
"""
import threading
from math import prod

import numpy as np

__all__ = ["RULES", "applies", "applies_to_weight_grad", "forward", "weight_grad",
           "flops_saved"]

# False sends every layer to conv_fast's im2col product (benchmarks time both); with
# WEIGHT_GRAD False only the weight gradient goes there.
ENABLED = True
WEIGHT_GRAD = True

# When a layer takes Winograd (measured per layer, one thread, interleaved against the
# im2col product: benchmarks/conv_winograd.py, numbers in benchmarks/models.md). The
# transforms cost passes over the input and the output in proportion to C + F per tile;
# the products save 20 C F multiply-adds per tile; the kernel's transform and U's 16 F C
# entries are paid once per call. So:
# - `min_channels` / `min_filters` (C, F): the input's transform costs more than the
#   output's, so C matters more: C = F = 64 (ResNet's 56 x 56 layer) is 1.1-1.2x slower at
#   batch 1 and 32, C = 64 -> F = 128 (VGG's 112 x 112) 1.2x slower, while its data
#   gradient (C = 128 -> F = 64) is 0.85x; from C = F = 128 on it pays (0.65-0.88x at
#   batch 32);
# - `min_side`: the output map's smaller side; each channel's tiles carry one row and
#   column of garbage tiles (see `_input_tiles`), 56% more products on a 7 x 7 map
#   (ResNet's 512 x 7 x 7 layer: 1.37x slower at batch 32), 31% on 14 x 14;
# - `min_work`: tiles of the call (batch x output 2 x 2 blocks) times min(C, F): batch 1
#   on a 28 x 28 map with 128 channels (196 x 128) is 1.1x slower, with 256 (196 x 256)
#   0.8x faster;
# - `grad_min_side`: the weight gradient by Winograd (`weight_grad`) pays less: its
#   products reduce over the tiles and accumulate 16 F C entries per chunk; measured
#   0.74x on VGG's 256 x 56 x 56 layer, 0.97x at 128 -> 256 on 56 x 56, but 1.0x on
#   ResNet's 128 x 28 x 28 and 256 x 14 x 14 at batch 32 and 1.1-2x at batch 1 on 28 x 28
#   and smaller maps: only maps at least this large take it.
RULES = {
    "kernel": (3, 3),
    "stride": (1, 1),
    "dilate": (1, 1),
    "groups": 1,
    "min_channels": 128,
    "min_filters": 64,
    "min_side": 8,
    "min_work": 1 << 15,
    "grad_min_side": 48,
}

_CHUNK = 1 << 20  # entries of V (16 C T) per chunk of samples

# B^T, G and A^T of F(2x2, 3x3) (Lavin & Gray 2015), as used below:
#   B^T d: rows d0 - d2, d1 + d2, d2 - d1, d1 - d3
#   G g:   rows g0, (g0 + g1 + g2) / 2, (g0 - g1 + g2) / 2, g2
#   A^T m: rows m0 + m1 + m2, m1 - m2 - m3
_G = np.array([[1.0, 0.0, 0.0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0.0, 0.0, 1.0]])
# G w G^T of every (filter, channel) pair at once: entry (a, b) of U is row 4a + b of
# kron(G, G) times the flat 3 x 3 kernel (one (16, 9) @ (9, F C) product; the entries are
# 1, 1/2 and 1/4, exact in either dtype)
_GG = {np.dtype(t): np.kron(_G, _G).astype(t) for t in (np.float32, np.float64)}


def applies(x_shape, w_shape, groups, g):
    """Whether the convolution of data `x_shape` with weights `w_shape` takes Winograd.

    Args:
        x_shape: the data's shape (N, C, H, W).
        w_shape: the weights' shape (F, C/groups, kh, kw).
        groups: the number of groups.
        g: the `conv.Geom` of the convolution.

    Returns:
        bool: True where `RULES` and `ENABLED` send it here.

    Example::

        from gluonlite.ops import conv, conv_winograd
        g = conv.Geom((3, 3), (1, 1), (1, 1), (1, 1), (1, 1), (14, 14))
        conv_winograd.applies((32, 256, 14, 14), (256, 256, 3, 3), 1, g)    # True
    """
    r = RULES
    return (ENABLED and len(x_shape) == 4 and groups == r["groups"]
            and g.kernel == r["kernel"] and g.stride == r["stride"]
            and g.dilate == r["dilate"] and x_shape[1] >= r["min_channels"]
            and w_shape[0] >= r["min_filters"] and min(g.out) >= r["min_side"]
            and x_shape[0] * ((g.out[0] + 1) // 2) * ((g.out[1] + 1) // 2)
            * min(x_shape[1], w_shape[0]) >= r["min_work"])


def applies_to_weight_grad(x_shape, w_shape, groups, g):
    """Whether the weight gradient of this convolution takes `weight_grad`: `applies` and
    an output map of at least `RULES["grad_min_side"]` on both sides, with `WEIGHT_GRAD`.

    Args:
        x_shape: the data's shape (N, C, H, W).
        w_shape: the weights' shape (F, C/groups, kh, kw).
        groups: the number of groups.
        g: the `conv.Geom` of the convolution.

    Returns:
        bool

    Example::

        from gluonlite.ops import conv, conv_winograd
        g = conv.Geom((3, 3), (1, 1), (1, 1), (1, 1), (1, 1), (56, 56))
        conv_winograd.applies_to_weight_grad((1, 256, 56, 56), (256, 256, 3, 3), 1, g)  # True
    """
    return (WEIGHT_GRAD and applies(x_shape, w_shape, groups, g)
            and min(g.out) >= RULES["grad_min_side"])


def _kernel(w):
    """U (16, F, C) = G w G^T of w (F, C, 3, 3)."""
    f, c = w.shape[:2]
    return (_GG[w.dtype] @ w.reshape(f * c, 9).T).reshape(16, f, c)


def flipped_kernel(w):
    """The kernel transform of the data gradient's convolution, made from the forward's
    weights w (F, C, 3, 3) as they are: U (16, C, F), a view.

    The data gradient of a 3x3 stride-1 layer is the convolution of the output gradient with
    w's channels swapped and its taps reversed (`conv_fast._flipped`). Reversing the nine
    taps is reversing the columns of G (x) G, and swapping the channels is swapping U's
    last two axes, so this needs no reordered copy of w; `np.matmul` takes the swapped
    axes as a transposed operand.

    Args:
        w: the forward's weights, (F, C, 3, 3), float32 or float64.

    Returns:
        array: U, (16, C, F), for `forward`'s `u`.

    Example::

        from gluonlite.ops import conv_fast, conv_winograd
        w = np.arange(18, dtype=np.float32).reshape(1, 2, 3, 3)
        u = conv_winograd.flipped_kernel(w)
        np.allclose(u, conv_winograd._kernel(conv_fast._flipped(w, 1)))    # True
    """
    f, c = w.shape[:2]
    return (_GG[w.dtype][:, ::-1] @ w.reshape(f * c, 9).T).reshape(16, f, c).swapaxes(1, 2)


_LOCAL = threading.local()
_KEEP_BYTES = 1 << 26  # the largest workspace kept between calls


def _workspace(sizes, dtype):
    """Flat buffers of `sizes` entries carved from one per-thread block of `dtype` that is
    kept between calls (fresh large arrays are paged in on every call: at batch 1 that cost
    as much as the transforms) and grows to the largest request up to `_KEEP_BYTES`."""
    total = sum(sizes)
    key = np.dtype(dtype).str
    blk = getattr(_LOCAL, key, None)
    if blk is None or blk.size < total:
        blk = np.empty(total, dtype=dtype)
        # one sample of a wide layer on a large map can need hundreds of MB: used, not kept
        if blk.nbytes <= _KEEP_BYTES:
            setattr(_LOCAL, key, blk)
    out, at = [], 0
    for n in sizes:
        out.append(blk[at:at + n])
        at += n
    return out


def _input_tiles(x, s, e, g, th, tw, xp, rows, v):
    """V (16, C, m*(th+1)*(tw+1)) of samples s:e of x (N, C, H, W), through the buffers
    `xp`, `rows` and `v`.

    The padded input is laid out split by row and column parity, (2, 2, C, m, th+1, tw+1):
    tile (t, u) reads padded rows 2t..2t+3, i.e. row t of the even and odd row phases and
    then row t+1 of each, one row (tw+1 entries) further on in the flat phase; the columns
    likewise, one entry further on. So every pass below is one long contiguous run over a
    whole phase, where slicing the tiles out row by row gave runs of tw entries and cost
    5-7x more. The price: each channel's tiles include a last row and column of garbage
    tiles (read across into the next row or channel), computed and dropped by the caller.
    """
    m, c = e - s, x.shape[1]
    h, w = x.shape[2:]
    ph, pw = g.pad
    hq, wq = th + 1, tw + 1
    n_flat = c * m * hq * wq
    d = xp[:4 * n_flat].reshape(2, 2, c, m, hq, wq)
    d.fill(0)
    xs = x[s:e].swapaxes(0, 1)
    for rp in range(2):
        # phase row t holds padded row 2t + rp = input row 2t + rp - ph
        t0, t1 = max(0, -((rp - ph) // 2)), min(hq, (h - 1 + ph - rp) // 2 + 1)
        for cp in range(2):
            u0, u1 = max(0, -((cp - pw) // 2)), min(wq, (w - 1 + pw - cp) // 2 + 1)
            if t1 > t0 and u1 > u0:
                r0, c0 = 2 * t0 + rp - ph, 2 * u0 + cp - pw
                d[rp, cp, :, :, t0:t1, u0:u1] = xs[:, :, r0:r0 + 2 * (t1 - t0) - 1:2,
                                                   c0:c0 + 2 * (u1 - u0) - 1:2]
    flat = d.reshape(2, 2, n_flat)
    n1 = n_flat - wq  # rows: tile row t+1 is wq entries on
    r = rows[:8 * n_flat].reshape(4, 2, n_flat)
    d0, d1 = flat[0, :, :n1], flat[1, :, :n1]
    d2, d3 = flat[0, :, wq:], flat[1, :, wq:]
    np.subtract(d0, d2, out=r[0, :, :n1])
    np.add(d1, d2, out=r[1, :, :n1])
    np.subtract(d2, d1, out=r[2, :, :n1])
    np.subtract(d1, d3, out=r[3, :, :n1])
    n2 = n1 - 1  # columns: tile column u+1 is one entry on; all four row results at once
    out = v[:16 * n_flat].reshape(4, 4, n_flat)
    e0, e1 = r[:, 0, :n2], r[:, 1, :n2]
    e2, e3 = r[:, 0, 1:n1], r[:, 1, 1:n1]
    np.subtract(e0, e2, out=out[:, 0, :n2])
    np.add(e1, e2, out=out[:, 1, :n2])
    np.subtract(e2, e1, out=out[:, 2, :n2])
    np.subtract(e1, e3, out=out[:, 3, :n2])
    out[:, :, n2:] = 0  # the last channel's garbage tiles read past the phase's end
    return out.reshape(16, c, m * hq * wq)


def _output_tiles(mm, f, m, th, tw, half, dst):
    """The output tiles A^T M A of the products mm (16, F, m*(th+1)*(tw+1)), written into
    dst (F, m, th, 2, tw, 2) through `half` (the row transform and a temporary), the
    garbage tiles dropped."""
    hq, wq = th + 1, tw + 1
    size = f * m * hq * wq
    q = mm.reshape(4, 4, size)
    hr = half[:8 * size].reshape(2, 4, size)
    tmp = half[8 * size:9 * size]
    np.add(q[0], q[1], out=hr[0])
    hr[0] += q[2]
    np.subtract(q[1], q[2], out=hr[1])
    hr[1] -= q[3]
    # columns: each output phase computed over the flat tiles, then put in its
    # interleaved place in dst (the one strided pass)
    t4 = tmp.reshape(f, m, hq, wq)[:, :, :th, :tw]
    for i in range(2):
        a = hr[i]
        np.add(a[0], a[1], out=tmp)
        tmp += a[2]
        dst[:, :, :, i, :, 0] = t4
        np.subtract(a[1], a[2], out=tmp)
        tmp -= a[3]
        dst[:, :, :, i, :, 1] = t4


def forward(x, w, g, bias=None, out=None, epilogue=None, u=None):
    """y (N, F, OH, OW) = the 3x3, stride-1 convolution of x (N, C, H, W) with w (F, C, 3, 3)
    by Winograd F(2x2, 3x3), plus `bias` (F,) when given: what `conv_fast.forward` computes
    for the layers `applies` accepts, with 2.25x fewer multiply-adds.

    Args:
        x: the data, (N, C, H, W), float32 or float64, C-contiguous or not.
        w: the weights, (F, C, 3, 3), of x's dtype.
        g: the `conv.Geom` of the convolution (stride 1, dilation 1, any padding).
        bias: the bias, (F,) (default None: none).
        out: optional C-contiguous array of y's shape and x's dtype to write y into.
        epilogue: optional ``f(block, index)`` applied to each chunk of samples of y as soon
            as it is written (bias included): `block` is y seen as (N, F, P) at ``index``,
            modified in place (as `conv_fast.forward`'s).
        u: w's kernel transform (16, F, C) when the caller has it (`flipped_kernel`); w is
            then not read and may be None (default None: made from w).

    Returns:
        array: y, (N, F, OH, OW).

    Example::

        from gluonlite.ops import conv, conv_winograd
        g = conv.Geom((3, 3), (1, 1), (1, 1), (1, 1), (1, 1), (4, 4))
        x, w = np.ones((1, 1, 4, 4), np.float32), np.ones((1, 1, 3, 3), np.float32)
        conv_winograd.forward(x, w, g)[0, 0, 0]     # array([4., 6., 6., 4.], dtype=float32)
    """
    n, c = x.shape[:2]
    if u is None:
        u = _kernel(w)
    f = u.shape[1]
    oh, ow = g.out
    th, tw = -(-oh // 2), -(-ow // 2)
    dt = x.dtype
    y = np.empty((n, f, oh * ow), dtype=dt) if out is None else out.reshape(n, f, oh * ow)
    per = (th + 1) * (tw + 1)  # tiles per sample and channel, garbage ones included
    step = max(1, min(n, _CHUNK // (16 * c * per)))
    t_max = step * per
    exact = oh == 2 * th and ow == 2 * tw
    xp, rows, v, mm, half, tiles = _workspace(
        [4 * c * t_max, 8 * c * t_max, 16 * c * t_max, 16 * f * t_max, 9 * f * t_max,
         0 if exact else 4 * f * step * th * tw], dt)
    b = None if bias is None else bias.astype(dt, copy=False).reshape(1, -1, 1)
    for s in range(0, n, step):
        e = min(n, s + step)
        m = e - s
        vt = _input_tiles(x, s, e, g, th, tw, xp, rows, v)
        t = m * per
        prod_ = mm[:16 * f * t].reshape(16, f, t)
        np.matmul(u, vt, out=prod_)
        ys = y[s:e]
        if exact:  # the tiles are the output: written straight into y, (m, F) swapped
            dst = ys.reshape(m, f, th, 2, tw, 2).swapaxes(0, 1)
        else:
            dst = tiles[:f * m * 4 * th * tw].reshape(f, m, th, 2, tw, 2)
        _output_tiles(prod_, f, m, th, tw, half, dst)
        if not exact:
            full = dst.reshape(f, m, 2 * th, 2 * tw)[:, :, :oh, :ow].swapaxes(0, 1)
            ys.reshape(m, f, oh, ow)[...] = full
        if b is not None:
            ys += b
        if epilogue is not None:
            epilogue(ys, (slice(s, e),))
    return y.reshape((n, f, oh, ow))


def _gradient_tiles(gy, s, e, th, tw, gp, rows, out):
    """GY (16, F, m*(th+1)*(tw+1)) = A gy A^T of the output gradient's 2 x 2 tiles of
    samples s:e (the adjoint of `_output_tiles`), zero on the garbage tiles and past the
    output's odd last row or column, so `_input_tiles`' garbage contributes nothing."""
    m, f = e - s, gy.shape[1]
    oh, ow = gy.shape[2:]
    hq, wq = th + 1, tw + 1
    n_flat = f * m * hq * wq
    d = gp[:4 * n_flat].reshape(2, 2, f, m, hq, wq)
    d.fill(0)
    gs = gy[s:e].swapaxes(0, 1)
    for i in range(2):
        for j in range(2):
            src = gs[:, :, i::2, j::2]
            d[i, j, :, :, :src.shape[2], :src.shape[3]] = src
    flat = d.reshape(2, 2, n_flat)
    # rows of A (4 x 2): g0, g0 + g1, g0 - g1, -g1
    r = rows[:8 * n_flat].reshape(4, 2, n_flat)
    np.copyto(r[0], flat[0])
    np.add(flat[0], flat[1], out=r[1])
    np.subtract(flat[0], flat[1], out=r[2])
    np.negative(flat[1], out=r[3])
    o = out[:16 * n_flat].reshape(4, 4, n_flat)
    np.copyto(o[:, 0], r[:, 0])
    np.add(r[:, 0], r[:, 1], out=o[:, 1])
    np.subtract(r[:, 0], r[:, 1], out=o[:, 2])
    np.negative(r[:, 1], out=o[:, 3])
    return o.reshape(16, f, m * hq * wq)


def weight_grad(gy, x, g, w_shape):
    """dw (F, C, 3, 3) of the convolution `forward` computes, by the same transforms: dU[k]
    = GY[k] @ V[k]^T summed over the tiles (GY the output gradient's tiles, V the input's),
    then dw = G^T dU G. 16 products of F x T x C where im2col's weight gradient does one of
    F x 9 P x C: 2.25x fewer multiply-adds again.

    Args:
        gy: the output's gradient, (N, F, OH, OW).
        x: the forward's input, (N, C, H, W), of gy's dtype.
        g: the `conv.Geom` of the convolution (3x3, stride 1, dilation 1).
        w_shape: the weights' shape (F, C, 3, 3).

    Returns:
        array: dw, of `w_shape` and gy's dtype.

    Example::

        from gluonlite.ops import conv, conv_winograd
        g = conv.Geom((3, 3), (1, 1), (1, 1), (1, 1), (1, 1), (4, 4))
        x, gy = np.ones((1, 1, 4, 4), np.float32), np.ones((1, 1, 4, 4), np.float32)
        conv_winograd.weight_grad(gy, x, g, (1, 1, 3, 3))[0, 0, 1]
        # array([12., 16., 12.], dtype=float32)
    """
    n, c = x.shape[:2]
    f = w_shape[0]
    oh, ow = g.out
    th, tw = -(-oh // 2), -(-ow // 2)
    dt = gy.dtype
    per = (th + 1) * (tw + 1)
    step = max(1, min(n, _CHUNK // (16 * max(c, f) * per)))
    t_max = step * per
    xp, rows, v, gp, grows, gt = _workspace(
        [4 * c * t_max, 8 * c * t_max, 16 * c * t_max, 4 * f * t_max, 8 * f * t_max,
         16 * f * t_max], dt)
    du = np.empty((16, f, c), dtype=dt)
    tmp = np.empty((16, f, c), dtype=dt) if n > step else None
    for s in range(0, n, step):
        e = min(n, s + step)
        vt = _input_tiles(x, s, e, g, th, tw, xp, rows, v)
        gt3 = _gradient_tiles(gy, s, e, th, tw, gp, grows, gt)
        # the first chunk's products go straight into du: no zero fill, no add
        np.matmul(gt3, vt.transpose(0, 2, 1), out=du if s == 0 else tmp)
        if s:
            du += tmp
    dw = _GG[np.dtype(dt)].T @ du.reshape(16, f * c)     # (9, F C)
    return np.ascontiguousarray(dw.T).reshape(w_shape)


def flops_saved(g):
    """The ratio of im2col's multiply-adds to Winograd's on geometry `g` (tiles padded to
    even sides count as work).

    Args:
        g: the `conv.Geom` of a 3x3 convolution.

    Returns:
        float: 9 P / (16 T), P output positions and T tiles (2.25 on even sides).

    Example::

        from gluonlite.ops import conv, conv_winograd
        g = conv.Geom((3, 3), (1, 1), (1, 1), (1, 1), (1, 1), (7, 7))
        round(conv_winograd.flops_saved(g), 2)      # 1.72
    """
    th, tw = (-(-o // 2) for o in g.out)
    return 9 * prod(g.out) / (16 * th * tw)
