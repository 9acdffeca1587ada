"""`mx.kv` / `mx.kvstore`: MXNet's key-value store for data-parallel training, single process.

A `KVStore` keeps one value per key. `push` sums the values given for a key (one per device)
and, when an optimizer is set, applies it to the stored value (the "update on kvstore" mode
of `gluon.Trainer`), otherwise stores the sum; `pull` copies the stored value out to every
device. `create('local')` and `create('device')` (and MXNet's other single-machine names)
make one; they behave alike here, since every device of a gluonlite process is reached from
the same Python process. Distributed stores (``dist_sync``, ``dist_async``, ...) and
Horovod/BytePS/NCCL raise NotImplementedError: gluonlite has no parameter server.

Sparse values: a row_sparse value is stored row_sparse; pushing row_sparse arrays sums their
rows (no dense array is made); `row_sparse_pull` copies the rows a worker asks for.

The modules are MXNet 1.9.1's: `base` (the `KVStoreBase` interface, its registry, `TestStore`
and `create`), `kvstore` (`KVStore`) and `kvstore_server` (`KVStoreServer`).

Example::

    kv = mx.kv.create('local')
    kv.init(3, mx.nd.ones((2, 3)))
    kv.push(3, [mx.nd.ones((2, 3)), mx.nd.ones((2, 3))])   # stored: 2
    out = mx.nd.zeros((2, 3)); kv.pull(3, out=out)        # out: 2
"""
from .base import KVStoreBase, TestStore, create
from .kvstore import KVStore
from .kvstore_server import KVStoreServer

__all__ = ["KVStoreBase", "KVStore", "TestStore", "KVStoreServer", "create"]
