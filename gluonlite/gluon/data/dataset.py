"""Datasets: indexable collections of samples."""
__all__ = ["Dataset", "SimpleDataset", "ArrayDataset"]


class Dataset:
    """Base class: define ``__getitem__(idx)`` and ``__len__()``."""

    def __getitem__(self, idx):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError

    def transform(self, fn):
        """A dataset whose samples are ``fn(*sample)``."""
        return _Transformed(self, fn)


class _Transformed(Dataset):
    def __init__(self, data, fn):
        self._data, self._fn = data, fn

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        item = self._data[idx]
        return self._fn(*item) if isinstance(item, tuple) else self._fn(item)


class SimpleDataset(Dataset):
    """A dataset wrapping a list (or anything indexable with a length)."""

    def __init__(self, data):
        self._data = data

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        return self._data[idx]


class ArrayDataset(Dataset):
    """Samples taken at the same index from several arrays of equal length.

    ``ArrayDataset(x)[i] == x[i]``; ``ArrayDataset(x, y)[i] == (x[i], y[i])``. 1-D NDArrays
    are read as numpy so that their samples are scalars, as in MXNet.

    Raises:
        ValueError: no arrays, or arrays of different lengths.
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
