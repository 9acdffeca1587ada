"""Datasets: indexable collections of samples, and the views MXNet's Dataset methods make
(`filter`, `shard`, `take`, `sample`, `transform`, `transform_first`)."""
import os
from ... import recordio
from .sampler import FilterSampler, SequentialSampler

__all__ = ["Dataset", "SimpleDataset", "ArrayDataset", "RecordFileDataset"]


class Dataset:
    """Base class: define ``__getitem__(idx)`` and ``__len__()``.

    Example::

        class Squares(gluon.data.Dataset):
            def __len__(self): return 10
            def __getitem__(self, i): return i * i
    """

    def __getitem__(self, idx):
        raise NotImplementedError(f"{type(self).__name__}.__getitem__ is not defined")

    def __len__(self):
        raise NotImplementedError(f"{type(self).__name__}.__len__ is not defined")

    def filter(self, fn):
        """A dataset of the samples for which ``fn(sample)`` is true (scanned once, now).

        Example::

            ds = gluon.data.SimpleDataset(range(100)).filter(lambda x: x % 10 == 0)
            len(ds), ds[1]   # (10, 10)
        """
        return _SampledDataset(self, FilterSampler(fn, self))

    def shard(self, num_shards, index):
        """Shard `index` of `num_shards` contiguous parts; the first ``len % num_shards``
        shards hold one sample more.

        Raises:
            ValueError: num_shards < 1, or index not in [0, num_shards).

        Example::

            ds = gluon.data.SimpleDataset(range(9))
            list(ds.shard(4, 0)), list(ds.shard(4, 3))   # ([0, 1, 2], [7, 8])
        """
        if num_shards < 1:
            raise ValueError(f"Dataset.shard: num_shards must be > 0, got {num_shards}")
        if not 0 <= index < num_shards:
            raise ValueError(f"Dataset.shard: index must be in [0, {num_shards}), got {index}")
        length = len(self)
        size, rest = divmod(length, num_shards)
        start = size * index + min(index, rest)
        end = start + size + (index < rest)
        return _SampledDataset(self, SequentialSampler(end - start, start))

    def take(self, count):
        """The first `count` samples (all of them when count is None or larger).

        Example::

            ds = gluon.data.SimpleDataset(range(100)).take(10)
            len(ds)   # 10
        """
        if count is None or count > len(self):
            count = len(self)
        return _SampledDataset(self, SequentialSampler(count))

    def sample(self, sampler):
        """The samples at the indices `sampler` yields (a Sampler or an iterable of ints).

        Example::

            ds = gluon.data.SimpleDataset(['a', 'b', 'c'])
            list(ds.sample(gluon.data.SequentialSampler(2, start=1)))   # ['b', 'c']
        """
        return _SampledDataset(self, sampler)

    def transform(self, fn, lazy=True):
        """A dataset whose samples are ``fn(*sample)`` (a tuple sample is unpacked).

        Args:
            fn: the function.
            lazy: apply on each access (True) or once to every sample now (False).

        Example::

            ds = gluon.data.ArrayDataset([1, 2, 3], [0, 1, 0])
            ds.transform(lambda x, y: (x * 2, y))[2]   # (6, 0)
        """
        trans = _LazyTransformDataset(self, fn)
        if lazy:
            return trans
        return SimpleDataset([trans[i] for i in range(len(trans))])

    def transform_first(self, fn, lazy=True):
        """Like `transform`, applied to the first element of each sample only (the data,
        leaving the label).

        Args:
            fn: the function applied to each sample's first element.
            lazy: apply on each access (True, default) or once to every sample now (False).

        Returns:
            the transformed Dataset.

        Example::

            from gluonlite.gluon.data.vision import transforms
            images = nd.zeros((4, 8, 8, 3), dtype='uint8')   # HWC images
            ds = gluon.data.ArrayDataset(images, nd.arange(4))
            ds = ds.transform_first(transforms.ToTensor())
            ds[0][0].shape   # (3, 8, 8)
        """
        return self.transform(_TransformFirstClosure(fn), lazy)


class SimpleDataset(Dataset):
    """A dataset wrapping a list (or anything indexable with a length).

    Args:
        data: the samples: a list, an array, or anything with ``__getitem__`` and
            ``__len__``.

    Example::

        ds = gluon.data.SimpleDataset([1, 2, 3])
        ds[1], len(ds)   # (2, 3)
    """

    def __init__(self, data):
        self._data = data

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        return self._data[idx]


class _LazyTransformDataset(Dataset):
    def __init__(self, data, fn):
        self._data, self._fn = data, fn

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        item = self._data[idx]
        return self._fn(*item) if isinstance(item, tuple) else self._fn(item)


class _TransformFirstClosure:
    # a class rather than a closure, so that worker processes can pickle it
    def __init__(self, fn):
        self._fn = fn

    def __call__(self, x, *args):
        return (self._fn(x),) + args if args else self._fn(x)


class _SampledDataset(Dataset):
    def __init__(self, dataset, sampler):
        self._dataset = dataset
        self._indices = list(sampler)

    def __len__(self):
        return len(self._indices)

    def __getitem__(self, idx):
        return self._dataset[self._indices[idx]]


class ArrayDataset(Dataset):
    """Samples taken at the same index from several arrays of equal length.

    ``ArrayDataset(x)[i] == x[i]``; ``ArrayDataset(x, y)[i] == (x[i], y[i])``. 1-D NDArrays
    are read as numpy so that their samples are scalars, as in MXNet.

    Raises:
        ValueError: no arrays, or arrays of different lengths.

    Example::

        ds = gluon.data.ArrayDataset(np.zeros((10, 3)), np.arange(10))
        x, y = ds[4]
        x.shape   # (3,)
        int(y)   # 4
    """

    def __init__(self, *args):
        if not args:
            raise ValueError("ArrayDataset: needs at least one array")
        self._length = len(args[0])
        self._data = []
        for i, data in enumerate(args):
            if len(data) != self._length:
                raise ValueError(f"ArrayDataset: all arrays must have the same length; array 0 "
                                 f"has {self._length} but array {i} has {len(data)}")
            if hasattr(data, "asnumpy") and len(data.shape) == 1:
                data = data.asnumpy()
            self._data.append(data)

    def __getitem__(self, idx):
        if len(self._data) == 1:
            return self._data[0][idx]
        return tuple(d[idx] for d in self._data)

    def __len__(self):
        return self._length


class RecordFileDataset(Dataset):
    """The raw records of an MXNet RecordIO file (``.rec`` with its ``.idx`` beside it).

    Args:
        filename: the ``.rec`` path; the index is the same path with ``.idx``.

    Raises:
        FileNotFoundError: either file is missing.

    Example::

        record = mx.recordio.MXIndexedRecordIO('data.idx', 'data.rec', 'w')
        record.write_idx(0, b'first'); record.write_idx(1, b'second'); record.close()
        ds = gluon.data.RecordFileDataset('data.rec')
        len(ds), ds[1]   # (2, b'second')
    """

    def __init__(self, filename):
        self.idx_file = os.path.splitext(filename)[0] + ".idx"
        self.filename = filename
        self._record = recordio.MXIndexedRecordIO(self.idx_file, self.filename, "r")

    def __getitem__(self, idx):
        return self._record.read_idx(self._record.keys[idx])

    def __len__(self):
        return len(self._record.keys)
