"""Stride-1 convolutions with few channels as one matrix product per kernel tap over shifted
windows of the padded input: a fast path of Convolution (`conv.py` keeps the rule), taken by
`conv_fast.forward` (and so by the data gradient it computes as a convolution) where
`applies`.

Each sample's input is copied once into a zero-padded buffer, one row of ``R`` entries per
channel: the padded map row after row (``Hp x Wp``), then a few zeros. Output position
``(oy, ox)`` of tap ``(i, j)`` reads padded position ``(oy + i dh, ox + j dw)``, flat index
``(oy Wp + ox) + (i dh Wp + j dw)``. So with the output laid out ``Wp`` wide, every tap reads
one window of each channel's row, at its own offset:

    Y (F, OH Wp) = sum over taps k of  W[k] (F, C) @ X[:, off_k : off_k + OH Wp]  (C, OH Wp)

K products with beta = 1 (`cblas.gemm`; numpy's matmul can neither read those windows as a
matrix nor add into its output), where im2col first writes the K windows out as a (C K, P)
matrix and makes one product. The columns ``ox >= OW`` of each output row are discarded when
Y is copied into the output. Several samples of a small map share a buffer, their rows side
by side, so the products stay wide.

It pays where the input's copies are the larger part of im2col's cost: few channels, large
maps (benchmarks/conv_shifted.py, one thread, against conv_fast's im2col or Winograd path):
ResNet's 64 -> 64 channels on 56 x 56 in 0.78-0.84 of the time, forward and data gradient,
at batch 1 and 32; VGG's 64 -> 128 on 112 x 112 in 0.82-0.91 and its data gradient (128 ->
64) in 0.61-0.64. From 128 channels in and out on it loses to Winograd and im2col (`RULES`
has the numbers). ``ENABLED = False`` sends every layer to conv_fast's other paths.

The weight gradient stays im2col's: the same windows make it K products of the output
gradient (F, positions) by a window transposed (positions, C), each reducing over all the
positions into a small F x C block, and these ran 0.96-1.03x im2col's one product (F,
positions) @ (positions, K C) on the layers above, 1.1-1.3x from 128 channels.

Example::

    from gluonlite.ops import conv, conv_shifted
    g = conv.Geom((3, 3), (1, 1), (1, 1), (1, 1), (1, 1), (4, 4))
    x, w = np.ones((1, 16, 4, 4), np.float32), np.ones((8, 16, 3, 3), np.float32)
    conv_shifted.forward(x, w, g)[0, 0, 0]    # array([64., 96., 96., 64.]): 4 or 6 taps
    conv_shifted.applies(x.shape, w.shape, 1, g, x.dtype)   # False: a 4 x 4 map is too small
"""
from math import prod

import numpy as np

from . import cblas

__all__ = ["applies", "forward", "RULES", "ENABLED"]

ENABLED = True

# Which layers take it (benchmarks/conv_shifted.py, one thread, shifted / the other path,
# forward and data gradient, batch 1 and 32):
# - channels in at most `max_channels` (16 -> 16 and 32 -> 32 on 56 x 56: 0.62-0.80; 96 on
#   28 x 28: 0.80 at batch 32, 0.95 at batch 1), or at most `max_channels_narrow` when the
#   filters are at most `narrow_filters` (128 -> 64 on 56 x 56: 0.62 at batch 1, 0.95 at 32;
#   VGG's data gradient 128 -> 64 on 112 x 112: 0.61). 128 -> 128 on 28 x 28 is 1.2-1.3x
#   against Winograd at batch 32, 256 -> 256 on 14 x 14 1.2-1.4x;
# - at least `min_channels`: 3 -> 64 on 224 x 224 (VGG's first layer) is 2.3x, a product
#   over 3 channels per tap doing too little per call; 8 -> 8 on 56 x 56 is 0.8;
# - an output map at least `min_side` on a side: 64 channels on 14 x 14 are 0.9-1.25x, on
#   7 x 7 up to 1.9x (the discarded columns and the short rows).
RULES = {
    "max_channels": 96,
    "max_channels_narrow": 128,
    "narrow_filters": 64,
    "min_channels": 8,
    "min_side": 28,
}

# entries of one buffer of samples (their padded rows side by side): about an L2 cache
_CHUNK = 1 << 18


def applies(x_shape, w_shape, groups, g, dtype):
    """Whether `forward` takes this convolution: a 2-D convolution of one group, stride 1,
    a kernel of more than one tap, the channel and map sizes of `RULES`, and numpy's BLAS
    product found for `dtype` (`cblas.gemm`).

    Args:
        x_shape: the input's shape (N, C, H, W).
        w_shape: the weight's shape (F, C, kh, kw).
        groups: the number of groups.
        g: the `conv.Geom`.
        dtype: the data's dtype.

    Returns:
        bool.

    Example::

        from gluonlite.ops import conv, conv_shifted
        g = conv.Geom((3, 3), (1, 1), (1, 1), (1, 1), (1, 1), (56, 56))
        conv_shifted.applies((1, 64, 56, 56), (64, 64, 3, 3), 1, g, np.float32)  # True with BLAS
    """
    if not ENABLED or groups != 1 or len(x_shape) != 4 or any(s != 1 for s in g.stride):
        return False
    c, f = x_shape[1], w_shape[0]
    if prod(g.kernel) < 2 or c < RULES["min_channels"] or min(g.out) < RULES["min_side"]:
        return False
    if c > RULES["max_channels"] and not (c <= RULES["max_channels_narrow"]
                                          and f <= RULES["narrow_filters"]):
        return False
    return cblas.gemm(dtype) is not None


def forward(x, w, g, bias=None, out=None, epilogue=None):
    """y (N, F, OH, OW) = the convolution of x (N, C, H, W) with w (F, C, kh, kw) at stride 1
    (any dilation and padding), plus `bias`; the products of the module docstring.

    Args:
        x: the data, float32 or float64 (any layout: it is copied into the buffer).
        w: the weights, of x's dtype (any layout).
        g: the `conv.Geom` (stride 1).
        bias: (F,) or None.
        out: optional C-contiguous array of y's size and x's dtype to write y into.
        epilogue: optional ``f(block, index)``, as `conv_fast.forward`'s: applied to each
            block of samples of y, viewed as (N, F, P), as soon as it is written.

    Returns:
        y, (N, F, OH, OW).

    Raises:
        ValueError: no BLAS product for x's dtype (`applies` says where there is one).

    Example::

        from gluonlite.ops import conv, conv_shifted
        g = conv.Geom((2, 2), (1, 1), (1, 1), (0, 0), (0, 0), (3, 3))
        x, w = np.ones((1, 1, 3, 3), np.float32), np.ones((1, 1, 2, 2), np.float32)
        conv_shifted.forward(x, w, g)[0, 0]    # [[4., 4.], [4., 4.]] where the BLAS is found
    """
    gemm = cblas.gemm(x.dtype)
    if gemm is None:
        raise ValueError(f"conv_shifted.forward: no BLAS product for {x.dtype}")
    n, c, h, wd = x.shape
    f, kh, kw = w.shape[0], w.shape[2], w.shape[3]
    (dh, dw), (pt, pl), (pb, pr) = g.dilate, g.pad, g.pad_end
    oh, ow = g.out
    hp, wp = h + pt + pb, wd + pl + pr
    # a channel's row: the padded map, then the zeros the last taps' windows run into
    row = hp * wp + (kw - 1) * dw
    span = oh * wp                      # one sample's output columns, Wp wide
    offsets = [i * dh * wp + j * dw for i in range(kh) for j in range(kw)]
    taps = np.ascontiguousarray(w.transpose(2, 3, 0, 1), dtype=x.dtype).reshape(-1, f, c)
    y = np.empty((n, f, oh * ow), x.dtype) if out is None else out.reshape(n, f, oh * ow)
    b = None if bias is None else bias.astype(x.dtype, copy=False).reshape(1, f, 1, 1)
    per = max(1, min(n, _CHUNK // max(1, c * row)))
    buffers = {}
    for s in range(0, n, per):
        m = min(per, n - s)
        if m not in buffers:    # zeroed once: every block writes the same interior
            buffers[m] = (np.zeros((c, m, row), x.dtype), np.empty((f, m * row), x.dtype))
        xp, yt = buffers[m]
        xp[:, :, :hp * wp].reshape(c, m, hp, wp)[:, :, pt:pt + h, pl:pl + wd] = \
            x[s:s + m].transpose(1, 0, 2, 3)
        # the samples' rows side by side: one product per tap covers all of them (the
        # columns between one sample's outputs and the next's are discarded)
        flat, cols = xp.reshape(c, m * row), (m - 1) * row + span
        for k, off in enumerate(offsets):
            gemm(taps[k], flat[:, off:], yt, f, cols, c, beta=1.0 if k else 0.0)
        block = yt.reshape(f, m, row)[:, :, :span].reshape(f, m, oh, wp)[..., :ow]
        dest = y[s:s + m].reshape(m, f, oh, ow)
        if b is None:
            np.copyto(dest, block.transpose(1, 0, 2, 3))
        else:
            np.add(block.transpose(1, 0, 2, 3), b, out=dest)
        if epilogue is not None:
            epilogue(y[s:s + m], (slice(s, s + m),))
    return y.reshape(n, f, oh, ow)
