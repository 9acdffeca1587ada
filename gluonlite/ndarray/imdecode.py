"""`nd.imdecode`: MXNet's deprecated image decoder (``mx.image`` superseded it), decoding with
Pillow where MXNet used OpenCV, into OpenCV's channel order (BGR)."""
import io

import numpy as np

from .ndarray import NDArray, array

__all__ = ["imdecode"]


def _grey(image):
    """The grey levels OpenCV's decoders give: a grey image as it is; from colour, libpng's
    truncated fixed-point weights for a PNG, OpenCV's rounded ones for other formats."""
    if image.mode == "L":
        return np.asarray(image)
    rgb = np.asarray(image.convert("RGB")).astype(np.int64)
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    if image.format == "PNG":
        # libpng's weights for (0.299, 0.587) in 1/32768 steps, truncated; grey stays as is
        grey = (9797 * r + 19234 * g + 3737 * b) >> 15
        return np.where((r == g) & (g == b), r, grey).astype(np.uint8)
    return ((4899 * r + 9617 * g + 1868 * b + 8192) >> 14).astype(np.uint8)


def _decode(buf, channels):
    try:
        from PIL import Image
    except ImportError:
        raise ImportError("nd.imdecode: decoding images needs Pillow (pip install Pillow, or "
                          "gluonlite[image])") from None
    try:
        image = Image.open(io.BytesIO(bytes(buf)))
        if channels == 1 and image.format == "JPEG":
            # libjpeg's own grey output (the Y channel), which is what OpenCV asks for
            image.draft("L", image.size)
        image.load()
    except OSError as e:
        raise ValueError(f"nd.imdecode: str_img is not an image Pillow can decode ({e})") \
            from None
    if image.mode.startswith("I;16"):
        # 16-bit grey: OpenCV (libpng's strip_16) keeps the high byte
        image = Image.fromarray((np.asarray(image).astype(np.uint16) >> 8).astype(np.uint8))
    if channels == 1:
        return _grey(image)[:, :, None]
    if image.mode not in ("RGB", "RGBA"):
        image = image.convert("RGB")
    pixels = np.asarray(image)
    return np.concatenate([pixels[:, :, 2::-1], pixels[:, :, 3:]], axis=2)  # RGB(A) -> BGR(A)


def imdecode(str_img, clip_rect=(0, 0, 0, 0), out=None, index=0, channels=3, mean=None):
    """Decode an encoded image (JPEG, PNG, ...) into a (channels, height, width) float32
    array in BGR channel order, as MXNet's OpenCV-based decoder (deprecated: use
    ``mx.image``; MXNet 1.9.1's own fails on every call with an unknown-shape error).

    Args:
        str_img: the encoded bytes.
        clip_rect: ``(x0, y0, x1, y1)``, the rectangle kept; a zero height keeps the image.
        out: write into this (c, h, w) array, or slice `index` of an (n, c, h, w) one.
        index: the slice of a 4-D `out`.
        channels: 1 for grey, else the first `channels` of B, G, R(, A).
        mean: an NDArray (c, h, w) subtracted from the result (its dtype is the result's).

    Returns:
        The decoded NDArray (`out` when given).

    Raises:
        ValueError: bytes that are not an image, more channels than the image has, a
            rectangle outside the image, or an `out`/`mean` whose shape does not fit.

    Example::

        from PIL import Image   # a small PNG to decode
        Image.fromarray(np.zeros((4, 6, 3), np.uint8)).save('cat.png')
        with open('cat.png', 'rb') as f:
            img = nd.imdecode(f.read())
        img.shape   # (3, 4, 6): channels first
    """
    pixels = _decode(str_img, channels)
    if channels > pixels.shape[2]:
        raise ValueError(f"nd.imdecode: channels={channels} but the image has "
                         f"{pixels.shape[2]}")
    x0, y0, x1, y1 = (int(v) for v in clip_rect)
    if y1 - y0 == 0:
        x0, y0, y1, x1 = 0, 0, pixels.shape[0], pixels.shape[1]
    if not (0 <= x0 < x1 <= pixels.shape[1] and 0 <= y0 < y1 <= pixels.shape[0]):
        raise ValueError(f"nd.imdecode: clip_rect={tuple(clip_rect)} is not inside the "
                         f"{pixels.shape[1]}x{pixels.shape[0]} image")
    chw = pixels[y0:y1, x0:x1, :channels].transpose(2, 0, 1)
    dtype = np.float32 if mean is None else np.dtype(mean.dtype)
    result = chw.astype(dtype)
    if mean is not None:
        if tuple(mean.shape) != result.shape:
            raise ValueError(f"nd.imdecode: mean has shape {tuple(mean.shape)}, the decoded "
                             f"image {result.shape}")
        result = result - mean.asnumpy()
    if out is None:
        return array(result, dtype=dtype)
    if not isinstance(out, NDArray) or out.ndim not in (3, 4):
        raise ValueError("nd.imdecode: out must be a 3-D (c, h, w) or 4-D (n, c, h, w) NDArray")
    target = out if out.ndim == 3 else out[index]
    if tuple(target.shape) != result.shape:
        raise ValueError(f"nd.imdecode: out{'' if out.ndim == 3 else f'[{index}]'} has shape "
                         f"{tuple(target.shape)}, the decoded image {result.shape}")
    target[:] = result
    return out
