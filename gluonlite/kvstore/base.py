"""`mx.kvstore.base`: the interface every key-value store implements (`KVStoreBase`), the
registry `create` reads, and `TestStore`, the store without an optimizer (MXNet 1.9.1's
``kvstore/base.py``)."""
__all__ = ["create", "KVStoreBase"]

# MXNet's names of single-machine stores: all one in-process store here, `KVStore`, which
# kvstore.py (a subclass of KVStoreBase, from this module) enters in _LOCAL_STORES for `create`.
_LOCAL_TYPES = ("local", "device", "local_update_cpu", "local_allreduce_cpu",
                "local_allreduce_device")
_LOCAL_STORES = {}


class KVStoreBase:
    """The interface of a key-value store (MXNet's `KVStoreBase`); subclasses registered with
    `KVStoreBase.register` can be made by `create(name)`.

    Every method here raises NotImplementedError; `KVStore` and `TestStore` implement them.

    Example::

        @mx.kv.KVStoreBase.register
        class EchoStore(mx.kv.TestStore):
            pass
        type(mx.kv.create('echostore')).__name__   # 'EchoStore'
        del mx.kv.KVStoreBase.kv_registry['echostore']   # unregister again
    """

    OPTIMIZER = "optimizer"
    kv_registry = {}

    def broadcast(self, key, value, out, priority=0):
        """Initialize `key` with `value` and copy it to `out`.

        Args:
            priority (int): the operation's scheduling priority (default 0).

        Example::

            kv = mx.kv.create('teststore')
            outs = [nd.zeros((2,)), nd.zeros((2,))]
            kv.broadcast('w', nd.ones((2,)), out=outs)   # both outs now hold ones
        """
        raise NotImplementedError(f"{type(self).__name__}.broadcast")

    def pushpull(self, key, value, out=None, priority=0):
        """Sum `value` over devices and copy the result to `out` (or back into `value`).

        Args:
            key (int, str or list): the key, or a list of keys.
            priority (int): the operation's scheduling priority (default 0).

        Example::

            kv = mx.kv.create('teststore')
            grads = [nd.ones((2,)), nd.ones((2,)) * 2]
            kv.pushpull('g', grads)
            grads[0].asnumpy().tolist()   # [3.0, 3.0]: the sum, in every array
        """
        raise NotImplementedError(f"{type(self).__name__}.pushpull")

    def set_optimizer(self, optimizer):
        """Apply `optimizer` to stored values on every push.

        Example::

            kv = mx.kv.create('local')
            kv.init(0, nd.ones((2,)))
            kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.5))
            kv.push(0, nd.ones((2,)))   # stored: 1 - 0.5 * 1
        """
        raise NotImplementedError(f"{type(self).__name__}.set_optimizer")

    def is_capable(self, capability):
        """Whether the store has `capability` (``KVStoreBase.OPTIMIZER``).

        Example::

            mx.kv.create('local').is_capable(mx.kv.KVStoreBase.OPTIMIZER)   # True
            mx.kv.create('teststore').is_capable('optimizer')   # False
        """
        raise NotImplementedError(f"{type(self).__name__}.is_capable")

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """Save the optimizer states to `fname`.

        Args:
            dump_optimizer (bool): also save the optimizer's settings (default False).

        Example::

            kv = mx.kv.create('local')
            kv.init(0, nd.ones((2,)))
            kv.set_optimizer(mx.optimizer.create('adam'))
            kv.push(0, nd.ones((2,)))
            kv.save_optimizer_states('kv.states')
        """
        raise NotImplementedError(f"{type(self).__name__}.save_optimizer_states")

    def load_optimizer_states(self, fname):
        """Load optimizer states saved by `save_optimizer_states`.

        Args:
            fname (str): the path of the states file.

        Example::

            kv = mx.kv.create('local')
            kv.init(0, nd.ones((2,)))
            kv.set_optimizer(mx.optimizer.create('adam'))
            kv.push(0, nd.ones((2,)))
            kv.save_optimizer_states('kv.states')
            kv.load_optimizer_states('kv.states')
        """
        raise NotImplementedError(f"{type(self).__name__}.load_optimizer_states")

    @property
    def type(self):
        """The store's type name.

        Example::

            mx.kv.create('device').type   # 'device'
        """
        raise NotImplementedError(f"{type(self).__name__}.type")

    @property
    def rank(self):
        """This worker's rank.

        Example::

            mx.kv.create('local').rank   # 0
        """
        raise NotImplementedError(f"{type(self).__name__}.rank")

    @property
    def num_workers(self):
        """The number of workers.

        Example::

            mx.kv.create('local').num_workers   # 1
        """
        raise NotImplementedError(f"{type(self).__name__}.num_workers")

    @staticmethod
    def register(klass):
        """Class decorator: make `klass` available to `create` under its lowercased name.

        Raises:
            TypeError: `klass` is not a class.

        Example::

            @mx.kv.KVStoreBase.register
            class EchoStore(mx.kv.TestStore):
                pass
            mx.kv.create('echostore').type   # 'teststore' (inherited)
            del mx.kv.KVStoreBase.kv_registry['echostore']   # unregister again
        """
        if not isinstance(klass, type):
            raise TypeError(f"KVStoreBase.register: expected a class, got {klass!r}")
        name = klass.__name__.lower()
        if name in KVStoreBase.kv_registry:
            import warnings
            warnings.warn(f"KVStoreBase.register: replacing the registered store {name!r}",
                          stacklevel=2)
        KVStoreBase.kv_registry[name] = klass
        return klass


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _copy_into(dst, src_np):
    if tuple(dst.shape) != tuple(src_np.shape):
        raise ValueError(f"KVStore: cannot copy a value of shape {tuple(src_np.shape)} into an "
                         f"array of shape {tuple(dst.shape)}")
    if dst.stype != "default":
        dst[:] = src_np  # keeps the destination's sparse storage
        return
    dst._data[...] = dst._ctx.xp.asarray(src_np).astype(dst._data.dtype, copy=False)


def _host(a):
    """The values of NDArray `a` as a numpy array (from any device)."""
    return a.asnumpy()


@KVStoreBase.register
class TestStore(KVStoreBase):
    """A store without optimizer support (MXNet's example store, 'teststore'): `pushpull`
    sums over devices, `broadcast` copies. `gluon.Trainer` updates on the workers with it.

    Example::

        kv = mx.kv.create('teststore')
        grads = [nd.ones((2,)), nd.ones((2,))]
        kv.pushpull(0, grads)
        grads[1].asnumpy().tolist()   # [2.0, 2.0]
    """

    def broadcast(self, key, value, out, priority=0):
        """Copy `value` into every array of `out`.

        Args:
            key (int or str): the key (unused: nothing is stored).
            priority (int): MXNet's scheduling priority of the operation; accepted, no effect
                here (operations run in order) (default 0).

        Example::

            kv = mx.kv.create('teststore')
            out = nd.zeros((3,))
            kv.broadcast('w', nd.ones((3,)), out=out)
            out.asnumpy().tolist()   # [1.0, 1.0, 1.0]
        """
        src = _host(value)
        for o in _as_list(out):
            _copy_into(o, src)

    def pushpull(self, key, value, out=None, priority=0):
        """Sum the arrays of `value` and write the sum into `out` (or into `value`).

        Args:
            key (int or str): the key (unused: nothing is stored).
            priority (int): MXNet's scheduling priority of the operation; accepted, no effect
                here (operations run in order) (default 0).

        Example::

            kv = mx.kv.create('teststore')
            out = nd.zeros((2,))
            kv.pushpull('g', [nd.ones((2,)), nd.ones((2,))], out=out)
            out.asnumpy().tolist()   # [2.0, 2.0]
        """
        values = _as_list(value)
        total = sum(_host(v) for v in values)
        for o in _as_list(out) if out is not None else values:
            _copy_into(o, total)

    @staticmethod
    def is_capable(capability):
        """No capability: ``is_capable('optimizer')`` is False (a static method, as in MXNet,
        so ``type(kv).is_capable(...)`` works too).

        Args:
            capability (str): the capability's name, e.g. ``KVStoreBase.OPTIMIZER``
                (case-insensitive).

        Raises:
            ValueError: an unknown capability.

        Example::

            mx.kv.TestStore.is_capable('optimizer')   # False
        """
        if capability.lower() == KVStoreBase.OPTIMIZER:
            return False
        raise ValueError(f"TestStore.is_capable: unknown capability {capability!r}")

    @property
    def type(self):
        """'teststore'.

        Example::

            mx.kv.create('teststore').type   # 'teststore'
        """
        return "teststore"

    @property
    def rank(self):
        """0.

        Example::

            mx.kv.create('teststore').rank   # 0
        """
        return 0

    @property
    def num_workers(self):
        """The number of workers; always 1.

        Example::

            mx.kv.create('teststore').num_workers   # 1
        """
        return 1


def create(name="local"):
    """A key-value store by type name.

    Args:
        name: 'local' or 'device' (or MXNet's 'local_update_cpu', 'local_allreduce_cpu',
            'local_allreduce_device'): the single-process `KVStore`; a name registered with
            `KVStoreBase.register` ('teststore'): that class.

    Raises:
        TypeError: `name` is not a str.
        NotImplementedError: 'dist_*', 'nccl', 'horovod', 'byteps': distributed or NCCL
            stores (gluonlite trains in one process).
        ValueError: an unknown name.

    Example::

        kv = mx.kv.create('device')
        kv.type, kv.num_workers   # ('device', 1)
    """
    if not isinstance(name, str):
        raise TypeError(f"kvstore.create: name must be a str, got {type(name).__name__}")
    lname = name.lower()
    if lname in KVStoreBase.kv_registry:
        return KVStoreBase.kv_registry[lname]()
    if lname in _LOCAL_STORES:
        return _LOCAL_STORES[lname](lname)
    if lname.startswith("dist") or lname in ("nccl", "horovod", "byteps", "p3"):
        raise NotImplementedError(
            f"kvstore.create({name!r}): distributed and NCCL key-value stores are not "
            "implemented; gluonlite trains in one process (use 'local' or 'device', which "
            "sum gradients over all the contexts of this process)")
    raise ValueError(f"kvstore.create: unknown kvstore type {name!r}; known: "
                     f"{', '.join(_LOCAL_TYPES + tuple(sorted(KVStoreBase.kv_registry)))}")
