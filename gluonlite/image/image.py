"""`mx.image`'s image functions, augmenters and `ImageIter`, as MXNet 1.9.1 lays them out.

Images are NDArrays in HWC layout (height, width, channels), RGB unless a function says
otherwise; decoding uses Pillow (the optional ``image`` extra) where MXNet used OpenCV, and
resizing follows OpenCV's interpolation codes (0 nearest, 1 bilinear, 2 bicubic, 3 area,
4 Lanczos-4; 9 and 10 pick one, see `imresize`). Random augmenters draw from Python's
`random` module, and `LightingAug`/`random_rotate` from numpy's global state, as MXNet's do,
so that a script seeding those gets the same crops and flips.
"""
import json
import logging
import numbers
import os
import random
import warnings

import numpy as np

from .. import io
from .. import ndarray as nd
from .. import recordio
from ..base import MXNetError, MXNetValueError
from ..ndarray.imdecode import _decode
from ..util import is_np_array

__all__ = ["imread", "imdecode", "imresize", "scale_down", "copyMakeBorder", "resize_short",
           "fixed_crop", "random_crop", "center_crop", "color_normalize", "random_size_crop",
           "imrotate", "random_rotate", "Augmenter", "SequentialAug", "ResizeAug",
           "ForceResizeAug", "RandomCropAug", "RandomSizedCropAug", "CenterCropAug",
           "RandomOrderAug", "BrightnessJitterAug", "ContrastJitterAug", "SaturationJitterAug",
           "HueJitterAug", "ColorJitterAug", "LightingAug", "ColorNormalizeAug",
           "RandomGrayAug", "HorizontalFlipAug", "CastAug", "CreateAugmenter", "ImageIter"]


# ------------------------------------------------------------------ decoding
def _np_mode(result):
    # under NumPy array semantics MXNet's imread/imdecode/imresize give mx.np arrays
    return result.as_np_ndarray() if is_np_array() else result


def _write_out(result, out, name):
    if out is None:
        return result
    if tuple(out.shape) != tuple(result.shape):
        raise ValueError(f"image.{name}: out has shape {tuple(out.shape)}, the result "
                         f"{tuple(result.shape)}")
    out[:] = result.astype(out.dtype)
    return out


def imdecode(buf, flag=1, to_rgb=1, out=None):
    """Decode an encoded image (JPEG, PNG, ...) into a uint8 HWC NDArray.

    Args:
        buf: the encoded bytes (bytes, bytearray, a uint8 numpy array or NDArray).
        flag: 1 for colour (3 channels; alpha is dropped), 0 for grey (1 channel).
        to_rgb: 1 for RGB channel order, 0 for OpenCV's BGR.
        out: an NDArray of the result's shape to write into.

    Returns:
        The (height, width, 3 or 1) uint8 NDArray (`out` when given).

    Raises:
        ValueError: `buf` of another type (a str must be encoded to bytes first), or a
            `flag` other than 0 or 1 (an MXNetValueError, as MXNet raises MXNetError).
        MXNetError: an empty buffer, or bytes Pillow cannot decode.
        ImportError: Pillow is missing (``pip install gluonlite[image]``).

    Example::

        from PIL import Image   # a small JPEG to decode
        Image.fromarray(np.zeros((32, 48, 3), np.uint8)).save('cat.jpg')
        img = mx.image.imdecode(open('cat.jpg', 'rb').read())   # (32, 48, 3) uint8, RGB
    """
    if isinstance(buf, nd.NDArray):
        buf = buf.asnumpy().astype(np.uint8).tobytes()
    elif isinstance(buf, np.ndarray):
        buf = buf.astype(np.uint8, copy=False).tobytes()
    elif not isinstance(buf, (bytes, bytearray)):
        raise ValueError(f"image.imdecode: buf must be bytes, bytearray or a numpy array, got "
                         f"{type(buf).__name__}; encode a str to bytes first")
    if flag not in (0, 1):
        raise MXNetValueError(f"image.imdecode: flag must be 0 (grey) or 1 (colour), got "
                              f"{flag!r}")
    if len(buf) == 0:
        raise MXNetError("image.imdecode: buf is empty; expected the bytes of an image")
    try:
        pixels = _decode(buf, 1 if flag == 0 else 3)
    except ImportError:
        raise ImportError("image.imdecode: decoding images needs Pillow, the optional "
                          "'image' extra (pip install gluonlite[image], or pip install "
                          "Pillow)") from None
    except ValueError as e:
        raise MXNetError(f"image.imdecode: decoding failed, buf is not a valid image "
                         f"({e})") from None
    if flag == 1:
        pixels = pixels[:, :, :3]
        if to_rgb:
            pixels = pixels[:, :, ::-1]
    return _write_out(_np_mode(nd.array(np.ascontiguousarray(pixels), dtype=np.uint8)), out,
                      "imdecode")


def imread(filename, flag=1, to_rgb=1, out=None):
    """Read and decode an image file into a uint8 HWC NDArray (see `imdecode`).

    Args:
        filename: the file's path.
        flag: 1 for colour, 0 for grey.
        to_rgb: 1 for RGB, 0 for BGR.
        out: an NDArray of the result's shape to write into.

    Returns:
        The decoded NDArray.

    Raises:
        MXNetError: the file cannot be opened, or is not an image.

    Example::

        from PIL import Image
        Image.fromarray(np.zeros((32, 48, 3), np.uint8)).save('cat.jpg')
        img = mx.image.imread('cat.jpg')   # (32, 48, 3) uint8, RGB
    """
    try:
        with open(filename, "rb") as f:
            buf = f.read()
    except OSError as e:
        raise MXNetError(f"image.imread: cannot open {filename!r}: {e.strerror}") from None
    return imdecode(buf, flag=flag, to_rgb=to_rgb, out=out)


# ------------------------------------------------------------------ resizing and borders
def _get_interp_method(interp, sizes=()):
    """OpenCV's interpolation code for `interp`: 9 picks bicubic to enlarge, area to shrink,
    bilinear otherwise (bicubic without `sizes` = (old_h, old_w, new_h, new_w)); 10 picks one
    of 0-4 at random (Python's `random`)."""
    if interp == 9:
        if not sizes:
            return 2
        oh, ow, nh, nw = sizes
        if nh > oh and nw > ow:
            return 2
        if nh < oh and nw < ow:
            return 3
        return 1
    if interp == 10:
        return random.randint(0, 4)
    if interp not in (0, 1, 2, 3, 4):
        # MXNetValueError: MXNet's tests expect MXNetError (OpenCV's failure), users ValueError
        raise MXNetValueError(f"image: unknown interp method {interp}; expected 0-4, 9 or 10")
    return interp


def _check_hwc(src, name):
    if not isinstance(src, nd.NDArray):
        raise TypeError(f"image.{name}: src must be an NDArray, got {type(src).__name__}")
    if src.ndim != 3:
        raise ValueError(f"image.{name}: src must be an HWC image (3 dimensions), got shape "
                         f"{tuple(src.shape)}")


def imresize(src, w, h, interp=1, out=None):
    """Resize an HWC image to `w` x `h` with OpenCV's interpolation.

    Args:
        src: the (height, width, channels) NDArray.
        w, h: the new width and height.
        interp: 0 nearest, 1 bilinear, 2 bicubic, 3 area, 4 Lanczos-4; 9 bicubic to enlarge,
            area to shrink, bilinear otherwise; 10 one of 0-4 at random.
        out: an NDArray of shape (h, w, channels) to write into.

    Returns:
        The resized NDArray of src's dtype (integers rounded and saturated).

    Raises:
        ValueError: src not 3-D; a size below 1 or an unknown `interp` (an MXNetValueError,
            both ValueError and MXNetError).

    Example::

        img = nd.full((32, 48, 3), 100, dtype='uint8')   # an HWC image
        small = mx.image.imresize(img, 24, 16, interp=2)   # (16, 24, 3): width 24, height 16
    """
    _check_hwc(src, "imresize")
    w, h = int(w), int(h)
    if w < 1 or h < 1:
        raise MXNetValueError(f"image.imresize: w and h must be positive, got w={w}, h={h}")
    code = _get_interp_method(interp, (src.shape[0], src.shape[1], h, w))
    if isinstance(src, nd.NDArray) and hasattr(src, "as_nd_ndarray"):
        src = src.as_nd_ndarray()   # an mx.np image (NumPy array semantics), as MXNet takes
    return _write_out(_np_mode(nd._internal._cvimresize(src, w=w, h=h, interp=code)), out,
                      "imresize")


def copyMakeBorder(src, top, bot, left, right, type=0, value=0.0, values=(), out=None):
    """Pad an HWC image with a border, as OpenCV's ``copyMakeBorder``.

    Args:
        src: the (height, width, channels) NDArray.
        top (int): the border's height above the image, in pixels.
        bot (int): the border's height below the image.
        left (int): the border's width left of the image.
        right (int): the border's width right of the image.
        type: 0 constant, 1 replicate (edge), 2 reflect (``fedcba|abcdef``), 3 wrap,
            4 reflect-101 (``edcb|abcdef``); OpenCV's BORDER_ISOLATED flag (16) may be
            added and changes nothing for a whole image.
        value: the constant fill (type 0).
        values: a fill per channel (type 0), overriding `value` when given.
        out: an NDArray of the result's shape to write into.

    Returns:
        The padded NDArray, of src's dtype.

    Raises:
        ValueError: a negative border or an unknown `type`.

    Example::

        img = nd.full((32, 48, 3), 100, dtype='uint8')   # an HWC image
        padded = mx.image.copyMakeBorder(img, 2, 2, 4, 4, type=1)   # (36, 56, 3)
    """
    _check_hwc(src, "copyMakeBorder")
    result = nd._internal._cvcopyMakeBorder(src, top=int(top), bot=int(bot), left=int(left),
                                            right=int(right), type=type, value=value,
                                            values=tuple(values))
    return _write_out(result, out, "copyMakeBorder")


def scale_down(src_size, size):
    """Shrink a crop `size` = (w, h) to fit inside `src_size` = (w, h), keeping its ratio.

    Returns:
        The (w, h) that fits, as ints.

    Example::

        mx.image.scale_down((640, 480), (720, 120))   # (640, 106)
    """
    w, h = size
    sw, sh = src_size
    if sh < h:
        w, h = float(w * sh) / h, sh
    if sw < w:
        w, h = sw, float(h * sw) / w
    return int(w), int(h)


def resize_short(src, size, interp=2):
    """Resize an HWC image so its shorter side is `size`, keeping the aspect ratio.

    Args:
        src: the (height, width, channels) NDArray.
        size: the new length of the shorter side.
        interp: the interpolation code (see `imresize`).

    Returns:
        The resized NDArray.

    Example::

        img = nd.full((32, 48, 3), 100, dtype='uint8')   # an HWC image
        mx.image.resize_short(img, 16).shape   # (16, 24, 3)
    """
    _check_hwc(src, "resize_short")
    h, w, _ = src.shape
    if h > w:
        new_h, new_w = size * h // w, size
    else:
        new_h, new_w = size, size * w // h
    return imresize(src, new_w, new_h, interp=_get_interp_method(interp, (h, w, new_h, new_w)))


def fixed_crop(src, x0, y0, w, h, size=None, interp=2):
    """The `w` x `h` box at column `x0`, row `y0`, resized to `size` = (w, h) when given.

    Args:
        src (NDArray): the (height, width, channels) image.
        interp (int): the interpolation code of the resize (see `imresize`; default 2,
            bicubic).

    Returns:
        The cropped NDArray.

    Example::

        img = nd.full((32, 48, 3), 100, dtype='uint8')   # an HWC image
        mx.image.fixed_crop(img, 10, 5, 20, 20, size=(8, 8)).shape   # (8, 8, 3)
    """
    out = src[y0:y0 + h, x0:x0 + w]
    if size is not None and (w, h) != tuple(size):
        sizes = (h, w, size[1], size[0])
        out = imresize(out, *size, interp=_get_interp_method(interp, sizes))
    return out


def random_crop(src, size, interp=2):
    """A crop of `size` = (w, h) at a random place (scaled down to fit, then resized).

    Args:
        src (NDArray): the (height, width, channels) image.
        interp (int): the interpolation code of the resize (see `imresize`; default 2,
            bicubic).

    Returns:
        ``(cropped NDArray, (x0, y0, w, h))``, the box taken from src.

    Example::

        img = nd.full((32, 48, 3), 100, dtype='uint8')   # an HWC image
        out, box = mx.image.random_crop(img, (16, 16))   # box: (x0, y0, 16, 16)
    """
    h, w, _ = src.shape
    new_w, new_h = scale_down((w, h), size)
    x0 = random.randint(0, w - new_w)
    y0 = random.randint(0, h - new_h)
    return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)


def center_crop(src, size, interp=2):
    """The centred crop of `size` = (w, h) (scaled down to fit, then resized).

    Args:
        src (NDArray): the (height, width, channels) image.
        interp (int): the interpolation code of the resize (see `imresize`; default 2,
            bicubic).

    Returns:
        ``(cropped NDArray, (x0, y0, w, h))``, the box taken from src.

    Example::

        img = nd.full((32, 48, 3), 100, dtype='uint8')   # an HWC image
        out, box = mx.image.center_crop(img, (16, 16))   # box: (16, 8, 16, 16)
    """
    h, w, _ = src.shape
    new_w, new_h = scale_down((w, h), size)
    x0 = int((w - new_w) / 2)
    y0 = int((h - new_h) / 2)
    return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)


def color_normalize(src, mean, std=None):
    """``(src - mean) / std``, in place on `src` (as MXNet's); None skips a step.

    Args:
        mean (NDArray): subtracted from `src` (broadcast over the channels), or None.
        std (NDArray): `src` is divided by it afterwards (default None: no division).

    Returns:
        `src`, normalised.

    Example::

        img = nd.full((32, 48, 3), 100.0)   # an HWC float image
        mx.image.color_normalize(img, nd.array([123, 117, 104]), nd.array([58, 57, 57]))
    """
    if mean is not None:
        src -= _on(mean, src)
    if std is not None:
        src /= _on(std, src)
    return src


def _on(value, src):
    """`value` on src's context (augmenter constants live on the cpu; MXNet would fail)."""
    if isinstance(value, nd.NDArray) and value.context != src.context:
        return value.as_in_context(src.context)
    return value


def random_size_crop(src, size, area, ratio, interp=2, **kwargs):
    """A crop of random area (a fraction of src's in `area`) and aspect ratio (in `ratio`,
    drawn log-uniformly), resized to `size` = (w, h); after ten failed draws, the centre crop.

    Args:
        src: the HWC NDArray.
        size (tuple of int): the output (w, h).
        area: (min, max) fraction of the area, or a number meaning (area, 1.0);
            ``min_area`` is its deprecated name.
        ratio: (min, max) width/height ratio.
        interp: the interpolation code (see `imresize`).

    Returns:
        ``(cropped NDArray, (x0, y0, w, h))``.

    Raises:
        TypeError: an unknown keyword argument.

    Example::

        img = nd.full((32, 48, 3), 100, dtype='uint8')   # an HWC image
        out, box = mx.image.random_size_crop(img, (16, 16), 0.08, (3/4, 4/3))   # out (16, 16, 3)
    """
    h, w, _ = src.shape
    src_area = h * w
    if "min_area" in kwargs:
        warnings.warn("`min_area` is deprecated. Please use `area` instead.",
                      DeprecationWarning)
        area = kwargs.pop("min_area")
    if kwargs:
        raise TypeError(f"image.random_size_crop: unexpected keyword arguments "
                        f"{sorted(kwargs)}")
    if isinstance(area, numbers.Number):
        area = (area, 1.0)
    for _ in range(10):
        target_area = random.uniform(area[0], area[1]) * src_area
        log_ratio = (np.log(ratio[0]), np.log(ratio[1]))
        new_ratio = np.exp(random.uniform(*log_ratio))
        new_w = int(round(np.sqrt(target_area * new_ratio)))
        new_h = int(round(np.sqrt(target_area / new_ratio)))
        if new_w <= w and new_h <= h:
            x0 = random.randint(0, w - new_w)
            y0 = random.randint(0, h - new_h)
            return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)
    return center_crop(src, size, interp)


# ------------------------------------------------------------------ rotation
def imrotate(src, rotation_degrees, zoom_in=False, zoom_out=False):
    """Rotate CHW images (or an NCHW batch) about their centres, bilinearly, with zeros where
    the rotated image leaves the frame.

    Args:
        src: a float32 (C, H, W) or (N, C, H, W) NDArray.
        rotation_degrees: the angle (counter-clockwise), a number, or an NDArray of N angles
            for a batch.
        zoom_in: zoom so that no empty corner shows.
        zoom_out: zoom so that the whole rotated image fits.

    Returns:
        The rotated NDArray, of src's shape.

    Raises:
        ValueError: both zooms, src neither 3-D nor 4-D, or angles not one per image.
        TypeError: a non-float32 src, or an array of angles for a single image.

    Example::

        mx.image.imrotate(nd.random.uniform(shape=(3, 30, 60)), 6).shape   # (3, 30, 60)
    """
    if zoom_in and zoom_out:
        raise ValueError("image.imrotate: zoom_in and zoom_out cannot both be True")
    if src.dtype != np.float32:
        raise TypeError(f"image.imrotate: only float32 images are supported, got {src.dtype}")
    single = src.ndim == 3
    if single:
        if not isinstance(rotation_degrees, numbers.Number):
            raise TypeError("image.imrotate: a single image needs a scalar rotation_degrees, "
                            f"got {type(rotation_degrees).__name__}")
        src = src.expand_dims(axis=0)
    elif src.ndim != 4:
        raise ValueError(f"image.imrotate: src must be CHW or NCHW, got shape "
                         f"{tuple(src.shape)}")
    n, _, h, w = src.shape
    if isinstance(rotation_degrees, numbers.Number):
        angles = np.full(n, float(rotation_degrees))
    else:
        angles = np.asarray(rotation_degrees.asnumpy() if isinstance(rotation_degrees, nd.NDArray)
                            else rotation_degrees, dtype=np.float64).reshape(-1)
    if len(angles) != n:
        raise ValueError(f"image.imrotate: {n} images but {len(angles)} rotation angles")
    rad = (np.pi * angles.astype(np.float32) / 180).astype(np.float32)[:, None, None]
    hscale, wscale = (h - 1) / 2.0, (w - 1) / 2.0
    rows = (np.arange(h, dtype=np.float32)[:, None] - np.float32(hscale)) * np.ones((1, w),
                                                                                 np.float32)
    cols = (np.arange(w, dtype=np.float32)[None, :] - np.float32(wscale)) * np.ones((h, 1),
                                                                                 np.float32)
    cos, sin = np.cos(rad), np.sin(rad)
    # the sampling grid: each output pixel reads the input at its position rotated back,
    # in BilinearSampler's [-1, 1] coordinates
    gx = (cols * cos - rows * sin) / np.float32(wscale)
    gy = (cols * sin + rows * cos) / np.float32(hscale)
    scale = np.ones((n, 1, 1), dtype=np.float32)
    if zoom_in or zoom_out:
        rho = np.sqrt(np.float32(h * h + w * w))
        corner = np.arctan(np.float32(h) / np.float32(w))
        a = np.abs(rad)
        max_x = np.maximum(np.abs(rho * np.cos(corner + a)), np.abs(rho * np.cos(corner - a)))
        max_y = np.maximum(np.abs(rho * np.sin(corner + a)), np.abs(rho * np.sin(corner - a)))
        if zoom_out:
            scale = np.maximum(max_x / w, max_y / h)
        else:
            scale = np.minimum(w / max_x, h / max_y)
    grid = np.stack([gx * scale, gy * scale], axis=1).astype(np.float32)
    out = nd.BilinearSampler(src, nd.array(grid, ctx=src.context))
    return out[0] if single else out


def random_rotate(src, angle_limits, zoom_in=False, zoom_out=False):
    """`imrotate` by angles drawn uniformly from `angle_limits` = (low, high) degrees with
    numpy's global random state (one per image of a batch).

    Args:
        src (NDArray): a float32 (C, H, W) image or (N, C, H, W) batch.
        zoom_in (bool): zoom so that no empty corner shows (default False).
        zoom_out (bool): zoom so that the whole rotated image fits (default False).

    Returns:
        The rotated NDArray.

    Example::

        img_chw = nd.random.uniform(shape=(3, 30, 60))
        mx.image.random_rotate(img_chw, (-10, 10)).shape   # (3, 30, 60)
    """
    if src.ndim == 3:
        degrees = np.random.uniform(*angle_limits)
    else:
        degrees = nd.array(np.random.uniform(*angle_limits, size=src.shape[0]))
    return imrotate(src, degrees, zoom_in=zoom_in, zoom_out=zoom_out)


# ------------------------------------------------------------------ augmenters
class _Settings:
    """What image and detection augmenters share: the settings `dumps` reports.

    Args:
        **kwargs: the settings (arrays are kept as lists).
    """

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        for k, v in self._kwargs.items():
            if isinstance(v, nd.NDArray):
                v = v.asnumpy()
            if isinstance(v, np.ndarray):
                self._kwargs[k] = v.tolist()

    def dumps(self):
        """The augmenter as a JSON string ``[class name in lower case, settings]``.

        Example::

            mx.image.CastAug('float32').dumps()   # '["castaug", {"type": "float32"}]'
        """
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])


class Augmenter(_Settings):
    """Base class of image augmenters: ``aug(src)`` returns the augmented HWC NDArray.

    Args:
        **kwargs: the settings that `dumps` reports (arrays are kept as lists).

    Example::

        class Invert(mx.image.Augmenter):
            def __call__(self, src):
                return 255 - src
        Invert()(nd.zeros((2, 2, 3)))   # all 255
    """

    def __call__(self, src):
        raise NotImplementedError(f"{type(self).__name__}: an Augmenter subclass must "
                                  f"define __call__")


class SequentialAug(Augmenter):
    """Apply the augmenters `ts` one after another.

    Example::

        img = nd.full((32, 48, 3), 100, dtype='uint8')   # an HWC image
        aug = mx.image.SequentialAug([mx.image.ResizeAug(16), mx.image.CenterCropAug((16, 16))])
        aug(img).shape   # (16, 16, 3)
    """

    def __init__(self, ts):
        super().__init__()
        self.ts = ts

    def dumps(self):
        """``[name, [each augmenter's dumps()]]`` (a list, as MXNet's, not a string).

        Example::

            mx.image.SequentialAug([mx.image.CastAug()]).dumps()
            # ['sequentialaug', ['["castaug", {"type": "float32"}]']]
        """
        return [self.__class__.__name__.lower(), [x.dumps() for x in self.ts]]

    def __call__(self, src):
        for aug in self.ts:
            src = aug(src)
        return src


class RandomOrderAug(SequentialAug):
    """Apply the augmenters `ts` in a random order (``random.shuffle``, in place on `ts`).

    Example::

        img = nd.full((32, 48, 3), 100.0)   # an HWC float image
        aug = mx.image.RandomOrderAug([mx.image.BrightnessJitterAug(0.1),
                                       mx.image.ContrastJitterAug(0.1)])
        aug(img).shape   # (32, 48, 3)
    """

    def __call__(self, src):
        random.shuffle(self.ts)
        return super().__call__(src)


class ResizeAug(Augmenter):
    """Resize the shorter side to `size` (see `resize_short`).

    Args:
        interp (int): the interpolation code of the resize (see `imresize`; default 2,
            bicubic).

    Example::

        img = nd.full((32, 48, 3), 100, dtype='uint8')   # an HWC image
        mx.image.ResizeAug(16)(img).shape   # (16, 24, 3)
    """

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size = size
        self.interp = interp

    def __call__(self, src):
        return resize_short(src, self.size, self.interp)


class ForceResizeAug(Augmenter):
    """Resize to `size` = (w, h), ignoring the aspect ratio.

    Args:
        interp (int): the interpolation code of the resize (see `imresize`; default 2,
            bicubic).

    Example::

        img = nd.full((32, 48, 3), 100, dtype='uint8')   # an HWC image
        mx.image.ForceResizeAug((20, 10))(img).shape   # (10, 20, 3): size is (w, h)
    """

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size = size
        self.interp = interp

    def __call__(self, src):
        sizes = (src.shape[0], src.shape[1], self.size[1], self.size[0])
        return imresize(src, *self.size, interp=_get_interp_method(self.interp, sizes))


class RandomCropAug(Augmenter):
    """A random crop of `size` = (w, h) (see `random_crop`).

    Args:
        interp (int): the interpolation code of the resize (see `imresize`; default 2,
            bicubic).

    Example::

        img = nd.full((32, 48, 3), 100, dtype='uint8')   # an HWC image
        mx.image.RandomCropAug((16, 16))(img).shape   # (16, 16, 3)
    """

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size = size
        self.interp = interp

    def __call__(self, src):
        return random_crop(src, self.size, self.interp)[0]


class RandomSizedCropAug(Augmenter):
    """A crop of random area and aspect ratio resized to `size` (see `random_size_crop`).

    Args:
        area (float or tuple): (min, max) fraction of the source's area, or one number
            meaning (area, 1.0).
        ratio (tuple of float): (min, max) width/height ratio, drawn log-uniformly.
        interp (int): the interpolation code of the resize (see `imresize`; default 2,
            bicubic).

    Raises:
        TypeError: an unknown keyword argument.

    Example::

        img = nd.full((32, 48, 3), 100, dtype='uint8')   # an HWC image
        mx.image.RandomSizedCropAug((16, 16), 0.08, (3/4, 4/3))(img).shape   # (16, 16, 3)
    """

    def __init__(self, size, area, ratio, interp=2, **kwargs):
        super().__init__(size=size, area=area, ratio=ratio, interp=interp)
        self.size = size
        if "min_area" in kwargs:
            warnings.warn("`min_area` is deprecated. Please use `area` instead.",
                          DeprecationWarning)
            area = kwargs.pop("min_area")
        if kwargs:
            raise TypeError(f"RandomSizedCropAug: unexpected keyword arguments {sorted(kwargs)}")
        self.area = area
        self.ratio = ratio
        self.interp = interp

    def __call__(self, src):
        return random_size_crop(src, self.size, self.area, self.ratio, self.interp)[0]


class CenterCropAug(Augmenter):
    """The centred crop of `size` = (w, h) (see `center_crop`).

    Args:
        interp (int): the interpolation code of the resize (see `imresize`; default 2,
            bicubic).

    Example::

        img = nd.full((32, 48, 3), 100, dtype='uint8')   # an HWC image
        mx.image.CenterCropAug((16, 16))(img).shape   # (16, 16, 3)
    """

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size = size
        self.interp = interp

    def __call__(self, src):
        return center_crop(src, self.size, self.interp)[0]


_GRAY_COEF = [[[0.299, 0.587, 0.114]]]


class BrightnessJitterAug(Augmenter):
    """Scale a float image by ``1 + U(-brightness, brightness)`` (in place).

    Args:
        brightness (float): the brightness jitter strength: the image is scaled by ``1 +
            U(-brightness, brightness)`` (0: off).

    Example::

        img = nd.full((32, 48, 3), 100.0)   # an HWC float image
        out = mx.image.BrightnessJitterAug(0.2)(img)
    """

    def __init__(self, brightness):
        super().__init__(brightness=brightness)
        self.brightness = brightness

    def __call__(self, src):
        alpha = 1.0 + random.uniform(-self.brightness, self.brightness)
        src *= alpha
        return src


class ContrastJitterAug(Augmenter):
    """Blend a float RGB image with its mean grey level: ``alpha * src + (1 - alpha) *
    mean_grey`` with ``alpha = 1 + U(-contrast, contrast)`` (in place).

    Args:
        contrast (float): the contrast jitter strength: ``alpha = 1 + U(-contrast,
            contrast)`` (0: off).

    Example::

        img = nd.full((32, 48, 3), 100.0)   # an HWC float image
        out = mx.image.ContrastJitterAug(0.2)(img)
    """

    def __init__(self, contrast):
        super().__init__(contrast=contrast)
        self.contrast = contrast
        self.coef = nd.array(_GRAY_COEF)

    def __call__(self, src):
        alpha = 1.0 + random.uniform(-self.contrast, self.contrast)
        gray = src * _on(self.coef, src)
        gray = (3.0 * (1.0 - alpha) / gray.size) * nd.sum(gray)
        src *= alpha
        src += gray
        return src


class SaturationJitterAug(Augmenter):
    """Blend a float RGB image with its per-pixel grey: ``alpha * src + (1 - alpha) * grey``
    with ``alpha = 1 + U(-saturation, saturation)`` (in place).

    Args:
        saturation (float): the saturation jitter strength: ``alpha = 1 +
            U(-saturation, saturation)`` (0: off).

    Example::

        img = nd.full((32, 48, 3), 100.0)   # an HWC float image
        out = mx.image.SaturationJitterAug(0.2)(img)
    """

    def __init__(self, saturation):
        super().__init__(saturation=saturation)
        self.saturation = saturation
        self.coef = nd.array(_GRAY_COEF)

    def __call__(self, src):
        alpha = 1.0 + random.uniform(-self.saturation, self.saturation)
        gray = nd.sum(src * _on(self.coef, src), axis=2, keepdims=True)
        gray *= (1.0 - alpha)
        src *= alpha
        src += gray
        return src


class HueJitterAug(Augmenter):
    """Rotate a float RGB image's hue by ``U(-hue, hue) * 180`` degrees in YIQ space.

    Args:
        hue (float): the hue jitter strength: a rotation by ``U(-hue, hue) * 180`` degrees
            (0: off).

    Example::

        img = nd.full((32, 48, 3), 100.0)   # an HWC float image
        out = mx.image.HueJitterAug(0.1)(img)
    """

    def __init__(self, hue):
        super().__init__(hue=hue)
        self.hue = hue
        self.tyiq = np.array([[0.299, 0.587, 0.114],
                              [0.596, -0.274, -0.321],
                              [0.211, -0.523, 0.311]])
        self.ityiq = np.array([[1.0, 0.956, 0.621],
                               [1.0, -0.272, -0.647],
                               [1.0, -1.107, 1.705]])

    def __call__(self, src):
        alpha = random.uniform(-self.hue, self.hue)
        u, w = np.cos(alpha * np.pi), np.sin(alpha * np.pi)
        bt = np.array([[1.0, 0.0, 0.0], [0.0, u, -w], [0.0, w, u]])
        t = np.dot(np.dot(self.ityiq, bt), self.tyiq).T
        return nd.dot(src, nd.array(t, ctx=src.context))


class ColorJitterAug(RandomOrderAug):
    """Brightness, contrast and saturation jitter (those > 0) in a random order.

    Args:
        brightness (float): the brightness jitter strength: the image is scaled by ``1 +
            U(-brightness, brightness)`` (0: off).
        contrast (float): the contrast jitter strength: ``alpha = 1 + U(-contrast,
            contrast)`` (0: off).
        saturation (float): the saturation jitter strength: ``alpha = 1 +
            U(-saturation, saturation)`` (0: off).

    Example::

        img = nd.full((32, 48, 3), 100.0)   # an HWC float image
        out = mx.image.ColorJitterAug(0.1, 0.1, 0.1)(img)
    """

    def __init__(self, brightness, contrast, saturation):
        ts = []
        if brightness > 0:
            ts.append(BrightnessJitterAug(brightness))
        if contrast > 0:
            ts.append(ContrastJitterAug(contrast))
        if saturation > 0:
            ts.append(SaturationJitterAug(saturation))
        super().__init__(ts)


class LightingAug(Augmenter):
    """AlexNet's PCA lighting noise: add ``eigvec @ (alpha * eigval)`` with ``alpha ~
    N(0, alphastd)`` per component (numpy's global random state), in place.

    Args:
        alphastd (float): the standard deviation of each component's noise weight.
        eigval (numpy.ndarray): the 3 eigenvalues of the RGB covariance.

    Example::

        img = nd.full((32, 48, 3), 100.0)   # an HWC float image
        eigval, eigvec = np.array([55.46, 4.794, 1.148]), np.eye(3)
        out = mx.image.LightingAug(0.1, eigval, eigvec)(img)
    """

    def __init__(self, alphastd, eigval, eigvec):
        super().__init__(alphastd=alphastd, eigval=eigval, eigvec=eigvec)
        self.alphastd = alphastd
        self.eigval = eigval
        self.eigvec = eigvec

    def __call__(self, src):
        alpha = np.random.normal(0, self.alphastd, size=(3,))
        rgb = np.dot(self.eigvec * alpha, self.eigval)
        src += nd.array(rgb, ctx=src.context)
        return src


class ColorNormalizeAug(Augmenter):
    """Subtract `mean` and divide by `std` (see `color_normalize`); either may be None.

    Example::

        img = nd.full((32, 48, 3), 100.0)   # an HWC float image
        out = mx.image.ColorNormalizeAug(nd.array([123.68, 116.28, 103.53]), None)(img)
    """

    def __init__(self, mean, std):
        super().__init__(mean=mean, std=std)
        self.mean = mean if mean is None or isinstance(mean, nd.NDArray) else nd.array(mean)
        self.std = std if std is None or isinstance(std, nd.NDArray) else nd.array(std)

    def __call__(self, src):
        return color_normalize(src, self.mean, self.std)


class RandomGrayAug(Augmenter):
    """With probability `p`, replace a float RGB image by its grey level in all channels.

    Example::

        img = nd.full((32, 48, 3), 100.0)   # an HWC float image
        out = mx.image.RandomGrayAug(0.2)(img)
    """

    def __init__(self, p):
        super().__init__(p=p)
        self.p = p
        self.mat = nd.array([[0.21, 0.21, 0.21], [0.72, 0.72, 0.72], [0.07, 0.07, 0.07]])

    def __call__(self, src):
        if random.random() < self.p:
            src = nd.dot(src, _on(self.mat, src))
        return src


class HorizontalFlipAug(Augmenter):
    """With probability `p`, mirror the image left to right.

    Example::

        img = nd.full((32, 48, 3), 100, dtype='uint8')   # an HWC image
        out = mx.image.HorizontalFlipAug(0.5)(img)   # mirrored half the time
    """

    def __init__(self, p):
        super().__init__(p=p)
        self.p = p

    def __call__(self, src):
        if random.random() < self.p:
            src = nd.flip(src, axis=1)
        return src


class CastAug(Augmenter):
    """Cast the image to `typ`.

    Example::

        img = nd.full((32, 48, 3), 100, dtype='uint8')   # an HWC image
        mx.image.CastAug('float32')(img).dtype   # numpy.float32
    """

    def __init__(self, typ="float32"):
        super().__init__(type=typ)
        self.typ = typ

    def __call__(self, src):
        return src.astype(self.typ)


_IMAGENET_EIGVAL = np.array([55.46, 4.794, 1.148])
_IMAGENET_EIGVEC = np.array([[-0.5675, 0.7192, 0.4009],
                             [-0.5808, -0.0045, -0.8140],
                             [-0.5836, -0.6948, 0.4203]])


def _color_augs(who, brightness, contrast, saturation, hue, pca_noise, rand_gray, mean, std,
                stat_types=(np.ndarray, nd.NDArray), stat_kinds="a numpy array or NDArray",
                stat_array=nd.array):
    """The colour end of `CreateAugmenter`'s and `CreateDetAugmenter`'s lists, in MXNet's
    order: jitter, hue, PCA lighting, random grey, normalisation (`mean`/`std` True:
    ImageNet's, made by `stat_array`, whose dtype `dumps` shows). `who` names the caller in
    errors; `stat_types` are the types it takes for `mean` and `std` (`stat_kinds` says
    them)."""
    augs = []
    if brightness or contrast or saturation:
        augs.append(ColorJitterAug(brightness, contrast, saturation))
    if hue:
        augs.append(HueJitterAug(hue))
    if pca_noise > 0:
        augs.append(LightingAug(pca_noise, _IMAGENET_EIGVAL, _IMAGENET_EIGVEC))
    if rand_gray > 0:
        augs.append(RandomGrayAug(rand_gray))
    stats = {"mean": (mean, [123.68, 116.28, 103.53]), "std": (std, [58.395, 57.12, 57.375])}
    for name, (v, imagenet) in stats.items():
        if v is True:
            stats[name] = stat_array(imagenet)
        elif v is not None and (not isinstance(v, stat_types) or v.shape[0] not in (1, 3)):
            raise ValueError(f"{who}: {name} must be True, None, or {stat_kinds} of 1 or 3 "
                             f"values, got {v!r}")
        else:
            stats[name] = v
    if stats["mean"] is not None or stats["std"] is not None:
        augs.append(ColorNormalizeAug(stats["mean"], stats["std"]))
    return augs


def CreateAugmenter(data_shape, resize=0, rand_crop=False, rand_resize=False,
                    rand_mirror=False, mean=None, std=None, brightness=0, contrast=0,
                    saturation=0, hue=0, pca_noise=0, rand_gray=0, inter_method=2):
    """The standard list of augmenters for a (C, H, W) `data_shape`, in MXNet's order:
    resize, crop (random-sized, random or centre), mirror, cast to float32, colour jitter,
    hue, PCA lighting, random grey, normalisation.

    Args:
        data_shape: the (channels, height, width) of the output.
        resize: resize the shorter side to this first (0: no).
        rand_crop: a random crop (else the centre crop).
        rand_resize: a random-sized crop (area 8%-100%, ratio 3/4-4/3); needs `rand_crop`.
        rand_mirror: mirror with probability 0.5.
        mean: True for ImageNet's RGB means, or an array (numpy or NDArray) of 1 or 3
            values to subtract, or None (default: no centring).
        std: True for ImageNet's RGB standard deviations, or an array of 1 or 3 values to
            divide by, or None (default: no scaling).
        brightness (float): the brightness jitter strength (see `BrightnessJitterAug`;
            default 0: off).
        contrast (float): the contrast jitter strength (`ContrastJitterAug`; 0: off).
        saturation (float): the saturation jitter strength (`SaturationJitterAug`; 0: off).
        hue (float): the hue jitter strength (`HueJitterAug`; 0: off).
        pca_noise (float): the standard deviation of AlexNet's PCA lighting noise with
            ImageNet's eigenvalues (`LightingAug`; 0: off).
        rand_gray: the probability of turning an image grey.
        inter_method: the interpolation code (see `imresize`).

    Returns:
        The list of `Augmenter` s.

    Raises:
        ValueError: `rand_resize` without `rand_crop`, or a mean/std of the wrong kind.

    Example::

        augs = mx.image.CreateAugmenter((3, 16, 16), resize=20, rand_mirror=True)
        [type(a).__name__ for a in augs]
        # ['ResizeAug', 'CenterCropAug', 'HorizontalFlipAug', 'CastAug']
    """
    auglist = []
    if resize > 0:
        auglist.append(ResizeAug(resize, inter_method))
    crop_size = (data_shape[2], data_shape[1])
    if rand_resize:
        if not rand_crop:
            raise ValueError("CreateAugmenter: rand_resize=True needs rand_crop=True")
        auglist.append(RandomSizedCropAug(crop_size, 0.08, (3.0 / 4.0, 4.0 / 3.0),
                                          inter_method))
    elif rand_crop:
        auglist.append(RandomCropAug(crop_size, inter_method))
    else:
        auglist.append(CenterCropAug(crop_size, inter_method))
    if rand_mirror:
        auglist.append(HorizontalFlipAug(0.5))
    auglist.append(CastAug())
    return auglist + _color_augs("CreateAugmenter", brightness, contrast, saturation, hue,
                                 pca_noise, rand_gray, mean, std)


# ------------------------------------------------------------------ ImageIter
_LAST_BATCH = ("pad", "discard", "roll_over")


def _read_image_list(path, who):
    """The entries of an image list file (``.lst``): one line per image, tab-separated
    ``index``, one or more labels, and the image path (im2rec's layout).

    Returns:
        list of (index int, labels list of float, path str).

    Raises:
        ValueError: a line that is not in that layout, or an index given twice, naming the
            file and line.
    """
    entries, first = [], {}
    with open(path, encoding="utf-8", errors="replace") as fin:
        for number, line in enumerate(fin, 1):
            if not line.strip():
                continue
            fields = line.strip().split("\t")
            try:
                if len(fields) < 3:
                    raise ValueError
                entries.append((int(fields[0]), [float(v) for v in fields[1:-1]], fields[-1]))
            except ValueError:
                shown = line.strip() if len(line) <= 80 else line[:77] + "..."
                raise ValueError(f"{who}: {path}, line {number}: expected 'INDEX<TAB>LABEL"
                                 f"[<TAB>LABEL...]<TAB>PATH' with an integer index and number "
                                 f"labels, got {shown!r}") from None
            index = entries[-1][0]
            if index in first:  # the later line would replace the earlier one's label
                raise ValueError(f"{who}: {path}, line {number}: index {index} again (first "
                                 f"at line {first[index]}); expected each image's index once")
            first[index] = number
    return entries


class ImageIter(io.DataIter):
    """Batches of augmented images (NCHW float32) and labels, read from a RecordIO file
    (``path_imgrec``, with ``path_imgidx`` for random access), from an image list file
    (``path_imglist``: ``index<TAB>label(s)<TAB>path`` per line) or from `imglist` (a list
    of ``[label(s)..., path]``), images under `path_root`.

    Args:
        batch_size: images per batch.
        data_shape: (3, height, width) of each image after augmentation.
        label_width: labels per image.
        path_imgrec, path_imglist, path_root, path_imgidx: the sources (see above).
        shuffle: shuffle at each reset (Python's ``random.shuffle``); needs a list or an
            index file.
        part_index, num_parts: read only part `part_index` of `num_parts` equal parts.
        aug_list: the augmenters; None builds ``CreateAugmenter(data_shape, **kwargs)``.
        imglist: a list of ``[label(s)..., path]``.
        dtype: the labels' dtype: 'int32', 'float32', 'int64' or 'float64'.
        last_batch_handle: 'pad' (fill the last batch from the start, `pad` says how many),
            'discard' (drop it) or 'roll_over' (carry it into the next epoch).
        **kwargs: `CreateAugmenter`'s settings.
        data_name (str): the data's name in `provide_data` (default ``'data'``).
        label_name (str): the label's name in `provide_label` (default
            ``'softmax_label'``).

    Raises:
        ValueError: no source, an unknown dtype or last_batch_handle, a data_shape that is
            not (3, h, w), or shuffle/num_parts over a RecordIO file without an index.

    Example::

        from PIL import Image   # three 8x8 PNG files
        for i in range(3):
            Image.fromarray(np.full((8, 8, 3), 50 * i, np.uint8)).save(f'{i}.png')
        it = mx.image.ImageIter(2, (3, 8, 8), imglist=[[0, '0.png'], [1, '1.png'], [2, '2.png']],
                                rand_mirror=True)
        for batch in it:
            x, y = batch.data[0], batch.label[0]   # x (2, 3, 8, 8); pad 1 on the last
    """

    def __init__(self, batch_size, data_shape, label_width=1, path_imgrec=None,
                 path_imglist=None, path_root=None, path_imgidx=None, shuffle=False,
                 part_index=0, num_parts=1, aug_list=None, imglist=None, data_name="data",
                 label_name="softmax_label", dtype="float32", last_batch_handle="pad",
                 **kwargs):
        super().__init__(batch_size)
        if not (path_imgrec or path_imglist or isinstance(imglist, list)):
            raise ValueError(f"{type(self).__name__}: give path_imgrec, path_imglist or "
                             f"imglist (a list)")
        if dtype not in ("int32", "float32", "int64", "float64"):
            raise ValueError(f"{type(self).__name__}: dtype must be 'int32', 'float32', "
                             f"'int64' or 'float64', got {dtype!r}")
        if last_batch_handle not in _LAST_BATCH:
            raise ValueError(f"{type(self).__name__}: last_batch_handle must be one of "
                             f"{_LAST_BATCH}, got {last_batch_handle!r}")
        if path_imgrec:
            logging.info("%s: loading recordio %s...", type(self).__name__, path_imgrec)
            if path_imgidx:
                self.imgrec = recordio.MXIndexedRecordIO(path_imgidx, path_imgrec, "r")
                self.imgidx = list(self.imgrec.keys)
            else:
                self.imgrec = recordio.MXRecordIO(path_imgrec, "r")
                self.imgidx = None
        else:
            self.imgrec = None
        imgkeys = []
        if path_imglist:
            self.imglist = {}
            for key, label, path in _read_image_list(path_imglist, type(self).__name__):
                self.imglist[key] = (nd.array(label, dtype=dtype), path)
                imgkeys.append(key)
        elif isinstance(imglist, list):
            self.imglist = {}
            for index, img in enumerate(imglist, 1):
                key = str(index)
                if len(img) > 2:
                    label = nd.array(img[:-1], dtype=dtype)
                elif isinstance(img[0], numbers.Number):
                    label = nd.array([img[0]], dtype=dtype)
                else:
                    label = nd.array(img[0], dtype=dtype)
                self.imglist[key] = (label, img[-1])
                imgkeys.append(key)
        else:
            self.imglist = None
        self.path_root = path_root
        self.check_data_shape(data_shape)
        self.provide_data = [(data_name, (batch_size,) + tuple(data_shape))]
        if label_width > 1:
            self.provide_label = [(label_name, (batch_size, label_width))]
        else:
            self.provide_label = [(label_name, (batch_size,))]
        self.data_shape = tuple(data_shape)
        self.label_width = label_width
        self.shuffle = shuffle
        if self.imgrec is None:
            self.seq = imgkeys
        elif shuffle or num_parts > 1 or path_imgidx:
            if self.imgidx is None:
                raise ValueError(f"{type(self).__name__}: shuffle or num_parts > 1 over a "
                                 f"RecordIO file needs its index (path_imgidx)")
            self.seq = self.imgidx
        else:
            self.seq = None
        if num_parts > 1:
            if not 0 <= part_index < num_parts:
                raise ValueError(f"{type(self).__name__}: part_index must be in [0, "
                                 f"{num_parts}), got {part_index}")
            part = len(self.seq) // num_parts
            self.seq = self.seq[part_index * part:(part_index + 1) * part]
        self.auglist = CreateAugmenter(data_shape, **kwargs) if aug_list is None else aug_list
        self.cur = 0
        self._allow_read = True
        self.last_batch_handle = last_batch_handle
        self.num_image = len(self.seq) if self.seq is not None else None
        self._cache_data = None
        self._cache_label = None
        self._cache_idx = None
        self.reset()

    def reset(self):
        """Start the next epoch (reshuffled when `shuffle`); with 'roll_over', a held
        partial batch is completed first.

        Example::

            from PIL import Image   # three 8x8 PNG files
            for i in range(3):
                Image.fromarray(np.full((8, 8, 3), 50 * i, np.uint8)).save(f'{i}.png')
            it = mx.image.ImageIter(2, (3, 8, 8),
                                    imglist=[[0, '0.png'], [1, '1.png'], [2, '2.png']])
            len(list(it)); it.reset(); len(list(it))   # 2 batches each time
        """
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)
        if self.last_batch_handle != "roll_over" or self._cache_data is None:
            if self.imgrec is not None:
                self.imgrec.reset()
            self.cur = 0
            self._allow_read = True

    def hard_reset(self):
        """Start again from the first image, dropping any rolled-over partial batch.

        Example::

            from PIL import Image   # three 8x8 PNG files
            for i in range(3):
                Image.fromarray(np.full((8, 8, 3), 50 * i, np.uint8)).save(f'{i}.png')
            it = mx.image.ImageIter(2, (3, 8, 8),
                                    imglist=[[0, '0.png'], [1, '1.png'], [2, '2.png']])
            it.next(); it.hard_reset()
            it.next().label[0]   # [0. 1.]
        """
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)
        if self.imgrec is not None:
            self.imgrec.reset()
        self.cur = 0
        self._allow_read = True
        self._cache_data = None
        self._cache_label = None
        self._cache_idx = None

    def next_sample(self):
        """The next ``(label, encoded image bytes)``.

        Raises:
            StopIteration: the epoch is over.

        Example::

            from PIL import Image   # three 8x8 PNG files
            for i in range(3):
                Image.fromarray(np.full((8, 8, 3), 50 * i, np.uint8)).save(f'{i}.png')
            it = mx.image.ImageIter(2, (3, 8, 8),
                                    imglist=[[0, '0.png'], [1, '1.png'], [2, '2.png']])
            label, png_bytes = it.next_sample()   # label [0.]
        """
        if not self._allow_read:
            raise StopIteration
        if self.seq is None:
            s = self.imgrec.read()
            if s is None:
                if self.last_batch_handle != "discard":
                    self.imgrec.reset()
                raise StopIteration
            header, img = recordio.unpack(s)
            return header.label, img
        if self.cur >= self.num_image:
            if self.last_batch_handle != "discard":
                self.cur = 0
            raise StopIteration
        idx = self.seq[self.cur]
        self.cur += 1
        if self.imgrec is not None:
            header, img = recordio.unpack(self.imgrec.read_idx(idx))
            return (header.label if self.imglist is None else self.imglist[idx][0]), img
        label, fname = self.imglist[idx]
        return label, self.read_image(fname)

    def _batchify(self, batch_data, batch_label, start=0):
        i = start
        try:
            while i < self.batch_size:
                label, s = self.next_sample()
                data = self.imdecode(s)
                try:
                    self.check_valid_image(data)
                except RuntimeError as e:
                    logging.debug("Invalid image, skipping: %s", e)
                    continue
                data = self.augmentation_transform(data)
                batch_data[i] = self.postprocess_data(data)
                batch_label[i] = label
                i += 1
        except StopIteration:
            if not i:
                raise
        return i

    def next(self):
        """The next `DataBatch` (data (N, C, H, W) float32, labels), `pad` set on a padded
        last batch.

        Raises:
            StopIteration: the epoch is over.

        Example::

            from PIL import Image   # three 8x8 PNG files
            for i in range(3):
                Image.fromarray(np.full((8, 8, 3), 50 * i, np.uint8)).save(f'{i}.png')
            it = mx.image.ImageIter(2, (3, 8, 8),
                                    imglist=[[0, '0.png'], [1, '1.png'], [2, '2.png']])
            batch = it.next(); batch.data[0].shape   # (2, 3, 8, 8)
        """
        if self._cache_data is not None:
            batch_data, batch_label, i = self._cache_data, self._cache_label, self._cache_idx
        else:
            batch_data, batch_label, i = self._new_batch()
        pad = self.batch_size - i
        if pad:
            if self.last_batch_handle == "discard":
                raise StopIteration
            if self.last_batch_handle == "roll_over" and self._cache_data is None:
                self._cache_data, self._cache_label, self._cache_idx = \
                    batch_data, batch_label, i
                raise StopIteration
            self._batchify(batch_data, batch_label, i)
            if self.last_batch_handle == "pad":
                self._allow_read = False
            else:
                self._cache_data = self._cache_label = self._cache_idx = None
        return io.DataBatch([batch_data], [batch_label], pad=pad)

    def _new_batch(self):
        batch_data = nd.zeros((self.batch_size,) + self.data_shape)
        batch_label = nd.empty(self.provide_label[0][1])
        return batch_data, batch_label, self._batchify(batch_data, batch_label)

    def check_data_shape(self, data_shape):
        """Raise ValueError unless `data_shape` is (3, height, width).

        Example::

            from PIL import Image   # three 8x8 PNG files
            for i in range(3):
                Image.fromarray(np.full((8, 8, 3), 50 * i, np.uint8)).save(f'{i}.png')
            it = mx.image.ImageIter(2, (3, 8, 8),
                                    imglist=[[0, '0.png'], [1, '1.png'], [2, '2.png']])
            it.check_data_shape((3, 16, 16))   # fine; (1, 16, 16) raises ValueError
        """
        if len(data_shape) != 3:
            raise ValueError(f"{type(self).__name__}: data_shape must be (C, H, W), got "
                             f"{data_shape}")
        if data_shape[0] != 3:
            raise ValueError(f"{type(self).__name__}: expects 3 channels, got data_shape "
                             f"{data_shape}")

    def check_valid_image(self, data):
        """Raise RuntimeError for an empty decoded image (it is then skipped).

        Args:
            data (list of NDArray): the decoded image(s); the first
                must not be empty.

        Example::

            from PIL import Image   # three 8x8 PNG files
            for i in range(3):
                Image.fromarray(np.full((8, 8, 3), 50 * i, np.uint8)).save(f'{i}.png')
            it = mx.image.ImageIter(2, (3, 8, 8),
                                    imglist=[[0, '0.png'], [1, '1.png'], [2, '2.png']])
            it.check_valid_image(nd.zeros((8, 8, 3)))   # fine: not empty
        """
        if len(data[0].shape) == 0:
            raise RuntimeError("Data shape is wrong")

    def imdecode(self, s):
        """Decode image bytes `s`; a broken image raises RuntimeError naming it.

        Example::

            from PIL import Image   # three 8x8 PNG files
            for i in range(3):
                Image.fromarray(np.full((8, 8, 3), 50 * i, np.uint8)).save(f'{i}.png')
            it = mx.image.ImageIter(2, (3, 8, 8),
                                    imglist=[[0, '0.png'], [1, '1.png'], [2, '2.png']])
            it.imdecode(open('1.png', 'rb').read()).shape   # (8, 8, 3)
        """
        try:
            return imdecode(s)
        except Exception as e:
            raise RuntimeError(f"{type(self).__name__}: broken image {self._locate()}, {e}") \
                from None

    def _locate(self):
        if self.seq is not None:
            idx = self.seq[(self.cur % self.num_image) - 1]
        else:
            return "(sequential record)"
        if self.imglist is not None:
            return f"filename: {self.imglist[idx][1]}"
        return f"index: {idx}"

    def read_image(self, fname):
        """The bytes of image file `fname` under `path_root`.

        Example::

            from PIL import Image   # three 8x8 PNG files
            for i in range(3):
                Image.fromarray(np.full((8, 8, 3), 50 * i, np.uint8)).save(f'{i}.png')
            it = mx.image.ImageIter(2, (3, 8, 8),
                                    imglist=[[0, '0.png'], [1, '1.png'], [2, '2.png']])
            png_bytes = it.read_image('1.png')
        """
        with open(os.path.join(self.path_root or "", fname), "rb") as fin:
            return fin.read()

    def augmentation_transform(self, data):
        """`data` through every augmenter of `auglist`.

        Example::

            from PIL import Image   # three 8x8 PNG files
            for i in range(3):
                Image.fromarray(np.full((8, 8, 3), 50 * i, np.uint8)).save(f'{i}.png')
            it = mx.image.ImageIter(2, (3, 8, 8),
                                    imglist=[[0, '0.png'], [1, '1.png'], [2, '2.png']])
            it.augmentation_transform(nd.zeros((8, 8, 3))).shape   # (8, 8, 3)
        """
        for aug in self.auglist:
            data = aug(data)
        return data

    def postprocess_data(self, datum):
        """HWC -> CHW.

        Args:
            datum (NDArray): an augmented (H, W, C) image.

        Example::

            from PIL import Image   # three 8x8 PNG files
            for i in range(3):
                Image.fromarray(np.full((8, 8, 3), 50 * i, np.uint8)).save(f'{i}.png')
            it = mx.image.ImageIter(2, (3, 8, 8),
                                    imglist=[[0, '0.png'], [1, '1.png'], [2, '2.png']])
            it.postprocess_data(nd.zeros((8, 8, 3))).shape   # (3, 8, 8)
        """
        return nd.transpose(datum, axes=(2, 0, 1))
