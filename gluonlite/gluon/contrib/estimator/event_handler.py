"""The estimator's event handlers.

A handler subclasses one or more of the mix-ins `TrainBegin`, `TrainEnd`, `EpochBegin`,
`EpochEnd`, `BatchBegin`, `BatchEnd` and implements the matching methods; the Estimator
calls each handler at the points its mix-ins name, in ascending `priority` (default 0).
`batch_end` returns True to end the epoch early, `epoch_end` True to stop training (so a
handler that stops at a batch returns True from both, as `StoppingHandler` does). Every
method receives the estimator; `batch_end` also receives ``batch``, ``pred``, ``label`` and
``loss`` as keyword arguments.

Example::

    from gluonlite.gluon.contrib.estimator import BatchEnd, Estimator
    class PrintLoss(BatchEnd):
        def batch_end(self, estimator, *args, **kwargs):
            print(kwargs['loss'][0].mean().asscalar())
    net = nn.Dense(1); net.initialize()
    data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
    train_data = gluon.data.DataLoader(data, batch_size=4)
    est = Estimator(net, gluon.loss.L2Loss(), trainer=gluon.Trainer(net.collect_params(), 'sgd'))
    est.fit(train_data, epochs=1, event_handlers=[PrintLoss()])
"""
import math
import os
import re
import time
import warnings

from ....metric import CompositeEvalMetric, EvalMetric
from ....metric import Loss as metric_loss
from ...parameter import GluonUsageError
from .utils import _check_metrics

__all__ = ['TrainBegin', 'TrainEnd', 'EpochBegin', 'EpochEnd', 'BatchBegin', 'BatchEnd',
           'StoppingHandler', 'MetricHandler', 'ValidationHandler',
           'LoggingHandler', 'CheckpointHandler', 'EarlyStoppingHandler', 'GradientUpdateHandler']


class EventHandler:
    """The base of every event handler (the estimator accepts only its instances).

    Example::

        from gluonlite.gluon.contrib.estimator import BatchEnd
        from gluonlite.gluon.contrib.estimator.event_handler import EventHandler
        class CountBatches(BatchEnd):   # every handler is an EventHandler
            def batch_end(self, estimator, *args, **kwargs):
                print('batch done')
        isinstance(CountBatches(), EventHandler)   # True
    """


def _check_event_handlers(handlers):
    """`handlers` (None, an EventHandler or a list of them) as a new list.

    Raises:
        ValueError: something that is not an EventHandler.
    """
    if isinstance(handlers, EventHandler):
        return [handlers]
    if handlers is None:
        return []
    if isinstance(handlers, (list, tuple)):
        bad = [h for h in handlers if not isinstance(h, EventHandler)]
        if not bad:
            return list(handlers)
        raise ValueError(f"event_handlers must be an EventHandler or a list of EventHandler, "
                         f"got {bad[0]!r} in the list")
    raise ValueError(f"event_handlers must be an EventHandler or a list of EventHandler, "
                     f"got {handlers!r}")


def _check_period(owner, name, value):
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                              or value < 0):
        raise ValueError(f"{owner}: {name} must be None or a non-negative int, got {value!r}")


class TrainBegin(EventHandler):
    """Mix-in: `train_begin(estimator)` runs once before the first epoch of `fit`.

    Example::

        from gluonlite.gluon.contrib.estimator import TrainBegin
        class Hello(TrainBegin):
            def train_begin(self, estimator, *args, **kwargs):
                print('training starts')
        from gluonlite.gluon.contrib.estimator import Estimator
        net = nn.Dense(1); net.initialize()
        data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
        loader = gluon.data.DataLoader(data, batch_size=4)
        trainer = gluon.Trainer(net.collect_params(), 'sgd')
        est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
        est.fit(loader, epochs=1, event_handlers=[Hello()])   # prints training starts
    """

    def train_begin(self, estimator, *args, **kwargs):
        """Called once when `fit` starts.

        Args:
            estimator: the Estimator running `fit`.
            *args: unused (MXNet's signature).
            **kwargs: unused; none are passed.

        Example::

            from gluonlite.gluon.contrib.estimator import TrainBegin
            class Hello(TrainBegin):
                def train_begin(self, estimator, *args, **kwargs):
                    print('training', type(estimator.net).__name__)
            from gluonlite.gluon.contrib.estimator import Estimator
            net = nn.Dense(1); net.initialize()
            data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
            loader = gluon.data.DataLoader(data, batch_size=4)
            trainer = gluon.Trainer(net.collect_params(), 'sgd')
            est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
            est.fit(loader, epochs=1, event_handlers=[Hello()])   # prints training Dense
        """


class TrainEnd(EventHandler):
    """Mix-in: `train_end(estimator)` runs once after `fit`'s last epoch.

    Example::

        from gluonlite.gluon.contrib.estimator import TrainEnd
        class Bye(TrainEnd):
            def train_end(self, estimator, *args, **kwargs):
                print('done')
        from gluonlite.gluon.contrib.estimator import Estimator
        net = nn.Dense(1); net.initialize()
        data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
        loader = gluon.data.DataLoader(data, batch_size=4)
        trainer = gluon.Trainer(net.collect_params(), 'sgd')
        est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
        est.fit(loader, epochs=1, event_handlers=[Bye()])   # prints done at the end
    """

    def train_end(self, estimator, *args, **kwargs):
        """Called once when `fit` ends.

        Args:
            estimator: the Estimator running `fit`.
            *args: unused (MXNet's signature).
            **kwargs: unused; none are passed.

        Example::

            from gluonlite.gluon.contrib.estimator import TrainEnd
            class SaveAtEnd(TrainEnd):
                def train_end(self, estimator, *args, **kwargs):
                    estimator.net.save_parameters('final.params')
            from gluonlite.gluon.contrib.estimator import Estimator
            net = nn.Dense(1); net.initialize()
            data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
            loader = gluon.data.DataLoader(data, batch_size=4)
            trainer = gluon.Trainer(net.collect_params(), 'sgd')
            est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
            est.fit(loader, epochs=1, event_handlers=[SaveAtEnd()])   # writes final.params
        """


class EpochBegin(EventHandler):
    """Mix-in: `epoch_begin(estimator)` runs before each epoch (and before `evaluate`).

    Example::

        from gluonlite.gluon.contrib.estimator import EpochBegin
        class Announce(EpochBegin):
            def epoch_begin(self, estimator, *args, **kwargs):
                print('new epoch')
        from gluonlite.gluon.contrib.estimator import Estimator
        net = nn.Dense(1); net.initialize()
        data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
        loader = gluon.data.DataLoader(data, batch_size=4)
        trainer = gluon.Trainer(net.collect_params(), 'sgd')
        est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
        est.fit(loader, epochs=2, event_handlers=[Announce()])   # prints new epoch twice
    """

    def epoch_begin(self, estimator, *args, **kwargs):
        """Called at the start of each epoch.

        Args:
            estimator: the Estimator running `fit` (or `evaluate`); its net, trainer,
                metrics and loss can be read.
            *args: unused (MXNet's signature).
            **kwargs: unused; none are passed.

        Example::

            from gluonlite.gluon.contrib.estimator import EpochBegin
            class Decay(EpochBegin):   # halve the learning rate at each epoch
                def epoch_begin(self, estimator, *args, **kwargs):
                    estimator.trainer.set_learning_rate(estimator.trainer.learning_rate / 2)
            from gluonlite.gluon.contrib.estimator import Estimator
            net = nn.Dense(1); net.initialize()
            data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
            loader = gluon.data.DataLoader(data, batch_size=4)
            trainer = gluon.Trainer(net.collect_params(), 'sgd')
            est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
            est.fit(loader, epochs=2, event_handlers=[Decay()])
            est.trainer.learning_rate   # 0.0025
        """


class EpochEnd(EventHandler):
    """Mix-in: `epoch_end(estimator)` runs after each epoch (and after `evaluate`); a True
    return stops training.

    Example::

        from gluonlite.gluon.contrib.estimator import EpochEnd
        class StopAfterOne(EpochEnd):
            def epoch_end(self, estimator, *args, **kwargs):
                return True   # stop training
        from gluonlite.gluon.contrib.estimator import Estimator
        net = nn.Dense(1); net.initialize()
        data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
        loader = gluon.data.DataLoader(data, batch_size=4)
        trainer = gluon.Trainer(net.collect_params(), 'sgd')
        est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
        est.fit(loader, epochs=5, event_handlers=[StopAfterOne()])   # trains one epoch
    """

    def epoch_end(self, estimator, *args, **kwargs):
        """Called at the end of each epoch.

        Args:
            estimator: the Estimator running `fit` (or `evaluate`); its net, trainer,
                metrics and loss can be read.
            *args: unused (MXNet's signature).
            **kwargs: unused; none are passed.

        Returns:
            True to stop training (default False).

        Example::

            from gluonlite.gluon.contrib.estimator import EpochEnd
            class LossBelow(EpochEnd):
                def epoch_end(self, estimator, *args, **kwargs):
                    return estimator.train_metrics[0].get()[1] < 0.3   # True stops training
            from gluonlite.gluon.contrib.estimator import Estimator
            net = nn.Dense(1); net.initialize()
            data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
            loader = gluon.data.DataLoader(data, batch_size=4)
            trainer = gluon.Trainer(net.collect_params(), 'sgd')
            est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
            est.fit(loader, epochs=50, event_handlers=[LossBelow()])
        """
        return False


class BatchBegin(EventHandler):
    """Mix-in: `batch_begin(estimator, batch=...)` runs before each batch.

    Example::

        from gluonlite.gluon.contrib.estimator import BatchBegin
        class Shape(BatchBegin):
            def batch_begin(self, estimator, *args, **kwargs):
                print(kwargs['batch'][0].shape)
        from gluonlite.gluon.contrib.estimator import Estimator
        net = nn.Dense(1); net.initialize()
        data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
        loader = gluon.data.DataLoader(data, batch_size=4)
        trainer = gluon.Trainer(net.collect_params(), 'sgd')
        est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
        est.fit(loader, batches=1, event_handlers=[Shape()])   # prints (4, 2)
    """

    def batch_begin(self, estimator, *args, **kwargs):
        """Called before each batch is processed.

        Args:
            estimator: the Estimator running `fit` (or `evaluate`); its net, trainer,
                metrics and loss can be read.
            *args: unused (MXNet's signature).
            **kwargs: ``batch``, the batch as the data loader gave it.

        Example::

            from gluonlite.gluon.contrib.estimator import BatchBegin
            class Count(BatchBegin):
                seen = 0
                def batch_begin(self, estimator, *args, **kwargs):
                    Count.seen += 1
            from gluonlite.gluon.contrib.estimator import Estimator
            net = nn.Dense(1); net.initialize()
            data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
            loader = gluon.data.DataLoader(data, batch_size=4)
            trainer = gluon.Trainer(net.collect_params(), 'sgd')
            est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
            est.fit(loader, epochs=1, event_handlers=[Count()])
            Count.seen   # 2
        """


class BatchEnd(EventHandler):
    """Mix-in: `batch_end(estimator, batch=, pred=, label=, loss=)` runs after each batch;
    a True return ends the current epoch.

    Example::

        from gluonlite.gluon.contrib.estimator import BatchEnd
        class PrintLoss(BatchEnd):
            def batch_end(self, estimator, *args, **kwargs):
                print(kwargs['loss'][0].mean().asscalar())
        from gluonlite.gluon.contrib.estimator import Estimator
        net = nn.Dense(1); net.initialize()
        data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
        loader = gluon.data.DataLoader(data, batch_size=4)
        trainer = gluon.Trainer(net.collect_params(), 'sgd')
        est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
        est.fit(loader, batches=2, event_handlers=[PrintLoss()])   # prints two losses
    """

    def batch_end(self, estimator, *args, **kwargs):
        """Called after each batch.

        Args:
            estimator: the Estimator running `fit` (or `evaluate`); its net, trainer,
                metrics and loss can be read.
            *args: unused (MXNet's signature).
            **kwargs: ``batch``, ``pred`` (the network's outputs), ``label`` and ``loss``
                (lists, one entry per context).

        Returns:
            True to end the epoch now (default False).

        Example::

            from gluonlite.gluon.contrib.estimator import BatchEnd
            class OneBatchPerEpoch(BatchEnd):
                def batch_end(self, estimator, *args, **kwargs):
                    return True   # end the epoch now
            from gluonlite.gluon.contrib.estimator import Estimator
            net = nn.Dense(1); net.initialize()
            data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
            loader = gluon.data.DataLoader(data, batch_size=4)
            trainer = gluon.Trainer(net.collect_params(), 'sgd')
            est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
            est.fit(loader, epochs=2, event_handlers=[OneBatchPerEpoch()])
        """
        return False


class StoppingHandler(TrainBegin, BatchEnd, EpochEnd):
    """Stops `fit` after `max_epoch` epochs or `max_batch` batches (the estimator adds one
    with its own `epochs`/`batches`, read again at each train begin).

    Args:
        max_epoch: epochs to train (None: no limit by epoch).
        max_batch: batches to train (None: no limit by batch).

    Example::

        from gluonlite.gluon.contrib.estimator import Estimator, StoppingHandler
        net = nn.Dense(1); net.initialize()
        data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
        loader = gluon.data.DataLoader(data, batch_size=4)
        trainer = gluon.Trainer(net.collect_params(), 'sgd')
        est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
        est.fit(loader, epochs=10, event_handlers=[StoppingHandler(max_batch=3)])   # 3 batches
    """

    def __init__(self, max_epoch=None, max_batch=None):
        self.max_epoch = max_epoch
        self.max_batch = max_batch
        self.current_batch = 0
        self.current_epoch = 0
        self.stop_training = False

    def train_begin(self, estimator, *args, **kwargs):
        """Read the estimator's `max_epoch`/`max_batch` and start counting from 0.

        Args:
            estimator: the Estimator being fit.

        Called by `Estimator.fit`.

        Example::

            from gluonlite.gluon.contrib.estimator import Estimator, StoppingHandler
            net = nn.Dense(1); net.initialize()
            data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
            loader = gluon.data.DataLoader(data, batch_size=4)
            trainer = gluon.Trainer(net.collect_params(), 'sgd')
            est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
            est.max_epoch, est.max_batch = 2, None   # as fit(epochs=2) sets them
            h = StoppingHandler(); h.train_begin(est)
            h.max_epoch   # 2
        """
        self.max_epoch = estimator.max_epoch
        self.max_batch = estimator.max_batch
        self.current_batch = 0
        self.current_epoch = 0

    def batch_end(self, estimator, *args, **kwargs):
        """Count a batch.

        Args:
            estimator: the Estimator being fit.

        Returns:
            True once `max_batch` batches were trained (the estimator stops), else False.

        Example::

            from gluonlite.gluon.contrib.estimator import Estimator, StoppingHandler
            net = nn.Dense(1); net.initialize()
            data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
            loader = gluon.data.DataLoader(data, batch_size=4)
            trainer = gluon.Trainer(net.collect_params(), 'sgd')
            est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
            est.max_epoch, est.max_batch = None, 2
            h = StoppingHandler(); h.train_begin(est)
            h.batch_end(est), h.batch_end(est)   # (False, True)
        """
        self.current_batch += 1
        if self.current_batch == self.max_batch:
            self.stop_training = True
        return self.stop_training

    def epoch_end(self, estimator, *args, **kwargs):
        """Count an epoch.

        Args:
            estimator: the Estimator being fit.

        Returns:
            True once `max_epoch` epochs were trained (the estimator stops), else False.

        Example::

            from gluonlite.gluon.contrib.estimator import Estimator, StoppingHandler
            net = nn.Dense(1); net.initialize()
            data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
            loader = gluon.data.DataLoader(data, batch_size=4)
            trainer = gluon.Trainer(net.collect_params(), 'sgd')
            est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
            est.max_epoch, est.max_batch = 1, None
            h = StoppingHandler(); h.train_begin(est)
            h.epoch_end(est)   # True
        """
        self.current_epoch += 1
        if self.current_epoch == self.max_epoch:
            self.stop_training = True
        return self.stop_training


class MetricHandler(EpochBegin, BatchEnd):
    """Resets `metrics` at each epoch begin and updates them at each batch end: a
    `metric.Loss` with the batch's losses, any other metric with ``(label, pred)``.

    Args:
        metrics: an EvalMetric or a list of EvalMetric.
        priority: call order; -1000 so that metrics are up to date before the handlers that
            read them.

    Raises:
        ValueError: `metrics` is not an EvalMetric or a list of them.

    Example::

        from gluonlite.gluon.contrib.estimator import Estimator, MetricHandler
        net = nn.Dense(1); net.initialize()
        data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
        loader = gluon.data.DataLoader(data, batch_size=4)
        trainer = gluon.Trainer(net.collect_params(), 'sgd')
        est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
        h = MetricHandler(metrics=est.train_metrics)   # fit adds one like it
        est.fit(loader, epochs=1, event_handlers=[h])
    """

    def __init__(self, metrics, priority=-1000):
        self.metrics = _check_metrics(metrics, "MetricHandler: metrics")
        self.priority = priority

    def epoch_begin(self, estimator, *args, **kwargs):
        """Reset every metric.

        Args:
            estimator: the Estimator being fit.

        Example::

            from gluonlite.gluon.contrib.estimator import MetricHandler
            acc = mx.metric.Accuracy(); acc.update([nd.array([1])], [nd.array([[0.2, 0.8]])])
            h = MetricHandler(metrics=acc)
            h.epoch_begin(None)   # resets: acc.num_inst is 0 again
            acc.num_inst   # 0
        """
        for metric in self.metrics:
            metric.reset()

    def batch_end(self, estimator, *args, **kwargs):
        """Update the metrics with the batch: a `metric.Loss` with the losses, any other metric
        with ``(label, pred)``.

        Args:
            estimator: the Estimator being fit.
            **kwargs: ``pred``, ``label`` and ``loss`` of the batch, as the estimator passes them.

        Example::

            from gluonlite.gluon.contrib.estimator import MetricHandler
            acc = mx.metric.Accuracy(); h = MetricHandler(metrics=acc)
            pred, label = nd.array([[0.2, 0.8]]), nd.array([1])
            h.batch_end(None, pred=[pred], label=[label], loss=[nd.zeros(1)])
            acc.get()   # ('accuracy', 1.0)
        """
        pred = kwargs['pred']
        label = kwargs['label']
        loss = kwargs['loss']
        for metric in self.metrics:
            if isinstance(metric, metric_loss):
                metric.update(0, loss)
            else:
                metric.update(label, pred)


class ValidationHandler(TrainBegin, BatchEnd, EpochEnd):
    """Runs `eval_fn` (usually `estimator.evaluate`) on `val_data` every `epoch_period`
    epochs and/or every `batch_period` batches.

    Args:
        val_data: the validation DataLoader.
        eval_fn: called as ``eval_fn(val_data=, batch_axis=, event_handlers=)``.
        epoch_period: validate after every this many epochs (None or 0: never at epoch end).
        batch_period: validate after every this many batches (None: never at batch end).
        priority: call order; -1000 so that validation metrics are up to date before the
            handlers that read them.
        event_handlers: handlers passed on to `eval_fn`.

    Raises:
        ValueError: `eval_fn` is not callable, or a period is not a non-negative int.

    Example::

        from gluonlite.gluon.contrib.estimator import Estimator, ValidationHandler
        net = nn.Dense(1); net.initialize()
        data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
        loader = gluon.data.DataLoader(data, batch_size=4)
        trainer = gluon.Trainer(net.collect_params(), 'sgd')
        est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
        h = ValidationHandler(loader, est.evaluate, epoch_period=2)
        est.fit(loader, epochs=4, event_handlers=[h])   # validates after epochs 2 and 4
    """

    def __init__(self, val_data, eval_fn, epoch_period=1, batch_period=None, priority=-1000,
                 event_handlers=None):
        if not callable(eval_fn):
            raise ValueError(f"ValidationHandler: eval_fn must be callable (for example "
                             f"estimator.evaluate), got {eval_fn!r}")
        _check_period("ValidationHandler", "epoch_period", epoch_period)
        _check_period("ValidationHandler", "batch_period", batch_period)
        self.val_data = val_data
        self.eval_fn = eval_fn
        self.epoch_period = epoch_period
        self.batch_period = batch_period
        self.current_batch = 0
        self.current_epoch = 0
        self.priority = priority
        self.event_handlers = event_handlers

    def _validate(self, estimator):
        self.eval_fn(val_data=self.val_data, batch_axis=estimator.batch_axis,
                     event_handlers=self.event_handlers)

    def train_begin(self, estimator, *args, **kwargs):
        """Start counting batches and epochs from 0.

        Args:
            estimator: the Estimator being fit.

        Example::

            from gluonlite.gluon.contrib.estimator import ValidationHandler
            h = ValidationHandler(None, print); h.current_epoch = 3
            h.train_begin(None)
            h.current_epoch   # 0
        """
        self.current_batch = 0
        self.current_epoch = 0

    def batch_end(self, estimator, *args, **kwargs):
        """Count a batch, and validate when `batch_period` batches have passed.

        Args:
            estimator: the Estimator being fit.

        Example::

            from gluonlite.gluon.contrib.estimator import Estimator, ValidationHandler
            net = nn.Dense(1); net.initialize()
            data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
            loader = gluon.data.DataLoader(data, batch_size=4)
            trainer = gluon.Trainer(net.collect_params(), 'sgd')
            est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
            h = ValidationHandler(loader, est.evaluate, epoch_period=None, batch_period=2)
            est.fit(loader, batches=4, event_handlers=[h])   # validates after batches 2 and 4
        """
        self.current_batch += 1
        if self.batch_period and self.current_batch % self.batch_period == 0:
            self._validate(estimator)

    def epoch_end(self, estimator, *args, **kwargs):
        """Count an epoch, and validate when `epoch_period` epochs have passed.

        Args:
            estimator: the Estimator being fit.

        Example::

            from gluonlite.gluon.contrib.estimator import Estimator, ValidationHandler
            net = nn.Dense(1); net.initialize()
            data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
            loader = gluon.data.DataLoader(data, batch_size=4)
            trainer = gluon.Trainer(net.collect_params(), 'sgd')
            est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
            h = ValidationHandler(loader, est.evaluate)
            h.epoch_end(est)   # runs est.evaluate(loader) now
        """
        self.current_epoch += 1
        if self.epoch_period and self.current_epoch % self.epoch_period == 0:
            self._validate(estimator)


def _metric_text(metrics):
    return ''.join('%s: %.4f, ' % metric.get() for metric in metrics)


class LoggingHandler(TrainBegin, TrainEnd, EpochBegin, EpochEnd, BatchBegin, BatchEnd):
    """Logs training progress through `estimator.logger` (Python logging), in MXNet's
    lines: the optimizer and learning rate at train begin, each epoch's time and metrics,
    every `log_interval` batches the batch's metrics, and a summary at train end.

    Args:
        log_interval: 'epoch' (log at epoch ends) or an int k (also log every k batches).
        metrics: the metrics to log (an EvalMetric or a list of them).
        priority: call order; +inf, so that it logs after every other handler ran.

    Raises:
        ValueError: `log_interval` is neither 'epoch' nor a positive int, or `metrics` is not
            an EvalMetric or a list of them.

    Example::

        from gluonlite.gluon.contrib.estimator import Estimator, LoggingHandler
        net = nn.Dense(1); net.initialize()
        data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
        loader = gluon.data.DataLoader(data, batch_size=4)
        trainer = gluon.Trainer(net.collect_params(), 'sgd')
        est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
        h = LoggingHandler(log_interval=1, metrics=est.train_metrics)
        est.fit(loader, epochs=1, event_handlers=[h])   # a line per batch and per epoch
    """

    def __init__(self, log_interval='epoch', metrics=None, priority=math.inf):
        if not (log_interval == 'epoch' or (isinstance(log_interval, int)
                                            and not isinstance(log_interval, bool)
                                            and log_interval > 0)):
            raise ValueError(f"LoggingHandler: log_interval must be 'epoch' or a positive "
                             f"int, got {log_interval!r}")
        self.metrics = _check_metrics(metrics, "LoggingHandler: metrics")
        self.batch_index = 0
        self.current_epoch = 0
        self.processed_samples = 0
        self.priority = priority
        self.log_interval = log_interval
        self.log_interval_time = 0
        self.train_start = self.epoch_start = self.batch_start = time.time()

    def train_begin(self, estimator, *args, **kwargs):
        """Log the optimizer, the learning rate and how long training will run, and start the
        clocks and counters.

        Args:
            estimator: the Estimator being fit.

        Example::

            from gluonlite.gluon.contrib.estimator import Estimator, LoggingHandler
            net = nn.Dense(1); net.initialize()
            data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
            loader = gluon.data.DataLoader(data, batch_size=4)
            trainer = gluon.Trainer(net.collect_params(), 'sgd')
            est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
            est.max_epoch, est.max_batch = 1, None
            LoggingHandler().train_begin(est)   # logs the optimizer and the learning rate
        """
        self.train_start = time.time()
        trainer = estimator.trainer
        estimator.logger.info("Training begin: using optimizer %s "
                              "with current learning rate %.4f ",
                              type(trainer.optimizer).__name__, trainer.learning_rate)
        if estimator.max_epoch:
            estimator.logger.info("Train for %d epochs.", estimator.max_epoch)
        else:
            estimator.logger.info("Train for %d batches.", estimator.max_batch)
        self.current_epoch = 0
        self.batch_index = 0
        self.processed_samples = 0
        self.log_interval_time = 0

    def train_end(self, estimator, *args, **kwargs):
        """Log the total training time, the epochs run and the metrics.

        Args:
            estimator: the Estimator being fit.

        Example::

            from gluonlite.gluon.contrib.estimator import Estimator, LoggingHandler
            net = nn.Dense(1); net.initialize()
            data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
            loader = gluon.data.DataLoader(data, batch_size=4)
            trainer = gluon.Trainer(net.collect_params(), 'sgd')
            est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
            est.fit(loader, epochs=1)   # its LoggingHandler's train_end logs the summary line
        """
        train_time = time.time() - self.train_start
        msg = 'Train finished using total %ds with %d epochs. ' % (train_time,
                                                                   self.current_epoch)
        estimator.logger.info((msg + _metric_text(self.metrics)).rstrip(', '))

    def batch_begin(self, estimator, *args, **kwargs):
        """Start the batch's clock (with an integer `log_interval`).

        Args:
            estimator: the Estimator being fit.

        Example::

            from gluonlite.gluon.contrib.estimator import Estimator, LoggingHandler
            net = nn.Dense(1); net.initialize()
            data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
            loader = gluon.data.DataLoader(data, batch_size=4)
            trainer = gluon.Trainer(net.collect_params(), 'sgd')
            est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
            h = LoggingHandler(log_interval=1)
            est.fit(loader, batches=2, event_handlers=[h])   # batch_begin starts each batch's timer
        """
        if isinstance(self.log_interval, int):
            self.batch_start = time.time()

    def batch_end(self, estimator, *args, **kwargs):
        """Count the batch's samples and, every `log_interval` batches, log the epoch, batch,
        samples, time and metrics.

        Args:
            estimator: the Estimator being fit.
            **kwargs: ``batch`` (its first element's `batch_axis` is the sample count).

        Example::

            from gluonlite.gluon.contrib.estimator import Estimator, LoggingHandler
            net = nn.Dense(1); net.initialize()
            data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
            loader = gluon.data.DataLoader(data, batch_size=4)
            trainer = gluon.Trainer(net.collect_params(), 'sgd')
            est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
            h = LoggingHandler(log_interval=1, metrics=est.train_metrics)
            est.fit(loader, batches=2, event_handlers=[h])   # logs '[Epoch 0][Batch 0]...' lines
        """
        if isinstance(self.log_interval, int):
            self.log_interval_time += time.time() - self.batch_start
            axis = getattr(estimator, 'batch_axis', 0) or 0
            self.processed_samples += kwargs['batch'][0].shape[axis]
            if self.batch_index % self.log_interval == 0:
                msg = '[Epoch %d][Batch %d][Samples %s] time/interval: %.3fs ' % (
                    self.current_epoch, self.batch_index, self.processed_samples,
                    self.log_interval_time)
                self.log_interval_time = 0
                estimator.logger.info((msg + _metric_text(self.metrics)).rstrip(', '))
        self.batch_index += 1

    def epoch_begin(self, estimator, *args, **kwargs):
        """Start the epoch's clock and log its beginning (with the learning rate for training
        metrics, 'Validation Begin' for validation ones).

        Args:
            estimator: the Estimator being fit.

        Example::

            from gluonlite.gluon.contrib.estimator import Estimator, LoggingHandler
            net = nn.Dense(1); net.initialize()
            data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
            loader = gluon.data.DataLoader(data, batch_size=4)
            trainer = gluon.Trainer(net.collect_params(), 'sgd')
            est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
            est.fit(loader, epochs=1, event_handlers=[LoggingHandler()])   # '[Epoch 0] Begin, ...'
        """
        self.epoch_start = time.time()
        # The estimator prefixes its metrics 'training '/'validation ': the only sign of
        # whether this handler logs a training epoch or an evaluation.
        if any('training' in metric.name for metric in self.metrics):
            estimator.logger.info("[Epoch %d] Begin, current learning rate: %.4f",
                                  self.current_epoch, estimator.trainer.learning_rate)
        else:
            estimator.logger.info("Validation Begin")

    def epoch_end(self, estimator, *args, **kwargs):
        """Log the epoch's time and metrics, and count it.

        Args:
            estimator: the Estimator being fit.

        Example::

            from gluonlite.gluon.contrib.estimator import Estimator, LoggingHandler
            net = nn.Dense(1); net.initialize()
            data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
            loader = gluon.data.DataLoader(data, batch_size=4)
            trainer = gluon.Trainer(net.collect_params(), 'sgd')
            est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
            h = LoggingHandler(metrics=est.train_metrics)
            est.fit(loader, epochs=1, event_handlers=[h])   # '[Epoch 0] Finished in ...'
        """
        epoch_time = time.time() - self.epoch_start
        msg = '[Epoch %d] Finished in %.3fs, ' % (self.current_epoch, epoch_time)
        estimator.logger.info((msg + _metric_text(self.metrics)).rstrip(', '))
        self.current_epoch += 1
        self.batch_index = 0


def _monitor_op(owner, monitor, mode):
    """`(compare, initial_best)` for `mode`: greater and -inf for 'max', less and +inf for
    'min'; 'auto' picks 'max' for accuracy and F1 metrics and 'min' for the others (losses,
    errors)."""
    if mode not in ('auto', 'min', 'max'):
        warnings.warn(f"{owner}: mode {mode!r} is unknown, falling back to 'auto' (greater "
                      f"for accuracy and f1 metrics, less otherwise)", RuntimeWarning)
        mode = 'auto'
    if mode == 'auto':
        name = monitor.get()[0]
        mode = 'max' if ('acc' in name.lower() or 'f1' in name.lower()) else 'min'
        warnings.warn(f"{owner}: the {'greater' if mode == 'max' else 'less'} operator will be "
                      f"used to decide whether {name} has improved; pass mode='min' or "
                      f"mode='max' to choose it and silence this warning")
    if mode == 'max':
        return (lambda a, b: a > b), -math.inf
    return (lambda a, b: a < b), math.inf


class CheckpointHandler(TrainBegin, BatchEnd, EpochEnd):
    """Saves the parameters and trainer states every `epoch_period` epochs or
    `batch_period` batches as ``{model_prefix}-epoch{E}batch{B}.params`` and ``.states`` in
    `model_dir`, keeping the newest `max_checkpoints`; the network's symbol as
    ``{model_prefix}-symbol.json`` after the first batch when the net is a hybridized
    HybridBlock; with `save_best`, also ``{model_prefix}-best.params/.states`` whenever
    `monitor` improves.

    In the file names, E counts the epochs finished before the save; B is the number of
    batches trained when saving at an epoch end, and the index of the batch just trained
    when saving at a batch end (MXNet's names).

    Args:
        model_dir: the folder (created if missing).
        model_prefix: the file-name prefix.
        monitor: an EvalMetric (from estimator.train_metrics or val_metrics) to judge
            improvement by; needed by `save_best`.
        verbose: 1 logs each save.
        save_best: also keep the best checkpoint by `monitor`.
        mode: 'min', 'max' or 'auto' (greater for accuracy/F1, less otherwise).
        epoch_period: save every this many epochs (None: not by epoch).
        batch_period: save every this many batches (None: not by batch).
        max_checkpoints: how many epoch/batch checkpoints to keep (the best is not counted).
        resume_from_checkpoint: at train begin, load the newest checkpoint in `model_dir`
            and train only the epochs (or batches) left of the estimator's count.

    Raises:
        ValueError: `save_best` without an EvalMetric `monitor`, a bad period or
            `max_checkpoints`; at train begin with `resume_from_checkpoint`, periods that do
            not match the way `fit` counts (also an AssertionError, as in MXNet), or a
            checkpoint that already reached the requested count.

    Example::

        import os
        from gluonlite.gluon.contrib.estimator import Estimator, CheckpointHandler
        net = nn.Dense(1); net.initialize()
        data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
        loader = gluon.data.DataLoader(data, batch_size=4)
        trainer = gluon.Trainer(net.collect_params(), 'sgd')
        est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
        loss = est.train_metrics[0]
        h = CheckpointHandler('ckpt', monitor=loss, mode='min', save_best=True, max_checkpoints=3)
        est.fit(loader, epochs=2, event_handlers=[h])
        sorted(os.listdir('ckpt'))[:2]   # ['model-best.params', 'model-best.states']
    """

    def __init__(self, model_dir, model_prefix='model', monitor=None, verbose=0,
                 save_best=False, mode='auto', epoch_period=1, batch_period=None,
                 max_checkpoints=5, resume_from_checkpoint=False):
        if save_best and not isinstance(monitor, EvalMetric):
            raise ValueError(f"CheckpointHandler: save_best=True needs monitor to be one of "
                             f"the metrics of estimator.train_metrics or "
                             f"estimator.val_metrics, got {monitor!r}")
        _check_period("CheckpointHandler", "epoch_period", epoch_period)
        _check_period("CheckpointHandler", "batch_period", batch_period)
        if isinstance(max_checkpoints, bool) or not isinstance(max_checkpoints, int) \
                or max_checkpoints < 1:
            raise ValueError(f"CheckpointHandler: max_checkpoints must be a positive int, "
                             f"got {max_checkpoints!r}")
        os.makedirs(model_dir, exist_ok=True)
        self.monitor = monitor
        self.verbose = verbose
        self.model_dir = model_dir
        self.model_prefix = model_prefix
        self.save_best = save_best
        self.epoch_period = epoch_period
        self.batch_period = batch_period
        self.current_batch = 0
        self.current_epoch = 0
        self.max_checkpoints = max_checkpoints
        self.resume_from_checkpoint = resume_from_checkpoint
        self.saved_checkpoints = []
        self.trained_epoch = -1
        self.trained_batch = -1
        self._offsets = (0, 0)
        if save_best:
            self.monitor_op, self._initial_best = _monitor_op("CheckpointHandler", monitor,
                                                              mode)
            self.best = self._initial_best

    def train_begin(self, estimator, *args, **kwargs):
        """Start counting, and with `resume_from_checkpoint` load the newest checkpoint found.

        Args:
            estimator: the Estimator being fit.

        Raises:
            GluonUsageError: resuming with periods that count checkpoints otherwise than `fit`
                counts training (by epochs or by batches).

        Example::

            from gluonlite.gluon.contrib.estimator import Estimator, CheckpointHandler
            net = nn.Dense(1); net.initialize()
            data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
            loader = gluon.data.DataLoader(data, batch_size=4)
            trainer = gluon.Trainer(net.collect_params(), 'sgd')
            est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
            est.fit(loader, epochs=1, event_handlers=[CheckpointHandler('ckpt')])
            h = CheckpointHandler('ckpt', resume_from_checkpoint=True)
            est.fit(loader, epochs=3, event_handlers=[h])   # loads epoch 1's files, trains 2 more
        """
        self.current_epoch = 0
        self.current_batch = 0
        self._offsets = (0, 0)
        if self.save_best:
            self.best = self._initial_best
        if self.resume_from_checkpoint:
            by_batch = bool(estimator.max_batch)
            if (by_batch and (not self.batch_period or self.epoch_period)) or \
                    (not by_batch and (not self.epoch_period or self.batch_period)):
                kind, other = ('batch', 'epoch') if by_batch else ('epoch', 'batch')
                raise GluonUsageError(
                    f"CheckpointHandler: resume_from_checkpoint needs checkpoints counted the "
                    f"way fit counts: fit was given {kind}{'es' if by_batch else 's'}=, so "
                    f"set {kind}_period and {other}_period=None (got "
                    f"epoch_period={self.epoch_period!r}, batch_period={self.batch_period!r})")
            self._resume_from_checkpoint(estimator)

    def batch_end(self, estimator, *args, **kwargs):
        """Save the symbol after the first batch (a hybridized net), and a checkpoint every
        `batch_period` batches.

        Args:
            estimator: the Estimator being fit.

        Example::

            import os
            from gluonlite.gluon.contrib.estimator import Estimator, CheckpointHandler
            net = nn.Dense(1); net.initialize()
            data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
            loader = gluon.data.DataLoader(data, batch_size=4)
            trainer = gluon.Trainer(net.collect_params(), 'sgd')
            est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
            h = CheckpointHandler('ckpt', epoch_period=None, batch_period=1)
            est.fit(loader, batches=2, event_handlers=[h])
            [f for f in sorted(os.listdir('ckpt')) if f.endswith('.params')]
            # ['model-epoch0batch0.params', 'model-epoch0batch1.params']: the batch index
        """
        if self.current_batch == 0:
            self._save_symbol(estimator)
        if self.batch_period and (self.current_batch + 1) % self.batch_period == 0:
            self._save_checkpoint(estimator, self.current_batch + 1)
        self.current_batch += 1

    def epoch_end(self, estimator, *args, **kwargs):
        """Save a checkpoint every `epoch_period` epochs (and the best one with `save_best`).

        Args:
            estimator: the Estimator being fit.

        Example::

            import os
            from gluonlite.gluon.contrib.estimator import Estimator, CheckpointHandler
            net = nn.Dense(1); net.initialize()
            data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
            loader = gluon.data.DataLoader(data, batch_size=4)
            trainer = gluon.Trainer(net.collect_params(), 'sgd')
            est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
            est.fit(loader, epochs=1, event_handlers=[CheckpointHandler('ckpt')])
            sorted(os.listdir('ckpt'))[0]   # model-epoch0batch2.params
        """
        if self.epoch_period and (self.current_epoch + 1) % self.epoch_period == 0:
            self._save_checkpoint(estimator, self.current_batch)
        self.current_epoch += 1

    def _save_checkpoint(self, estimator, trained_batches):
        epoch = self.current_epoch + self._offsets[0]
        batch = self.current_batch + self._offsets[1]
        prefix = "%s-epoch%dbatch%d" % (self.model_prefix, epoch, batch)
        self._save_params_and_trainer(estimator, prefix)
        if self.verbose > 0:
            estimator.logger.info('[Epoch %d] CheckpointHandler: trained total %d batches, '
                                  'saving model at %s with prefix: %s',
                                  self.current_epoch, trained_batches, self.model_dir, prefix)
        if self.save_best:
            self._save_best(estimator)

    def _save_best(self, estimator):
        name, value = self.monitor.get()
        if math.isnan(value):
            warnings.warn(f"CheckpointHandler: skipping save_best because the monitor {name} "
                          f"has no value; pass one of estimator.train_metrics or "
                          f"estimator.val_metrics as monitor", RuntimeWarning)
        elif self.monitor_op(value, self.best):
            prefix = self.model_prefix + '-best'
            self._save_params_and_trainer(estimator, prefix)
            if self.verbose > 0:
                estimator.logger.info('[Epoch %d] CheckpointHandler: %s improved from %0.5f '
                                      'to %0.5f, updating best model at %s with prefix: %s',
                                      self.current_epoch, name, self.best, value,
                                      self.model_dir, prefix)
            self.best = value
        elif self.verbose > 0:
            estimator.logger.info('[Epoch %d] CheckpointHandler: %s did not improve from '
                                  '%0.5f, skipping updating best model',
                                  self.current_epoch, name, self.best)

    def _save_symbol(self, estimator):
        symbol_file = os.path.join(self.model_dir, self.model_prefix + '-symbol.json')
        graph = getattr(estimator.net, '_cached_graph', None)
        if graph:
            graph[1].save(symbol_file)
        else:
            estimator.logger.info(
                "Model architecture(symbol file) is not saved, please use HybridBlock "
                "to construct your model, and call net.hybridize() before passing to "
                "Estimator in order to save model architecture as %s.", symbol_file)

    def _save_params_and_trainer(self, estimator, file_prefix):
        path = os.path.join(self.model_dir, file_prefix)
        estimator.net.save_parameters(path + '.params')
        estimator.trainer.save_states(path + '.states')
        if file_prefix == self.model_prefix + '-best':
            return
        self.saved_checkpoints.append(file_prefix)
        while len(self.saved_checkpoints) > self.max_checkpoints:
            old = os.path.join(self.model_dir, self.saved_checkpoints.pop(0))
            for ext in ('.params', '.states'):
                if os.path.exists(old + ext):
                    os.remove(old + ext)

    def _existing_checkpoints(self):
        """[(epoch, batch, prefix)] of the checkpoints of `model_prefix` in `model_dir`,
        oldest first."""
        pattern = re.compile(re.escape(self.model_prefix) + r'-epoch(\d+)batch(\d+)\.params$')
        found = []
        for fname in os.listdir(self.model_dir):
            match = pattern.match(fname)
            if match:
                found.append((int(match.group(1)), int(match.group(2)), fname[:-len('.params')]))
        return sorted(found)

    def _resume_from_checkpoint(self, estimator):
        found = self._existing_checkpoints()
        self.saved_checkpoints = [prefix for _, _, prefix in found]
        if not found:
            self.trained_epoch = self.trained_batch = -1
            count = ("%d batches" % estimator.max_batch if estimator.max_batch
                     else "%d epochs" % estimator.max_epoch)
            estimator.logger.info("CheckpointHandler: No checkpoint found, training from "
                                  "scratch for " + count)
            return
        self.trained_epoch, self.trained_batch, prefix = found[-1]
        msg = ("CheckpointHandler: Checkpoint resumed from epoch %d batch %d, continue to "
               "train for " % (self.trained_epoch, self.trained_batch))
        if estimator.max_epoch:
            if self.trained_epoch >= estimator.max_epoch - 1:
                raise ValueError(f"CheckpointHandler: the checkpoint {prefix} in "
                                 f"{self.model_dir} already reached epochs="
                                 f"{estimator.max_epoch}; pass resume_from_checkpoint=False "
                                 f"to train from scratch, or ask for more epochs")
            estimator.max_epoch -= self.trained_epoch + 1
            msg += "%d epochs " % estimator.max_epoch
            # an epoch-end checkpoint's batch number counts batches, not the last index
            self._offsets = (self.trained_epoch + 1, self.trained_batch)
        if estimator.max_batch:
            if self.trained_batch >= estimator.max_batch - 1:
                raise ValueError(f"CheckpointHandler: the checkpoint {prefix} in "
                                 f"{self.model_dir} already reached batches="
                                 f"{estimator.max_batch}; pass resume_from_checkpoint=False "
                                 f"to train from scratch, or ask for more batches")
            estimator.max_batch -= self.trained_batch + 1
            msg += "%d batches " % estimator.max_batch
            self._offsets = (self.trained_epoch + 1, self.trained_batch + 1)
        path = os.path.join(self.model_dir, prefix)
        if not os.path.exists(path + '.states'):
            raise ValueError(f"CheckpointHandler: cannot resume from {path}.params: its "
                             f"trainer states {path}.states are missing")
        estimator.net.load_parameters(path + '.params', ctx=estimator.context)
        estimator.trainer.load_states(path + '.states')
        estimator.logger.warning(msg)


class EarlyStoppingHandler(TrainBegin, EpochEnd, TrainEnd):
    """Stops training when `monitor` has not improved by more than `min_delta` for
    `patience` epochs in a row.

    Args:
        monitor: the EvalMetric to watch (one of estimator.train_metrics/val_metrics).
        min_delta: the least change that counts as an improvement.
        patience: how many epochs without improvement to allow; with 0, the first epoch
            that does not improve stops training.
        mode: 'min', 'max' or 'auto' (greater for accuracy/F1, less otherwise).
        baseline: the value to beat at the start (None: +/-inf).

    Raises:
        ValueError: `monitor` is not an EvalMetric, or is a CompositeEvalMetric.

    Example::

        from gluonlite.gluon.contrib.estimator import Estimator, EarlyStoppingHandler
        net = nn.Dense(1); net.initialize()
        data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
        loader = gluon.data.DataLoader(data, batch_size=4)
        trainer = gluon.Trainer(net.collect_params(), 'sgd')
        est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
        h = EarlyStoppingHandler(monitor=est.train_metrics[0], patience=2, mode='min')
        est.fit(loader, epochs=100, event_handlers=[h])   # stops when the loss stops improving
    """

    def __init__(self, monitor, min_delta=0, patience=0, mode='auto', baseline=None):
        if not isinstance(monitor, EvalMetric):
            raise ValueError(f"EarlyStoppingHandler: monitor must be one of the metrics of "
                             f"estimator.train_metrics or estimator.val_metrics, "
                             f"got {monitor!r}")
        if isinstance(monitor, CompositeEvalMetric):
            raise ValueError("EarlyStoppingHandler: monitor must be a single metric, got a "
                             "CompositeEvalMetric; pass one of its members")
        self.monitor = monitor
        self.baseline = baseline
        self.patience = patience
        self.wait = 0
        self.stopped_epoch = 0
        self.current_epoch = 0
        self.stop_training = False
        self.monitor_op, self._initial_best = _monitor_op("EarlyStoppingHandler", monitor,
                                                          mode)
        self.best = self._initial_best
        # signed so that `value - min_delta` is what must beat `best`, in either mode
        self.min_delta = min_delta if self._initial_best < 0 else -min_delta

    def train_begin(self, estimator, *args, **kwargs):
        """Start waiting from the initial best value (`baseline` when given).

        Args:
            estimator: the Estimator being fit.

        Example::

            from gluonlite.gluon.contrib.estimator import Estimator, EarlyStoppingHandler
            net = nn.Dense(1); net.initialize()
            data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
            loader = gluon.data.DataLoader(data, batch_size=4)
            trainer = gluon.Trainer(net.collect_params(), 'sgd')
            est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
            h = EarlyStoppingHandler(monitor=est.train_metrics[0], patience=2, mode='min')
            h.train_begin(est)   # the best value and the wait count start over
        """
        self.wait = 0
        self.stopped_epoch = 0
        self.current_epoch = 0
        self.stop_training = False
        self.best = self._initial_best if self.baseline is None else self.baseline

    def epoch_end(self, estimator, *args, **kwargs):
        """Compare the monitor with the best value so far (by `min_delta`); after `patience`
        epochs without improvement, ask the estimator to stop.

        Args:
            estimator: the Estimator being fit.

        Returns:
            True when training should stop, else False.

        Example::

            from gluonlite.gluon.contrib.estimator import EarlyStoppingHandler
            loss = mx.metric.Loss(); loss.update(None, [nd.array([1.0])])
            h = EarlyStoppingHandler(monitor=loss, patience=0, mode='min')
            h.train_begin(None)
            h.epoch_end(None), h.epoch_end(None)   # (False, True): no improvement the second time
        """
        name, value = self.monitor.get()
        if math.isnan(value):
            warnings.warn(f"EarlyStoppingHandler: the monitor {name} has no value; pass one "
                          f"of estimator.train_metrics or estimator.val_metrics as monitor",
                          RuntimeWarning)
        elif self.monitor_op(value - self.min_delta, self.best):
            self.best = value
            self.wait = 0
        else:
            self.wait += 1
            if self.wait >= self.patience:
                self.stopped_epoch = self.current_epoch
                self.stop_training = True
        self.current_epoch += 1
        return self.stop_training

    def train_end(self, estimator, *args, **kwargs):
        """Log the epoch training stopped at, when it stopped early.

        Args:
            estimator: the Estimator being fit.

        Example::

            from gluonlite.gluon.contrib.estimator import Estimator, EarlyStoppingHandler
            net = nn.Dense(1); net.initialize()
            data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
            loader = gluon.data.DataLoader(data, batch_size=4)
            trainer = gluon.Trainer(net.collect_params(), 'sgd')
            est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
            h = EarlyStoppingHandler(monitor=est.train_metrics[0], patience=0, mode='min')
            est.fit(loader, epochs=100, event_handlers=[h])   # train_end logs the stop epoch
        """
        if self.stopped_epoch > 0:
            estimator.logger.info('[Epoch %d] EarlyStoppingHandler: '
                                  'early stopping due to %s not improving',
                                  self.stopped_epoch, self.monitor.get()[0])


class GradientUpdateHandler(BatchEnd):
    """Applies the gradients at each batch end: ``estimator.trainer.step(n)`` with n the
    number of samples in the batch's losses (the sum of their first dimensions).

    Args:
        priority: call order; -2000, before the metrics are updated.

    Example::

        from gluonlite.gluon.contrib.estimator import Estimator, GradientUpdateHandler
        net = nn.Dense(1); net.initialize()
        data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
        loader = gluon.data.DataLoader(data, batch_size=4)
        trainer = gluon.Trainer(net.collect_params(), 'sgd')
        est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
        est.fit(loader, epochs=1, event_handlers=[GradientUpdateHandler()])   # the default one
    """

    def __init__(self, priority=-2000):
        self.priority = priority

    def batch_end(self, estimator, *args, **kwargs):
        """Step the trainer by the batch's sample count (the sum of its losses' first
        dimensions).

        Args:
            estimator: the Estimator being fit.
            **kwargs: ``loss``, an NDArray or a list of them.

        Example::

            from gluonlite.gluon.contrib.estimator import Estimator, GradientUpdateHandler
            net = nn.Dense(1); net.initialize()
            data = gluon.data.ArrayDataset(nd.ones((8, 2)), nd.ones((8, 1)))
            loader = gluon.data.DataLoader(data, batch_size=4)
            trainer = gluon.Trainer(net.collect_params(), 'sgd')
            est = Estimator(net, gluon.loss.L2Loss(), trainer=trainer)
            data, label, pred, loss = est.batch_processor.fit_batch(est, next(iter(loader)))
            before = net.weight.data().copy()
            GradientUpdateHandler().batch_end(est, loss=loss)   # trainer.step(batch size 4)
            (net.weight.data() != before).sum().asscalar()   # 2.0
        """
        loss = kwargs['loss']
        if not isinstance(loss, (list, tuple)):
            loss = [loss]
        estimator.trainer.step(sum(part.shape[0] for part in loss))
