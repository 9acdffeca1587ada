"""`mx.kvstore.kvstore_server`: `KVStoreServer`, the parameter-server process of MXNet's
distributed training, which gluonlite (one process) refuses (MXNet 1.9.1's
``kvstore/kvstore_server.py``)."""

__all__ = ["KVStoreServer"]


class KVStoreServer:
    """A parameter server process of distributed training (MXNet's `KVStoreServer`).

    Args:
        kvstore (KVStore): the store the server would serve (refused).

    Raises:
        NotImplementedError: on construction: gluonlite has no distributed training.

    Example::

        try:
            mx.kv.KVStoreServer()
        except NotImplementedError:
            print('no parameter servers in gluonlite')
    """

    def __init__(self, kvstore=None):
        raise NotImplementedError("KVStoreServer: gluonlite has no distributed training "
                                  "(parameter servers); use a 'local' or 'device' KVStore")
