"""Argument checks the estimator and its event handlers share."""
from ....metric import Accuracy, CompositeEvalMetric, EvalMetric
from ...loss import SoftmaxCrossEntropyLoss


def _check_metrics(metrics, where="metrics"):
    """`metrics` (None, an EvalMetric, a CompositeEvalMetric or a list of EvalMetric) as a
    flat list of EvalMetric; a CompositeEvalMetric is opened into its members.

    Raises:
        ValueError: anything else; the message names `where`.
    """
    if isinstance(metrics, CompositeEvalMetric):
        return [m for member in metrics.metrics for m in _check_metrics(member, where)]
    if isinstance(metrics, EvalMetric):
        return [metrics]
    if metrics is None:
        return []
    if isinstance(metrics, (list, tuple)) and all(isinstance(m, EvalMetric) for m in metrics):
        return list(metrics)
    raise ValueError(f"{where} must be an EvalMetric or a list of EvalMetric "
                     f"(see gluonlite.metric), got {metrics!r}")


def _metric_refs(handler):
    """The metrics a handler holds in an attribute named like `metric*` or `monitor*`."""
    refs = []
    for name, value in vars(handler).items():
        if "metric" not in name and "monitor" not in name:
            continue
        for v in value if isinstance(value, (list, tuple)) else [value]:
            if isinstance(v, EvalMetric):
                refs.append(v)
    return refs


def _check_handler_metric_ref(handler, known_metrics):
    """Raise ValueError when `handler` refers to a metric the estimator does not update: its
    value would never change (MXNet checks this when user handlers mix with default ones)."""
    for metric in _metric_refs(handler):
        if not any(metric is k for k in known_metrics):
            raise ValueError(
                f"Estimator: event handler {type(handler).__name__} refers to metric "
                f"{metric.name!r}, which is none of the estimator's training or validation "
                f"metrics; pass metrics from estimator.train_metrics or estimator.val_metrics")


def _suggest_metric_for_loss(loss):
    """The metric worth adding for `loss` when the user gave none (Accuracy for softmax
    cross-entropy, else None)."""
    if isinstance(loss, SoftmaxCrossEntropyLoss):
        return Accuracy()
    return None
