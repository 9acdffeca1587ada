"""`mx.kvstore.kvstore`: `KVStore`, the single-process store that `create('local')` and
`create('device')` return (MXNet 1.9.1's ``kvstore/kvstore.py``)."""
import numpy as np

from ..base import MXNetValueError
from ..ndarray.ndarray import NDArray
from ..optimizer import saved_states
from .. import optimizer as opt
from ..ndarray.sparse_grad import rows_to_ndarray
from ..ops.sparse.grads import RowSparseRows
from .base import _LOCAL_STORES, _LOCAL_TYPES, KVStoreBase, _as_list, _copy_into, _host

__all__ = ["KVStore"]


def _pairs(what, key, value):
    """[(key, [NDArray, ...])] from MXNet's key/value forms: one key with an NDArray or a list
    of NDArrays (one per device), or a list of keys with a list of such values."""
    if isinstance(key, (list, tuple)):
        if not isinstance(value, (list, tuple)) or len(value) != len(key):
            got = f"{type(value).__name__}" + (
                f" of length {len(value)}" if isinstance(value, (list, tuple)) else "")
            raise ValueError(f"KVStore.{what}: {len(key)} keys need a list of {len(key)} "
                             f"values, got {got}")
        pairs = [(k, _as_list(v)) for k, v in zip(key, value)]
    else:
        pairs = [(key, _as_list(value))]
    for k, vs in pairs:
        if not isinstance(k, (int, np.integer, str)):
            raise TypeError(f"KVStore.{what}: a key must be an int or a str, got "
                            f"{type(k).__name__}")
        for v in vs:
            if not isinstance(v, NDArray):
                raise TypeError(f"KVStore.{what}: values of key {k!r} must be NDArrays, got "
                                f"{type(v).__name__}")
    return pairs


def _sum_sparse(vs, dtype):
    """The sum of the values pushed for one key when some are sparse: row_sparse when all are
    (the union of their rows, no dense array made), else dense."""
    if all(v.stype == "row_sparse" for v in vs):
        total = RowSparseRows(vs[0]._sindices, vs[0]._sdata.astype(dtype), vs[0].shape)
        for v in vs[1:]:
            total = total + RowSparseRows(v._sindices, v._sdata, v.shape)
        return rows_to_ndarray(total, vs[0].context)
    total = _host(vs[0]).astype(dtype, copy=True)
    for v in vs[1:]:
        total += _host(v).astype(dtype, copy=False)
    return NDArray(total, vs[0].context)


def _retain_into(out, stored, row_ids):
    """Make row_sparse `out` hold the rows `row_ids` of `stored` (any storage type) that
    `stored` holds."""
    rows = np.unique(_host(row_ids).astype(np.int64).ravel())
    if stored.stype == "row_sparse":
        # O(rows asked * log rows stored): the store may hold a whole vocabulary
        have = stored._sindices
        pos = np.minimum(np.searchsorted(have, rows), max(have.size - 1, 0))
        hit = (have[pos] == rows) if have.size else np.zeros(rows.size, bool)
        data, idx = stored._sdata[pos[hit]], rows[hit]
    else:
        dense = _host(stored)
        rows = rows[(rows >= 0) & (rows < dense.shape[0])]
        data, idx = dense[rows], rows
    out._sdata = data.astype(out._sdata.dtype, copy=True)
    out._sindices = idx.copy()


class KVStore(KVStoreBase):
    """The single-process key-value store `create('local')` / `create('device')` returns.

    Keys are ints or strs. A push of several arrays for one key (one per device) sums them;
    with an optimizer set (`set_optimizer`) the sum is applied to the stored value as a
    gradient, otherwise it replaces the stored value.

    Args:
        name (str): the store's type, ``'local'`` (default) or ``'device'`` (the same store
            here), as `type` reports it.

    Example::

        kv = mx.kv.create('device')
        kv.init('w', mx.nd.zeros((3,)))
        kv.set_optimizer(mx.optimizer.create('sgd', learning_rate=0.1))
        w_copies = [mx.nd.zeros((3,)), mx.nd.zeros((3,))]
        kv.pushpull('w', [mx.nd.ones((3,)), mx.nd.ones((3,))], out=w_copies)   # w: -0.2
    """

    def __init__(self, name="local"):
        self._type = name
        self._store = {}
        self._updater = None
        self._optimizer = None

    # ---- what it is ------------------------------------------------------------------------
    @property
    def type(self):
        """The type name it was created with ('local', 'device', ...).

        Example::

            mx.kv.create('local').type   # 'local'
        """
        return self._type

    @property
    def rank(self):
        """The worker's rank; always 0, as a single process is the only worker.

        Example::

            mx.kv.create('local').rank   # 0
        """
        return 0

    @property
    def num_workers(self):
        """The number of workers; always 1, as a single process is the only worker.

        Example::

            mx.kv.create('local').num_workers   # 1
        """
        return 1

    def is_capable(self, capability):
        """Whether the store can do `capability`: it can run an optimizer.

        Raises:
            ValueError: an unknown capability.

        Example::

            mx.kv.create('local').is_capable('optimizer')   # True
        """
        if capability.lower() == KVStoreBase.OPTIMIZER:
            return True
        raise ValueError(f"KVStore.is_capable: unknown capability {capability!r}")

    # ---- values ----------------------------------------------------------------------------
    def init(self, key, value):
        """Store a copy of `value` under `key` (lists of keys and values too).

        Raises:
            ValueError: `key` is already initialized.
            TypeError: a key that is not an int or str, a value that is not an NDArray.

        Example::

            kv = mx.kv.create('local')
            kv.init(['a', 'b'], [nd.ones((2,)), nd.zeros((3,))])
            out = nd.zeros((2,)); kv.pull('a', out=out)
            out.asnumpy().tolist()   # [1.0, 1.0]
        """
        for k, vs in self._keyed_pairs("init", key, value):
            if k in self._store:
                raise ValueError(f"KVStore.init: key {k!r} is already initialized")
            if vs[0].stype != "default":
                self._store[k] = vs[0].copy()  # a sparse value is stored sparse
            else:
                self._store[k] = NDArray(_host(vs[0]).copy(), vs[0].context)

    def _keyed_pairs(self, what, key, value):
        """`_pairs`, keeping the store to one kind of key (int or str) as MXNet's does: the
        first key used decides."""
        pairs = _pairs(what, key, value)
        for k, _ in pairs:
            kind = str if isinstance(k, str) else int
            if self.__dict__.setdefault("_key_kind", kind) is not kind:
                raise MXNetValueError(
                    f"KVStore.{what}: key {k!r} is a {kind.__name__} but this store's keys are "
                    f"{self._key_kind.__name__}s; a store takes int keys or str keys, not both")
        return pairs

    def _stored(self, what, k):
        hit = self._store.get(k)
        if hit is None:
            raise MXNetValueError(f"KVStore.{what}: key {k!r} has not been initialized (call init "
                             "first)")
        return hit

    def push(self, key, value, priority=0):
        """Sum the arrays given for each key (one per device) and apply the updater to the
        stored value (the sum is the gradient), or store the sum when there is no updater.

        Args:
            key (int, str or list): the key, or a list of keys paired with a list of
                entries.
            value (NDArray or list): per key, an NDArray or a list of them (one per device).
            priority (int): MXNet's scheduling priority of the operation; accepted, no effect
                here (operations run in order) (default 0).

        Raises:
            ValueError: a key not initialized, or values whose shapes differ from it.

        Example::

            kv = mx.kv.create('local')
            kv.init(0, nd.zeros((2,)))
            kv.push(0, [nd.ones((2,)), nd.ones((2,))])   # no optimizer: stores the sum
            out = nd.zeros((2,)); kv.pull(0, out=out)
            out.asnumpy().tolist()   # [2.0, 2.0]
        """
        for k, vs in self._keyed_pairs("push", key, value):
            stored = self._stored("push", k)
            shapes = {tuple(v.shape) for v in vs}
            if shapes != {tuple(stored.shape)}:
                raise ValueError(f"KVStore.push: key {k!r} holds shape {tuple(stored.shape)}, "
                                 f"got values of shape(s) {sorted(shapes)}")
            if any(v.stype != "default" for v in vs):
                merged = _sum_sparse(vs, stored.dtype)
            else:
                total = _host(vs[0]).astype(stored.dtype, copy=True)
                for v in vs[1:]:
                    total += _host(v).astype(stored.dtype, copy=False)
                merged = NDArray(total, stored.context)
            if self._updater is not None:
                self._updater(k, merged, stored)
            elif stored.stype != "default" or merged.stype != "default":
                stored[:] = merged
            else:
                stored._data[...] = merged._data

    def pull(self, key, out=None, priority=0, ignore_sparse=True):
        """Copy the stored value of each key into `out` (an NDArray or a list of them, one
        per device; lists of keys with lists of outs too). Sparse outs are skipped with
        `ignore_sparse` (read them with `row_sparse_pull`), else filled whole.

        Args:
            key (int, str or list): the key, or a list of keys paired with a list of
                entries.
            priority (int): MXNet's scheduling priority of the operation; accepted, no effect
                here (operations run in order) (default 0).

        Raises:
            ValueError: a key not initialized, or an `out` of another shape.

        Example::

            kv = mx.kv.create('local')
            kv.init(0, nd.ones((2, 2)))
            outs = [nd.zeros((2, 2)), nd.zeros((2, 2))]   # one per device
            kv.pull(0, out=outs)
            outs[1].sum().asscalar()   # 4.0
        """
        if out is None:
            raise ValueError("KVStore.pull: out must be given (an NDArray or a list of them)")
        for k, outs in self._keyed_pairs("pull", key, out):
            stored = self._stored("pull", k)
            src = None
            for o in outs:
                if o.stype != "default":
                    if not ignore_sparse:
                        o[:] = stored
                    continue
                src = _host(stored) if src is None else src
                _copy_into(o, src)

    def pushpull(self, key, value, out=None, priority=0):
        """`push` then `pull` into `out` (into `value` when `out` is None).

        Args:
            key (int, str or list): the key, or a list of keys paired with a list of
                entries.
            priority (int): MXNet's scheduling priority of the operation; accepted, no effect
                here (operations run in order) (default 0).

        Example::

            kv = mx.kv.create('local')
            kv.init(0, nd.zeros((2,)))
            grads = [nd.ones((2,)), nd.ones((2,)) * 3]
            kv.pushpull(0, grads)   # grads now both hold the sum
            grads[0].asnumpy().tolist()   # [4.0, 4.0]
        """
        self.push(key, value, priority)
        self.pull(key, value if out is None else out, priority)

    def broadcast(self, key, value, out, priority=0):
        """`init` each key with `value`, then `pull` it into `out`.

        Args:
            key (int, str or list): the key, or a list of keys paired with a list of
                entries.
            priority (int): MXNet's scheduling priority of the operation; accepted, no effect
                here (operations run in order) (default 0).

        Example::

            kv = mx.kv.create('local')
            outs = [nd.zeros((2,)), nd.zeros((2,))]
            kv.broadcast('w', nd.ones((2,)) * 5, out=outs)
            outs[1].asnumpy().tolist()   # [5.0, 5.0]
        """
        self.init(key, value)
        self.pull(key, out, priority)

    def row_sparse_pull(self, key, out=None, priority=0, row_ids=None):
        """Copy the rows `row_ids` of each key's stored value into `out`: row_sparse arrays
        (one per device) that then hold those rows only (rows the store does not hold stay
        out, as ``nd.sparse.retain``). This is how workers read a large sparse weight kept in
        the store: only the rows a batch uses.

        Args:
            key: a key or a list of keys.
            out: a RowSparseNDArray or a list (one per device; per key for several keys).
            row_ids: an NDArray of row numbers (repeats allowed), or a list of them, one per
                `out`.
            priority (int): MXNet's scheduling priority of the operation; accepted, no effect
                here (operations run in order) (default 0).

        Raises:
            ValueError: a key not initialized, `out` not row_sparse, a row_ids list whose
                length does not match `out`, or no `row_ids`.

        Example::

            kv = mx.kv.create('local')
            kv.init('w', nd.ones((100, 4)).tostype('row_sparse'))
            out = nd.sparse.zeros('row_sparse', (100, 4))
            kv.row_sparse_pull('w', out=out, row_ids=nd.array([3, 7, 3]))
            out.indices.asnumpy().tolist()   # [3, 7]: the rows asked for
        """
        if out is None or row_ids is None:
            raise ValueError("KVStore.row_sparse_pull: out and row_ids must be given")
        for k, outs in self._keyed_pairs("row_sparse_pull", key, out):
            ids = _as_list(row_ids) if not isinstance(key, (list, tuple)) else None
            if ids is None:
                ids = _as_list(row_ids[list(key).index(k)])
            if len(ids) == 1:
                ids = ids * len(outs)
            if len(ids) != len(outs):
                raise ValueError(f"KVStore.row_sparse_pull: key {k!r} has {len(outs)} outs but "
                                 f"{len(ids)} row_ids; give one row_ids array or one per out")
            stored = self._stored("row_sparse_pull", k)
            for o, rid in zip(outs, ids):
                if o.stype != "row_sparse":
                    # MXNet's engine refuses a dense out (an MXNetError)
                    raise MXNetValueError(f"KVStore.row_sparse_pull: out must be row_sparse, "
                                          f"got stype {o.stype!r} for key {k!r}")
                _retain_into(o, stored, rid)

    def set_gradient_compression(self, compression_params):
        """Compress gradients between workers.

        Args:
            compression_params (dict): e.g. ``{'type': '2bit', 'threshold': 0.5}`` (refused).

        Raises:
            NotImplementedError: always: a single process sends no gradients anywhere.

        Example::

            kv = mx.kv.create('local')
            try:
                kv.set_gradient_compression({'type': '2bit', 'threshold': 0.5})
            except NotImplementedError:
                print('no gradient compression in a single process')
        """
        raise NotImplementedError("KVStore.set_gradient_compression: gradient compression "
                                  "(2bit/1bit) applies to distributed training, which gluonlite "
                                  "does not have")

    # ---- optimizer -------------------------------------------------------------------------
    def set_optimizer(self, optimizer):
        """Apply `optimizer` to the stored values on every push (its updater keeps the
        states, per key).

        Example::

            kv = mx.kv.create('local')
            kv.init(0, nd.ones((2,)))
            kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.5))
            kv.push(0, nd.ones((2,)))   # the pushed value is a gradient
            out = nd.zeros((2,)); kv.pull(0, out=out)
            out.asnumpy().tolist()   # [0.5, 0.5]: 1 - 0.5 * 1
        """
        self._optimizer = optimizer
        self._set_updater(opt.get_updater(optimizer))

    def _set_updater(self, updater):
        """Call ``updater(key, merged_value, stored_value)`` on every push."""
        self._updater = updater

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """Save the optimizer's states (and scalar hyperparameters and step counts) to
        `fname`, in the file format of `gluon.Trainer.save_states`. Keys must be ints.

        Args:
            dump_optimizer (bool): accepted for MXNet's signature; the file always holds the
                optimizer's scalar settings and update counts (default False).

        Raises:
            ValueError: no optimizer set (`set_optimizer`).

        Example::

            kv = mx.kv.create('local')
            kv.init(0, nd.ones((2,)))
            kv.set_optimizer(mx.optimizer.create('adam'))
            kv.push(0, nd.ones((2,)))
            kv.save_optimizer_states('kv.states')   # Adam's mean and variance
        """
        if self._updater is None:
            raise ValueError("KVStore.save_optimizer_states: no optimizer is set (call "
                             "set_optimizer first)")
        self._check_int_keys("save_optimizer_states")
        saved_states.save_states(fname, self._updater.optimizer, self._updater.states,
                                   self._slots())

    def load_optimizer_states(self, fname):
        """Load states saved by `save_optimizer_states` into the optimizer's updater.

        Args:
            fname (str): the path of the states file.

        Raises:
            ValueError: no optimizer set, or a file that does not fit (named).

        Example::

            kv = mx.kv.create('local')
            kv.init(0, nd.ones((2,)))
            kv.set_optimizer(mx.optimizer.create('adam'))
            kv.push(0, nd.ones((2,)))
            kv.save_optimizer_states('kv.states')
            kv.load_optimizer_states('kv.states')
        """
        if self._updater is None:
            raise ValueError("KVStore.load_optimizer_states: no optimizer is set (call "
                             "set_optimizer first)")
        self._check_int_keys("load_optimizer_states")
        o = self._updater.optimizer
        states, counts, scalars = saved_states.load_states(fname, o, self._slots())
        for k, v in scalars.items():
            if hasattr(o, k):
                setattr(o, k, v)
        o._index_update_count.clear()
        o._index_update_count.update(counts)
        self._updater.states = {
            k: saved_states.fill_like(o.create_state_multi_precision(k, self._store[k])
                          if k in self._store else None, st, None)
            for k, st in states.items()}

    def _check_int_keys(self, what):
        bad = [k for k in self._store if not isinstance(k, (int, np.integer))]
        if bad:
            raise ValueError(f"KVStore.{what}: optimizer states are saved by int key; key "
                             f"{bad[0]!r} is a {type(bad[0]).__name__}")

    def _slots(self):
        return {int(k): _Slot(k, v) for k, v in self._store.items()}

    def _barrier(self):
        """Wait for every worker: a no-op with one."""

    def _send_command_to_servers(self, head, body):
        """Send a command to the parameter servers.

        Raises:
            NotImplementedError: there are no servers in a single process.
        """
        raise NotImplementedError("KVStore._send_command_to_servers: gluonlite has no "
                                  "parameter servers (distributed training)")


class _Slot:
    """A stored value seen as the states file sees a Parameter: a name, a shape, a context."""

    def __init__(self, key, arr):
        self.name, self.shape, self._ctx = f"key {key}", tuple(arr.shape), arr.context

    def list_ctx(self):
        return [self._ctx]


_LOCAL_STORES.update(dict.fromkeys(_LOCAL_TYPES, KVStore))
