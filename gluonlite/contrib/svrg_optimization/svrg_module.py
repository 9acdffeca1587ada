"""`SVRGModule`: a `Module` trained with stochastic variance-reduced gradients."""
import logging

from ...context import cpu
from ...module.module import Module
from .svrg_optimizer import _SVRGOptimizer

__all__ = ["SVRGModule"]


class _EpochStart:
    """A data iterator that calls ``hook(epoch)`` each time an epoch starts iterating it."""

    def __init__(self, data, hook, first_epoch):
        self._data, self._hook, self._epoch = data, hook, first_epoch

    def __getattr__(self, name):
        return getattr(self._data, name)

    def __iter__(self):
        self._hook(self._epoch)
        self._epoch += 1
        return iter(self._data)

    def reset(self):
        self._data.reset()


class SVRGModule(Module):
    """A `Module` trained with SVRG: every `update_freq` epochs (in `fit`, or when
    `update_full_grads` is called) the weights are copied to an auxiliary module and the
    gradient of the whole training set is averaged there; each `update` then steps with
    ``g(w) - g_aux(snapshot) + full_gradient`` computed on the same batch.

    Args:
        symbol: the network's output Symbol (its loss), as for `Module`.
        data_names: the data inputs' names (default ``("data",)``).
        label_names: the label inputs' names (default ``("softmax_label",)``).
        logger: where progress is logged (default the `logging` module).
        context: the device, or a list of devices (default cpu()).
        work_load_list: the share of each device in a batch (default even).
        fixed_param_names: the parameters not updated (default None: all are).
        state_names: the inputs kept as states across batches (default None).
        group2ctxs: MXNet's model-parallel groups, as for `Module`.
        compression_params: MXNet's gradient compression, as for `Module` (not used).
        update_freq: the epochs between full-gradient computations (a positive int).

    Raises:
        ValueError: update_freq is not a positive int.

    Example::

        from gluonlite.contrib.svrg_optimization import SVRGModule
        x = np.random.uniform(0, 1, (40, 2))
        train_iter = mx.io.NDArrayIter(x, x.sum(axis=1), batch_size=10,
                                       label_name='lin_reg_label')
        fc = sym.FullyConnected(sym.var('data'), num_hidden=1, name='fc')
        net = sym.LinearRegressionOutput(fc, sym.var('lin_reg_label'), name='lro')
        mod = SVRGModule(net, data_names=['data'], label_names=['lin_reg_label'],
                         update_freq=2)
        mod.fit(train_iter, optimizer='sgd', optimizer_params={'learning_rate': 0.025},
                num_epoch=10, eval_metric='mse')
    """

    def __init__(self, symbol, data_names=("data",), label_names=("softmax_label",),
                 logger=logging, context=None, work_load_list=None, fixed_param_names=None,
                 state_names=None, group2ctxs=None, compression_params=None, update_freq=None):
        if context is None:
            context = cpu()
        super().__init__(symbol, data_names=data_names, label_names=label_names,
                         logger=logger, context=context, work_load_list=work_load_list,
                         fixed_param_names=fixed_param_names, state_names=state_names,
                         group2ctxs=group2ctxs, compression_params=compression_params)
        if isinstance(update_freq, bool) or not isinstance(update_freq, int) or update_freq <= 0:
            raise ValueError(f"SVRGModule: update_freq must be a positive int, got "
                             f"{update_freq!r}")
        self.update_freq = update_freq
        self._mod_aux = Module(symbol, data_names=data_names, label_names=label_names,
                               logger=logger, context=context, work_load_list=work_load_list,
                               fixed_param_names=fixed_param_names, state_names=state_names,
                               group2ctxs=group2ctxs, compression_params=compression_params)
        self._ctx_len = len(self._contexts)
        self._param_dict = None   # per context: name -> the full gradient (after update_full_grads)

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        """Bind this module and the auxiliary one (as `Module.bind`).

        Args:
            data_shapes: the data inputs' `DataDesc` (or ``(name, shape)`` pairs).
            label_shapes: the labels' (default None: no labels).
            for_training: bind for training (the auxiliary module is bound only then).
            inputs_need_grad: also compute the gradients of the data.
            force_rebind: bind again when already bound.
            shared_module: a bound module whose memory this one shares (not the auxiliary's).
            grad_req: 'write', 'add' or 'null' (default 'write').

        Example::

            from gluonlite.contrib.svrg_optimization import SVRGModule
            x = np.random.uniform(0, 1, (20, 2))
            it = mx.io.NDArrayIter(x, x.sum(axis=1), batch_size=10, label_name='y')
            fc = sym.FullyConnected(sym.var('data'), num_hidden=1, name='fc')
            mod = SVRGModule(sym.LinearRegressionOutput(fc, sym.var('y')),
                             data_names=['data'], label_names=['y'], update_freq=1)
            mod.bind(it.provide_data, it.provide_label); mod.init_params()
            mod._mod_aux.binded            # True: the auxiliary module too
        """
        super().bind(data_shapes, label_shapes, for_training, inputs_need_grad, force_rebind,
                     shared_module, grad_req)
        if for_training:
            self._mod_aux.bind(data_shapes, label_shapes, for_training, inputs_need_grad,
                               force_rebind, None, grad_req)

    def init_params(self, initializer=None, arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        """Initialize the parameters (as `Module.init_params`); the auxiliary module starts
        from the same values (later calls, as `set_params` makes, leave its snapshot).

        Args:
            initializer: the Initializer of parameters not given (default None: Uniform(0.01)).
            arg_params: {name: NDArray} of parameter values to start from (default None).
            aux_params: {name: NDArray} of auxiliary states to start from (default None).
            allow_missing: initialize the names `arg_params` lacks (else an error).
            force_init: initialize again when already initialized.
            allow_extra: accepted as `Module.init_params` accepts it.

        Example::

            from gluonlite.contrib.svrg_optimization import SVRGModule
            x = np.random.uniform(0, 1, (20, 2))
            it = mx.io.NDArrayIter(x, x.sum(axis=1), batch_size=10, label_name='y')
            fc = sym.FullyConnected(sym.var('data'), num_hidden=1, name='fc')
            mod = SVRGModule(sym.LinearRegressionOutput(fc, sym.var('y')),
                             data_names=['data'], label_names=['y'], update_freq=1)
            mod.bind(it.provide_data, it.provide_label); mod.init_params()
            mod._mod_aux.get_params()[0]['fc_weight']   # the same values
        """
        super().init_params(initializer=initializer, arg_params=arg_params,
                            aux_params=aux_params, allow_missing=allow_missing,
                            force_init=force_init, allow_extra=allow_extra)
        if self._mod_aux.binded and not self._mod_aux.params_initialized:
            args, auxs = self.get_params()
            self._mod_aux.init_params(arg_params=args, aux_params=auxs, force_init=True,
                                      allow_missing=False, allow_extra=True)

    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        """Make the `_SVRGOptimizer` that runs `optimizer` (a name, or an Optimizer) and
        install it as `Module.init_optimizer` does.

        Args:
            kvstore: the KVStore or its type name (default 'local').
            optimizer: the optimizer's registered name or an `Optimizer` (default 'sgd').
            optimizer_params: the named optimizer's arguments (dict or pairs); a name's
                `rescale_grad` defaults to 1 / batch size.
            force_init: make it again when one is installed (else the call keeps it).

        Example::

            from gluonlite.contrib.svrg_optimization import SVRGModule
            x = np.random.uniform(0, 1, (20, 2))
            it = mx.io.NDArrayIter(x, x.sum(axis=1), batch_size=10, label_name='y')
            fc = sym.FullyConnected(sym.var('data'), num_hidden=1, name='fc')
            mod = SVRGModule(sym.LinearRegressionOutput(fc, sym.var('y')),
                             data_names=['data'], label_names=['y'], update_freq=1)
            mod.bind(it.provide_data, it.provide_label); mod.init_params()
            mod.init_optimizer(optimizer_params={'learning_rate': 0.1})
            type(mod._optimizer).__name__  # '_SVRGOptimizer'
        """
        if self.optimizer_initialized and not force_init:
            return super().init_optimizer(kvstore, optimizer, optimizer_params, force_init)
        params = dict(optimizer_params)
        if isinstance(optimizer, str):
            desc = self._data_shapes[0]
            params.setdefault("rescale_grad", 1.0 / desc.shape[0])
        else:
            params["rescale_grad"] = optimizer.rescale_grad
        _, update_on_kv = self._create_kvstore(kvstore)
        n_dev = len(self._contexts)
        if update_on_kv:
            idx2name = dict(enumerate(self._param_names))
        else:
            idx2name = {i * n_dev + k: n for i, n in enumerate(self._param_names)
                        for k in range(n_dev)}
        if isinstance(optimizer, str):
            params["sym"] = self._symbol
        svrg = _SVRGOptimizer(default_optimizer=optimizer, param_idx2name=idx2name, **params)
        if not isinstance(optimizer, str) and not optimizer.idx2name:
            optimizer.idx2name = dict(idx2name)
        super().init_optimizer(kvstore=kvstore, optimizer=svrg, force_init=force_init)

    def forward(self, data_batch, is_train=None):
        """Forward this module and, in training, the auxiliary one on the same batch.

        Args:
            data_batch: a `DataBatch`.
            is_train: training mode (default None: as bound).

        Example::

            from gluonlite.contrib.svrg_optimization import SVRGModule
            x = np.random.uniform(0, 1, (20, 2))
            it = mx.io.NDArrayIter(x, x.sum(axis=1), batch_size=10, label_name='y')
            fc = sym.FullyConnected(sym.var('data'), num_hidden=1, name='fc')
            mod = SVRGModule(sym.LinearRegressionOutput(fc, sym.var('y')),
                             data_names=['data'], label_names=['y'], update_freq=1)
            mod.bind(it.provide_data, it.provide_label); mod.init_params()
            mod.forward(next(iter(it)))    # both modules, in training
        """
        super().forward(data_batch, is_train)
        train = self.for_training if is_train is None else is_train
        if train and self._mod_aux.binded:
            self._mod_aux.forward(data_batch, is_train=True)

    def backward(self, out_grads=None):
        """Backward this module and the auxiliary one.

        Args:
            out_grads: the head gradients (default None: the loss's own).

        Example::

            from gluonlite.contrib.svrg_optimization import SVRGModule
            x = np.random.uniform(0, 1, (20, 2))
            it = mx.io.NDArrayIter(x, x.sum(axis=1), batch_size=10, label_name='y')
            fc = sym.FullyConnected(sym.var('data'), num_hidden=1, name='fc')
            mod = SVRGModule(sym.LinearRegressionOutput(fc, sym.var('y')),
                             data_names=['data'], label_names=['y'], update_freq=1)
            mod.bind(it.provide_data, it.provide_label); mod.init_params()
            mod.forward(next(iter(it))); mod.backward()
        """
        super().backward(out_grads)
        if self._mod_aux.binded:
            self._mod_aux.backward(out_grads)

    def update_full_grads(self, train_data):
        """Snapshot the weights into the auxiliary module and average, over the batches of
        `train_data` (reset first), the gradient at the snapshot (summed over contexts).

        Args:
            train_data: the training DataIter.

        Example::

            from gluonlite.contrib.svrg_optimization import SVRGModule
            x = np.random.uniform(0, 1, (20, 2))
            it = mx.io.NDArrayIter(x, x.sum(axis=1), batch_size=10, label_name='y')
            fc = sym.FullyConnected(sym.var('data'), num_hidden=1, name='fc')
            mod = SVRGModule(sym.LinearRegressionOutput(fc, sym.var('y')),
                             data_names=['data'], label_names=['y'], update_freq=1)
            mod.bind(it.provide_data, it.provide_label); mod.init_params()
            mod.init_optimizer(optimizer_params={'learning_rate': 0.1})
            mod.update_full_grads(it)
            mod._param_dict[0]['fc_weight'].shape   # (1, 2)
        """
        args, auxs = self.get_params()
        self._mod_aux.set_params(args, auxs)
        train_data.reset()
        sums, nbatch = {}, 0
        for batch in train_data:
            self._mod_aux.forward(batch, is_train=True)
            self._mod_aux.backward()
            nbatch += 1
            for name in self._param_names:
                grads = self._mod_aux._grad_copies(name)
                if grads[0] is None:
                    continue
                total = grads[0].copyto(cpu())
                for g in grads[1:]:
                    total += g.copyto(cpu())
                sums[name] = total if name not in sums else sums[name] + total
        train_data.reset()
        full = {n: s / max(nbatch, 1) for n, s in sums.items()}
        self._param_dict = [{n: g.as_in_context(ctx) for n, g in full.items()}
                            for ctx in self._contexts]

    def update(self):
        """One optimizer step with the variance-reduced gradients (the plain ones until
        `update_full_grads` has run).

        Example::

            from gluonlite.contrib.svrg_optimization import SVRGModule
            x = np.random.uniform(0, 1, (20, 2))
            it = mx.io.NDArrayIter(x, x.sum(axis=1), batch_size=10, label_name='y')
            fc = sym.FullyConnected(sym.var('data'), num_hidden=1, name='fc')
            mod = SVRGModule(sym.LinearRegressionOutput(fc, sym.var('y')),
                             data_names=['data'], label_names=['y'], update_freq=1)
            mod.bind(it.provide_data, it.provide_label); mod.init_params()
            mod.init_optimizer(optimizer_params={'learning_rate': 0.1})
            mod.update_full_grads(it)
            mod.forward_backward(next(iter(it))); mod.update()
        """
        if self._param_dict is not None:
            for name in self._param_names:
                grads = self._grad_copies(name)
                if grads[0] is None or name not in self._param_dict[0]:
                    continue
                snaps = self._mod_aux._grad_copies(name)
                for k, (g, s) in enumerate(zip(grads, snaps)):
                    full = self._param_dict[k][name]
                    g[:] = g - s.as_in_context(g.context) + full / self._ctx_len
        super().update()

    def fit(self, train_data, eval_data=None, eval_metric="acc", epoch_end_callback=None,
            batch_end_callback=None, kvstore="local", optimizer="sgd",
            optimizer_params=(("learning_rate", 0.01),), eval_end_callback=None,
            eval_batch_end_callback=None, initializer=None, arg_params=None,
            aux_params=None, allow_missing=False, force_rebind=False, force_init=False,
            begin_epoch=0, num_epoch=None, validation_metric=None, monitor=None,
            sparse_row_id_fn=None):
        """`Module.fit`, with the full gradients computed at the start of every
        `update_freq`-th epoch.

        Args:
            train_data: the training `DataIter` (its full gradient is taken over it too).
            eval_data: a `DataIter` scored after each epoch (default None).
            eval_metric: the training metric (default 'acc').
            epoch_end_callback: called after each epoch (or a list of them).
            batch_end_callback: called after each batch (or a list of them).
            kvstore: the KVStore or its type (default 'local').
            optimizer: the optimizer's name or an `Optimizer` (default 'sgd').
            optimizer_params: its arguments (default learning rate 0.01).
            eval_end_callback: called after scoring `eval_data`.
            eval_batch_end_callback: called after each batch of `eval_data`.
            initializer: the Initializer of the parameters (default Uniform(0.01)).
            arg_params: parameter values to start from (default None).
            aux_params: auxiliary states to start from (default None).
            allow_missing: initialize the names `arg_params` lacks.
            force_rebind: bind again when already bound.
            force_init: initialize again when already initialized.
            begin_epoch: the first epoch's number (default 0).
            num_epoch: the number of epochs (required, as for `Module.fit`).
            validation_metric: the metric of `eval_data` (default `eval_metric`).
            monitor: a `Monitor` installed on the executors (default None).
            sparse_row_id_fn: MXNet's row-sparse pulls, passed on as `Module.fit` takes it.

        Example::

            from gluonlite.contrib.svrg_optimization import SVRGModule
            x = np.random.uniform(0, 1, (20, 2))
            it = mx.io.NDArrayIter(x, x.sum(axis=1), batch_size=10, label_name='y')
            fc = sym.FullyConnected(sym.var('data'), num_hidden=1, name='fc')
            mod = SVRGModule(sym.LinearRegressionOutput(fc, sym.var('y')),
                             data_names=['data'], label_names=['y'], update_freq=1)
            mod.fit(it, optimizer_params={'learning_rate': 0.1}, num_epoch=2,
                    eval_metric='mse')
        """
        def at_epoch(epoch):
            if epoch % self.update_freq == 0:
                self.update_full_grads(train_data)

        hooked = _EpochStart(train_data, at_epoch, begin_epoch)
        super().fit(hooked, eval_data=eval_data, eval_metric=eval_metric,
                    epoch_end_callback=epoch_end_callback,
                    batch_end_callback=batch_end_callback, kvstore=kvstore,
                    optimizer=optimizer, optimizer_params=optimizer_params,
                    eval_end_callback=eval_end_callback,
                    eval_batch_end_callback=eval_batch_end_callback, initializer=initializer,
                    arg_params=arg_params, aux_params=aux_params, allow_missing=allow_missing,
                    force_rebind=force_rebind, force_init=force_init, begin_epoch=begin_epoch,
                    num_epoch=num_epoch, validation_metric=validation_metric, monitor=monitor,
                    sparse_row_id_fn=sparse_row_id_fn)
