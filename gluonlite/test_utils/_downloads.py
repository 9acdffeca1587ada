"""Downloading test data (MXNet's `download`, `get_mnist`, ...) and where tools live.

These need the network; nothing in gluonlite's own tests calls them.
"""
import bz2
import gzip
import logging
import os
import struct
import zipfile

import numpy as np

__all__ = ["download", "download_model", "get_mnist", "get_mnist_pkl", "get_mnist_ubyte",
           "get_cifar10", "get_mnist_iterator", "get_zip_data", "get_bz2_data",
           "get_im2rec_path"]

_MNIST = "http://data.mxnet.io/data/mnist/"


def download(url, fname=None, dirname=None, overwrite=False, retries=5):
    """Download `url` to a file and return its path.

    Args:
        url: the address.
        fname: the file name (default: the last part of the URL).
        dirname: the folder (created if missing; default: fname's own folder).
        overwrite: download again when the file exists.
        retries: how many more attempts after a failure.

    Raises:
        ValueError: a negative `retries`.
        OSError: the last attempt's error (no network, HTTP error, ...).

    Example::

        import os
        open('a.txt', 'w').write('hello')
        url = 'file://' + os.path.abspath('a.txt')
        path = mx.test_utils.download(url, fname='b.txt', dirname='data')
        path, open(path).read()   # ('data/b.txt', 'hello')
    """
    import urllib.request
    if retries < 0:
        raise ValueError(f"download: retries must be >= 0, got {retries}")
    fname = fname or url.split("/")[-1]
    if dirname is None:
        dirname = os.path.dirname(fname)
    else:
        fname = os.path.join(dirname, fname)
    if dirname:
        os.makedirs(dirname, exist_ok=True)
    if not overwrite and os.path.exists(fname):
        logging.info("%s exists, skipping download", fname)
        return fname
    for attempt in range(retries + 1):
        try:
            with urllib.request.urlopen(url) as r, open(fname, "wb") as f:
                while True:
                    chunk = r.read(1 << 16)
                    if not chunk:
                        break
                    f.write(chunk)
            break
        except OSError:
            if attempt == retries:
                raise
            print(f"download failed, retrying, {retries - attempt} attempt(s) left")
    logging.info("downloaded %s into %s successfully", url, fname)
    return fname


def download_model(model_name, dst_dir="./", meta_info=None):
    """Download a model's symbol and parameter files.

    Args:
        model_name: the key in `meta_info`.
        dst_dir: the folder.
        meta_info: {model name: {'symbol': url, 'params': url}}; MXNet's own default table
            (data.mxnet.io) is not included: pass it.

    Returns:
        (symbol file, params file).

    Raises:
        ValueError: no entry for `model_name`.

    Example::

        # not run: downloads from the internet
        urls = {'my_net': {'symbol': 'http://.../my_net-symbol.json',
                            'params': 'http://.../my_net-0000.params'}}
        sym_file, params_file = mx.test_utils.download_model('my_net', 'models', meta_info=urls)
    """
    info = (meta_info or {}).get(model_name)
    if info is None:
        raise ValueError(f"download_model: no URLs for {model_name!r}; pass meta_info="
                         "{name: {'symbol': url, 'params': url}}")
    os.makedirs(dst_dir, exist_ok=True)
    sym = download(info["symbol"], dirname=dst_dir)
    params = download(info["params"], dirname=dst_dir)
    return sym, params


def _read_idx(label_url, image_url):
    with gzip.open(download(label_url)) as f:
        struct.unpack(">II", f.read(8))
        label = np.frombuffer(f.read(), dtype=np.int8)
    with gzip.open(download(image_url), "rb") as f:
        _, _, rows, cols = struct.unpack(">IIII", f.read(16))
        image = np.frombuffer(f.read(), dtype=np.uint8).reshape(len(label), 1, rows, cols)
    return label, image.astype(np.float32) / 255


def get_mnist():
    """MNIST as numpy arrays: {'train_data', 'train_label', 'test_data', 'test_label'}
    (images (n, 1, 28, 28) float32 in [0, 1], labels int8), downloaded on first use.

    Example::

        # not run: downloads MNIST from the internet
        mnist = mx.test_utils.get_mnist()
        mnist['train_data'].shape   # (60000, 1, 28, 28)
    """
    train_lbl, train_img = _read_idx(_MNIST + "train-labels-idx1-ubyte.gz",
                                     _MNIST + "train-images-idx3-ubyte.gz")
    test_lbl, test_img = _read_idx(_MNIST + "t10k-labels-idx1-ubyte.gz",
                                   _MNIST + "t10k-images-idx3-ubyte.gz")
    return {"train_data": train_img, "train_label": train_lbl,
            "test_data": test_img, "test_label": test_lbl}


def get_mnist_pkl():
    """Download MNIST's pickle (mnist.pkl.gz) into ./data (it is not loaded here: reading a
    pickle can run code).

    Example::

        # not run: downloads from the internet
        mx.test_utils.get_mnist_pkl()   # data/mnist.pkl.gz
    """
    if not os.path.exists("data/mnist.pkl.gz"):
        download("http://deeplearning.net/data/mnist/mnist.pkl.gz", dirname="data")


def _zip_into_data(url, wanted):
    os.makedirs("data", exist_ok=True)
    if not all(os.path.exists(os.path.join("data", w)) for w in wanted):
        with zipfile.ZipFile(download(url, dirname="data")) as zf:
            zf.extractall("data")


def get_mnist_ubyte():
    """Download and unpack MNIST's ubyte files into ./data.

    Example::

        # not run: downloads from the internet
        mx.test_utils.get_mnist_ubyte()   # data/train-images-idx3-ubyte, ...
    """
    _zip_into_data("http://data.mxnet.io/mxnet/data/mnist.zip",
                   ["train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                    "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"])


def get_cifar10():
    """Download and unpack CIFAR-10's RecordIO files into ./data/cifar.

    Example::

        # not run: downloads from the internet
        mx.test_utils.get_cifar10()   # data/cifar/train.rec, ...
    """
    _zip_into_data("http://data.mxnet.io/mxnet/data/cifar10.zip",
                   ["cifar/train.rec", "cifar/test.rec", "cifar/train.lst", "cifar/test.lst"])


def get_mnist_iterator(batch_size, input_shape, num_parts=1, part_index=0):
    """MXNet's (train, val) pair of `mx.io.MNISTIter` over MNIST's ubyte files in ./data
    (`get_mnist_ubyte` fetches them when they are missing): the training one shuffled.

    Args:
        batch_size: samples per batch.
        input_shape: a sample's shape: three axes, (1, 28, 28), give images; any other
            (784,) flat vectors.
        num_parts: default 1: split each set into this many equal parts.
        part_index: default 0: the part to read.

    Returns:
        (train, val): two `mx.io.MNISTIter`.

    Raises:
        FileNotFoundError: the files are missing and cannot be downloaded here.

    Example::

        # not run: needs MNIST's four files in ./data (or downloads them)
        train, val = mx.test_utils.get_mnist_iterator(100, (784,))
        train.provide_data[0].shape   # (100, 784)
    """
    from ..io import MNISTIter
    get_mnist_ubyte()
    flat = len(input_shape) != 3
    common = dict(input_shape=input_shape, batch_size=batch_size, flat=flat,
                  num_parts=num_parts, part_index=part_index)
    train = MNISTIter(image="data/train-images-idx3-ubyte",
                      label="data/train-labels-idx1-ubyte", shuffle=True, **common)
    val = MNISTIter(image="data/t10k-images-idx3-ubyte",
                    label="data/t10k-labels-idx1-ubyte", shuffle=False, **common)
    return train, val


def get_zip_data(data_dir, url, data_origin_name):
    """Download the zip file at `url` into `data_dir` (as `data_origin_name`) and unpack it
    there, unless that file is already present.

    Example::

        import os, zipfile
        with zipfile.ZipFile('pack.zip', 'w') as zf:
            zf.writestr('inside.txt', 'hello')
        url = 'file://' + os.path.abspath('pack.zip')
        mx.test_utils.get_zip_data('data', url, 'pack.zip')
        open('data/inside.txt').read()   # 'hello'
    """
    path = os.path.join(data_dir, data_origin_name)
    if not os.path.exists(path):
        download(url, dirname=data_dir, overwrite=False)
        with zipfile.ZipFile(path) as zf:
            zf.extractall(path=data_dir)


def get_bz2_data(data_dir, data_name, url, data_origin_name):
    """Download the bz2 file at `url` into `data_dir` and decompress it to `data_name`
    (the compressed file is removed), unless `data_name` is already there.

    Args:
        data_dir: the folder to put the file in.
        data_name: the name of the decompressed file.
        url: where the bz2 file is downloaded from.
        data_origin_name: the name the compressed file is downloaded as (removed after
            decompressing).

    Example::

        import bz2, os
        open('text.bz2', 'wb').write(bz2.compress(b'hello'))
        url = 'file://' + os.path.abspath('text.bz2')
        mx.test_utils.get_bz2_data(os.path.abspath('data'), 'text.txt', url, 'text.bz2')
        open('data/text.txt').read()   # 'hello'
    """
    target = os.path.join(data_dir, data_name)
    origin = os.path.join(data_dir, data_origin_name)
    if not os.path.exists(target):
        download(url, fname=origin, dirname=data_dir, overwrite=False)
        with bz2.BZ2File(origin, "rb") as src, open(target, "wb") as dst:
            for line in src:
                dst.write(line)
        os.remove(origin)


def get_im2rec_path(home_env="MXNET_HOME"):
    """The path of MXNet's tools/im2rec.py.

    Raises:
        OSError: it is not found (gluonlite does not ship it; set `home_env` to an MXNet
            source tree).

    Example::

        try:
            mx.test_utils.get_im2rec_path()
        except OSError:
            print('point MXNET_HOME at an MXNet source tree')
    """
    roots = [os.environ[home_env]] if home_env in os.environ else []
    roots.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for root in roots:
        for cand in (os.path.join(root, "tools", "im2rec.py"),
                     os.path.join(root, "..", "..", "tools", "im2rec.py")):
            if os.path.isfile(cand):
                return cand
    raise OSError(f"get_im2rec_path: tools/im2rec.py not found (gluonlite does not ship "
                  f"it); set {home_env} to an MXNet source tree")
