"""The general-purpose ``_contrib_*`` operators of MXNet 1.9.1 (`nd.contrib`, `sym.contrib`):
resizing and adaptive pooling, masks and index helpers, the interleaved attention products
Transformer code calls, FFTs, straight-through estimators, SyncBatchNorm and count_sketch.
The detection operators (boxes, SSD, RPN, regions of interest, deformable convolution) are in
their own families (`detection`, `multibox`, `proposal`, `roi`, `deformable`), hawkesll in
`hawkes`, the int8 operators in `quantization`; DGL's graph operators are not in gluonlite
(see ``api_exclusions.txt``).

Each operator is registered once with its forward, gradient, shape rule and MXNet's attribute
names and defaults; the table `SIMPLE` at the end lists the elementwise ones.
"""

import numpy as np

from ..base import MXNetValueError
from . import attrs as A
from .registry import ShapeError, get, register
from .rules import norm_axis, same_shape
from .sparse.elementwise import QUADRATIC
from . import mxnet_discrete


def _same(p, ins):
    return ins, [ins[0]]


def _need_ndim(name, s, n, arg="data", what=""):
    if s is not None and len(s) != n:
        raise ShapeError(f"{name}: input {arg} must have {n} dimensions{what}, got shape "
                         f"{tuple(s)}")


# ---- elementwise: the straight-through estimators and friends ---------------------------------
def _register_unary(name, fwd, grad, attrs=None, doc=""):
    def kernel(p, rc, x):
        return fwd(p, rc.xp, x)

    def vjp(p, rc, xs, ys, gys, need):
        return (grad(p, rc.xp, xs[0], gys[0]),)
    kernel.__doc__ = doc
    register(name, vjp=vjp, attrs=attrs or {}, shape=same_shape(name),
             storage=QUADRATIC if name == "_contrib_quadratic" else None)(kernel)


def _round_half_away(xp, x):
    return (xp.sign(x) * xp.floor(xp.abs(x) + 0.5)).astype(x.dtype, copy=False)


# name: (forward(p, xp, x), gradient(p, xp, x, g), attributes, doc)
SIMPLE = {
    "_contrib_div_sqrt_dim": (
        lambda p, xp, x: x / np.sqrt(x.shape[-1]).astype(x.dtype),
        lambda p, xp, x, g: g / np.sqrt(x.shape[-1]).astype(g.dtype), {},
        "div_sqrt_dim(data): data / sqrt(data.shape[-1]) (attention score scaling)."),
    "_contrib_gradientmultiplier": (
        lambda p, xp, x: x.copy(), lambda p, xp, x, g: g * p.scalar,
        {"scalar": A.Float(1.0), "is_int": A.Bool(True)},
        "gradientmultiplier(data, scalar=1): data unchanged; its gradient times scalar "
        "(scalar=-1 reverses the gradient)."),
    "_contrib_quadratic": (
        lambda p, xp, x: (p.a * x * x + p.b * x + p.c).astype(x.dtype),
        lambda p, xp, x, g: g * (2 * p.a * x + p.b),
        {"a": A.Float(0.0), "b": A.Float(0.0), "c": A.Float(0.0)},
        "quadratic(data, a=0, b=0, c=0): a * data**2 + b * data + c."),
    "_contrib_round_ste": (
        lambda p, xp, x: _round_half_away(xp, x), lambda p, xp, x, g: g, {},
        "round_ste(data): round half away from zero, with the straight-through gradient "
        "(the output's gradient passed on unchanged)."),
    "_contrib_sign_ste": (
        lambda p, xp, x: xp.sign(x), lambda p, xp, x, g: g, {},
        "sign_ste(data): the sign of data, with the straight-through gradient."),
}

for _name, (_f, _g, _a, _doc) in SIMPLE.items():
    _register_unary(_name, _f, _g, _a, _doc)


# ---- index helpers ----------------------------------------------------------------------------
def _arange_like_shape(p, ins):
    d = ins[0]
    if d is None:
        return ins, [None]
    if p.axis is None:
        return ins, [tuple(d)]
    return ins, [(d[norm_axis("_contrib_arange_like", p.axis, len(d))],)]


def _zero_vjp(p, rc, xs, ys, gys, need):
    """The output depends on the input's shape only: a zero gradient (MXNet's zero-gradient
    nodes, so a graph can ask for it)."""
    return tuple(rc.xp.zeros_like(x) if n else None for x, n in zip(xs, need))


@register("_contrib_arange_like", vjp=_zero_vjp, shape=_arange_like_shape,
          attrs={"start": A.Float(0.0), "step": A.Float(1.0), "repeat": A.Int(1),
                 "ctx": A.Str(""), "axis": A.OptionalInt()})
def _arange_like(p, rc, data):
    """arange_like(data, start=0, step=1, repeat=1, axis=None): evenly spaced values of data's
    shape (or of the length of `axis`), each repeated `repeat` times, in data's dtype."""
    shape = _arange_like_shape(p, [data.shape])[1][0]
    n = int(np.prod(shape))
    vals = rc.xp.arange(-(-n // p.repeat), dtype=np.float64) * p.step + p.start
    return rc.xp.repeat(vals, p.repeat)[:n].reshape(shape).astype(data.dtype)


def _index_array_shape(p, ins):
    d = ins[0]
    if d is None:
        return ins, [None]
    axes = range(len(d)) if p.axes is None else p.axes
    k = len([norm_axis("_contrib_index_array", a, len(d), "axes") for a in axes])
    return ins, [tuple(d) + (k,)]


@register("_contrib_index_array", vjp=_zero_vjp, shape=_index_array_shape,
          dtype=lambda p, ins: (ins, [np.dtype(np.int64)]), attrs={"axes": A.Shape(None)})
def _index_array(p, rc, data):
    """index_array(data, axes=None): for every element of data its index along `axes` (all
    axes by default), as int64, shape data.shape + (len(axes),)."""
    nd_ = data.ndim
    axes = range(nd_) if p.axes is None else [a % nd_ for a in p.axes]
    axes = list(axes)
    if not axes:  # a 0-d array (NumPy shape semantics): shape (0,)
        return rc.xp.zeros(data.shape + (0,), np.int64)
    grids = rc.xp.indices(data.shape, dtype=np.int64)
    return rc.xp.stack([grids[a] for a in axes], axis=-1)


def _index_copy_shape(p, ins):
    old, idx, new = ins
    if old is not None and new is not None:
        if tuple(old[1:]) != tuple(new[1:]):
            raise ShapeError(f"_contrib_index_copy: new_tensor's rows must have old_tensor's "
                             f"shape, got old_tensor {tuple(old)} and new_tensor {tuple(new)}")
    if idx is not None:
        _need_ndim("_contrib_index_copy", idx, 1, "index_vector")
        if new is not None and idx[0] != new[0]:
            raise ShapeError(f"_contrib_index_copy: index_vector has {idx[0]} entries but "
                             f"new_tensor has {new[0]} rows")
    return ins, [old]


@register("_contrib_index_copy", inputs=("old_tensor", "index_vector", "new_tensor"),
          nondiff=("index_vector",), same_dtype=("old_tensor", "new_tensor"),
          shape=_index_copy_shape,
          vjp=lambda p, rc, xs, ys, gys, need: _index_copy_vjp(rc, xs, gys))
def _index_copy(p, rc, old, idx, new):
    """index_copy(old_tensor, index_vector, new_tensor): a copy of old_tensor whose rows
    index_vector are new_tensor's rows."""
    out = old.copy()
    out[idx.astype(np.int64)] = new
    return out


def _index_copy_vjp(rc, xs, gys):
    idx = xs[1].astype(np.int64)
    g_old = gys[0].copy()
    g_old[idx] = 0
    return g_old, None, gys[0][idx]


def _boolean_mask_shape(p, ins):
    d, idx = ins
    if d is not None and idx is not None:
        _need_ndim("_contrib_boolean_mask", idx, 1, "index")
        if idx[0] != d[p.axis]:
            raise ShapeError(f"_contrib_boolean_mask: index has {idx[0]} entries but data has "
                             f"{d[p.axis]} along axis {p.axis}")
    return ins, [None]  # how many rows are kept depends on index's values


@register("_contrib_boolean_mask", inputs=("data", "index"), nondiff=("index",),
          attrs={"axis": A.Int(0)}, shape=_boolean_mask_shape, same_dtype=("data",),
          vjp=lambda p, rc, xs, ys, gys, need: _boolean_mask_vjp(rc, xs, gys),
          shape_from_values=True)  # the shape rule leaves the output's length unknown
def _boolean_mask(p, rc, data, index):
    """boolean_mask(data, index, axis=0): the rows of data where index is nonzero (the output's
    length depends on index's values, so graphs do not know it before running)."""
    if p.axis != 0:
        raise NotImplementedError("_contrib_boolean_mask: only axis=0 is supported (as in "
                                  f"MXNet 1.9.1), got axis={p.axis}")
    return data[rc.xp.nonzero(index)[0]]



def _boolean_mask_vjp(rc, xs, gys):
    data, index = xs
    g = rc.xp.zeros_like(data)
    g[rc.xp.nonzero(index)[0]] = gys[0]
    return g, None


@register("_contrib_allclose", inputs=("a", "b"), same_dtype=("a", "b"), nondiff=("a", "b"),
          attrs={"rtol": A.Float(1e-5), "atol": A.Float(1e-8), "equal_nan": A.Bool(True)},
          shape=lambda p, ins: (ins, [()]), dtype=lambda p, ins: (ins, [np.dtype(np.uint8)]))
def _allclose(p, rc, a, b):
    """allclose(a, b, rtol=1e-5, atol=1e-8, equal_nan=True): 1 (uint8, shape ()) when every
    |a - b| <= atol + rtol * |b|, else 0."""
    ok = rc.xp.allclose(a, b, rtol=p.rtol, atol=p.atol, equal_nan=p.equal_nan)
    return rc.xp.asarray(ok, dtype=np.uint8).reshape(())


# ---- interleaved attention products (multi-head attention, projections interleaved) -------
def _heads_dim(name, last, heads, parts):
    if last % (heads * parts):
        raise ShapeError(f"{name}: the last dimension ({last}) must be divisible by "
                         f"{parts} * heads = {parts * heads}")
    return last // (heads * parts)


def _split_qkv(x, heads, parts):
    """(L, B, heads * parts * D) -> `parts` arrays of shape (B * heads, L, D)."""
    L, B, E = x.shape
    d = E // (heads * parts)
    x = x.reshape(L, B, heads, parts, d).transpose(3, 1, 2, 0, 4).reshape(parts, B * heads, L, d)
    return [x[i] for i in range(parts)]


def _join_qkv(xp, parts, L, B, heads):
    """The inverse of `_split_qkv`: `parts` arrays (B * heads, L, D) -> (L, B, heads*parts*D)."""
    stack = xp.stack(parts)
    d = stack.shape[-1]
    return stack.reshape(len(parts), B, heads, L, d).transpose(3, 1, 2, 0, 4).reshape(
        L, B, heads * len(parts) * d)


def _t(x):
    return x.swapaxes(-1, -2)


def _selfatt_qk_shape(p, ins):
    x = ins[0]
    if x is None:
        return ins, [None]
    _need_ndim("_contrib_interleaved_matmul_selfatt_qk", x, 3, "queries_keys_values",
               " (seq_length, batch, 3 * heads * head_dim)")
    _heads_dim("_contrib_interleaved_matmul_selfatt_qk", x[2], p.heads, 3)
    return ins, [(x[1] * p.heads, x[0], x[0])]


def _selfatt_qk(p, rc, qkv):
    """interleaved_matmul_selfatt_qk(queries_keys_values, heads): q @ k.T / sqrt(head_dim)
    per head, from projections interleaved as (seq, batch, heads, [q, k, v], head_dim);
    output (batch * heads, seq, seq)."""
    q, k, _ = _split_qkv(qkv, p.heads, 3)
    return (q / np.sqrt(q.shape[-1]).astype(q.dtype)) @ _t(k)


def _selfatt_qk_vjp(p, rc, xs, ys, gys, need):
    qkv, g = xs[0], gys[0]
    q, k, v = _split_qkv(qkv, p.heads, 3)
    s = np.sqrt(q.shape[-1]).astype(q.dtype)
    gq, gk = (g @ k) / s, (_t(g) @ q) / s
    return (_join_qkv(rc.xp, [gq, gk, rc.xp.zeros_like(v)], qkv.shape[0], qkv.shape[1], p.heads),)


def _selfatt_valatt_shape(p, ins):
    x, att = ins
    if x is None:
        return ins, [None]
    _need_ndim("_contrib_interleaved_matmul_selfatt_valatt", x, 3, "queries_keys_values")
    d = _heads_dim("_contrib_interleaved_matmul_selfatt_valatt", x[2], p.heads, 3)
    want = (x[1] * p.heads, x[0], x[0])
    if att is not None and tuple(att) != want:
        raise ShapeError(f"_contrib_interleaved_matmul_selfatt_valatt: attention must have "
                         f"shape {want}, got {tuple(att)}")
    return [x, want], [(x[0], x[1], p.heads * d)]


def _selfatt_valatt(p, rc, qkv, att):
    """interleaved_matmul_selfatt_valatt(queries_keys_values, attention, heads): attention @ v
    per head; output (seq, batch, heads * head_dim)."""
    _, _, v = _split_qkv(qkv, p.heads, 3)
    L, B = qkv.shape[:2]
    out = att @ v  # (B*H, L, D)
    return out.reshape(B, p.heads, L, -1).transpose(2, 0, 1, 3).reshape(L, B, -1)


def _selfatt_valatt_vjp(p, rc, xs, ys, gys, need):
    qkv, att = xs
    L, B = qkv.shape[:2]
    q, k, v = _split_qkv(qkv, p.heads, 3)
    g = gys[0].reshape(L, B, p.heads, -1).transpose(1, 2, 0, 3).reshape(B * p.heads, L, -1)
    gqkv = None
    if need[0]:
        zeros = rc.xp.zeros_like
        gqkv = _join_qkv(rc.xp, [zeros(q), zeros(k), _t(att) @ g], L, B, p.heads)
    return gqkv, (g @ _t(v) if need[1] else None)


def _encdec_qk_shape(p, ins):
    q, kv = ins
    if q is None or kv is None:
        return ins, [None]
    name = "_contrib_interleaved_matmul_encdec_qk"
    _need_ndim(name, q, 3, "queries")
    _need_ndim(name, kv, 3, "keys_values")
    dq = _heads_dim(name, q[2], p.heads, 1)
    dk = _heads_dim(name, kv[2], p.heads, 2)
    if dq != dk or q[1] != kv[1]:
        raise ShapeError(f"{name}: queries {tuple(q)} and keys_values {tuple(kv)} do not "
                         f"fit (same batch; keys_values' last dimension twice queries')")
    return ins, [(q[1] * p.heads, q[0], kv[0])]


def _encdec_qk(p, rc, q, kv):
    """interleaved_matmul_encdec_qk(queries, keys_values, heads): q @ k.T / sqrt(head_dim)
    per head; queries (q_seq, batch, heads * head_dim), keys_values interleaved as (kv_seq,
    batch, heads, [k, v], head_dim); output (batch * heads, q_seq, kv_seq)."""
    qh, = _split_qkv(q, p.heads, 1)
    k, _ = _split_qkv(kv, p.heads, 2)
    return (qh / np.sqrt(qh.shape[-1]).astype(qh.dtype)) @ _t(k)


def _encdec_qk_vjp(p, rc, xs, ys, gys, need):
    q, kv = xs
    g = gys[0]
    qh, = _split_qkv(q, p.heads, 1)
    k, v = _split_qkv(kv, p.heads, 2)
    s = np.sqrt(qh.shape[-1]).astype(q.dtype)
    gq = _join_qkv(rc.xp, [(g @ k) / s], q.shape[0], q.shape[1], p.heads) if need[0] else None
    gkv = _join_qkv(rc.xp, [(_t(g) @ qh) / s, rc.xp.zeros_like(v)], kv.shape[0], kv.shape[1],
                    p.heads) if need[1] else None
    return gq, gkv


def _encdec_valatt_shape(p, ins):
    kv, att = ins
    if kv is None or att is None:
        return ins, [None]
    name = "_contrib_interleaved_matmul_encdec_valatt"
    _need_ndim(name, kv, 3, "keys_values")
    _need_ndim(name, att, 3, "attention")
    d = _heads_dim(name, kv[2], p.heads, 2)
    if att[0] != kv[1] * p.heads or att[2] != kv[0]:
        raise ShapeError(f"{name}: attention must have shape (batch * heads, q_seq, "
                         f"{kv[0]}) = ({kv[1] * p.heads}, ?, {kv[0]}), got {tuple(att)}")
    return ins, [(att[1], kv[1], p.heads * d)]


def _encdec_valatt(p, rc, kv, att):
    """interleaved_matmul_encdec_valatt(keys_values, attention, heads): attention @ v per
    head; output (q_seq, batch, heads * head_dim)."""
    _, v = _split_qkv(kv, p.heads, 2)
    B, Lq = kv.shape[1], att.shape[1]
    out = att @ v
    return out.reshape(B, p.heads, Lq, -1).transpose(2, 0, 1, 3).reshape(Lq, B, -1)


def _encdec_valatt_vjp(p, rc, xs, ys, gys, need):
    kv, att = xs
    B, Lq = kv.shape[1], att.shape[1]
    k, v = _split_qkv(kv, p.heads, 2)
    g = gys[0].reshape(Lq, B, p.heads, -1).transpose(1, 2, 0, 3).reshape(B * p.heads, Lq, -1)
    gkv = _join_qkv(rc.xp, [rc.xp.zeros_like(k), _t(att) @ g], kv.shape[0], B, p.heads) \
        if need[0] else None
    return gkv, (g @ _t(v) if need[1] else None)


for _name, _inputs, _fwd, _vjp, _shape in [
        ("selfatt_qk", ("queries_keys_values",), _selfatt_qk, _selfatt_qk_vjp,
         _selfatt_qk_shape),
        ("selfatt_valatt", ("queries_keys_values", "attention"), _selfatt_valatt,
         _selfatt_valatt_vjp, _selfatt_valatt_shape),
        ("encdec_qk", ("queries", "keys_values"), _encdec_qk, _encdec_qk_vjp, _encdec_qk_shape),
        ("encdec_valatt", ("keys_values", "attention"), _encdec_valatt, _encdec_valatt_vjp,
         _encdec_valatt_shape)]:
    register(f"_contrib_interleaved_matmul_{_name}", inputs=_inputs, vjp=_vjp, shape=_shape,
             attrs={"heads": A.Int()})(_fwd)


# ---- FFT ----------------------------------------------------------------------------------------
def _fft_shape(p, ins):
    d = ins[0]
    return ins, [None if d is None else tuple(d[:-1]) + (2 * d[-1],)]


def _interleave(xp, c, dtype):
    return xp.stack([c.real, c.imag], axis=-1).reshape(c.shape[:-1] + (-1,)).astype(dtype)


def _complex(x):
    return x[..., 0::2] + 1j * x[..., 1::2]


def _fft_vjp(p, rc, xs, ys, gys, need):
    # d/dx of sum(g * [Re, Im] of fft(x)) is the real part of the unnormalized inverse of g
    g = _complex(gys[0])
    return ((rc.xp.fft.ifft(g, axis=-1).real * g.shape[-1]).astype(xs[0].dtype),)


@register("_contrib_fft", attrs={"compute_size": A.Int(128)}, shape=_fft_shape, vjp=_fft_vjp)
def _fft(p, rc, data):
    """fft(data, compute_size=128): the discrete Fourier transform of data's last axis (d real
    values), as 2 * d values, real and imaginary parts interleaved. (MXNet 1.9.1 has it on GPU
    only; compute_size, its batching of cuFFT calls, does not change the numbers.)"""
    return _interleave(rc.xp, rc.xp.fft.fft(data, axis=-1), data.dtype)


def _ifft_shape(p, ins):
    d = ins[0]
    if d is not None and d[-1] % 2:
        raise ShapeError(f"_contrib_ifft: the last dimension of data holds interleaved "
                         f"complex values and must be even, got shape {tuple(d)}")
    return ins, [None if d is None else tuple(d[:-1]) + (d[-1] // 2,)]


@register("_contrib_ifft", attrs={"compute_size": A.Int(128)}, shape=_ifft_shape,
          vjp=lambda p, rc, xs, ys, gys, need: (
              _interleave(rc.xp, rc.xp.fft.fft(gys[0], axis=-1), xs[0].dtype),))
def _ifft(p, rc, data):
    """ifft(data, compute_size=128): the real part of the unnormalized inverse discrete
    Fourier transform of data's last axis, which holds d complex values interleaved (real,
    imaginary); output d values. ifft(fft(x)) is d * x, as MXNet's (cuFFT's) is."""
    d = data.shape[-1] // 2
    return (rc.xp.fft.ifft(_complex(data), axis=-1).real * d).astype(data.dtype)


# ---- AdaptiveAvgPooling2D, BilinearResize2D ---------------------------------------------------
def _output_size(p):
    s = tuple(p.output_size)
    if len(s) == 0:
        return 1, 1
    if len(s) == 1:
        return s[0], s[0]
    if len(s) != 2:
        raise ShapeError(f"_contrib_AdaptiveAvgPooling2D: output_size must be one or two "
                         f"integers, got {s}")
    return s


def _adaptive_matrix(n_in, n_out, dtype):
    """(n_out, n_in): row i averages input cells floor(i*n_in/n_out) .. ceil((i+1)*n_in/n_out)."""
    m = np.zeros((n_out, n_in), dtype)
    for i in range(n_out):
        a, b = (i * n_in) // n_out, -(-((i + 1) * n_in) // n_out)
        m[i, a:b] = 1.0 / (b - a)
    return m


def _adaptive_shape(p, ins):
    d = ins[0]
    if d is None:
        return ins, [None]
    _need_ndim("_contrib_AdaptiveAvgPooling2D", d, 4, what=" (N, C, H, W)")
    return ins, [tuple(d[:2]) + tuple(_output_size(p))]


def _separable(rc, x, mh, mw):
    """mh @ x @ mw.T over the last two axes: a separable linear map of each image (two
    matrix products; a three-operand einsum would loop over every index combination)."""
    xp = rc.xp
    return xp.asarray(mh) @ x @ xp.asarray(mw).T


def _separable_t(rc, g, mh, mw):
    """The transpose of `_separable` (its gradient): mh.T @ g @ mw."""
    xp = rc.xp
    return xp.asarray(mh).T @ g @ xp.asarray(mw)


def _adaptive_mats(p, x):
    oh, ow = _output_size(p)
    # float64 weights: the sums are accumulated in double, then rounded once to x's dtype
    return (_adaptive_matrix(x.shape[2], oh, np.float64),
            _adaptive_matrix(x.shape[3], ow, np.float64))


@register("_contrib_AdaptiveAvgPooling2D", attrs={"output_size": A.Shape(())},
          shape=_adaptive_shape,
          vjp=lambda p, rc, xs, ys, gys, need: (
              _separable_t(rc, gys[0], *_adaptive_mats(p, xs[0])).astype(xs[0].dtype),))
def _adaptive_avg_pool(p, rc, x):
    """AdaptiveAvgPooling2D(data, output_size=()): average pooling of (N, C, H, W) data to
    output_size (one integer for a square, two for (height, width); () for (1, 1)), each
    output cell averaging the input cells its bin covers."""
    return _separable(rc, x, *_adaptive_mats(p, x)).astype(x.dtype, copy=False)


_RESIZE_MODES = ("size", "like", "odd_scale", "to_even_down", "to_even_up", "to_odd_down",
                 "to_odd_up")


def _resize_out(p, d, like):
    h, w = d[2], d[3]
    m = p.mode
    if m == "size":
        nh = int(p.scale_height * h) if p.scale_height is not None else p.height
        nw = int(p.scale_width * w) if p.scale_width is not None else p.width
    elif m == "odd_scale":
        if p.scale_height is None or p.scale_width is None:
            raise MXNetValueError("_contrib_BilinearResize2D: mode='odd_scale' needs "
                                  "scale_height and scale_width")
        nh = int(h * p.scale_height) if h % 2 == 0 else int((h - 1) * p.scale_height) + 1
        nw = int(w * p.scale_width) if w % 2 == 0 else int((w - 1) * p.scale_width) + 1
    elif m == "like":
        if like is None:
            return None
        nh, nw = like[2], like[3]
    else:
        want_even, up = m.startswith("to_even"), m.endswith("up")

        def fix(n):
            return n if (n % 2 == 0) == want_even else (n + 1 if up else n - 1)
        nh, nw = fix(h), fix(w)
    return tuple(d[:2]) + (nh, nw)


def _resize_shape(p, ins):
    d = ins[0]
    if d is None:
        return ins, [None]
    _need_ndim("_contrib_BilinearResize2D", d, 4, what=" (N, C, H, W)")
    like = ins[1] if p.mode == "like" else None
    return ins, [_resize_out(p, d, like)]


def _linear_matrix(n_in, n_out, align_corners, dtype):
    """(n_out, n_in) weights of 1-D linear interpolation, as MXNet's kernel computes them
    (scale in float32, source index clamped at 0 without align_corners)."""
    m = np.zeros((n_out, n_in), np.float64)
    if n_in == n_out:
        return np.eye(n_in, dtype=dtype)
    if align_corners:
        scale = np.float32((n_in - 1) / (n_out - 1)) if n_out > 1 else np.float32(0)
    else:
        scale = np.float32(n_in / n_out)
    for i in range(n_out):
        # float32 scale times the index, as the kernel's float arithmetic rounds it
        src = np.float32(scale * i) if align_corners else max(
            np.float32(float(scale) * (i + 0.5) - 0.5), np.float32(0))
        i0 = int(src)
        step = 1 if i0 < n_in - 1 else 0
        lam = float(src) - i0
        m[i, i0] += 1 - lam
        m[i, i0 + step] += lam
    return m.astype(dtype)


def _resize_mats(p, x, out_shape):
    return (_linear_matrix(x.shape[2], out_shape[2], p.align_corners, np.float64),
            _linear_matrix(x.shape[3], out_shape[3], p.align_corners, np.float64))


def _resize(p, rc, x, like=None):
    """BilinearResize2D(data, like=None, height=1, width=1, scale_height=None,
    scale_width=None, mode='size', align_corners=True): bilinear resizing of (N, C, H, W)
    data to (height, width), to data's size times the scales, to `like`'s size (mode='like',
    which takes the second input), or to the nearest even/odd size (mode='to_even_down',
    ...)."""
    out = _resize_out(p, x.shape, None if like is None else like.shape)
    return _separable(rc, x, *_resize_mats(p, x, out)).astype(x.dtype, copy=False)


def _resize_vjp(p, rc, xs, ys, gys, need):
    x = xs[0]
    gx = _separable_t(rc, gys[0], *_resize_mats(p, x, ys[0].shape)).astype(x.dtype)
    return (gx,) + ((rc.xp.zeros_like(xs[1]),) if len(xs) > 1 else ())


register("_contrib_BilinearResize2D",
         inputs=lambda p: ("data", "like") if p.mode == "like" else ("data",),
         signature=("data", "like"), nondiff=("like",),
         attrs={"height": A.Int(1), "width": A.Int(1), "scale_height": A.OptionalFloat(),
                "scale_width": A.OptionalFloat(), "mode": A.Enum(*_RESIZE_MODES, default="size"),
                "align_corners": A.Bool(True)},
         shape=_resize_shape, vjp=_resize_vjp, same_dtype=("data",))(_resize)


# ---- SyncBatchNorm: BatchNorm on one process ---------------------------------------------------
def _bn():
    return get("BatchNorm")


_SYNC_ATTRS = {"eps": A.Float(1e-3), "momentum": A.Float(0.9), "fix_gamma": A.Bool(True),
               "use_global_stats": A.Bool(False), "output_mean_var": A.Bool(False),
               "ndev": A.Int(1), "key": A.Str("")}


def _bn_params(p):
    bn = _bn()
    given = {"eps": p.eps, "momentum": p.momentum, "fix_gamma": p.fix_gamma,
             "use_global_stats": p.use_global_stats, "output_mean_var": p.output_mean_var}
    return bn.parse({k: v for k, v in given.items() if k in bn.attrs})[0]


class _SyncBatchNorm:
    """SyncBatchNorm's rules: BatchNorm's, with its parameters (one process holds every
    device's batch here, so the statistics are already the global ones)."""

    @staticmethod
    def kernel(p, rc, *xs):
        """SyncBatchNorm(data, gamma, beta, moving_mean, moving_var, eps=1e-3, momentum=0.9,
        fix_gamma=True, use_global_stats=False, output_mean_var=False, ndev=1, key):
        batch normalization with statistics over every device's batch; on one process it is
        BatchNorm (ndev and key are accepted and have nothing to synchronize), except that
        its third output is the variance, not BatchNorm's 1/sqrt(var + eps), as MXNet's."""
        y, mean, inv = _bn().kernel(_bn_params(p), rc, *xs)
        inv64 = inv.astype(np.float64)
        return y, mean, (1.0 / (inv64 * inv64) - p.eps).astype(inv.dtype)

    @staticmethod
    def vjp(p, rc, xs, ys, gys, need):
        var = ys[2].astype(np.float64)
        inv = (1.0 / rc.xp.sqrt(var + p.eps)).astype(ys[2].dtype)
        return _bn().vjp(_bn_params(p), rc, xs, [ys[0], ys[1], inv], gys, need)

    @staticmethod
    def shape(p, ins):
        return _bn().infer_shape(_bn_params(p), ins)

    @staticmethod
    def n_out(p):
        return _bn().num_outputs(_bn_params(p))

    @staticmethod
    def n_visible(p):
        return _bn().num_visible(_bn_params(p))


register("_contrib_SyncBatchNorm", inputs=("data", "gamma", "beta", "moving_mean",
                                           "moving_var"),
         aux=("moving_mean", "moving_var"), attrs=_SYNC_ATTRS, vjp=_SyncBatchNorm.vjp,
         shape=_SyncBatchNorm.shape, outputs=_SyncBatchNorm.n_out,
         visible=_SyncBatchNorm.n_visible, same_dtype=(),
         output_names=lambda p: ["output", "mean", "var"] if p.output_mean_var else ["output"],
         doc=_SyncBatchNorm.kernel.__doc__)(_SyncBatchNorm.kernel)


# ---- count_sketch -----------------------------------------------------------------------
def _count_sketch_shape(p, ins):
    d, h, s = ins
    name = "_contrib_count_sketch"
    for arg, sh in (("h", h), ("s", s)):
        if sh is not None and d is not None and (len(sh) != 2 or sh[0] != 1 or sh[1] != d[-1]):
            raise ShapeError(f"{name}: {arg} must have shape (1, {d[-1]}) (one entry per input "
                             f"dimension), got {tuple(sh)}")
    if d is None:
        return ins, [None]
    return [d, (1, d[-1]), (1, d[-1])], [tuple(d[:-1]) + (p.out_dim,)]


def _count_sketch(p, rc, data, h, s):
    """count_sketch(data, h, s, out_dim, processing_batch_size=32): the count sketch of
    data's last axis: input dimension j is added, times its sign s[0, j], to output
    dimension h[0, j] (MXNet 1.9.1 has it on GPU only; processing_batch_size does not change
    the numbers)."""
    xp = rc.xp
    flat = data.reshape(-1, data.shape[-1])
    out = xp.zeros((flat.shape[0], p.out_dim), dtype=data.dtype)
    idx = h[0].astype(np.int64)
    xp.add.at(out.T, idx, (flat * s[0]).T)
    return out.reshape(data.shape[:-1] + (p.out_dim,))


def _count_sketch_vjp(p, rc, xs, ys, gys, need):
    data, h, s = xs
    g = gys[0].reshape(-1, p.out_dim)
    gd = g[:, h[0].astype(np.int64)] * s[0]
    return gd.reshape(data.shape), None, None


register("_contrib_count_sketch", inputs=("data", "h", "s"), nondiff=("h", "s"),
         same_dtype=("data",), attrs={"out_dim": A.Int(), "processing_batch_size": A.Int(32)},
         shape=_count_sketch_shape, vjp=_count_sketch_vjp,
         doc=_count_sketch.__doc__)(_count_sketch)


# ---- rand_zipfian's sampler ---------------------------------------------------------------------
@register("_sample_unique_zipfian", inputs=(), outputs=2, random=True,
          attrs={"range_max": A.Int(), "shape": A.Shape(())},
          shape=lambda p, ins: (ins, [tuple(p.shape), (p.shape[0],)]),
          dtype=lambda p, ins: (ins, [np.dtype(np.int64)] * 2))
def _unique_zipfian(p, rc):
    """_sample_unique_zipfian(range_max, shape=(batch, n)): per row, n distinct classes drawn
    from MXNet's approximately log-uniform distribution over [0, range_max) (a class is
    ``lround(exp(u log range_max)) - 1``), and how many draws it took; MXNet's draws after a
    seed (`mxnet_discrete.unique_zipfian`)."""
    rows, n = p.shape
    if n > p.range_max:
        raise MXNetValueError(f"_sample_unique_zipfian: cannot draw {n} distinct classes from "
                              f"range_max={p.range_max}")
    out, tries = mxnet_discrete.unique_zipfian(p.range_max, rows, n)
    return (out, tries) if rc.xp is np else (rc.xp.asarray(out), rc.xp.asarray(tries))

