"""`DataLoader`: batches of samples from a Dataset, stacked into NDArrays, loaded in the
calling process, in a pool of threads or in a pool of worker processes.

Worker processes are forked with the dataset (so it is not pickled); each task is one batch
of indices, and its result comes back pickled. A worker error reaches the caller as a
`DataLoaderWorkerError` naming the sample index; on any error, Ctrl-C included, or when the
loader is dropped, the pool is terminated so that no process is left behind.
"""
import multiprocessing
import multiprocessing.pool
import signal
import traceback

import numpy as np

from .sampler import BatchSampler, RandomSampler, SequentialSampler
from ... import ndarray as nd
from ...context import Context
from ...util import is_np_array
from ...ops import mxnet_rng, random as _random
# MXNet's internal loader pieces, which GluonCV and GluonNLP import from this module.
from .worker_iter import (ForkingPickler, _MultiWorkerIter, _worker_fn,  # noqa: F401
                          _worker_initializer, _thread_worker_fn)

__all__ = ["DataLoader", "default_batchify_fn", "default_mp_batchify_fn",
           "DataLoaderWorkerError"]


class DataLoaderWorkerError(RuntimeError):
    """A sample failed to load or batchify in a DataLoader worker; the message names the
    sample index and carries the worker's traceback.

    Example::

        from gluonlite.gluon.data.dataloader import DataLoaderWorkerError
        class Broken(gluon.data.Dataset):
            def __len__(self): return 4
            def __getitem__(self, i): raise IOError(f'cannot read sample {i}')
        loader = gluon.data.DataLoader(Broken(), batch_size=2, num_workers=1, thread_pool=True)
        try:
            next(iter(loader))
        except DataLoaderWorkerError as e:
            print('failed:', e)   # the message names the sample that failed
    """


def default_batchify_fn(data):
    """Stack a list of samples: NDArrays with nd.stack, tuples field by field, anything else
    through numpy (keeping its dtype); under NumPy array semantics mx.np.stack / mx.np.array,
    giving mx.np arrays.

    Args:
        data: a list of samples (all of one kind: arrays, tuples of fields, or numbers /
            numpy arrays).

    Returns:
        one batch: an array whose first axis indexes the samples, or for tuple samples a
        list with one such array per field.

    Example::

        from gluonlite.gluon.data.dataloader import default_batchify_fn
        x, y = default_batchify_fn([(nd.zeros(3), 0), (nd.ones(3), 1)])
        x.shape, y.asnumpy()   # ((2, 3), array([0, 1]))
    """
    first = data[0]
    if isinstance(first, nd.NDArray):
        if is_np_array():  # NumPy array semantics: mx.np arrays, as MXNet's
            return nd.np.stack(data)
        return nd.stack(*data)
    if isinstance(first, tuple):
        return [default_batchify_fn(list(field)) for field in zip(*data)]
    arr = np.asarray(data)
    if is_np_array():
        return nd.np.array(arr, dtype=arr.dtype)
    return nd.array(arr, dtype=arr.dtype)


# MXNet stacks into shared memory for worker processes; here the pickled result is the
# transport, so the multi-process default is the same function.
default_mp_batchify_fn = default_batchify_fn


def _as_in_context(data, ctx):
    if hasattr(data, "as_in_context"):
        return data.as_in_context(ctx)
    if isinstance(data, (list, tuple)):
        return [_as_in_context(d, ctx) for d in data]
    return data


def _load_batch(dataset, samples, batchify_fn):
    items = []
    for i in samples:
        try:
            items.append(dataset[i])
        except Exception as e:
            raise DataLoaderWorkerError(
                f"DataLoader: loading sample index {i} failed with {type(e).__name__}: {e}\n"
                f"{traceback.format_exc()}") from None
    try:
        return batchify_fn(items)
    except Exception as e:
        raise DataLoaderWorkerError(
            f"DataLoader: batchify_fn failed on the batch of sample indices {list(samples)} "
            f"with {type(e).__name__}: {e}\n{traceback.format_exc()}") from None


def _worker_loop(dataset, batchify_fn, conn, seed):
    # Ctrl-C is the parent's to handle: it terminates the workers
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # a fork copies the random state: without a seed of its own, every worker would draw
    # the same "random" augmentations (as MXNet 1.9.1's workers do: which worker loads which
    # batch is the pool's choice there, so no worker draws MXNet's numbers anyway)
    words = seed.generate_state(2)
    np.random.seed(words[0])
    mxnet_rng.seed(int(words[1]))
    while True:
        try:
            samples = conn.recv()
        except (EOFError, OSError):
            return
        if samples is None:
            return
        try:
            conn.send((True, _load_batch(dataset, samples, batchify_fn)))
        except Exception as e:  # noqa: BLE001 (every error goes back to the caller)
            conn.send((False, e if isinstance(e, DataLoaderWorkerError) else
                       DataLoaderWorkerError(f"DataLoader worker: {type(e).__name__}: {e}")))


class _ProcessPool:
    """Forked worker processes, one pipe each, tasks dealt round-robin. No shared locks or
    helper threads: a worker can be killed at any time without wedging the others (a
    `multiprocessing.Pool` can hang in terminate() when a worker dies holding its queue's
    lock)."""

    _pools_started = 0

    def __init__(self, num_workers, dataset, batchify_fn):
        ctx = multiprocessing.get_context("fork")
        self._procs, self._conns = [], []
        # per-worker seeds derived from mx.random.seed's value, without drawing from (and so
        # changing) this process's random stream
        _ProcessPool._pools_started += 1
        seeds = np.random.SeedSequence(
            [_random._state["seed"], _ProcessPool._pools_started]).spawn(num_workers)
        old = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            for seed in seeds:
                parent, child = ctx.Pipe()
                proc = ctx.Process(target=_worker_loop,
                                   args=(dataset, batchify_fn, child, seed), daemon=True)
                proc.start()
                child.close()
                self._procs.append(proc)
                self._conns.append(parent)
        finally:
            signal.signal(signal.SIGINT, old)
        self._sent = 0
        self._received = 0

    def submit(self, samples):
        self._conns[self._sent % len(self._conns)].send(list(samples))
        self._sent += 1

    def get(self, timeout):
        worker = self._received % len(self._conns)
        conn = self._conns[worker]
        if not conn.poll(timeout):
            raise RuntimeError(f"DataLoader: worker {worker} gave no batch within "
                               f"timeout={timeout}s")
        try:
            ok, value = conn.recv()
        except EOFError:
            raise RuntimeError(f"DataLoader: worker {worker} (pid {self._procs[worker].pid}) "
                               f"died with exit code {self._procs[worker].exitcode}") from None
        self._received += 1
        if not ok:
            raise value
        return value

    def terminate(self):
        for proc in self._procs:
            proc.terminate()
        for proc in self._procs:
            proc.join(5)
            if proc.is_alive():
                proc.kill()
                proc.join()
        for conn in self._conns:
            conn.close()
        self._procs, self._conns = [], []


class _ThreadPool:
    """The same protocol on threads sharing this process's dataset."""

    def __init__(self, num_workers, dataset, batchify_fn):
        self._pool = multiprocessing.pool.ThreadPool(num_workers)
        self._dataset, self._batchify_fn = dataset, batchify_fn
        self._pending = []

    def submit(self, samples):
        self._pending.append(self._pool.apply_async(
            _load_batch, (self._dataset, list(samples), self._batchify_fn)))

    def get(self, timeout):
        try:
            return self._pending.pop(0).get(timeout)
        except multiprocessing.TimeoutError:
            raise RuntimeError(f"DataLoader: a worker thread gave no batch within "
                               f"timeout={timeout}s") from None

    def terminate(self):
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.terminate()
            pool.join()


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
        num_workers: 0 loads in this process; more uses that many worker processes (or
            threads with `thread_pool`).
        pin_memory: place each batch on ``cpu_pinned(pin_device_id)`` (the same memory as
            cpu here; default False).
        pin_device_id: the device number of the pinned context (default 0).
        prefetch: batches requested ahead (default 2 * num_workers).
        thread_pool: use threads instead of processes.
        timeout: seconds to wait for one batch from a worker.
        auto_reload: accepted for compatibility (each ``iter()`` starts a new epoch).
        try_nopython: accepted for compatibility (MXNet 2's option to batchify without the
            Python interpreter); unused.

    Raises:
        ValueError: conflicting or missing arguments, or timeout <= 0.
        DataLoaderWorkerError: (while iterating with workers) a sample failed to load; the
            message names its index.

    Example::

        x, y = nd.random.uniform(shape=(10, 3)), nd.arange(10)
        loader = gluon.data.DataLoader(gluon.data.ArrayDataset(x, y), batch_size=4,
                                       shuffle=True, last_batch='discard')
        for xb, yb in loader:
            print(xb.shape, yb.shape)   # (4, 3) (4,), twice
    """

    def __init__(self, dataset, batch_size=None, shuffle=False, sampler=None, last_batch=None,
                 batch_sampler=None, batchify_fn=None, num_workers=0, pin_memory=False,
                 pin_device_id=0, prefetch=None, thread_pool=False, timeout=120,
                 auto_reload=False, try_nopython=None):
        self._worker_pool = None
        self._pool_busy = False
        self._dataset = dataset
        if timeout is None or timeout <= 0:
            raise ValueError(f"DataLoader: timeout must be positive, got {timeout}")
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
        self._num_workers = max(0, int(num_workers))
        self._pin_memory = pin_memory
        self._pin_device_id = pin_device_id
        self._thread_pool = thread_pool
        self._timeout = timeout
        self._prefetch = max(0, int(prefetch) if prefetch is not None
                             else 2 * self._num_workers)
        self.auto_reload = auto_reload
        if self._num_workers > 0:
            self._start_workers()

    def _new_pool(self):
        pool = _ThreadPool if self._thread_pool else _ProcessPool
        return pool(self._num_workers, self._dataset, self._batchify_fn)

    def _start_workers(self):
        # forked now, as MXNet does, so that workers see the dataset as it is at creation
        self._worker_pool = self._new_pool()

    def _finish(self, batch):
        if self._pin_memory:
            batch = _as_in_context(batch, Context("cpu_pinned", self._pin_device_id))
        return batch

    def __iter__(self):
        if self._num_workers == 0:
            for batch in self._batch_sampler:
                yield self._finish(self._batchify_fn([self._dataset[i] for i in batch]))
            return
        if self._worker_pool is None:
            self._start_workers()
        if self._pool_busy:
            # another iterator of this loader is running on the shared workers: this one
            # gets its own, so that neither reads the other's batches
            pool = self._new_pool()
            try:
                yield from self._pool_iter(pool, pool.terminate)
            finally:
                pool.terminate()
            return
        self._pool_busy = True
        try:
            yield from self._pool_iter(self._worker_pool, self.close)
        finally:
            self._pool_busy = False

    def _pool_iter(self, pool, stop):
        batches = iter(self._batch_sampler)
        pending = 0
        try:
            for samples in batches:
                pool.submit(samples)
                pending += 1
                if pending > self._prefetch:
                    break
            while pending:
                batch = pool.get(self._timeout)
                pending -= 1
                for samples in batches:
                    pool.submit(samples)
                    pending += 1
                    break
                yield self._finish(batch)
        except BaseException:
            # an error, Ctrl-C, or an iterator dropped early with batches in flight: stop
            # the workers now (the next epoch starts fresh ones)
            stop()
            raise

    def close(self):
        """Terminate the workers (a later ``iter()`` starts new ones).

        Example::

            dataset = gluon.data.ArrayDataset(nd.arange(8))
            loader = gluon.data.DataLoader(dataset, batch_size=2, num_workers=2, thread_pool=True)
            batches = [b for b in loader]
            loader.close()   # stop the worker threads now
        """
        pool, self._worker_pool = self._worker_pool, None
        if pool is not None:
            pool.terminate()

    def __len__(self):
        return len(self._batch_sampler)

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 (interpreter shutdown: nothing left to clean)
            pass
