"""MXNet's OpenCV operators on one HWC image (``_cvimresize``, ``_cvcopyMakeBorder``, seen as
``nd._internal._cv*``), which `mx.image.imresize` and `mx.image.copyMakeBorder` call.

Both give OpenCV's numbers: resizing shares `nd.image.resize`'s kernels (uint8 bit for bit),
borders are numpy's pads under OpenCV's names. Neither has a gradient, as in MXNet. The
decoders ``_cvimdecode``/``_cvimread`` are not operators here (their output shape depends on
the bytes): `mx.image.imdecode`/`imread` decode in Python.
"""
import numpy as np

from . import attrs as A
from .image import Floats, _resize_one
from .registry import ShapeError, register
from .rules import keep_dtype


def _hwc(name, s):
    if s is not None and len(s) != 3:
        raise ShapeError(f"{name}: src must be an HWC image (3 dimensions), got shape "
                         f"{tuple(s)}")


def _host(rc, x):
    return x if rc.xp is np else x.get()


def _device(rc, a):
    return a if rc.xp is np else rc.xp.asarray(a)


# ------------------------------------------------------------------ _cvimresize
def _imresize_shape(p, ins):
    _hwc("_cvimresize", ins[0])
    if p.w < 1 or p.h < 1:
        raise ShapeError(f"_cvimresize: w and h must be positive, got w={p.w}, h={p.h}")
    return ins, [None if ins[0] is None else (p.h, p.w, ins[0][2])]


@register("_cvimresize", attrs={"w": A.Int(), "h": A.Int(), "interp": A.Int(1)},
          shape=_imresize_shape, dtype=keep_dtype)
def _cvimresize(p, rc, src):
    """Resize an HWC image to `w` x `h` with OpenCV's interpolation `interp` (0 nearest,
    1 bilinear, 2 bicubic, 3 area, 4 Lanczos-4)."""
    _imresize_shape(p, [src.shape])
    if p.interp not in (0, 1, 2, 3, 4):
        raise ValueError(f"_cvimresize: interp must be one of 0-4 (OpenCV's nearest, "
                         f"bilinear, cubic, area, Lanczos), got {p.interp}")
    return _device(rc, _resize_one(_host(rc, src), p.h, p.w, p.interp))


# ------------------------------------------------------------------ _cvcopyMakeBorder
# OpenCV's border types as numpy's pad modes (16, BORDER_ISOLATED, changes nothing here)
_BORDERS = {0: "constant", 1: "edge", 2: "symmetric", 3: "wrap", 4: "reflect"}


def _border_shape(p, ins):
    _hwc("_cvcopyMakeBorder", ins[0])
    pads = (p.top, p.bot, p.left, p.right)
    if min(pads) < 0:
        raise ShapeError(f"_cvcopyMakeBorder: borders must be >= 0, got top={p.top}, "
                         f"bot={p.bot}, left={p.left}, right={p.right}")
    if p.type & ~16 not in _BORDERS:
        raise ShapeError(f"_cvcopyMakeBorder: type must be 0-4 (constant, replicate, reflect, "
                         f"wrap, reflect-101), got {p.type}")
    s = ins[0]
    if s is None:
        return ins, [None]
    return ins, [(s[0] + p.top + p.bot, s[1] + p.left + p.right, s[2])]


@register("_cvcopyMakeBorder", attrs={"top": A.Int(), "bot": A.Int(), "left": A.Int(),
                                      "right": A.Int(), "type": A.Int(0),
                                      "value": A.Float(0.0), "values": Floats(())},
          shape=_border_shape, dtype=keep_dtype)
def _cvcopyMakeBorder(p, rc, src):
    """Pad an HWC image: type 0 fills with `values` (one per channel) or else `value`,
    1 repeats the edge, 2 reflects (``fedcba|abcdef``), 3 wraps, 4 reflects without the
    edge (``edcb|abcde``)."""
    _border_shape(p, [src.shape])
    a = _host(rc, src)
    mode = _BORDERS[p.type & ~16]
    width = ((p.top, p.bot), (p.left, p.right), (0, 0))
    if mode != "constant":
        return _device(rc, np.pad(a, width, mode=mode))
    fill = np.full(a.shape[2], p.value, dtype=np.float64)
    if len(p.values):
        fill[:] = np.asarray(p.values, dtype=np.float64)[:a.shape[2]]
    out = np.empty((a.shape[0] + p.top + p.bot, a.shape[1] + p.left + p.right, a.shape[2]),
                   dtype=a.dtype)
    out[:] = fill.astype(a.dtype)
    out[p.top:p.top + a.shape[0], p.left:p.left + a.shape[1]] = a
    return _device(rc, out)
