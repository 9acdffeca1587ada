"""`PythonModule` and `PythonLossModule`: modules whose computation is Python code rather
than a bound Symbol, e.g. a loss written with NDArray arithmetic at the end of a
`SequentialModule`.
"""
import logging

from .. import ndarray as nd
from .base_module import BaseModule

__all__ = ["PythonModule", "PythonLossModule"]


def _names(names):
    if names is None:
        return None
    return [names] if isinstance(names, str) else list(names)


class PythonModule(BaseModule):
    """A module without parameters whose outputs a subclass computes in Python: the
    parameter, optimizer and update methods do nothing; a subclass defines `forward`,
    `backward`, `get_outputs`, `get_input_grads` and `_compute_output_shapes`.

    Args:
        data_names, label_names, output_names: the module's input and output names.
        logger: where progress is logged.
        data_names (list of str): the names of the data inputs.
        label_names (list of str): the names of the labels (None: no labels).
        output_names (list of str): the names of the outputs.

    Example::

        class Double(mx.mod.PythonModule):   # outputs twice its data
            def _compute_output_shapes(self):
                return [('double_output', self._data_shapes[0][1])]
            def forward(self, data_batch, is_train=None):
                self._out = data_batch.data[0] * 2
            def get_outputs(self, merge_multi_context=True):
                return [self._out]
        mod = Double(['data'], None, ['double_output'])
        mod.bind([('data', (2, 3))]); mod.forward(mx.io.DataBatch([nd.ones((2, 3))]))
        mod.get_outputs()[0]   # all 2
    """

    def __init__(self, data_names, label_names, output_names, logger=logging):
        super().__init__(logger=logger)
        self._data_names = _names(data_names) or []
        self._label_names = _names(label_names)
        self._output_names = _names(output_names) or []
        self._data_shapes = self._label_shapes = self._output_shapes = None

    @property
    def data_names(self):
        """The data input names.

        Example::

            loss = mx.mod.PythonLossModule(grad_func=lambda s, y: s - y.reshape(s.shape))
            loss.data_names   # ['data']
        """
        return self._data_names

    @property
    def output_names(self):
        """The output names.

        Example::

            loss = mx.mod.PythonLossModule(grad_func=lambda s, y: s - y.reshape(s.shape))
            loss.output_names   # ['pyloss_output']
        """
        return self._output_names

    @property
    def data_shapes(self):
        """The data shapes given to `bind`.

        Example::

            loss = mx.mod.PythonLossModule(grad_func=lambda s, y: s - y.reshape(s.shape))
            loss.bind([('data', (4, 1))], [('softmax_label', (4,))]); loss.init_params()
            loss.data_shapes   # [('data', (4, 1))]
        """
        return self._data_shapes

    @property
    def label_shapes(self):
        """The label shapes given to `bind`.

        Example::

            loss = mx.mod.PythonLossModule(grad_func=lambda s, y: s - y.reshape(s.shape))
            loss.bind([('data', (4, 1))], [('softmax_label', (4,))]); loss.init_params()
            loss.label_shapes   # [('softmax_label', (4,))]
        """
        return self._label_shapes

    @property
    def output_shapes(self):
        """``[(name, shape)]`` of the outputs (from `_compute_output_shapes`).

        Example::

            loss = mx.mod.PythonLossModule(grad_func=lambda s, y: s - y.reshape(s.shape))
            loss.bind([('data', (4, 1))], [('softmax_label', (4,))]); loss.init_params()
            loss.output_shapes   # [('pyloss_output', (4, 1))]
        """
        return self._output_shapes

    def get_params(self):
        """No parameters: ``({}, {})``.

        Example::

            loss = mx.mod.PythonLossModule(grad_func=lambda s, y: s - y.reshape(s.shape))
            loss.bind([('data', (4, 1))], [('softmax_label', (4,))]); loss.init_params()
            loss.get_params()   # ({}, {})
        """
        return {}, {}

    def init_params(self, initializer=None, arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        """No parameters to initialize (marks the module initialized).

        Args:
            initializer: accepted for the interface; a PythonModule has no parameters.
            arg_params: accepted for the interface; a PythonModule has no parameters.
            aux_params: accepted for the interface; a PythonModule has no parameters.
            allow_missing: accepted for the interface; a PythonModule has no parameters.
            force_init: accepted for the interface; a PythonModule has no parameters.
            allow_extra: accepted for the interface; a PythonModule has no parameters.

        Example::

            loss = mx.mod.PythonLossModule(grad_func=lambda s, y: s - y.reshape(s.shape))
            loss.bind([('data', (4, 1))], [('softmax_label', (4,))])
            loss.init_params(); loss.params_initialized   # True
        """
        self.params_initialized = True

    def update(self):
        """No parameters to update.

        Example::

            loss = mx.mod.PythonLossModule(grad_func=lambda s, y: s - y.reshape(s.shape))
            loss.bind([('data', (4, 1))], [('softmax_label', (4,))]); loss.init_params()
            loss.init_optimizer(); loss.update()   # nothing to update
        """

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """``eval_metric.update(labels, outputs)`` when the module has labels.

        Args:
            labels (list of NDArray): the batch's labels, in `label_names` order.
            pre_sliced (bool): must be False (default): pre-sliced labels
                raise NotImplementedError.

        Raises:
            NotImplementedError: pre_sliced labels (several devices).

        Example::

            loss = mx.mod.PythonLossModule(grad_func=lambda s, y: s - y.reshape(s.shape))
            loss.bind([('data', (4, 1))], [('softmax_label', (4,))]); loss.init_params()
            batch = mx.io.DataBatch([nd.ones((4, 1))], [nd.zeros(4)])
            loss.forward(batch, is_train=False)
            metric = mx.metric.MSE(); loss.update_metric(metric, batch.label)
            metric.get()   # ('mse', 1.0)
        """
        if self._label_shapes is None:
            return
        if pre_sliced:
            raise NotImplementedError("PythonModule.update_metric: pre-sliced labels are not "
                                      "supported")
        eval_metric.update(labels, self.get_outputs())

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        """Record the input shapes and compute the output shapes.

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
            shared_module: accepted for the interface; ignored.
            grad_req (str): must be 'write' (default); anything else raises
                ValueError.

        Raises:
            ValueError: grad_req other than 'write'; shapes named differently from the
                module's inputs.

        Example::

            loss = mx.mod.PythonLossModule(grad_func=lambda s, y: s - y.reshape(s.shape))
            loss.bind([('data', (4, 1))], [('softmax_label', (4,))])
            loss.output_shapes   # [('pyloss_output', (4, 1))]
        """
        if self.binded and not force_rebind:
            self.logger.warning("Already bound, ignoring bind()")
            return
        if grad_req != "write":
            raise ValueError(f"PythonModule.bind: grad_req must be 'write', got {grad_req!r}")
        given = [d[0] for d in data_shapes]
        if given != self._data_names:
            raise ValueError(f"PythonModule.bind: data_shapes name(s) {given} do not match "
                             f"data_names {self._data_names}")
        if label_shapes is not None:
            given = [d[0] for d in label_shapes]
            if given != (self._label_names or []):
                raise ValueError(f"PythonModule.bind: label_shapes name(s) {given} do not "
                                 f"match label_names {self._label_names}")
        self.for_training, self.inputs_need_grad = for_training, inputs_need_grad
        self._data_shapes, self._label_shapes = data_shapes, label_shapes
        self._output_shapes = self._compute_output_shapes()
        self.binded = True

    def _compute_output_shapes(self):
        """``[(name, shape)]`` of the outputs, from the recorded input shapes."""
        raise NotImplementedError(f"{type(self).__name__} must define "
                                  "_compute_output_shapes")

    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        """No parameters, no optimizer (marks the module ready).

        Args:
            kvstore: accepted for the interface; there is nothing to optimize.
            optimizer: accepted for the interface; there is nothing to optimize.
            optimizer_params: accepted for the interface; there is nothing to optimize.
            force_init: accepted for the interface; there is nothing to optimize.

        Example::

            loss = mx.mod.PythonLossModule(grad_func=lambda s, y: s - y.reshape(s.shape))
            loss.bind([('data', (4, 1))], [('softmax_label', (4,))]); loss.init_params()
            loss.init_optimizer(); loss.optimizer_initialized   # True
        """
        self.optimizer_initialized = True


class PythonLossModule(PythonModule):
    """A loss module: its output is its input (the scores); `backward` gives the scores'
    gradient from ``grad_func(scores, labels)``.

    Args:
        name: the output is named ``name + '_output'``.
        data_names, label_names: one name each.
        logger: where progress is logged.
        grad_func: ``f(scores, labels) -> gradient`` (NDArray or NumPy array).
        data_names (list of str): exactly one name: the scores' input
            (default ``('data',)``).
        label_names (list of str): exactly one name: the labels' input (default
            ``('softmax_label',)``).

    Raises:
        ValueError: not exactly one data and one label name.
        TypeError: grad_func not callable.

    Example::

        net_mod = mx.mod.Module(sym.FullyConnected(sym.var('data'), num_hidden=1),
                                label_names=None)
        loss = mx.mod.PythonLossModule(grad_func=lambda s, y: s - y.reshape(s.shape))
        seq = mx.mod.SequentialModule().add(net_mod).add(loss, take_labels=True,
                                                          auto_wiring=True)
    """

    def __init__(self, name="pyloss", data_names=("data",), label_names=("softmax_label",),
                 logger=logging, grad_func=None):
        super().__init__(data_names, label_names, [name + "_output"], logger=logger)
        if len(self._data_names) != 1 or len(self._label_names or []) != 1:
            raise ValueError(f"PythonLossModule: one data and one label name expected, got "
                             f"{self._data_names} and {self._label_names}")
        if grad_func is not None and not callable(grad_func):
            raise TypeError(f"PythonLossModule: grad_func must be callable, got "
                            f"{type(grad_func).__name__}")
        self._name = name
        self._scores = self._labels = self._scores_grad = None
        self._grad_func = grad_func

    def _compute_output_shapes(self):
        return [(self._name + "_output", tuple(self._data_shapes[0][1]))]

    def forward(self, data_batch, is_train=None):
        """Keep the scores (and, in training, the labels) for `backward`.

        Args:
            data_batch (DataBatch): the batch; its `data` (and, in training, `label`) feed the
                inputs.
            is_train (bool): run in training mode (keep what `backward` needs, labels read);
                default None: the `for_training` given to `bind`.

        Example::

            loss = mx.mod.PythonLossModule(grad_func=lambda s, y: s - y.reshape(s.shape))
            loss.bind([('data', (4, 1))], [('softmax_label', (4,))]); loss.init_params()
            batch = mx.io.DataBatch([nd.ones((4, 1))], [nd.zeros(4)])
            loss.forward(batch, is_train=True)
            loss.get_outputs()[0].shape   # (4, 1): the scores
        """
        self._scores = data_batch.data[0]
        if is_train is None:
            is_train = self.for_training
        if is_train:
            self._labels = data_batch.label[0]

    def get_outputs(self, merge_multi_context=True):
        """``[scores]``.

        Args:
            merge_multi_context: accepted for the interface (one
                context: the list is the same either way).

        Example::

            loss = mx.mod.PythonLossModule(grad_func=lambda s, y: s - y.reshape(s.shape))
            loss.bind([('data', (4, 1))], [('softmax_label', (4,))]); loss.init_params()
            batch = mx.io.DataBatch([nd.ones((4, 1))], [nd.zeros(4)])
            loss.forward(batch); loss.get_outputs()[0].shape   # (4, 1)
        """
        return [self._scores]

    def backward(self, out_grads=None):
        """The scores' gradient from `grad_func` (head gradients are not taken).

        Args:
            out_grads: must be None (default): a loss module is a head;
                giving gradients raises ValueError.

        Raises:
            ValueError: out_grads given, or not bound for training.
            NotImplementedError: no grad_func and `_backward_impl` not overridden.

        Example::

            loss = mx.mod.PythonLossModule(grad_func=lambda s, y: s - y.reshape(s.shape))
            loss.bind([('data', (4, 1))], [('softmax_label', (4,))]); loss.init_params()
            batch = mx.io.DataBatch([nd.ones((4, 1))], [nd.zeros(4)])
            loss.forward(batch, is_train=True); loss.backward()
            loss.get_input_grads()[0]   # scores - labels: all 1
        """
        if out_grads is not None:
            raise ValueError("PythonLossModule.backward: a loss module takes no out_grads")
        if not self.for_training:
            raise ValueError("PythonLossModule.backward: bind with for_training=True")
        self._backward_impl()

    def _backward_impl(self):
        """Set ``self._scores_grad`` from the scores and labels (override, or give
        grad_func)."""
        if self._grad_func is None:
            raise NotImplementedError("PythonLossModule: give grad_func or override "
                                      "_backward_impl")
        grad = self._grad_func(self._scores, self._labels)
        self._scores_grad = grad if isinstance(grad, nd.NDArray) else nd.array(grad)

    def get_input_grads(self, merge_multi_context=True):
        """``[gradient of the scores]`` after `backward`.

        Args:
            merge_multi_context: accepted for the interface (one
                context).

        Example::

            loss = mx.mod.PythonLossModule(grad_func=lambda s, y: s - y.reshape(s.shape))
            loss.bind([('data', (4, 1))], [('softmax_label', (4,))]); loss.init_params()
            batch = mx.io.DataBatch([nd.ones((4, 1))], [nd.zeros(4)])
            loss.forward(batch, is_train=True); loss.backward()
            loss.get_input_grads()[0].shape   # (4, 1)
        """
        return [self._scores_grad]

    def install_monitor(self, mon):
        """Not supported: there is no executor to watch.

        Args:
            mon (Monitor): unused: a loss module has no executor to monitor.

        Example::

            loss = mx.mod.PythonLossModule(grad_func=lambda s, y: s - y.reshape(s.shape))
            loss.bind([('data', (4, 1))], [('softmax_label', (4,))]); loss.init_params()
            try:
                loss.install_monitor(mx.monitor.Monitor(1))
            except NotImplementedError as err:
                print(err)   # no executor to monitor
        """
        raise NotImplementedError("PythonLossModule.install_monitor: no executor to monitor")
