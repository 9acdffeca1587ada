"""`mx.image`'s object-detection augmenters and `ImageDetIter`, as MXNet 1.9.1's.

A detection label is a (num_objects, 5+) array of ``[class_id, xmin, ymin, xmax, ymax, ...]``
rows with corners in [0, 1] of the image; a raw label (in a list file or a record) starts with
a header ``[header_width, object_width, ...]`` followed by the objects' rows. Detection
augmenters take and return ``(image, label)``; random choices use Python's `random`, as
MXNet's do.
"""
import logging
import numbers
import random
import warnings
from math import sqrt

import numpy as np

from .. import ndarray as nd
from .image import (Augmenter, CastAug, ForceResizeAug, ImageIter, ResizeAug, _Settings,
                    _color_augs, copyMakeBorder, fixed_crop)

__all__ = ["DetAugmenter", "DetBorrowAug", "DetRandomSelectAug", "DetHorizontalFlipAug",
           "DetRandomCropAug", "DetRandomPadAug", "CreateMultiRandCropAugmenter",
           "CreateDetAugmenter", "ImageDetIter"]


class DetAugmenter(_Settings):
    """Base class of detection augmenters: ``aug(src, label)`` returns ``(src, label)``.

    Args:
        **kwargs: the settings that `dumps` reports (arrays are kept as lists).

    Example::

        class Identity(mx.image.DetAugmenter):
            def __call__(self, src, label):
                return src, label
        src, label = Identity()(nd.zeros((4, 4, 3)), np.array([[0, 0.1, 0.1, 0.5, 0.5]]))
    """

    def __call__(self, src, label):
        raise NotImplementedError(f"{type(self).__name__}: a DetAugmenter subclass must "
                                  f"define __call__")


class DetBorrowAug(DetAugmenter):
    """Use a classification `Augmenter` that does not move pixels (colour, cast, resize) in
    a detection pipeline: the image is augmented, the label kept.

    Raises:
        TypeError: `augmenter` is not an `Augmenter`.

    Example::

        img = nd.zeros((16, 16, 3))
        label = np.array([[0, 0.1, 0.1, 0.6, 0.6]])   # class 0, corners (0.1, 0.1)-(0.6, 0.6)
        src, label = mx.image.DetBorrowAug(mx.image.CastAug('float16'))(img, label)   # label kept
    """

    def __init__(self, augmenter):
        if not isinstance(augmenter, Augmenter):
            raise TypeError(f"DetBorrowAug: augmenter must be an image.Augmenter, got "
                            f"{type(augmenter).__name__}")
        super().__init__(augmenter=augmenter.dumps())
        self.augmenter = augmenter

    def dumps(self):
        """``[name, the borrowed augmenter's dumps()]``.

        Example::

            mx.image.DetBorrowAug(mx.image.CastAug()).dumps()
            # ['detborrowaug', '["castaug", {"type": "float32"}]']
        """
        return [self.__class__.__name__.lower(), self.augmenter.dumps()]

    def __call__(self, src, label):
        return self.augmenter(src), label


class DetRandomSelectAug(DetAugmenter):
    """Apply one augmenter of `aug_list` picked at random, or none with probability
    `skip_prob` (always none for an empty list).

    Raises:
        ValueError: an element that is not a `DetAugmenter`.

    Example::

        img = nd.zeros((16, 16, 3))
        label = np.array([[0, 0.1, 0.1, 0.6, 0.6]])   # class 0, corners (0.1, 0.1)-(0.6, 0.6)
        aug = mx.image.DetRandomSelectAug([mx.image.DetRandomCropAug(), mx.image.DetRandomPadAug()],
                                          skip_prob=0.5)
        src, label = aug(img, label)
    """

    def __init__(self, aug_list, skip_prob=0):
        super().__init__(skip_prob=skip_prob)
        if not isinstance(aug_list, (list, tuple)):
            aug_list = [aug_list]
        for aug in aug_list:
            if not isinstance(aug, DetAugmenter):
                raise ValueError(f"DetRandomSelectAug: aug_list must hold DetAugmenters, got "
                                 f"{type(aug).__name__}")
        self.aug_list = list(aug_list)
        self.skip_prob = skip_prob if aug_list else 1

    def dumps(self):
        """``[name, [each augmenter's dumps()]]``.

        Example::

            mx.image.DetRandomSelectAug([mx.image.DetHorizontalFlipAug(1.0)]).dumps()
            # ['detrandomselectaug', ['["dethorizontalflipaug", {"p": 1.0}]']]
        """
        return [self.__class__.__name__.lower(), [x.dumps() for x in self.aug_list]]

    def __call__(self, src, label):
        if random.random() < self.skip_prob:
            return src, label
        random.shuffle(self.aug_list)
        return self.aug_list[0](src, label)


class DetHorizontalFlipAug(DetAugmenter):
    """With probability `p`, mirror the image and its boxes left to right.

    Example::

        img = nd.zeros((16, 16, 3))
        label = np.array([[0, 0.1, 0.1, 0.6, 0.6]])   # class 0, corners (0.1, 0.1)-(0.6, 0.6)
        src, label = mx.image.DetHorizontalFlipAug(1.0)(img, label)
        label   # [[0. 0.4 0.1 0.9 0.6]]: the box mirrored
    """

    def __init__(self, p):
        super().__init__(p=p)
        self.p = p

    def __call__(self, src, label):
        if random.random() < self.p:
            src = nd.flip(src, axis=1)
            self._flip_label(label)
        return src, label

    def _flip_label(self, label):
        xmin = 1.0 - label[:, 3]
        label[:, 3] = 1.0 - label[:, 1]
        label[:, 1] = xmin


def _as_range(name, cls, v):
    if isinstance(v, (tuple, list)):
        return tuple(v)
    if not isinstance(v, numbers.Number):
        raise TypeError(f"{cls}: {name} must be a number or a (min, max) pair, got {v!r}")
    return (v, v)


def _areas(boxes):
    return np.maximum(0, boxes[:, 3] - boxes[:, 1]) * np.maximum(0, boxes[:, 2] - boxes[:, 0])


class DetRandomCropAug(DetAugmenter):
    """A random crop (SSD's sampler) that keeps enough of the objects: each object it cuts
    keeps more than `min_object_covered` of its area, and objects keeping less than
    `min_eject_coverage` are dropped from the label.

    Args:
        min_object_covered: the least fraction of each touched object's area kept.
        aspect_ratio_range: (min, max) width/height of the crop, or one number.
        area_range: (min, max) fraction of the image's area, or one number.
        min_eject_coverage: objects keeping less of their area are removed.
        max_attempts: draws before giving up (the image is then left as it is).

    Example::

        img = nd.zeros((16, 16, 3))
        label = np.array([[0, 0.1, 0.1, 0.6, 0.6]])   # class 0, corners (0.1, 0.1)-(0.6, 0.6)
        src, label = mx.image.DetRandomCropAug(min_object_covered=0.5)(img, label)
    """

    def __init__(self, min_object_covered=0.1, aspect_ratio_range=(0.75, 1.33),
                 area_range=(0.05, 1.0), min_eject_coverage=0.3, max_attempts=50):
        aspect_ratio_range = _as_range("aspect_ratio_range", "DetRandomCropAug",
                                       aspect_ratio_range)
        area_range = _as_range("area_range", "DetRandomCropAug", area_range)
        super().__init__(min_object_covered=min_object_covered,
                         aspect_ratio_range=aspect_ratio_range, area_range=area_range,
                         min_eject_coverage=min_eject_coverage, max_attempts=max_attempts)
        self.min_object_covered = min_object_covered
        self.min_eject_coverage = min_eject_coverage
        self.max_attempts = max_attempts
        self.aspect_ratio_range = aspect_ratio_range
        self.area_range = area_range
        self.enabled = False
        if area_range[1] <= 0 or area_range[0] > area_range[1]:
            warnings.warn(f"DetRandomCropAug: skipped, invalid area_range {area_range}")
        elif aspect_ratio_range[0] > aspect_ratio_range[1] or aspect_ratio_range[0] <= 0:
            warnings.warn(f"DetRandomCropAug: skipped, invalid aspect_ratio_range "
                          f"{aspect_ratio_range}")
        else:
            self.enabled = True

    def __call__(self, src, label):
        crop = self._random_crop_proposal(label, src.shape[0], src.shape[1])
        if crop:
            x, y, w, h, label = crop
            src = fixed_crop(src, x, y, w, h, None)
        return src, label

    @staticmethod
    def _intersect(boxes, xmin, ymin, xmax, ymax):
        out = boxes.copy()
        out[:, 0] = np.maximum(boxes[:, 0], xmin)
        out[:, 1] = np.maximum(boxes[:, 1], ymin)
        out[:, 2] = np.minimum(boxes[:, 2], xmax)
        out[:, 3] = np.minimum(boxes[:, 3], ymax)
        out[(out[:, 0] >= out[:, 2]) | (out[:, 1] >= out[:, 3]), :] = 0
        return out

    def _check_satisfy_constraints(self, label, xmin, ymin, xmax, ymax, width, height):
        if (xmax - xmin) * (ymax - ymin) < 2:
            return False
        object_areas = _areas(label[:, 1:])
        valid = np.where(object_areas * width * height > 2)[0]
        if valid.size < 1:
            return False
        inter = self._intersect(label[valid, 1:], float(xmin) / width, float(ymin) / height,
                                float(xmax) / width, float(ymax) / height)
        coverages = _areas(inter) / object_areas[valid]
        coverages = coverages[coverages > 0]
        return coverages.size > 0 and np.amin(coverages) > self.min_object_covered

    def _update_labels(self, label, crop_box, height, width):
        xmin, ymin = float(crop_box[0]) / width, float(crop_box[1]) / height
        w, h = float(crop_box[2]) / width, float(crop_box[3]) / height
        out = label.copy()
        out[:, (1, 3)] = (out[:, (1, 3)] - xmin) / w
        out[:, (2, 4)] = (out[:, (2, 4)] - ymin) / h
        out[:, 1:5] = np.clip(out[:, 1:5], 0, 1)
        coverage = _areas(out[:, 1:]) * w * h / _areas(label[:, 1:])
        valid = (out[:, 3] > out[:, 1]) & (out[:, 4] > out[:, 2]) & \
            (coverage > self.min_eject_coverage)
        return out[valid] if valid.any() else None

    def _random_crop_proposal(self, label, height, width):
        for ratio, h, max_h, min_area, max_area in _attempts(self, height, width):
            if round(max_h * ratio) > width:
                # the widest crop that still fits
                max_h = int((width + 0.4999999) / ratio)
            max_h = min(max_h, height)
            h = min(h, max_h)
            if h < max_h:
                h = random.randint(h, max_h)
            w = int(round(h * ratio))
            area = w * h
            if area < min_area:
                h += 1
                w = int(round(h * ratio))
                area = w * h
            if area > max_area:
                h -= 1
                w = int(round(h * ratio))
                area = w * h
            if not (min_area <= area <= max_area and 0 <= w <= width and 0 <= h <= height):
                continue
            y = random.randint(0, max(0, height - h))
            x = random.randint(0, max(0, width - w))
            if self._check_satisfy_constraints(label, x, y, x + w, y + h, width, height):
                new_label = self._update_labels(label, (x, y, w, h), height, width)
                if new_label is not None:
                    return (x, y, w, h, new_label)
        return ()


class DetRandomPadAug(DetAugmenter):
    """Place the image at a random spot of a larger canvas filled with `pad_val` (SSD's
    zoom-out), moving the boxes with it.

    Args:
        aspect_ratio_range: (min, max) width/height of the canvas, or one number.
        area_range: (min, max) canvas area as a multiple of the image's (max > 1).
        max_attempts: draws before giving up.
        pad_val: the canvas colour, per channel.

    Example::

        img = nd.zeros((16, 16, 3))
        label = np.array([[0, 0.1, 0.1, 0.6, 0.6]])   # class 0, corners (0.1, 0.1)-(0.6, 0.6)
        src, label = mx.image.DetRandomPadAug(area_range=(1, 3))(img, label)   # a larger canvas
    """

    def __init__(self, aspect_ratio_range=(0.75, 1.33), area_range=(1.0, 3.0),
                 max_attempts=50, pad_val=(128, 128, 128)):
        if not isinstance(pad_val, (list, tuple)):
            if not isinstance(pad_val, numbers.Number):
                raise TypeError(f"DetRandomPadAug: pad_val must be a number or a tuple, got "
                                f"{pad_val!r}")
            pad_val = (pad_val,) * 3
        aspect_ratio_range = _as_range("aspect_ratio_range", "DetRandomPadAug",
                                       aspect_ratio_range)
        area_range = _as_range("area_range", "DetRandomPadAug", area_range)
        super().__init__(aspect_ratio_range=aspect_ratio_range, area_range=area_range,
                         max_attempts=max_attempts, pad_val=pad_val)
        self.pad_val = pad_val
        self.aspect_ratio_range = aspect_ratio_range
        self.area_range = area_range
        self.max_attempts = max_attempts
        self.enabled = False
        if area_range[1] <= 1.0 or area_range[0] > area_range[1]:
            warnings.warn(f"DetRandomPadAug: skipped, invalid area_range {area_range}")
        elif aspect_ratio_range[0] <= 0 or aspect_ratio_range[0] > aspect_ratio_range[1]:
            warnings.warn(f"DetRandomPadAug: skipped, invalid aspect_ratio_range "
                          f"{aspect_ratio_range}")
        else:
            self.enabled = True

    def __call__(self, src, label):
        height, width, _ = src.shape
        pad = self._random_pad_proposal(label, height, width)
        if pad:
            x, y, w, h, label = pad
            src = copyMakeBorder(src, y, h - y - height, x, w - x - width, 16,
                                 values=self.pad_val)
        return src, label

    @staticmethod
    def _update_labels(label, pad_box, height, width):
        out = label.copy()
        out[:, (1, 3)] = (out[:, (1, 3)] * width + pad_box[0]) / pad_box[2]
        out[:, (2, 4)] = (out[:, (2, 4)] * height + pad_box[1]) / pad_box[3]
        return out

    def _random_pad_proposal(self, label, height, width):
        for ratio, h, max_h, _, _ in _attempts(self, height, width):
            if round(h * ratio) < width:
                h = int((width + 0.499999) / ratio)
            h = max(h, height)
            h = min(h, max_h)
            if h < max_h:
                h = random.randint(h, max_h)
            w = int(round(h * ratio))
            if (h - height) < 2 or (w - width) < 2:
                continue  # a margin of a pixel or two is no augmentation
            y = random.randint(0, max(0, h - height))
            x = random.randint(0, max(0, w - width))
            return (x, y, w, h, self._update_labels(label, (x, y, w, h), height, width))
        return ()


def _attempts(aug, height, width):
    """A random crop's or pad's draws, one per attempt (at most ``aug.max_attempts``, none
    when it is disabled or the image empty): ``(ratio, h, max_h, min_area, max_area)``, an
    aspect ratio from ``aug.aspect_ratio_range`` and the heights at which it gives
    ``aug.area_range``'s smallest and largest area (MXNet's order of draws)."""
    if not aug.enabled or height <= 0 or width <= 0:
        return
    min_area = aug.area_range[0] * height * width
    max_area = aug.area_range[1] * height * width
    for _ in range(aug.max_attempts):
        ratio = random.uniform(*aug.aspect_ratio_range)
        if ratio > 0:
            yield (ratio, int(round(sqrt(min_area / ratio))), int(round(sqrt(max_area / ratio))),
                   min_area, max_area)


def CreateMultiRandCropAugmenter(min_object_covered=0.1, aspect_ratio_range=(0.75, 1.33),
                                 area_range=(0.05, 1.0), min_eject_coverage=0.3,
                                 max_attempts=50, skip_prob=0):
    """A `DetRandomSelectAug` over several `DetRandomCropAug` s: each argument given as a
    list makes one sampler per element (single values are shared).

    Args:
        min_object_covered (float or list): the least fraction of each touched object's
            area a crop keeps (default 0.1).
        aspect_ratio_range (tuple or list): (min, max) width/height of the crop, or one
            number (default (0.75, 1.33)).
        area_range (tuple or list): (min, max) fraction of the
            image's area a crop covers (default (0.05, 1.0)).
        min_eject_coverage (float or list): objects keeping less of their area are removed
            from the label (default 0.3).
        max_attempts (int or list): draws per crop before giving up (default 50).
        skip_prob (float): the probability of applying no crop at all (default 0).

    Raises:
        ValueError: lists of different lengths.

    Example::

        aug = mx.image.CreateMultiRandCropAugmenter(min_object_covered=[0.1, 0.3, 0.5])
        type(aug).__name__   # 'DetRandomSelectAug': one of three crops, picked at random
    """
    params = [p if isinstance(p, list) else [p] for p in
              (min_object_covered, aspect_ratio_range, area_range, min_eject_coverage,
               max_attempts)]
    num = max(len(p) for p in params)
    for k, p in enumerate(params):
        if len(p) != num:
            if len(p) != 1:
                raise ValueError(f"CreateMultiRandCropAugmenter: list arguments must have "
                                 f"the same length, got {len(p)} and {num}")
            params[k] = p * num
    augs = [DetRandomCropAug(min_object_covered=moc, aspect_ratio_range=arr, area_range=ar,
                             min_eject_coverage=mec, max_attempts=ma)
            for moc, arr, ar, mec, ma in zip(*params)]
    return DetRandomSelectAug(augs, skip_prob=skip_prob)


def CreateDetAugmenter(data_shape, resize=0, rand_crop=0, rand_pad=0, rand_gray=0,
                       rand_mirror=False, mean=None, std=None, brightness=0, contrast=0,
                       saturation=0, pca_noise=0, hue=0, inter_method=2,
                       min_object_covered=0.1, aspect_ratio_range=(0.75, 1.33),
                       area_range=(0.05, 3.0), min_eject_coverage=0.3, max_attempts=50,
                       pad_val=(127, 127, 127)):
    """The standard list of detection augmenters for a (C, H, W) `data_shape`, in MXNet's
    order: resize, random crop, mirror, random pad, forced resize to the data shape, cast,
    colour jitter, hue, PCA lighting, random grey, normalisation.

    Args:
        data_shape: (channels, height, width) of the output.
        resize: resize the shorter side to this first (0: no).
        rand_gray: the probability of turning an image grey.
        rand_mirror: mirror with probability 0.5.
        inter_method: the interpolation code (see `imresize`).
        pad_val: the padding colour.
        rand_crop (float): the probability of a random crop (default 0: never).
        rand_pad (float): the probability of a random pad (default 0: never).
        mean: True for ImageNet's RGB means, a numpy array of 1 or 3 values,
            or None (default: no centring).
        std: True for ImageNet's RGB standard deviations, a numpy array of 1 or 3
            values, or None (default: no scaling).
        brightness (float): the brightness jitter strength: the image is scaled by ``1 +
            U(-brightness, brightness)`` (0: off).
        contrast (float): the contrast jitter strength: ``alpha = 1 + U(-contrast,
            contrast)`` (0: off).
        saturation (float): the saturation jitter strength: ``alpha = 1 +
            U(-saturation, saturation)`` (0: off).
        pca_noise (float): the standard deviation of the PCA lighting noise (0: off).
        hue (float): the hue jitter strength: a rotation by ``U(-hue, hue) * 180`` degrees
            (0: off).
        min_object_covered (float or list): the least fraction of each touched object's
            area a crop keeps (default 0.1).
        aspect_ratio_range (tuple or list): (min, max) width/height of the crop, or one
            number (default (0.75, 1.33)).
        area_range (tuple): (min, max) fraction of the image's area for the crops; the
            pad samplers use ``(1.0, max)`` (default (0.05, 3.0)).
        min_eject_coverage (float or list): objects keeping less of their area are removed
            from the label (default 0.3).
        max_attempts (int or list): draws per crop before giving up (default 50).

    Returns:
        The list of `DetAugmenter` s.

    Raises:
        ValueError: a mean/std of the wrong kind.

    Example::

        augs = mx.image.CreateDetAugmenter((3, 300, 300), rand_crop=0.5, rand_mirror=True)
        [type(a).__name__ for a in augs]
        # ['DetRandomSelectAug', 'DetHorizontalFlipAug', 'DetBorrowAug', 'DetBorrowAug']
    """
    auglist = []
    if resize > 0:
        auglist.append(DetBorrowAug(ResizeAug(resize, inter_method)))
    if rand_crop > 0:
        auglist.append(CreateMultiRandCropAugmenter(min_object_covered, aspect_ratio_range,
                                                    area_range, min_eject_coverage,
                                                    max_attempts, skip_prob=(1 - rand_crop)))
    if rand_mirror > 0:
        auglist.append(DetHorizontalFlipAug(0.5))
    if rand_pad > 0:
        pad_aug = DetRandomPadAug(aspect_ratio_range, (1.0, area_range[1]), max_attempts,
                                  pad_val)
        auglist.append(DetRandomSelectAug([pad_aug], 1 - rand_pad))
    auglist.append(DetBorrowAug(ForceResizeAug((data_shape[2], data_shape[1]), inter_method)))
    auglist.append(DetBorrowAug(CastAug()))
    # MXNet's detection list takes (and makes) numpy statistics only
    colour = _color_augs("CreateDetAugmenter", brightness, contrast, saturation, hue, pca_noise,
                         rand_gray, mean, std, np.ndarray, "a numpy array", np.array)
    return auglist + [DetBorrowAug(aug) for aug in colour]


class ImageDetIter(ImageIter):
    """Batches of augmented images and their boxes: data (N, C, H, W) float32, labels
    (N, max_objects, object_width) padded with -1 rows. Sources as `ImageIter`; a raw label
    is ``[header_width, object_width, (header extras), objects' rows...]``.

    Args:
        aug_list: the detection augmenters; None builds ``CreateDetAugmenter(data_shape,
            **kwargs)``.
        batch_size (int): images per batch.
        data_shape (tuple of int): (3, height, width) of each image after augmentation.
        path_imgrec (str): a RecordIO file of packed images (default None).
        path_imglist (str): an image list file, ``index<TAB>label(s)<TAB>path`` per line
            (default None).
        path_root (str): the folder the list's paths are relative to (default None).
        path_imgidx (str): the index file of `path_imgrec`, for shuffling and parts
            (default None).
        shuffle (bool): shuffle at each reset (default False).
        part_index (int): which part of `num_parts` to read (default 0).
        num_parts (int): the number of equal parts the source is split into (default 1).
        imglist (list): ``[label(s)..., path]`` entries, instead of a file (default None).
        data_name (str): the data's name in `provide_data` (default ``'data'``).
        label_name (str): the label's name in `provide_label` (default
            ``'softmax_label'``).
        last_batch_handle (str): 'pad' (default), 'discard' or 'roll_over', as
            `ImageIter`'s.

    Raises:
        RuntimeError: a label that cannot be parsed (while estimating the label shape).

    Example::

        from PIL import Image
        Image.fromarray(np.zeros((16, 16, 3), np.uint8)).save('a.png')
        box = [2, 5, 0, 0.1, 0.1, 0.6, 0.6]   # header (2, 5) and one object
        it = mx.image.ImageDetIter(1, (3, 16, 16), imglist=[box + ['a.png']], rand_crop=0.5)
        for batch in it:
            boxes = batch.label[0]          # (1, 1, 5): (batch, max_objects, 5)
    """

    def __init__(self, batch_size, data_shape, path_imgrec=None, path_imglist=None,
                 path_root=None, path_imgidx=None, shuffle=False, part_index=0, num_parts=1,
                 aug_list=None, imglist=None, data_name="data", label_name="label",
                 last_batch_handle="pad", **kwargs):
        super().__init__(batch_size=batch_size, data_shape=data_shape, path_imgrec=path_imgrec,
                         path_imglist=path_imglist, path_root=path_root,
                         path_imgidx=path_imgidx, shuffle=shuffle, part_index=part_index,
                         num_parts=num_parts, aug_list=[], imglist=imglist,
                         data_name=data_name, label_name=label_name,
                         last_batch_handle=last_batch_handle)
        self.auglist = CreateDetAugmenter(data_shape, **kwargs) if aug_list is None \
            else aug_list
        label_shape = self._estimate_label_shape()
        self.provide_label = [(label_name, (self.batch_size,) + label_shape)]
        self.label_shape = label_shape

    @staticmethod
    def _check_valid_label(label):
        if len(label.shape) != 2 or label.shape[1] < 5:
            raise RuntimeError(f"ImageDetIter: a label of shape (1+, 5+) is required, got "
                               f"{label.shape}")
        valid = (label[:, 0] >= 0) & (label[:, 3] > label[:, 1]) & (label[:, 4] > label[:, 2])
        if not valid.any():
            raise RuntimeError("ImageDetIter: the label has no valid object")

    def _estimate_label_shape(self):
        """(most objects in one image, object width) over the whole source; an empty source
        gives (0, 5), the narrowest object row."""
        max_count, width = 0, 5
        self.reset()
        try:
            while True:
                label, _ = self.next_sample()
                label = self._parse_label(label)
                max_count = max(max_count, label.shape[0])
                width = label.shape[1]
        except StopIteration:
            pass
        self.reset()
        return (max_count, width)

    @staticmethod
    def _parse_label(label):
        raw = (label.asnumpy() if isinstance(label, nd.NDArray) else np.asarray(label)).ravel()
        if raw.size < 7:
            raise RuntimeError(f"ImageDetIter: a raw label needs a header and at least one "
                               f"object (7+ values), got {raw.size}")
        header_width, obj_width = int(raw[0]), int(raw[1])
        if obj_width <= 0 or (raw.size - header_width) % obj_width != 0:
            raise RuntimeError(f"ImageDetIter: a label of {raw.size} values does not split "
                               f"into a header of {header_width} and objects of {obj_width}")
        out = raw[header_width:].reshape(-1, obj_width)
        valid = (out[:, 3] > out[:, 1]) & (out[:, 4] > out[:, 2])
        if not valid.any():
            raise RuntimeError("ImageDetIter: a sample with no valid object")
        return out[valid]

    def reshape(self, data_shape=None, label_shape=None):
        """Change the data shape (C, H, W) and/or the label shape (max_objects, width).

        Args:
            data_shape (tuple of int): the new (C, H, W) (default None: keep).
            label_shape (tuple of int): the new (max_objects, object_width), checked by
                `check_label_shape` (default None: keep).

        Example::

            from PIL import Image
            Image.fromarray(np.zeros((16, 16, 3), np.uint8)).save('a.png')
            box = [2, 5, 0, 0.1, 0.1, 0.6, 0.6]   # header (2, 5) and one object
            it = mx.image.ImageDetIter(1, (3, 16, 16), imglist=[box + ['a.png']])
            it.reshape(label_shape=(3, 5)); it.provide_label   # [('label', (1, 3, 5))]
        """
        if data_shape is not None:
            self.check_data_shape(data_shape)
            self.provide_data = [(self.provide_data[0][0], (self.batch_size,)
                                  + tuple(data_shape))]
            self.data_shape = tuple(data_shape)
        if label_shape is not None:
            self.check_label_shape(label_shape)
            self.provide_label = [(self.provide_label[0][0], (self.batch_size,)
                                   + tuple(label_shape))]
            self.label_shape = tuple(label_shape)

    def check_label_shape(self, label_shape):
        """Raise ValueError for a label shape that drops objects or changes their width.

        Args:
            label_shape (tuple of int): the proposed
                (max_objects, object_width).

        Example::

            from PIL import Image
            Image.fromarray(np.zeros((16, 16, 3), np.uint8)).save('a.png')
            box = [2, 5, 0, 0.1, 0.1, 0.6, 0.6]   # header (2, 5) and one object
            it = mx.image.ImageDetIter(1, (3, 16, 16), imglist=[box + ['a.png']])
            it.check_label_shape((4, 5))   # fine: room for more objects of width 5
        """
        if len(label_shape) != 2:
            raise ValueError(f"ImageDetIter: label_shape must be (max_objects, width), got "
                             f"{label_shape}")
        if label_shape[0] < self.label_shape[0]:
            raise ValueError(f"ImageDetIter: cannot reduce the label count from "
                             f"{self.label_shape[0]} to {label_shape[0]}")
        if label_shape[1] != self.provide_label[0][1][2]:
            raise ValueError(f"ImageDetIter: label_shape's object width must stay "
                             f"{self.provide_label[0][1][2]}, got {label_shape[1]}")

    def _batchify(self, batch_data, batch_label, start=0):
        i = start
        try:
            while i < self.batch_size:
                label, s = self.next_sample()
                data = self.imdecode(s)
                try:
                    self.check_valid_image([data])
                    label = self._parse_label(label)
                    data, label = self.augmentation_transform(data, label)
                    self._check_valid_label(label)
                except RuntimeError as e:
                    logging.debug("Invalid image, skipping: %s", e)
                    continue
                batch_data[i] = self.postprocess_data(data)
                rows = np.full(batch_label.shape[1:], -1, dtype=np.float32)
                rows[:label.shape[0]] = label
                batch_label[i] = rows
                i += 1
        except StopIteration:
            if not i:
                raise
        return i

    def _new_batch(self):
        batch_data = nd.zeros((self.batch_size,) + self.data_shape)
        batch_label = nd.full(self.provide_label[0][1], -1)
        return batch_data, batch_label, self._batchify(batch_data, batch_label)

    def augmentation_transform(self, data, label):
        """``(data, label)`` through every augmenter of `auglist`.

        Args:
            data (NDArray): the decoded HWC image.
            label (numpy.ndarray): its objects, one ``[class, xmin, ymin, xmax, ymax, ...]`` row
                each (normalised corners).

        Example::

            from PIL import Image
            Image.fromarray(np.zeros((16, 16, 3), np.uint8)).save('a.png')
            box = [2, 5, 0, 0.1, 0.1, 0.6, 0.6]   # header (2, 5) and one object
            it = mx.image.ImageDetIter(1, (3, 16, 16), imglist=[box + ['a.png']])
            data, label = it.augmentation_transform(nd.zeros((16, 16, 3)),
                                                     np.array([[0, 0.1, 0.1, 0.6, 0.6]]))
        """
        for aug in self.auglist:
            data, label = aug(data, label)
        return data, label

    def draw_next(self, color=None, thickness=2, mean=None, std=None, clip=True,
                  waitKey=None, window_name="draw_next", id2labels=None):
        """MXNet's box-drawing preview: not provided.

        Args:
            color: the boxes' colour in MXNet (unused: the call raises).
            thickness (int): the boxes' line width in MXNet (unused).
            mean: the mean added back before display in MXNet (unused).
            std: the standard deviation multiplied back in MXNet (unused).
            clip (bool): clip the pixel values to [0, 255] in MXNet (unused).
            waitKey: OpenCV's wait between images in MXNet (unused).
            window_name (str): OpenCV's window title in MXNet (unused).
            id2labels (dict): class index -> name for the captions in MXNet (unused).

        Raises:
            NotImplementedError: always; it draws and shows windows with OpenCV, which
                gluonlite does not use.

        Example::

            from PIL import Image
            Image.fromarray(np.zeros((16, 16, 3), np.uint8)).save('a.png')
            box = [2, 5, 0, 0.1, 0.1, 0.6, 0.6]   # header (2, 5) and one object
            it = mx.image.ImageDetIter(1, (3, 16, 16), imglist=[box + ['a.png']])
            try:
                it.draw_next()
            except NotImplementedError as err:
                print(err)   # suggests drawing batch.label[0] with matplotlib
        """
        raise NotImplementedError("ImageDetIter.draw_next: drawing boxes needs OpenCV's "
                                  "rectangle/putText/imshow, which gluonlite does not use; "
                                  "draw batch.label[0] on batch.data[0] with matplotlib")

    def sync_label_shape(self, it, verbose=False):
        """Give this iterator and `it` (another ImageDetIter) the same label shape, the
        larger object count of the two.

        Args:
            verbose (bool): log the new label shape when it grows (default False).

        Returns:
            `it`.

        Raises:
            TypeError: `it` is not an ImageDetIter.
            ValueError: the object widths differ.

        Example::

            from PIL import Image
            Image.fromarray(np.zeros((16, 16, 3), np.uint8)).save('a.png')
            box = [2, 5, 0, 0.1, 0.1, 0.6, 0.6]   # header (2, 5) and one object
            it = mx.image.ImageDetIter(1, (3, 16, 16), imglist=[box + ['a.png']])
            two = [2, 5, 0, .1, .1, .5, .5, 1, .5, .5, .9, .9, 'a.png']   # two objects
            other = mx.image.ImageDetIter(1, (3, 16, 16), imglist=[two])
            it.sync_label_shape(other); it.label_shape   # (2, 5)
        """
        if not isinstance(it, ImageDetIter):
            raise TypeError(f"ImageDetIter.sync_label_shape: it must be an ImageDetIter, got "
                            f"{type(it).__name__}")
        mine, theirs = self.label_shape, it.label_shape
        if mine[1] != theirs[1]:
            raise ValueError(f"ImageDetIter.sync_label_shape: object widths differ, {mine[1]} "
                             f"and {theirs[1]}")
        max_count = max(mine[0], theirs[0])
        if max_count > mine[0]:
            self.reshape(None, (max_count, mine[1]))
        if max_count > theirs[0]:
            it.reshape(None, (max_count, theirs[1]))
        if verbose and max_count > min(mine[0], theirs[0]):
            logging.info("Resized label_shape to (%d, %d).", max_count, mine[1])
        return it

