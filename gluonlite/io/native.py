"""The iterators MXNet implements in C++, here in Python on numpy (`CSVIter`, `LibSVMIter`,
`MNISTIter`, `ImageRecordIter` with its common augmentations); the others raise
NotImplementedError saying why.

As MXNet's C++ iterators (its `MXDataIter`), `CSVIter`, `LibSVMIter` and `ImageRecordIter`
give one array from `getdata()` and `getlabel()`; their batches hold lists of one."""
import gzip
import os
import struct

import numpy as np

from ..base import MXNetValueError
from .io import DataBatch, DataIter, NDArrayIter, DataDesc
from .. import ndarray as nd
from ..ndarray import sparse
from ..recordio import MXIndexedRecordIO, MXRecordIO, _decode, unpack

__all__ = ["CSVIter", "MNISTIter", "LibSVMIter", "MXDataIter", "ImageRecordIter",
           "ImageRecordIter_v1", "ImageRecordUInt8Iter", "ImageRecordUInt8Iter_v1",
           "ImageRecordInt8Iter", "ImageDetRecordIter"]


class _ArrayBackedIter(NDArrayIter):
    """An NDArrayIter over arrays read from files."""

    def __init__(self, data, label, batch_size, shuffle, round_batch, data_name, label_name):
        super().__init__(data, label, batch_size=batch_size, shuffle=shuffle,
                         last_batch_handle="pad" if round_batch else "discard",
                         data_name=data_name, label_name=label_name)


class _NativeIter(DataIter):
    """What MXNet's C++ iterators share: `getdata` and `getlabel` give one array each."""

    def next(self):
        """The next `DataBatch` (its data and label lists of one array).

        Raises:
            StopIteration: the epoch is over.
        """
        if self.iter_next():
            return DataBatch(data=[self.getdata()], label=[self.getlabel()],
                             pad=self.getpad(), index=self.getindex())
        raise StopIteration


def _cyclic_batch(cursor, n, batch_size):
    """The rows of the batch starting at row `cursor` of a cyclic stream of `n` rows, as MXNet's
    C++ iterators with round_batch read them: (row indices, pad), the pad rows taken from the
    start."""
    end = cursor + batch_size
    return np.arange(cursor, end) % n, max(0, end - n)


def _shape(value, what, name):
    if isinstance(value, str):
        value = tuple(int(v) for v in value.strip("()[] ").split(",") if v.strip())
    try:
        return tuple(int(v) for v in value)
    except TypeError:
        raise TypeError(f"{name}: {what} must be a tuple of ints, got {value!r}") from None


def _read_csv(path, shape, dtype, name, what):
    if not os.path.exists(path):
        raise FileNotFoundError(f"{name}: {what} file {path!r} does not exist")
    rows = np.loadtxt(path, delimiter=",", dtype=np.float64, ndmin=2)
    size = int(np.prod(shape))
    if rows.shape[1] != size:
        raise ValueError(f"{name}: each row of {path!r} has {rows.shape[1]} values but "
                         f"{what}_shape {shape} needs {size}")
    return rows.reshape((rows.shape[0],) + shape).astype(dtype)


class CSVIter(_NativeIter):
    """Batches from CSV files: each row is one sample, reshaped to `data_shape`.

    As MXNet's C++ iterator, the rows form a cyclic stream: with `round_batch` the last
    batch of an epoch is completed from the start (``pad`` says how many) and the next epoch
    begins after those rows; without it, the last batch is short by ``pad`` rows, which keep
    the previous batch's values.

    Args:
        data_csv: the data file.
        data_shape: the shape of one sample.
        label_csv: the label file (default: zero labels).
        label_shape: the shape of one label (default (1,): labels of shape (batch_size,)).
        batch_size: samples per batch.
        round_batch: see above (default True).
        dtype: 'float32' (default), 'int32', 'int64' or 'uint8'.
        data_name (str): the data's name in `provide_data` (default ``'data'``).
        label_name (str): the label's name in `provide_label` (default
            ``'softmax_label'``).

    Raises:
        FileNotFoundError: a file is missing.
        ValueError: a row's length does not match the shape.

    Example::

        open('x.csv', 'w').write('1,2,3\\n4,5,6\\n7,8,9\\n')
        it = mx.io.CSVIter(data_csv='x.csv', data_shape=(3,), batch_size=2)
        [batch.pad for batch in it]   # [0, 1]: the last batch ends with row 0 again
    """

    def __init__(self, data_csv, data_shape, label_csv=None, label_shape=(1,), batch_size=1,
                 round_batch=True, dtype="float32", data_name="data",
                 label_name="softmax_label", **kwargs):
        super().__init__(int(batch_size))
        data_shape = _shape(data_shape, "data_shape", "CSVIter")
        label_shape = _shape(label_shape, "label_shape", "CSVIter")
        self._data = _read_csv(data_csv, data_shape, dtype, "CSVIter", "data")
        if label_csv is None or label_csv == "NULL":
            self._label = np.zeros((self._data.shape[0],) + label_shape, dtype=dtype)
        else:
            self._label = _read_csv(label_csv, label_shape, dtype, "CSVIter", "label")
        if label_shape == (1,):
            self._label = self._label.reshape(-1)
        self.round_batch = round_batch
        self.dtype = dtype
        self.data_name, self.label_name = data_name, label_name
        self._start = 0
        self._cursor = 0
        self._prev = None
        self._current = None

    @property
    def provide_data(self):
        """``[DataDesc(data_name, (batch_size,) + data_shape)]``.

        Example::

            open('x.csv', 'w').write('1,2,3\\n4,5,6\\n')
            mx.io.CSVIter(data_csv='x.csv', data_shape=(3,), batch_size=2).provide_data
            # [DataDesc[data,(2, 3),<class 'numpy.float32'>,NCHW]]
        """
        return [DataDesc(self.data_name, (self.batch_size,) + self._data.shape[1:],
                         np.dtype(self.dtype).type)]

    @property
    def provide_label(self):
        """``[DataDesc(label_name, (batch_size,) + label_shape)]``.

        Example::

            open('x.csv', 'w').write('1,2,3\\n4,5,6\\n')
            mx.io.CSVIter(data_csv='x.csv', data_shape=(3,), batch_size=2).provide_label
            # [DataDesc[softmax_label,(2,),<class 'numpy.float32'>,NCHW]]
        """
        return [DataDesc(self.label_name, (self.batch_size,) + self._label.shape[1:],
                         np.dtype(self.dtype).type)]

    def reset(self):
        """Start a new epoch; after a padded (``round_batch``) last batch it starts where the
        padding stopped, as MXNet's C++ iterator does.

        Example::

            open('x.csv', 'w').write('1,2,3\\n4,5,6\\n7,8,9\\n')
            it = mx.io.CSVIter(data_csv='x.csv', data_shape=(3,), batch_size=2)
            list(it); it.reset()
            it.next().data[0]   # [[4. 5. 6.] [7. 8. 9.]]: row 0 ended the last epoch
        """
        self._cursor = self._start
        self._start = 0

    def iter_next(self):
        """Read the next batch of rows; a short last batch is filled from the start
        (``round_batch``) or keeps the previous batch's rows past the data.

        Returns:
            False at the end of the epoch, else True.

        Example::

            open('x.csv', 'w').write('1,2,3\\n4,5,6\\n7,8,9\\n')
            it = mx.io.CSVIter(data_csv='x.csv', data_shape=(3,), batch_size=2)
            while it.iter_next():
                x = it.getdata()   # rows 0-1, then rows 2 and 0
        """
        n = len(self._data)
        if self._cursor >= n:
            return False
        end = self._cursor + self.batch_size
        pad = max(0, end - n)
        if pad and self.round_batch:
            idx, _ = _cyclic_batch(self._cursor, n, self.batch_size)
            self._start = pad
        elif pad:
            idx = np.arange(self._cursor, n)
        else:
            idx = np.arange(self._cursor, end)
        data, label = self._data[idx], self._label[idx]
        if pad and not self.round_batch:
            # the rows past the data keep what the previous batch left there
            prev = self._prev or (np.zeros_like(self._data[:self.batch_size]),
                                  np.zeros_like(self._label[:self.batch_size]))
            data = np.concatenate([data, prev[0][len(idx):]])
            label = np.concatenate([label, prev[1][len(idx):]])
        self._cursor = end
        self._current = (data, label, pad)
        self._prev = (data, label)
        return True

    def getdata(self):
        """The current batch's data: one NDArray (as MXNet's C++ iterators).

        Example::

            open('x.csv', 'w').write('1,2,3\\n4,5,6\\n')
            it = mx.io.CSVIter(data_csv='x.csv', data_shape=(3,), batch_size=2)
            it.iter_next(); it.getdata()   # [[1. 2. 3.] [4. 5. 6.]]
        """
        return nd.array(self._current[0], dtype=self.dtype)

    def getlabel(self):
        """The current batch's labels: one NDArray.

        Example::

            open('x.csv', 'w').write('1,2,3\\n4,5,6\\n'); open('y.csv', 'w').write('0\\n1\\n')
            it = mx.io.CSVIter(data_csv='x.csv', data_shape=(3,), label_csv='y.csv',
                               batch_size=2)
            it.iter_next(); it.getlabel()   # [0. 1.]
        """
        return nd.array(self._current[1], dtype=self.dtype)

    def getpad(self):
        """How many rows at the end of the current batch are not this epoch's data.

        Example::

            open('x.csv', 'w').write('1,2,3\\n4,5,6\\n7,8,9\\n')
            it = mx.io.CSVIter(data_csv='x.csv', data_shape=(3,), batch_size=2)
            it.iter_next(); it.iter_next(); it.getpad()   # 1
        """
        return self._current[2]


def _read_idx(path, name):
    opener = gzip.open if path.endswith(".gz") else open
    if not os.path.exists(path):
        raise FileNotFoundError(f"{name}: file {path!r} does not exist (MNIST's idx files, "
                                f"e.g. train-images-idx3-ubyte, are not downloaded here)")
    with opener(path, "rb") as f:
        magic = f.read(4)
        if len(magic) != 4 or magic[:2] != b"\0\0" or magic[2] != 8:
            raise ValueError(f"{name}: {path!r} is not an idx file of uint8 values")
        ndim = magic[3]
        dims = struct.unpack(">" + "I" * ndim, f.read(4 * ndim))
        return np.frombuffer(f.read(), dtype=np.uint8).reshape(dims)


class MNISTIter(_ArrayBackedIter):
    """Batches of MNIST from its idx files (raw, as MXNet reads them, or gzipped), pixels
    scaled by 1/256 as MXNet's iterator does; a last partial batch is dropped.

    Args:
        image (str): the images' idx file (default ``'./train-images-idx3-ubyte'``).
        label (str): the labels' idx file (default ``'./train-labels-idx1-ubyte'``).
        batch_size: samples per batch.
        shuffle: shuffle once, when loading, with numpy's RandomState(seed) (MXNet's
            order comes from its own C++ generator, so shuffled orders differ).
        flat: samples of shape (784,) instead of (1, 28, 28).
        seed (int): the seed of the shuffle (default 0).
        silent (bool): MXNet's switch for its loading messages; accepted, nothing is
            printed either way.
        num_parts (int): split the samples into this many equal parts (default 1).
        part_index (int): read only this part (default 0).
        data_name (str): the data's name in `provide_data` (default ``'data'``).
        label_name (str): the label's name in `provide_label` (default
            ``'softmax_label'``).

    Raises:
        FileNotFoundError: a file is missing.

    Example::

        import struct   # two tiny idx files: 4 black images, labels 0..3
        open('img-idx3-ubyte', 'wb').write(bytes([0, 0, 8, 3]) + struct.pack('>3I', 4, 28, 28)
                                           + bytes(4 * 784))
        open('lbl-idx1-ubyte', 'wb').write(bytes([0, 0, 8, 1]) + struct.pack('>I', 4)
                                           + bytes([0, 1, 2, 3]))
        it = mx.io.MNISTIter(image='img-idx3-ubyte', label='lbl-idx1-ubyte', batch_size=2)
        it.next().data[0].shape   # (2, 1, 28, 28)
    """

    def __init__(self, image="./train-images-idx3-ubyte", label="./train-labels-idx1-ubyte",
                 batch_size=128, shuffle=True, flat=False, seed=0, silent=False, num_parts=1,
                 part_index=0, data_name="data", label_name="softmax_label", **kwargs):
        images = _read_idx(image, "MNISTIter").astype(np.float32) * np.float32(1 / 256)
        labels = _read_idx(label, "MNISTIter").astype(np.float32)
        images = images.reshape((images.shape[0], -1) if flat else
                                (images.shape[0], 1) + images.shape[1:])
        step = images.shape[0] // num_parts
        part = slice(step * part_index, step * (part_index + 1))
        if shuffle:
            np.random.RandomState(seed).shuffle(perm := np.arange(step))
            images, labels = images[part][perm], labels[part][perm]
        else:
            images, labels = images[part], labels[part]
        super().__init__(images, labels, int(batch_size), False, False, data_name, label_name)


_AUG_DEFAULTS = {"random_resized_crop": False, "max_rotate_angle": 0, "max_aspect_ratio": 0,
                 "min_aspect_ratio": None, "max_shear_ratio": 0, "max_crop_size": -1,
                 "min_crop_size": -1, "max_random_scale": 1, "min_random_scale": 1,
                 "max_random_area": 1, "min_random_area": 1, "brightness": 0, "contrast": 0,
                 "saturation": 0, "pca_noise": 0, "random_h": 0, "random_s": 0, "random_l": 0,
                 "rotate": -1, "pad": 0, "max_random_contrast": 0,
                 "max_random_illumination": 0, "mean_img": "", "path_imglist": ""}
_IGNORED = {"preprocess_threads", "prefetch_buffer", "verbose", "device_id", "ctx",
            "shuffle_chunk_size", "shuffle_chunk_seed", "seed_aug", "aug_seq", "fill_value",
            "max_img_size", "min_img_size", "dtype"}


class ImageRecordIter(_NativeIter):
    """Batches of images from an image RecordIO file (as im2rec writes it), decoded,
    resized, cropped, mirrored and normalised as MXNet's C++ iterator does, in Python
    (Pillow decodes; one thread).

    Each image: the shorter side resized to `resize` (when > 0, bilinear); a crop of
    `data_shape`'s height and width, centred or (`rand_crop`) random; mirrored when
    `mirror`, or at random with `rand_mirror`; then per channel (RGB order)
    ``(x - mean) * scale / std``, laid out CHW.

    Args:
        path_imgrec (str): the .rec file.
        path_imgidx (str): its .idx file, needed for `shuffle` and parts (default ``''``:
            none, the records are read in order).
        data_shape: (channels, height, width); channels 3 (RGB) or 1 (grey).
        batch_size: images per batch.
        label_width: labels per image.
        shuffle: a new order each epoch (numpy's random state seeded with `seed`).
        round_batch: fill the last batch from the start (``pad`` says how many); else
            drop it.
        seed (int): the seed of the shuffling's random state (default 0).
        resize (int): resize the shorter side to this first (default -1: no resize).
        rand_crop (bool): crop at a random place (default False: the centre).
        rand_mirror (bool): mirror each image with probability 0.5 (default False).
        mirror (bool): mirror every image (default False).
        mean_r (float): subtracted from the red channel (default 0).
        mean_g (float): subtracted from the green channel (default 0).
        mean_b (float): subtracted from the blue channel (default 0).
        mean_a (float): subtracted from a fourth (alpha) channel (default 0).
        std_r (float): the red channel's divisor after the scale (default 1).
        std_g (float): the green channel's divisor (default 1).
        std_b (float): the blue channel's divisor (default 1).
        std_a (float): a fourth channel's divisor (default 1).
        scale (float): multiplies each centred value (default 1).
        inter_method (int): the resize's interpolation: 0 nearest, 1 bilinear (default).
        num_parts (int): split the records into this many equal parts (default 1).
        part_index (int): read only this part (default 0).
        data_name (str): the data's name in `provide_data` (default ``'data'``).
        label_name (str): the label's name in `provide_label` (default
            ``'softmax_label'``).

    Raises:
        NotImplementedError: an augmentation option gluonlite lacks (rotation, shear,
            random scale or area, colour jitter, PCA noise, HSL, padding, mean images),
            set to other than its default.
        FileNotFoundError: the record file is missing.
        ValueError: an image smaller than the crop.

    Example::

        w = mx.recordio.MXRecordIO('img.rec', 'w')
        for i in range(3):
            img = np.full((12, 12, 3), 60 * i, np.uint8)
            w.write(mx.recordio.pack_img((0, float(i), i, 0), img, img_fmt='.png'))
        w.close()
        it = mx.io.ImageRecordIter(path_imgrec='img.rec', data_shape=(3, 8, 8), batch_size=2,
                                   rand_crop=True, rand_mirror=True)
        it.next().data[0].shape   # (2, 3, 8, 8)
    """


    _out_dtype = np.float32

    def __init__(self, path_imgrec, data_shape, batch_size, path_imgidx="", label_width=1,
                 shuffle=False, seed=0, round_batch=True, resize=-1, rand_crop=False,
                 rand_mirror=False, mirror=False, mean_r=0.0, mean_g=0.0, mean_b=0.0,
                 mean_a=0.0, std_r=1.0, std_g=1.0, std_b=1.0, std_a=1.0, scale=1.0,
                 inter_method=1, num_parts=1, part_index=0, data_name="data",
                 label_name="softmax_label", **kwargs):
        super().__init__(int(batch_size))
        name = type(self).__name__
        for key, value in kwargs.items():
            if key in _AUG_DEFAULTS:
                if value != _AUG_DEFAULTS[key]:
                    raise NotImplementedError(f"{name}: {key}={value!r} is not implemented in "
                                              f"gluonlite; use gluon.data.vision.transforms")
            elif key not in _IGNORED:
                raise TypeError(f"{name}: unknown argument {key!r}")
        self.data_shape = tuple(int(d) for d in data_shape)
        if len(self.data_shape) != 3 or self.data_shape[0] not in (1, 3):
            raise ValueError(f"{name}: data_shape must be (channels, height, width) with 1 or "
                             f"3 channels, got {data_shape}")
        if path_imgidx:
            rec = MXIndexedRecordIO(path_imgidx, path_imgrec, "r")
            self._records = [rec.read_idx(k) for k in rec.keys]
        else:
            if shuffle:
                raise ValueError(f"{name}: shuffle needs path_imgidx")
            rec = MXRecordIO(path_imgrec, "r")
            self._records = list(iter(rec.read, None))
        rec.close()
        n = len(self._records) // num_parts
        self._records = self._records[n * part_index:n * (part_index + 1)]
        self.label_width = label_width
        self.shuffle, self.round_batch = shuffle, round_batch
        self.resize, self.rand_crop = resize, rand_crop
        self.rand_mirror, self.mirror = rand_mirror, mirror
        self.mean = np.array([mean_r, mean_g, mean_b, mean_a][:self.data_shape[0]],
                             np.float32).reshape(-1, 1, 1)
        self.std = np.array([std_r, std_g, std_b, std_a][:self.data_shape[0]],
                            np.float32).reshape(-1, 1, 1)
        self.scale, self.inter_method = scale, inter_method
        self._rng = np.random.RandomState(seed)
        self.data_name, self.label_name = data_name, label_name
        self._order = np.arange(len(self._records))
        self._cursor = 0
        self._batch = None
        self.reset()

    @property
    def provide_data(self):
        """``[DataDesc(data_name, (batch_size,) + data_shape)]``.

        Example::

            w = mx.recordio.MXRecordIO('img.rec', 'w')
            w.write(mx.recordio.pack_img((0, 1.0, 0, 0), np.zeros((8, 8, 3), np.uint8)))
            w.close()
            it = mx.io.ImageRecordIter(path_imgrec='img.rec', data_shape=(3, 8, 8), batch_size=2)
            it.provide_data   # [DataDesc[data,(2, 3, 8, 8),<class 'numpy.float32'>,NCHW]]
        """
        return [DataDesc(self.data_name, (self.batch_size,) + self.data_shape, self._out_dtype)]

    @property
    def provide_label(self):
        """``[DataDesc(label_name, (batch_size,) or (batch_size, label_width))]``.

        Example::

            w = mx.recordio.MXRecordIO('img.rec', 'w')
            w.write(mx.recordio.pack_img((0, 1.0, 0, 0), np.zeros((8, 8, 3), np.uint8)))
            w.close()
            it = mx.io.ImageRecordIter(path_imgrec='img.rec', data_shape=(3, 8, 8), batch_size=2)
            it.provide_label   # [DataDesc[softmax_label,(2,),<class 'numpy.float32'>,NCHW]]
        """
        shape = (self.batch_size,) if self.label_width == 1 else \
            (self.batch_size, self.label_width)
        return [DataDesc(self.label_name, shape, np.float32)]

    def reset(self):
        """Start a new epoch, in a new random order when `shuffle`.

        Example::

            w = mx.recordio.MXIndexedRecordIO('img.idx', 'img.rec', 'w')
            for i in range(4):
                img = np.zeros((8, 8, 3), np.uint8)
                w.write_idx(i, mx.recordio.pack_img((0, float(i), i, 0), img))
            w.close()
            it = mx.io.ImageRecordIter(path_imgrec='img.rec', path_imgidx='img.idx',
                                       data_shape=(3, 8, 8), batch_size=2, shuffle=True)

            list(it); it.reset()   # the next epoch, in a new order
        """
        if self.shuffle:
            self._rng.shuffle(self._order)
        self._cursor = 0

    def _image(self, record):
        header, payload = unpack(record)
        img = _decode(payload, 1 if self.data_shape[0] == 3 else 0)
        if img.ndim == 2:
            img = img[:, :, None]
        x = nd.array(img, dtype=np.uint8)
        h, w = img.shape[:2]
        if self.resize > 0:
            if h < w:
                size = (int(w * self.resize / h), self.resize)
            else:
                size = (self.resize, int(h * self.resize / w))
            x = nd.image.resize(x, size=size, interp=self.inter_method)
            h, w = x.shape[0], x.shape[1]
        ch, cw = self.data_shape[1:]
        if h < ch or w < cw:
            raise ValueError(f"{type(self).__name__}: an image of {h}x{w} is smaller than the "
                             f"crop {ch}x{cw}; set resize")
        if self.rand_crop:
            y0, x0 = self._rng.randint(0, h - ch + 1), self._rng.randint(0, w - cw + 1)
        else:
            y0, x0 = (h - ch) // 2, (w - cw) // 2
        out = x.asnumpy()[y0:y0 + ch, x0:x0 + cw]
        if self.mirror or (self.rand_mirror and self._rng.rand() < 0.5):
            out = out[:, ::-1]
        label = np.asarray(header.label, np.float32).reshape(-1)[:self.label_width]
        return self._normalise(np.transpose(out, (2, 0, 1))), label

    def _normalise(self, chw):
        return ((chw.astype(np.float32) - self.mean) * np.float32(self.scale) / self.std)

    def iter_next(self):
        """Decode and augment the next batch of records; the last batch wraps to the first
        records with `round_batch`, and is dropped without it.

        Returns:
            False at the end of the epoch, else True.

        Raises:
            ValueError: an image smaller than the crop.

        Example::

            w = mx.recordio.MXRecordIO('img.rec', 'w')
            for i in range(3):
                w.write(mx.recordio.pack_img((0, float(i), i, 0), np.zeros((8, 8, 3), np.uint8)))
            w.close()
            it = mx.io.ImageRecordIter(path_imgrec='img.rec', data_shape=(3, 8, 8), batch_size=2)
            while it.iter_next():
                x = it.getdata()   # twice, (2, 3, 8, 8); the second wraps to record 0
        """
        n = len(self._records)
        if self._cursor >= n or (not self.round_batch and self._cursor + self.batch_size > n):
            return False
        idx = [self._order[(self._cursor + i) % n] for i in range(self.batch_size)]
        self._pad = max(0, self._cursor + self.batch_size - n)
        self._cursor += self.batch_size
        self._batch = [self._image(self._records[i]) for i in idx]
        return True

    def getdata(self):
        """The current batch's images: one NDArray (as MXNet's C++ iterators).

        Example::

            w = mx.recordio.MXRecordIO('img.rec', 'w')
            w.write(mx.recordio.pack_img((0, 1.0, 0, 0), np.zeros((8, 8, 3), np.uint8)))
            w.close()
            it = mx.io.ImageRecordIter(path_imgrec='img.rec', data_shape=(3, 8, 8), batch_size=1)
            it.iter_next(); it.getdata().shape   # (1, 3, 8, 8)
        """
        data = np.stack([b[0] for b in self._batch])
        return nd.array(data, dtype=self._out_dtype)

    def getlabel(self):
        """The current batch's labels: one NDArray.

        Example::

            w = mx.recordio.MXRecordIO('img.rec', 'w')
            w.write(mx.recordio.pack_img((0, 7.0, 0, 0), np.zeros((8, 8, 3), np.uint8)))
            w.close()
            it = mx.io.ImageRecordIter(path_imgrec='img.rec', data_shape=(3, 8, 8), batch_size=1)
            it.iter_next(); it.getlabel()   # [7.]
        """
        label = np.stack([b[1] for b in self._batch])
        return nd.array(label[:, 0] if self.label_width == 1 else label)

    def getpad(self):
        """How many images at the end of the current batch wrapped around to the first records.

        Example::

            w = mx.recordio.MXRecordIO('img.rec', 'w')
            for i in range(3):
                w.write(mx.recordio.pack_img((0, float(i), i, 0), np.zeros((8, 8, 3), np.uint8)))
            w.close()
            it = mx.io.ImageRecordIter(path_imgrec='img.rec', data_shape=(3, 8, 8), batch_size=2)
            [batch.pad for batch in it]   # [0, 1]
        """
        return self._pad


class ImageRecordUInt8Iter(ImageRecordIter):
    """`ImageRecordIter` giving uint8 batches without mean/std/scale normalisation.

    Args:
        path_imgrec (str): the .rec file.
        data_shape (tuple of int): (channels, height, width); channels 3 or 1.
        batch_size (int): images per batch.
        path_imgidx (str): the .idx file, needed for `shuffle` (default ``''``: none).
        label_width (int): labels per image (default 1).
        shuffle (bool): a new order each epoch (default False).
        seed (int): the seed of the shuffling (default 0).
        round_batch (bool): fill the last batch from the start (default True); else drop
            it.
        resize (int): resize the shorter side to this first (default -1: no resize).
        rand_crop (bool): crop at a random place (default False: the centre).
        rand_mirror (bool): mirror with probability 0.5 (default False).
        mirror (bool): mirror every image (default False).
        mean_r: ignored: no normalisation here (as for every `mean_*`).
        mean_g: ignored.
        mean_b: ignored.
        mean_a: ignored.
        std_r: ignored: no normalisation here (as for every `std_*`).
        std_g: ignored.
        std_b: ignored.
        std_a: ignored.
        scale: ignored.
        inter_method (int): the resize's interpolation: 0 nearest, 1 bilinear (default).
        num_parts (int): split the records into this many equal parts (default 1).
        part_index (int): read only this part (default 0).
        data_name (str): the data's name in `provide_data` (default ``'data'``).
        label_name (str): the label's name in `provide_label` (default
            ``'softmax_label'``).

    Example::

        w = mx.recordio.MXRecordIO('img.rec', 'w')
        w.write(mx.recordio.pack_img((0, 1.0, 0, 0), np.full((8, 8, 3), 9, np.uint8)))
        w.close()
        it = mx.io.ImageRecordUInt8Iter(path_imgrec='img.rec', data_shape=(3, 8, 8),
                                        batch_size=1)
        it.next().data[0].dtype   # numpy.uint8
    """

    _out_dtype = np.uint8

    def _normalise(self, chw):
        return chw


def _refused(name, why):
    class _Refused(DataIter):
        def __init__(self, *args, **kwargs):
            raise NotImplementedError(f"mx.io.{name}: {why}")
    _Refused.__name__ = _Refused.__qualname__ = name
    _Refused.__doc__ = (f"Not available in gluonlite: {why}\n\n"
                        f"Example::\n\n"
                        f"    try:\n"
                        f"        mx.io.{name}()\n"
                        f"    except NotImplementedError as err:\n"
                        f"        print(err)   # says why, and what to use instead\n")
    return _Refused


_IMAGE_WHY = ("this variant of MXNet's C++ image record pipeline is not part of gluonlite; "
              "use ImageRecordIter, or gluon.data.vision.ImageRecordDataset with a "
              "DataLoader (mx.contrib.io.DataLoaderIter makes it a DataIter)")
MXDataIter = _refused("MXDataIter", "it wraps a C++ iterator handle; gluonlite has no C++ "
                      "backend")
# MXNet's first-generation iterators: the same reading and augmentation here
ImageRecordIter_v1 = ImageRecordIter
ImageRecordUInt8Iter_v1 = ImageRecordUInt8Iter
ImageRecordInt8Iter = _refused("ImageRecordInt8Iter", _IMAGE_WHY)
ImageDetRecordIter = _refused("ImageDetRecordIter", _IMAGE_WHY)


def _part_lines(paths, num_parts, part_index):
    """The lines of part `part_index` of `num_parts` of the files `paths` read as one text, as
    dmlc splits text for MXNet: the bytes are cut in equal steps and each cut moved past the
    next newline at or after it, so a part holds the lines that start in its range."""
    text = b"".join(open(p, "rb").read() for p in paths)
    step = -(-len(text) // num_parts)

    def cut(x):
        if x <= 0 or x >= len(text):
            return min(max(x, 0), len(text))
        nl = text.find(b"\n", x)
        return len(text) if nl < 0 else nl + 1
    begin, end = cut(step * part_index), cut(step * (part_index + 1))
    return text[begin:end].decode().splitlines()


def _read_libsvm(path, width, num_parts, part_index, what):
    """(labels, values, column indices, row pointers) of a libsvm text file (or a directory
    of them) with zero-based column indices below `width`."""
    if not os.path.exists(path):
        raise FileNotFoundError(f"LibSVMIter: {what} file {path!r} does not exist")
    paths = ([os.path.join(path, f) for f in sorted(os.listdir(path))]
             if os.path.isdir(path) else [path])
    labels, values, cols, indptr = [], [], [], [0]
    for number, line in enumerate(_part_lines(paths, num_parts, part_index), 1):
        tokens = line.split("#", 1)[0].split()
        if not tokens:
            continue
        labels.append(float(tokens[0].split(":", 1)[0]))  # a "label:weight" keeps the label
        for tok in tokens[1:]:
            if tok.startswith("qid:"):
                continue
            col, _, val = tok.partition(":")
            try:
                col, val = int(col), float(val)
            except ValueError:
                raise MXNetValueError(f"LibSVMIter: line {number} of {path!r}: expected "
                                      f"'index:value', got {tok!r}") from None
            if not 0 <= col < width:
                raise MXNetValueError(f"LibSVMIter: line {number} of {path!r} has column index "
                                 f"{col} but the {what}_shape allows 0..{width - 1} "
                                 f"(indices are zero-based)")
            cols.append(col)
            values.append(val)
        indptr.append(len(cols))
    return (np.asarray(labels, np.float32), np.asarray(values, np.float32),
            np.asarray(cols, np.int64), np.asarray(indptr, np.int64))


class _CSRRows:
    """Rows of a csr matrix held as numpy parts, taken in batches as CSRNDArrays."""

    def __init__(self, values, cols, indptr, width):
        self.values, self.cols, self.indptr, self.width = values, cols, indptr, width

    def __len__(self):
        return len(self.indptr) - 1

    def take(self, rows):
        starts, ends = self.indptr[rows], self.indptr[rows + 1]
        pick = np.concatenate([np.arange(a, b) for a, b in zip(starts, ends)] +
                              [np.zeros(0, np.int64)])
        indptr = np.concatenate([[0], np.cumsum(ends - starts)]).astype(np.int64)
        return sparse.csr_matrix((self.values[pick], self.cols[pick], indptr),
                                 shape=(len(rows), self.width), dtype=np.float32)


class LibSVMIter(_NativeIter):
    """Batches of csr rows read from libsvm text (``label col:value col:value ...`` per line,
    column indices zero-based and ascending), as MXNet's C++ LibSVMIter.

    The data of a batch is a CSRNDArray of shape (batch_size,) + data_shape. Labels are the
    first column of the data file (a dense NDArray of shape (batch_size,)), or, with
    `label_libsvm`, the rows of that libsvm file (a CSRNDArray; its first column is ignored).
    As MXNet's, the rows form a cyclic stream: the last batch of an epoch is completed from
    the start (``pad`` says how many) and the next epoch begins after those rows.

    Args:
        data_libsvm: the data file, or a directory whose files are read in name order.
        data_shape: the 1-D shape of one sample (its number of columns).
        label_libsvm: the label file (default 'NULL': labels from the data file).
        label_shape: the 1-D shape of one label: (1,) without a label file, wider with one.
        batch_size: rows per batch.
        round_batch: must be True (as in MXNet 1.9.1).
        num_parts, part_index: read only part `part_index` of `num_parts` (cut by bytes at
            line boundaries, as MXNet: the parts need not be even).
        data_name (str): the data's name in `provide_data` (default ``'data'``).
        label_name (str): the label's name in `provide_label` (default
            ``'softmax_label'``).

    Raises:
        FileNotFoundError: a file is missing.
        MXNetValueError: a shape that is not 1-D, a label_shape that does not fit the label
            file (or its absence), round_batch=False, a bad part, a column index outside
            the shape, a label file with fewer rows than the data.

    Example::

        open('data.t', 'w').write('1 0:1.5 2:2\\n0 1:3\\n')
        it = mx.io.LibSVMIter(data_libsvm='data.t', data_shape=(3,), batch_size=2)
        batch = it.next()       # batch.data[0]: a 2x3 CSRNDArray, batch.label[0]: (2,)
    """

    def __init__(self, data_libsvm, data_shape, label_libsvm="NULL", label_shape=(1,),
                 batch_size=1, round_batch=True, num_parts=1, part_index=0, data_name="data",
                 label_name="softmax_label", **kwargs):
        super().__init__(int(batch_size))
        data_shape = _shape(data_shape, "data_shape", "LibSVMIter")
        label_shape = _shape(label_shape, "label_shape", "LibSVMIter")
        if len(data_shape) != 1:
            raise MXNetValueError(f"LibSVMIter: data_shape must be 1-D, got {data_shape}")
        if not round_batch:
            raise MXNetValueError("LibSVMIter: round_batch=False is not supported (as in MXNet "
                                  "1.9.1: the sparse batch loader always rounds batches)")
        if not (int(num_parts) > 0 and 0 <= int(part_index) < int(num_parts)):
            raise MXNetValueError(f"LibSVMIter: part_index must be in [0, num_parts), got "
                                  f"part_index={part_index}, num_parts={num_parts}")
        with_labels = label_libsvm not in (None, "NULL")
        size = int(np.prod(label_shape))
        if with_labels and (len(label_shape) != 1 or size <= 1):
            raise MXNetValueError(f"LibSVMIter: with label_libsvm, label_shape must be 1-D and "
                                  f"wider than (1,), got {label_shape}")
        if not with_labels and size != 1:
            raise MXNetValueError(f"LibSVMIter: without label_libsvm, label_shape must be (1,) "
                                  f"(labels come from the data file), got {label_shape}")
        labels, *parts = _read_libsvm(data_libsvm, data_shape[0], int(num_parts),
                                      int(part_index), "data")
        self._data = _CSRRows(*parts, data_shape[0])
        if not len(self._data):
            raise MXNetValueError(f"LibSVMIter: no rows in {data_libsvm!r}")
        if with_labels:
            _, *lparts = _read_libsvm(label_libsvm, label_shape[0], int(num_parts),
                                      int(part_index), "label")
            self._label = _CSRRows(*lparts, label_shape[0])
            if len(self._label) < len(self._data):
                raise MXNetValueError(f"LibSVMIter: {label_libsvm!r} has {len(self._label)} "
                                      f"rows but {data_libsvm!r} has {len(self._data)}")
        else:
            self._label = labels
        self.data_shape, self.label_shape = data_shape, label_shape
        self.data_name, self.label_name = data_name, label_name
        self._start = self._cursor = 0
        self._current = None

    @property
    def provide_data(self):
        """``[DataDesc(data_name, (batch_size,) + data_shape)]``.

        Example::

            open('data.t', 'w').write('1 0:1.5 2:2\\n0 1:3\\n')
            mx.io.LibSVMIter(data_libsvm='data.t', data_shape=(3,), batch_size=2).provide_data
            # [DataDesc[data,(2, 3),<class 'numpy.float32'>,NCHW]]
        """
        return [DataDesc(self.data_name, (self.batch_size,) + self.data_shape, np.float32)]

    @property
    def provide_label(self):
        """``[DataDesc(label_name, (batch_size,) or (batch_size,) + label_shape)]``.

        Example::

            open('data.t', 'w').write('1 0:1.5 2:2\\n0 1:3\\n')
            mx.io.LibSVMIter(data_libsvm='data.t', data_shape=(3,), batch_size=2).provide_label
            # [DataDesc[softmax_label,(2,),<class 'numpy.float32'>,NCHW]]
        """
        shape = (self.batch_size,) + (self.label_shape if isinstance(self._label, _CSRRows)
                                      else ())
        return [DataDesc(self.label_name, shape, np.float32)]

    def reset(self):
        """Start a new epoch; after a padded last batch it starts where the padding stopped.

        Example::

            open('data.t', 'w').write('1 0:1\\n0 1:2\\n1 2:3\\n')
            it = mx.io.LibSVMIter(data_libsvm='data.t', data_shape=(3,), batch_size=2)
            list(it); it.reset()
            it.next().label[0]   # [0. 1.]: rows 1 and 2, as row 0 ended the last epoch
        """
        self._cursor, self._start = self._start, 0

    def iter_next(self):
        """Take the next batch of rows, wrapping to the first rows to fill the last batch.

        Returns:
            False at the end of the epoch, else True.

        Example::

            open('data.t', 'w').write('1 0:1\\n0 1:2\\n1 2:3\\n')
            it = mx.io.LibSVMIter(data_libsvm='data.t', data_shape=(3,), batch_size=2)
            while it.iter_next():
                x = it.getdata()   # rows 0-1, then rows 2 and 0
        """
        if self._cursor >= len(self._data):
            return False
        rows, pad = _cyclic_batch(self._cursor, len(self._data), self.batch_size)
        self._cursor += self.batch_size
        if pad:
            self._start = pad % len(self._data)
        self._current = (rows, pad)
        return True

    def getdata(self):
        """The current batch's data: one CSRNDArray.

        Example::

            open('data.t', 'w').write('1 0:1.5 2:2\\n0 1:3\\n')
            it = mx.io.LibSVMIter(data_libsvm='data.t', data_shape=(3,), batch_size=2)
            it.iter_next(); it.getdata().asnumpy()   # [[1.5 0. 2.] [0. 3. 0.]]
        """
        return self._data.take(self._current[0])

    def getlabel(self):
        """The current batch's labels: a CSRNDArray with a label file, else an NDArray.

        Example::

            open('data.t', 'w').write('1 0:1.5 2:2\\n0 1:3\\n')
            it = mx.io.LibSVMIter(data_libsvm='data.t', data_shape=(3,), batch_size=2)
            it.iter_next(); it.getlabel()   # [1. 0.]
        """
        if isinstance(self._label, _CSRRows):
            return self._label.take(self._current[0])
        return nd.array(self._label[self._current[0]], dtype=np.float32)

    def getpad(self):
        """How many rows at the end of the current batch wrapped around to the first rows.

        Example::

            open('data.t', 'w').write('1 0:1\\n0 1:2\\n1 2:3\\n')
            it = mx.io.LibSVMIter(data_libsvm='data.t', data_shape=(3,), batch_size=2)
            [batch.pad for batch in it]   # [0, 1]
        """

        return self._current[1]
