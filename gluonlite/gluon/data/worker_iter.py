"""MXNet's multi-worker batch iterator protocol, for libraries that subclass it.

gluonlite's `DataLoader` runs its own pool (see dataloader.py). GluonCV and GluonNLP import
MXNet's internal pieces instead and build loaders on them: ``_MultiWorkerIter`` (subclassed
by GluonCV's RandomTransformDataLoader, which overrides ``_push_next``), the worker function
and initializer that keep the dataset in a global of each worker process, and
``ForkingPickler``. They keep MXNet's attribute names (``_worker_pool``, ``_data_buffer``,
``_sent_idx``, ``_rcvd_idx``, ``_iter``), which the subclasses read and write.

Example::

    import multiprocessing.pool
    from gluonlite.gluon.data import BatchSampler, SequentialSampler
    from gluonlite.gluon.data.dataloader import default_batchify_fn
    from gluonlite.gluon.data.worker_iter import _MultiWorkerIter, _thread_worker_fn
    data = gluon.data.ArrayDataset(nd.arange(10))
    pool = multiprocessing.pool.ThreadPool(2)
    it = _MultiWorkerIter(pool, default_batchify_fn, BatchSampler(SequentialSampler(10), 4),
                          worker_fn=_thread_worker_fn, prefetch=2, dataset=data)
    [b.shape for b in it]          # [(4,), (4,), (2,)]
    pool.terminate()
"""
import io
import multiprocessing
import multiprocessing.pool
import pickle
from multiprocessing.reduction import ForkingPickler
from ...context import cpu_pinned

__all__ = []

# The dataset a worker process serves, set once per process by `_worker_initializer`.
_worker_dataset = None


def _worker_initializer(dataset, active_shape=None, active_array=None):
    """Keep `dataset` for the `_worker_fn` calls of this worker process.

    Args:
        dataset: the dataset every task of this process reads.
        active_shape, active_array: MXNet's NumPy-semantics switches of the parent (the
            legacy dialect ignores them).
    """
    global _worker_dataset
    _worker_dataset = dataset


def _worker_fn(samples, batchify_fn, dataset=None):
    """Batch the samples at indices `samples` of the worker's dataset; return it pickled.

    Returns:
        bytes: the batch, pickled with ForkingPickler (as MXNet's workers send it).
    """
    batch = batchify_fn([_worker_dataset[i] for i in samples])
    buf = io.BytesIO()
    ForkingPickler(buf, pickle.HIGHEST_PROTOCOL).dump(batch)
    return buf.getvalue()


def _thread_worker_fn(samples, batchify_fn, dataset):
    """Batch the samples at indices `samples` of `dataset` (a thread pool's task)."""
    return batchify_fn([dataset[i] for i in samples])


class _MultiWorkerIter:
    """Iterates over batches computed by `worker_pool`, in the sampler's order.

    Args:
        worker_pool: a ``multiprocessing`` pool (or ThreadPool) with ``apply_async``.
        batchify_fn: turns a list of samples into a batch.
        batch_sampler: yields lists of sample indices.
        pin_memory (bool): move each batch to ``cpu_pinned(pin_device_id)``.
        pin_device_id (int): see `pin_memory`.
        worker_fn: called in the pool as ``worker_fn(indices, batchify_fn, dataset)``; it
            returns the batch pickled when `dataset` is None, else the batch itself.
        prefetch (int): tasks submitted ahead at construction.
        dataset: passed to `worker_fn` (None for process pools, whose workers hold it).
        data_loader: the loader, kept alive while iterating.
        timeout (float): seconds to wait for one batch.

    Raises:
        multiprocessing.TimeoutError: (from ``next``) a batch took longer than `timeout`.
    """

    def __init__(self, worker_pool, batchify_fn, batch_sampler, pin_memory=False,
                 pin_device_id=0, worker_fn=_worker_fn, prefetch=0, dataset=None,
                 data_loader=None, timeout=120):
        self._worker_pool = worker_pool
        self._batchify_fn = batchify_fn
        self._batch_sampler = batch_sampler
        self._data_buffer = {}
        self._rcvd_idx = 0
        self._sent_idx = 0
        self._iter = iter(batch_sampler)
        self._worker_fn = worker_fn
        self._pin_memory = pin_memory
        self._pin_device_id = pin_device_id
        self._dataset = dataset
        self._data_loader = data_loader
        self._timeout = timeout
        for _ in range(prefetch):
            self._push_next()

    def __len__(self):
        return len(self._batch_sampler)

    def _push_next(self):
        """Submit the next batch of indices to the pool (nothing when the sampler is done)."""
        indices = next(self._iter, None)
        if indices is None:
            return
        self._data_buffer[self._sent_idx] = self._worker_pool.apply_async(
            self._worker_fn, (indices, self._batchify_fn, self._dataset))
        self._sent_idx += 1

    def __next__(self):
        self._push_next()
        if self._rcvd_idx == self._sent_idx:
            raise StopIteration
        pending = self._data_buffer.pop(self._rcvd_idx)
        try:
            result = pending.get(self._timeout)
        except multiprocessing.TimeoutError:
            raise multiprocessing.TimeoutError(
                f"DataLoader worker: batch {self._rcvd_idx} not ready after {self._timeout} s; "
                "raise `timeout` for slow transforms, or lower num_workers") from None
        except BaseException:
            self._worker_pool.terminate()
            raise
        batch = pickle.loads(result) if self._dataset is None else result
        if self._pin_memory:
            from .dataloader import _as_in_context
            batch = _as_in_context(batch, cpu_pinned(self._pin_device_id))
        self._rcvd_idx += 1
        return batch

    next = __next__

    def __iter__(self):
        return self
