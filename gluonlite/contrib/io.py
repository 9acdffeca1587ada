"""`mx.contrib.io`: a Gluon `DataLoader` seen as an `mx.io.DataIter` (`DataLoaderIter`).

Example::

    loader = gluon.data.DataLoader(gluon.data.ArrayDataset(np.ones((5, 2)), np.arange(5)), 2)
    it = mx.contrib.io.DataLoaderIter(loader)
    [batch.pad for batch in it]   # [0, 0, 1]: the last batch repeats its final sample
"""
from ..io import DataBatch, DataDesc, DataIter
from .. import ndarray as nd

__all__ = ["DataLoaderIter", "DataDesc", "DataIter"]


class DataLoaderIter(DataIter):
    """Batches of a `gluon.data.DataLoader` as `DataBatch` es, for `Module` code.

    Each loader batch is ``data`` or ``(data, label)``; a last batch smaller than the first
    is padded by repeating its final sample, and ``pad`` says how many.

    Args:
        loader: the DataLoader.
        data_name (str): the data's name in `provide_data` (default ``'data'``).
        label_name (str): the label's name in `provide_label` (default
            ``'softmax_label'``).
        dtype: the dtype of the descriptions.

    Raises:
        ValueError: the loader is empty.

    Example::

        data = gluon.data.ArrayDataset(np.ones((8, 3), 'float32'), np.zeros(8, 'float32'))
        it = mx.contrib.io.DataLoaderIter(gluon.data.DataLoader(data, batch_size=4))
        net = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
        mod = mx.mod.Module(sym.SoftmaxOutput(net, name='softmax'))
        mod.fit(it, num_epoch=2)
    """

    def __init__(self, loader, data_name="data", label_name="softmax_label", dtype="float32"):
        super().__init__()
        self._loader = loader
        self._iter = iter(loader)
        first = next(self._iter, None)
        if first is None:
            raise ValueError("DataLoaderIter: the DataLoader yields no batch")
        data, label = self._split(first)
        self.batch_size = data.shape[0]
        self.dtype = dtype
        self.provide_data = [DataDesc(data_name, data.shape, dtype)]
        self.provide_label = ([DataDesc(label_name, label.shape, dtype)]
                              if label is not None else [])
        self._current = None
        self._next = first

    @staticmethod
    def _split(batch):
        if isinstance(batch, (list, tuple)):
            return batch[0], (batch[1] if len(batch) > 1 else None)
        return batch, None

    def reset(self):
        """Start a new epoch: a new pass over the DataLoader.

        Example::

            dataset = gluon.data.ArrayDataset(np.ones((5, 2)), np.arange(5))
            loader = gluon.data.DataLoader(dataset, batch_size=2)
            it = mx.contrib.io.DataLoaderIter(loader)
            it.reset()   # a new pass over the loader
            len(list(it))   # 3
        """
        self._iter = iter(self._loader)
        self._next = None

    def iter_next(self):
        """Take the DataLoader's next batch.

        Returns:
            False when the loader is exhausted, else True.

        Example::

            dataset = gluon.data.ArrayDataset(np.ones((5, 2)), np.arange(5))
            loader = gluon.data.DataLoader(dataset, batch_size=2)
            it = mx.contrib.io.DataLoaderIter(loader)
            while it.iter_next():
                x = it.getdata()[0]
            x.shape   # (2, 2)
        """
        if self._next is not None:
            batch, self._next = self._next, None
        else:
            batch = next(self._iter, None)
        if batch is None:
            return False
        self._current = self._split(batch)
        return True

    def _padded(self, arr):
        n = arr.shape[0]
        if n == self.batch_size:
            return arr
        last = arr[n - 1:n]
        return nd.concat(arr, *([last] * (self.batch_size - n)), dim=0)

    def getdata(self):
        """The current batch's data as a list of one array of `dtype`, a short batch padded by
        repeating its last sample.

        Example::

            dataset = gluon.data.ArrayDataset(np.ones((5, 2)), np.arange(5))
            loader = gluon.data.DataLoader(dataset, batch_size=2)
            it = mx.contrib.io.DataLoaderIter(loader)
            it.iter_next()
            it.getdata()[0].shape   # (2, 2)
        """
        return [self._padded(self._current[0]).astype(self.dtype)]

    def getlabel(self):
        """The current batch's labels, padded as `getdata`; None when the loader gives no labels.

        Example::

            dataset = gluon.data.ArrayDataset(np.ones((5, 2)), np.arange(5))
            loader = gluon.data.DataLoader(dataset, batch_size=2)
            it = mx.contrib.io.DataLoaderIter(loader)
            it.iter_next()
            it.getlabel()[0].asnumpy().tolist()   # [0.0, 1.0]
        """
        label = self._current[1]
        return [self._padded(label).astype(self.dtype)] if label is not None else None

    def getpad(self):
        """How many samples at the end of the current batch repeat its last sample.

        Example::

            dataset = gluon.data.ArrayDataset(np.ones((5, 2)), np.arange(5))
            loader = gluon.data.DataLoader(dataset, batch_size=2)
            it = mx.contrib.io.DataLoaderIter(loader)
            batches = [it.next() for _ in range(3)]
            it.getpad()   # 1: the last batch had one sample
        """
        return self.batch_size - self._current[0].shape[0]

    def getindex(self):
        """None: a DataLoader does not say which samples a batch holds.

        Example::

            dataset = gluon.data.ArrayDataset(np.ones((5, 2)), np.arange(5))
            loader = gluon.data.DataLoader(dataset, batch_size=2)
            it = mx.contrib.io.DataLoaderIter(loader)
            it.getindex() is None   # True
        """
        return None

    def next(self):
        """The next `DataBatch` of the DataLoader (padded as `getdata` says).

        Raises:
            StopIteration: the loader is exhausted.

        Example::

            dataset = gluon.data.ArrayDataset(np.ones((5, 2)), np.arange(5))
            loader = gluon.data.DataLoader(dataset, batch_size=2)
            it = mx.contrib.io.DataLoaderIter(loader)
            batch = it.next()
            batch.data[0].shape, batch.pad   # ((2, 2), 0)
        """
        if self.iter_next():
            return DataBatch(data=self.getdata(), label=self.getlabel(), pad=self.getpad(),
                             index=None)
        raise StopIteration
