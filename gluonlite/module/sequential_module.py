"""`SequentialModule`: modules chained, each one's outputs the next one's data (and, with
``take_labels=True``, the labels fed to it too); backward runs the chain in reverse with
each module's input gradients as the previous one's output gradients.
"""
import copy
import logging

from .base_module import BaseModule

__all__ = ["SequentialModule"]


class SequentialModule(BaseModule):
    """A chain of modules trained as one.

    Args:
        logger: where progress is logged.

    Example::

        features = sym.FullyConnected(sym.var('data'), num_hidden=4, name='fc1')
        head = sym.SoftmaxOutput(sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc2'),
                                 name='softmax')
        train_iter = mx.io.NDArrayIter(np.random.rand(8, 3), np.array([0, 1] * 4), batch_size=4)
        seq = mx.mod.SequentialModule()
        seq.add(mx.mod.Module(features, label_names=None))
        seq.add(mx.mod.Module(head), take_labels=True, auto_wiring=True)
        seq.fit(train_iter, num_epoch=2)
    """

    META_TAKE_LABELS = "take_labels"
    META_AUTO_WIRING = "auto_wiring"

    def __init__(self, logger=logging):
        super().__init__(logger=logger)
        self._modules, self._metas = [], []
        self._label_shapes = self._data_shapes = None
        self._meta_keys = {self.META_TAKE_LABELS, self.META_AUTO_WIRING}

    def add(self, module, **kwargs):
        """Append `module`; ``take_labels=True`` feeds it the labels, ``auto_wiring=True``
        renames the previous outputs to its data names. Returns self (to chain ``add``).

        Raises:
            ValueError: an unknown keyword.

        Example::

            feat = mx.mod.Module(sym.FullyConnected(sym.var('data'), num_hidden=4, name='fc1'),
                                 label_names=None)
            fc2 = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc2')
            head = mx.mod.Module(sym.SoftmaxOutput(fc2, name='softmax'))
            seq = mx.mod.SequentialModule().add(feat).add(head, take_labels=True, auto_wiring=True)
            len(seq._modules)   # 2; add returns the SequentialModule
        """
        unknown = set(kwargs) - self._meta_keys
        if unknown:
            raise ValueError(f"SequentialModule.add: unknown meta key(s) {sorted(unknown)}; "
                             f"known: {sorted(self._meta_keys)}")
        self._modules.append(module)
        self._metas.append(kwargs)
        self.binded = self.params_initialized = self.optimizer_initialized = False
        return self

    @property
    def data_names(self):
        """The first module's data names.

        Example::

            feat = mx.mod.Module(sym.FullyConnected(sym.var('data'), num_hidden=4, name='fc1'),
                                 label_names=None)
            fc2 = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc2')
            head = mx.mod.Module(sym.SoftmaxOutput(fc2, name='softmax'))
            seq = mx.mod.SequentialModule().add(feat).add(head, take_labels=True, auto_wiring=True)
            seq.data_names   # ['data']: the first module's
        """
        return self._modules[0].data_names if self._modules else []

    @property
    def output_names(self):
        """The last module's output names.

        Example::

            feat = mx.mod.Module(sym.FullyConnected(sym.var('data'), num_hidden=4, name='fc1'),
                                 label_names=None)
            fc2 = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc2')
            head = mx.mod.Module(sym.SoftmaxOutput(fc2, name='softmax'))
            seq = mx.mod.SequentialModule().add(feat).add(head, take_labels=True, auto_wiring=True)
            seq.output_names   # ['softmax_output']: the last module's
        """
        return self._modules[-1].output_names if self._modules else []

    @property
    def data_shapes(self):
        """The first module's data shapes.

        Example::

            feat = mx.mod.Module(sym.FullyConnected(sym.var('data'), num_hidden=4, name='fc1'),
                                 label_names=None)
            fc2 = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc2')
            head = mx.mod.Module(sym.SoftmaxOutput(fc2, name='softmax'))
            seq = mx.mod.SequentialModule().add(feat).add(head, take_labels=True, auto_wiring=True)
            seq.bind([('data', (4, 3))], [('softmax_label', (4,))]); seq.init_params()
            seq.data_shapes[0].shape   # (4, 3)
        """
        self._check_bound("data_shapes")
        return self._modules[0].data_shapes

    @property
    def label_shapes(self):
        """The label shapes (None when no module takes labels).

        Example::

            feat = mx.mod.Module(sym.FullyConnected(sym.var('data'), num_hidden=4, name='fc1'),
                                 label_names=None)
            fc2 = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc2')
            head = mx.mod.Module(sym.SoftmaxOutput(fc2, name='softmax'))
            seq = mx.mod.SequentialModule().add(feat).add(head, take_labels=True, auto_wiring=True)
            seq.bind([('data', (4, 3))], [('softmax_label', (4,))]); seq.init_params()
            seq.label_shapes   # [('softmax_label', (4,))]
        """
        self._check_bound("label_shapes")
        return self._label_shapes

    @property
    def output_shapes(self):
        """The last module's output shapes.

        Example::

            feat = mx.mod.Module(sym.FullyConnected(sym.var('data'), num_hidden=4, name='fc1'),
                                 label_names=None)
            fc2 = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc2')
            head = mx.mod.Module(sym.SoftmaxOutput(fc2, name='softmax'))
            seq = mx.mod.SequentialModule().add(feat).add(head, take_labels=True, auto_wiring=True)
            seq.bind([('data', (4, 3))], [('softmax_label', (4,))]); seq.init_params()
            seq.output_shapes   # [('softmax_output', (4, 2))]
        """
        self._check_bound("output_shapes")
        return self._modules[-1].output_shapes

    def _check_bound(self, what):
        if not self.binded:
            raise ValueError(f"SequentialModule.{what}: call bind() first")

    def get_params(self):
        """All modules' parameters, merged.

        Example::

            feat = mx.mod.Module(sym.FullyConnected(sym.var('data'), num_hidden=4, name='fc1'),
                                 label_names=None)
            fc2 = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc2')
            head = mx.mod.Module(sym.SoftmaxOutput(fc2, name='softmax'))
            seq = mx.mod.SequentialModule().add(feat).add(head, take_labels=True, auto_wiring=True)
            seq.bind([('data', (4, 3))], [('softmax_label', (4,))]); seq.init_params()
            sorted(seq.get_params()[0])
            # ['fc1_bias', 'fc1_weight', 'fc2_bias', 'fc2_weight']
        """
        self._check_ready("get_params")
        arg_params, aux_params = {}, {}
        for module in self._modules:
            arg, aux = module.get_params()
            arg_params.update(arg)
            aux_params.update(aux)
        return arg_params, aux_params

    def init_params(self, initializer=None, arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        """Each module's `init_params` (parameters named alike in two modules are an error).

        Args:
            initializer (Initializer): draws the parameters not copied from `arg_params` /
                `aux_params` (default None: ``init.Uniform(0.01)``).
            arg_params (dict of str to NDArray): parameter values to copy in (default None).
            aux_params (dict of str to NDArray): auxiliary state values (e.g. BatchNorm
                statistics) to copy in (default None).
            allow_missing (bool): parameters absent from `arg_params` / `aux_params` are drawn
                by the initializer (default False: a missing one raises).
            force_init (bool): initialize again when already initialized (default False: the
                call is ignored with a warning).
            allow_extra (bool): passed on to each module's `init_params` (a `Module` ignores
                unused names either way; default False).

        Raises:
            ValueError: not bound; a parameter name used by two modules.

        Example::

            feat = mx.mod.Module(sym.FullyConnected(sym.var('data'), num_hidden=4, name='fc1'),
                                 label_names=None)
            fc2 = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc2')
            head = mx.mod.Module(sym.SoftmaxOutput(fc2, name='softmax'))
            seq = mx.mod.SequentialModule().add(feat).add(head, take_labels=True, auto_wiring=True)
            seq.bind([('data', (4, 3))], [('softmax_label', (4,))])
            seq.init_params(mx.init.Xavier())
        """
        if self.params_initialized and not force_init:
            return
        self._check_bound("init_params")
        for module in self._modules:
            module.init_params(initializer=initializer, arg_params=arg_params,
                               aux_params=aux_params, allow_missing=allow_missing,
                               force_init=force_init, allow_extra=allow_extra)
        seen = {}
        for i, module in enumerate(self._modules):
            arg, aux = module.get_params()
            for name in list(arg) + list(aux):
                if name in seen:
                    raise ValueError(f"SequentialModule: parameter {name!r} is in both "
                                     f"module {seen[name]} and module {i}")
                seen[name] = i
        self.params_initialized = True

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True,
                   allow_extra=False):
        """Each module takes the parameters it has (the others are ignored).

        Args:
            arg_params (dict of str to NDArray): the parameter values to copy in.
            aux_params (dict of str to NDArray): auxiliary state values (e.g. BatchNorm
                statistics) to copy in (default None).
            allow_missing (bool): tolerate parameters absent from `arg_params` / `aux_params`
                (default False: a missing one raises).
            force_init (bool): copy even when already initialized (default True).
            allow_extra (bool): accepted; each module ignores the names it does not have
                either way.

        Example::

            feat = mx.mod.Module(sym.FullyConnected(sym.var('data'), num_hidden=4, name='fc1'),
                                 label_names=None)
            fc2 = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc2')
            head = mx.mod.Module(sym.SoftmaxOutput(fc2, name='softmax'))
            seq = mx.mod.SequentialModule().add(feat).add(head, take_labels=True, auto_wiring=True)
            seq.bind([('data', (4, 3))], [('softmax_label', (4,))]); seq.init_params()
            seq.set_params(*seq.get_params())   # each module takes its own
        """
        self._check_bound("set_params")
        for module in self._modules:
            module.set_params(arg_params, aux_params, allow_missing=allow_missing,
                              force_init=force_init, allow_extra=True)
        self.params_initialized = True

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        """Bind each module to the previous one's output shapes.

        Args:
            data_shapes (list of DataDesc or pairs): the data inputs' ``(name, shape)``, in
                `data_names` order.
            label_shapes (list of DataDesc or pairs): the labels' shapes (default None:
                no labels, e.g. for prediction).
            for_training (bool): bind for training, so gradients are allocated (default True).
            inputs_need_grad (bool): also compute the gradients of the data inputs (default
                False).
            force_rebind (bool): bind again when already bound (default False: the call is
                ignored with a warning).
            shared_module: must be None (default): sharing is refused with
                ValueError.
            grad_req (str): 'write', 'add' or 'null': how the parameters' gradients are stored
                (default 'write').

        Raises:
            ValueError: no module; a shared_module; inputs_need_grad without for_training;
                auto_wiring with a different number of names.

        Example::

            feat = mx.mod.Module(sym.FullyConnected(sym.var('data'), num_hidden=4, name='fc1'),
                                 label_names=None)
            fc2 = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc2')
            head = mx.mod.Module(sym.SoftmaxOutput(fc2, name='softmax'))
            seq = mx.mod.SequentialModule().add(feat).add(head, take_labels=True, auto_wiring=True)
            seq.bind([('data', (4, 3))], [('softmax_label', (4,))])
            seq.output_shapes   # [('softmax_output', (4, 2))]
        """
        if self.binded and not force_rebind:
            self.logger.warning("Already bound, ignoring bind()")
            return
        if inputs_need_grad and not for_training:
            raise ValueError("SequentialModule.bind: inputs_need_grad=True needs "
                             "for_training=True")
        if shared_module is not None:
            raise ValueError("SequentialModule.bind: shared_module is not supported")
        if not self._modules:
            raise ValueError("SequentialModule.bind: add a module first")
        self.for_training, self.inputs_need_grad = for_training, inputs_need_grad
        self._label_shapes = label_shapes
        shapes = data_shapes
        needs_label = False
        for i, (module, meta) in enumerate(zip(self._modules, self._metas)):
            takes = bool(meta.get(self.META_TAKE_LABELS, False))
            needs_label = needs_label or takes
            if meta.get(self.META_AUTO_WIRING, False):
                names = module.data_names
                if len(names) != len(shapes):
                    raise ValueError(f"SequentialModule.bind: module {i} takes {len(names)} "
                                     f"data inputs, the previous gives {len(shapes)}")
                shapes = [(n, tuple(s[1])) for n, s in zip(names, shapes)]
            module.bind(data_shapes=shapes, label_shapes=label_shapes if takes else None,
                        for_training=for_training,
                        inputs_need_grad=bool(inputs_need_grad or (for_training and i > 0)),
                        force_rebind=force_rebind, shared_module=None, grad_req=grad_req)
            shapes = module.output_shapes
        if not needs_label:
            self._label_shapes = None
        self.binded = True

    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        """Each module's `init_optimizer`.

        Args:
            kvstore (str or KVStore): where gradients are aggregated (default 'local'), as
                `Module.init_optimizer`.
            optimizer (str or Optimizer): the optimizer, or a name `optimizer.create` takes
                (default 'sgd').
            optimizer_params (dict or tuple of pairs): the named optimizer's arguments (default
                learning rate 0.01).
            force_init (bool): initialize again when already initialized (default False: the
                call is ignored with a warning).

        Example::

            feat = mx.mod.Module(sym.FullyConnected(sym.var('data'), num_hidden=4, name='fc1'),
                                 label_names=None)
            fc2 = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc2')
            head = mx.mod.Module(sym.SoftmaxOutput(fc2, name='softmax'))
            seq = mx.mod.SequentialModule().add(feat).add(head, take_labels=True, auto_wiring=True)
            seq.bind([('data', (4, 3))], [('softmax_label', (4,))]); seq.init_params()
            seq.init_optimizer(optimizer_params={'learning_rate': 0.1})
        """
        self._check_ready("init_optimizer")
        if self.optimizer_initialized and not force_init:
            self.logger.warning("optimizer already initialized, ignoring.")
            return
        for module in self._modules:
            module.init_optimizer(kvstore=kvstore, optimizer=optimizer,
                                  optimizer_params=optimizer_params, force_init=force_init)
        self.optimizer_initialized = True

    def forward(self, data_batch, is_train=None):
        """Run the modules in turn, each on the previous one's outputs.

        Args:
            data_batch (DataBatch): the batch; its `data` (and, in training, `label`) feed the
                inputs.
            is_train (bool): run in training mode (keep what `backward` needs, labels read);
                default None: the `for_training` given to `bind`.

        Example::

            feat = mx.mod.Module(sym.FullyConnected(sym.var('data'), num_hidden=4, name='fc1'),
                                 label_names=None)
            fc2 = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc2')
            head = mx.mod.Module(sym.SoftmaxOutput(fc2, name='softmax'))
            seq = mx.mod.SequentialModule().add(feat).add(head, take_labels=True, auto_wiring=True)
            seq.bind([('data', (4, 3))], [('softmax_label', (4,))]); seq.init_params()
            batch = mx.io.DataBatch([nd.ones((4, 3))], [nd.zeros(4)])
            seq.forward(batch); seq.get_outputs()[0].shape   # (4, 2)
        """
        self._check_ready("forward")
        batch = copy.copy(data_batch)
        for i, module in enumerate(self._modules):
            module.forward(batch, is_train=is_train)
            if i + 1 == len(self._modules):
                break
            batch.data = module.get_outputs()
            if getattr(batch, "provide_data", None) is not None:
                names = [x[0] for x in module.output_shapes]
                batch.provide_data = [(n, x.shape) for n, x in zip(names, batch.data)]

    def backward(self, out_grads=None):
        """Run the modules' backward in reverse, passing input gradients down.

        Args:
            out_grads (NDArray or list of NDArray): the gradients of the outputs, one per output;
                default None: none needed, as for loss outputs.

        Example::

            feat = mx.mod.Module(sym.FullyConnected(sym.var('data'), num_hidden=4, name='fc1'),
                                 label_names=None)
            fc2 = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc2')
            head = mx.mod.Module(sym.SoftmaxOutput(fc2, name='softmax'))
            seq = mx.mod.SequentialModule().add(feat).add(head, take_labels=True, auto_wiring=True)
            seq.bind([('data', (4, 3))], [('softmax_label', (4,))]); seq.init_params()
            batch = mx.io.DataBatch([nd.ones((4, 3))], [nd.zeros(4)])
            seq.forward(batch, is_train=True); seq.backward()
        """
        self._check_ready("backward")
        for i in range(len(self._modules) - 1, -1, -1):
            module = self._modules[i]
            module.backward(out_grads=out_grads)
            if i == 0:
                break
            out_grads = module.get_input_grads()

    def update(self):
        """Each module's `update`.

        Example::

            feat = mx.mod.Module(sym.FullyConnected(sym.var('data'), num_hidden=4, name='fc1'),
                                 label_names=None)
            fc2 = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc2')
            head = mx.mod.Module(sym.SoftmaxOutput(fc2, name='softmax'))
            seq = mx.mod.SequentialModule().add(feat).add(head, take_labels=True, auto_wiring=True)
            seq.bind([('data', (4, 3))], [('softmax_label', (4,))]); seq.init_params()
            batch = mx.io.DataBatch([nd.ones((4, 3))], [nd.zeros(4)])
            seq.init_optimizer()
            seq.forward(batch, is_train=True); seq.backward(); seq.update()
        """
        self._check_ready("update")
        for module in self._modules:
            module.update()

    def get_outputs(self, merge_multi_context=True):
        """The last module's outputs.

        Args:
            merge_multi_context (bool): True (default): one NDArray per entry, the contexts'
                parts joined along the batch axis; False: per entry, the list of each context's
                array.

        Example::

            feat = mx.mod.Module(sym.FullyConnected(sym.var('data'), num_hidden=4, name='fc1'),
                                 label_names=None)
            fc2 = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc2')
            head = mx.mod.Module(sym.SoftmaxOutput(fc2, name='softmax'))
            seq = mx.mod.SequentialModule().add(feat).add(head, take_labels=True, auto_wiring=True)
            seq.bind([('data', (4, 3))], [('softmax_label', (4,))]); seq.init_params()
            batch = mx.io.DataBatch([nd.ones((4, 3))], [nd.zeros(4)])
            seq.forward(batch); seq.get_outputs()[0].shape   # (4, 2)
        """
        self._check_ready("get_outputs")
        return self._modules[-1].get_outputs(merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        """The first module's input gradients (bind with inputs_need_grad).

        Args:
            merge_multi_context (bool): True (default): one NDArray per entry, the contexts'
                parts joined along the batch axis; False: per entry, the list of each context's
                array.

        Example::

            feat = mx.mod.Module(sym.FullyConnected(sym.var('data'), num_hidden=4, name='fc1'),
                                 label_names=None)
            fc2 = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc2')
            head = mx.mod.Module(sym.SoftmaxOutput(fc2, name='softmax'))
            seq = mx.mod.SequentialModule().add(feat).add(head, take_labels=True, auto_wiring=True)
            seq.bind([('data', (4, 3))], [('softmax_label', (4,))], inputs_need_grad=True)
            seq.init_params()
            batch = mx.io.DataBatch([nd.ones((4, 3))], [nd.zeros(4)])
            seq.forward(batch, is_train=True); seq.backward()
            seq.get_input_grads()[0].shape   # (4, 3)
        """
        self._check_ready("get_input_grads")
        return self._modules[0].get_input_grads(merge_multi_context)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """`update_metric` of each module that takes labels.

        Args:
            eval_metric (EvalMetric): the metric updated with the labels and the outputs.
            labels (list of NDArray): the batch's labels, in `label_names` order.
            pre_sliced (bool): `labels` is already one list per context (default False: the
                labels are cut along the batch axis per context).

        Example::

            feat = mx.mod.Module(sym.FullyConnected(sym.var('data'), num_hidden=4, name='fc1'),
                                 label_names=None)
            fc2 = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc2')
            head = mx.mod.Module(sym.SoftmaxOutput(fc2, name='softmax'))
            seq = mx.mod.SequentialModule().add(feat).add(head, take_labels=True, auto_wiring=True)
            seq.bind([('data', (4, 3))], [('softmax_label', (4,))]); seq.init_params()
            batch = mx.io.DataBatch([nd.ones((4, 3))], [nd.zeros(4)])
            seq.forward(batch, is_train=False)
            metric = mx.metric.Accuracy(); seq.update_metric(metric, batch.label)
        """
        self._check_ready("update_metric")
        for meta, module in zip(self._metas, self._modules):
            if meta.get(self.META_TAKE_LABELS, False):
                module.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon):
        """Install `mon` on every module.

        Example::

            feat = mx.mod.Module(sym.FullyConnected(sym.var('data'), num_hidden=4, name='fc1'),
                                 label_names=None)
            fc2 = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc2')
            head = mx.mod.Module(sym.SoftmaxOutput(fc2, name='softmax'))
            seq = mx.mod.SequentialModule().add(feat).add(head, take_labels=True, auto_wiring=True)
            seq.bind([('data', (4, 3))], [('softmax_label', (4,))]); seq.init_params()
            seq.install_monitor(mx.monitor.Monitor(interval=1))
        """
        self._check_bound("install_monitor")
        for module in self._modules:
            module.install_monitor(mon)

    @property
    def symbol(self):
        """Not one symbol: None.

        Example::

            feat = mx.mod.Module(sym.FullyConnected(sym.var('data'), num_hidden=4, name='fc1'),
                                 label_names=None)
            fc2 = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc2')
            head = mx.mod.Module(sym.SoftmaxOutput(fc2, name='softmax'))
            seq = mx.mod.SequentialModule().add(feat).add(head, take_labels=True, auto_wiring=True)
            seq.symbol   # None
        """
        return None
