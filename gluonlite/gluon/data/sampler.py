"""Samplers: the order of sample indices, and their grouping into batches."""
import numpy as np
__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "FilterSampler", "BatchSampler"]


class Sampler:
    """Base class: iterate over sample indices.

    Example::

        class EvenSampler(gluon.data.Sampler):
            def __init__(self, length): self._length = length
            def __iter__(self): return iter(range(0, self._length, 2))
            def __len__(self): return (self._length + 1) // 2
        list(EvenSampler(5))   # [0, 2, 4]
    """

    def __iter__(self):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """start, start+1, ..., start+length-1.

    Args:
        length: the number of indices.
        start: the first index (default 0).

    Example::

        list(gluon.data.SequentialSampler(3, start=2))   # [2, 3, 4]
    """

    def __init__(self, length, start=0):
        self._length = length
        self._start = start

    def __iter__(self):
        return iter(range(self._start, self._start + self._length))

    def __len__(self):
        return self._length


class RandomSampler(Sampler):
    """A random permutation of 0..length-1 each epoch, drawn as MXNet draws it: from
    NumPy's global generator (``numpy.random.seed`` makes it reproducible, and one seed gives
    MXNet's order).

    Args:
        length: the number of indices (the dataset's length).

    Example::

        np.random.seed(0)
        order = list(gluon.data.RandomSampler(5))   # 0..4 in a random order
        sorted(order)   # [0, 1, 2, 3, 4]
    """

    def __init__(self, length):
        self._length = length

    def __iter__(self):
        # numpy's global state, not MXNet's streams: MXNet's loaders shuffle with
        # numpy.random.shuffle, so code that seeds numpy expects that order.
        indices = np.arange(self._length)
        np.random.shuffle(indices)
        return iter(int(i) for i in indices)

    def __len__(self):
        return self._length


class FilterSampler(Sampler):
    """The indices of the samples of `dataset` for which ``fn(sample)`` is true (found once,
    when the sampler is made).

    Example::

        list(gluon.data.FilterSampler(lambda x: x > 1, [0, 5, 1, 7]))   # [1, 3]
    """

    def __init__(self, fn, dataset):
        self._indices = [i for i in range(len(dataset)) if fn(dataset[i])]

    def __iter__(self):
        return iter(self._indices)

    def __len__(self):
        return len(self._indices)


class BatchSampler(Sampler):
    """Group indices from `sampler` into lists of `batch_size`.

    Args:
        last_batch: 'keep' (a smaller last batch), 'discard' (drop it) or 'rollover'
            (carry the leftover indices into the next epoch).

    Raises:
        ValueError: an unknown last_batch.

    Example::

        sampler = gluon.data.SequentialSampler(7)
        list(gluon.data.BatchSampler(sampler, 3, 'keep'))   # [[0, 1, 2], [3, 4, 5], [6]]
        list(gluon.data.BatchSampler(sampler, 3, 'discard'))   # [[0, 1, 2], [3, 4, 5]]
    """

    def __init__(self, sampler, batch_size, last_batch="keep"):
        if last_batch not in ("keep", "discard", "rollover"):
            raise ValueError(f"BatchSampler: last_batch must be 'keep', 'discard' or "
                             f"'rollover', got {last_batch!r}")
        if int(batch_size) < 1:
            raise ValueError(f"BatchSampler: batch_size must be >= 1, got {batch_size}")
        self._sampler = sampler
        self._batch_size = int(batch_size)
        self._last_batch = last_batch
        self._prev = []

    def __iter__(self):
        batch, self._prev = self._prev, []
        for i in self._sampler:
            batch.append(i)
            if len(batch) == self._batch_size:
                yield batch
                batch = []
        if batch:
            if self._last_batch == "keep":
                yield batch
            elif self._last_batch == "rollover":
                self._prev = batch

    def __len__(self):
        n = len(self._sampler)
        if self._last_batch == "keep":
            return (n + self._batch_size - 1) // self._batch_size
        if self._last_batch == "discard":
            return n // self._batch_size
        return (len(self._prev) + n) // self._batch_size
