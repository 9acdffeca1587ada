"""Image datasets in MXNet's on-disk formats. Nothing is downloaded: a missing file is an
error naming it, where to put it and where MXNet would fetch it from.

Samples are ``(image, label)``: the image an HWC uint8 NDArray (RGB), the label an int32
(MNIST, CIFAR) or the record's float label; ``transform(image, label)`` is applied when given.
"""
import gzip
import os
import struct

import numpy as np

from ..dataset import Dataset, RecordFileDataset
from .... import ndarray as nd, recordio

__all__ = ["MNIST", "FashionMNIST", "CIFAR10", "CIFAR100", "ImageRecordDataset",
           "ImageFolderDataset"]

_MXNET_REPO = "https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/"


def _need(path, url, what, unpack=False):
    if not os.path.exists(path):
        how = "unpack it and place the file" if unpack else "place it"
        raise FileNotFoundError(
            f"{what}: {path!r} not found; gluonlite does not download: fetch {url}, {how} "
            f"at that path")
    return path


def _decode(buf, flag):
    img = recordio._decode(buf, 1 if flag else 0)
    if img.ndim == 2:
        img = img[:, :, None]
    return nd.array(img, dtype=np.uint8)


class _DownloadedDataset(Dataset):
    """Base: `_data` (NDArray of images) and `_label` (numpy) read by `_get_data`."""

    def __init__(self, root, transform):
        self._root = os.path.expanduser(root)
        self._transform = transform
        self._data = None
        self._label = None
        self._get_data()

    def __getitem__(self, idx):
        if self._transform is not None:
            return self._transform(self._data[idx], self._label[idx])
        return self._data[idx], self._label[idx]

    def __len__(self):
        return len(self._label)

    def _get_data(self):
        raise NotImplementedError


def _read_idx(path):
    with gzip.open(path, "rb") as f:
        raw = f.read()
    ndim = raw[3]
    dims = struct.unpack(">" + "I" * ndim, raw[4:4 + 4 * ndim])
    return np.frombuffer(raw[4 + 4 * ndim:], dtype=np.uint8).reshape(dims)


class MNIST(_DownloadedDataset):
    """The MNIST digits from their gzipped idx files in `root`
    (``train-images-idx3-ubyte.gz``, ``train-labels-idx1-ubyte.gz``, ``t10k-images-idx3-
    ubyte.gz``, ``t10k-labels-idx1-ubyte.gz``). Images are 28x28x1 uint8, labels int32.

    Args:
        root: the folder of the files.
        train: the training set (60000) or the test set (10000).
        transform: ``fn(image, label) -> sample``.

    Raises:
        FileNotFoundError: a file is missing (the message names it and its URL).

    Example::

        # not run: needs the four MNIST .gz files in root (gluonlite does not download)
        train = gluon.data.vision.MNIST(root='data/mnist', train=True)
        img, label = train[0]   # img: (28, 28, 1) uint8
    """

    _name = "mnist"
    _url = _MXNET_REPO + "gluon/dataset/mnist/"

    def __init__(self, root=os.path.join("~", ".mxnet", "datasets", "mnist"), train=True,
                 transform=None):
        self._train = train
        super().__init__(root, transform)

    def _get_data(self):
        prefix = "train" if self._train else "t10k"
        files = [f"{prefix}-images-idx3-ubyte.gz", f"{prefix}-labels-idx1-ubyte.gz"]
        paths = [_need(os.path.join(self._root, f), self._url + f, type(self).__name__)
                 for f in files]
        images = _read_idx(paths[0])
        self._label = _read_idx(paths[1]).astype(np.int32)
        self._data = nd.array(images.reshape(images.shape[0], 28, 28, 1), dtype=np.uint8)


class FashionMNIST(MNIST):
    """Fashion-MNIST (Zalando's clothing images), in MNIST's file names and format.

    Args:
        root: the folder of the four gzipped idx files (default
            ``~/.mxnet/datasets/fashion-mnist``).
        train: the training set (60000, default True) or the test set (10000).
        transform: ``fn(image, label) -> sample`` (default None: samples as read).

    Raises:
        FileNotFoundError: a file is missing (the message names it and its URL).

    Example::

        # not run: needs the Fashion-MNIST .gz files in root (gluonlite does not download)
        test = gluon.data.vision.FashionMNIST(root='data/fashion-mnist', train=False)
        len(test)   # 10000
    """

    _url = _MXNET_REPO + "gluon/dataset/fashion-mnist/"

    def __init__(self, root=os.path.join("~", ".mxnet", "datasets", "fashion-mnist"),
                 train=True, transform=None):
        super().__init__(root, train, transform)


class CIFAR10(_DownloadedDataset):
    """CIFAR-10 from its binary batches in ``root/cifar-10-batches-bin/``
    (``data_batch_1.bin`` ... ``data_batch_5.bin``, ``test_batch.bin``); images 32x32x3
    uint8, labels int32.

    Args:
        root: the folder holding ``cifar-10-batches-bin``.
        train: the 50000 training images or the 10000 test images.
        transform: ``fn(image, label) -> sample``.

    Raises:
        FileNotFoundError: a file is missing.

    Example::

        # not run: needs root/cifar-10-batches-bin (gluonlite does not download)
        train = gluon.data.vision.CIFAR10(root='data/cifar10')
        img, label = train[0]   # img: (32, 32, 3) uint8
    """

    _folder = "cifar-10-batches-bin"
    _archive = "cifar-10-binary.tar.gz"
    _labels = 1

    def __init__(self, root=os.path.join("~", ".mxnet", "datasets", "cifar10"), train=True,
                 transform=None):
        self._train = train
        super().__init__(root, transform)

    def _files(self):
        if self._train:
            return [f"data_batch_{i}.bin" for i in range(1, 6)]
        return ["test_batch.bin"]

    def _label_column(self):
        return 0

    def _get_data(self):
        url = _MXNET_REPO + f"gluon/dataset/{type(self).__name__.lower()}/{self._archive}"
        rows = []
        for f in self._files():
            path = _need(os.path.join(self._root, self._folder, f), url, type(self).__name__,
                         unpack=True)
            raw = np.fromfile(path, dtype=np.uint8)
            rows.append(raw.reshape(-1, self._labels + 3072))
        rows = np.concatenate(rows)
        self._label = rows[:, self._label_column()].astype(np.int32)
        images = rows[:, self._labels:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
        self._data = nd.array(np.ascontiguousarray(images), dtype=np.uint8)


class CIFAR100(CIFAR10):
    """CIFAR-100 from ``root/cifar-100-binary/`` (``train.bin``, ``test.bin``).

    Args:
        root: the folder holding ``cifar-100-binary``.
        fine_label: the 100 fine classes instead of the 20 coarse ones.
        train: the training set or the test set.
        transform: ``fn(image, label) -> sample``.

    Example::

        # not run: needs root/cifar-100-binary (gluonlite does not download)
        train = gluon.data.vision.CIFAR100(root='data/cifar100', fine_label=True)
        img, label = train[0]   # label in 0..99
    """

    _folder = "cifar-100-binary"
    _archive = "cifar-100-binary.tar.gz"
    _labels = 2

    def __init__(self, root=os.path.join("~", ".mxnet", "datasets", "cifar100"),
                 fine_label=False, train=True, transform=None):
        self._fine_label = fine_label
        super().__init__(root, train, transform)

    def _files(self):
        return ["train.bin" if self._train else "test.bin"]

    def _label_column(self):
        return 1 if self._fine_label else 0


class ImageRecordDataset(RecordFileDataset):
    """Images packed in a RecordIO file (``.rec`` with its ``.idx``), as MXNet's im2rec
    writes them: each sample is ``(image, label)`` with the image decoded to an HWC uint8
    NDArray (RGB; one channel when `flag` is 0) and the label from the record header.

    Args:
        filename: the ``.rec`` path.
        flag: 1 color (default), 0 grayscale.
        transform: ``fn(image, label) -> sample``.

    Raises:
        FileNotFoundError: the .rec or .idx is missing.
        ImportError: Pillow (the image codec) is not installed.

    Example::

        img = np.zeros((8, 8, 3), dtype=np.uint8)
        rec = mx.recordio.MXIndexedRecordIO('imgs.idx', 'imgs.rec', 'w')
        header = mx.recordio.IRHeader(0, 3.0, 0, 0)   # label 3.0
        rec.write_idx(0, mx.recordio.pack_img(header, img, img_fmt='.png'))
        rec.close()
        image, label = gluon.data.vision.ImageRecordDataset('imgs.rec')[0]
        image.shape, label   # ((8, 8, 3), 3.0)
    """

    def __init__(self, filename, flag=1, transform=None):
        super().__init__(filename)
        self._flag = flag
        self._transform = transform

    def __getitem__(self, idx):
        header, img = recordio.unpack(super().__getitem__(idx))
        label = header.label
        if self._transform is not None:
            return self._transform(_decode(img, self._flag), label)
        return _decode(img, self._flag), label


class ImageFolderDataset(Dataset):
    """Images in class folders: ``root/<class>/<image>``; labels index the sorted class
    names (`synsets`). Files with other extensions than `.jpg`, `.jpeg`, `.png` are skipped
    with a warning.

    Args:
        root: the top folder.
        flag: 1 color (default), 0 grayscale.
        transform: ``fn(image, label) -> sample``.

    Attributes:
        synsets: the class names. items: ``[(path, label)]``.

    Raises:
        FileNotFoundError: root does not exist.

    Example::

        import os
        from PIL import Image
        for cls in ('cat', 'dog'):
            os.makedirs(f'pets/{cls}', exist_ok=True)
            Image.new('RGB', (8, 6)).save(f'pets/{cls}/0.png')
        ds = gluon.data.vision.ImageFolderDataset('pets')
        ds.synsets, ds[1][0].shape, ds[1][1]   # (['cat', 'dog'], (6, 8, 3), 1)
    """

    def __init__(self, root, flag=1, transform=None):
        self._root = os.path.expanduser(root)
        if not os.path.isdir(self._root):
            raise FileNotFoundError(f"ImageFolderDataset: folder {self._root!r} does not exist")
        self._flag = flag
        self._transform = transform
        self._exts = [".jpg", ".jpeg", ".png"]
        self._list_images(self._root)

    def _list_images(self, root):
        import warnings
        self.synsets = []
        self.items = []
        for folder in sorted(os.listdir(root)):
            path = os.path.join(root, folder)
            if not os.path.isdir(path):
                warnings.warn(f"ImageFolderDataset: ignoring {path}, which is not a directory",
                              stacklevel=3)
                continue
            label = len(self.synsets)
            self.synsets.append(folder)
            for filename in sorted(os.listdir(path)):
                file_path = os.path.join(path, filename)
                if os.path.splitext(file_path)[1].lower() not in self._exts:
                    warnings.warn(f"ImageFolderDataset: ignoring {file_path} of unsupported "
                                  f"type; only {self._exts} are read", stacklevel=3)
                    continue
                self.items.append((file_path, label))

    def __getitem__(self, idx):
        path, label = self.items[idx]
        with open(path, "rb") as f:
            img = _decode(f.read(), self._flag)
        if self._transform is not None:
            return self._transform(img, label)
        return img, label

    def __len__(self):
        return len(self.items)
