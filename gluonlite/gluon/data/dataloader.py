"""`DataLoader`: batches of samples from a Dataset, stacked into NDArrays."""
import numpy as np

from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader", "default_batchify_fn"]


def default_batchify_fn(data):
    """Stack a list of samples: NDArrays with nd.stack, tuples field by field, anything else
    through numpy (keeping its dtype)."""
    from ... import ndarray as nd
    first = data[0]
    if isinstance(first, nd.NDArray):
        return nd.stack(*data)
    if isinstance(first, tuple):
        return [default_batchify_fn(list(field)) for field in zip(*data)]
    arr = np.asarray(data)
    return nd.array(arr, dtype=arr.dtype)


class DataLoader:
    """Iterate over a dataset in mini-batches.

    Args:
        dataset: a Dataset (anything with __getitem__ and __len__).
        batch_size: samples per batch.
        shuffle: a new random order each epoch.
        sampler: a custom index sampler (instead of shuffle).
        last_batch: 'keep' (default), 'discard' or 'rollover'.
        batch_sampler: a custom sampler of index lists (instead of the above).
        batchify_fn: how to merge samples (default: `default_batchify_fn`).
        num_workers: accepted for compatibility; loading is in-process.

    Example::

        loader = gluon.data.DataLoader(gluon.data.ArrayDataset(x, y), batch_size=4,
                                       shuffle=True, last_batch='discard')
        for xb, yb in loader: ...

    Raises:
        ValueError: conflicting or missing arguments.
    """

    def __init__(self, dataset, batch_size=None, shuffle=False, sampler=None, last_batch=None,
                 batch_sampler=None, batchify_fn=None, num_workers=0, pin_memory=False,
                 prefetch=None, thread_pool=False, timeout=120):
        self._dataset = dataset
        if batch_sampler is None:
            if batch_size is None:
                raise ValueError("DataLoader: batch_size must be given when batch_sampler is not")
            if sampler is None:
                sampler = RandomSampler(len(dataset)) if shuffle else \
                    SequentialSampler(len(dataset))
            elif shuffle:
                raise ValueError("DataLoader: shuffle must not be set when a sampler is given")
            batch_sampler = BatchSampler(sampler, batch_size,
                                         last_batch if last_batch else "keep")
        elif batch_size is not None or shuffle or sampler is not None or last_batch is not None:
            raise ValueError("DataLoader: batch_size, shuffle, sampler and last_batch must not "
                             "be given together with batch_sampler")
        self._batch_sampler = batch_sampler
        self._batchify_fn = batchify_fn or default_batchify_fn

    def __iter__(self):
        for batch in self._batch_sampler:
            yield self._batchify_fn([self._dataset[i] for i in batch])

    def __len__(self):
        return len(self._batch_sampler)
