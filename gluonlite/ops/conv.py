"""Convolution family: Convolution, Deconvolution, Pooling, im2col, col2im (1-D, 2-D, 3-D).

Every kernel is numpy: im2col reads the padded input through a strided view (no Python loop
over pixels) and one matrix product per group does the arithmetic; the gradients are the
same two pieces the other way round (col2im loops over the kernel offsets only). A
Deconvolution is the data gradient of a Convolution, so the two share every piece.

Channels-last layouts (NWC, NHWC, NDHWC) are run by moving the channel axis first and back.
"""
import functools
from math import prod

import numpy as np

from . import attrs as A
from . import conv_fast, pool_fast
from .fast import Fast
from .registry import alias, apply, register, ShapeError

__all__ = ["im2col", "col2im", "conv_forward", "conv_data_grad", "conv_weight_grad"]

_FIRST = {1: "NCW", 2: "NCHW", 3: "NCDHW"}
_LAST = {1: "NWC", 2: "NHWC", 3: "NDHWC"}


def _opt_str(v):
    return None if v is None or str(v).strip() in ("None", "") else str(v)


def _tuple_attr(default=()):
    """A per-spatial-axis tuple attribute (kernel, stride, dilate, pad, adj)."""
    return A.Shape(default)


_LAYOUT = A.Attr(_opt_str, None, "str")


# ---- geometry ----------------------------------------------------------------------------------
class Geom:
    """The per-axis numbers of one convolution: kernel, stride, dilate, pad (left), pad_end
    (right, which Pooling's 'full' convention makes larger) and the output sizes.

    Args:
        kernel: the kernel's size on each spatial axis (a sequence of ints; kept as a tuple).
        stride: the step on each axis.
        dilate: the dilation on each axis (1: a dense kernel).
        pad: the padding before each axis.
        pad_end: the padding after each axis.
        out: the output's size on each axis.

    Example::

        from gluonlite.ops import conv
        g = conv.Geom((2, 2), (1, 1), (1, 1), (0, 0), (0, 0), (2, 2))    # 2x2 kernel on 3x3
        g.kernel, g.out             # ((2, 2), (2, 2))
    """

    __slots__ = ("kernel", "stride", "dilate", "pad", "pad_end", "out")

    def __init__(self, kernel, stride, dilate, pad, pad_end, out):
        self.kernel, self.stride, self.dilate = tuple(kernel), tuple(stride), tuple(dilate)
        self.pad, self.pad_end, self.out = tuple(pad), tuple(pad_end), tuple(out)


def _axis_tuple(name, attr, value, nd, default):
    """`value` expanded to one entry per spatial axis (empty: `default` on every axis)."""
    if not value:
        return (default,) * nd
    if len(value) != nd:
        raise ShapeError(f"{name}: {attr}={tuple(value)} must have {nd} entries, one per "
                         f"spatial axis of the kernel {nd}-D")
    return tuple(value)


def _layout_of(name, p, ndim, allowed_last=True):
    """(channels_last, layout string) for data of `ndim` axes; ValueError for a layout MXNet
    rejects."""
    nd = ndim - 2
    if nd not in _FIRST:
        raise ShapeError(f"{name}: data must have 3, 4 or 5 dimensions (batch, channel and 1-3 "
                         f"spatial axes), got {ndim}")
    lay = p.layout
    if lay is None or lay == _FIRST[nd]:
        return False, _FIRST[nd]
    if allowed_last and lay == _LAST[nd]:
        return True, lay
    ok = [_FIRST[nd]] + ([_LAST[nd]] if allowed_last else [])
    raise ShapeError(f"{name}: layout={lay!r} is not supported for data of {ndim} dimensions; "
                     f"expected one of {ok}")


def _to_first(x):
    return x.transpose((0, x.ndim - 1) + tuple(range(1, x.ndim - 1)))


def _to_last(x):
    return x.transpose((0,) + tuple(range(2, x.ndim)) + (1,))


def _sp(shape, last):
    """(channels, spatial sizes) of a data shape."""
    return (shape[-1], tuple(shape[1:-1])) if last else (shape[1], tuple(shape[2:]))


def _mk(shape, n, c, sp, last):
    return (n,) + tuple(sp) + (c,) if last else (n, c) + tuple(sp)


# ---- the kernels on raw arrays (channels first) --------------------------------------------
def _pad_input(xp, x, g, value=0):
    nd = len(g.kernel)
    if not any(g.pad) and not any(g.pad_end):
        return x
    widths = ((0, 0), (0, 0)) + tuple((g.pad[i], g.pad_end[i]) for i in range(nd))
    return xp.pad(x, widths, mode="constant", constant_values=value)


def _offsets(g):
    """(index, strided slice of the padded input) per kernel offset: the slice holds, for
    every output position, the input that offset of the window reads."""
    nd = len(g.kernel)
    for j, k in enumerate(np.ndindex(*g.kernel)):
        yield j, (slice(None), slice(None)) + tuple(
            slice(k[i] * g.dilate[i], k[i] * g.dilate[i] + g.stride[i] * (g.out[i] - 1) + 1,
                  g.stride[i]) for i in range(nd))


# im2col's columns are made and consumed a few samples at a time, in buffers reused across
# the chunks: one pass over a whole batch would write K times the input (925 MB for 32
# samples of 64 x 56 x 56, 3 x 3) into fresh memory, and paging that in costs as much as the
# product. A chunk of about this many columns' entries keeps the products large.
_CHUNK = 1 << 22


def _chunks(n, per_sample):
    """(start, end) sample ranges of about `_CHUNK` column entries each."""
    step = max(1, _CHUNK // max(1, per_sample))
    for s in range(0, n, step):
        yield s, min(n, s + step)


def _im2col_padded(xp, xpad, g, buf=None):
    n, c = xpad.shape[:2]
    kk = prod(g.kernel)
    shape = (c, kk, n) + g.out
    cols = xp.empty(shape, dtype=xpad.dtype) if buf is None else buf[:prod(shape)].reshape(shape)
    for j, sl in _offsets(g):
        cols[:, j] = xpad[sl].swapaxes(0, 1)
    return cols.reshape(c * kk, n * prod(g.out))


def im2col(xp, x, g, value=0):
    """The columns of input `x` (N, C, *spatial) for geometry `g`: an array (C * K, N * P)
    whose column (n, p) holds the C*K inputs output position p of sample n reads (K the
    kernel's size, P the output's). One strided-slice copy per kernel offset.

    Args:
        xp: the array module (numpy or cupy).
        x: the input, (N, C, *spatial).
        g: the `Geom` of the convolution.
        value: the value of the padding (default 0; Pooling's max pads with -inf).

    Returns:
        array: the columns, (C * K, N * P), of x's dtype.

    Example::

        from gluonlite.ops import conv
        g = conv.Geom((2, 2), (1, 1), (1, 1), (0, 0), (0, 0), (2, 2))    # 2x2 kernel on 3x3
        x = np.arange(9.0).reshape(1, 1, 3, 3)
        conv.im2col(np, x, g).shape         # (4, 4): C*K rows, N*P columns
    """
    return _im2col_padded(xp, _pad_input(xp, x, g, value), g)


def _col2im_into(xp, cols, dst, g):
    """Add columns (C * K, N * P) into the padded input gradient `dst` (N, C, *padded)."""
    n, c = dst.shape[:2]
    cv = cols.reshape((c, prod(g.kernel), n) + g.out)
    for j, sl in _offsets(g):
        dst[sl] += cv[:, j].swapaxes(0, 1)


def _padded_shape(x_shape, g):
    sp = x_shape[2:]
    return tuple(x_shape[:2]) + tuple(sp[i] + g.pad[i] + g.pad_end[i] for i in range(len(sp)))


def _crop(a, x_shape, g):
    sp = x_shape[2:]
    return a[(slice(None), slice(None)) + tuple(slice(g.pad[i], g.pad[i] + sp[i])
                                                for i in range(len(sp)))]


def col2im(xp, cols, x_shape, g):
    """The adjoint of `im2col`: columns (C * K, N * P) summed back into an input (N, C,
    *spatial). One strided add per kernel offset.

    Args:
        xp: the array module (numpy or cupy).
        cols: the columns, (C * K, N * P).
        x_shape: the input's shape (N, C, *spatial).
        g: the `Geom` of the convolution.

    Returns:
        array: of `x_shape`, each input the sum of the columns that read it.

    Example::

        from gluonlite.ops import conv
        g = conv.Geom((2, 2), (1, 1), (1, 1), (0, 0), (0, 0), (2, 2))    # 2x2 kernel on 3x3
        cols = np.ones((4, 4))
        conv.col2im(np, cols, (1, 1, 3, 3), g)[0, 0]    # how many windows read each input
        # array([[1., 2., 1.], [2., 4., 2.], [1., 2., 1.]])
    """
    out = xp.zeros(_padded_shape(x_shape, g), dtype=cols.dtype)
    _col2im_into(xp, cols, out, g)
    return _crop(out, x_shape, g)


def _group_rows(a, groups, i):
    r = a.shape[0] // groups
    return a[i * r:(i + 1) * r]


def conv_forward(xp, x, w, groups, g, bias=None):
    """y (N, F, *out) = the convolution of x (N, C, *sp) with w (F, C/groups, *kernel), plus
    `bias` (F,) when given: one matrix product per group on the im2col columns of each chunk
    of samples. numpy float arrays take `conv_fast.forward`, the same arithmetic arranged
    for speed.

    Args:
        xp: the array module (numpy or cupy).
        x: the data, (N, C, *sp).
        w: the weights, (F, C/groups, *kernel).
        groups: the number of groups (channels and filters split into that many).
        g: the `Geom` of the convolution.
        bias: the bias, (F,) (default None: none).

    Returns:
        array: y, (N, F, *g.out), of the result dtype of x and w.

    Example::

        from gluonlite.ops import conv
        g = conv.Geom((2, 2), (1, 1), (1, 1), (0, 0), (0, 0), (2, 2))    # 2x2 kernel on 3x3
        x, w = np.ones((1, 1, 3, 3)), np.ones((1, 1, 2, 2))
        conv.conv_forward(np, x, w, 1, g)   # array([[[[4., 4.], [4., 4.]]]])
    """
    if conv_fast.usable(xp, x, w, bias):
        return conv_fast.forward(x, w, groups, g, bias)
    n, c = x.shape[:2]
    f, p = w.shape[0], prod(g.out)
    rows = c * prod(g.kernel)
    dt = np.result_type(x.dtype, w.dtype)
    xpad = _pad_input(xp, x, g)
    w2 = w.reshape(f, -1)
    b = None if bias is None else bias.reshape(1, -1, 1).astype(dt, copy=False)
    y = xp.empty((n, f, p), dtype=dt)
    buf = tmp = None
    for s, e in _chunks(n, rows * p):
        m = e - s
        if buf is None:
            buf, tmp = xp.empty(rows * m * p, dtype=x.dtype), xp.empty(f * m * p, dtype=dt)
        cols = _im2col_padded(xp, xpad[s:e], g, buf)
        t = tmp[:f * m * p].reshape(f, m * p)
        for i in range(groups):
            xp.matmul(_group_rows(w2, groups, i), _group_rows(cols, groups, i),
                      out=_group_rows(t, groups, i))
        src = t.reshape(f, m, p).swapaxes(0, 1)
        if b is None:
            y[s:e] = src
        else:
            xp.add(src, b, out=y[s:e])
    return y.reshape((n, f) + g.out)


def conv_backward(xp, gy, w, groups, g, x_shape, x=None, need_x=True, need_w=True,
                  w_shape=None):
    """The gradients (dx, dw) of `conv_forward` (None where not needed): per chunk of
    samples, dw += gy_g @ cols_g.T (cols from `x`) and dcols_g = w_g.T @ gy_g summed back
    into dx by col2im. Also Deconvolution's forward (dx) and weight gradient. `w` may be
    None when only dw is wanted (its shape then given as `w_shape`). numpy float arrays take
    `conv_fast.backward`.

    Args:
        xp: the array module (numpy or cupy).
        gy: the gradient of the output, (N, F, *g.out).
        w: the weights, (F, C/groups, *kernel), or None (see above).
        groups: the number of groups.
        g: the `Geom` of the convolution.
        x_shape: the input's shape (N, C, *sp).
        x: the forward's input (needed for dw; default None).
        need_x: compute dx (default True).
        need_w: compute dw (default True).
        w_shape: the weights' shape when `w` is None (default None).

    Returns:
        (array or None, array or None): dx of `x_shape` and dw of the weights' shape.

    Example::

        from gluonlite.ops import conv
        g = conv.Geom((2, 2), (1, 1), (1, 1), (0, 0), (0, 0), (2, 2))    # 2x2 kernel on 3x3
        x, w, gy = np.ones((1, 1, 3, 3)), np.ones((1, 1, 2, 2)), np.ones((1, 1, 2, 2))
        dx, dw = conv.conv_backward(np, gy, w, 1, g, x.shape, x=x)
        dw                                  # array([[[[4., 4.], [4., 4.]]]])
    """
    if conv_fast.usable(xp, gy, w, x):
        return conv_fast.backward(gy, w, groups, g, x_shape, x=x, need_x=need_x,
                                  need_w=need_w, w_shape=w_shape)
    n, c = x_shape[:2]
    w_shape = tuple(w.shape if w is not None else w_shape)
    f, p = w_shape[0], prod(g.out)
    rows = c * prod(g.kernel)
    dt = np.result_type(gy.dtype, (w if w is not None else x).dtype)
    w2 = w.reshape(f, -1) if w is not None else None
    xpad = _pad_input(xp, x, g) if need_w else None
    dw = xp.zeros((f, rows // groups), dtype=dt) if need_w else None
    dxpad = xp.zeros(_padded_shape(x_shape, g), dtype=dt) if need_x else None
    gbuf = cbuf = None
    for s, e in _chunks(n, rows * p):
        m = e - s
        if gbuf is None:
            gbuf, cbuf = xp.empty(f * m * p, dtype=gy.dtype), xp.empty(rows * m * p, dtype=dt)
        g3 = gbuf[:f * m * p].reshape(f, m, p)
        g3[...] = gy[s:e].reshape(m, f, p).swapaxes(0, 1)
        g2 = g3.reshape(f, m * p)
        if need_w:
            cols = _im2col_padded(xp, xpad[s:e], g, cbuf)
            for i in range(groups):
                _group_rows(dw, groups, i)[...] += xp.matmul(
                    _group_rows(g2, groups, i), _group_rows(cols, groups, i).T)
        if need_x:
            dcols = cbuf[:rows * m * p].reshape(rows, m * p)
            for i in range(groups):
                xp.matmul(_group_rows(w2, groups, i).T, _group_rows(g2, groups, i),
                          out=_group_rows(dcols, groups, i))
            _col2im_into(xp, dcols, dxpad[s:e], g)
    dx = _crop(dxpad, x_shape, g) if need_x else None
    return dx, (dw.reshape(w_shape) if need_w else None)


def conv_data_grad(xp, gy, w, groups, g, x_shape):
    """The gradient of `conv_forward` with respect to x (Deconvolution's forward).

    Args:
        xp: the array module (numpy or cupy).
        gy: the gradient of the output, (N, F, *g.out).
        w: the weights, (F, C/groups, *kernel).
        groups: the number of groups.
        g: the `Geom` of the convolution.
        x_shape: the input's shape (N, C, *sp).

    Returns:
        array: dx, of `x_shape`.

    Example::

        from gluonlite.ops import conv
        g = conv.Geom((2, 2), (1, 1), (1, 1), (0, 0), (0, 0), (2, 2))    # 2x2 kernel on 3x3
        w, gy = np.ones((1, 1, 2, 2)), np.ones((1, 1, 2, 2))
        conv.conv_data_grad(np, gy, w, 1, g, (1, 1, 3, 3))[0, 0, 1]     # array([2., 4., 2.])
    """
    return conv_backward(xp, gy, w, groups, g, x_shape, need_w=False)[0]


def conv_weight_grad(xp, x, gy, groups, g, w_shape):
    """The gradient of `conv_forward` with respect to w, of shape `w_shape`.

    Args:
        xp: the array module (numpy or cupy).
        x: the forward's input, (N, C, *sp).
        gy: the gradient of the output, (N, F, *g.out).
        groups: the number of groups.
        g: the `Geom` of the convolution.

    Returns:
        array: dw, of `w_shape`.

    Example::

        from gluonlite.ops import conv
        g = conv.Geom((2, 2), (1, 1), (1, 1), (0, 0), (0, 0), (2, 2))    # 2x2 kernel on 3x3
        x, gy = np.ones((1, 1, 3, 3)), np.ones((1, 1, 2, 2))
        conv.conv_weight_grad(np, x, gy, 1, g, (1, 1, 2, 2)).sum()      # 16.0
    """
    return conv_backward(xp, gy, None, groups, g, x.shape, x=x, need_x=False,
                         w_shape=w_shape)[1]


# ---- Convolution ---------------------------------------------------------------------------
_CONV_ATTRS = {
    "kernel": _tuple_attr(A.REQUIRED), "stride": _tuple_attr(), "dilate": _tuple_attr(),
    "pad": _tuple_attr(), "num_filter": A.Int(), "num_group": A.Int(1),
    "workspace": A.Int(1024), "no_bias": A.Bool(False), "cudnn_tune": A.Attr(_opt_str, None),
    "cudnn_off": A.Bool(False), "layout": _LAYOUT}

_DECONV_ATTRS = dict(_CONV_ATTRS, adj=_tuple_attr(), target_shape=_tuple_attr())


def _conv_inputs(p):
    return ["data", "weight"] if p.no_bias else ["data", "weight", "bias"]


def _check_common(name, p, nd):
    for attr in ("kernel", "stride", "dilate"):
        v = p[attr]
        if v and any(e <= 0 for e in v):
            raise ShapeError(f"{name}: {attr}={tuple(v)} must be positive on every axis")
    if p.pad and any(e < 0 for e in p.pad):
        raise ShapeError(f"{name}: pad={tuple(p.pad)} must not be negative")
    if p.num_group <= 0:
        raise ShapeError(f"{name}: num_group={p.num_group} must be positive")
    if p.num_filter <= 0:
        raise ShapeError(f"{name}: num_filter={p.num_filter} must be positive")
    if len(p.kernel) != nd:
        raise ShapeError(f"{name}: kernel={tuple(p.kernel)} has {len(p.kernel)} axes but the "
                         f"data has {nd} spatial axes")


def conv_geom(name, p, sp):
    """The `Geom` of a Convolution with attributes `p` on spatial sizes `sp`.

    Args:
        name: the operator's name, starting the error messages.
        p: the Convolution's parsed attributes (kernel, stride, dilate, pad).
        sp: the input's spatial sizes, a tuple.

    Returns:
        Geom: with pad_end equal to pad.

    Raises:
        ShapeError: a stride, dilate or pad with the wrong number of entries, or a dilated
            kernel larger than the padded input.

    Example::

        from gluonlite.ops import conv
        p = mx.ops.get("Convolution").parse({"kernel": (3, 3), "num_filter": 4, "pad": (1, 1)})[0]
        conv.conv_geom("Convolution", p, (8, 8)).out    # (8, 8): padding keeps the size
    """
    nd = len(sp)
    k = p.kernel
    s = _axis_tuple(name, "stride", p.stride, nd, 1)
    d = _axis_tuple(name, "dilate", p.dilate, nd, 1)
    pad = _axis_tuple(name, "pad", p.pad, nd, 0)
    out = []
    for i in range(nd):
        dk = d[i] * (k[i] - 1) + 1
        if dk > sp[i] + 2 * pad[i]:
            raise ShapeError(f"{name}: kernel={tuple(k)} (dilated {dk} on axis {i}) is larger "
                             f"than the padded input: spatial shape {tuple(sp)} padded by "
                             f"{tuple(pad)} gives {sp[i] + 2 * pad[i]} on axis {i}")
        out.append((sp[i] + 2 * pad[i] - dk) // s[i] + 1)
    return Geom(k, s, d, pad, pad, out)


def _conv_shape(p, ins):
    name = "Convolution"
    data = ins[0]
    if data is None:
        return ins, [None]
    last, _ = _layout_of(name, p, len(data))
    nd = len(data) - 2
    _check_common(name, p, nd)
    c, sp = _sp(data, last)
    if c % p.num_group or p.num_filter % p.num_group:
        raise ShapeError(f"{name}: num_group={p.num_group} must divide the input channels "
                         f"({c}, data {tuple(data)}) and num_filter ({p.num_filter})")
    g = conv_geom(name, p, sp)
    wshape = ((p.num_filter,) + tuple(p.kernel) + (c // p.num_group,) if last
              else (p.num_filter, c // p.num_group) + tuple(p.kernel))
    _fill(name, ins, 1, "weight", wshape)
    if not p.no_bias:
        _fill(name, ins, 2, "bias", (p.num_filter,))
    return ins, [_mk(data, data[0], p.num_filter, g.out, last)]


def _fill(name, ins, i, what, want):
    got = ins[i]
    if got is not None and 0 not in got and tuple(got) != tuple(want):
        raise ShapeError(f"{name}: {what} must have shape {tuple(want)}, got {tuple(got)}")
    ins[i] = tuple(want)


def _conv_weight_first(w, last):
    return _to_first(w) if last else w


def _bias_shape(nd):
    return (1, -1) + (1,) * nd


def _convolution(p, rc, x, w, b=None):
    """Convolution(data, weight, bias=None, kernel, num_filter, stride=(), dilate=(),
    pad=(), num_group=1, no_bias=False, layout=None): the N-D (1-3 spatial axes)
    cross-correlation of data (N, C, *spatial) with weight (num_filter, C/num_group,
    *kernel), plus bias. Output size per axis: (x + 2 * pad - dilate * (k - 1) - 1) // stride
    + 1. Channels-last layouts (NWC, NHWC, NDHWC) take weight (num_filter, *kernel, C)."""
    xp = rc.xp
    last, _ = _layout_of("Convolution", p, x.ndim)
    xf = _to_first(x) if last else x
    g = conv_geom("Convolution", p, xf.shape[2:])
    y = conv_forward(xp, xf, _conv_weight_first(w, last), p.num_group, g, bias=b)
    y = y.astype(x.dtype, copy=False)
    return xp.ascontiguousarray(_to_last(y)) if last else y


def _recorded_weight_grad(op, x, gy, g, w_shape):
    """dw of a convolution (groups 1, channels first) as a Convolution itself: x with samples
    as channels, correlated with gy as the kernel (stride and dilation trade places), cropped
    to the kernel. For recorded (second-order) gradients."""
    nd = len(g.kernel)
    perm = (1, 0) + tuple(range(2, 2 + nd))
    full = op("Convolution", op("transpose", x, axes=perm), op("transpose", gy, axes=perm),
              kernel=g.out, stride=g.dilate, dilate=g.stride, pad=g.pad,
              num_filter=w_shape[0], no_bias=True)
    full = op("slice", full, begin=(None, None) + (0,) * nd, end=(None, None) + tuple(g.kernel))
    return op("transpose", full, axes=perm)


def _recorded_conv_vjp(p, rc, xs, ys, gys, need):
    """Convolution's gradient as registered operators (Deconvolution, Convolution), so that it
    records for a second derivative (`Rules.recorded_vjp`); groups 1 and channels-first
    layouts only."""
    op = functools.partial(apply, rc)
    x, w = xs[0], xs[1]
    gy = gys[0]
    if p.num_group != 1 or _layout_of("Convolution", p, x.ndim)[0]:
        raise ValueError("Convolution: a second derivative needs num_group=1 and a "
                         "channels-first layout")
    sp = x.shape[2:]
    g = conv_geom("Convolution", p, sp)
    nd = len(sp)
    gx = gw = gb = None
    if need[0]:
        adj = tuple(sp[i] - (g.stride[i] * (g.out[i] - 1) + g.dilate[i] * (g.kernel[i] - 1) + 1
                             - 2 * g.pad[i]) for i in range(nd))
        gx = op("Deconvolution", gy, w, kernel=g.kernel, stride=g.stride, dilate=g.dilate,
                pad=g.pad, adj=adj, num_filter=x.shape[1], no_bias=True)
    if need[1]:
        gw = _recorded_weight_grad(op, x, gy, g, w.shape)
    if len(xs) > 2 and need[2]:
        gb = gy.sum(axis=(0,) + tuple(range(2, gy.ndim)))
    return (gx, gw, gb)[:len(xs)]


def _conv_vjp(p, rc, xs, ys, gys, need):
    xp = rc.xp
    x, w = xs[0], xs[1]
    last, _ = _layout_of("Convolution", p, x.ndim)
    xf = _to_first(x) if last else x
    wf = _conv_weight_first(w, last)
    gy = _to_first(gys[0]) if last else gys[0]
    g = conv_geom("Convolution", p, xf.shape[2:])
    gx, gw = conv_backward(xp, gy, wf, p.num_group, g, xf.shape, x=xf, need_x=need[0],
                           need_w=need[1])
    if gx is not None:
        gx = gx.astype(x.dtype, copy=False)
        gx = _to_last(gx) if last else gx
    if gw is not None:
        gw = gw.astype(w.dtype, copy=False)
        gw = _to_last(gw) if last else gw
    gb = None
    if len(xs) > 2 and need[2]:
        gb = gy.sum(axis=(0,) + tuple(range(2, gy.ndim))).astype(xs[2].dtype, copy=False)
    return (gx, gw, gb)[:len(xs)]


def _conv_shape_back(p, ins, outs):
    """The data's shape from the output's, as far as MXNet's incomplete inference goes: the
    batch size always, the channels from the weight, a spatial size where its stride is 1
    (else 0, unknown). A conv RNN cell's zero begin state (batch 0) learns its shape so."""
    out, w = outs[0], ins[1]
    if ins[0] is not None or out is None:
        return ins
    name = "Convolution"
    last, _ = _layout_of(name, p, len(out))
    nd = len(out) - 2
    osp = tuple(out[1:-1]) if last else tuple(out[2:])
    st = _axis_tuple(name, "stride", p.stride, nd, 1)
    dl = _axis_tuple(name, "dilate", p.dilate, nd, 1)
    pad = _axis_tuple(name, "pad", p.pad, nd, 0)
    sp = tuple(o - 1 + dl[i] * (p.kernel[i] - 1) + 1 - 2 * pad[i] if st[i] == 1 else 0
               for i, o in enumerate(osp))
    c = 0 if w is None else (w[-1] if last else w[1]) * p.num_group
    ins[0] = (out[0],) + sp + (c,) if last else (out[0], c) + sp
    return ins


register("Convolution", inputs=_conv_inputs, signature=("data", "weight", "bias"),
         attrs=_CONV_ATTRS, shape=(_conv_shape, _conv_shape_back), vjp=_conv_vjp,
         recorded_vjp=_recorded_conv_vjp)(_convolution)


# ---- Deconvolution -------------------------------------------------------------------------
def deconv_geom(name, p, sp):
    """(Geom of the Convolution this Deconvolution transposes, output spatial sizes) for input
    spatial sizes `sp`.

    Args:
        name: the operator's name, starting the error messages.
        p: the Deconvolution's parsed attributes (kernel, stride, dilate, pad, adj,
            target_shape).
        sp: the input's spatial sizes, a tuple.

    Returns:
        (Geom, tuple): the geometry and the output's spatial sizes.

    Raises:
        ShapeError: attributes with the wrong number of entries, or sizes that do not fit.

    Example::

        from gluonlite.ops import conv
        p = mx.ops.get("Deconvolution").parse({"kernel": (2, 2), "num_filter": 4,
                                               "stride": (2, 2)})[0]
        g, out = conv.deconv_geom("Deconvolution", p, (4, 4))
        out                                 # (8, 8): stride 2 doubles the size
    """
    nd = len(sp)
    k = p.kernel
    s = _axis_tuple(name, "stride", p.stride, nd, 1)
    d = _axis_tuple(name, "dilate", p.dilate, nd, 1)
    pad = list(_axis_tuple(name, "pad", p.pad, nd, 0))
    adj = list(_axis_tuple(name, "adj", p.adj, nd, 0))
    if p.target_shape and any(p.target_shape):
        tgt = _axis_tuple(name, "target_shape", p.target_shape, nd, 0)
        for i in range(nd):
            total = s[i] * (sp[i] - 1) + d[i] * (k[i] - 1) + 1
            if total < tgt[i]:
                raise ShapeError(f"{name}: target_shape={tuple(tgt)} is larger than the "
                                 f"largest output {total} on axis {i} for input {tuple(sp)}")
            adj[i] = (total - tgt[i]) % 2
            pad[i] = (total - tgt[i] + 1) // 2
    out = []
    for i in range(nd):
        if adj[i] >= s[i] and adj[i] > 0:
            raise ShapeError(f"{name}: adj={tuple(adj)} must be smaller than stride={s} on "
                             f"every axis")
        o = s[i] * (sp[i] - 1) + d[i] * (k[i] - 1) + 1 - 2 * pad[i] + adj[i]
        if o <= 0:
            raise ShapeError(f"{name}: input spatial shape {tuple(sp)} with kernel={tuple(k)}, "
                             f"stride={s}, pad={tuple(pad)} gives an empty output")
        out.append(o)
    # The convolution from the output back to the input, padded by pad on both sides, maps
    # `out` to `sp` exactly (adj < stride); its windows never read the last adj positions.
    return Geom(k, s, d, pad, pad, sp), tuple(out)


def _deconv_shape(p, ins):
    name = "Deconvolution"
    data = ins[0]
    if data is None:
        return ins, [None]
    last, _ = _layout_of(name, p, len(data), allowed_last=False)
    nd = len(data) - 2
    _check_common(name, p, nd)
    c, sp = _sp(data, last)
    if c % p.num_group or p.num_filter % p.num_group:
        raise ShapeError(f"{name}: num_group={p.num_group} must divide the input channels "
                         f"({c}, data {tuple(data)}) and num_filter ({p.num_filter})")
    _, out = deconv_geom(name, p, sp)
    _fill(name, ins, 1, "weight", (c, p.num_filter // p.num_group) + tuple(p.kernel))
    if not p.no_bias:
        _fill(name, ins, 2, "bias", (p.num_filter,))
    return ins, [(data[0], p.num_filter) + out]


def _deconvolution(p, rc, x, w, b=None):
    """Deconvolution(data, weight, bias=None, kernel, num_filter, stride=(), dilate=(),
    pad=(), adj=(), target_shape=(), num_group=1, no_bias=True, layout=None): the transposed
    convolution (the data gradient of Convolution) of data (N, C, *spatial) with weight
    (C, num_filter/num_group, *kernel). Output size per axis: stride * (x - 1) + dilate *
    (k - 1) + 1 - 2 * pad + adj; target_shape, when given, sets pad and adj."""
    xp = rc.xp
    _layout_of("Deconvolution", p, x.ndim, allowed_last=False)
    g, out = deconv_geom("Deconvolution", p, x.shape[2:])
    y = _deconv_apply(xp, x, w, p.num_group, g, out)
    if b is not None:
        y = y + b.reshape(_bias_shape(len(out))).astype(y.dtype, copy=False)
    return xp.ascontiguousarray(y.astype(x.dtype, copy=False))


def _deconv_apply(xp, x, w, groups, g, out):
    return conv_data_grad(xp, x, w, groups, g, (x.shape[0], w.shape[1] * groups) + out)


def _recorded_deconv_vjp(p, rc, xs, ys, gys, need):
    """Deconvolution's gradient as registered operators (a Convolution and the weight
    gradient of one), so that it records for a second derivative (`Rules.recorded_vjp`);
    groups 1 only."""
    op = functools.partial(apply, rc)
    x, w = xs[0], xs[1]
    if p.num_group != 1:
        raise ValueError("Deconvolution: a second derivative needs num_group=1")
    g, out = deconv_geom("Deconvolution", p, x.shape[2:])
    gy = gys[0]
    gx = gw = gb = None
    if need[0]:
        gx = op("Convolution", gy, w, kernel=g.kernel, stride=g.stride, dilate=g.dilate,
                pad=g.pad, num_filter=x.shape[1], no_bias=True)
    if need[1]:
        gw = _recorded_weight_grad(op, gy, x, g, w.shape)
    if len(xs) > 2 and need[2]:
        gb = gy.sum(axis=(0,) + tuple(range(2, gy.ndim)))
    return (gx, gw, gb)[:len(xs)]


def _deconv_vjp(p, rc, xs, ys, gys, need):
    xp = rc.xp
    x, w = xs[0], xs[1]
    g, out = deconv_geom("Deconvolution", p, x.shape[2:])
    gy, g2 = gys[0], g
    gx = gw = gb = None
    if need[0]:
        gx = xp.ascontiguousarray(conv_forward(xp, gy, w, p.num_group, g2)).astype(
            x.dtype, copy=False)
    if need[1]:
        gw = conv_weight_grad(xp, gy, x, p.num_group, g2, w.shape).astype(w.dtype, copy=False)
    if len(xs) > 2 and need[2]:
        gb = gys[0].sum(axis=(0,) + tuple(range(2, gys[0].ndim))).astype(xs[2].dtype, copy=False)
    return (gx, gw, gb)[:len(xs)]


_DECONV_ATTRS["no_bias"] = A.Bool(True)
register("Deconvolution", inputs=_conv_inputs, signature=("data", "weight", "bias"),
         attrs=_DECONV_ATTRS, shape=_deconv_shape, vjp=_deconv_vjp,
         recorded_vjp=_recorded_deconv_vjp)(_deconvolution)


# ---- Pooling -------------------------------------------------------------------------------
_POOL_ATTRS = {
    "kernel": _tuple_attr(), "pool_type": A.Enum("max", "avg", "sum", "lp", default="max"),
    "global_pool": A.Bool(False), "cudnn_off": A.Bool(False),
    "pooling_convention": A.Enum("valid", "full", "same", default="valid"),
    "stride": _tuple_attr(), "pad": _tuple_attr(), "p_value": A.OptionalInt(),
    "count_include_pad": A.Attr(lambda v: None if A._literal(v) is None else A._bool(v), None),
    "layout": _LAYOUT}


def pool_geom(p, sp):
    """The `Geom` of a Pooling with attributes `p` on spatial sizes `sp` (pad_end may exceed
    pad: the 'full' and 'same' conventions let the last window run past the input).

    Example::

        from gluonlite.ops import conv
        p = mx.ops.get("Pooling").parse({"kernel": (2, 2), "stride": (2, 2)})[0]
        conv.pool_geom(p, (6, 6)).out       # (3, 3)
    """
    name = "Pooling"
    nd = len(sp)
    if p.global_pool:
        return Geom(sp, (1,) * nd, (1,) * nd, (0,) * nd, (0,) * nd, (1,) * nd)
    if not p.kernel:
        raise ShapeError(f"{name}: kernel is required unless global_pool=True")
    if len(p.kernel) != nd:
        raise ShapeError(f"{name}: kernel={tuple(p.kernel)} has {len(p.kernel)} axes but the "
                         f"data has {nd} spatial axes")
    k = tuple(p.kernel)
    if any(e <= 0 for e in k):
        raise ShapeError(f"{name}: kernel={k} must be positive on every axis (a pooling "
                         "window of 0 is empty)")
    s = _axis_tuple(name, "stride", p.stride, nd, 1)
    if any(e <= 0 for e in s):
        raise ShapeError(f"{name}: stride={s} must be positive on every axis")
    if p.pooling_convention == "same":
        if nd != 1:
            raise ShapeError(f"{name}: pooling_convention='same' supports 1-D pooling only "
                             f"(data (batch, channel, x)), got {nd} spatial axes")
        if any(p.pad):
            raise ShapeError(f"{name}: pooling_convention='same' pads by itself; pad="
                             f"{tuple(p.pad)} must be zeros")
    # as MXNet, a pad with more entries than spatial axes uses its first ones
    pad = _axis_tuple(name, "pad", tuple(p.pad)[:nd], nd, 0)
    out, pad_end = [], []
    for i in range(nd):
        if k[i] > sp[i] + 2 * pad[i]:
            raise ShapeError(f"{name}: kernel={k} is larger than the padded input: spatial "
                             f"shape {tuple(sp)} padded by {pad} gives {sp[i] + 2 * pad[i]} "
                             f"on axis {i}")
        span = sp[i] + 2 * pad[i] - k[i]
        if p.pooling_convention == "valid":
            o = span // s[i] + 1
        elif p.pooling_convention == "full":
            o = -(-span // s[i]) + 1
        else:
            o = -(-(sp[i] + 2 * pad[i]) // s[i])
        out.append(o)
        pad_end.append(max(pad[i], (o - 1) * s[i] + k[i] - sp[i] - pad[i]))
    return Geom(k, s, (1,) * nd, pad, pad_end, out)


def _pool_shape(p, ins):
    data = ins[0]
    if data is None:
        return ins, [None]
    if p.pool_type == "lp" and p.p_value not in (1, 2, 3):
        raise ShapeError(f"Pooling: pool_type='lp' needs p_value 1, 2 or 3, got {p.p_value}")
    last, _ = _layout_of("Pooling", p, len(data))
    c, sp = _sp(data, last)
    g = pool_geom(p, sp)
    return ins, [_mk(data, data[0], c, g.out, last)]


def _pool_divisor(xp, p, g, sp, dtype):
    """Per output position, what an avg window divides by: the window's part inside the
    padded input (count_include_pad, MXNet's default) or inside the input itself."""
    nd = len(sp)
    total = None
    for i in range(nd):
        start = np.arange(g.out[i]) * g.stride[i] - g.pad[i]
        if p.count_include_pad is False:
            n = np.minimum(start + g.kernel[i], sp[i]) - np.maximum(start, 0)
        else:
            n = np.minimum(start + g.kernel[i], sp[i] + g.pad[i]) - start
        n = n.reshape((-1,) + (1,) * (nd - 1 - i))
        total = n if total is None else total * n
    return xp.asarray(total.astype(dtype))


def _max_fill(dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _lowest(dtype):
    """Where MXNet's max windows start: the lowest finite value, raised only by a strictly
    greater input, so NaN never wins and a window of NaN and -inf gives the lowest value."""
    return np.finfo(dtype).min if dtype.kind == "f" else np.iinfo(dtype).min


def _window_max(xp, y, v):
    """y <- max(y, v) as MXNet's windows take it (`_lowest`): NaN in v is passed over."""
    return (xp.fmax if y.dtype.kind == "f" else xp.maximum)(y, v, out=y)


def _global_axes(x):
    return tuple(range(2, x.ndim))


def _global_pool(p, xp, x):
    """Global pooling as one reduction over the spatial axes (a window as large as the input
    would otherwise be one pass per input position)."""
    ax = _global_axes(x)
    kind = p.pool_type
    if kind == "max":
        low = _lowest(x.dtype)
        v = xp.where(x == x, x, low) if x.dtype.kind == "f" else x  # NaN never wins
        return xp.maximum(v.max(axis=ax, keepdims=True), low).astype(x.dtype, copy=False)
    if kind == "lp":
        y = (x ** p.p_value).sum(axis=ax, keepdims=True) ** (1.0 / p.p_value)
    else:
        y = x.sum(axis=ax, keepdims=True)
        if kind == "avg":
            y = y / prod(x.shape[2:])
    return y.astype(x.dtype, copy=False)


def _global_pool_vjp(p, xp, x, y, gy):
    """The gradient of `_global_pool`: max to the first input equal to each map's maximum,
    as the windowed rule does (none where no input equals it)."""
    kind = p.pool_type
    if kind == "max":
        equal = x.reshape(x.shape[:2] + (-1,)) == y.reshape(y.shape[:2] + (1,))
        first = equal.argmax(axis=-1)[..., None]
        hit = (xp.arange(equal.shape[-1]) == first) & equal
        return (hit * gy.reshape(gy.shape[:2] + (1,))).reshape(x.shape).astype(x.dtype,
                                                                              copy=False)
    if kind == "avg":
        g = gy / prod(x.shape[2:])
    elif kind == "lp" and p.p_value != 1:
        g = gy * (x / xp.where(y == 0, 1, y)) ** (p.p_value - 1)
    else:
        g = gy
    return xp.broadcast_to(g, x.shape).astype(x.dtype)


def _pool_first(p, rc, x):
    """Pooling on channels-first data, one pass per kernel offset."""
    xp = rc.xp
    if p.global_pool:
        return _global_pool(p, xp, x)
    g = pool_geom(p, x.shape[2:])
    kind = p.pool_type
    xpad = _pad_input(xp, x, g, _max_fill(x.dtype) if kind == "max" else 0)
    y = None
    for _, sl in _offsets(g):
        v = xpad[sl]
        if kind == "lp":
            v = v ** p.p_value
        if y is None:
            y = _window_max(xp, xp.full(v.shape, _lowest(v.dtype), v.dtype), v) \
                if kind == "max" else v.copy()
        elif kind == "max":
            _window_max(xp, y, v)
        else:
            y += v
    if kind == "lp":
        y = y ** (1.0 / p.p_value)
    elif kind == "avg":
        y = y / _pool_divisor(xp, p, g, x.shape[2:], x.dtype)
    return y.astype(x.dtype, copy=False)


def _pooling(p, rc, x):
    """Pooling(data, kernel=(), pool_type='max', global_pool=False, pooling_convention='valid',
    stride=(), pad=(), p_value=None, count_include_pad=None, layout=None): max, avg, sum or
    lp (``(sum x**p) ** (1/p)``, p 1-3) over each window. Output size per axis: 'valid'
    floor((x + 2 * pad - k) / stride) + 1, 'full' ceil(...) + 1, 'same' ceil(x / stride).
    Padding is never a maximum; an avg window counts the padding unless
    count_include_pad=False."""
    last, _ = _layout_of("Pooling", p, x.ndim)
    xf = _to_first(x) if last else x
    y = _pool_first(p, rc, xf)
    return rc.xp.ascontiguousarray(_to_last(y)) if last else y


def _pool_vjp(p, rc, xs, ys, gys, need):
    xp = rc.xp
    x = xs[0]
    last, _ = _layout_of("Pooling", p, x.ndim)
    xf = _to_first(x) if last else x
    gy = _to_first(gys[0]) if last else gys[0]
    y = _to_first(ys[0]) if last else ys[0]
    if p.global_pool:
        gx = _global_pool_vjp(p, xp, xf, y, gy)
        return (xp.ascontiguousarray(_to_last(gx)) if last else gx,)
    sp = xf.shape[2:]
    g = pool_geom(p, sp)
    nd = len(g.kernel)
    padded = tuple(sp[i] + g.pad[i] + g.pad_end[i] for i in range(nd))
    gx = xp.zeros(xf.shape[:2] + padded, dtype=gy.dtype)
    kind = p.pool_type
    xpad = _pad_input(xp, xf, g, _max_fill(x.dtype) if kind == "max" else 0)
    if kind == "max":
        # Each window's gradient goes to its first input equal to the window's output, as
        # MXNet's kernel does (so a NaN window passes none). Buffers are reused: fresh
        # window-sized temporaries per offset cost more (page faults) than the comparisons.
        hit = xp.empty(y.shape, dtype=bool)
        open_ = None  # the windows whose maximum no earlier offset held
        contrib = xp.empty(gy.shape, dtype=gy.dtype)
    elif kind == "avg":
        scale = gy / _pool_divisor(xp, p, g, sp, gy.dtype)
    # Windows that do not overlap write each input position once: a copy, not an add.
    disjoint = all(s >= k for s, k in zip(g.stride, g.kernel))
    for j, sl in _offsets(g):
        if kind == "max":
            open_ = pool_fast.first_hits(xp, xpad[sl], y, hit, open_)
            xp.multiply(gy, hit, out=contrib)
        elif kind == "lp" and p.p_value != 1:
            # MXNet's rule: 0 where the output is 0 (y = 0 only when the window is all 0).
            ratio = xpad[sl] / xp.where(y == 0, 1, y)
            contrib = gy * ratio ** (p.p_value - 1)
        else:
            contrib = scale if kind == "avg" else gy
        if disjoint:
            gx[sl] = contrib
        else:
            gx[sl] += contrib
    crop = tuple(slice(g.pad[i], g.pad[i] + sp[i]) for i in range(nd))
    gx = gx[(slice(None), slice(None)) + crop].astype(x.dtype, copy=False)
    return (xp.ascontiguousarray(_to_last(gx)) if last else gx,)


# The fast paths: 2-D max pooling a stride phase at a time (`pool_fast`, the same numbers).
def _pool_fast_geom(p, rc, *arrays):
    """The Geom when `pool_fast` takes this call (else None)."""
    x = arrays[0]
    if p.pool_type != "max" or p.global_pool or x.ndim != 4 or \
            _layout_of("Pooling", p, x.ndim)[0]:
        return None
    g = pool_geom(p, x.shape[2:])
    return g if pool_fast.usable(rc.xp, g, *arrays) else None


def _pool_fast_kernel(p, rc, x):
    g = _pool_fast_geom(p, rc, x)
    if g is None:
        return _pooling(p, rc, x)
    return pool_fast.max_forward(x, g, _max_fill(x.dtype))


def _pool_fast_vjp(p, rc, xs, ys, gys, need):
    g = _pool_fast_geom(p, rc, xs[0], ys[0], gys[0])
    if g is None:
        return _pool_vjp(p, rc, xs, ys, gys, need)
    return (pool_fast.max_backward(xs[0], ys[0], gys[0], g, _max_fill(xs[0].dtype)),)


register("Pooling", attrs=_POOL_ATTRS, shape=_pool_shape, vjp=_pool_vjp,
         fast=Fast(kernel=_pool_fast_kernel, vjp=_pool_fast_vjp))(_pooling)


# ---- im2col / col2im -----------------------------------------------------------------------
_IM2COL_ATTRS = {"kernel": _tuple_attr(A.REQUIRED), "stride": _tuple_attr(),
                 "dilate": _tuple_attr(), "pad": _tuple_attr()}


def _im2col_geom(name, p, sp):
    q = dict(p, num_filter=1, num_group=1)
    return conv_geom(name, type(p)(q), sp)


def _im2col_shape(p, ins):
    d = ins[0]
    if d is None:
        return ins, [None]
    if len(p.kernel) != len(d) - 2:
        raise ShapeError(f"im2col: kernel={tuple(p.kernel)} must have one entry per spatial "
                         f"axis of data {tuple(d)}")
    g = _im2col_geom("im2col", p, d[2:])
    return ins, [(d[0], d[1] * prod(g.kernel), prod(g.out))]


def _im2col(p, rc, x):
    """im2col(data, kernel, stride=(), dilate=(), pad=()): the sliding windows of data
    (N, C, *spatial) as columns (N, C * prod(kernel), prod(out)), channel-major then kernel
    offset, as MXNet lays them out."""
    xp = rc.xp
    g = _im2col_geom("im2col", p, x.shape[2:])
    n, c = x.shape[:2]
    cols = im2col(xp, x, g).reshape(c * prod(g.kernel), n, prod(g.out))
    return xp.ascontiguousarray(cols.swapaxes(0, 1))


def _im2col_vjp(p, rc, xs, ys, gys, need):
    xp = rc.xp
    x = xs[0]
    g = _im2col_geom("im2col", p, x.shape[2:])
    cols = xp.ascontiguousarray(gys[0].swapaxes(0, 1)).reshape(gys[0].shape[1], -1)
    return (col2im(xp, cols, x.shape, g),)


register("im2col", attrs=_IM2COL_ATTRS, shape=_im2col_shape, vjp=_im2col_vjp)(_im2col)

# output_size comes first (after data), as in MXNet's signature: col2im(col, (4, 4), (2, 2))
_COL2IM_ATTRS = dict(output_size=_tuple_attr(A.REQUIRED), **_IM2COL_ATTRS)


def _col2im_shape(p, ins):
    d = ins[0]
    if d is None:
        return ins, [None]
    k = prod(p.kernel)
    if len(d) != 3 or d[1] % k:
        raise ShapeError(f"col2im: data {tuple(d)} must be (N, C * prod(kernel), L) with "
                         f"kernel={tuple(p.kernel)}")
    g = _im2col_geom("col2im", p, p.output_size)
    if d[2] != prod(g.out):
        raise ShapeError(f"col2im: data {tuple(d)} has {d[2]} columns but output_size="
                         f"{tuple(p.output_size)} with kernel={tuple(p.kernel)} gives "
                         f"{prod(g.out)}")
    return ins, [(d[0], d[1] // k) + tuple(p.output_size)]


def _col2im(p, rc, x):
    """col2im(data, output_size, kernel, stride=(), dilate=(), pad=()): the adjoint of im2col:
    columns (N, C * prod(kernel), L) summed back into an image (N, C, *output_size)."""
    xp = rc.xp
    g = _im2col_geom("col2im", p, p.output_size)
    n, ck = x.shape[:2]
    cols = xp.ascontiguousarray(x.swapaxes(0, 1)).reshape(ck, -1)
    return xp.ascontiguousarray(col2im(xp, cols, (n, ck // prod(g.kernel)) + tuple(
        p.output_size), g))


def _col2im_vjp(p, rc, xs, ys, gys, need):
    xp = rc.xp
    g = _im2col_geom("col2im", p, p.output_size)
    gy = gys[0]
    n, c = gy.shape[:2]
    cols = im2col(xp, gy, g).reshape(c * prod(g.kernel), n, prod(g.out))
    return (xp.ascontiguousarray(cols.swapaxes(0, 1)),)


register("col2im", attrs=_COL2IM_ATTRS, shape=_col2im_shape, vjp=_col2im_vjp)(_col2im)

# MXNet 1.9.1 still registers its deprecated first convolution and pooling operators; their
# attributes are a subset of these, so graphs saved with them load and run here.
alias("Convolution", "Convolution_v1")
alias("Pooling", "Pooling_v1")
