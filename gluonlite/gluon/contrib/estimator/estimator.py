"""`Estimator`: fit and evaluate a Gluon network with event handlers."""
import copy
import logging
import sys
import warnings

from ....context import Context, cpu, gpu, num_gpus
from ....metric import Loss as metric_loss
from ...data import DataLoader
from ...loss import Loss as gluon_loss
from ...parameter import GluonUsageError
from ...trainer import Trainer
from .batch_processor import BatchProcessor
from .event_handler import (BatchBegin, BatchEnd, EpochBegin, EpochEnd, GradientUpdateHandler,
                            LoggingHandler, MetricHandler, StoppingHandler, TrainBegin,
                            TrainEnd, ValidationHandler, _check_event_handlers)
from .utils import _check_handler_metric_ref, _check_metrics, _suggest_metric_for_loss

__all__ = ['Estimator']


def _check_count(name, value):
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                              or value < 0):
        raise ValueError(f"Estimator.fit: {name} must be a non-negative int or None, "
                         f"got {value!r}")


class Estimator:
    """Trains and evaluates a Gluon network: `fit` runs epochs (or batches) of training
    over a DataLoader, `evaluate` one pass over validation data; what happens around each
    batch and epoch is done by event handlers (see `event_handler`).

    The estimator prefixes its metric names with 'training ' (train metrics) and
    'validation ' (validation metrics); handlers use these names to tell them apart.

    Args:
        net: the Block to train (initialized here when it is not yet).
        loss: a `gluon.loss.Loss`.
        train_metrics: an EvalMetric or a list of them. None: Accuracy when the loss is
            SoftmaxCrossEntropyLoss, plus a `metric.Loss` named after the loss.
        val_metrics: validation metrics (None: copies of the training metrics).
        initializer: the initializer for a net not yet initialized (a warning when the
            net is initialized already: it is not re-initialized).
        trainer: a `gluon.Trainer` (None: SGD with learning rate 0.001, with a warning).
        context: a Context or a list of Contexts (None: gpu(0) when there is a GPU, else
            cpu()).
        val_net: the Block used by `evaluate` (None: `net`); it usually shares `net`'s
            parameters.
        val_loss: the loss used by `evaluate` (None: `loss`).
        batch_processor: an object with `fit_batch` and `evaluate_batch` (None:
            `BatchProcessor()`).

    Attributes:
        logger: a `logging.Logger` of this estimator, writing INFO and above to stdout; add
            handlers to it to log elsewhere.

    Raises:
        ValueError: a `loss` that is not a gluon Loss, metrics that are not EvalMetrics, a
            trainer that is not a gluon Trainer, a batch processor without `fit_batch` and
            `evaluate_batch`, a context that is not a Context or a list of them; a GPU
            context that does not exist (also an AssertionError, as MXNet asserts it).

    Example::

        from gluonlite.gluon.contrib.estimator import Estimator
        net = nn.Dense(1); net.initialize()
        data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
        loader = gluon.data.DataLoader(data, batch_size=4)
        trainer = gluon.Trainer(net.collect_params(), 'sgd')
        est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
        est.fit(loader, val_data=loader, epochs=2)   # logs each epoch's metrics
    """

    logger = None

    def __init__(self, net, loss, train_metrics=None, val_metrics=None, initializer=None,
                 trainer=None, context=None, val_net=None, val_loss=None,
                 batch_processor=None):
        self.net = net
        self.loss = self._check_loss(loss, "loss")
        self._train_metrics = _check_metrics(train_metrics, "Estimator: train_metrics")
        self._val_metrics = _check_metrics(val_metrics, "Estimator: val_metrics")
        self._add_default_training_metrics()
        self._add_validation_metrics()
        self.val_loss = self.loss if val_loss is None else self._check_loss(val_loss,
                                                                             "val_loss")
        self.val_net = self.net if val_net is None else val_net

        self.logger = logging.Logger(name='Estimator', level=logging.INFO)
        self.logger.addHandler(logging.StreamHandler(sys.stdout))

        self.context = self._check_context(context)
        self._initialize(initializer)
        self.trainer = self._check_trainer(trainer)
        self.batch_processor = self._check_batch_processor(batch_processor)
        self.max_epoch = None
        self.max_batch = None
        self.batch_axis = 0

    # ---- argument checks --------------------------------------------------------------------
    @staticmethod
    def _check_loss(loss, name):
        if not isinstance(loss, gluon_loss):
            raise ValueError(f"Estimator: {name} must be a gluon.loss.Loss, got {loss!r}")
        return loss

    @staticmethod
    def _check_context(context):
        available_gpus = [gpu(i) for i in range(num_gpus())]
        if context is None:
            if len(available_gpus) > 1:
                warnings.warn("Estimator: several GPUs found, only gpu(0) is used; pass "
                              "context=[mx.gpu(0), mx.gpu(1), ...] to use more")
            return [gpu(0)] if available_gpus else [cpu()]
        if isinstance(context, Context):
            context = [context]
        elif not (isinstance(context, list) and context
                  and all(isinstance(c, Context) for c in context)):
            raise ValueError(f"Estimator: context must be a Context or a list of Context "
                             f"(for example mx.cpu() or [mx.gpu(0), mx.gpu(1)]), "
                             f"got {context!r}")
        for ctx in context:
            if ctx.device_type != 'cpu' and ctx not in available_gpus:
                raise GluonUsageError(
                    f"Estimator: context {ctx} is not available; use mx.cpu()"
                    + "".join(f", {g}" for g in available_gpus))
        return context

    @staticmethod
    def _check_batch_processor(batch_processor):
        if batch_processor is None:
            return BatchProcessor()
        if not (callable(getattr(batch_processor, 'fit_batch', None))
                and callable(getattr(batch_processor, 'evaluate_batch', None))):
            raise ValueError(f"Estimator: batch_processor must have fit_batch() and "
                             f"evaluate_batch() methods, got {batch_processor!r}")
        return batch_processor

    def _check_trainer(self, trainer):
        if trainer is None:
            warnings.warn("No trainer specified, default SGD optimizer "
                          "with learning rate 0.001 is used.")
            return Trainer(self.net.collect_params(), 'sgd', {'learning_rate': 0.001})
        if not isinstance(trainer, Trainer):
            raise ValueError(f"Estimator: trainer must be a gluon.Trainer, got {trainer!r}")
        return trainer

    def _is_initialized(self):
        params = self.net.collect_params()
        for name in params.keys():
            try:
                params[name].list_ctx()
            except RuntimeError:
                return False
        return True

    def _initialize(self, initializer):
        if not self._is_initialized():
            # only the parameters not yet initialized are; a fine-tuned body keeps its values
            if initializer:
                self.net.initialize(init=initializer, ctx=self.context)
            else:
                self.net.initialize(ctx=self.context)
        elif initializer:
            warnings.warn("Network already fully initialized, skipping initialization. "
                          "You don't need to pass initializer if you already "
                          "initialized your net. You can use "
                          "net.initialize(init=your_initializer, force_reinit=True) "
                          "to force re-initialize.")

    # ---- metrics ----------------------------------------------------------------------------
    def _add_default_training_metrics(self):
        if not self._train_metrics:
            suggested = _suggest_metric_for_loss(self.loss)
            if suggested:
                self._train_metrics = [suggested]
            self._train_metrics.append(metric_loss(self.loss.name.rstrip('0123456789')))
        for metric in self._train_metrics:
            # a metric handed to a second Estimator keeps one prefix
            if not metric.name.startswith('training '):
                metric.name = 'training ' + metric.name

    def _add_validation_metrics(self):
        if not self._val_metrics:
            self._val_metrics = [copy.deepcopy(metric) for metric in self._train_metrics]
        for metric in self._val_metrics:
            if metric.name.startswith('training '):
                metric.name = 'validation ' + metric.name[len('training '):]
            elif not metric.name.startswith('validation '):
                metric.name = 'validation ' + metric.name

    @property
    def train_metrics(self):
        """The training metrics (a list of EvalMetric), updated by the MetricHandler.

        Example::

            from gluonlite.gluon.contrib.estimator import Estimator
            net = nn.Dense(1); net.initialize()
            data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
            loader = gluon.data.DataLoader(data, batch_size=4)
            trainer = gluon.Trainer(net.collect_params(), 'sgd')
            est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
            est.fit(loader, epochs=1)
            est.train_metrics[0].get()[0]   # training l2loss
        """
        return self._train_metrics

    @property
    def val_metrics(self):
        """The validation metrics (a list of EvalMetric), updated during `evaluate`.

        Example::

            from gluonlite.gluon.contrib.estimator import Estimator
            net = nn.Dense(1); net.initialize()
            data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
            loader = gluon.data.DataLoader(data, batch_size=4)
            trainer = gluon.Trainer(net.collect_params(), 'sgd')
            est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
            est.evaluate(loader)
            est.val_metrics[0].get()[0]   # validation l2loss
        """
        return self._val_metrics

    # ---- loops ------------------------------------------------------------------------------
    @staticmethod
    def _check_loader(fn, name, data):
        if not isinstance(data, DataLoader):
            raise ValueError(f"Estimator.{fn}: {name} must be a gluon.data.DataLoader, got "
                             f"{type(data).__name__}; wrap a DataIter or NDArrays in a "
                             f"gluon.data.ArrayDataset and a DataLoader")

    def evaluate(self, val_data, batch_axis=0, event_handlers=None):
        """Evaluate `val_net` on `val_data`: one pass of `batch_processor.evaluate_batch`,
        updating `val_metrics`.

        A MetricHandler and a LoggingHandler on `val_metrics` are added unless
        `event_handlers` has handlers of those kinds.

        Args:
            val_data: a gluon.data.DataLoader of ``(data, label)`` batches.
            batch_axis: the axis along which batches are split over the contexts.
            event_handlers: an EventHandler or a list of them (their epoch_begin,
                batch_begin, batch_end and epoch_end run).

        Raises:
            ValueError: `val_data` is not a DataLoader; a handler is not an EventHandler
                or refers to a metric that is not one of `val_metrics`.

        Example::

            from gluonlite.gluon.contrib.estimator import Estimator
            net = nn.Dense(1); net.initialize()
            data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
            loader = gluon.data.DataLoader(data, batch_size=4)
            trainer = gluon.Trainer(net.collect_params(), 'sgd')
            est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
            est.evaluate(loader)
            name, value = est.val_metrics[0].get()
        """
        self._check_loader("evaluate", "val_data", val_data)
        for metric in self.val_metrics:
            metric.reset()
        event_handlers = self._prepare_default_validation_handlers(event_handlers)
        _, epoch_begin, batch_begin, batch_end, epoch_end, _ = \
            self._categorize_handlers(event_handlers)

        for handler in epoch_begin:
            handler.epoch_begin(self)
        for batch in val_data:
            for handler in batch_begin:
                handler.batch_begin(self, batch=batch)
            _, label, pred, loss = self.batch_processor.evaluate_batch(self, batch, batch_axis)
            for handler in batch_end:
                handler.batch_end(self, batch=batch, pred=pred, label=label, loss=loss)
        for handler in epoch_end:
            handler.epoch_end(self)

    def fit(self, train_data, val_data=None, epochs=None, event_handlers=None, batches=None,
            batch_axis=0):
        """Train `net` on `train_data` for `epochs` epochs or `batches` batches (give
        exactly one), one `batch_processor.fit_batch` per batch.

        Besides `event_handlers`, a StoppingHandler is always added, and a
        GradientUpdateHandler, a MetricHandler (train_metrics), a LoggingHandler
        (train_metrics) and, when `val_data` is given, a ValidationHandler (every epoch)
        unless handlers of those kinds are given. Handlers run in ascending `priority`.

        Args:
            train_data: a gluon.data.DataLoader of ``(data, label)`` batches.
            val_data: a DataLoader to evaluate on after each epoch (None: no validation).
            epochs: the number of epochs.
            event_handlers: an EventHandler or a list of them.
            batches: the number of batches (counted across epochs).
            batch_axis: the axis along which batches are split over the contexts.

        Raises:
            ValueError: `train_data`/`val_data` not a DataLoader, both or neither of
                `epochs` and `batches`, a handler that is not an EventHandler or that refers
                to a metric the estimator does not update, or an empty `train_data`.

        Example::

            from gluonlite.gluon.contrib.estimator import Estimator
            net = nn.Dense(1); net.initialize()
            data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
            loader = gluon.data.DataLoader(data, batch_size=4)
            trainer = gluon.Trainer(net.collect_params(), 'sgd')
            est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
            est.fit(loader, val_data=loader, epochs=3)
            est.fit(loader, batches=5)   # or a number of batches
        """
        self._check_loader("fit", "train_data", train_data)
        if val_data is not None:
            self._check_loader("fit", "val_data", val_data)
        _check_count("epochs", epochs)
        _check_count("batches", batches)
        if (not epochs) == (not batches):
            raise ValueError(f"Estimator.fit: give exactly one of epochs and batches (a "
                             f"positive int), got epochs={epochs!r}, batches={batches!r}")

        self.max_epoch = epochs
        self.max_batch = batches
        self.batch_axis = batch_axis

        event_handlers = self._prepare_default_handlers(val_data, event_handlers)
        train_begin, epoch_begin, batch_begin, batch_end, epoch_end, train_end = \
            self._categorize_handlers(event_handlers)

        for handler in train_begin:
            handler.train_begin(self)
        while True:
            for handler in epoch_begin:
                handler.epoch_begin(self)
            seen = False
            for batch in train_data:
                seen = True
                for handler in batch_begin:
                    handler.batch_begin(self, batch=batch)
                _, label, pred, loss = self.batch_processor.fit_batch(self, batch, batch_axis)
                # every handler sees the batch, even when an earlier one asks to stop
                stop = [handler.batch_end(self, batch=batch, pred=pred, label=label, loss=loss)
                        for handler in batch_end]
                if any(stop):
                    break
            if not seen:
                raise ValueError("Estimator.fit: train_data yielded no batch")
            stop = [handler.epoch_end(self) for handler in epoch_end]
            if any(stop):
                break
        for handler in train_end:
            handler.train_end(self)

    # ---- handlers ---------------------------------------------------------------------------
    def _prepare_default_handlers(self, val_data, event_handlers):
        event_handlers = _check_event_handlers(event_handlers)
        added = [StoppingHandler(self.max_epoch, self.max_batch)]

        def missing(kind):
            return not any(isinstance(h, kind) for h in event_handlers)

        if missing(GradientUpdateHandler):
            added.append(GradientUpdateHandler())
        if missing(MetricHandler):
            added.append(MetricHandler(metrics=self.train_metrics))
        if missing(ValidationHandler) and val_data is not None:
            added.append(ValidationHandler(val_data=val_data, eval_fn=self.evaluate))
        if missing(LoggingHandler):
            added.append(LoggingHandler(metrics=self.train_metrics))

        mixing = bool(event_handlers)
        event_handlers.extend(added)
        if mixing:
            # a user handler reading a metric no default handler updates would log stale values
            known = self.train_metrics + self.val_metrics
            for handler in event_handlers:
                _check_handler_metric_ref(handler, known)
        event_handlers.sort(key=lambda handler: getattr(handler, 'priority', 0))
        return event_handlers

    def _prepare_default_validation_handlers(self, event_handlers):
        event_handlers = _check_event_handlers(event_handlers)
        added = []
        if not any(isinstance(h, MetricHandler) for h in event_handlers):
            added.append(MetricHandler(metrics=self.val_metrics))
        if not any(isinstance(h, LoggingHandler) for h in event_handlers):
            added.append(LoggingHandler(metrics=self.val_metrics))
        mixing = bool(event_handlers) and bool(added)
        event_handlers.extend(added)
        if mixing:
            for handler in event_handlers:
                _check_handler_metric_ref(handler, self.val_metrics)
        event_handlers.sort(key=lambda handler: getattr(handler, 'priority', 0))
        return event_handlers

    @staticmethod
    def _categorize_handlers(event_handlers):
        """The handlers split by the events they take: (train_begin, epoch_begin,
        batch_begin, batch_end, epoch_end, train_end), so that no empty method is called."""
        kinds = (TrainBegin, EpochBegin, BatchBegin, BatchEnd, EpochEnd, TrainEnd)
        return tuple([h for h in event_handlers if isinstance(h, kind)] for kind in kinds)
