"""Image operators (MXNet's ``_image_*``, seen as ``nd.image.*`` and ``sym.image.*``): layout
changes, normalisation, crops, flips, resizing and the colour augmentations that
`gluon.data.vision.transforms` uses.

Images are HWC (or NHWC batches) except for `normalize`, which reads the CHW (NCHW) tensors
`to_tensor` makes. Integer images saturate: a result is clipped to the dtype's range and
truncated, as MXNet's colour kernels do (`resize` rounds, as OpenCV does). Random operators
draw MXNet's numbers after `mx.random.seed` (its single stream, `mxnet_samplers`), once a
call as MXNet does: the images of a batch share one flip, one factor, one jitter order.

The colour operators reproduce MXNet 1.9.1's CPU kernels, including their quirks, so that the
same factor gives the same numbers: `adjust_saturation`'s grey value is only the blue
channel's 0.114 * B (MXNet's loop assigns instead of accumulating), and a contrast's grey mean
is taken per image.
"""
import numpy as np

from . import attrs as A
from . import mxnet_samplers
from .registry import ShapeError, register
from .rules import keep_dtype

_GRAY = np.array([0.299, 0.587, 0.114])
_EIG = np.array([[55.46 * -0.5675, 4.794 * 0.7192, 1.148 * 0.4009],
                 [55.46 * -0.5808, 4.794 * -0.0045, 1.148 * -0.8140],
                 [55.46 * -0.5836, 4.794 * -0.6948, 1.148 * 0.4203]])


def _floats(v):
    v = A._literal(v)
    if isinstance(v, (int, float, np.number)):
        return (float(v),)
    if isinstance(v, (list, tuple)):
        return tuple(float(e) for e in v)
    raise ValueError(f"expected a number or a tuple of numbers, got {v!r}")


def Floats(default=A.REQUIRED):
    """A tuple of floats (a single number is a 1-tuple).

    Args:
        default: the value when the attribute is not given (default `REQUIRED`: it must be
            given).

    Returns:
        Attr: whose ``parse`` gives a tuple of floats.

    Example::

        from gluonlite.ops.image import Floats
        Floats().parse("(0.5, 0.25)"), Floats().parse(2)      # ((0.5, 0.25), (2.0,))
    """
    return A.Attr(_floats, default, "tuple")


def _saturate(xp, val, dtype, rounding=False):
    """`val` (float) cast to `dtype`: clipped to the integer range and truncated, as MXNet's
    colour kernels do, or rounded first (`rounding`, as OpenCV's resize does)."""
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        if rounding:
            val = xp.rint(val)
        return xp.clip(val, info.min, info.max).astype(dtype)
    return val.astype(dtype, copy=False)


def _check_image(name, shape, ndims=(3, 4), what="HWC or NHWC"):
    if shape is not None and len(shape) not in ndims:
        raise ShapeError(f"{name}: expected a {what} image, got shape {tuple(shape)}")


def _work(img):
    """img as floats: float32 (MXNet's kernels compute in float), float64 kept as is."""
    return img.astype(np.float64 if img.dtype == np.float64 else np.float32)


def _per_image(x, fn):
    """Apply fn to each HWC image of an HWC or NHWC array."""
    if x.ndim == 3:
        return fn(x)
    return np.stack([fn(img) for img in x]) if len(x) else x.copy()


def _same_image_shape(name, ndims=(3, 4), what="HWC or NHWC"):
    def rule(p, ins):
        _check_image(name, ins[0], ndims, what)
        return ins, [None if ins[0] is None else tuple(ins[0])]
    return rule


# ------------------------------------------------------------------ to_tensor, normalize
def _to_tensor_shape(p, ins):
    s = ins[0]
    _check_image("to_tensor", s)
    if s is None:
        return ins, [None]
    s = tuple(s)
    return ins, [s[-1:] + s[:-1] if len(s) == 3 else (s[0], s[3], s[1], s[2])]


@register("_image_to_tensor", shape=_to_tensor_shape,
          dtype=lambda p, ins: (ins, [np.dtype(np.float32)]))
def _to_tensor(p, rc, x):
    """An HWC (NHWC) image in [0, 255] as a CHW (NCHW) float32 tensor in [0, 1]."""
    axes = (2, 0, 1) if x.ndim == 3 else (0, 3, 1, 2)
    x = rc.xp.transpose(x, axes)
    if x.dtype != np.float64:
        x = x.astype(np.float32)
    return rc.xp.ascontiguousarray((x / x.dtype.type(255.0)).astype(np.float32))


def _mean_std(p, channels, xp, dtype):
    def expand(v, what):
        if len(v) not in (1, channels):
            raise ValueError(f"normalize: {what} must have 1 or {channels} values (one per "
                             f"channel), got {len(v)}")
        v = v * channels if len(v) == 1 else v
        return xp.asarray(v, dtype=dtype).reshape(channels, 1, 1)
    return expand(p.mean, "mean"), expand(p.std, "std")


def _normalize_shape(p, ins):
    _check_image("normalize", ins[0], what="CHW or NCHW")
    return ins, [None if ins[0] is None else tuple(ins[0])]


def _normalize_vjp(p, rc, xs, ys, gys, need):
    x = xs[0]
    _, std = _mean_std(p, x.shape[-3], rc.xp, x.dtype)
    return (gys[0] / std,)


@register("_image_normalize", attrs={"mean": Floats((0.0, 0.0, 0.0, 0.0)),
                                     "std": Floats((1.0, 1.0, 1.0, 1.0))},
          shape=_normalize_shape, dtype=keep_dtype, vjp=_normalize_vjp)
def _normalize(p, rc, x):
    """``(x - mean[c]) / std[c]`` per channel of a CHW (NCHW) tensor; `mean` and `std` hold
    one value per channel, or one for all (MXNet's default 4-tuples fit up to 4 channels)."""
    c = x.shape[-3]
    mean, std = p.mean, p.std
    if len(mean) == 4 and mean == (0.0, 0.0, 0.0, 0.0) and c != 4:
        mean = (0.0,)
    if len(std) == 4 and std == (1.0, 1.0, 1.0, 1.0) and c != 4:
        std = (1.0,)
    m, s = _mean_std(type(p)(p, mean=mean, std=std), c, rc.xp, x.dtype)
    return ((x - m) / s).astype(x.dtype, copy=False)


# ------------------------------------------------------------------ flips and crops
def _flip_axis(x, which):
    return x.ndim - (2 if which == "lr" else 3)


def _flip_kernel(which):
    def kernel(p, rc, x):
        return rc.xp.ascontiguousarray(rc.xp.flip(x, axis=_flip_axis(x, which)))
    return kernel


def _flip_vjp(which):
    def vjp(p, rc, xs, ys, gys, need):
        return (rc.xp.flip(gys[0], axis=_flip_axis(gys[0], which)),)
    return vjp


def _random_flip_kernel(which):
    def kernel(p, rc, x):
        if not 0 <= p.p <= 1:
            raise ValueError(f"random_flip: p (the chance of a flip) must be in [0, 1], "
                             f"got {p.p}")
        # MXNet keeps the image when its coin (p = 0.5) comes up true: one coin a call, so a
        # batch is flipped whole; `p` is the probability of a flip
        flip = not mxnet_samplers.single_coin(1.0 - p.p)
        return rc.xp.ascontiguousarray(rc.xp.flip(x, axis=_flip_axis(x, which))
                                       if flip else x)
    return kernel


# name, which axis, doc
_FLIPS = [("_image_flip_left_right", "lr", "Mirror an HWC (NHWC) image left to right."),
          ("_image_flip_top_bottom", "tb", "Mirror an HWC (NHWC) image top to bottom.")]
for _name, _which, _doc in _FLIPS:
    _k = _flip_kernel(_which)
    _k.__doc__ = _doc
    register(_name, shape=_same_image_shape(_name), dtype=keep_dtype,
             vjp=_flip_vjp(_which))(_k)
    _rk = _random_flip_kernel(_which)
    _rk.__doc__ = _doc.replace("Mirror", "With probability p, mirror")
    register(_name.replace("_image_", "_image_random_"), attrs={"p": A.Float(0.5)},
             shape=_same_image_shape(_name), dtype=keep_dtype, random=True)(_rk)


def _crop_shape(p, ins):
    s = ins[0]
    _check_image("crop", s)
    if s is None:
        return ins, [None]
    s = tuple(s)
    h, w = s[-3], s[-2]
    if not (0 <= p.x and 0 <= p.y and p.x + p.width <= w and p.y + p.height <= h
            and p.width > 0 and p.height > 0):
        raise ShapeError(f"crop: the box x={p.x}, y={p.y}, width={p.width}, height={p.height} "
                         f"does not fit in an image of height {h} and width {w}")
    return ins, [s[:-3] + (p.height, p.width, s[-1])]


def _crop_vjp(p, rc, xs, ys, gys, need):
    g = rc.xp.zeros_like(xs[0])
    g[..., p.y:p.y + p.height, p.x:p.x + p.width, :] = gys[0]
    return (g,)


@register("_image_crop", attrs={"x": A.Int(), "y": A.Int(), "width": A.Int(),
                                "height": A.Int()},
          shape=_crop_shape, dtype=keep_dtype, vjp=_crop_vjp)
def _crop(p, rc, x):
    """The box of `width` x `height` at column `x`, row `y` of an HWC (NHWC) image."""
    _crop_shape(p, [x.shape])
    return rc.xp.ascontiguousarray(x[..., p.y:p.y + p.height, p.x:p.x + p.width, :])


# ------------------------------------------------------------------ resize
def _resize_size(p, h, w):
    size = p.size
    if len(size) == 1:
        if p.keep_ratio:
            # the short side becomes `size`, the other keeps the aspect ratio
            if h > w:
                return int(h * size[0] / w), size[0]
            return size[0], int(w * size[0] / h)
        return size[0], size[0]
    if len(size) != 2:
        raise ShapeError(f"resize: size must be an int or (width, height), got {size}")
    return size[1], size[0]


def _resize_shape(p, ins):
    s = ins[0]
    _check_image("resize", s)
    if s is None:
        return ins, [None]
    s = tuple(s)
    oh, ow = _resize_size(p, s[-3], s[-2])
    if oh < 1 or ow < 1:
        raise ShapeError(f"resize: the output size must be positive, got height {oh} and "
                         f"width {ow} from size={p.size}")
    return ins, [s[:-3] + (oh, ow, s[-1])]


def _axis_weights(n_in, n_out):
    """Bilinear source indices and weights for one axis (half-pixel centres, as OpenCV)."""
    scale = n_in / n_out
    pos = (np.arange(n_out) + 0.5) * scale - 0.5
    pos = np.clip(pos, 0, None)
    lo = np.minimum(np.floor(pos).astype(np.int64), n_in - 1)
    hi = np.minimum(lo + 1, n_in - 1)
    frac = (pos - lo).astype(np.float32)
    return lo, hi, frac


def _cubic(t):
    """OpenCV's four cubic weights (A = -0.75) for a fraction t of the way past the 2nd tap."""
    a = -0.75
    w0 = ((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a
    w1 = ((a + 2) * t - (a + 3)) * t * t + 1
    w2 = ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1
    return np.stack([w0, w1, w2, 1 - w0 - w1 - w2], axis=1)


def _lanczos4(t):
    """OpenCV's eight Lanczos-4 weights (normalised to sum 1) for a fraction t past tap 4."""
    d = t[:, None] + 3 - np.arange(8)[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        k = np.where(np.abs(d) < 1e-7, 1.0,
                     np.sin(np.pi * d) * np.sin(np.pi * d / 4) / (np.pi * np.pi * d * d / 4))
    return k / k.sum(axis=1, keepdims=True)


def _axis_matrix(n_in, n_out, interp, area_shrink):
    """(n_out, n_in) weights of one axis for OpenCV's cubic (2), area (3) and Lanczos (4)
    modes; taps that fall outside the image repeat its edge pixel (BORDER_REPLICATE)."""
    scale = n_in / n_out
    m = np.zeros((n_out, n_in))
    rows = np.arange(n_out)
    if interp == 3 and area_shrink:
        # each output pixel averages the input pixels its footprint covers, by the overlap
        lo, hi = rows * scale, (rows + 1) * scale
        src = np.arange(n_in)
        m = np.clip(np.minimum(hi[:, None], src + 1) - np.maximum(lo[:, None], src), 0, None)
        return m / m.sum(axis=1, keepdims=True)
    if interp == 3:
        # OpenCV's enlarging "area" mode: linear between two taps, at an area-derived fraction
        sx = np.floor(rows * scale).astype(np.int64)
        t = (rows + 1) - (sx + 1) / scale
        t = np.where(t <= 0, 0.0, t - np.floor(t))
        taps, weights = sx[:, None] + np.arange(2), np.stack([1 - t, t], axis=1)
    else:
        pos = (rows + 0.5) * scale - 0.5
        sx = np.floor(pos).astype(np.int64)
        t = pos - sx
        if interp == 2:
            taps, weights = sx[:, None] + np.arange(-1, 3), _cubic(t)
        else:
            taps, weights = sx[:, None] + np.arange(-3, 5), _lanczos4(t)
    np.add.at(m, (np.repeat(rows, taps.shape[1]), np.clip(taps, 0, n_in - 1).ravel()),
              weights.ravel())
    return m


def _linear_u8_taps(n_in, n_out, is_column, area=False):
    """Source indices and 11-bit weights of OpenCV's uint8 two-tap resize along one axis
    (bilinear, or the enlarging "area" mode's fractions). Columns past an edge take the edge
    pixel with weight 1; rows keep their weights and read the edge row twice, as OpenCV's
    row loop does."""
    i = np.arange(n_out)
    if area:
        lo = np.floor(i * (n_in / n_out)).astype(np.int64)
        frac = ((i + 1) - (lo + 1) * (n_out / n_in)).astype(np.float32)
        frac = np.where(frac <= 0, np.float32(0), frac - np.floor(frac)).astype(np.float32)
    else:
        pos = ((i + 0.5) * (n_in / n_out) - 0.5).astype(np.float32)
        lo = np.floor(pos).astype(np.int64)
        frac = (pos - lo).astype(np.float32)
    if is_column:
        outside = (lo < 0) | (lo >= n_in - 1)
        frac[outside] = 0
        lo = np.where(lo < 0, 0, np.where(lo >= n_in - 1, n_in - 1, lo))
    w0 = np.rint((np.float32(1) - frac) * np.float32(2048)).astype(np.int64)
    w1 = np.rint(frac * np.float32(2048)).astype(np.int64)
    return np.clip(lo, 0, n_in - 1), np.clip(lo + 1, 0, n_in - 1), w0, w1


def _linear_u8(img, oh, ow, area=False):
    """OpenCV's uint8 two-tap resize, bit for bit: integer column sums with 11-bit weights,
    then its vectorised row blend ((b * (S >> 4)) >> 16 per row, + 2, >> 2)."""
    h, w, c = img.shape
    c0, c1, a0, a1 = (t.astype(np.int32) for t in _linear_u8_taps(w, ow, True, area))
    src = img.astype(np.int32)  # every sum and product below fits in 32 bits
    cols = (src[:, c0] * a0[None, :, None] + src[:, c1] * a1[None, :, None]) >> 4
    r0, r1, b0, b1 = (t.astype(np.int32) for t in _linear_u8_taps(h, oh, False, area))
    out = (((b0[:, None, None] * cols[r0]) >> 16) + ((b1[:, None, None] * cols[r1]) >> 16)
           + 2) >> 2
    return np.clip(out, 0, 255).astype(np.uint8)


def _cubic_f32(t):
    """`_cubic` evaluated in float32, as OpenCV's coefficient tables are."""
    a, one, t = np.float32(-0.75), np.float32(1), t.astype(np.float32)
    w0 = ((a * (t + one) - np.float32(5) * a) * (t + one) + np.float32(8) * a) * (t + one) \
        - np.float32(4) * a
    w1 = ((a + np.float32(2)) * t - (a + np.float32(3))) * t * t + one
    w2 = ((a + np.float32(2)) * (one - t) - (a + np.float32(3))) * (one - t) * (one - t) + one
    return np.stack([w0, w1, w2, one - w0 - w1 - w2], axis=1)


def _wide_u8_taps(n_in, n_out, interp):
    pos = ((np.arange(n_out) + 0.5) * (n_in / n_out) - 0.5).astype(np.float32)
    lo = np.floor(pos).astype(np.int64)
    frac = (pos - lo).astype(np.float32)
    if interp == 2:
        offsets, weights = np.arange(-1, 3), _cubic_f32(frac)
    else:
        offsets, weights = np.arange(-3, 5), _lanczos4(frac.astype(np.float64))
    taps = np.clip(lo[:, None] + offsets[None, :], 0, n_in - 1)
    return taps, np.rint(weights.astype(np.float32) * np.float32(2048)).astype(np.int64)


def _wide_u8(img, oh, ow, interp):
    """OpenCV's uint8 bicubic (2) and Lanczos-4 (4) resize, bit for bit: integer column sums
    with 11-bit weights, then rows blended in float32 (weights scaled by 2**-22) and rounded."""
    h, w, c = img.shape
    xt, xw = _wide_u8_taps(w, ow, interp)
    src = img.astype(np.int32)
    cols = src[:, xt[:, 0]] * xw[None, :, 0, None].astype(np.int32)
    for k in range(1, xt.shape[1]):
        cols += src[:, xt[:, k]] * xw[None, :, k, None].astype(np.int32)
    # exact in float32: |cols| < 2**24
    cols = cols.astype(np.float32)
    yt, yw = _wide_u8_taps(h, oh, interp)
    scale = np.float32(1.0 / (2048 * 2048))
    acc = np.zeros((oh, ow, c), dtype=np.float32)
    for k in range(yt.shape[1]):
        acc += cols[yt[:, k]] * (yw[:, k].astype(np.float32) * scale)[:, None, None]
    return np.clip(np.rint(acc), 0, 255).astype(np.uint8)


def _resize_one(img, oh, ow, interp):
    h, w = img.shape[:2]
    if img.dtype == np.uint8 and img.ndim == 3:
        if interp == 1:
            return _linear_u8(img, oh, ow)
        if interp == 3 and not (h >= oh and w >= ow):
            return _linear_u8(img, oh, ow, area=True)
        if interp in (2, 4):
            return _wide_u8(img, oh, ow, interp)
    if interp in (2, 3, 4):
        shrink = interp == 3 and h >= oh and w >= ow
        my = _axis_matrix(h, oh, interp, shrink)
        mx = _axis_matrix(w, ow, interp, shrink)
        f = _work(img)
        # two matrix products (BLAS), rows then columns
        out = (my.astype(f.dtype) @ f.reshape(h, -1)).reshape(oh, w, f.shape[2])
        out = np.tensordot(mx.astype(f.dtype), out, axes=([1], [1])).transpose(1, 0, 2)
        return _saturate(np, out, img.dtype, rounding=True)
    if interp == 0:
        rows = np.minimum((np.arange(oh) * (h / oh)).astype(np.int64), h - 1)
        cols = np.minimum((np.arange(ow) * (w / ow)).astype(np.int64), w - 1)
        return img[rows][:, cols]
    r0, r1, fr = _axis_weights(h, oh)
    c0, c1, fc = _axis_weights(w, ow)
    f = _work(img)
    top = f[r0] * (1 - fr)[:, None, None] + f[r1] * fr[:, None, None]
    out = top[:, c0] * (1 - fc)[None, :, None] + top[:, c1] * fc[None, :, None]
    return _saturate(np, out, img.dtype, rounding=True)


@register("_image_resize", attrs={"size": A.Shape(()), "keep_ratio": A.Bool(False),
                                  "interp": A.Int(1)},
          shape=_resize_shape, dtype=keep_dtype)
def _resize(p, rc, x):
    """Resize an HWC (NHWC) image to `size` = (width, height), or to a square (or, with
    `keep_ratio`, the short side) of an int `size`. `interp` is OpenCV's code: 0 nearest,
    1 bilinear, 2 bicubic, 3 area, 4 Lanczos-4 (half-pixel centres, edges replicated)."""
    if p.interp not in (0, 1, 2, 3, 4):
        raise ValueError(f"resize: interp must be one of 0-4 (OpenCV's nearest, bilinear, "
                         f"cubic, area, Lanczos), got {p.interp}")
    oh, ow = _resize_shape(p, [x.shape])[1][0][-3:-1]
    xh = x if rc.xp is np else x.get()
    out = _per_image(xh, lambda img: _resize_one(img, oh, ow, p.interp))
    return out if rc.xp is np else rc.xp.asarray(out)


# ------------------------------------------------------------------ colour
def _as_host(rc, x):
    return x if rc.xp is np else x.get()


def _back(rc, a):
    return a if rc.xp is np else rc.xp.asarray(a)


def adjust_brightness(img, alpha):
    """``img * alpha`` (saturated).

    Args:
        img: an (H, W, C) numpy image (uint8 or float); its dtype is kept.
        alpha: the brightness factor, a number (1: unchanged).

    Returns:
        numpy.ndarray: a new image of img's shape and dtype (integers saturated to the
        dtype's range).

    Example::

        from gluonlite.ops.image import adjust_brightness
        adjust_brightness(np.array([[[100, 200, 50]]], np.uint8), 1.5)     # [[[150, 255, 75]]]
    """
    f = _work(img)
    return _saturate(np, f * f.dtype.type(alpha), img.dtype)


def adjust_contrast(img, alpha):
    """Blend with the image's mean grey level: ``img * alpha + (1 - alpha) * mean_grey``.

    Args:
        img: an (H, W, C) numpy image (uint8 or float); its dtype is kept.
        alpha: the contrast factor, a number (1: unchanged, 0: the mean grey).

    Returns:
        numpy.ndarray: a new image of img's shape and dtype (integers saturated to the
        dtype's range).

    Example::

        from gluonlite.ops.image import adjust_contrast
        img = np.full((2, 2, 3), 100, np.uint8)
        adjust_contrast(img, 0.5)[0, 0]     # array([100, 100, 100], dtype=uint8): grey stays grey
    """
    f = _work(img)
    t = f.dtype.type
    gray = (f[..., :3] * _GRAY.astype(f.dtype)).sum() if img.shape[-1] > 1 else f.sum()
    gray_mean = t(gray / t(img.shape[0] * img.shape[1]))
    beta = t(1 - alpha) * gray_mean
    return _saturate(np, f * t(alpha) + beta, img.dtype)


def adjust_saturation(img, alpha):
    """Blend with a grey value per pixel (MXNet's: 0.114 * blue, see the module notes).

    Args:
        img: an (H, W, C) numpy image (uint8 or float); its dtype is kept.
        alpha: the saturation factor, a number (1: unchanged, 0: grey); a 1-channel
            image is returned as a copy.

    Returns:
        numpy.ndarray: a new image of img's shape and dtype (integers saturated to the
        dtype's range).

    Example::

        from gluonlite.ops.image import adjust_saturation
        img = np.array([[[200, 100, 50]]], np.uint8)
        adjust_saturation(img, 0.0)         # [[[5, 5, 5]]]: MXNet's grey, 0.114 * blue
    """
    if img.shape[-1] == 1:
        return img.copy()
    f = _work(img)
    t = f.dtype.type
    gray = f[..., 2:3] * t(_GRAY[2]) * t(1 - alpha)
    return _saturate(np, gray + f * t(alpha), img.dtype)


def _rgb_to_hls(r, g, b):
    r, g, b = r / 255.0, g / 255.0, b / 255.0
    vmax = np.maximum(np.maximum(r, g), b)
    vmin = np.minimum(np.minimum(r, g), b)
    diff = vmax - vmin
    light = (vmax + vmin) * 0.5
    ok = diff > np.finfo(np.float32).eps
    safe = np.where(ok, diff, 1)
    sat = np.where(light < 0.5, diff / np.where(ok, vmax + vmin, 1),
                   diff / np.where(ok, 2.0 - vmax - vmin, 1))
    k = 60.0 / safe
    hue = np.where(vmax == r, (g - b) * k,
                   np.where(vmax == g, (b - r) * k + 120.0, (r - g) * k + 240.0))
    hue = np.where(hue < 0, hue + 360.0, hue)
    return np.where(ok, hue, 0), light, np.where(ok, sat, 0)


def _hls_to_rgb(h, light, s):
    p2 = np.where(light <= 0.5, light * (1 + s), light + s - light * s)
    p1 = 2 * light - p2
    h = np.mod(h / 60.0, 6.0)
    sector = np.minimum(h.astype(np.int64), 5)
    h = h - sector
    tab = np.stack([p2, p1, p1 + (p2 - p1) * (1 - h), p1 + (p2 - p1) * h])
    order = np.array([[1, 3, 0], [1, 0, 2], [3, 0, 1], [0, 2, 1], [0, 1, 3], [2, 1, 0]])
    pick = order[sector]  # per pixel: table rows for b, g, r
    b, g, r = (np.take_along_axis(tab, pick[None, ..., i], 0)[0] for i in range(3))
    grey = s == 0
    r, g, b = (np.where(grey, light, c) for c in (r, g, b))
    return r * 255.0, g * 255.0, b * 255.0


def adjust_hue(img, alpha):
    """Rotate the hue by ``alpha * 360`` degrees (in HLS space).

    Args:
        img: an (H, W, 3) RGB numpy image (uint8 or float, 0-255 scale); a 1-channel image
            is returned as a copy.
        alpha: the rotation as a fraction of a full turn, a number.

    Returns:
        numpy.ndarray: a new image of img's shape and dtype (integers saturated to the
        dtype's range).

    Example::

        from gluonlite.ops.image import adjust_hue
        red = np.array([[[255, 0, 0]]], np.uint8)
        adjust_hue(red, 1 / 3)              # array([[[  0, 255,   0]]], dtype=uint8): green
    """
    if img.shape[-1] == 1:
        return img.copy()
    f = _work(img)
    h, light, s = _rgb_to_hls(f[..., 0], f[..., 1], f[..., 2])
    r, g, b = _hls_to_rgb(h + np.float32(alpha) * 360.0, light, s)
    out = f.copy()
    out[..., 0], out[..., 1], out[..., 2] = r, g, b
    return _saturate(np, out, img.dtype)


def adjust_lighting(img, alpha):
    """AlexNet-style PCA lighting noise: add ``eig @ alpha`` to the RGB channels.

    Args:
        img: an (H, W, 3) RGB numpy image (uint8 or float); its dtype is kept.
        alpha: the weights of the 3 principal components, a length-3 array.

    Returns:
        numpy.ndarray: a new image of img's shape and dtype (integers saturated to the
        dtype's range).

    Example::

        from gluonlite.ops.image import adjust_lighting
        img = np.full((1, 1, 3), 100.0, np.float32)
        adjust_lighting(img, np.zeros(3))   # unchanged: no noise
    """
    if img.shape[-1] == 1:
        return img.copy()
    f = _work(img)
    pca = _EIG.astype(f.dtype) @ np.asarray(alpha, dtype=f.dtype)
    return _saturate(np, f + pca, img.dtype)


def _uniform(lo, hi):
    return float(mxnet_samplers.single_uniform32(lo, hi))


def _random_enhance(name, fn):
    def kernel(p, rc, x):
        for key in ("min_factor", "max_factor"):
            if p[key] < 0:
                raise ValueError(f"{name}: {key} must be at least 0, got {p[key]}")
        # one factor a call, as MXNet draws it: every image of a batch gets the same
        factor = _uniform(p.min_factor, p.max_factor)
        return _back(rc, _per_image(_as_host(rc, x), lambda img: fn(img, factor)))
    return kernel


_ENHANCE = {"min_factor": A.Float(), "max_factor": A.Float()}
# name, adjustment, doc
_RANDOM = [("_image_random_brightness", adjust_brightness,
            "Scale by a factor drawn from U[min_factor, max_factor]."),
           ("_image_random_contrast", adjust_contrast,
            "Blend with the mean grey level by a factor from U[min_factor, max_factor]."),
           ("_image_random_saturation", adjust_saturation,
            "Blend with the grey value by a factor from U[min_factor, max_factor]."),
           ("_image_random_hue", adjust_hue,
            "Rotate the hue by 360 * a factor from U[min_factor, max_factor] degrees.")]
for _name, _fn, _doc in _RANDOM:
    _k = _random_enhance(_name, _fn)
    _k.__doc__ = _doc
    register(_name, attrs=dict(_ENHANCE), shape=_same_image_shape(_name), dtype=keep_dtype,
             random=True)(_k)


def _color_jitter_steps(p):
    """The adjustments of one call, in MXNet's order and with its factors: the four steps
    shuffled (libstdc++'s std::shuffle of 0-3), a factor drawn for each step whose strength
    is above 0 (brightness and contrast ``1.0 + u`` rounded from double, saturation
    ``1.f + u`` in float, hue u itself)."""
    steps = []
    for step in mxnet_samplers.shuffle_order(4, True).tolist():
        v = (p.brightness, p.contrast, p.saturation, p.hue)[step]
        if v > 0:
            u = mxnet_samplers.single_uniform32(-v, v)
            factor = (np.float32(1.0 + float(u)) if step < 2 else
                      np.float32(1) + u if step == 2 else u)
            steps.append((step, float(factor)))
    return steps


def _color_jitter_one(steps, img):
    out = img
    for step, factor in steps:
        out = (adjust_brightness, adjust_contrast, adjust_saturation, adjust_hue)[step](out,
                                                                                     factor)
    return out if out is not img else img.copy()


@register("_image_random_color_jitter",
          attrs={"brightness": A.Float(), "contrast": A.Float(), "saturation": A.Float(),
                 "hue": A.Float()},
          shape=_same_image_shape("random_color_jitter"), dtype=keep_dtype, random=True)
def _random_color_jitter(p, rc, x):
    """Brightness, contrast, saturation and hue jitter in a random order, each by a factor
    1 + U[-v, v] (hue: U[-hue, hue]); a 0 skips that adjustment. One order and one set of
    factors a call, as MXNet draws them."""
    steps = _color_jitter_steps(p)
    return _back(rc, _per_image(_as_host(rc, x), lambda img: _color_jitter_one(steps, img)))


@register("_image_adjust_lighting", attrs={"alpha": Floats()},
          shape=_same_image_shape("adjust_lighting"), dtype=keep_dtype)
def _adjust_lighting(p, rc, x):
    """Add AlexNet's PCA lighting noise with the 3 coefficients `alpha`."""
    if len(p.alpha) != 3:
        raise ValueError(f"adjust_lighting: alpha must hold 3 values, got {p.alpha}")
    return _back(rc, _per_image(_as_host(rc, x), lambda img: adjust_lighting(img, p.alpha)))


@register("_image_random_lighting", attrs={"alpha_std": A.Float(0.05)},
          shape=_same_image_shape("random_lighting"), dtype=keep_dtype, random=True)
def _random_lighting(p, rc, x):
    """PCA lighting noise with coefficients drawn from N(0, alpha_std**2), three a call (one
    C++ normal distribution's), as MXNet draws them."""
    alpha = mxnet_samplers.single_normal32(3, 0.0, p.alpha_std)
    return _back(rc, _per_image(_as_host(rc, x), lambda img: adjust_lighting(img, alpha)))
