"""`BaseModule`: what every module kind shares, the training and evaluation loops
(`fit`, `score`, `predict`, `iter_predict`) written once over the per-module primitives
(`bind`, `init_params`, `init_optimizer`, `forward`, `backward`, `update`, `update_metric`,
`get_outputs`).
"""
import logging
import time
import warnings

import numpy as np

from .. import metric as metric_mod, ndarray as nd
from ..initializer import Uniform
from ..model import BatchEndParam, _split_arg_aux
from ..context import cpu
from ..io import DataBatch

__all__ = ["BaseModule"]


def _as_list(obj):
    if obj is None:
        return []
    return list(obj) if isinstance(obj, (list, tuple)) else [obj]


def _check_input_names(symbol, names, typename, throw):
    """Check that every name in `names` is an argument of `symbol` (raise or warn)."""
    args = symbol.list_arguments()
    for name in names:
        if name in args:
            continue
        msg = (f"Module: {typename} {name!r} is not an argument of the symbol; its "
               f"arguments are {args}")
        if throw:
            raise ValueError(msg)
        logging.warning(msg)


class BaseModule:
    """The interface and loops of MXNet 1.x's modules (`Module`, `BucketingModule`,
    `SequentialModule`, `PythonModule`).

    A subclass defines the primitives; `fit` then trains: bind to the iterator's shapes,
    initialize parameters and optimizer, and per batch forward, backward, update and
    update the metric, calling the callbacks.

    Args:
        logger: where progress is logged (the `logging` module by default).

    Example::

        fc = sym.FullyConnected(sym.var('data'), num_hidden=2)
        net = sym.SoftmaxOutput(fc, name='softmax')
        train_iter = mx.io.NDArrayIter(np.random.rand(8, 3), np.array([0, 1] * 4), batch_size=4)
        val_iter = mx.io.NDArrayIter(np.random.rand(4, 3), np.array([0, 1] * 2), batch_size=4)
        mod = mx.mod.Module(net)
        mod.fit(train_iter, eval_data=val_iter, num_epoch=3, optimizer="sgd",
                optimizer_params={"learning_rate": 0.1}, eval_metric="acc")
    """

    def __init__(self, logger=logging):
        self.logger = logger
        self.binded = False
        self.for_training = False
        self.inputs_need_grad = False
        self.params_initialized = False
        self.optimizer_initialized = False
        self._symbol = None
        self._total_exec_bytes = 0

    # ---- the loops ---------------------------------------------------------------------------
    def forward_backward(self, data_batch):
        """`forward` in training mode, then `backward`.

        Args:
            data_batch (DataBatch): the batch; its `data` (and, in training, `label`) feed the
                inputs.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            batch = mx.io.DataBatch([nd.ones((4, 3))], [nd.zeros(4)])
            mod.forward_backward(batch)   # forward(is_train=True), backward()
        """
        self.forward(data_batch, is_train=True)
        self.backward()

    def score(self, eval_data, eval_metric, num_batch=None, batch_end_callback=None,
              score_end_callback=None, reset=True, epoch=0, sparse_row_id_fn=None):
        """Run `eval_data` in inference mode and return ``eval_metric``'s
        ``[(name, value)]``.

        Args:
            eval_data: a DataIter.
            eval_metric: an EvalMetric or a name `metric.create` takes.
            num_batch: stop after this many batches (None: the whole epoch).
            reset: reset `eval_data` first.
            epoch: passed to the callbacks.
            batch_end_callback (callable or list): called with a `BatchEndParam` after each
                batch (default None).
            score_end_callback (callable or list): called with a `BatchEndParam` once at the
                end (default None).
            sparse_row_id_fn (callable): MXNet's row-sparse pulls; default None (giving one
                raises NotImplementedError: row_sparse parameters are not supported).

        Raises:
            ValueError: not bound or not initialized.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            it = mx.io.NDArrayIter(np.ones((8, 3)), np.zeros(8), batch_size=4)
            mod.score(it, 'acc')   # [('accuracy', ...)]
        """
        self._check_ready("score")
        if reset:
            eval_data.reset()
        if not isinstance(eval_metric, metric_mod.EvalMetric):
            eval_metric = metric_mod.create(eval_metric)
        eval_metric.reset()
        actual = 0
        for nbatch, batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(batch, is_train=False)
            self.update_metric(eval_metric, batch.label)
            for cb in _as_list(batch_end_callback):
                cb(BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=eval_metric,
                                 locals=locals()))
            actual += 1
        for cb in _as_list(score_end_callback):
            cb(BatchEndParam(epoch=epoch, nbatch=actual, eval_metric=eval_metric,
                             locals=locals()))
        return eval_metric.get_name_value()

    def iter_predict(self, eval_data, num_batch=None, reset=True, sparse_row_id_fn=None):
        """Yield ``(outputs, nbatch, batch)`` per batch of `eval_data` (inference mode), the
        outputs without the batch's padding.

        Args:
            num_batch (int): stop after this many batches (default None: the whole epoch).
            reset (bool): reset `eval_data` first (default True).
            sparse_row_id_fn (callable): MXNet's row-sparse pulls; default None (giving one
                raises NotImplementedError: row_sparse parameters are not supported).

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            it = mx.io.NDArrayIter(np.ones((8, 3)), np.zeros(8), batch_size=4)
            for outs, i, batch in mod.iter_predict(it):
                print(i, outs[0].shape)   # 0 (4, 2), then 1 (4, 2)
        """
        self._check_ready("iter_predict")
        if reset:
            eval_data.reset()
        for nbatch, batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(batch, is_train=False)
            pad = batch.pad or 0
            outputs = [out[0:out.shape[0] - pad] for out in self.get_outputs()]
            yield outputs, nbatch, batch

    def predict(self, eval_data, num_batch=None, merge_batches=True, reset=True,
                always_output_list=False, sparse_row_id_fn=None):
        """The outputs over `eval_data` (inference mode, padding dropped).

        Args:
            num_batch (int): stop after this many batches (default None: the whole epoch).
            reset (bool): reset `eval_data` first (default True).
            always_output_list (bool): return a list even for one output (default False).
            sparse_row_id_fn (callable): MXNet's row-sparse pulls; default None (giving one
                raises NotImplementedError: row_sparse parameters are not supported).

        Returns:
            merge_batches: per output the batches concatenated (one NDArray when there is
            one output and not always_output_list); else per batch the list of outputs.

        An NDArray (or numpy array) given as `eval_data` is one batch: its first output is
        returned, as in MXNet.

        Raises:
            ValueError: batches with different numbers of outputs when merging.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            it = mx.io.NDArrayIter(np.ones((8, 3)), np.zeros(8), batch_size=4)
            mod.predict(it).shape   # (8, 2)
        """
        self._check_ready("predict")
        if isinstance(eval_data, (nd.NDArray, np.ndarray)):
            self.forward(DataBatch([nd.array(eval_data) if isinstance(eval_data, np.ndarray)
                                    else eval_data]), is_train=False)
            return self.get_outputs()[0]
        output_list = [[out.copy() for out in outputs] for outputs, _, _ in
                       self.iter_predict(eval_data, num_batch, reset, sparse_row_id_fn)]
        if not output_list or not merge_batches:
            return output_list
        n = len(output_list[0])
        if any(len(outs) != n for outs in output_list):
            raise ValueError("Module.predict: the batches have different numbers of outputs; "
                             "pass merge_batches=False")
        merged = [nd.concat(*[outs[i] for outs in output_list], dim=0) for i in range(n)]
        if n == 1 and not always_output_list:
            return merged[0]
        return merged

    def fit(self, train_data, eval_data=None, eval_metric="acc", epoch_end_callback=None,
            batch_end_callback=None, kvstore="local", optimizer="sgd",
            optimizer_params=(("learning_rate", 0.01),), eval_end_callback=None,
            eval_batch_end_callback=None, initializer=None, arg_params=None,
            aux_params=None, allow_missing=False, force_rebind=False, force_init=False,
            begin_epoch=0, num_epoch=None, validation_metric=None, monitor=None,
            sparse_row_id_fn=None):
        """Train on `train_data` for epochs ``begin_epoch .. num_epoch - 1``.

        Args:
            train_data: a DataIter (its provide_data / provide_label bind the module).
            eval_data: a DataIter scored after each epoch (with `validation_metric`,
                default `eval_metric`).
            eval_metric: an EvalMetric or a name (default 'acc').
            epoch_end_callback: ``f(epoch, symbol, arg_params, aux_params)`` (or a list).
            batch_end_callback: ``f(BatchEndParam)`` (or a list).
            initializer: for parameters not given (default ``Uniform(0.01)``).
            force_rebind: bind again even when bound.
            num_epoch: required.
            monitor: a Monitor installed before training.
            kvstore (str or KVStore): where gradients are aggregated (default 'local'), as
                `Module.init_optimizer`.
            optimizer (str or Optimizer): see `init_optimizer` (default 'sgd').
            optimizer_params (dict or tuple of pairs): the named optimizer's arguments (default
                learning rate 0.01).
            eval_end_callback (callable or list): the `score_end_callback` of the validation
                after each epoch (default None).
            eval_batch_end_callback (callable or list): the `batch_end_callback` of the
                validation after each epoch (default None).
            arg_params (dict of str to NDArray): parameter values to copy in (default None).
            aux_params (dict of str to NDArray): auxiliary state values (e.g. BatchNorm
                statistics) to copy in (default None).
            allow_missing (bool): parameters absent from `arg_params` / `aux_params` are drawn
                by the initializer (default False: a missing one raises).
            force_init (bool): initialize again when already initialized (default False: the
                call is ignored with a warning).
            sparse_row_id_fn (callable): MXNet's row-sparse pulls; default None (giving one
                raises NotImplementedError: row_sparse parameters are not supported).

        Raises:
            ValueError: num_epoch not given.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2)
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            it = mx.io.NDArrayIter(np.random.rand(8, 3), np.array([0, 1] * 4), batch_size=4)
            mod.fit(it, num_epoch=2, optimizer_params={"learning_rate": 0.1},
                    batch_end_callback=mx.callback.Speedometer(32, 10))
        """
        if num_epoch is None:
            raise ValueError("Module.fit: num_epoch must be given")
        initializer = Uniform(0.01) if initializer is None else initializer
        self.bind(data_shapes=train_data.provide_data, label_shapes=train_data.provide_label,
                  for_training=True, force_rebind=force_rebind)
        if monitor is not None:
            self.install_monitor(monitor)
        self.init_params(initializer=initializer, arg_params=arg_params,
                         aux_params=aux_params, allow_missing=allow_missing,
                         force_init=force_init)
        self.init_optimizer(kvstore=kvstore, optimizer=optimizer,
                            optimizer_params=optimizer_params)
        if validation_metric is None:
            validation_metric = eval_metric
        if not isinstance(eval_metric, metric_mod.EvalMetric):
            eval_metric = metric_mod.create(eval_metric)
        for epoch in range(begin_epoch, num_epoch):
            tic = time.time()
            eval_metric.reset()
            nbatch = 0
            data_iter = iter(train_data)
            end_of_batch = False
            next_batch = next(data_iter)
            name_values = []
            while not end_of_batch:
                batch = next_batch
                if monitor is not None:
                    monitor.tic()
                self.forward_backward(batch)
                self.update()
                self.update_metric(eval_metric, batch.label)
                try:
                    next_batch = next(data_iter)
                    self.prepare(next_batch, sparse_row_id_fn=sparse_row_id_fn)
                except StopIteration:
                    end_of_batch = True
                if monitor is not None:
                    monitor.toc_print()
                if end_of_batch:
                    name_values = eval_metric.get_global_name_value()
                for cb in _as_list(batch_end_callback):
                    cb(BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=eval_metric,
                                     locals=locals()))
                nbatch += 1
            for name, val in name_values:
                self.logger.info("Epoch[%d] Train-%s=%f", epoch, name, val)
            self.logger.info("Epoch[%d] Time cost=%.3f", epoch, time.time() - tic)
            arg_params_now, aux_params_now = self.get_params()
            self.set_params(arg_params_now, aux_params_now)
            for cb in _as_list(epoch_end_callback):
                cb(epoch, self.symbol, arg_params_now, aux_params_now)
            if eval_data:
                res = self.score(eval_data, validation_metric,
                                 score_end_callback=eval_end_callback,
                                 batch_end_callback=eval_batch_end_callback, epoch=epoch)
                for name, val in res:
                    self.logger.info("Epoch[%d] Validation-%s=%f", epoch, name, val)
            train_data.reset()

    # ---- shared helpers ---------------------------------------------------------------------
    def _check_ready(self, what):
        if not self.binded:
            raise ValueError(f"{type(self).__name__}.{what}: call bind() first")
        if not self.params_initialized:
            raise ValueError(f"{type(self).__name__}.{what}: call init_params() (or "
                             "set_params()) first")

    def prepare(self, data_batch, sparse_row_id_fn=None):
        """Get ready for `data_batch`: nothing here (`Module` pulls the rows of its row_sparse
        parameters the batch needs; a `BucketingModule` binds the batch's bucket).

        Args:
            data_batch (DataBatch): the next batch.
            sparse_row_id_fn (callable): ``fn(data_batch) -> {parameter name: row ids}``;
                this class never calls it and warns that it was given, as MXNet's
                BaseModule does (default None).

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            batch = mx.io.DataBatch([nd.ones((4, 3))], [nd.zeros(4)])
            mod.prepare(batch)   # nothing to do for dense arrays
        """
        if sparse_row_id_fn is not None:
            warnings.warn(f"{type(self).__name__}.prepare: sparse_row_id_fn is not called for "
                          "this module", UserWarning, stacklevel=2)

    def install_monitor(self, mon):
        """Install a `Monitor` on the bound executors.

        Args:
            mon (Monitor): the monitor (unused here: the base class raises).

        Raises:
            NotImplementedError: this module kind cannot be monitored.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            mod.install_monitor(mx.monitor.Monitor(interval=1))   # Module does it
        """
        raise NotImplementedError(f"{type(self).__name__}.install_monitor is not supported")

    @property
    def symbol(self):
        """The module's Symbol.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            mod.symbol.list_arguments()   # ['data', 'fc_weight', 'fc_bias', 'softmax_label']
        """
        return self._symbol

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True,
                   allow_extra=False):
        """Set the parameters: `init_params` with these values and no initializer.

        Args:
            arg_params (dict of str to NDArray): the parameter values to copy in.
            aux_params (dict of str to NDArray): auxiliary state values (e.g. BatchNorm
                statistics) to copy in (default None).
            allow_missing (bool): tolerate parameters absent from `arg_params` / `aux_params`
                (default False: a missing one raises).
            force_init (bool): copy even when already initialized (default True).
            allow_extra (bool): tolerate names in `arg_params` / `aux_params` that the symbol
                does not use (default False).

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            args, auxs = mod.get_params()
            mod.set_params(args, auxs)   # e.g. from another module
        """
        self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                         allow_missing=allow_missing, force_init=force_init,
                         allow_extra=allow_extra)

    def save_params(self, fname):
        """Save the parameters to `fname` (keys ``arg:NAME`` / ``aux:NAME``).

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            mod.save_params('net-0001.params')
        """
        arg_params, aux_params = self.get_params()
        save = {f"arg:{k}": v.as_in_context(_cpu()) for k, v in arg_params.items()}
        save.update({f"aux:{k}": v.as_in_context(_cpu()) for k, v in aux_params.items()})
        nd.save(fname, save)

    def load_params(self, fname):
        """Load parameters saved by `save_params` and `set_params` them.

        Args:
            fname (str): the file's path.

        Raises:
            ValueError: a key without the ``arg:`` or ``aux:`` prefix.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            mod.save_params('net-0001.params')
            mod.load_params('net-0001.params')
        """
        arg_params, aux_params = _split_arg_aux(nd.load(fname), f"in {fname}")
        self.set_params(arg_params, aux_params)

    def get_states(self, merge_multi_context=True):
        """The states (none for this module kind).

        Args:
            merge_multi_context (bool): as `get_outputs`'s (the base module has no states
                either way).

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            mod.get_states()   # []: the symbol has no state inputs
        """
        return []

    def set_states(self, states=None, value=None):
        """Set the states (none for this module kind).

        Args:
            states (list of NDArray): the state values (ignored: no states).
            value (float): a scalar fill (ignored: no states).

        Example::

            out = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc') + sym.var('h')
            mod = mx.mod.Module(out, label_names=None, state_names=['h'])
            mod.bind([('data', (4, 3))]); mod.init_params()
            mod.set_states(value=0.0)
        """

    def get_input_grads(self, merge_multi_context=True):
        """The data inputs' gradients (see the subclass).

        Args:
            merge_multi_context (bool): as `get_outputs`'s.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))], inputs_need_grad=True)
            mod.init_params()
            batch = mx.io.DataBatch([nd.ones((4, 3))], [nd.zeros(4)])
            mod.forward_backward(batch); mod.get_input_grads()[0].shape   # (4, 3)
        """
        raise NotImplementedError(f"{type(self).__name__}.get_input_grads")


def _cpu():
    return cpu()
