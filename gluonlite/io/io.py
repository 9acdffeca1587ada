"""The data iterator protocol (`DataIter`), its batch and description types, and the
iterators written in Python: `NDArrayIter`, `ResizeIter`, `PrefetchingIter`."""
import threading
from collections import namedtuple

import numpy as np
from ..ndarray import concat
from .utils import _getdata_by_idx, _init_data, _is_csr

__all__ = ["DataDesc", "DataBatch", "DataIter", "ResizeIter", "PrefetchingIter", "NDArrayIter"]


class DataDesc(namedtuple("DataDesc", ["name", "shape"])):
    """The name and shape of one input (and its dtype and layout): a ``(name, shape)`` tuple.

    Args:
        name: the input's name in the symbol.
        shape: its shape.
        dtype: its dtype (default float32).
        layout: what each axis means (default 'NCHW'; 'N' marks the batch axis).

    Example::

        desc = mx.io.DataDesc('data', (32, 10, 2), layout='NTC')
        desc.name, desc.shape, desc.layout   # ('data', (32, 10, 2), 'NTC')
    """

    def __new__(cls, name, shape, dtype=np.float32, layout="NCHW"):
        ret = super().__new__(cls, name, tuple(shape))
        ret.dtype = dtype
        ret.layout = layout
        return ret

    def __repr__(self):
        return f"DataDesc[{self.name},{self.shape},{self.dtype},{self.layout}]"

    @staticmethod
    def get_batch_axis(layout):
        """The batch axis of `layout` (0 when None, -1 when it has no 'N').

        Example::

            mx.io.DataDesc.get_batch_axis('TNC')   # 1
        """
        return 0 if layout is None else layout.find("N")

    @staticmethod
    def get_list(shapes, types):
        """DataDescs from ``[(name, shape)]`` and, optionally, ``[(name, dtype)]``.

        Args:
            shapes (list of tuple): ``(name, shape)`` per input.
            types (list of tuple): ``(name, dtype)`` per input, or None (default dtypes).

        Returns:
            list of DataDesc: one per entry of `shapes`, in order.

        Example::

            mx.io.DataDesc.get_list([('x', (2, 3))], [('x', np.int32)])
            # [DataDesc[x,(2, 3),<class 'numpy.int32'>,NCHW]]
        """
        if types is not None:
            type_dict = dict(types)
            return [DataDesc(x[0], x[1], type_dict[x[0]]) for x in shapes]
        return [DataDesc(x[0], x[1]) for x in shapes]


class DataBatch:
    """One batch for `Module.forward`: lists of data and label arrays, in the module's
    `data_names` and `label_names` order.

    Args:
        data: a list of NDArrays.
        label: a list of NDArrays, or None.
        pad: examples padded at the end of the batch.
        index (NDArray or list): the samples' indices in the source, kept as given
            (default None).
        bucket_key: the bucket the batch belongs to, which `BucketingModule` switches to
            (default None: the default bucket).
        provide_data (list of DataDesc): the data's names and shapes (default None).
        provide_label (list of DataDesc): the labels' names and shapes (default None).

    Raises:
        TypeError: `data` or `label` is not a list or tuple.

    Example::

        batch = mx.io.DataBatch([nd.ones((4, 3))], [nd.zeros((4,))])
        print(batch)   # DataBatch: data shapes: [(4, 3)] label shapes: [(4,)]
    """

    def __init__(self, data, label=None, pad=None, index=None, bucket_key=None,
                 provide_data=None, provide_label=None):
        for what, value in (("data", data), ("label", label)):
            if value is not None and not isinstance(value, (list, tuple)):
                raise TypeError(f"DataBatch: {what} must be a list of NDArrays, got "
                                f"{type(value).__name__}")
        self.data = data
        self.label = label
        self.pad = pad
        self.index = index
        self.bucket_key = bucket_key
        self.provide_data = provide_data
        self.provide_label = provide_label

    def __str__(self):
        labels = [lb.shape for lb in self.label] if self.label else None
        return (f"{self.__class__.__name__}: data shapes: {[d.shape for d in self.data]} "
                f"label shapes: {labels}")


class DataIter:
    """Base class of data iterators: ``for batch in it`` yields `DataBatch` es until the
    epoch ends; ``reset()`` starts the next one. Subclasses define ``iter_next``,
    ``getdata``, ``getlabel``, ``getpad`` (and ``getindex``), or ``next`` directly.

    Args:
        batch_size: samples per batch.

    Example::

        it = mx.io.NDArrayIter(np.ones((4, 3)), np.arange(4), batch_size=2)
        for batch in it:
            print(batch.data[0].shape)   # (2, 3), twice
        it.reset()
    """

    def __init__(self, batch_size=0):
        self.batch_size = batch_size

    def __iter__(self):
        return self

    def reset(self):
        """Rewind to the start of the next epoch.

        Example::

            it = mx.io.NDArrayIter(np.arange(4), batch_size=2)
            len(list(it)); it.reset(); len(list(it))   # 2 batches each time
        """

    def next(self):
        """The next `DataBatch`.

        Raises:
            StopIteration: the epoch is over.

        Example::

            it = mx.io.NDArrayIter(np.arange(4), batch_size=2)
            it.next().data[0]   # [0. 1.]
        """
        if self.iter_next():
            return DataBatch(data=self.getdata(), label=self.getlabel(), pad=self.getpad(),
                             index=self.getindex())
        raise StopIteration

    def __next__(self):
        return self.next()

    def iter_next(self):
        """Move to the next batch; False at the end of the epoch.

        Example::

            it = mx.io.NDArrayIter(np.arange(4), batch_size=2)
            it.iter_next(), it.iter_next(), it.iter_next()   # (True, True, False)
        """
        return False

    def getdata(self):
        """The data arrays of the current batch.

        Example::

            it = mx.io.NDArrayIter(np.arange(4), batch_size=2)
            it.iter_next(); it.getdata()   # [[0. 1.]]: one array per input
        """
        return None

    def getlabel(self):
        """The label arrays of the current batch.

        Example::

            it = mx.io.NDArrayIter(np.zeros((4, 2)), np.arange(4), batch_size=2)
            it.iter_next(); it.getlabel()   # [[0. 1.]]
        """
        return None

    def getindex(self):
        """The sample indices of the current batch (None when unknown).

        Example::

            it = mx.io.NDArrayIter(np.arange(4), batch_size=2)
            it.iter_next(); it.getindex()   # None: NDArrayIter does not give them
        """
        return None

    def getpad(self):
        """How many samples at the end of the current batch are padding.

        Example::

            it = mx.io.NDArrayIter(np.arange(3), batch_size=2)
            [batch.pad for batch in it]   # [0, 1]
        """
        return None


class _HeldBatchIter(DataIter):
    """An iterator that keeps its whole current `DataBatch` in ``current_batch`` (set by
    its ``iter_next``); the getters read that batch."""

    def getdata(self):
        return self.current_batch.data

    def getlabel(self):
        return self.current_batch.label

    def getindex(self):
        return self.current_batch.index

    def getpad(self):
        return self.current_batch.pad


class ResizeIter(_HeldBatchIter):
    """`data_iter` seen as `size` batches per epoch: it is restarted when it runs out
    early, and cut off when it has more.

    Args:
        data_iter: the iterator.
        size: batches per epoch.
        reset_internal: reset `data_iter` on each ``reset()``.

    Example::

        it = mx.io.ResizeIter(mx.io.NDArrayIter(np.arange(4), batch_size=2), size=3)
        [b.data[0].asnumpy().tolist() for b in it]   # [[0, 1], [2, 3], [0, 1]]
    """

    def __init__(self, data_iter, size, reset_internal=True):
        super().__init__()
        self.data_iter = data_iter
        self.size = size
        self.reset_internal = reset_internal
        self.cur = 0
        self.current_batch = None
        self.provide_data = data_iter.provide_data
        self.provide_label = data_iter.provide_label
        self.batch_size = data_iter.batch_size
        if hasattr(data_iter, "default_bucket_key"):
            self.default_bucket_key = data_iter.default_bucket_key

    def reset(self):
        """Start a new epoch of `size` batches (rewinding the wrapped iterator when
        `reset_internal`).

        Example::

            it = mx.io.ResizeIter(mx.io.NDArrayIter(np.arange(4), batch_size=2), size=3)
            len(list(it)); it.reset(); len(list(it))   # 3 batches each time
        """
        self.cur = 0
        if self.reset_internal:
            self.data_iter.reset()

    def iter_next(self):
        """Move to the next of the epoch's `size` batches, restarting the wrapped iterator when
        it runs out first.

        Returns:
            False once `size` batches were given this epoch, else True.

        Example::

            it = mx.io.ResizeIter(mx.io.NDArrayIter(np.arange(4), batch_size=2), size=3)
            while it.iter_next():
                print(it.current_batch.data[0])   # [0. 1.], [2. 3.], [0. 1.]
        """
        if self.cur == self.size:
            return False
        try:
            self.current_batch = self.data_iter.next()
        except StopIteration:
            self.data_iter.reset()
            self.current_batch = self.data_iter.next()
        self.cur += 1
        return True


class PrefetchingIter(_HeldBatchIter):
    """Read the next batch of each of `iters` in a background thread; their batches are
    joined (data after data, label after label).

    Args:
        iters: a DataIter or a list of them (of equal lengths).
        rename_data (list of dict): one dict per iterator, old data name -> new name
            (default None: the names are kept).
        rename_label (list of dict): the same for the label names (default None).

    Raises:
        ValueError: no iterators, or iterators of different lengths or pads.

    Example::

        it1 = mx.io.NDArrayIter({'a': np.ones((4, 2))}, batch_size=2)
        it2 = mx.io.NDArrayIter({'b': np.zeros((4, 3))}, batch_size=2)
        batch = mx.io.PrefetchingIter([it1, it2]).next()   # batch.data: shapes (2, 2), (2, 3)
    """

    def __init__(self, iters, rename_data=None, rename_label=None):
        super().__init__()
        if not isinstance(iters, list):
            iters = [iters]
        if not iters:
            raise ValueError("PrefetchingIter: needs at least one iterator")
        self.n_iter = len(iters)
        self.iters = iters
        self.rename_data = rename_data
        self.rename_label = rename_label
        self.batch_size = self.provide_data[0][1][0]
        self.data_ready = [threading.Event() for _ in range(self.n_iter)]
        self.data_taken = [threading.Event() for _ in range(self.n_iter)]
        for taken in self.data_taken:
            taken.set()
        self.started = True
        self.current_batch = None
        self.next_batch = [None] * self.n_iter
        self.prefetch_threads = [threading.Thread(target=self._prefetch, args=(i,), daemon=True)
                                 for i in range(self.n_iter)]
        for thread in self.prefetch_threads:
            thread.start()

    def _prefetch(self, i):
        while True:
            self.data_taken[i].wait()
            if not self.started:
                break
            try:
                self.next_batch[i] = self.iters[i].next()
            except StopIteration:
                self.next_batch[i] = None
            self.data_taken[i].clear()
            self.data_ready[i].set()

    def __del__(self):
        self.started = False
        for taken in getattr(self, "data_taken", []):
            taken.set()
        for thread in getattr(self, "prefetch_threads", []):
            thread.join(1)

    def _renamed(self, attr, renames):
        if renames is None:
            return sum([getattr(it, attr) for it in self.iters], [])
        return sum([[DataDesc(r[x.name], x.shape, x.dtype) if isinstance(x, DataDesc)
                     else DataDesc(*x) for x in getattr(it, attr)]
                    for r, it in zip(renames, self.iters)], [])

    @property
    def provide_data(self):
        """The `DataDesc` list of every wrapped iterator's data, in order, renamed by
        `rename_data` where it was given.

        Example::

            it1 = mx.io.NDArrayIter({'a': np.ones((4, 2))}, batch_size=2)
            it2 = mx.io.NDArrayIter({'b': np.zeros((4, 3))}, batch_size=2)
            [d.name for d in mx.io.PrefetchingIter([it1, it2]).provide_data]   # ['a', 'b']
        """
        return self._renamed("provide_data", self.rename_data)

    @property
    def provide_label(self):
        """The `DataDesc` list of every wrapped iterator's labels, in order, renamed by
        `rename_label` where it was given.

        Example::

            it = mx.io.NDArrayIter(np.ones((4, 2)), np.arange(4), batch_size=2)
            mx.io.PrefetchingIter(it).provide_label
            # [DataDesc[softmax_label,(2,),<class 'numpy.float32'>,NCHW]]
        """
        return self._renamed("provide_label", self.rename_label)

    def reset(self):
        """Wait for the batches being prefetched, rewind every wrapped iterator and start
        prefetching the new epoch.

        Example::

            it = mx.io.PrefetchingIter(mx.io.NDArrayIter(np.arange(4), batch_size=2))
            len(list(it)); it.reset(); len(list(it))   # 2 batches each time
        """
        for ready in self.data_ready:
            ready.wait()
        for it in self.iters:
            it.reset()
        for ready in self.data_ready:
            ready.clear()
        for taken in self.data_taken:
            taken.set()

    def iter_next(self):
        """Take the prefetched batches of every wrapped iterator as one `DataBatch` (their data,
        then their labels, in order) and start prefetching the next.

        Returns:
            False at the end of the epoch, else True.

        Raises:
            ValueError: the iterators end at different batches, or their batches have
                different pads.

        Example::

            it1 = mx.io.NDArrayIter({'a': np.ones((4, 2))}, batch_size=2)
            it2 = mx.io.NDArrayIter({'b': np.zeros((4, 3))}, batch_size=2)
            it = mx.io.PrefetchingIter([it1, it2])
            while it.iter_next():
                batch = it.current_batch   # twice: data of shapes (2, 2) and (2, 3)
        """
        for ready in self.data_ready:
            ready.wait()
        if self.next_batch[0] is None:
            if any(b is not None for b in self.next_batch):
                raise ValueError("PrefetchingIter: the iterators have different lengths")
            return False
        if any(b.pad != self.next_batch[0].pad for b in self.next_batch):
            raise ValueError("PrefetchingIter: the iterators' batches have different pads")
        first = self.next_batch[0]
        self.current_batch = DataBatch(sum([b.data for b in self.next_batch], []),
                                       sum([b.label or [] for b in self.next_batch], []),
                                       first.pad, first.index, provide_data=self.provide_data,
                                       provide_label=self.provide_label)
        for ready in self.data_ready:
            ready.clear()
        for taken in self.data_taken:
            taken.set()
        return True

    def next(self):
        """The next joined `DataBatch` (see `iter_next`).

        Raises:
            StopIteration: the epoch is over.
            ValueError: as `iter_next`.

        Example::

            it = mx.io.PrefetchingIter(mx.io.NDArrayIter(np.arange(4), batch_size=2))
            batch = it.next(); batch.data[0]   # [0. 1.]
        """
        if self.iter_next():
            return self.current_batch
        raise StopIteration


class NDArrayIter(DataIter):
    """Batches from in-memory arrays.

    Args:
        data: an array, a list of arrays (named ``_0_data``, ``_1_data``, ...) or a dict
            name -> array; inputs are sorted by name.
        label: the same for labels (default name 'softmax_label'), or None.
        batch_size: samples per batch.
        shuffle: shuffle the samples (numpy's global random state) at each reset.
        last_batch_handle: 'pad' (fill the last batch from the start; ``batch.pad`` says
            how many), 'discard' (drop it) or 'roll_over' (carry it into the next epoch).
        data_name (str): the data's name in `provide_data` (default ``'data'``).
        label_name (str): the label's name in `provide_label` (default
            ``'softmax_label'``).
        layout: the axes, 'N' marking the batch axis.

    Raises:
        ValueError: unknown last_batch_handle, or inputs of different lengths.

    Example::

        it = mx.io.NDArrayIter(np.ones((10, 3)), np.arange(10), batch_size=4)
        for batch in it: batch.data[0].shape   # (4, 3), three times; pad 2 on the last
    """

    def __init__(self, data, label=None, batch_size=1, shuffle=False, last_batch_handle="pad",
                 data_name="data", label_name="softmax_label", layout="NCHW"):
        super().__init__(batch_size)
        if last_batch_handle not in ("pad", "discard", "roll_over"):
            raise ValueError(f"NDArrayIter: last_batch_handle must be 'pad', 'discard' or "
                             f"'roll_over', got {last_batch_handle!r}")
        self.data = _init_data(data, allow_empty=False, default_name=data_name)
        self.label = _init_data(label, allow_empty=True, default_name=label_name)
        if last_batch_handle != "discard" and any(
                _is_csr(v) for _, v in self.data + self.label):
            # as MXNet: a csr batch cannot be padded or rolled over
            raise NotImplementedError(f"NDArrayIter: csr inputs (CSRNDArray or "
                                      f"scipy.sparse.csr_matrix) need last_batch_handle="
                                      f"'discard', got {last_batch_handle!r}")
        self.layout = layout
        axis = self._axis()
        self.num_data = self.data[0][1].shape[axis]
        # Batches index every array by the first data array's samples, as MXNet's do: an
        # array with more samples is read up to that count, one with fewer cannot be.
        for k, v in self.data + self.label:
            if v.shape[axis] < self.num_data:
                raise ValueError(f"NDArrayIter: {k} has {v.shape[axis]} samples but "
                                 f"{self.data[0][0]} has {self.num_data}; every array needs "
                                 f"at least as many samples as the first data array")
        self.idx = np.arange(self.num_data)
        self.shuffle = shuffle
        self.last_batch_handle = last_batch_handle
        self.batch_size = batch_size
        self.cursor = -self.batch_size
        self._cache_data = None
        self._cache_label = None
        self.reset()
        self.data_list = [x[1] for x in self.data] + [x[1] for x in self.label]
        self.num_source = len(self.data_list)

    def _axis(self):
        axis = self.layout.find("N")
        return 0 if axis < 0 else axis

    def _descs(self, source):
        axis = self._axis()
        return [DataDesc(k, tuple(v.shape[:axis]) + (self.batch_size,) + tuple(v.shape[axis + 1:]),
                         v.dtype, layout=self.layout) for k, v in source]

    @property
    def provide_data(self):
        """``[DataDesc]`` of the data inputs, with the batch size on the batch axis.

        Example::

            mx.io.NDArrayIter(np.ones((10, 3)), batch_size=4).provide_data
            # [DataDesc[data,(4, 3),<class 'numpy.float32'>,NCHW]]
        """
        return self._descs(self.data)

    @property
    def provide_label(self):
        """``[DataDesc]`` of the label inputs.

        Example::

            mx.io.NDArrayIter(np.ones((10, 3)), np.arange(10), batch_size=4).provide_label
            # [DataDesc[softmax_label,(4,),<class 'numpy.float32'>,NCHW]]
        """
        return self._descs(self.label)

    def hard_reset(self):
        """Rewind to the very start, dropping any rolled-over samples.

        Example::

            it = mx.io.NDArrayIter(np.arange(5), batch_size=2, last_batch_handle='roll_over')
            list(it); it.hard_reset()
            [b.data[0].asnumpy().tolist() for b in it]   # [[0, 1], [2, 3]]: sample 4 dropped
        """
        if self.shuffle:
            self._shuffle_data()
        self.cursor = -self.batch_size
        self._cache_data = None
        self._cache_label = None

    def reset(self):
        """Start a new epoch: reshuffle when `shuffle`; with ``last_batch_handle='roll_over'``
        the first batch completes the short batch the last epoch left over.

        Example::

            it = mx.io.NDArrayIter(np.arange(4), batch_size=2, shuffle=True)
            list(it); it.reset()   # a new epoch, in a new order
        """
        if self.shuffle:
            self._shuffle_data()
        if (self.last_batch_handle == "roll_over"
                and self.num_data - self.batch_size < self.cursor < self.num_data):
            # the cached partial batch is completed by the first samples of this epoch
            self.cursor = self.cursor - self.num_data - self.batch_size
        else:
            self.cursor = -self.batch_size

    def iter_next(self):
        """Move the cursor to the next batch.

        Returns:
            False at the end of the epoch, else True.

        Example::

            it = mx.io.NDArrayIter(np.arange(4), batch_size=2)
            while it.iter_next():
                x = it.getdata()[0]   # [0. 1.], then [2. 3.]
        """
        self.cursor += self.batch_size
        return self.cursor < self.num_data

    def next(self):
        """The next `DataBatch`; a short last batch is padded (``'pad'``), kept for the next
        epoch (``'roll_over'``) or dropped (``'discard'``).

        Raises:
            StopIteration: the epoch is over.

        Example::

            it = mx.io.NDArrayIter(np.ones((5, 3)), batch_size=2)
            batch = it.next(); batch.data[0].shape   # (2, 3)
        """
        if not self.iter_next():
            raise StopIteration
        data = self.getdata()
        label = self.getlabel()
        if data[0].shape[self._axis()] != self.batch_size:
            # a short last batch: kept for roll_over, dropped for discard
            self._cache_data = data
            self._cache_label = label
            raise StopIteration
        return DataBatch(data=data, label=label, pad=self.getpad(), index=None)

    def _getdata(self, source, start=None, end=None):
        start = 0 if start is None else start
        if end is None:
            end = source[0][1].shape[self._axis()] if source else 0
        return [v.slice_axis(axis=self._axis(), begin=start, end=end) for _, v in source]

    def _concat(self, first, second):
        if not first or not second:
            return first if first else second
        return [concat(a, b, dim=self._axis()) for a, b in zip(first, second)]

    def _batchify(self, source):
        if self.cursor >= self.num_data:
            raise ValueError("NDArrayIter: the epoch is over; call reset()")
        if self.last_batch_handle == "roll_over" and -self.batch_size < self.cursor < 0:
            cache = self._cache_data if self._cache_data is not None else self._cache_label
            second = self._getdata(source, end=self.cursor + self.batch_size)
            if self._cache_data is not None:
                self._cache_data = None
            else:
                self._cache_label = None
            return self._concat(cache, second)
        if self.last_batch_handle == "pad" and self.cursor + self.batch_size > self.num_data:
            pad = self.batch_size - self.num_data + self.cursor
            first = self._getdata(source, start=self.cursor)
            whole, rest = divmod(pad, self.num_data)
            second = []
            for _ in range(whole):
                second = self._concat(second, self._getdata(source, end=self.num_data))
            if rest:
                second = self._concat(second, self._getdata(source, end=rest))
            return self._concat(first, second)
        end = min(self.cursor + self.batch_size, self.num_data)
        return self._getdata(source, self.cursor, end)

    def getdata(self):
        """The current batch's data arrays, one per input, sliced along the batch axis (padded
        with the first samples, or completed from the last epoch's rest, as
        `last_batch_handle` says).

        Raises:
            ValueError: the epoch is over (call `reset`).

        Example::

            it = mx.io.NDArrayIter(np.arange(10).reshape(5, 2), batch_size=2)
            it.iter_next(); x = it.getdata()[0]   # [[0. 1.] [2. 3.]]
        """
        return self._batchify(self.data)

    def getlabel(self):
        """The current batch's label arrays, as `getdata` gives the data.

        Raises:
            ValueError: the epoch is over (call `reset`).

        Example::

            it = mx.io.NDArrayIter(np.zeros((5, 2)), np.arange(5), batch_size=2)
            it.iter_next(); y = it.getlabel()[0]   # [0. 1.]

        """
        return self._batchify(self.label)

    def getpad(self):
        """How many samples at the end of the current batch repeat earlier ones (``'pad'``) or,
        with ``'roll_over'``, came from the previous epoch; 0 otherwise.

        Example::

            it = mx.io.NDArrayIter(np.arange(3), batch_size=2, last_batch_handle='pad')
            it.next(); it.next(); it.getpad()   # 1: the last batch repeats sample 0
        """
        if self.last_batch_handle == "pad" and self.cursor + self.batch_size > self.num_data:
            return self.cursor + self.batch_size - self.num_data
        if self.last_batch_handle == "roll_over" and -self.batch_size < self.cursor < 0:
            return -self.cursor
        return 0

    def _shuffle_data(self):
        np.random.shuffle(self.idx)
        self.data = _getdata_by_idx(self.data, self.idx, self._axis())
        self.label = _getdata_by_idx(self.label, self.idx, self._axis())
