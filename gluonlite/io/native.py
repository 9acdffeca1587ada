"""The iterators MXNet implements in C++, here on numpy where that is cheap (`CSVIter`,
`MNISTIter`); the others raise NotImplementedError saying why."""
import gzip
import os
import struct

import numpy as np

from .io import DataIter, NDArrayIter

__all__ = ["CSVIter", "MNISTIter", "LibSVMIter", "MXDataIter", "ImageRecordIter",
           "ImageRecordIter_v1", "ImageRecordUInt8Iter", "ImageRecordUInt8Iter_v1",
           "ImageRecordInt8Iter", "ImageDetRecordIter"]


class _ArrayBackedIter(NDArrayIter):
    """An NDArrayIter over arrays read from files."""

    def __init__(self, data, label, batch_size, shuffle, round_batch, data_name, label_name):
        super().__init__(data, label, batch_size=batch_size, shuffle=shuffle,
                         last_batch_handle="pad" if round_batch else "discard",
                         data_name=data_name, label_name=label_name)


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


class CSVIter(_ArrayBackedIter):
    """Batches from CSV files: each row is one sample, reshaped to `data_shape`.

    Args:
        data_csv: the data file.
        data_shape: the shape of one sample.
        label_csv: the label file (default: zero labels).
        label_shape: the shape of one label (default (1,)).
        batch_size: samples per batch.
        round_batch: fill the last batch from the start (``pad`` says how many); False
            drops it.
        dtype: 'float32' (default), 'int32', 'int64' or 'uint8'.
        shuffle: shuffle the rows at each reset.

    Raises:
        FileNotFoundError: a file is missing.
        ValueError: a row's length does not match the shape.

    Example: ``mx.io.CSVIter(data_csv='x.csv', data_shape=(3,), batch_size=4)``.
    """

    def __init__(self, data_csv, data_shape, label_csv=None, label_shape=(1,), batch_size=1,
                 round_batch=True, dtype="float32", shuffle=False, data_name="data",
                 label_name="softmax_label", **kwargs):
        data_shape = _shape(data_shape, "data_shape", "CSVIter")
        label_shape = _shape(label_shape, "label_shape", "CSVIter")
        data = _read_csv(data_csv, data_shape, dtype, "CSVIter", "data")
        if label_csv is None or label_csv == "NULL":
            label = np.zeros((data.shape[0],) + label_shape, dtype=dtype)
        else:
            label = _read_csv(label_csv, label_shape, dtype, "CSVIter", "label")
        if label_shape == (1,):
            label = label.reshape(-1)
        super().__init__(data, label, int(batch_size), shuffle, round_batch, data_name,
                         label_name)


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
    """Batches of MNIST from its idx files (optionally gzipped), scaled to [0, 1].

    Args:
        image, label: the idx files.
        batch_size: samples per batch.
        shuffle: shuffle at each reset.
        flat: samples of shape (784,) instead of (1, 28, 28).
        num_parts, part_index: read only part `part_index` of `num_parts` equal parts.

    Raises:
        FileNotFoundError: a file is missing.

    Example: ``mx.io.MNISTIter(image='train-images-idx3-ubyte',
    label='train-labels-idx1-ubyte', batch_size=32)``.
    """

    def __init__(self, image="./train-images-idx3-ubyte", label="./train-labels-idx1-ubyte",
                 batch_size=128, shuffle=True, flat=False, seed=0, silent=False, num_parts=1,
                 part_index=0, data_name="data", label_name="softmax_label", **kwargs):
        images = _read_idx(image, "MNISTIter").astype(np.float32) / 255.0
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
        super().__init__(images, labels, int(batch_size), False, True, data_name, label_name)


def _refused(name, why):
    class _Refused(DataIter):
        def __init__(self, *args, **kwargs):
            raise NotImplementedError(f"mx.io.{name}: {why}")
    _Refused.__name__ = _Refused.__qualname__ = name
    _Refused.__doc__ = f"Not available in gluonlite: {why}"
    return _Refused


_IMAGE_WHY = ("MXNet's C++ image record pipeline (decoding and augmentation threads) is not "
              "part of gluonlite; read the .rec with gluon.data.vision.ImageRecordDataset and "
              "a DataLoader, wrapped by mx.contrib.io.DataLoaderIter for Module code")
LibSVMIter = _refused("LibSVMIter", "it yields CSR sparse batches and gluonlite has dense "
                      "storage only")
MXDataIter = _refused("MXDataIter", "it wraps a C++ iterator handle; gluonlite has no C++ "
                      "backend")
ImageRecordIter = _refused("ImageRecordIter", _IMAGE_WHY)
ImageRecordIter_v1 = _refused("ImageRecordIter_v1", _IMAGE_WHY)
ImageRecordUInt8Iter = _refused("ImageRecordUInt8Iter", _IMAGE_WHY)
ImageRecordUInt8Iter_v1 = _refused("ImageRecordUInt8Iter_v1", _IMAGE_WHY)
ImageRecordInt8Iter = _refused("ImageRecordInt8Iter", _IMAGE_WHY)
ImageDetRecordIter = _refused("ImageDetRecordIter", _IMAGE_WHY)
