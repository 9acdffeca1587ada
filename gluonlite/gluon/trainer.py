"""`Trainer`: applies an optimizer to a set of Parameters after `backward`, over one or
several contexts, with MXNet 1.x's kvstore modes.

With parameters on several contexts, each context's gradient is summed over all of them
(through a `gluonlite.kvstore` store) before the update, so every copy stays equal:

- update on kvstore (the default for a 'device'/'local' store): the store keeps one copy of
  each weight, applies the optimizer to it with the summed gradient, and copies the result
  back to every context;
- otherwise (``update_on_kvstore=False``, or a store without optimizer support): the summed
  gradient is written back to every context and one updater per context updates its copy.

With one context no store is made (``kvstore`` strings are ignored then, as in MXNet).

Sparse storage follows MXNet's rules too: a row_sparse weight (``Parameter(stype=
'row_sparse')``) lives whole in a store that updates it (made even for one context);
workers read the rows they need with `Parameter.row_sparse_data`. Dense weights with
row_sparse gradients are updated on the workers (lazily: only the gradient's rows) unless
``update_on_kvstore=True``.
"""
import os

import numpy as np

from .. import kvstore as kvs
from .. import optimizer as opt
from ..optimizer import saved_states
from .parameter import GluonUsageError, Parameter, ParameterDict

__all__ = ["Trainer"]


class Trainer:
    """Update parameters from their gradients with an optimizer.

    Args:
        params: a ParameterDict or dict (taken in sorted name order, as MXNet) or a list of
            Parameters (``net.collect_params()``).
        optimizer: a name ('sgd', 'adam', ...) or an Optimizer.
        optimizer_params: keyword arguments of the optimizer, e.g.
            ``{'learning_rate': 0.1, 'momentum': 0.9, 'wd': 1e-4}``.
        kvstore: 'device' (default), 'local', a KVStore, or None: how gradients of several
            contexts are summed (see the module docstring).
        compression_params: must be None (see Raises).
        update_on_kvstore: True to update on the store, False to update on each context,
            None to choose (the store's choice, or the environment variable
            ``MXNET_UPDATE_ON_KVSTORE``, default 1).

    Example::

        net = nn.Dense(1, in_units=2); net.initialize()
        loss_fn = gluon.loss.L2Loss()
        x, y = nd.ones((4, 2)), nd.zeros((4, 1))
        trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(x.shape[0])

    Raises:
        ValueError: `params` is not a collection of Parameters; parameters initialized on
            different sets of contexts; optimizer_params given with an Optimizer instance.
        NotImplementedError: `compression_params` (gradient compression is for distributed
            training, which gluonlite does not have).
    """

    def __init__(self, params, optimizer, optimizer_params=None, kvstore="device",
                 compression_params=None, update_on_kvstore=None):
        if isinstance(params, (dict, ParameterDict)):
            params = [params[k] for k in sorted(params.keys())]
        if not isinstance(params, (list, tuple)):
            raise ValueError(f"Trainer: first argument must be a list or dict of Parameters, "
                             f"got {type(params).__name__}")
        self._params = []
        self._param2idx = {}
        self._contains_sparse_weight = self._contains_sparse_grad = False
        for i, p in enumerate(params):
            if not isinstance(p, Parameter):
                raise ValueError(f"Trainer: params[{i}] is a {type(p).__name__}, not a "
                                 "Parameter")
            self._param2idx[p.name] = i
            self._params.append(p)
            p._set_trainer(self)
            self._contains_sparse_weight |= p._stype != "default"
            self._contains_sparse_grad |= p._grad_stype != "default"
        if compression_params:
            raise NotImplementedError(
                f"Trainer: compression_params={compression_params!r}: gradient compression "
                "(2bit/1bit) is for distributed training, which gluonlite does not have; "
                "leave compression_params unset")
        if kvstore is not None and not isinstance(kvstore, (str, kvs.KVStoreBase)):
            raise TypeError(f"Trainer: kvstore must be a str, a KVStore or None, got "
                            f"{type(kvstore).__name__}")
        self._compression_params = compression_params
        self._contexts = self._check_contexts()
        self._init_optimizer(optimizer, dict(optimizer_params or {}))
        self._scale = self._optimizer.rescale_grad
        self._kvstore_params = {"kvstore": kvstore, "update_on_kvstore": update_on_kvstore}
        self._kv_initialized = False
        self._kvstore = None
        self._update_on_kvstore = None
        self._distributed = None
        self._params_to_init = []
        self._reset_kvstore()

    # ---- set-up ----------------------------------------------------------------------------
    def _check_contexts(self):
        contexts, first = None, None
        for p in self._params:
            try:
                ctx = p.list_ctx()
            except (RuntimeError, ValueError):
                continue  # not initialized yet: checked again when the store is made
            if contexts is not None and ctx != contexts:
                raise ValueError(f"Trainer: all Parameters must be initialized on the same "
                                 f"contexts, but Parameter {p.name!r} is on {ctx} while "
                                 f"{first!r} is on {contexts}")
            contexts, first = ctx, p.name
        return contexts

    def _init_optimizer(self, optimizer, optimizer_params):
        param_dict = dict(enumerate(self._params))
        if isinstance(optimizer, opt.Optimizer):
            if optimizer_params:
                raise ValueError("Trainer: optimizer_params must be empty when optimizer is an "
                                 "Optimizer instance")
            self._optimizer = optimizer
            optimizer.param_dict = param_dict
        else:
            self._optimizer = opt.create(optimizer, param_dict=param_dict, **optimizer_params)
        self._updaters = [opt.get_updater(self._optimizer)
                          for _ in (self._contexts or [None])]

    def _reset_kvstore(self):
        """Forget the store: it is made again (and every parameter copied into it) at the next
        step. `Parameter.set_data` calls this when the store's copy goes stale."""
        self._kv_initialized = False
        self._kvstore = None
        self._distributed = None
        self._update_on_kvstore = None
        self._params_to_init = list(self._params)

    def _init_kvstore(self):
        """Make the store (or none) and decide where updates run, by MXNet's rules: sparse
        weights live in a store that updates them (always made, even for one context);
        dense weights with sparse gradients are updated on the workers unless
        ``update_on_kvstore=True``; dense ones as configured.

        Raises:
            ValueError: ``update_on_kvstore=True`` with a store that cannot run an optimizer;
                ``update_on_kvstore=False`` with sparse weights; a custom store with sparse
                gradients.
            TypeError: sparse weights with ``kvstore=None``.
        """
        if self._contexts is None:
            self._contexts = self._check_contexts()
            if self._contexts is not None and len(self._updaters) != len(self._contexts):
                self._updaters = [opt.get_updater(self._optimizer) for _ in self._contexts]
        config = self._kvstore_params
        n_ctx = len(self._contexts) if self._contexts else 1
        self._distributed = False
        if self._contains_sparse_weight:
            kvstore, update_on_kvstore = _create_sparse_kvstore(config["kvstore"])
            if config["update_on_kvstore"] is False:
                raise ValueError("Cannot set update_on_kvstore=False when sparse weights "
                                 "are present.")
        elif self._contains_sparse_grad:
            # one machine: the workers update from the summed sparse gradients (faster)
            kvstore, _ = _create_kvstore(config["kvstore"], n_ctx, self._params)
            update_on_kvstore = False
            if config["update_on_kvstore"] is not None:
                update_on_kvstore = bool(config["update_on_kvstore"])
            if kvstore is not None and not isinstance(kvstore, kvs.KVStore):
                raise ValueError(f"Cannot use {type(kvstore).__name__} for multi-device "
                                 "training with sparse gradients")
        else:
            kvstore, update_on_kvstore = _create_kvstore(config["kvstore"], n_ctx,
                                                         self._params)
            if config["update_on_kvstore"] is not None:
                update_on_kvstore = bool(config["update_on_kvstore"])
        if kvstore is not None and update_on_kvstore and not kvstore.is_capable(
                kvs.KVStoreBase.OPTIMIZER):
            if config["update_on_kvstore"]:
                raise ValueError(f"Trainer: update_on_kvstore=True needs a kvstore that can run "
                                 f"the optimizer, but {type(kvstore).__name__} cannot; set "
                                 "update_on_kvstore=False")
            update_on_kvstore = False
        if kvstore is not None:
            if update_on_kvstore:
                kvstore.set_optimizer(self._optimizer)
            self._kvstore = kvstore
            self._update_on_kvstore = update_on_kvstore
        else:
            self._kvstore = None
            self._update_on_kvstore = None
        self._kv_initialized = True

    def _init_params(self):
        """Copy every initialized parameter into the store (deferred ones wait)."""
        waiting = []
        for p in self._params_to_init:
            if p._data is None:
                waiting.append(p)
            elif self._kvstore is not None:
                arrays = p._all_data()
                if p._stype != "default":
                    # the store keeps the whole weight; workers pull the rows they use
                    self._kvstore.init(self._param2idx[p.name], arrays[0])
                else:
                    self._kvstore.broadcast(self._param2idx[p.name], arrays[0], arrays)
        self._params_to_init = waiting

    def _prepare(self):
        if not self._kv_initialized:
            self._init_kvstore()
        if self._params_to_init:
            self._init_params()

    def _row_sparse_pull(self, parameter, out, row_id, full_idx=False):
        """Fill `out` (an array or a list, one per context) with the rows `row_id` of
        `parameter` from the store (every row with `full_idx`)."""
        self._prepare()
        idx = self._param2idx[parameter.name]
        if full_idx:
            self._kvstore.pull(idx, out=out, priority=-idx, ignore_sparse=False)
        else:
            self._kvstore.row_sparse_pull(idx, out=out, row_ids=row_id, priority=-idx)

    # ---- properties ------------------------------------------------------------------------
    @property
    def optimizer(self):
        """The Optimizer.

        Example::

            net = nn.Dense(1, in_units=2); net.initialize()
            trainer = gluon.Trainer(net.collect_params(), 'adam')
            type(trainer.optimizer).__name__   # Adam
        """
        return self._optimizer

    @property
    def learning_rate(self):
        """The optimizer's current learning rate (its scheduler's, when it has one).

        Example::

            net = nn.Dense(1, in_units=2); net.initialize()
            trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
            trainer.learning_rate   # 0.1
        """
        return self._optimizer.learning_rate

    def set_learning_rate(self, lr):
        """Change the optimizer's learning rate.

        Args:
            lr (float): the new learning rate.

        Raises:
            UserWarning (an exception, as MXNet raises it): the optimizer has an
                lr_scheduler, which owns the learning rate.

        Example::

            net = nn.Dense(1, in_units=2); net.initialize()
            trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
            trainer.set_learning_rate(0.01)
            trainer.learning_rate   # 0.01
        """
        self._optimizer.set_learning_rate(lr)

    # ---- training --------------------------------------------------------------------------
    def step(self, batch_size, ignore_stale_grad=False):
        """One update: sum the gradients over contexts (`allreduce_grads`) and apply the
        optimizer (`update`), gradients rescaled by ``1 / batch_size`` (the loss was summed
        over the batch by `backward`).

        Args:
            batch_size: the number of samples the gradients were summed over (1 if the loss
                was already averaged).
            ignore_stale_grad: skip parameters whose gradient no backward has written since
                the last step (and parameters not initialized yet) instead of raising.

        Raises:
            UserWarning (an exception, as MXNet raises it): a stale gradient, without
                `ignore_stale_grad`.

        Example::

            net = nn.Dense(1, in_units=2); net.initialize(mx.init.One())
            trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.5})
            with autograd.record():
                loss = net(nd.ones((1, 2))).sum()   # d loss / d bias = 1
            loss.backward()
            trainer.step(1)
            net.bias.data().asnumpy()   # [-0.5]: 0 - 0.5 * 1
        """
        self._optimizer.rescale_grad = self._scale / batch_size
        self._prepare()
        self._allreduce_grads()
        self._update(ignore_stale_grad)

    def allreduce_grads(self):
        """Sum each parameter's gradient over its contexts, in place (every context then
        holds the sum); for gradient clipping and such between this and `update`.

        Raises:
            GluonUsageError (a ValueError): the trainer updates on the kvstore (there the
                reduction and update are one step; create it with update_on_kvstore=False).

        Example::

            net = nn.Dense(1, in_units=2); net.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
            trainer = gluon.Trainer(net.collect_params(), 'sgd', update_on_kvstore=False)
            xs = gluon.utils.split_and_load(nd.ones((4, 2)), [mx.cpu(0), mx.cpu(1)])
            with autograd.record():
                losses = [net(x).sum() for x in xs]
            autograd.backward(losses)
            trainer.allreduce_grads()   # both contexts now hold the summed gradient
            trainer.update(4)
        """
        self._prepare()
        if self._kvstore is not None and self._update_on_kvstore:
            raise GluonUsageError("Trainer.allreduce_grads: not supported when parameters are "
                                  "updated on the kvstore; create the Trainer with "
                                  "update_on_kvstore=False")
        self._allreduce_grads()

    def _allreduce_grads(self):
        if self._kvstore is None:
            return
        for i, p in enumerate(self._params):
            if p.grad_req == "null" or p._data is None:
                continue
            grads = p.list_grad()
            if grads[0].stype != "default":
                # sparse gradients: push, then pull the dense weight (updated on the store) or
                # the summed gradient; a sparse weight stays in the store until pulled by rows
                self._kvstore.push(i, grads, priority=-i)
                if p._stype == "default":
                    back = p._all_data() if self._update_on_kvstore else grads
                    self._kvstore.pull(i, back, priority=-i, ignore_sparse=False)
            elif self._update_on_kvstore:
                self._kvstore.pushpull(i, grads, out=p.list_data(), priority=-i)
            else:
                self._kvstore.pushpull(i, grads, priority=-i)

    def update(self, batch_size, ignore_stale_grad=False):
        """Apply the optimizer to gradients already reduced by `allreduce_grads`, rescaled by
        ``1 / batch_size``.

        Args:
            batch_size: the number of samples the gradients were summed over (1 if the loss
                was already averaged).
            ignore_stale_grad: skip parameters whose gradient no backward has written since
                the last update (and parameters not initialized yet) instead of raising
                (default False).

        Raises:
            GluonUsageError (a ValueError): the trainer updates on the kvstore (use `step`, or
                create it with update_on_kvstore=False).
            UserWarning (an exception, as MXNet raises it): a stale gradient, without
                `ignore_stale_grad`.

        Example::

            net = nn.Dense(1, in_units=2); net.initialize()
            trainer = gluon.Trainer(net.collect_params(), 'sgd', update_on_kvstore=False)
            with autograd.record():
                loss = net(nd.ones((4, 2))).sum()
            loss.backward()
            trainer.allreduce_grads()   # a gradient clipping step could go here
            trainer.update(4)
        """
        self._prepare()
        if self._kvstore is not None and self._update_on_kvstore:
            raise GluonUsageError("Trainer.update: not supported when parameters are updated "
                                  "on the kvstore; use step(), or create the Trainer with "
                                  "update_on_kvstore=False")
        self._optimizer.rescale_grad = self._scale / batch_size
        self._update(ignore_stale_grad)

    def _update(self, ignore_stale_grad=False):
        work = [[] for _ in self._updaters]
        for i, p in enumerate(self._params):
            if p.grad_req == "null":
                continue
            if p._data is None:
                if ignore_stale_grad:
                    continue
                p.data()  # raises the parameter's own not-initialized error
            if not ignore_stale_grad:
                for data in p._all_data():
                    if not data._fresh_grad:
                        raise UserWarning(
                            f"Gradient of Parameter `{p.name}` on context {data.context} has "
                            "not been updated by backward since last `step`. This could mean a "
                            "bug in your model that made it only use a subset of the "
                            "Parameters (Blocks) for this iteration. If you are intentionally "
                            "only using a subset, call step with ignore_stale_grad=True to "
                            "suppress this warning and skip updating of Parameters with stale "
                            "gradient")
            if self._kvstore is not None and self._update_on_kvstore:
                continue
            for todo, data, grad in zip(work, p._all_data(), p.list_grad()):
                if not ignore_stale_grad or data._fresh_grad:
                    todo.append((i, grad, data))
                    data._fresh_grad = False
        for k, (updater, todo) in enumerate(zip(self._updaters, work)):
            if todo:
                self._count_updates_of(k)
                for i, grad, data in todo:
                    updater(i, grad, data)
        if len(self._updaters) > 1:
            self._count_updates_of(0)

    def _count_updates_of(self, k):
        """Make the optimizer count updates (Adam's bias correction reads them) for context
        `k` apart: each context's copy is updated once per step, as MXNet's optimizer keeps
        one count per device."""
        o = self._optimizer
        counts = getattr(self, "_counts_per_context", None)
        if counts is None or len(counts) != len(self._updaters):
            counts = [o._index_update_count] + [dict(o._index_update_count)
                                                for _ in self._updaters[1:]]
            self._counts_per_context = counts
        o._index_update_count = counts[k]

    # ---- states ----------------------------------------------------------------------------
    def save_states(self, fname):
        """Save the optimizer's states (momenta, Adam moments), step counts and scalar
        hyperparameters to `fname`, atomically, in MXNet's NDArray-list format (no pickle;
        see `gluonlite.optimizer.saved_states`). Save the parameters separately
        (`save_parameters`).

        Example::

            net = nn.Dense(1, in_units=2); net.initialize()
            trainer = gluon.Trainer(net.collect_params(), 'adam')
            with autograd.record():
                loss = net(nd.ones((4, 2))).sum()
            loss.backward(); trainer.step(4)
            net.save_parameters('net.params'); trainer.save_states('net.states')
        """
        self._prepare()
        if self._update_on_kvstore:
            self._kvstore.save_optimizer_states(fname, dump_optimizer=True)
        else:
            saved_states.save_states(fname, self._optimizer, self._updaters[0].states,
                                       self._params)

    def load_states(self, fname):
        """Restore what `save_states` wrote: training then continues exactly as if it had
        not stopped. The learning rate and other hyperparameters saved are restored too (as
        MXNet restores its pickled optimizer); `lr_mult`/`wd_mult` stay the parameters' own.

        Args:
            fname: the path of the file `save_states` wrote.

        Raises:
            ValueError: a malformed or truncated file, states saved for another optimizer, or
                a state whose shape does not match its parameter (the message names the
                file); nothing is changed then.
            OSError: the file cannot be read.

        Example::

            net = nn.Dense(1, in_units=2); net.initialize()
            trainer = gluon.Trainer(net.collect_params(), 'adam', {'learning_rate': 0.01})
            trainer.save_states('net.states')
            trainer.set_learning_rate(0.5)
            trainer.load_states('net.states')
            trainer.learning_rate   # 0.01
        """
        self._prepare()
        if self._update_on_kvstore:
            self._kvstore.load_optimizer_states(fname)
            self._optimizer = self._kvstore._updater.optimizer
            return
        states, counts, scalars = saved_states.load_states(fname, self._optimizer,
                                                             self._params)
        o = self._optimizer
        for k, v in scalars.items():
            if hasattr(o, k):
                setattr(o, k, v)
        self._counts_per_context = [dict(counts) for _ in self._updaters]
        o._index_update_count = self._counts_per_context[0]
        contexts = self._contexts or [None]
        for updater, ctx in zip(self._updaters, contexts):
            updater.states = {i: self._state_like(i, st, ctx) for i, st in states.items()}

    def _state_like(self, i, state, ctx):
        """Loaded raw state arrays in the form the optimizer keeps them (NDArrays or raw
        device arrays: whichever its `create_state` makes), copied for context `ctx`."""
        if state is None:
            return None
        p = self._params[i]
        template = self._optimizer.create_state(i, p._all_data()[0] if ctx is None
                                                else p._check_and_get(p._data, ctx))
        return saved_states.fill_like(template, state, ctx)


def _create_sparse_kvstore(kvstore):
    """(the store, True): sparse weights are always kept and updated in a store.

    Raises:
        TypeError: `kvstore` is neither a KVStore nor a name.
        ValueError: the store cannot run an optimizer.
    """
    if isinstance(kvstore, kvs.KVStoreBase):
        kv = kvstore
    elif isinstance(kvstore, str):
        kv = kvs.create(kvstore)
    else:
        raise TypeError(f"Cannot create {kvstore!r} KVStore with row_sparse parameters. The "
                        "type must be KVStore or str.")
    if not kv.is_capable(kvs.KVStoreBase.OPTIMIZER):
        raise ValueError(f"KVStore with sparse weight requires optimizer support. However, "
                         f"{type(kv).__name__} does not support optimizer. Use "
                         "kvstore='local' or 'device'.")
    return kv, True


def _create_kvstore(kvstore, num_device, params):
    """(store or None, whether to update on it), as MXNet's choice: no store for one device
    unless a KVStore object is given; a 'local' store updates on the workers when a parameter
    is very large (over 16M elements); ``MXNET_UPDATE_ON_KVSTORE=0`` turns updating on the
    store off."""
    update_on_kvstore = bool(int(os.getenv("MXNET_UPDATE_ON_KVSTORE", "1")))
    if kvstore is None:
        kv = None
    elif isinstance(kvstore, kvs.KVStoreBase):
        kv = kvstore
    elif num_device == 1 and "dist" not in kvstore:
        kv = None
    else:
        kv = kvs.create(kvstore)
        if kvstore == "local":
            sizes = [int(np.prod(p.shape)) for p in params if p.shape is not None]
            if sizes and max(sizes) > 1024 * 1024 * 16:
                update_on_kvstore = False
    if kv is None:
        return None, False
    return kv, update_on_kvstore and kv.is_capable(kvs.KVStoreBase.OPTIMIZER)
