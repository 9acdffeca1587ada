"""`mx.metric`: evaluation metrics, computed on numpy with MXNet 1.9.1's numbers.

Every metric keeps two running sums: a local one (``sum_metric / num_inst``, cleared by
``reset_local()``, read by ``get()``) and a global one (cleared only by ``reset()``, read by
``get_global()``). ``create`` builds a metric from a registered name (case-insensitive, with
MXNet's aliases such as ``'acc'``, ``'ce'``, ``'nll_loss'``), a JSON config, a list (a
``CompositeEvalMetric``) or a ``feval(label, pred)`` function (a ``CustomMetric``).

Example::

    acc = mx.metric.create('acc')
    acc.update([mx.nd.array([0, 1, 1])], [mx.nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])])
    acc.get()   # ('accuracy', 0.6666666666666666)
"""
import json
import math
import warnings
from collections import OrderedDict

import numpy

from .base import numeric_types, string_types
from . import ndarray  # noqa: F401  (MXNet's metric module holds it; GluonTS imports it from here)
from .ndarray import NDArray

__all__ = ["EvalMetric", "CompositeEvalMetric", "Accuracy", "TopKAccuracy", "F1", "MCC",
           "Perplexity", "MAE", "MSE", "RMSE", "CrossEntropy", "NegativeLogLikelihood",
           "PearsonCorrelation", "PCC", "Loss", "Torch", "Caffe", "CustomMetric", "np",
           "create", "register", "alias", "check_label_shapes"]


def _is_nd(x):
    return isinstance(x, NDArray)


def _asnumpy(x):
    return x.asnumpy() if hasattr(x, "asnumpy") else numpy.asarray(x)


def check_label_shapes(labels, preds, wrap=False, shape=False):
    """Check that `labels` and `preds` agree in length (or in shape when `shape` is set).

    Args:
        labels, preds: lists of arrays, or arrays.
        wrap: wrap a single NDArray into a one-element list.
        shape: compare ``.shape`` instead of ``len``.

    Returns:
        ``(labels, preds)``, wrapped when asked.

    Raises:
        ValueError: they differ.

    Example::

        labels, preds = mx.metric.check_label_shapes(nd.zeros(3), nd.ones(3), wrap=True)
        len(labels), len(preds)   # (1, 1): each array wrapped in a list
    """
    if shape:
        label_shape, pred_shape = labels.shape, preds.shape
    else:
        label_shape, pred_shape = len(labels), len(preds)
    if label_shape != pred_shape:
        raise ValueError(f"Shape of labels {label_shape} does not match shape of "
                         f"predictions {pred_shape}")
    if wrap:
        if _is_nd(labels) or isinstance(labels, numpy.ndarray):
            labels = [labels]
        if _is_nd(preds) or isinstance(preds, numpy.ndarray):
            preds = [preds]
    return labels, preds


# ---------------------------------------------------------------- registry (by lower-case name)
_REGISTRY = {}


def register(klass, name=None):
    """Register an `EvalMetric` subclass under `name` (default: its class name), so that
    ``create(name)`` builds it. Usable as a class decorator.

    Raises:
        TypeError: `klass` is not an EvalMetric subclass.

    Example::

        class HalfMetric(mx.metric.EvalMetric):
            def update(self, labels, preds):
                self.sum_metric, self.num_inst = self.sum_metric + 0.5, self.num_inst + 1
        mx.metric.register(HalfMetric)
        mx.metric.create('halfmetric', name='half').get()   # ('half', nan)
    """
    if not (isinstance(klass, type) and issubclass(klass, EvalMetric)):
        raise TypeError(f"metric.register: expected a subclass of EvalMetric, got {klass!r}")
    key = (name or klass.__name__).lower()
    if key in _REGISTRY and _REGISTRY[key] is not klass:
        warnings.warn(f"metric.register: {klass.__module__}.{klass.__name__} registered as "
                      f"{key!r} overrides {_REGISTRY[key].__module__}."
                      f"{_REGISTRY[key].__name__}", UserWarning, stacklevel=2)
    _REGISTRY[key] = klass
    return klass


def alias(*aliases):
    """A class decorator registering the metric under each of `aliases` too.

    Example::

        @mx.metric.alias('my_acc')
        class MyAcc(mx.metric.Accuracy):
            pass
        type(mx.metric.create('my_acc')).__name__   # 'MyAcc'
    """
    def reg(klass):
        for name in aliases:
            register(klass, name)
        return klass
    return reg


def _create_registered(*args, **kwargs):
    if args:
        name, args = args[0], args[1:]
    elif "metric" in kwargs:
        name = kwargs.pop("metric")
    else:
        raise ValueError("metric.create: no metric given (a name, a config, an EvalMetric, a "
                         "list or a function)")
    if isinstance(name, EvalMetric):
        if args or kwargs:
            raise ValueError("metric.create: the metric is already an instance; extra "
                             f"arguments {args} {kwargs} are not allowed")
        return name
    if isinstance(name, dict):
        return _create_registered(**name)
    if not isinstance(name, string_types):
        raise TypeError(f"metric.create: metric must be a name, a config, an EvalMetric, a "
                        f"list or a function, got {type(name).__name__}")
    if name.startswith("["):
        name, kwargs = json.loads(name)
        return _create_registered(name, **kwargs)
    if name.startswith("{"):
        return _create_registered(**json.loads(name))
    key = name.lower()
    if key not in _REGISTRY:
        raise ValueError(f"metric.create: {name!r} is not a registered metric; known: "
                         f"{sorted(_REGISTRY)} (register one with mx.metric.register)")
    return _REGISTRY[key](*args, **kwargs)


def create(metric, *args, **kwargs):
    """Create a metric.

    Args:
        metric: a registered name (``'acc'``, ``'f1'``, ``'rmse'``, ...), a JSON string of
            ``get_config()``, an `EvalMetric` (returned as is), a list of these (a
            `CompositeEvalMetric`) or a function ``feval(label, pred)`` (a `CustomMetric`).
        *args: passed to the metric's constructor.
        **kwargs: passed to the metric's constructor.

    Returns:
        an `EvalMetric`.

    Raises:
        ValueError: an unknown name.

    Example::

        m = mx.metric.create(['acc', 'f1'])
        m.update([nd.array([0, 1])], [nd.array([[0.8, 0.2], [0.3, 0.7]])])
        m.get()   # (['accuracy', 'f1'], [1.0, 1.0])
    """
    if callable(metric) and not isinstance(metric, (type, EvalMetric)):
        return CustomMetric(metric, *args, **kwargs)
    if isinstance(metric, list):
        composite = CompositeEvalMetric()
        for child in metric:
            composite.add(create(child, *args, **kwargs))
        return composite
    return _create_registered(metric, *args, **kwargs)


# ---------------------------------------------------------------- base class
class EvalMetric:
    """Base class of metrics: subclasses define ``update(labels, preds)`` adding to
    ``sum_metric``/``num_inst`` (and their ``global_`` twins).

    Args:
        name: the name shown by ``get()``.
        output_names (list of str): the keys of the predictions `update_dict` reads, in
            order (default None: every prediction).
        label_names (list of str): the keys of the labels `update_dict` reads (default
            None: every label).
        **kwargs: constructor arguments kept for ``get_config()``; ``has_global_stats``
            says whether the global sums are kept apart from the local ones.

    Example::

        y, p = nd.array([0, 1, 1]), nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])
        metric = mx.metric.Accuracy()
        metric.update([y], [p])
        name, value = metric.get()   # 'accuracy', 0.666...
    """

    def __init__(self, name, output_names=None, label_names=None, **kwargs):
        self.name = str(name)
        self.output_names = output_names
        self.label_names = label_names
        self._has_global_stats = kwargs.pop("has_global_stats", False)
        self._kwargs = kwargs
        self.reset()

    def __str__(self):
        return f"EvalMetric: {dict(self.get_name_value())}"

    def get_config(self):
        """The constructor arguments, so that ``create(json.dumps(m.get_config()))`` makes
        the same metric.

        Example::

            mx.metric.Accuracy(axis=1).get_config()['axis']   # 1
        """
        config = self._kwargs.copy()
        config.update({"metric": self.__class__.__name__, "name": self.name,
                       "output_names": self.output_names, "label_names": self.label_names})
        return config

    def update_dict(self, label, pred):
        """Update from dicts name -> NDArray, reading `label_names`/`output_names` (all
        entries in order when None).

        Args:
            label (dict of str to NDArray): the batch's labels by name.
            pred (dict of str to NDArray): the batch's predictions by name.

        Example::

            y, p = nd.array([0, 1, 1]), nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])
            acc = mx.metric.Accuracy(output_names=['out'], label_names=['label'])
            acc.update_dict({'label': y}, {'out': p})
            acc.get()   # ('accuracy', 0.6666666666666666)
        """
        pred = ([pred[n] for n in self.output_names] if self.output_names is not None
                else list(pred.values()))
        label = ([label[n] for n in self.label_names] if self.label_names is not None
                 else list(label.values()))
        self.update(label, pred)

    def update(self, labels, preds):
        """Add a batch: `labels` and `preds` are lists of NDArrays (one per output).

        Example::

            mae = mx.metric.MAE()
            mae.update([nd.array([1, 2])], [nd.array([1.5, 2.5])])
            mae.get()   # ('mae', 0.5)
        """
        raise NotImplementedError(f"{type(self).__name__}.update is not defined")

    def reset(self):
        """Clear the local and the global statistics.

        Example::

            y, p = nd.array([0, 1, 1]), nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])
            acc = mx.metric.Accuracy()
            acc.update([y], [p])
            acc.reset()
            acc.get()   # ('accuracy', nan)
        """
        self.num_inst = 0
        self.sum_metric = 0.0
        self.global_num_inst = 0
        self.global_sum_metric = 0.0

    def reset_local(self):
        """Clear the local statistics only (``get_global()`` keeps counting).

        Example::

            loss = mx.metric.Loss()
            loss.update(None, [nd.array([2.0])])
            loss.reset_local()
            loss.update(None, [nd.array([4.0])])
            loss.get(), loss.get_global()   # (('loss', 4.0), ('loss', 3.0))
        """
        self.num_inst = 0
        self.sum_metric = 0.0

    def get(self):
        """``(name, value)`` of the local statistics (nan before any update).

        Example::

            y, p = nd.array([0, 1, 1]), nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])
            acc = mx.metric.Accuracy()
            acc.update([y], [p])
            acc.get()   # ('accuracy', 0.6666666666666666)
        """
        if self.num_inst == 0:
            return self.name, float("nan")
        return self.name, self.sum_metric / self.num_inst

    def get_global(self):
        """``(name, value)`` since the last ``reset()`` (``get()`` without global stats).

        Example::

            loss = mx.metric.Loss()
            loss.update(None, [nd.array([2.0])])
            loss.reset_local()
            loss.update(None, [nd.array([4.0])])
            loss.get_global()   # ('loss', 3.0): both updates
        """
        if not self._has_global_stats:
            return self.get()
        if self.global_num_inst == 0:
            return self.name, float("nan")
        return self.name, self.global_sum_metric / self.global_num_inst

    @staticmethod
    def _pairs(name, value):
        names = name if isinstance(name, list) else [name]
        values = value if isinstance(value, list) else [value]
        return list(zip(names, values))

    def get_name_value(self):
        """``[(name, value), ...]`` of ``get()``.

        Example::

            m = mx.metric.create(['mae', 'mse'])
            m.update([nd.array([1, 2])], [nd.array([1, 4])])
            m.get_name_value()   # [('mae', 1.0), ('mse', 2.0)]
        """
        return self._pairs(*self.get())

    def get_global_name_value(self):
        """``[(name, value), ...]`` of ``get_global()``.

        Example::

            loss = mx.metric.Loss()
            loss.update(None, [nd.array([2.0])]); loss.reset_local()
            loss.get_global_name_value()   # [('loss', 2.0)]
        """
        if not self._has_global_stats:
            return self.get_name_value()
        return self._pairs(*self.get_global())


@alias("composite")
class CompositeEvalMetric(EvalMetric):
    """Several metrics updated together; ``get()`` returns lists of names and values.

    Args:
        metrics: metrics or names (default: none; see ``add``).
        name (str): the name ``get()`` reports (default ``'composite'``).
        output_names (list of str): the keys of the predictions `update_dict` reads, in
            order (default None: every prediction).
        label_names (list of str): the keys of the labels `update_dict` reads (default
            None: every label).

    Example::

        y, p = nd.array([0, 1, 1]), nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])
        m = mx.metric.CompositeEvalMetric(['acc', 'ce'])
        m.update([y], [p])
        m.get()[0]   # ['accuracy', 'cross-entropy']
    """

    def __init__(self, metrics=None, name="composite", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.metrics = [create(m) for m in (metrics or [])]

    def add(self, metric):
        """Append a child metric (an EvalMetric or anything ``create`` takes).

        Args:
            metric (EvalMetric, str or callable): the child metric, or a name, class
                or function `create` turns into one.

        Example::

            m = mx.metric.CompositeEvalMetric()
            m.add('acc'); m.add(mx.metric.MAE())
            [c.name for c in m.metrics]   # ['accuracy', 'mae']
        """
        self.metrics.append(create(metric))

    def get_metric(self, index):
        """The child metric at `index`.

        Raises:
            ValueError: index out of range.

        Example::

            m = mx.metric.CompositeEvalMetric(['acc', 'mae'])
            m.get_metric(1).name   # 'mae'
        """
        try:
            return self.metrics[index]
        except IndexError:
            raise ValueError(f"CompositeEvalMetric.get_metric: index {index} is out of range "
                             f"0 to {len(self.metrics)}") from None

    def update_dict(self, labels, preds):
        """Update every child metric from dicts of labels and predictions by name, keeping
        only the names in `label_names`/`output_names` when those are set.

        Args:
            labels: ``{name: NDArray}`` of labels.
            preds: ``{name: NDArray}`` of predictions.

        Example::

            y, p = nd.array([0, 1, 1]), nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])
            m = mx.metric.CompositeEvalMetric(['acc'], label_names=['softmax_label'])
            m.update_dict({'softmax_label': y, 'other': y}, {'softmax_output': p})
            m.get()   # (['accuracy'], [0.6666666666666666])
        """
        if self.label_names is not None:
            labels = OrderedDict(i for i in labels.items() if i[0] in self.label_names)
        if self.output_names is not None:
            preds = OrderedDict(i for i in preds.items() if i[0] in self.output_names)
        for metric in self.metrics:
            metric.update_dict(labels, preds)

    def update(self, labels, preds):
        """Update every child metric with the same labels and predictions.

        Args:
            labels: a list of label NDArrays.
            preds: a list of prediction NDArrays.

        Raises:
            ValueError: as each child metric raises it (mismatched counts or shapes).

        Example::

            y, p = nd.array([0, 1, 1]), nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])
            m = mx.metric.CompositeEvalMetric(['acc', 'mse'])
            m.update([nd.array([1, 0])], [nd.array([[0.2, 0.8], [0.6, 0.4]])])
            m.get_metric(0).get()   # ('accuracy', 1.0)
        """
        for metric in self.metrics:
            metric.update(labels, preds)

    def reset(self):
        """Reset every child metric, local and global statistics.

        Example::

            y, p = nd.array([0, 1, 1]), nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])
            m = mx.metric.CompositeEvalMetric(['acc'])
            m.update([y], [p])
            m.reset()
            m.get()   # (['accuracy'], [nan])
        """
        # EvalMetric.__init__ calls reset() before self.metrics exists
        for metric in getattr(self, "metrics", []):
            metric.reset()

    def reset_local(self):
        """Reset every child metric's local statistics (the global ones keep counting).

        Example::

            y, p = nd.array([0, 1, 1]), nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])
            m = mx.metric.CompositeEvalMetric(['acc'])
            m.update([y], [p])
            m.reset_local()
            m.get()   # (['accuracy'], [nan])
            m.get_global()   # (['accuracy'], [0.6666666666666666])
        """
        for metric in getattr(self, "metrics", []):
            metric.reset_local()

    def _collect(self, getter):
        names, values = [], []
        for metric in self.metrics:
            name, value = getter(metric)
            names.extend([name] if isinstance(name, string_types) else name)
            values.extend([value] if isinstance(value, numeric_types) else value)
        return names, values

    def get(self):
        """The children's local values.

        Returns:
            ``(names, values)``: two lists, one entry per value (a child that gives several
            contributes each).

        Example::

            y, p = nd.array([0, 1, 1]), nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])
            m = mx.metric.CompositeEvalMetric(['acc', 'f1'])
            m.update([y], [p])
            names, values = m.get()   # ['accuracy', 'f1'], [0.666..., 0.8]
        """
        return self._collect(lambda m: m.get())

    def get_global(self):
        """The children's global values, as `get` gives the local ones.

        Returns:
            ``(names, values)``.

        Example::

            y, p = nd.array([0, 1, 1]), nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])
            m = mx.metric.CompositeEvalMetric(['acc'])
            m.update([y], [p]); m.reset_local()
            m.get_global()   # (['accuracy'], [0.6666666666666666])
        """
        return self._collect(lambda m: m.get_global())

    def get_config(self):
        """This metric's configuration with each child's under ``'metrics'``, as MXNet's.

        Returns:
            a dict that `create` (through JSON) turns back into the metric.

        Raises:
            NotImplementedError: a child is a `CustomMetric`.

        Example::

            m = mx.metric.CompositeEvalMetric(['acc', 'mae'])
            [c['metric'] for c in m.get_config()['metrics']]   # ['Accuracy', 'MAE']
        """
        config = super().get_config()
        config["metrics"] = [m.get_config() for m in self.metrics]
        return config


# ---------------------------------------------------------------- classification
@alias("acc")
class Accuracy(EvalMetric):
    """The fraction of predictions equal to the label; a prediction of another shape than
    its label is reduced by argmax over `axis`.

    Args:
        axis: the class axis of the predictions (default 1).
        name (str): the name ``get()`` reports (default ``'accuracy'``).
        output_names (list of str): the keys of the predictions `update_dict` reads, in
            order (default None: every prediction).
        label_names (list of str): the keys of the labels `update_dict` reads (default
            None: every label).

    Example::

        y, p = nd.array([0, 1, 1]), nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])
        acc = mx.metric.Accuracy()
        acc.update([y], [p])
        acc.get()   # ('accuracy', 0.6666666666666666)
    """

    def __init__(self, axis=1, name="accuracy", output_names=None, label_names=None):
        super().__init__(name, axis=axis, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.axis = axis

    def update(self, labels, preds):
        """Count the predictions equal to their labels (after argmax over `axis` where a
        prediction's shape differs from its label's).

        Args:
            labels: a list of label NDArrays (class indices).
            preds: a list of prediction NDArrays (scores or class indices).

        Raises:
            ValueError: different numbers of labels and predictions, or of samples.

        Example::

            acc = mx.metric.Accuracy()
            acc.update([nd.array([0, 1])], [nd.array([[0.9, 0.1], [0.2, 0.8]])])
            acc.get()   # ('accuracy', 1.0)
        """
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            pred = _asnumpy(pred)
            label = _asnumpy(label)
            if pred.shape != label.shape:
                pred = numpy.argmax(pred, axis=self.axis)
            pred = pred.astype("int32").ravel()
            label = label.astype("int32").ravel()
            check_label_shapes(label, pred)
            correct = (pred == label).sum()
            self.sum_metric += correct
            self.global_sum_metric += correct
            self.num_inst += len(pred)
            self.global_num_inst += len(pred)


@alias("top_k_accuracy", "top_k_acc")
class TopKAccuracy(EvalMetric):
    """The fraction of samples whose label is among the `top_k` highest predictions.

    Args:
        top_k: how many predictions count (must be > 1; use Accuracy for 1).
        name (str): the name ``get()`` reports (default ``'top_k_accuracy'``).
        output_names (list of str): the keys of the predictions `update_dict` reads, in
            order (default None: every prediction).
        label_names (list of str): the keys of the labels `update_dict` reads (default
            None: every label).

    Raises:
        ValueError: top_k <= 1.

    Example::

        m = mx.metric.TopKAccuracy(top_k=2)
        m.update([nd.array([2, 0])], [nd.array([[0.1, 0.5, 0.4], [0.1, 0.5, 0.4]])])
        m.get()   # ('top_k_accuracy_2', 0.5)
    """

    def __init__(self, top_k=1, name="top_k_accuracy", output_names=None, label_names=None):
        super().__init__(name, top_k=top_k, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.top_k = top_k
        if self.top_k <= 1:
            raise ValueError(f"TopKAccuracy: top_k must be > 1 (use Accuracy for 1), got "
                             f"{top_k}")
        self.name += f"_{self.top_k}"

    def update(self, labels, preds):
        """Count the samples whose label is among their `top_k` highest scores.

        Args:
            labels: a list of label NDArrays (class indices).
            preds: a list of score NDArrays of at most 2 dimensions.

        Raises:
            ValueError: a prediction of more than 2 dimensions, or mismatched counts.

        Example::

            m = mx.metric.TopKAccuracy(top_k=2)
            m.update([nd.array([2])], [nd.array([[0.1, 0.5, 0.4]])])
            m.get()   # ('top_k_accuracy_2', 1.0)
        """
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            pred = _asnumpy(pred)
            if pred.ndim > 2:
                raise ValueError(f"TopKAccuracy: predictions must have at most 2 dims, got "
                                 f"shape {pred.shape}")
            order = numpy.argpartition(pred.astype("float32"), -self.top_k)
            label = _asnumpy(label).astype("int32")
            check_label_shapes(label, order)
            if order.ndim == 1:
                self.sum_metric += (order.ravel() == label.ravel()).sum()
            else:
                num_classes = order.shape[1]
                for j in range(min(num_classes, self.top_k)):
                    correct = (order[:, num_classes - 1 - j].ravel() == label.ravel()).sum()
                    self.sum_metric += correct
                    self.global_sum_metric += correct
            self.num_inst += order.shape[0]
            self.global_num_inst += order.shape[0]


class _BinaryCounts:
    """True/false positive/negative counts of a binary classifier, local and global."""

    _FIELDS = ("tp", "fp", "fn", "tn")

    def __init__(self):
        self.reset_stats()

    def update(self, label, pred):
        pred = _asnumpy(pred)
        label = _asnumpy(label).astype("int32")
        pred_label = numpy.argmax(pred, axis=1)
        check_label_shapes(label, pred)
        if len(numpy.unique(label)) > 2:
            raise ValueError(f"{type(self).__name__}: only binary classification is "
                             f"supported, got labels {numpy.unique(label).tolist()}")
        pred_true = pred_label == 1
        label_true = label == 1
        counts = {"tp": (pred_true & label_true).sum(), "fp": (pred_true & ~label_true).sum(),
                  "fn": (~pred_true & label_true).sum(), "tn": (~pred_true & ~label_true).sum()}
        for f, v in counts.items():
            self.local[f] += int(v)
            self.glob[f] += int(v)

    def total(self, use_global=False):
        return sum((self.glob if use_global else self.local).values())

    def fscore(self, use_global=False):
        c = self.glob if use_global else self.local
        precision = c["tp"] / (c["tp"] + c["fp"]) if c["tp"] + c["fp"] > 0 else 0.0
        recall = c["tp"] / (c["tp"] + c["fn"]) if c["tp"] + c["fn"] > 0 else 0.0
        if precision + recall > 0:
            return 2 * precision * recall / (precision + recall)
        return 0.0

    def matthewscc(self, use_global=False):
        c = self.glob if use_global else self.local
        if not self.total(use_global):
            return 0.0
        tp, fp, fn, tn = (float(c[f]) for f in self._FIELDS)
        denom = 1.0
        # a zero margin is left out of the product, so an all-one-class batch gives 0, not nan
        for t in (tp + fp, tp + fn, tn + fp, tn + fn):
            if t != 0.0:
                denom *= t
        return (tp * tn - fp * fn) / math.sqrt(denom)

    def local_reset_stats(self):
        self.local = dict.fromkeys(self._FIELDS, 0)

    def reset_stats(self):
        self.local_reset_stats()
        self.glob = dict.fromkeys(self._FIELDS, 0)


class _BinaryMetric(EvalMetric):
    """F1 and MCC: 'macro' averages the per-update score, 'micro' scores all counts."""

    def __init__(self, name, output_names, label_names, average):
        self.average = average
        self._counts = _BinaryCounts()
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    def _score(self, use_global):
        raise NotImplementedError

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            self._counts.update(label, pred)
        c = self._counts
        if self.average == "macro":
            self.sum_metric += self._score(False)
            self.global_sum_metric += self._score(True)
            self.num_inst += 1
            self.global_num_inst += 1
            c.reset_stats()
        else:
            self.sum_metric = self._score(False) * c.total()
            self.global_sum_metric = self._score(True) * c.total(True)
            self.num_inst = c.total()
            self.global_num_inst = c.total(True)

    def reset(self):
        super().reset()
        self._counts.reset_stats()

    def reset_local(self):
        super().reset_local()
        self._counts.local_reset_stats()


class F1(_BinaryMetric):
    """The F1 score of a binary classifier (class 1 positive; predictions are scores over
    the 2 classes).

    Args:
        average: 'macro' (default: the mean of each update's F1) or 'micro' (F1 of all
            counts together).
        name (str): the name ``get()`` reports (default ``'f1'``).
        output_names (list of str): the keys of the predictions `update_dict` reads, in
            order (default None: every prediction).
        label_names (list of str): the keys of the labels `update_dict` reads (default
            None: every label).

    Raises:
        ValueError: more than 2 label values.

    Example::

        y, p = nd.array([0, 1, 1]), nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])
        f1 = mx.metric.F1(average='micro')
        f1.update([y], [p])
        f1.get()   # ('f1', 0.8000000000000002)
    """

    def __init__(self, name="f1", output_names=None, label_names=None, average="macro"):
        super().__init__(name, output_names, label_names, average)

    @property
    def metrics(self):
        """The running binary counts (true/false positives and negatives, local and
        global) the score is computed from, as MXNet's `F1.metrics`.

        Example::

            y, p = nd.array([0, 1, 1]), nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])
            f1 = mx.metric.F1(average='micro')
            f1.update([y], [p])
            f1.metrics.glob['tp'], f1.metrics.glob['fp']   # (2, 1)
        """
        return self._counts

    def _score(self, use_global):
        return self._counts.fscore(use_global)


class MCC(_BinaryMetric):
    """The Matthews correlation coefficient of a binary classifier.

    Args:
        average: 'macro' (default) or 'micro', as for `F1`.
        name (str): the name ``get()`` reports (default ``'mcc'``).
        output_names (list of str): the keys of the predictions `update_dict` reads, in
            order (default None: every prediction).
        label_names (list of str): the keys of the labels `update_dict` reads (default
            None: every label).

    Raises:
        ValueError: more than 2 label values.

    Example::

        mcc = mx.metric.MCC()
        label = nd.array([0, 1, 0, 1])
        mcc.update([label], [nd.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4], [0.7, 0.3]])])
        mcc.get()   # ('mcc', 0.5773502691896258)
    """

    def __init__(self, name="mcc", output_names=None, label_names=None, average="macro"):
        super().__init__(name, output_names, label_names, average)

    def _score(self, use_global):
        return self._counts.matthewscc(use_global)


class Perplexity(EvalMetric):
    """``exp`` of the mean negative log-probability of the labels.

    Args:
        ignore_label: a label value that does not count (or None).
        axis: the class axis of the predictions (default -1).
        name (str): the name ``get()`` reports (default ``'perplexity'``).
        output_names (list of str): the keys of the predictions `update_dict` reads, in
            order (default None: every prediction).
        label_names (list of str): the keys of the labels `update_dict` reads (default
            None: every label).

    Raises:
        ValueError: the label count does not match the predictions.

    Example::

        ppl = mx.metric.Perplexity(ignore_label=None)
        ppl.update([nd.array([1, 0])], [nd.array([[0.5, 0.5], [0.5, 0.5]])])
        ppl.get()   # ('perplexity', 2.0000000038093084)
    """

    def __init__(self, ignore_label, axis=-1, name="perplexity", output_names=None,
                 label_names=None):
        super().__init__(name, ignore_label=ignore_label, output_names=output_names,
                         label_names=label_names, has_global_stats=True)
        self.ignore_label = ignore_label
        self.axis = axis

    def update(self, labels, preds):
        """Add the negative log-probability each prediction gives its label (labels equal to
        `ignore_label` are left out of the sum and the count).

        Args:
            labels: a list of label NDArrays (class indices).
            preds: a list of probability NDArrays, the classes along `axis`.

        Raises:
            ValueError: different numbers of labels and predictions, or a label count that is
                not the predictions' size over their class count.

        Example::

            ppl = mx.metric.Perplexity(ignore_label=None)
            ppl.update([nd.array([1])], [nd.array([[0.75, 0.25]])])
            ppl.get()   # ('perplexity', 4.000000015237235)
        """
        if len(labels) != len(preds):
            raise ValueError(f"Perplexity.update: {len(labels)} labels for {len(preds)} "
                             f"predictions")
        loss, num = 0.0, 0
        for label, pred in zip(labels, preds):
            label, pred = _asnumpy(label), _asnumpy(pred)
            if label.size != pred.size / pred.shape[-1]:
                raise ValueError(f"Perplexity.update: shape mismatch: label {label.shape} vs. "
                                 f"prediction {pred.shape}")
            label = label.reshape(-1)
            classes = numpy.moveaxis(pred, self.axis, -1)
            idx = numpy.clip(label.astype("int32"), 0, classes.shape[-1] - 1)
            picked = classes.reshape(-1, classes.shape[-1])[numpy.arange(label.size), idx]
            if self.ignore_label is not None:
                ignore = (label == self.ignore_label).astype(picked.dtype)
                num -= float(ignore.sum())
                picked = picked * (1 - ignore) + ignore
            logs = numpy.log(numpy.maximum(picked.dtype.type(1e-10), picked))
            loss -= float(logs.sum(dtype=logs.dtype))
            num += picked.size
        self.sum_metric += loss
        self.global_sum_metric += loss
        self.num_inst += num
        self.global_num_inst += num

    def get(self):
        """The local perplexity, ``exp(mean negative log-probability)``.

        Returns:
            ``(name, value)``; the value is nan before any update.

        Example::

            ppl = mx.metric.Perplexity(ignore_label=None)
            ppl.update([nd.array([1])], [nd.array([[0.5, 0.5]])])
            name, value = ppl.get()   # 'perplexity', 2.0000000038093084
        """
        if self.num_inst == 0:
            return self.name, float("nan")
        return self.name, math.exp(self.sum_metric / self.num_inst)

    def get_global(self):
        """The perplexity over every update since the last `reset`.

        Returns:
            ``(name, value)``; the value is nan before any update.

        Example::

            ppl = mx.metric.Perplexity(ignore_label=None)
            ppl.update([nd.array([1])], [nd.array([[0.5, 0.5]])]); ppl.reset_local()
            ppl.get_global()   # ('perplexity', 2.0000000038093084)
        """
        if self.global_num_inst == 0:
            return self.name, float("nan")
        return self.name, math.exp(self.global_sum_metric / self.global_num_inst)


# ---------------------------------------------------------------- regression
def _as_2d(x):
    x = _asnumpy(x)
    return x.reshape(x.shape[0], 1) if x.ndim == 1 else x


class _PerBatchRegression(EvalMetric):
    """A regression error averaged over updates (each label/pred pair counts once)."""

    @staticmethod
    def _error(label, pred):
        raise NotImplementedError

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            err = self._error(_as_2d(label), _as_2d(pred))
            self.sum_metric += err
            self.global_sum_metric += err
            self.num_inst += 1
            self.global_num_inst += 1


class MAE(_PerBatchRegression):
    """Mean absolute error (the mean over updates of each batch's mean).

    Args:
        name (str): the name ``get()`` reports (default ``'mae'``).
        output_names (list of str): the keys of the predictions `update_dict` reads, in
            order (default None: every prediction).
        label_names (list of str): the keys of the labels `update_dict` reads (default
            None: every label).

    Example::

        mae = mx.metric.MAE()
        mae.update([nd.array([1, 2, 3])], [nd.array([1, 2, 5])])
        mae.get()   # ('mae', 0.6666667)
    """

    def __init__(self, name="mae", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    @staticmethod
    def _error(label, pred):
        return numpy.abs(label - pred).mean()


class MSE(_PerBatchRegression):
    """Mean squared error (the mean over updates of each batch's mean).

    Args:
        name (str): the name ``get()`` reports (default ``'mse'``).
        output_names (list of str): the keys of the predictions `update_dict` reads, in
            order (default None: every prediction).
        label_names (list of str): the keys of the labels `update_dict` reads (default
            None: every label).

    Example::

        mse = mx.metric.MSE()
        mse.update([nd.array([1, 2, 3])], [nd.array([1, 2, 5])])
        mse.get()   # ('mse', 1.3333334)
    """

    def __init__(self, name="mse", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    @staticmethod
    def _error(label, pred):
        return ((label - pred) ** 2.0).mean()


class RMSE(_PerBatchRegression):
    """Root mean squared error (the mean over updates of each batch's RMSE).

    Args:
        name (str): the name ``get()`` reports (default ``'rmse'``).
        output_names (list of str): the keys of the predictions `update_dict` reads, in
            order (default None: every prediction).
        label_names (list of str): the keys of the labels `update_dict` reads (default
            None: every label).

    Example::

        rmse = mx.metric.RMSE()
        rmse.update([nd.array([0, 0])], [nd.array([3, 4])])
        rmse.get()   # ('rmse', 3.535534)
    """

    def __init__(self, name="rmse", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    @staticmethod
    def _error(label, pred):
        return numpy.sqrt(((label - pred) ** 2.0).mean())


class _PickedLogLoss(EvalMetric):
    """Mean of ``-log(p[label] + eps)`` over samples."""

    def __init__(self, eps, name, output_names, label_names):
        super().__init__(name, eps=eps, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.eps = eps

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label, pred = _asnumpy(label).ravel(), _asnumpy(pred)
            n = pred.shape[0]
            if label.shape[0] != n:
                raise ValueError(f"{type(self).__name__}.update: {label.shape[0]} labels for "
                                 f"{n} predictions")
            prob = pred[numpy.arange(n, dtype=numpy.int64), numpy.int64(label)]
            loss = (-numpy.log(prob + self.eps)).sum()
            self.sum_metric += loss
            self.global_sum_metric += loss
            self.num_inst += n
            self.global_num_inst += n


@alias("ce")
class CrossEntropy(_PickedLogLoss):
    """Cross entropy of class probabilities against integer labels.

    Args:
        eps: added to each probability before the log (default 1e-12).
        name (str): the name ``get()`` reports (default ``'cross-entropy'``).
        output_names (list of str): the keys of the predictions `update_dict` reads, in
            order (default None: every prediction).
        label_names (list of str): the keys of the labels `update_dict` reads (default
            None: every label).

    Example::

        ce = mx.metric.create('ce')
        ce.update([nd.array([1])], [nd.array([[0.5, 0.5]])])
        ce.get()   # ('cross-entropy', 0.6931...): -log(0.5)
    """

    def __init__(self, eps=1e-12, name="cross-entropy", output_names=None, label_names=None):
        super().__init__(eps, name, output_names, label_names)


@alias("nll_loss")
class NegativeLogLikelihood(_PickedLogLoss):
    """Negative log-likelihood of class probabilities against integer labels.

    Args:
        eps: added to each probability before the log (default 1e-12).
        name (str): the name ``get()`` reports (default ``'nll-loss'``).
        output_names (list of str): the keys of the predictions `update_dict` reads, in
            order (default None: every prediction).
        label_names (list of str): the keys of the labels `update_dict` reads (default
            None: every label).

    Example::

        nll = mx.metric.create('nll_loss')
        nll.update([nd.array([0])], [nd.array([[0.25, 0.75]])])
        nll.get()   # ('nll-loss', 1.3862...): -log(0.25)
    """

    def __init__(self, eps=1e-12, name="nll-loss", output_names=None, label_names=None):
        super().__init__(eps, name, output_names, label_names)


@alias("pearsonr")
class PearsonCorrelation(EvalMetric):
    """Pearson correlation between predictions and labels (flattened).

    Args:
        average: 'macro' (default: the mean of each update's correlation) or 'micro' (the
            correlation of everything seen, kept with running sums).
        name (str): the name ``get()`` reports (default ``'pearsonr'``).
        output_names (list of str): the keys of the predictions `update_dict` reads, in
            order (default None: every prediction).
        label_names (list of str): the keys of the labels `update_dict` reads (default
            None: every label).

    Example::

        r = mx.metric.PearsonCorrelation(average='micro')
        r.update([nd.array([1, 2, 3])], [nd.array([2, 4, 6])])
        r.get()   # ('pearsonr', 1.0)
    """

    def __init__(self, name="pearsonr", output_names=None, label_names=None, average="macro"):
        self.average = average
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    def _reset_micro(self):
        self._count_l = self._mean_l = self._m2_l = 0
        self._count_p = self._mean_p = self._m2_p = 0
        self._cov = 0

    def reset(self):
        """Reset the local and global statistics (and the streaming moments of
        ``average='micro'``).

        Example::

            r = mx.metric.PearsonCorrelation()
            r.update([nd.array([1, 2, 3])], [nd.array([2, 4, 6])])
            r.reset()
            r.get()   # ('pearsonr', nan)
        """
        super().reset()
        if self.average == "micro":
            self._reset_micro()

    @staticmethod
    def _welford(values, count, mean, m2):
        # the streaming (Welford) update keeps the variance exact across batches
        count += len(values)
        delta = values - mean
        mean += numpy.sum(delta / count)
        m2 += numpy.sum(delta * (values - mean))
        return count, mean, m2

    def update(self, labels, preds):
        """Add the correlation of each label/prediction pair (``'macro'``: one coefficient per
        pair, averaged) or fold the pair into streaming moments (``'micro'``: one coefficient of
        all values seen).

        Args:
            labels: a list of label NDArrays.
            preds: a list of prediction NDArrays of the same shapes.

        Raises:
            ValueError: mismatched counts or shapes.

        Example::

            r = mx.metric.PearsonCorrelation()
            r.update([nd.array([1, 2, 3])], [nd.array([3, 2, 1])])
            r.get()   # ('pearsonr', -1.0)
        """
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            check_label_shapes(label, pred, False, True)
            label = _asnumpy(label).ravel().astype(numpy.float64)
            pred = _asnumpy(pred).ravel().astype(numpy.float64)
            self.num_inst += 1
            self.global_num_inst += 1
            if self.average == "macro":
                corr = numpy.corrcoef(pred, label)[0, 1]
                self.sum_metric += corr
                self.global_sum_metric += corr
            else:
                self._count_l, self._mean_l, self._m2_l = self._welford(
                    label, self._count_l, self._mean_l, self._m2_l)
                self._cov = self._cov + numpy.sum((label - self._mean_l) *
                                                  (pred - self._mean_p))
                self._count_p, self._mean_p, self._m2_p = self._welford(
                    pred, self._count_p, self._mean_p, self._m2_p)

    def get(self):
        """The local coefficient.

        Returns:
            ``(name, value)``; the value is nan before any update.

        Example::

            r = mx.metric.PearsonCorrelation()
            r.update([nd.array([1, 2, 3])], [nd.array([1, 2, 4])])
            name, value = r.get()   # 'pearsonr', 0.98...
        """
        if self.num_inst == 0:
            return self.name, float("nan")
        if self.average == "macro":
            return self.name, self.sum_metric / self.num_inst
        n = self._count_l
        return self.name, self._cov / ((n - 1) * numpy.sqrt(self._m2_p / (n - 1)) *
                                       numpy.sqrt(self._m2_l / (n - 1)))


class PCC(EvalMetric):
    """The multiclass Pearson correlation coefficient (MCC generalised to K classes) of a
    confusion matrix grown as new classes appear; predictions are class scores or indices.

    Args:
        name (str): the name ``get()`` reports (default ``'pcc'``).
        output_names (list of str): the keys of the predictions `update_dict` reads, in
            order (default None: every prediction).
        label_names (list of str): the keys of the labels `update_dict` reads (default
            None: every label).
        has_global_stats (bool): keep the global confusion matrix apart from the local
            one, so `reset_local` clears only the local (default True).

    Example::

        pcc = mx.metric.PCC()
        pcc.update([nd.array([0, 1, 2])], [nd.array([0, 1, 2])])
        pcc.get()   # ('pcc', 1.0)
    """

    def __init__(self, name="pcc", output_names=None, label_names=None, has_global_stats=True):
        self.k = 2
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=has_global_stats)

    def _grow(self, inc):
        pad = ((0, inc), (0, inc))
        self.lcm = numpy.pad(self.lcm, pad, "constant", constant_values=0)
        self.gcm = numpy.pad(self.gcm, pad, "constant", constant_values=0)
        self.k += inc

    @staticmethod
    def _calc_mcc(cmat):
        n = cmat.sum()
        x = cmat.sum(axis=1)
        y = cmat.sum(axis=0)
        cov_xx = numpy.sum(x * (n - x))
        cov_yy = numpy.sum(y * (n - y))
        if cov_xx == 0 or cov_yy == 0:
            return float("nan")
        cov_xy = numpy.sum(cmat.diagonal() * n - x * y)
        return cov_xy / (cov_xx * cov_yy) ** 0.5

    def update(self, labels, preds):
        """Add each batch's confusion matrix (growing it when a new class appears) to the local
        and global ones; predictions are class scores (argmax over axis 1) or indices.

        Args:
            labels: a list of label NDArrays (class indices).
            preds: a list of score or index NDArrays.

        Raises:
            ValueError: different numbers of labels and predictions.

        Example::

            pcc = mx.metric.PCC()
            pcc.update([nd.array([0, 1, 2])], [nd.array([0, 2, 2])])
            pcc.k   # 3: the confusion matrix grew to 3 classes
        """
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label = _asnumpy(label).astype("int32")
            pred = _asnumpy(pred)
            pred = pred.argmax(axis=1) if pred.shape != label.shape else pred.astype("int32")
            n = max(pred.max(), label.max())
            if n >= self.k:
                self._grow(int(n) + 1 - self.k)
            bcm = numpy.zeros((self.k, self.k))
            numpy.add.at(bcm, (pred.ravel(), label.ravel()), 1)
            self.lcm += bcm
            self.gcm += bcm
        self.num_inst += 1
        self.global_num_inst += 1

    @property
    def sum_metric(self):
        """The local coefficient times the local sample count, derived from the confusion
        matrix (assigning it does nothing), so that `get()` gives the coefficient.

        Example::

            pcc = mx.metric.PCC()
            pcc.update([nd.array([0, 1, 0, 1])], [nd.array([0, 1, 1, 1])])
            pcc.sum_metric / pcc.num_inst   # 0.5773502691896258
        """
        return self._calc_mcc(self.lcm) * self.num_inst

    @sum_metric.setter
    def sum_metric(self, value):
        pass  # derived from the confusion matrix; EvalMetric.reset assigns it

    @property
    def global_sum_metric(self):
        """`sum_metric` over every update since the last `reset` (the global confusion
        matrix); assigning it does nothing.

        Example::

            pcc = mx.metric.PCC()
            pcc.update([nd.array([0, 1])], [nd.array([0, 1])]); pcc.reset_local()
            pcc.global_sum_metric / pcc.global_num_inst   # 1.0
        """
        return self._calc_mcc(self.gcm) * self.global_num_inst

    @global_sum_metric.setter
    def global_sum_metric(self, value):
        pass

    def reset(self):
        """Reset the local and global confusion matrices and counts.

        Example::

            pcc = mx.metric.PCC()
            pcc.update([nd.array([0, 1])], [nd.array([0, 1])])
            pcc.reset()
            pcc.get_global()   # ('pcc', nan)
        """
        self.global_num_inst = 0.0
        self.gcm = numpy.zeros((self.k, self.k))
        self.reset_local()

    def reset_local(self):
        """Reset the local confusion matrix and count (the global ones keep counting).

        Example::

            pcc = mx.metric.PCC()
            pcc.update([nd.array([0, 1])], [nd.array([0, 1])])
            pcc.reset_local()
            pcc.get(), pcc.get_global()   # (('pcc', nan), ('pcc', 1.0))
        """
        self.num_inst = 0.0
        self.lcm = numpy.zeros((self.k, self.k))


# ---------------------------------------------------------------- losses and custom
class Loss(EvalMetric):
    """The mean of the given loss values (labels are ignored).

    Args:
        name (str): the name ``get()`` reports (default ``'loss'``).
        output_names (list of str): the keys of the predictions `update_dict` reads, in
            order (default None: every prediction).
        label_names (list of str): the keys of the labels `update_dict` reads (default
            None: every label).

    Example::

        m = mx.metric.Loss()
        m.update(None, [nd.array([1.0, 2.0, 3.0])])
        m.get()   # ('loss', 2.0)
    """

    def __init__(self, name="loss", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    def update(self, _, preds):
        """Add the sum and the element count of each loss array (labels are ignored).

        Args:
            _: the labels, ignored.
            preds: a loss NDArray or a list of them.

        Example::

            m = mx.metric.Loss()
            m.update(None, nd.array([2.0, 4.0]))
            m.get()   # ('loss', 3.0)
        """
        if _is_nd(preds) or isinstance(preds, numpy.ndarray):
            preds = [preds]
        for pred in preds:
            arr = _asnumpy(pred)
            loss = arr.sum(dtype=arr.dtype).item()
            self.sum_metric += loss
            self.global_sum_metric += loss
            self.num_inst += arr.size
            self.global_num_inst += arr.size


class Torch(Loss):
    """`Loss` under the name 'torch' (MXNet's alias for Torch-module outputs).

    Args:
        name (str): the name ``get()`` reports (default ``'torch'``).
        output_names (list of str): the keys of the predictions `update_dict` reads, in
            order (default None: every prediction).
        label_names (list of str): the keys of the labels `update_dict` reads (default
            None: every label).

    Example::

        m = mx.metric.Torch()
        m.update(None, [nd.array([1.0, 3.0])])
        m.get()   # ('torch', 2.0)
    """

    def __init__(self, name="torch", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names)


class Caffe(Loss):
    """`Loss` under the name 'caffe' (MXNet's alias for Caffe-module outputs).

    Args:
        name (str): the name ``get()`` reports (default ``'caffe'``).
        output_names (list of str): the keys of the predictions `update_dict` reads, in
            order (default None: every prediction).
        label_names (list of str): the keys of the labels `update_dict` reads (default
            None: every label).

    Example::

        m = mx.metric.Caffe()
        m.update(None, [nd.array([1.0, 3.0])])
        m.get()   # ('caffe', 2.0)
    """

    def __init__(self, name="caffe", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names)


class CustomMetric(EvalMetric):
    """A metric from a function ``feval(label, pred)`` on numpy arrays, returning a value
    (averaged over updates) or ``(sum, count)``.

    Args:
        feval: the function.
        name: the name (default: the function's, ``custom(<lambda>)`` for a lambda).
        allow_extra_outputs: allow more predictions than labels.
        output_names (list of str): the keys of the predictions `update_dict` reads
            (default None: all).
        label_names (list of str): the keys of the labels `update_dict` reads (default
            None: all).

    Raises:
        NotImplementedError: from ``get_config`` (a function cannot be serialized).

    Example::

        m = mx.metric.CustomMetric(lambda l, p: np.abs(l - p).mean(), name='l1')
        m.update([nd.array([1, 2])], [nd.array([2, 2])])
        m.get()   # ('l1', 0.5)
    """

    def __init__(self, feval, name=None, allow_extra_outputs=False, output_names=None,
                 label_names=None):
        if name is None:
            name = feval.__name__
            if "<" in name:
                name = f"custom({name})"
        super().__init__(name, feval=feval, allow_extra_outputs=allow_extra_outputs,
                         output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self._feval = feval
        self._allow_extra_outputs = allow_extra_outputs

    def update(self, labels, preds):
        """Add what `feval` returns for each label/prediction pair: a value (counted once) or
        ``(sum, count)``.

        Args:
            labels: a list of label NDArrays (handed to `feval` as numpy arrays).
            preds: a list of prediction NDArrays.

        Raises:
            ValueError: different numbers of labels and predictions, unless
                `allow_extra_outputs`.

        Example::

            m = mx.metric.CustomMetric(lambda l, p: ((l == p).sum(), l.size), name='hits')
            m.update([nd.array([1, 2])], [nd.array([1, 3])])
            m.get()   # ('hits', 0.5): (sum, count) returned
        """
        if not self._allow_extra_outputs:
            labels, preds = check_label_shapes(labels, preds, True)
        for pred, label in zip(preds, labels):
            reval = self._feval(_asnumpy(label), _asnumpy(pred))
            if isinstance(reval, tuple):
                total, count = reval
            else:
                total, count = reval, 1
            self.sum_metric += total
            self.global_sum_metric += total
            self.num_inst += count
            self.global_num_inst += count

    def get_config(self):
        """Refused: the metric holds a function, which a configuration cannot carry.

        Raises:
            NotImplementedError: always.

        Example::

            m = mx.metric.CustomMetric(lambda l, p: 0.0)
            try:
                m.get_config()
            except NotImplementedError:
                print('cannot be serialized')
        """
        raise NotImplementedError("CustomMetric cannot be serialized (it holds a function)")


def np(numpy_feval, name=None, allow_extra_outputs=False):
    """A `CustomMetric` from a numpy function ``feval(label, pred)``.

    Args:
        numpy_feval (callable): ``feval(label, pred) -> float`` on one output's numpy
            label and prediction arrays; or a ``(sum, count)`` pair.
        name (str): the metric's name (default None: `numpy_feval`'s ``__name__``).
        allow_extra_outputs (bool): allow more predictions than labels (default False:
            the counts must match).

    Returns:
        CustomMetric: the metric wrapping `numpy_feval`.

    Example::

        m = mx.metric.np(lambda l, p: ((l - p) ** 2).mean(), name='my_mse')
        m.update([nd.array([1, 2])], [nd.array([1, 4])])
        m.get()   # ('my_mse', 2.0)
    """
    def feval(label, pred):
        return numpy_feval(label, pred)
    feval.__name__ = numpy_feval.__name__
    return CustomMetric(feval, name, allow_extra_outputs)


for _cls in (CompositeEvalMetric, Accuracy, TopKAccuracy, F1, MCC, Perplexity, MAE, MSE, RMSE,
             CrossEntropy, NegativeLogLikelihood, PearsonCorrelation, PCC, Loss, Torch, Caffe,
             CustomMetric):
    register(_cls)
del _cls
