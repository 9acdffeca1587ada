"""`Module`: MXNet 1.x's symbolic training front end, in its smallest useful form: bind a
Symbol to input shapes, initialize its parameters, run forward and backward on batches.

It is a thin layer over `Symbol.simple_bind` and `Executor`: the inputs named in
`data_names` and `label_names` are fed from each `DataBatch`; every other argument of the
symbol is a parameter, initialized by `init_params`; `init_optimizer`, `update`, `fit` and
`score` train and evaluate it on one context with `mx.optimizer`.
"""
import warnings

from .. import initializer as init_mod
from ..context import Context, current_context
from ..io import DataDesc

__all__ = ["Module"]


def _names(names):
    """`names` (None, one name, or a sequence of names) as a list."""
    if names is None:
        return []
    if isinstance(names, str):
        return [names]
    return list(names)


def _parse_shapes(what, names, shapes):
    """[DataDesc] for `shapes` ((name, shape) pairs or DataDesc), one per name in `names`.

    Raises:
        ValueError: the names differ from `names` (the message lists both).
    """
    descs = [s if isinstance(s, DataDesc) else DataDesc(*s) for s in (shapes or [])]
    given = [d.name for d in descs]
    if given != list(names):
        raise ValueError(f"Module.bind: {what}_shapes name(s) {given} do not match the "
                         f"module's {what}_names {list(names)} (same names, same order)")
    return descs


class Module:
    """A Symbol bound for computation, with its parameters.

    Args:
        symbol: the network's output Symbol.
        data_names: the symbol's data inputs (default ``('data',)``).
        label_names: its label inputs (default ``('softmax_label',)``; None for none).
        context: the Context (or a list holding one) to compute on.
        fixed_param_names: parameters that get no gradient.
        state_names: inputs fed like parameters but never initialized (kept as given).

    Raises:
        ValueError: a data, label or state name that is not an argument of `symbol`
            (label names that are not are dropped with a warning, as in MXNet).

    Example::

        mod = mx.mod.Module(out, data_names=('data',), label_names=None)
        mod.bind(data_shapes=[('data', (4, 10, 2))])
        mod.init_params()
        mod.forward(mx.io.DataBatch([nd.ones((4, 10, 2))]))
        y = mod.get_outputs()[0]
    """

    def __init__(self, symbol, data_names=("data",), label_names=("softmax_label",),
                 logger=None, context=None, work_load_list=None, fixed_param_names=None,
                 state_names=None, group2ctxs=None, compression_params=None):
        if isinstance(context, (list, tuple)):
            if len(context) != 1:
                raise ValueError(f"Module: context must be one Context, got {len(context)}")
            context = context[0]
        self._context = Context(context) if context is not None else current_context()
        self._symbol = symbol
        args = symbol.list_arguments()
        self._data_names = _names(data_names)
        self._state_names = _names(state_names)
        self._fixed_param_names = _names(fixed_param_names)
        for what, names in (("data", self._data_names), ("state", self._state_names)):
            missing = [n for n in names if n not in args]
            if missing:
                raise ValueError(f"Module: {what}_names {missing} are not arguments of the "
                                 f"symbol; its arguments are {args}")
        labels = _names(label_names)
        dropped = [n for n in labels if n not in args]
        if dropped:
            warnings.warn(f"Module: label_names {dropped} are not arguments of the symbol and "
                          "are ignored", stacklevel=2)
        self._label_names = [n for n in labels if n in args]
        inputs = set(self._data_names + self._label_names + self._state_names)
        self._param_names = [n for n in args if n not in inputs]
        self._aux_names = symbol.list_auxiliary_states()
        self._exec = None
        self._data_shapes = self._label_shapes = None
        self.binded = False
        self.params_initialized = False
        self.for_training = False
        self.inputs_need_grad = False

    # ---- description ----------------------------------------------------------------------
    @property
    def symbol(self):
        """The bound Symbol."""
        return self._symbol

    @property
    def data_names(self):
        """The data input names."""
        return list(self._data_names)

    @property
    def label_names(self):
        """The label input names."""
        return list(self._label_names)

    @property
    def output_names(self):
        """The symbol's output names."""
        return self._symbol.list_outputs()

    @property
    def data_shapes(self):
        """[DataDesc] of the data inputs (after `bind`)."""
        return list(self._data_shapes or [])

    @property
    def label_shapes(self):
        """[DataDesc] of the label inputs (after `bind`)."""
        return list(self._label_shapes or [])

    @property
    def output_shapes(self):
        """[(name, shape)] of the outputs (after `bind`)."""
        self._check_bound("output_shapes")
        shapes = {d.name: d.shape for d in self._data_shapes + self._label_shapes}
        _, outs, _ = self._symbol.infer_shape(**shapes)
        return list(zip(self.output_names, outs))

    def _check_bound(self, what):
        if not self.binded:
            raise ValueError(f"Module.{what}: call bind() first")

    def _check_ready(self, what):
        self._check_bound(what)
        if not self.params_initialized:
            raise ValueError(f"Module.{what}: call init_params() (or set_params()) first")

    # ---- binding and parameters -----------------------------------------------------------
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        """Allocate every array from the input shapes.

        Args:
            data_shapes: ``[(name, shape)]`` or [DataDesc], in `data_names` order.
            label_shapes: the same for the labels (None when there are none).
            for_training: allocate gradients for the parameters.
            inputs_need_grad: allocate gradients for the data inputs too.
            force_rebind: bind again when already bound (parameters are kept).
            grad_req: 'write', 'add' or 'null' for the parameters.

        Raises:
            ValueError: shapes named differently from the module's inputs; inputs_need_grad
                without for_training; shared_module (not supported).
        """
        if self.binded and not force_rebind:
            warnings.warn("Module.bind: already bound, ignoring bind()", stacklevel=2)
            return
        if shared_module is not None:
            raise ValueError("Module.bind: shared_module is not supported")
        if inputs_need_grad and not for_training:
            raise ValueError("Module.bind: inputs_need_grad=True needs for_training=True")
        self._data_shapes = _parse_shapes("data", self._data_names, data_shapes)
        self._label_shapes = _parse_shapes("label", self._label_names, label_shapes)
        self.for_training, self.inputs_need_grad = bool(for_training), bool(inputs_need_grad)
        self._grad_req = grad_req
        old = self._exec
        self._exec = self._bind_executor()
        if old is not None and self.params_initialized:
            self._copy_params(old.arg_dict, old.aux_dict)
        elif getattr(self, "_preloaded", None) is not None:  # Module.load's parameters
            self._copy_params(*self._preloaded, allow_missing=False)
            self._preloaded = None
            self.params_initialized = True
        self.binded = True

    def _bind_executor(self):
        reqs = {}
        for n in self._symbol.list_arguments():
            if n in self._param_names and n not in self._fixed_param_names:
                reqs[n] = self._grad_req if self.for_training else "null"
            elif n in self._data_names and self.inputs_need_grad:
                reqs[n] = "write"
            else:
                reqs[n] = "null"
        shapes = {d.name: d.shape for d in self._data_shapes + self._label_shapes}
        types = {d.name: d.dtype for d in self._data_shapes + self._label_shapes}
        return self._symbol.simple_bind(self._context, grad_req=reqs, type_dict=types,
                                        **shapes)

    def _copy_params(self, arg_params, aux_params, allow_missing=True, allow_extra=True):
        """Copy the given parameters in (after checking them all, so a bad one changes
        nothing); returns the names of those not given."""
        todo, left = [], []
        for what, names, dest, src in (("arg_params", self._param_names, self._exec.arg_dict,
                                        arg_params),
                                       ("aux_params", self._aux_names, self._exec.aux_dict,
                                        aux_params)):
            src = src or {}
            missing = [n for n in names if n not in src]
            if missing and not allow_missing:
                raise ValueError(f"Module: {what} lacks {missing}")
            extra = [n for n in src if n not in names]
            if extra and not allow_extra:
                raise ValueError(f"Module: {what} has {extra}, which the symbol does not use "
                                 "(pass allow_extra=True to ignore them)")
            for n in names:
                if n not in src:
                    left.append(n)
                elif tuple(src[n].shape) != tuple(dest[n].shape):
                    raise ValueError(f"Module: {what}[{n!r}] has shape {tuple(src[n].shape)}, "
                                     f"the symbol wants {tuple(dest[n].shape)}")
                else:
                    todo.append((dest[n], src[n]))
        for dest, value in todo:
            dest[:] = value
        return left

    def init_params(self, initializer=None, arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        """Initialize the parameters and auxiliary states: copied from `arg_params` /
        `aux_params` where given, else drawn by `initializer` (default
        ``init.Uniform(0.01)``), which honours each variable's own ``__init__`` attribute
        (e.g. an `init.LSTMBias` given to a cell's bias).

        Raises:
            ValueError: not bound; a parameter missing from `arg_params` (unless
                allow_missing) or an extra one (unless allow_extra); a shape mismatch.
        """
        if self.params_initialized and not force_init:
            warnings.warn("Module.init_params: parameters already initialized and "
                          "force_init=False; call ignored", stacklevel=2)
            return
        self._check_bound("init_params")
        initializer = init_mod.Uniform(0.01) if initializer is None else initializer
        given = arg_params is not None or aux_params is not None
        todo = self._copy_params(arg_params, aux_params, allow_missing or not given,
                                 allow_extra)
        attrs = self._symbol.attr_dict()
        arrays = {**self._exec.arg_dict, **self._exec.aux_dict}
        for name in sorted(todo):
            initializer(init_mod.InitDesc(name, attrs.get(name)), arrays[name])
        self.params_initialized = True

    def set_params(self, arg_params, aux_params=None, allow_missing=False, force_init=True,
                   allow_extra=False):
        """Copy `arg_params` and `aux_params` (name -> NDArray) into the module.

        Raises:
            ValueError: as `init_params`.
        """
        self.init_params(None, arg_params or {}, aux_params or {}, allow_missing,
                         force_init, allow_extra)

    def get_params(self):
        """``(arg_params, aux_params)``: copies of the parameters, name -> NDArray."""
        self._check_ready("get_params")
        return ({n: self._exec.arg_dict[n].copy() for n in self._param_names},
                {n: self._exec.aux_dict[n].copy() for n in self._aux_names})

    # ---- computing ------------------------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        """Run the network on `data_batch` (a `DataBatch`); a batch of other shapes rebinds
        the module to them first.

        Args:
            is_train: the mode (default: `for_training`).

        Raises:
            ValueError: not bound or initialized; a batch with the wrong number of arrays.
        """
        self._check_ready("forward")
        data = list(data_batch.data or [])
        label = list(data_batch.label or []) if self._label_names else []
        if len(data) != len(self._data_names) or len(label) != len(self._label_names):
            raise ValueError(f"Module.forward: the batch has {len(data)} data and "
                             f"{len(label)} label arrays; the module takes data "
                             f"{self._data_names} and labels {self._label_names}")
        descs = [DataDesc(n, a.shape, self._data_shapes[i].dtype, self._data_shapes[i].layout)
                 for i, (n, a) in enumerate(zip(self._data_names, data))]
        ldescs = [DataDesc(n, a.shape) for n, a in zip(self._label_names, label)]
        if ([d.shape for d in descs] != [d.shape for d in self._data_shapes]
                or [d.shape for d in ldescs] != [d.shape for d in self._label_shapes]):
            self.bind(descs, ldescs or None, self.for_training, self.inputs_need_grad,
                      force_rebind=True, grad_req=self._grad_req)
        feed = dict(zip(self._data_names + self._label_names, data + label))
        train = self.for_training if is_train is None else bool(is_train)
        self._exec.forward(is_train=train, **feed)

    def backward(self, out_grads=None):
        """Gradients of the outputs (`out_grads`, default ones) into the parameters' (and,
        with inputs_need_grad, the data's) gradient arrays."""
        self._check_ready("backward")
        self._exec.backward(out_grads)

    def get_outputs(self, merge_multi_context=True):
        """The outputs of the last `forward` (a list of NDArrays)."""
        self._check_ready("get_outputs")
        return list(self._exec.outputs)

    def get_input_grads(self, merge_multi_context=True):
        """The gradients of the data inputs after `backward` (needs inputs_need_grad)."""
        self._check_ready("get_input_grads")
        if not self.inputs_need_grad:
            raise ValueError("Module.get_input_grads: bind with inputs_need_grad=True")
        return [self._exec.grad_dict[n] for n in self._data_names]

    def get_param_grads(self):
        """{parameter name: its gradient array} after `backward`."""
        self._check_ready("get_param_grads")
        return {n: self._exec.grad_dict[n] for n in self._param_names
                if n in self._exec.grad_dict}

    # ---- training -------------------------------------------------------------------------
    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        """Create the optimizer that `update` applies: by name with `optimizer_params`
        (``rescale_grad`` defaults to 1 / batch size; the symbol's ``__lr_mult__`` /
        ``__wd_mult__`` attributes and the parameter names set the multipliers), or an
        `Optimizer` instance. One context: `kvstore` is accepted and not used.

        Raises:
            ValueError: not bound or initialized.
        """
        from .. import optimizer as opt
        self._check_ready("init_optimizer")
        if getattr(self, "optimizer_initialized", False) and not force_init:
            warnings.warn("Module.init_optimizer: optimizer already initialized, ignoring",
                          stacklevel=2)
            return
        batch_size = self._data_shapes[0].shape[0] if self._data_shapes else 1
        idx2name = dict(enumerate(self._param_names))
        if isinstance(optimizer, str):
            params = dict(optimizer_params)
            params.setdefault("rescale_grad", 1.0 / batch_size)
            optimizer = opt.create(optimizer, sym=self._symbol, param_idx2name=idx2name,
                                   **params)
        else:
            if optimizer.rescale_grad != 1.0 / batch_size:
                warnings.warn(f"Module.init_optimizer: optimizer.rescale_grad is "
                              f"{optimizer.rescale_grad}, not 1/batch_size = "
                              f"{1.0 / batch_size}; is this intended?", stacklevel=2)
            if not optimizer.idx2name:
                optimizer.idx2name = idx2name
        self._optimizer = optimizer
        self._updater = opt.get_updater(optimizer)
        self.optimizer_initialized = True
        states = getattr(self, "_preload_opt_states", None)
        if states is not None:
            self.load_optimizer_states(states)
            self._preload_opt_states = None

    def update(self):
        """One optimizer step on every trainable parameter from its gradient (after
        `backward`).

        Raises:
            ValueError: no optimizer (call init_optimizer first).
        """
        if not getattr(self, "optimizer_initialized", False):
            raise ValueError("Module.update: call init_optimizer() first")
        for i, name in enumerate(self._param_names):
            grad = self._exec.grad_dict.get(name)
            if name in self._fixed_param_names or grad is None:
                continue
            self._updater(i, grad, self._exec.arg_dict[name])

    def forward_backward(self, data_batch):
        """`forward` in training mode, then `backward`."""
        self.forward(data_batch, is_train=True)
        self.backward()

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Feed the last outputs and `labels` to `eval_metric` (``update(labels, preds)``)."""
        eval_metric.update(list(labels or []), self.get_outputs())

    def score(self, eval_data, eval_metric, num_batch=None, batch_end_callback=None,
              score_end_callback=None, reset=True, epoch=0, sparse_row_id_fn=None):
        """Run `eval_data` (a DataIter) through the network in inference mode and return
        `eval_metric`'s ``get_name_value()``.

        `eval_metric` is a metric object or a name (created by ``mx.metric.create``).
        """
        self._check_ready("score")
        eval_metric = _metric(eval_metric)
        if reset:
            eval_data.reset()
        eval_metric.reset()
        for nbatch, batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.forward(batch, is_train=False)
            self.update_metric(eval_metric, batch.label)
            _call_each(batch_end_callback, _BatchEndParam(epoch, nbatch, eval_metric, locals()))
        _call_each(score_end_callback, _BatchEndParam(epoch, None, eval_metric, locals()))
        return eval_metric.get_name_value()

    def fit(self, train_data, eval_data=None, eval_metric="acc", epoch_end_callback=None,
            batch_end_callback=None, kvstore="local", optimizer="sgd",
            optimizer_params=(("learning_rate", 0.01),), eval_end_callback=None,
            eval_batch_end_callback=None, initializer=None, arg_params=None,
            aux_params=None, allow_missing=False, force_rebind=False, force_init=False,
            begin_epoch=0, num_epoch=None, validation_metric=None, monitor=None,
            sparse_row_id_fn=None):
        """Train on `train_data` (a DataIter) for epochs `begin_epoch` .. `num_epoch`-1:
        bind to its shapes, initialize the parameters (default ``init.Uniform(0.01)``) and
        the optimizer, then per batch forward, backward, update and the metric; per epoch
        the callbacks and, with `eval_data`, a `score`.

        Raises:
            ValueError: num_epoch not given.
        """
        if num_epoch is None:
            raise ValueError("Module.fit: num_epoch must be given")
        self.bind(data_shapes=train_data.provide_data, label_shapes=train_data.provide_label,
                  for_training=True, force_rebind=force_rebind)
        self.init_params(initializer=initializer, arg_params=arg_params,
                         aux_params=aux_params, allow_missing=allow_missing,
                         force_init=force_init)
        self.init_optimizer(kvstore=kvstore, optimizer=optimizer,
                            optimizer_params=optimizer_params)
        validation_metric = validation_metric if validation_metric is not None else eval_metric
        eval_metric = _metric(eval_metric)
        for epoch in range(begin_epoch, num_epoch):
            eval_metric.reset()
            train_data.reset()
            for nbatch, batch in enumerate(train_data):
                self.forward_backward(batch)
                self.update()
                self.update_metric(eval_metric, batch.label)
                _call_each(batch_end_callback,
                           _BatchEndParam(epoch, nbatch, eval_metric, locals()))
            arg, aux = self.get_params()
            _call_each(epoch_end_callback, epoch, self._symbol, arg, aux)
            if eval_data is not None:
                self.score(eval_data, validation_metric, batch_end_callback=
                           eval_batch_end_callback, score_end_callback=eval_end_callback,
                           epoch=epoch)


    # ---- files ------------------------------------------------------------------------------
    def save_params(self, fname):
        """Save the parameters to `fname` (MXNet's ``arg:``/``aux:`` keyed NDArray file)."""
        from .. import ndarray as nd
        arg, aux = self.get_params()
        nd.save(fname, {**{f"arg:{k}": v for k, v in arg.items()},
                        **{f"aux:{k}": v for k, v in aux.items()}})

    def load_params(self, fname):
        """Load parameters saved by `save_params` (or MXNet) into the bound module."""
        self.set_params(*_split_params(fname))

    def save_optimizer_states(self, fname):
        """Save the optimizer's states (`Updater.get_states`, no pickle) to `fname`.

        Raises:
            ValueError: no optimizer yet.
        """
        if not getattr(self, "optimizer_initialized", False):
            raise ValueError("Module.save_optimizer_states: call init_optimizer() first")
        with open(fname, "wb") as f:
            f.write(self._updater.get_states())

    def load_optimizer_states(self, fname):
        """Restore states written by `save_optimizer_states`.

        Raises:
            ValueError: no optimizer yet, or not a states file.
        """
        if not getattr(self, "optimizer_initialized", False):
            raise ValueError("Module.load_optimizer_states: call init_optimizer() first")
        with open(fname, "rb") as f:
            self._updater.set_states(f.read())

    def save_checkpoint(self, prefix, epoch, save_optimizer_states=False,
                        remove_amp_cast=True):
        """Write ``prefix-symbol.json``, ``prefix-%04d.params`` (and with
        `save_optimizer_states` ``prefix-%04d.states``), as MXNet's Module does."""
        self._symbol.save(f"{prefix}-symbol.json")
        self.save_params(f"{prefix}-{epoch:04d}.params")
        if save_optimizer_states:
            self.save_optimizer_states(f"{prefix}-{epoch:04d}.states")

    @staticmethod
    def load(prefix, epoch, load_optimizer_states=False, **kwargs):
        """A Module from a checkpoint written by `save_checkpoint`: its parameters are set
        when it is bound, its optimizer states when its optimizer is created.

        Args:
            kwargs: the Module's constructor arguments (data_names, label_names, ...).
        """
        from .. import symbol as sym_mod
        mod = Module(sym_mod.load(f"{prefix}-symbol.json"), **kwargs)
        mod._preloaded = _split_params(f"{prefix}-{epoch:04d}.params")
        if load_optimizer_states:
            mod._preload_opt_states = f"{prefix}-{epoch:04d}.states"
        return mod


def _split_params(fname):
    """(arg_params, aux_params) from an ``arg:``/``aux:`` keyed NDArray file."""
    from .. import ndarray as nd
    arg, aux = {}, {}
    for k, v in nd.load(fname).items():
        kind, _, name = k.partition(":")
        if kind == "arg":
            arg[name] = v
        elif kind == "aux":
            aux[name] = v
        else:
            raise ValueError(f"Module: {fname}: key {k!r} is neither 'arg:NAME' nor 'aux:NAME'")
    return arg, aux


class _BatchEndParam:
    """What batch-end callbacks receive (MXNet's ``BatchEndParam``)."""

    def __init__(self, epoch, nbatch, eval_metric, locals_):
        self.epoch, self.nbatch, self.eval_metric, self.locals = (epoch, nbatch, eval_metric,
                                                                  locals_)


def _call_each(callbacks, *args):
    if callbacks is None:
        return
    for cb in callbacks if isinstance(callbacks, (list, tuple)) else [callbacks]:
        cb(*args)


def _metric(m):
    """A metric object from a metric or a name (through ``mx.metric.create``)."""
    if hasattr(m, "update") and hasattr(m, "get_name_value"):
        return m
    import gluonlite
    return gluonlite.metric.create(m)
