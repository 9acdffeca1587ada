"""`gluon.data.vision.transforms`: image transforms as Gluon blocks, built on the image
operators (`nd.image.*`). Most are HybridBlocks; the ones drawing crop boxes on the host
(`RandomResizedCrop`, `CenterCrop`, `RandomApply`) are Blocks.

Example::

    from gluonlite.gluon.data.vision import transforms
    t = transforms.Compose([transforms.Resize(32), transforms.ToTensor(),
                            transforms.Normalize(0.5, 0.25)])
    images = nd.zeros((10, 64, 48, 3), dtype='uint8')   # HWC images
    dataset = gluon.data.ArrayDataset(images, nd.arange(10)).transform_first(t)
    dataset[0][0].shape   # (3, 32, 32)
"""
import random

import numpy as np

from ....base import numeric_types
from ....image.image import center_crop, random_size_crop
from ...block import Block, HybridBlock
from ...nn import HybridSequential, Sequential
from .... import image
from ....util import is_np_array as _is_np_array

__all__ = ["Compose", "HybridCompose", "Cast", "ToTensor", "Normalize", "Rotate",
           "RandomRotation", "RandomResizedCrop", "CropResize", "CenterCrop", "Resize",
           "RandomFlipLeftRight", "RandomFlipTopBottom", "RandomBrightness", "RandomContrast",
           "RandomSaturation", "RandomHue", "RandomColorJitter", "RandomLighting",
           "RandomApply", "Block", "HybridBlock", "Sequential",
           "HybridSequential", "is_np_array"]


def is_np_array():
    """Whether NumPy array semantics is on (`mx.util.is_np_array`, which MXNet's module
    re-exports).

    Example::

        from gluonlite.gluon.data.vision import transforms
        transforms.is_np_array()   # False
    """
    return _is_np_array()


class Compose(Sequential):
    """Apply `transforms` in order; runs of consecutive HybridBlocks are grouped into one
    hybridized HybridSequential.

    Example::

        from gluonlite.gluon.data.vision import transforms
        t = transforms.Compose([transforms.Resize(32), transforms.ToTensor()])
        t(nd.zeros((64, 48, 3), dtype='uint8')).shape   # (3, 32, 32)
    """

    def __init__(self, transforms):
        super().__init__()
        run = []
        for t in list(transforms) + [None]:
            if isinstance(t, HybridBlock):
                run.append(t)
                continue
            if len(run) == 1:
                self.add(run[0])
            elif len(run) > 1:
                block = HybridSequential()
                for r in run:
                    block.add(r)
                block.hybridize()
                self.add(block)
            run = []
            if t is not None:
                self.add(t)


class HybridCompose(HybridSequential):
    """Apply HybridBlock `transforms` in order, as one HybridBlock.

    Raises:
        TypeError: a transform is not a HybridBlock.

    Example::

        from gluonlite.gluon.data.vision import transforms
        t = transforms.HybridCompose([transforms.ToTensor(), transforms.Normalize(0.5, 0.2)])
        t(nd.zeros((4, 4, 3), dtype='uint8'))[0, 0, 0].asscalar()   # -2.5
    """

    def __init__(self, transforms):
        super().__init__()
        for t in transforms:
            if not isinstance(t, HybridBlock):
                raise TypeError(f"HybridCompose: every transform must be a HybridBlock, got "
                                f"{type(t).__name__}")
            self.add(t)


class Cast(HybridBlock):
    """Cast to `dtype` (default 'float32').

    Args:
        dtype: the data type of the result (default 'float32').

    Inputs:
        - **x**: an array of any shape and type.

    Outputs:
        - **out**: `x` cast to `dtype`, the same shape.

    Example::

        from gluonlite.gluon.data.vision import transforms
        cast = transforms.Cast('float16')
        cast(nd.ones((2, 2), dtype='uint8')).dtype   # <class 'numpy.float16'>
    """

    def __init__(self, dtype="float32"):
        super().__init__()
        self._dtype = dtype

    def hybrid_forward(self, F, x):
        return F.cast(x, dtype=self._dtype)


class ToTensor(HybridBlock):
    """An HWC (NHWC) image in [0, 255] to a CHW (NCHW) float32 tensor in [0, 1].

    Args:
        prefix: the prefix of the block's name (default None: made from the class name).
        params: a ParameterDict to share (the block has no parameters).

    Inputs:
        - **x**: an HWC (or NHWC) image, uint8 or float, values in [0, 255].

    Outputs:
        - **out**: a CHW (or NCHW) float32 tensor, `x` / 255.

    Example::

        from gluonlite.gluon.data.vision import transforms
        x = transforms.ToTensor()(nd.ones((32, 32, 3), dtype='uint8') * 255)
        x.shape   # (3, 32, 32)
        x.max().asscalar()   # 1.0
    """

    def hybrid_forward(self, F, x):
        return F.image.to_tensor(x)


class Normalize(HybridBlock):
    """``(x - mean[c]) / std[c]`` per channel of a CHW (NCHW) tensor.

    Args:
        mean: the value subtracted, one for all channels or a tuple with one per channel
            (default 0.0).
        std: the divisor, one for all channels or a tuple with one per channel (default
            1.0).

    Inputs:
        - **x**: a CHW tensor (or an NCHW batch), float.

    Outputs:
        - **out**: the normalized tensor, the same shape.

    Example::

        from gluonlite.gluon.data.vision import transforms
        norm = transforms.Normalize(mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225))
        norm(nd.ones((3, 8, 8))).shape   # (3, 8, 8)
    """

    def __init__(self, mean=0.0, std=1.0):
        super().__init__()
        self._mean = mean
        self._std = std

    def hybrid_forward(self, F, x):
        return F.image.normalize(x, mean=self._mean, std=self._std)


class Rotate(Block):
    """Rotate CHW (NCHW) float32 images by a fixed angle (see `mx.image.imrotate`).

    Args:
        rotation_degrees: the angle, counter-clockwise.
        zoom_in: zoom so that no empty corner shows.
        zoom_out: zoom so that the whole rotated image fits.

    Inputs:
        - **x**: a CHW (or NCHW) float32 tensor.

    Outputs:
        - **out**: the rotated tensor, the same shape.

    Raises:
        TypeError: an input that is not float32 (call it after `ToTensor`).

    Example::

        from gluonlite.gluon.data.vision import transforms
        img = nd.ones((16, 16, 3), dtype='uint8')
        transforms.Rotate(10)(nd.image.to_tensor(img)).shape   # (3, 16, 16)
    """

    def __init__(self, rotation_degrees, zoom_in=False, zoom_out=False):
        super().__init__()
        self._args = (rotation_degrees, zoom_in, zoom_out)

    def forward(self, x):
        if x.dtype != np.float32:
            raise TypeError(f"transforms.Rotate: only float32 input is supported, got "
                            f"{x.dtype}; call it after ToTensor")
        return image.imrotate(x, *self._args)


class RandomRotation(Block):
    """Rotate CHW (NCHW) float32 images by an angle drawn from `angle_limits` (numpy's global
    random state), with probability `rotate_with_proba` (see `mx.image.random_rotate`).

    Args:
        angle_limits: (low, high), the range of the angle in degrees, counter-clockwise.
        zoom_in: zoom so that no empty corner shows (default False).
        zoom_out: zoom so that the whole rotated image fits (default False).
        rotate_with_proba: the probability of rotating at all (default 1.0).

    Inputs:
        - **x**: a CHW (or NCHW) float32 tensor.

    Outputs:
        - **out**: the (maybe) rotated tensor, the same shape.

    Raises:
        ValueError: unordered `angle_limits` or a probability outside [0, 1].
        TypeError: an input that is not float32.

    Example::

        from gluonlite.gluon.data.vision import transforms
        img = nd.ones((16, 16, 3), dtype='uint8')
        transforms.RandomRotation((-10, 10))(nd.image.to_tensor(img)).shape   # (3, 16, 16)
    """

    def __init__(self, angle_limits, zoom_in=False, zoom_out=False, rotate_with_proba=1.0):
        super().__init__()
        lower, upper = angle_limits
        if lower >= upper:
            raise ValueError(f"transforms.RandomRotation: angle_limits must be ordered (low, "
                             f"high), got {angle_limits}")
        if not 0 <= rotate_with_proba <= 1:
            raise ValueError(f"transforms.RandomRotation: rotate_with_proba must be in [0, 1], "
                             f"got {rotate_with_proba}")
        self._args = (angle_limits, zoom_in, zoom_out)
        self._rotate_with_proba = rotate_with_proba

    def forward(self, x):
        if np.random.random() > self._rotate_with_proba:
            return x
        if x.dtype != np.float32:
            raise TypeError(f"transforms.RandomRotation: only float32 input is supported, got "
                            f"{x.dtype}; call it after ToTensor")
        return image.random_rotate(x, *self._args)


def _size_pair(size):
    return (size, size) if isinstance(size, numeric_types) else tuple(size)


class RandomResizedCrop(Block):
    """Crop a random box (area a fraction in `scale` of the image, aspect ratio in `ratio`,
    drawn with Python's `random`) and resize it to `size`; after 10 failed draws, a center
    crop.

    Args:
        size: (width, height) or an int for a square.
        scale: the range of the box's area fraction.
        ratio: the range of its width / height.
        interpolation: an `mx.image.imresize` code (0 nearest, 1 bilinear, 2 cubic, 3 area,
            4 Lanczos; 9, 10 chosen by the sizes).

    Inputs:
        - **x**: an HWC image.

    Outputs:
        - **out**: the crop resized to (height, width, C).

    Example::

        from gluonlite.gluon.data.vision import transforms
        crop = transforms.RandomResizedCrop(24)
        crop(nd.zeros((64, 48, 3), dtype='uint8')).shape   # (24, 24, 3)
    """

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), interpolation=1):
        super().__init__()
        self._size = _size_pair(size)
        self._scale = scale
        self._ratio = ratio
        self._interp = interpolation

    def forward(self, x):
        return random_size_crop(x, self._size, self._scale, self._ratio, self._interp)[0]


class CropResize(HybridBlock):
    """Crop the box (`x`, `y`, `width`, `height`) and, when `size` is given, resize it.

    Args:
        x: the left column of the box.
        y: the top row of the box.
        width: the box's width.
        height: the box's height.
        size: (width, height) or an int for a square to resize the crop to (default None:
            no resize).
        interpolation: an `mx.image.imresize` code for the resize (default None: 1,
            bilinear).

    Inputs:
        - **x**: an HWC image (or an NHWC batch); the box must lie inside it.

    Outputs:
        - **out**: the crop, (height, width, C) or the `size` given.

    Example::

        from gluonlite.gluon.data.vision import transforms
        crop = transforms.CropResize(0, 0, 100, 80, size=(50, 40))   # x, y, width, height
        crop(nd.zeros((120, 160, 3), dtype='uint8')).shape   # (40, 50, 3)
    """

    def __init__(self, x, y, width, height, size=None, interpolation=None):
        super().__init__()
        self._x, self._y, self._width, self._height = x, y, width, height
        self._size = None if size is None else _size_pair(size)
        self._interp = 1 if interpolation is None else interpolation

    def hybrid_forward(self, F, x):
        out = F.image.crop(x, x=self._x, y=self._y, width=self._width, height=self._height)
        if self._size is not None:
            out = F.image.resize(out, size=self._size, keep_ratio=False, interp=self._interp)
        return out


class CenterCrop(Block):
    """Crop the center of size `size` (scaled down to fit, then resized back to `size`).

    Args:
        size: (width, height) or an int for a square.
        interpolation: an `mx.image.imresize` code for the resize (default 1, bilinear).

    Inputs:
        - **x**: an HWC image.

    Outputs:
        - **out**: the center crop, (height, width, C).

    Example::

        from gluonlite.gluon.data.vision import transforms
        transforms.CenterCrop(24)(nd.zeros((64, 48, 3), dtype='uint8')).shape   # (24, 24, 3)
    """

    def __init__(self, size, interpolation=1):
        super().__init__()
        self._size = _size_pair(size)
        self._interp = interpolation

    def forward(self, x):
        return center_crop(x, self._size, self._interp)[0]


class Resize(HybridBlock):
    """Resize to `size` = (width, height), a square `size`, or with `keep_ratio` the short
    side to `size`.

    Args:
        size: (width, height) or an int.
        keep_ratio: with an int `size`, resize the short side to it and keep the aspect
            ratio (default False: a square).
        interpolation: an `mx.image.imresize` code (default 1, bilinear).

    Inputs:
        - **x**: an HWC image (or an NHWC batch).

    Outputs:
        - **out**: the resized image(s), the channels unchanged.

    Example::

        from gluonlite.gluon.data.vision import transforms
        img = nd.zeros((64, 48, 3), dtype='uint8')
        transforms.Resize(32)(img).shape   # (32, 32, 3)
        transforms.Resize(32, keep_ratio=True)(img).shape   # (42, 32, 3)
    """

    def __init__(self, size, keep_ratio=False, interpolation=1):
        super().__init__()
        self._size = size
        self._keep = keep_ratio
        self._interp = interpolation

    def hybrid_forward(self, F, x):
        return F.image.resize(x, size=self._size, keep_ratio=self._keep, interp=self._interp)


class RandomFlipLeftRight(HybridBlock):
    """Mirror left to right with probability 0.5.

    Args:
        prefix: the prefix of the block's name (default None: made from the class name).
        params: a ParameterDict to share (the block has no parameters).

    Inputs:
        - **x**: an HWC image (or an NHWC batch).

    Outputs:
        - **out**: `x` or its mirror image, the same shape.

    Example::

        from gluonlite.gluon.data.vision import transforms
        img = nd.array([[[1], [2]]], dtype='uint8')   # HWC, 1 x 2 x 1
        transforms.RandomFlipLeftRight()(img).asnumpy().ravel()   # [1 2] or [2 1]
    """

    def hybrid_forward(self, F, x):
        return F.image.random_flip_left_right(x)


class RandomFlipTopBottom(HybridBlock):
    """Mirror top to bottom with probability 0.5.

    Args:
        prefix: the prefix of the block's name (default None: made from the class name).
        params: a ParameterDict to share (the block has no parameters).

    Inputs:
        - **x**: an HWC image (or an NHWC batch).

    Outputs:
        - **out**: `x` or its mirror image, the same shape.

    Example::

        from gluonlite.gluon.data.vision import transforms
        img = nd.array([[[1]], [[2]]], dtype='uint8')   # HWC, 2 x 1 x 1
        transforms.RandomFlipTopBottom()(img).asnumpy().ravel()   # [1 2] or [2 1]
    """

    def hybrid_forward(self, F, x):
        return F.image.random_flip_top_bottom(x)


class _RandomEnhance(HybridBlock):
    _op = None

    def __init__(self, lo, hi):
        super().__init__()
        self._args = (lo, hi)

    def hybrid_forward(self, F, x):
        return getattr(F.image, self._op)(x, min_factor=self._args[0],
                                          max_factor=self._args[1])


class RandomBrightness(_RandomEnhance):
    """Scale by a factor from U[max(0, 1 - brightness), 1 + brightness].

    Args:
        brightness: how far the factor may move from 1 (>= 0).

    Inputs:
        - **x**: an HWC image (float or uint8).

    Outputs:
        - **out**: the jittered image, the same shape.

    Example::

        from gluonlite.gluon.data.vision import transforms
        img = nd.ones((8, 8, 3)) * 100
        transforms.RandomBrightness(0.3)(img).shape   # (8, 8, 3), every value in [70, 130]
    """

    _op = "random_brightness"

    def __init__(self, brightness):
        super().__init__(max(0, 1 - brightness), 1 + brightness)


class RandomContrast(_RandomEnhance):
    """Blend with the mean grey by a factor from U[max(0, 1 - contrast), 1 + contrast].

    Args:
        contrast: how far the factor may move from 1 (>= 0).

    Inputs:
        - **x**: an HWC image (float or uint8).

    Outputs:
        - **out**: the jittered image, the same shape.

    Example::

        from gluonlite.gluon.data.vision import transforms
        img = nd.random.uniform(0, 255, shape=(8, 8, 3))
        transforms.RandomContrast(0.3)(img).shape   # (8, 8, 3)
    """

    _op = "random_contrast"

    def __init__(self, contrast):
        super().__init__(max(0, 1 - contrast), 1 + contrast)


class RandomSaturation(_RandomEnhance):
    """Blend with grey by a factor from U[max(0, 1 - saturation), 1 + saturation].

    Args:
        saturation: how far the factor may move from 1 (>= 0).

    Inputs:
        - **x**: an HWC image (float or uint8).

    Outputs:
        - **out**: the jittered image, the same shape.

    Example::

        from gluonlite.gluon.data.vision import transforms
        img = nd.random.uniform(0, 255, shape=(8, 8, 3))
        transforms.RandomSaturation(0.3)(img).shape   # (8, 8, 3)
    """

    _op = "random_saturation"

    def __init__(self, saturation):
        super().__init__(max(0, 1 - saturation), 1 + saturation)


class RandomHue(_RandomEnhance):
    """Rotate the hue by 360 * u degrees, u from U[max(0, 1 - hue), 1 + hue] as MXNet draws
    it (a turn of 360 * (1 + d) degrees is one of 360 * d).

    Args:
        hue: the largest hue change, as a fraction of the full circle (>= 0).

    Inputs:
        - **x**: an HWC RGB image.

    Outputs:
        - **out**: the jittered image, the same shape.

    Example::

        from gluonlite.gluon.data.vision import transforms
        img = nd.random.uniform(0, 255, shape=(8, 8, 3))
        transforms.RandomHue(0.1)(img).shape   # (8, 8, 3)
    """

    _op = "random_hue"

    def __init__(self, hue):
        super().__init__(max(0, 1 - hue), 1 + hue)


class RandomColorJitter(HybridBlock):
    """Brightness, contrast, saturation and hue jitter in a random order.

    Args:
        brightness: as `RandomBrightness`'s (default 0: none).
        contrast: as `RandomContrast`'s (default 0: none).
        saturation: as `RandomSaturation`'s (default 0: none).
        hue: as `RandomHue`'s (default 0: none).

    Inputs:
        - **x**: an HWC RGB image.

    Outputs:
        - **out**: the jittered image, the same shape.

    Example::

        from gluonlite.gluon.data.vision import transforms
        jitter = transforms.RandomColorJitter(brightness=0.4, contrast=0.4, saturation=0.4)
        jitter(nd.random.uniform(0, 255, shape=(8, 8, 3))).shape   # (8, 8, 3)
    """

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        super().__init__()
        self._args = (brightness, contrast, saturation, hue)

    def hybrid_forward(self, F, x):
        b, c, s, h = self._args
        return F.image.random_color_jitter(x, brightness=b, contrast=c, saturation=s, hue=h)


class RandomLighting(HybridBlock):
    """AlexNet-style PCA lighting noise with coefficients from N(0, alpha**2).

    Args:
        alpha: the standard deviation of the noise coefficients.

    Inputs:
        - **x**: an HWC RGB image.

    Outputs:
        - **out**: the image with the noise added, the same shape.

    Example::

        from gluonlite.gluon.data.vision import transforms
        img = nd.random.uniform(0, 255, shape=(8, 8, 3))
        transforms.RandomLighting(0.1)(img).shape   # (8, 8, 3)
    """

    def __init__(self, alpha):
        super().__init__()
        self._alpha = alpha

    def hybrid_forward(self, F, x):
        return F.image.random_lighting(x, alpha_std=self._alpha)


class RandomApply(Sequential):
    """Apply `transforms` with probability `p` (Python's `random`).

    Args:
        transforms: the transform (a Block or a callable) to apply.
        p: the probability of applying it (default 0.5).

    Inputs:
        - **x**: the input of `transforms`.

    Outputs:
        - **out**: ``transforms(x)``, or `x` unchanged.

    Example::

        from gluonlite.gluon.data.vision import transforms
        t = transforms.RandomApply(transforms.RandomBrightness(0.3), p=0.5)
        t(nd.ones((8, 8, 3)) * 100).shape   # (8, 8, 3): brightened half of the time
    """

    def __init__(self, transforms, p=0.5):
        super().__init__()
        self.transforms = transforms
        self.p = p

    def forward(self, x):
        if self.p < random.random():
            return x
        return self.transforms(x)
