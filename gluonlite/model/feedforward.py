"""`mx.model.FeedForward`: MXNet 1.x's first training API (deprecated since MXNet 1.0 for
`mx.mod.Module`), kept so that old scripts run and give MXNet's numbers; and `BatchEndParam`,
what the batch-end callbacks of `FeedForward` and `Module` receive.

A `FeedForward` holds a symbol, its parameters and the training settings. `fit` batches
numpy or NDArray data (shuffled, the last short batch rolled over into the next epoch) or
takes a DataIter, fills the parameters that were not given with the initializer, makes the
optimizer (a name gets ``rescale_grad=1/batch_size``), and runs `_train`: per batch, forward
and backward on every context (`DataParallelExecutorManager`), then one update of each
parameter, through the kvstore when it runs the optimizer. `predict` and `score` run one
inference executor on the first context.

Example::

    net = sym.SoftmaxOutput(sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc'),
                            name='softmax')
    x, y = np.random.randn(20, 3).astype('float32'), np.arange(20) % 2
    model = mx.model.FeedForward(net, num_epoch=2, numpy_batch_size=5, learning_rate=0.1)
    model.fit(x, y)
    model.predict(x).shape   # (20, 2)
"""
import logging
import time
import warnings
from collections import namedtuple

import numpy as np

from .. import io, kvstore as kvs, metric, ndarray as nd, optimizer as opt, symbol as sym
from ..callback import LogValidationMetricsCallback, save_checkpoint
from ..context import Context, cpu
from ..executor_manager import DataParallelExecutorManager, _check_arguments, _load_data
from ..initializer import Uniform
from .checkpoint import load_checkpoint

__all__ = ["BatchEndParam", "FeedForward"]

BatchEndParam = namedtuple("BatchEndParams", ["epoch", "nbatch", "eval_metric", "locals"])
BatchEndParam.__doc__ = """What `Module.fit` and `FeedForward.fit` pass to a batch-end callback:
the epoch, the batch number in it, the training metric and the caller's locals.

Example::

    def cb(param):
        print(param.epoch, param.nbatch)
    cb(mx.model.BatchEndParam(epoch=0, nbatch=5, eval_metric=None, locals=None))  # prints 0 5
"""


def _call_each(callbacks, *args):
    """Call `callbacks` (None, one callable or a list of them) with `args`."""
    for cb in callbacks if isinstance(callbacks, list) else [callbacks]:
        if cb:
            cb(*args)


# ---- the kvstore, as MXNet 1.x's model module chooses and uses it ----------------------------
def _create_kvstore(kvstore, num_device, arg_params):
    """``(store or None, whether the store runs the optimizer)``: a name with one context
    and no 'dist' means no store; 'local' leaves the updates here when a parameter has over
    16M elements; MXNET_UPDATE_ON_KVSTORE=0 always does."""
    import os
    update_on_kvstore = bool(int(os.getenv("MXNET_UPDATE_ON_KVSTORE", "1")))
    if kvstore is None:
        kv = None
    elif isinstance(kvstore, kvs.KVStoreBase):
        kv = kvstore
    elif isinstance(kvstore, str):
        kv = None if num_device == 1 and "dist" not in kvstore else kvs.create(kvstore)
        if kv is not None and kvstore == "local":
            largest = max((int(np.prod(p.shape)) for p in arg_params.values()), default=0)
            if largest > 1024 * 1024 * 16:
                update_on_kvstore = False
    else:
        raise TypeError(f"FeedForward.fit: kvstore must be a KVStore, a str or None, got "
                        f"{type(kvstore).__name__}")
    if kv is None:
        return None, False
    return kv, update_on_kvstore and kv.is_capable(kvs.KVStoreBase.OPTIMIZER)


def _initialize_kvstore(kv, param_arrays, arg_params, param_names, update_on_kvstore):
    """Store each parameter under its name; when the store runs the optimizer, its value is
    also copied to every context."""
    for name, copies in zip(param_names, param_arrays):
        if not update_on_kvstore or arg_params[name].stype != "default":
            kv.init(name, arg_params[name])
        else:
            kv.broadcast(name, arg_params[name], out=copies)


def _update_params_on_kvstore(param_arrays, grad_arrays, kv, param_names):
    """Push every context's gradient (the store sums them and steps its copy) and pull the
    new value into every context."""
    for index, (name, weights, grads) in enumerate(zip(param_names, param_arrays, grad_arrays)):
        if grads[0] is None:
            continue
        if grads[0].stype == "default" and weights[0].stype == "default":
            kv.pushpull(name, grads, out=weights, priority=-index)
        else:
            kv.push(name, grads, priority=-index)
            kv.pull(name, out=weights, priority=-index)


def _update_params(param_arrays, grad_arrays, updater, num_device, kv=None, param_names=None):
    """Step every context's copy of each parameter here: the gradients summed over the
    contexts first (when there is a store); parameter ``i`` on context ``k`` is optimizer
    index ``i * num_device + k``, so that each copy has its own optimizer state."""
    per_device = [[] for _ in range(num_device)]
    for i, (weights, grads) in enumerate(zip(param_arrays, grad_arrays)):
        if grads[0] is None:
            continue
        if kv is not None:
            if grads[0].stype == "default" and weights[0].stype == "default":
                kv.pushpull(param_names[i], grads, priority=-i)
            else:
                kv.push(param_names[i], grads, priority=-i)
                kv.pull(param_names[i], out=grads, priority=-i)
        for k, (w, g) in enumerate(zip(weights, grads)):
            per_device[k].append((i * num_device + k, g, w))
    for updates in per_device:
        if updates:
            index, grads, weights = zip(*updates)
            updater(list(index), list(grads), list(weights))


# ---- the training loop -------------------------------------------------------------------------
def _train(symbol, ctx, arg_names, param_names, aux_names, arg_params, aux_params,
           begin_epoch, end_epoch, epoch_size, optimizer, kvstore, update_on_kvstore,
           train_data, eval_data=None, eval_metric=None, epoch_end_callback=None,
           batch_end_callback=None, logger=None, work_load_list=None, monitor=None,
           eval_end_callback=None, eval_batch_end_callback=None, sym_gen=None):
    """Train from epoch `begin_epoch` to `end_epoch` (excluded) as MXNet 1.x's
    `_train_multi_device`; `arg_params` and `aux_params` receive the trained values (at
    every epoch's end when there is an `epoch_end_callback`, else at the last one).

    An epoch is `epoch_size` batches (the iterator is reset, and read on, when it ends
    first), or one pass over `train_data` when `epoch_size` is None. The callbacks'
    ``BatchEndParam.locals`` hold ``data_batch`` and ``executor_manager``, as in MXNet."""
    logger = logging if logger is None else logger
    executor_manager = DataParallelExecutorManager(
        symbol=symbol, sym_gen=sym_gen, ctx=ctx, train_data=train_data,
        param_names=param_names, arg_names=arg_names, aux_names=aux_names,
        work_load_list=work_load_list, logger=logger)
    if monitor:
        executor_manager.install_monitor(monitor)
    executor_manager.set_params(arg_params, aux_params)
    params, grads = executor_manager.param_arrays, executor_manager.grad_arrays
    names = executor_manager.param_names
    if update_on_kvstore:
        kvstore.set_optimizer(optimizer)
    else:
        updater = opt.get_updater(optimizer)
    if kvstore:
        _initialize_kvstore(kvstore, params, arg_params, names, update_on_kvstore)

    train_data.reset()
    for epoch in range(begin_epoch, end_epoch):
        tic = time.time()
        eval_metric.reset()
        nbatch = 0
        while True:  # one pass over the data, or epoch_size batches across passes
            exhausted = True
            for data_batch in train_data:
                executor_manager.load_data_batch(data_batch)
                if monitor is not None:
                    monitor.tic()
                executor_manager.forward(is_train=True)
                executor_manager.backward()
                if update_on_kvstore:
                    _update_params_on_kvstore(params, grads, kvstore, names)
                else:
                    _update_params(params, grads, updater, len(ctx), kvstore, names)
                if monitor is not None:
                    monitor.toc_print()
                executor_manager.update_metric(eval_metric, data_batch.label)
                nbatch += 1
                if batch_end_callback is not None:
                    _call_each(batch_end_callback, BatchEndParam(
                        epoch=epoch, nbatch=nbatch, eval_metric=eval_metric, locals=locals()))
                if epoch_size is not None and nbatch >= epoch_size:
                    exhausted = False
                    break
            if exhausted:
                logger.info("Epoch[%d] Data iterator reset", epoch)
                train_data.reset()
            if epoch_size is None or nbatch >= epoch_size:
                break
        logger.info("Epoch[%d] Time cost=%.3f", epoch, time.time() - tic)

        if epoch_end_callback or epoch + 1 == end_epoch:
            executor_manager.copy_to(arg_params, aux_params)
        _call_each(epoch_end_callback, epoch, symbol, arg_params, aux_params)

        if eval_data:
            eval_metric.reset()
            eval_data.reset()
            total = 0
            for i, eval_batch in enumerate(eval_data):
                executor_manager.load_data_batch(eval_batch)
                executor_manager.forward(is_train=False)
                executor_manager.update_metric(eval_metric, eval_batch.label)
                if eval_batch_end_callback is not None:
                    _call_each(eval_batch_end_callback, BatchEndParam(
                        epoch=epoch, nbatch=i, eval_metric=eval_metric, locals=locals()))
                total += 1
            if eval_end_callback is not None:
                _call_each(eval_end_callback, BatchEndParam(
                    epoch=epoch, nbatch=total, eval_metric=eval_metric, locals=locals()))
            eval_data.reset()


def _as_contexts(ctx):
    """`ctx` (None, a Context or a list of them) as a list."""
    if ctx is None:
        return [cpu()]
    if isinstance(ctx, Context):
        return [ctx]
    if isinstance(ctx, (list, tuple)) and ctx and all(isinstance(c, Context) for c in ctx):
        return list(ctx)
    raise TypeError(f"FeedForward: ctx must be a Context or a non-empty list of Contexts, got "
                    f"{ctx!r}")


def _check_params(what, params):
    if params is not None and not isinstance(params, dict):
        raise TypeError(f"FeedForward: {what} must be a dict of name to NDArray (or None), got "
                        f"{type(params).__name__}")


class FeedForward:
    """A network with its parameters and training settings: MXNet 1.x's legacy estimator
    (deprecated, as in MXNet: constructing one warns; `mx.mod.Module` replaces it).

    Args:
        symbol (Symbol or callable): the network, with one loss output (SoftmaxOutput...)
            for `fit`; or ``bucket_key -> Symbol`` for bucketing data (the symbol is made
            by `fit` from the data's ``default_bucket_key``).
        ctx (Context or list of Context): where to train, one executor per context (each
            computing its part of every batch); `predict` and `score` use the first
            (default None: ``mx.cpu()``).
        num_epoch (int): train until this epoch (`fit` needs it) (default None).
        epoch_size (int): batches per epoch (default None: one pass over the data).
        optimizer (str or Optimizer): a name for ``mx.optimizer.create`` (given
            ``rescale_grad=1/batch_size`` and `kwargs`) or an Optimizer (default 'sgd').
        initializer (Initializer): fills the parameters not given in `arg_params` /
            `aux_params`, called with each name (default ``mx.init.Uniform(0.01)``).
        numpy_batch_size (int): the batch size when `fit`, `predict` or `score` are given
            arrays (capped at the number of samples) (default 128).
        arg_params (dict of str to NDArray): parameters to start from (default None).
        aux_params (dict of str to NDArray): auxiliary states to start from (default None).
        allow_extra_params (bool): drop names of `arg_params` / `aux_params` the symbol does
            not have (default False: they are ignored by `fit`, refused by `predict`).
        begin_epoch (int): the first epoch's number (default 0; `load` sets it).
        **kwargs: the optimizer's arguments (``learning_rate``, ``momentum``, ``wd``...).

    Raises:
        TypeError: `symbol` neither a Symbol nor callable; `ctx` not Contexts; `arg_params`
            or `aux_params` not dicts.
        ValueError: two arguments of the symbol share a name; `numpy_batch_size` not a
            positive int.

    Example::

        net = sym.SoftmaxOutput(sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc'),
                                name='softmax')
        model = mx.model.FeedForward(net, num_epoch=3, learning_rate=0.1, momentum=0.9)
        model.fit(np.ones((8, 4)), np.zeros(8))
        sorted(model.arg_params)   # ['fc_bias', 'fc_weight']
    """

    def __init__(self, symbol, ctx=None, num_epoch=None, epoch_size=None, optimizer="sgd",
                 initializer=Uniform(0.01), numpy_batch_size=128, arg_params=None,
                 aux_params=None, allow_extra_params=False, begin_epoch=0, **kwargs):
        warnings.warn("mx.model.FeedForward is deprecated (MXNet 1.0 replaced it with "
                      "mx.mod.Module); it is kept for old scripts", DeprecationWarning,
                      stacklevel=2)
        if isinstance(symbol, sym.Symbol):
            self.symbol, self.sym_gen = symbol, None
        elif callable(symbol):
            self.symbol, self.sym_gen = None, symbol
        else:
            raise TypeError(f"FeedForward: symbol must be a Symbol or a function of the bucket "
                            f"key returning one, got {type(symbol).__name__}")
        _check_params("arg_params", arg_params)
        _check_params("aux_params", aux_params)
        if isinstance(numpy_batch_size, bool) or not isinstance(
                numpy_batch_size, (int, np.integer)) or numpy_batch_size < 1:
            raise ValueError(f"FeedForward: numpy_batch_size must be a positive int, got "
                             f"{numpy_batch_size!r}")
        self.arg_params = arg_params
        self.aux_params = aux_params
        self.allow_extra_params = allow_extra_params
        self.argument_checked = False
        if self.sym_gen is None:
            self._check_arguments()
        self.ctx = _as_contexts(ctx)
        self.num_epoch = num_epoch
        self.epoch_size = epoch_size
        self.kwargs = kwargs.copy()
        self.optimizer = optimizer
        self.initializer = initializer
        self.numpy_batch_size = numpy_batch_size
        self._pred_exec = None
        self.begin_epoch = begin_epoch

    def _check_arguments(self):
        """Refuse repeated argument names; drop extra parameters if `allow_extra_params`."""
        if self.argument_checked:
            return
        self.argument_checked = True
        _check_arguments(self.symbol)
        if self.allow_extra_params:
            if self.arg_params:
                names = set(self.symbol.list_arguments())
                self.arg_params = {k: v for k, v in self.arg_params.items() if k in names}
            if self.aux_params:
                names = set(self.symbol.list_auxiliary_states())
                self.aux_params = {k: v for k, v in self.aux_params.items() if k in names}

    def _init_params(self, inputs, overwrite=False):
        """Make `arg_params` and `aux_params` the symbol's parameters for `inputs` (DataDescs
        or (name, shape) pairs): each one given before is copied (unless `overwrite`), the
        others are filled by the initializer in the symbol's order.

        Returns:
            ``(arg_names, param_names, aux_names)``.
        """
        inputs = [d if isinstance(d, io.DataDesc) else io.DataDesc(*d) for d in inputs]
        shapes = {d.name: d.shape for d in inputs}
        arg_shapes, _, aux_shapes = self.symbol.infer_shape(**shapes)
        if arg_shapes is None:
            raise ValueError(f"FeedForward.fit: the input shapes {shapes} leave some parameter "
                             "shapes unknown")
        arg_types, _, aux_types = self.symbol.infer_type(**{d.name: d.dtype for d in inputs})
        arg_names = self.symbol.list_arguments()
        param_names = [n for n in arg_names if n not in shapes]
        aux_names = self.symbol.list_auxiliary_states()
        args = {n: nd.zeros(s, dtype=t) for n, s, t in zip(arg_names, arg_shapes, arg_types)
                if n in param_names}
        auxs = {n: nd.zeros(s, dtype=t) for n, s, t in zip(aux_names, aux_shapes, aux_types)}
        for made, given, what in ((args, self.arg_params, "arg_params"),
                                  (auxs, self.aux_params, "aux_params")):
            for name, array in made.items():
                if given and name in given and not overwrite:
                    src = given[name]
                    if tuple(src.shape) != array.shape:
                        raise ValueError(f"FeedForward.fit: {what}[{name!r}] has shape "
                                         f"{tuple(src.shape)} but the symbol needs "
                                         f"{array.shape} for these inputs")
                    array[:] = src
                else:
                    self.initializer(name, array)
        self.arg_params, self.aux_params = args, auxs
        return arg_names, list(param_names), aux_names

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_pred_exec"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)

    def _init_predictor(self, input_shapes, type_dict=None):
        """Bind (or reuse, for the same shapes) the inference executor on the first context
        and copy the parameters into it."""
        for what, params, names in (
                ("arg_params", self.arg_params, self.symbol.list_arguments()),
                ("aux_params", self.aux_params or {}, self.symbol.list_auxiliary_states())):
            extra = sorted(set(params) - set(names))
            if extra:
                raise ValueError(f"FeedForward: {what} has {extra}, which the symbol does not "
                                 f"take; drop them or pass allow_extra_params=True")
        shapes = {name: a.shape for name, a in self.arg_params.items()}
        shapes.update(dict(input_shapes))
        if self._pred_exec is not None:
            arg_shapes, _, _ = self.symbol.infer_shape(**shapes)
            if arg_shapes == [a.shape for a in self._pred_exec.arg_arrays]:
                self._pred_exec.copy_params_from(self.arg_params, self.aux_params)
                return
        _check_arguments(self.symbol)
        exe = self.symbol.simple_bind(self.ctx[0], grad_req="null", type_dict=type_dict,
                                      **shapes)
        exe.copy_params_from(self.arg_params, self.aux_params)
        self._pred_exec = exe

    def _init_iter(self, X, y, is_train, what="fit"):
        """`X` as a DataIter: arrays are batched by `numpy_batch_size` (shuffled and rolled
        over for training, padded otherwise); labels default to zeros for inference."""
        if isinstance(X, (np.ndarray, nd.NDArray)):
            if y is None:
                if is_train:
                    raise ValueError(f"FeedForward.{what}: y (the labels) must be given when X "
                                     "is an array")
                y = np.zeros(X.shape[0])
            if not isinstance(y, (np.ndarray, nd.NDArray)):
                raise TypeError(f"FeedForward.{what}: y must be a numpy.ndarray or NDArray when "
                                f"X is an array, got {type(y).__name__}")
            if X.shape[0] != y.shape[0]:
                raise ValueError(f"FeedForward.{what}: X has {X.shape[0]} samples but y has "
                                 f"{y.shape[0]} labels; they must be as many")
            if y.ndim == 2 and y.shape[1] == 1:
                y = y.reshape((y.shape[0],))
            if y.ndim != 1:
                raise ValueError(f"FeedForward.{what}: y must be 1-D (or 2-D with one column), "
                                 f"got shape {tuple(y.shape)}")
            batch_size = min(X.shape[0], self.numpy_batch_size)
            if is_train:
                return io.NDArrayIter(X, y, batch_size, shuffle=True,
                                      last_batch_handle="roll_over")
            return io.NDArrayIter(X, y, batch_size, shuffle=False)
        if not isinstance(X, io.DataIter):
            raise TypeError(f"FeedForward.{what}: X must be a DataIter, NDArray or "
                            f"numpy.ndarray, got {type(X).__name__}")
        return X

    def _init_eval_iter(self, eval_data):
        """`eval_data` (None, a DataIter, or a (data, label) pair of arrays or lists, batched
        as training data) as a DataIter."""
        if eval_data is None:
            return None
        if isinstance(eval_data, (tuple, list)) and len(eval_data) == 2:
            data, label = eval_data
            if data is None:
                raise ValueError("FeedForward.fit: eval_data[0] (the data) is None")
            if label is None and isinstance(data, io.DataIter):
                return data
            data = np.array(data) if isinstance(data, list) else data
            label = np.array(label) if isinstance(label, list) else label
            return self._init_iter(data, label, is_train=True, what="fit (eval_data)")
        if not isinstance(eval_data, io.DataIter):
            raise TypeError(f"FeedForward.fit: eval_data must be a DataIter or a (data, label) "
                            f"pair of arrays, got {type(eval_data).__name__}")
        return eval_data

    def _inference_setup(self, X, reset, what):
        """The iterator of `X` and the input arrays of the bound inference executor."""
        if self.arg_params is None:
            raise ValueError(f"FeedForward.{what}: the model has no parameters; fit it, load "
                             "it, or give arg_params")
        if self.symbol is None:
            raise ValueError(f"FeedForward.{what}: a bucketing model has no symbol before fit")
        X = self._init_iter(X, None, is_train=False, what=what)
        if reset:
            X.reset()
        type_dict = {k: v.dtype for k, v in self.arg_params.items()}
        for d in X.provide_data:
            type_dict[d[0]] = d.dtype if isinstance(d, io.DataDesc) else np.float32
        self._init_predictor(X.provide_data, type_dict)
        return X, [self._pred_exec.arg_dict[d[0]] for d in X.provide_data]

    def predict(self, X, num_batch=None, return_data=False, reset=True):
        """The outputs of the network on `X`, on the first context (padding dropped).

        Args:
            X (DataIter, NDArray or numpy.ndarray): the data (arrays are batched by
                `numpy_batch_size`).
            num_batch (int): stop after this many batches (default None: all).
            return_data (bool): also return the data and labels, as numpy arrays
                (default False).
            reset (bool): reset `X` first (default True).

        Returns:
            numpy.ndarray, or a list of them for several outputs; with `return_data`,
            ``(outputs, data, label)`` (each a list when there are several).

        Raises:
            TypeError: `X` of another type.
            ValueError: the model has no parameters yet.

        Example::

            net = sym.SoftmaxOutput(sym.FullyConnected(sym.var('data'), num_hidden=2,
                                                       name='fc'), name='softmax')
            params = {'fc_weight': nd.ones((2, 3)), 'fc_bias': nd.array([0, 1])}
            model = mx.model.FeedForward(net, arg_params=params)
            out, data, label = model.predict(np.ones((4, 3)), return_data=True)
            out.shape, data.shape, label.shape   # ((4, 2), (4, 3), (4,))
        """
        X, data_arrays = self._inference_setup(X, reset, "predict")
        exe = self._pred_exec
        outputs = [[] for _ in exe.outputs]
        if return_data:
            data_parts = [[] for _ in X.provide_data]
            label_parts = [[] for _ in X.provide_label]
        for i, batch in enumerate(X):
            _load_data(batch, data_arrays)
            exe.forward(is_train=False)
            real = X.batch_size - batch.pad
            for acc, out in zip(outputs, exe.outputs):
                acc.append(out[0:real].asnumpy())
            if return_data:
                for acc, x in zip(data_parts, batch.data):
                    acc.append(x[0:real].asnumpy())
                for acc, x in zip(label_parts, batch.label):
                    acc.append(x[0:real].asnumpy())
            if num_batch is not None and i + 1 == num_batch:
                break
        if not outputs[0]:
            raise ValueError("FeedForward.predict: X gave no batch (reset it, or pass "
                             "reset=True)")

        def joined(parts):
            arrays = [np.concatenate(p) for p in parts]
            return arrays[0] if len(arrays) == 1 else arrays
        if return_data:
            return joined(outputs), joined(data_parts), joined(label_parts)
        return joined(outputs)

    def score(self, X, eval_metric="acc", num_batch=None, batch_end_callback=None, reset=True):
        """`eval_metric` of the network's outputs on `X` against its labels (arrays without
        labels are scored against zeros, as in MXNet), on the first context.

        Args:
            X (DataIter, NDArray or numpy.ndarray): the data and labels.
            eval_metric (str, EvalMetric or callable): the metric (default 'acc').
            num_batch (int): stop after this many batches (default None: all).
            batch_end_callback (callable or list): called with a `BatchEndParam` (epoch 0,
                nbatch counting from 0) after each batch (default None).
            reset (bool): reset `X` first (default True).

        Returns:
            The metric's value (a list of them for a composite metric).

        Raises:
            TypeError: `X` of another type.
            ValueError: the model has no parameters yet.

        Example::

            net = sym.SoftmaxOutput(sym.FullyConnected(sym.var('data'), num_hidden=2,
                                                       name='fc'), name='softmax')
            params = {'fc_weight': nd.zeros((2, 3)), 'fc_bias': nd.array([1, 0])}
            model = mx.model.FeedForward(net, arg_params=params)
            it = mx.io.NDArrayIter(np.ones((4, 3)), np.array([0, 0, 0, 1]), batch_size=2)
            model.score(it)   # 0.75: class 0 is predicted for all four
        """
        if not isinstance(eval_metric, metric.EvalMetric):
            eval_metric = metric.create(eval_metric)
        X, data_arrays = self._inference_setup(X, reset, "score")
        for i, batch in enumerate(X):
            if num_batch is not None and i == num_batch:
                break
            _load_data(batch, data_arrays)
            self._pred_exec.forward(is_train=False)
            eval_metric.update(batch.label, self._pred_exec.outputs)
            if batch_end_callback is not None:
                _call_each(batch_end_callback, BatchEndParam(
                    epoch=0, nbatch=i, eval_metric=eval_metric, locals=locals()))
        return eval_metric.get()[1]

    def fit(self, X, y=None, eval_data=None, eval_metric="acc", epoch_end_callback=None,
            batch_end_callback=None, kvstore="local", logger=None, work_load_list=None,
            monitor=None, eval_end_callback=LogValidationMetricsCallback(),
            eval_batch_end_callback=None):
        """Train from `begin_epoch` to `num_epoch`; `arg_params` and `aux_params` then hold
        the trained values.

        Args:
            X (DataIter, NDArray or numpy.ndarray): the training data; arrays are batched by
                `numpy_batch_size`, shuffled with numpy's global random state at each
                epoch, the last short batch completed by the next epoch's first samples.
            y (NDArray or numpy.ndarray): the labels when `X` is an array (1-D, or 2-D with
                one column) (default None).
            eval_data (DataIter or tuple): evaluated after each epoch, with the
                training batch size; a (data, label) pair is batched like `X` (default None).
            eval_metric (str, EvalMetric or callable): the metric of training and
                evaluation (default 'acc').
            epoch_end_callback (callable or list): ``f(epoch, symbol, arg_params,
                aux_params)`` after each epoch (default None).
            batch_end_callback (callable or list): ``f(BatchEndParam)`` after each batch,
                nbatch counting from 1 (default None).
            kvstore (str or KVStore): 'local' or 'device' sum the contexts' gradients and run
                the optimizer (with one context and a name: no store) (default 'local').
            logger (logging.Logger): where progress is logged (default None: the root
                logger).
            work_load_list (list): each context's share of a batch (default None:
                equal).
            monitor (Monitor): watches the executors' arrays (default None).
            eval_end_callback (callable or list): ``f(BatchEndParam)`` after each
                evaluation (default: log the validation metric).
            eval_batch_end_callback (callable or list): ``f(BatchEndParam)`` after each
                evaluation batch (default None).

        Raises:
            ValueError: `num_epoch` not set; `y` missing or not as many as `X`; an eval
                batch size that is not the training one.
            TypeError: `X`, `y`, `eval_data`, `optimizer` or `kvstore` of another type;
                ``rescale_grad`` among the optimizer arguments of an optimizer name.
            NotImplementedError: a distributed kvstore.

        Example::

            net = sym.SoftmaxOutput(sym.FullyConnected(sym.var('data'), num_hidden=2,
                                                       name='fc'), name='softmax')
            model = mx.model.FeedForward(net, num_epoch=2, numpy_batch_size=4,
                                         learning_rate=0.1)
            seen = []
            model.fit(np.ones((8, 3)), np.zeros(8),
                      batch_end_callback=lambda p: seen.append((p.epoch, p.nbatch)))
            seen   # [(0, 1), (0, 2), (1, 1), (1, 2)]
        """
        if self.num_epoch is None:
            raise ValueError("FeedForward.fit: num_epoch is None; give FeedForward(..., "
                             "num_epoch=N) the epoch to train until")
        if isinstance(self.optimizer, str) and "rescale_grad" in self.kwargs:
            raise TypeError("FeedForward.fit: rescale_grad is set by fit (1/batch_size); drop "
                            "it from the optimizer arguments, or pass an Optimizer instance")
        if not isinstance(self.optimizer, (str, opt.Optimizer)):
            raise TypeError(f"FeedForward.fit: optimizer must be a name or an Optimizer, got "
                            f"{type(self.optimizer).__name__}")
        data = self._init_iter(X, y, is_train=True)
        eval_data = self._init_eval_iter(eval_data)
        if self.sym_gen:
            self.symbol = self.sym_gen(data.default_bucket_key)
            self._check_arguments()
        self.kwargs["sym"] = self.symbol
        self._pred_exec = None  # bound for the parameters replaced below
        arg_names, param_names, aux_names = self._init_params(
            data.provide_data + data.provide_label)
        if not isinstance(eval_metric, metric.EvalMetric):
            eval_metric = metric.create(eval_metric)

        kv, update_on_kvstore = _create_kvstore(kvstore, len(self.ctx), self.arg_params)
        n_dev = len(self.ctx)
        if update_on_kvstore:
            idx2name = dict(enumerate(param_names))
        else:  # one optimizer state per parameter and context
            idx2name = {i * n_dev + k: n for i, n in enumerate(param_names)
                        for k in range(n_dev)}
        self.kwargs["param_idx2name"] = idx2name
        if isinstance(self.optimizer, str):
            batch_size = data.batch_size
            if kv and "dist" in kv.type and "_async" not in kv.type:
                batch_size *= kv.num_workers
            optimizer = opt.create(self.optimizer, rescale_grad=1.0 / batch_size,
                                   **self.kwargs)
        else:
            optimizer = self.optimizer
            if not optimizer.idx2name:
                optimizer.idx2name = idx2name.copy()

        _train(self.symbol, self.ctx, arg_names, param_names, aux_names,
               self.arg_params, self.aux_params, begin_epoch=self.begin_epoch,
               end_epoch=self.num_epoch, epoch_size=self.epoch_size, optimizer=optimizer,
               kvstore=kv, update_on_kvstore=update_on_kvstore, train_data=data,
               eval_data=eval_data, eval_metric=eval_metric,
               epoch_end_callback=epoch_end_callback, batch_end_callback=batch_end_callback,
               logger=logger, work_load_list=work_load_list, monitor=monitor,
               eval_end_callback=eval_end_callback,
               eval_batch_end_callback=eval_batch_end_callback, sym_gen=self.sym_gen)

    def save(self, prefix, epoch=None, remove_amp_cast=True):
        """Write ``prefix-symbol.json`` and ``prefix-%04d.params`` (`mx.model.save_checkpoint`).

        Args:
            prefix (str): the files' path prefix.
            epoch (int): the number in the parameters' file name (default None:
                `num_epoch`).
            remove_amp_cast (bool): MXNet's flag for mixed-precision casts; the symbol is
                saved as it is (default True).

        Raises:
            ValueError: no `epoch` and no `num_epoch`; no parameters yet.

        Example::

            net = sym.SoftmaxOutput(sym.FullyConnected(sym.var('data'), num_hidden=2,
                                                       name='fc'), name='softmax')
            params = {'fc_weight': nd.ones((2, 3)), 'fc_bias': nd.zeros(2)}
            mx.model.FeedForward(net, arg_params=params, aux_params={}).save('net', 3)
            # wrote net-symbol.json and net-0003.params
        """
        epoch = self.num_epoch if epoch is None else epoch
        if epoch is None:
            raise ValueError("FeedForward.save: give the epoch (the model has no num_epoch)")
        if self.arg_params is None:
            raise ValueError("FeedForward.save: the model has no parameters yet; fit it first")
        save_checkpoint(prefix, epoch, self.symbol, self.arg_params, self.aux_params or {},
                        remove_amp_cast=remove_amp_cast)

    @staticmethod
    def load(prefix, epoch, ctx=None, **kwargs):
        """A `FeedForward` of the checkpoint ``prefix-symbol.json`` and
        ``prefix-%04d.params``, starting at epoch `epoch`.

        Args:
            prefix (str): the files' path prefix.
            epoch (int): the epoch number of the parameters' file (the `begin_epoch`).
            ctx (Context or list of Context): as for `FeedForward` (default None: cpu).
            **kwargs: more `FeedForward` arguments (``num_epoch``, optimizer arguments...).

        Returns:
            FeedForward: the model, ready to `predict` (or to `fit` further).

        Example::

            net = sym.SoftmaxOutput(sym.FullyConnected(sym.var('data'), num_hidden=2,
                                                       name='fc'), name='softmax')
            params = {'fc_weight': nd.ones((2, 3)), 'fc_bias': nd.zeros(2)}
            mx.model.save_checkpoint('net', 3, net, params, {})
            model = mx.model.FeedForward.load('net', 3)
            model.begin_epoch, sorted(model.arg_params)   # (3, ['fc_bias', 'fc_weight'])
        """
        symbol, arg_params, aux_params = load_checkpoint(prefix, epoch)
        return FeedForward(symbol, ctx=ctx, arg_params=arg_params, aux_params=aux_params,
                           begin_epoch=epoch, **kwargs)

    @staticmethod
    def create(symbol, X, y=None, ctx=None, num_epoch=None, epoch_size=None, optimizer="sgd",
               initializer=Uniform(0.01), eval_data=None, eval_metric="acc",
               epoch_end_callback=None, batch_end_callback=None, kvstore="local", logger=None,
               work_load_list=None, eval_end_callback=LogValidationMetricsCallback(),
               eval_batch_end_callback=None, **kwargs):
        """A `FeedForward` made and fitted in one call (`FeedForward(...)` then `fit`).

        Args:
            symbol (Symbol): the network.
            X (DataIter, NDArray or numpy.ndarray): the training data.
            y (NDArray or numpy.ndarray): the labels when `X` is an array (default None).
            ctx (Context or list of Context): where to train (default None: cpu).
            num_epoch (int): epochs to train (needed).
            epoch_size (int): batches per epoch (default None: one pass).
            optimizer (str or Optimizer): the optimizer (default 'sgd').
            initializer (Initializer): for the parameters not given (default Uniform(0.01)).
            eval_data (DataIter or tuple): a (data, label) pair or a DataIter, evaluated each
                epoch (default None).
            eval_metric (str, EvalMetric or callable): the metric (default 'acc').
            epoch_end_callback (callable or list): as for `fit` (default None).
            batch_end_callback (callable or list): as for `fit` (default None).
            kvstore (str or KVStore): as for `fit` (default 'local').
            logger (logging.Logger): as for `fit` (default None).
            work_load_list (list): as for `fit` (default None).
            eval_end_callback (callable or list): as for `fit` (default: log the metric).
            eval_batch_end_callback (callable or list): as for `fit` (default None).
            **kwargs: the other `FeedForward` arguments (``arg_params``,
                ``numpy_batch_size``...) and the optimizer's (``learning_rate``...).

        Returns:
            FeedForward: the trained model.

        Raises:
            ValueError, TypeError: as `FeedForward` and `fit`.

        Example::

            net = sym.SoftmaxOutput(sym.FullyConnected(sym.var('data'), num_hidden=2,
                                                       name='fc'), name='softmax')
            model = mx.model.FeedForward.create(net, np.ones((8, 3)), np.zeros(8),
                                                num_epoch=2, learning_rate=0.1)
            model.predict(np.ones((2, 3))).argmax(axis=1)   # array([0, 0])
        """
        model = FeedForward(symbol, ctx=ctx, num_epoch=num_epoch, epoch_size=epoch_size,
                            optimizer=optimizer, initializer=initializer, **kwargs)
        model.fit(X, y, eval_data=eval_data, eval_metric=eval_metric,
                  epoch_end_callback=epoch_end_callback, batch_end_callback=batch_end_callback,
                  kvstore=kvstore, logger=logger, work_load_list=work_load_list,
                  eval_end_callback=eval_end_callback,
                  eval_batch_end_callback=eval_batch_end_callback)
        return model
