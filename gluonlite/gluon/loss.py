"""Losses (MXNet 1.x formulas). Each returns one value per sample: the mean over every axis
but `batch_axis`, after an optional scalar `weight` and per-sample `sample_weight`.

Labels are reshaped to the prediction's shape with `reshape_like` (as MXNet's losses do), so
a label that differs from the prediction only by a reshape, e.g. (N,) against (N, 1), works
imperatively and hybridized alike."""
import numbers

from .block import HybridBlock
from .. import ndarray as _nd
from ..initializer import is_np_array  # noqa: F401  (MXNet's module exports it)

import numpy as np

__all__ = ["Loss", "L2Loss", "L1Loss", "SoftmaxCrossEntropyLoss", "SoftmaxCELoss",
           "SigmoidBinaryCrossEntropyLoss", "SigmoidBCELoss", "KLDivLoss", "CTCLoss",
           "HuberLoss", "HingeLoss", "SquaredHingeLoss", "LogisticLoss", "TripletLoss",
           "PoissonNLLLoss", "CosineEmbeddingLoss", "SDMLLoss"]


def _apply_weighting(F, loss, weight=None, sample_weight=None):
    if sample_weight is not None:
        loss = F.broadcast_mul(loss, sample_weight)
    if weight is not None:
        if not isinstance(weight, numbers.Number):
            raise TypeError(f"loss weight must be a number, got {type(weight).__name__}")
        loss = loss * weight
    return loss


def _reshape_like(F, x, y):
    """`x` reshaped to `y`'s shape, in the namespace `F` (nd or sym) of a `hybrid_forward`.

    MXNet's losses (and GluonCV's, which import it) use it to bring a label to the
    prediction's shape.

    Args:
        F: ``mx.nd`` or ``mx.sym``.
        x: the array (or symbol) to reshape.
        y: the one whose shape `x` takes.

    Returns:
        `x` with `y`'s shape.

    Raises:
        MXNetError: the sizes of `x` and `y` differ.

    Example::

        from gluonlite.gluon.loss import _reshape_like
        label, pred = nd.array([1, 2]), nd.zeros((2, 1))
        _reshape_like(mx.nd, label, pred).shape   # (2, 1)
    """
    return F.reshape_like(x, y)


class Loss(HybridBlock):
    """Base class of losses.

    Args:
        weight: a scalar multiplying the loss (None: 1).
        batch_axis: the axis that indexes samples (kept in the output).

    Example::

        class AbsLoss(gluon.loss.Loss):
            def __init__(self, weight=None, batch_axis=0, **kw):
                super().__init__(weight, batch_axis, **kw)
            def hybrid_forward(self, F, pred, label):
                return F.mean(F.abs(pred - label), axis=self._batch_axis, exclude=True)
        AbsLoss()(nd.array([[1, 2]]), nd.array([[0, 0]])).asnumpy()   # [1.5]
    """

    def __init__(self, weight, batch_axis, **kwargs):
        super().__init__(**kwargs)
        self._weight = weight
        self._batch_axis = batch_axis

    def __repr__(self):
        return f"{self.__class__.__name__}(batch_axis={self._batch_axis}, w={self._weight})"


class L2Loss(Loss):
    """``0.5 * weight * (label - pred)**2``, averaged per sample.

    Args:
        weight: a scalar multiplying the loss (default 1.0).
        batch_axis: the axis that indexes samples (default 0), kept in the output.

    Inputs:
        - **pred**: the predictions, (N, ...) with samples on `batch_axis`.
        - **label**: the targets, the same shape as `pred` (or a reshape of it).
        - **sample_weight**: optional per-sample weights, broadcast against the loss
          (e.g. (N, 1)); default None.

    Outputs:
        - **loss**: one value per sample, shape (N,).

    Example::

        loss_fn = gluon.loss.L2Loss()
        pred, label = nd.array([[1, 2], [3, 4]]), nd.array([[1, 0], [3, 2]])
        loss_fn(pred, label).asnumpy()   # [1. 1.]: one value per sample
    """

    def __init__(self, weight=1.0, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = F.reshape_like(label, pred)
        loss = F.square(label - pred)
        loss = _apply_weighting(F, loss, self._weight / 2, sample_weight)
        return F.mean(loss, axis=self._batch_axis, exclude=True)


class L1Loss(Loss):
    """``weight * |label - pred|``, averaged per sample.

    Args:
        weight: a scalar multiplying the loss (default None: no scaling).
        batch_axis: the axis that indexes samples (default 0), kept in the output.

    Inputs:
        - **pred**: the predictions, (N, ...) with samples on `batch_axis`.
        - **label**: the targets, the same shape as `pred` (or a reshape of it).
        - **sample_weight**: optional per-sample weights, broadcast against the loss
          (e.g. (N, 1)); default None.

    Outputs:
        - **loss**: one value per sample, shape (N,).

    Example::

        loss_fn = gluon.loss.L1Loss()
        loss_fn(nd.array([[1, 2], [3, 4]]), nd.array([[0, 0], [3, 4]])).asnumpy()   # [1.5 0. ]
    """

    def __init__(self, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = F.reshape_like(label, pred)
        loss = F.abs(label - pred)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss, axis=self._batch_axis, exclude=True)


class SigmoidBinaryCrossEntropyLoss(Loss):
    """Binary cross-entropy on logits (``from_sigmoid=False``, computed stably as
    ``relu(x) - x*z + softrelu(-|x|)``) or on probabilities.

    Args:
        from_sigmoid: whether `pred` already went through a sigmoid (default False: `pred`
            holds logits).
        weight: a scalar multiplying the loss (default None: no scaling).
        batch_axis: the axis that indexes samples (default 0), kept in the output.

    Inputs:
        - **pred**: logits (or probabilities with from_sigmoid), (N, ...).
        - **label**: targets in [0, 1], the same shape as `pred` (or a reshape of it).
        - **sample_weight**: optional per-sample weights, broadcast against the loss
          (e.g. (N, 1)); default None.
        - **pos_weight**: optional weight of the positive class, broadcast against
          `label` (default None: 1).

    Outputs:
        - **loss**: one value per sample, shape (N,).

    Example::

        loss_fn = gluon.loss.SigmoidBinaryCrossEntropyLoss()   # alias SigmoidBCELoss
        loss = loss_fn(nd.array([[0.0], [0.0]]), nd.array([[1], [0]]))
        loss.asnumpy().round(4)   # [0.6931 0.6931]: log(2) for a logit of 0
    """

    def __init__(self, from_sigmoid=False, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_sigmoid = from_sigmoid

    def hybrid_forward(self, F, pred, label, sample_weight=None, pos_weight=None):
        label = F.reshape_like(label, pred)
        if not self._from_sigmoid:
            if pos_weight is None:
                loss = F.relu(pred) - pred * label + \
                    F.Activation(-F.abs(pred), act_type="softrelu")
            else:
                log_weight = 1 + F.broadcast_mul(pos_weight - 1, label)
                loss = pred - pred * label + log_weight * (
                    F.Activation(-F.abs(pred), act_type="softrelu") + F.relu(-pred))
        else:
            eps = 1e-12
            if pos_weight is None:
                loss = -(F.log(pred + eps) * label + F.log(1. - pred + eps) * (1. - label))
            else:
                loss = -(F.broadcast_mul(F.log(pred + eps) * label, pos_weight)
                         + F.log(1. - pred + eps) * (1. - label))
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss, axis=self._batch_axis, exclude=True)


SigmoidBCELoss = SigmoidBinaryCrossEntropyLoss


class SoftmaxCrossEntropyLoss(Loss):
    """Cross-entropy of softmax(pred) against labels: ``-log_softmax(pred)[label]`` for
    sparse (index) labels, ``-sum(label * log_softmax(pred))`` for dense ones.

    Args:
        axis: the class axis (default -1).
        sparse_label: labels are class indices (default True); False: labels are
            distributions of `pred`'s shape.
        from_logits: `pred` is already a log-softmax (default False).
        weight: a scalar multiplying the loss (default None: no scaling).
        batch_axis: the axis that indexes samples (default 0), kept in the output.

    Inputs:
        - **pred**: the scores, e.g. (N, C) with the classes on `axis`.
        - **label**: class indices, e.g. (N,), or with sparse_label=False a distribution
          of `pred`'s shape.
        - **sample_weight**: optional per-sample weights, broadcast against the loss
          (e.g. (N, 1)); default None.

    Outputs:
        - **loss**: one value per sample, shape (N,).

    Example::

        loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()   # alias SoftmaxCELoss
        pred = nd.array([[0.0, 0.0], [10.0, 0.0]])   # logits
        loss_fn(pred, nd.array([0, 0])).asnumpy().round(4)   # [0.6931 0.    ]
    """

    def __init__(self, axis=-1, sparse_label=True, from_logits=False, weight=None,
                 batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._axis = axis
        self._sparse_label = sparse_label
        self._from_logits = from_logits

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = F.log_softmax(pred, axis=self._axis)
        if self._sparse_label:
            loss = -F.pick(pred, label, axis=self._axis, keepdims=True)
        else:
            label = F.reshape_like(label, pred)
            loss = -F.sum(pred * label, axis=self._axis, keepdims=True)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss, axis=self._batch_axis, exclude=True)


SoftmaxCELoss = SoftmaxCrossEntropyLoss


class KLDivLoss(Loss):
    """Kullback-Leibler divergence ``label * (log(label) - pred)``, summed per sample
    (MXNet sums, not averages, over the non-batch axes).

    Args:
        from_logits: `pred` is already a log-softmax (default True); else a log_softmax
            along `axis` is taken first.
        axis: the class axis for that log_softmax (default -1).
        weight: a scalar multiplying the loss (default None: no scaling).
        batch_axis: the axis that indexes samples (default 0), kept in the output.

    Inputs:
        - **pred**: log-probabilities (or scores without from_logits), (N, ...).
        - **label**: the target probabilities, the same shape as `pred`.
        - **sample_weight**: optional per-sample weights, broadcast against the loss
          (e.g. (N, 1)); default None.

    Outputs:
        - **loss**: one value per sample (summed), shape (N,).

    Example::

        loss_fn = gluon.loss.KLDivLoss()   # pred is a log-probability
        label = nd.array([[0.5, 0.5]])
        loss_fn(nd.log(label), label).asnumpy()   # [0.]
    """

    def __init__(self, from_logits=True, axis=-1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._axis = axis

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = F.log_softmax(pred, axis=self._axis)
        loss = label * (F.log(label + 1e-12) - pred)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.sum(loss, axis=self._batch_axis, exclude=True)


class CTCLoss(Loss):
    """Connectionist temporal classification loss (the ``CTCLoss`` operator with the blank
    as the last class; labels are padded with -1).

    Args:
        layout: 'NTC' or 'TNC', the layout of `pred` (unnormalised scores).
        label_layout: 'NT' or 'TN'.
        weight: a scalar weight.

    Inputs: ``pred``, ``label``, optional ``pred_lengths`` and ``label_lengths`` (N,),
    ``sample_weight``. Output: (N,) losses.

    Raises:
        ValueError: an unknown layout.

    Example::

        loss_fn = gluon.loss.CTCLoss()   # pred (N, T, C), the blank is class C - 1
        label = nd.array([[1, 0, -1], [2, 1, 2]])   # -1 pads
        loss_fn(nd.ones((2, 20, 4)), label).shape   # (2,)
    """

    def __init__(self, layout="NTC", label_layout="NT", weight=None, **kwargs):
        if layout not in ("NTC", "TNC"):
            raise ValueError(f"CTCLoss: layout must be 'NTC' or 'TNC', got {layout!r}")
        if label_layout not in ("NT", "TN"):
            raise ValueError(f"CTCLoss: label_layout must be 'NT' or 'TN', got "
                             f"{label_layout!r}")
        self._layout = layout
        self._label_layout = label_layout
        super().__init__(weight, label_layout.find("N"), **kwargs)

    def hybrid_forward(self, F, pred, label, pred_lengths=None, label_lengths=None,
                       sample_weight=None):
        if self._layout == "NTC":
            pred = F.swapaxes(pred, 0, 1)
        if self._batch_axis == 1:
            label = F.swapaxes(label, 0, 1)
        loss = F.CTCLoss(pred, label, pred_lengths, label_lengths,
                         use_data_lengths=pred_lengths is not None,
                         use_label_lengths=label_lengths is not None, blank_label="last")
        return _apply_weighting(F, loss, self._weight, sample_weight)


class HuberLoss(Loss):
    """Smoothed L1: ``0.5 / rho * d**2`` where ``d = |label - pred| <= rho``, else
    ``d - 0.5 * rho``; averaged per sample.

    Args:
        rho: the threshold between the quadratic and linear parts (default 1).
        weight: a scalar multiplying the loss (default None: no scaling).
        batch_axis: the axis that indexes samples (default 0), kept in the output.

    Inputs:
        - **pred**: the predictions, (N, ...) with samples on `batch_axis`.
        - **label**: the targets, the same shape as `pred` (or a reshape of it).
        - **sample_weight**: optional per-sample weights, broadcast against the loss
          (e.g. (N, 1)); default None.

    Outputs:
        - **loss**: one value per sample, shape (N,).

    Example::

        loss_fn = gluon.loss.HuberLoss(rho=1)
        loss_fn(nd.array([[0.5], [3.0]]), nd.zeros((2, 1))).asnumpy()   # [0.125 2.5  ]
    """

    def __init__(self, rho=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._rho = rho

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = F.reshape_like(label, pred)
        loss = F.abs(label - pred)
        loss = F.where(loss > self._rho, loss - 0.5 * self._rho,
                       (0.5 / self._rho) * F.square(loss))
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss, axis=self._batch_axis, exclude=True)


class HingeLoss(Loss):
    """``max(0, margin - pred * label)`` for labels in {-1, 1}, averaged per sample.

    Args:
        margin: the margin a correct prediction must exceed (default 1).
        weight: a scalar multiplying the loss (default None: no scaling).
        batch_axis: the axis that indexes samples (default 0), kept in the output.

    Inputs:
        - **pred**: the predictions, (N, ...) with samples on `batch_axis`.
        - **label**: the targets in {-1, 1}, the same shape as `pred` (or a reshape of it).
        - **sample_weight**: optional per-sample weights, broadcast against the loss
          (e.g. (N, 1)); default None.

    Outputs:
        - **loss**: one value per sample, shape (N,).

    Example::

        loss_fn = gluon.loss.HingeLoss()
        loss_fn(nd.array([[2.0], [0.5]]), nd.array([[1], [1]])).asnumpy()   # [0.  0.5]
    """

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = F.reshape_like(label, pred)
        loss = F.relu(self._margin - pred * label)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss, axis=self._batch_axis, exclude=True)


class SquaredHingeLoss(Loss):
    """``max(0, margin - pred * label) ** 2`` for labels in {-1, 1}, averaged per sample.

    Args:
        margin: the margin a correct prediction must exceed (default 1).
        weight: a scalar multiplying the loss (default None: no scaling).
        batch_axis: the axis that indexes samples (default 0), kept in the output.

    Inputs:
        - **pred**: the predictions, (N, ...) with samples on `batch_axis`.
        - **label**: the targets in {-1, 1}, the same shape as `pred` (or a reshape of it).
        - **sample_weight**: optional per-sample weights, broadcast against the loss
          (e.g. (N, 1)); default None.

    Outputs:
        - **loss**: one value per sample, shape (N,).

    Example::

        loss_fn = gluon.loss.SquaredHingeLoss()
        loss_fn(nd.array([[2.0], [0.5]]), nd.array([[1], [1]])).asnumpy()   # [0.   0.25]
    """

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = F.reshape_like(label, pred)
        loss = F.square(F.relu(self._margin - pred * label))
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss, axis=self._batch_axis, exclude=True)


class LogisticLoss(Loss):
    """``log(1 + exp(-pred * label))`` (computed stably) for labels in {-1, 1}
    (``label_format='signed'``) or {0, 1} (``'binary'``), averaged per sample.

    Args:
        weight: a scalar multiplying the loss (default None: no scaling).
        batch_axis: the axis that indexes samples (default 0), kept in the output.
        label_format: 'signed' (labels in {-1, 1}; default) or 'binary' (labels in
            {0, 1}).

    Inputs:
        - **pred**: the predictions, (N, ...) with samples on `batch_axis`.
        - **label**: the labels (see label_format), the same shape as `pred` (or a reshape of it).
        - **sample_weight**: optional per-sample weights, broadcast against the loss
          (e.g. (N, 1)); default None.

    Outputs:
        - **loss**: one value per sample, shape (N,).

    Raises:
        ValueError: an unknown label_format.

    Example::

        loss_fn = gluon.loss.LogisticLoss(label_format='binary')
        loss_fn(nd.array([[0.0]]), nd.array([[1]])).asnumpy().round(4)   # [0.6931]
    """

    def __init__(self, weight=None, batch_axis=0, label_format="signed", **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        if label_format not in ("signed", "binary"):
            raise ValueError(f"LogisticLoss: label_format must be 'signed' or 'binary', got "
                             f"{label_format!r}")
        self._label_format = label_format

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = F.reshape_like(label, pred)
        if self._label_format == "signed":
            label = (label + 1.0) / 2.0
        loss = F.relu(pred) - pred * label + F.Activation(-F.abs(pred), act_type="softrelu")
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss, axis=self._batch_axis, exclude=True)


class TripletLoss(Loss):
    """``max(0, |pred - positive|^2 - |pred - negative|^2 + margin)`` per sample (squared
    distances summed over the non-batch axes).

    Args:
        margin: the gap the negative must be farther than the positive (default 1).
        weight: a scalar multiplying the loss (default None: no scaling).
        batch_axis: the axis that indexes samples (default 0), kept in the output.

    Inputs:
        - **pred**: the anchors, (N, ...).
        - **positive**: the positive samples, the same shape.
        - **negative**: the negative samples, the same shape.

    Outputs:
        - **loss**: one value per sample, shape (N,).

    Example::

        loss_fn = gluon.loss.TripletLoss(margin=1)
        anchor, pos, neg = nd.array([[0, 0]]), nd.array([[0, 1]]), nd.array([[3, 0]])
        loss_fn(anchor, pos, neg).asnumpy()   # [0.]: max(0, 1 - 9 + 1)
    """

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, positive, negative):
        positive = F.reshape_like(positive, pred)
        negative = F.reshape_like(negative, pred)
        loss = F.sum(F.square(positive - pred) - F.square(negative - pred),
                     axis=self._batch_axis, exclude=True)
        loss = F.relu(loss + self._margin)
        return _apply_weighting(F, loss, self._weight, None)


class PoissonNLLLoss(Loss):
    """Poisson negative log-likelihood: ``exp(pred) - target * pred`` (``from_logits``) or
    ``pred - target * log(pred + epsilon)``, plus Stirling's term with `compute_full`; the
    mean over every element (a (1,) array, as MXNet).

    Args:
        weight: a scalar multiplying the loss (default None: no scaling).
        from_logits: `pred` is the log of the rate (default True); False: the rate itself.
        batch_axis: accepted and stored (default 0); the loss is a mean over every axis,
            so it has no effect.
        compute_full: add Stirling's approximation of ``log(target!)`` (default False).

    Inputs:
        - **pred**: the predicted (log) rates.
        - **target**: the observed counts, the same shape (or a reshape of it).
        - **sample_weight**: optional per-sample weights, broadcast against the loss
          (e.g. (N, 1)); default None.
        - **epsilon**: added to `pred` before its log when not from_logits
          (default 1e-08).

    Outputs:
        - **loss**: the mean, shape (1,).

    Example::

        loss_fn = gluon.loss.PoissonNLLLoss()   # pred is log(rate)
        loss_fn(nd.zeros((2, 1)), nd.ones((2, 1))).asnumpy()   # [1.]: exp(0) - 1 * 0
    """

    def __init__(self, weight=None, from_logits=True, batch_axis=0, compute_full=False,
                 **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._compute_full = compute_full

    def hybrid_forward(self, F, pred, target, sample_weight=None, epsilon=1e-08):
        target = F.reshape_like(target, pred)
        if self._from_logits:
            loss = F.exp(pred) - target * pred
        else:
            loss = pred - target * F.log(pred + epsilon)
        if self._compute_full:
            stirling = target * F.log(target) - target + 0.5 * F.log(2 * target * np.pi)
            loss = loss + stirling * (target > 1)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss)


class CosineEmbeddingLoss(Loss):
    """``1 - cos(input1, input2)`` for label 1, ``max(0, cos - margin)`` for label -1; one
    value per sample, shape (N, 1) as MXNet.

    Args:
        weight: a scalar multiplying the loss (default None: no scaling).
        batch_axis: stored (default 0); the vectors are always on the last axis, one
            result per row.
        margin: the cosine a dissimilar pair (label -1) may reach unpenalized (default 0).

    Inputs:
        - **input1**: (N, D) vectors.
        - **input2**: (N, D) vectors.
        - **label**: (N,) 1 for similar pairs, -1 for dissimilar ones.
        - **sample_weight**: optional per-sample weights, broadcast against the loss
          (e.g. (N, 1)); default None.

    Outputs:
        - **loss**: shape (N, 1).

    Example::

        loss_fn = gluon.loss.CosineEmbeddingLoss()
        a, b = nd.array([[1, 0], [1, 0]]), nd.array([[1, 0], [0, 1]])
        loss_fn(a, b, nd.array([1, 1])).asnumpy().ravel()   # [0. 1.]
    """

    def __init__(self, weight=None, batch_axis=0, margin=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, input1, input2, label, sample_weight=None):
        input1 = F.reshape_like(input1, input2)
        label = label.reshape((-1, 1))
        x_norm = F.norm(input1, axis=-1).reshape((-1, 1))
        y_norm = F.norm(input2, axis=-1).reshape((-1, 1))
        dot = F.sum(input1 * input2, axis=-1).reshape((-1, 1))
        cos = dot / F.maximum(x_norm * y_norm, 1e-12)
        a = (1 - cos) * (label == 1)
        b = F.relu((label == -1) * (cos - self._margin))
        loss = a + b
        return _apply_weighting(F, loss, self._weight, sample_weight)


class SDMLLoss(Loss):
    """Batchwise smoothed deep metric learning loss (Bonadiman et al. 2019): the KL
    divergence between softmax(-squared distances of every x1[i] to every x2[j]) and
    the identity smoothed by `smoothing_parameter`; x1[i] and x2[i] are the positive pairs.
    Imperative only (it reads the batch size), as in MXNet.

    Args:
        smoothing_parameter: the probability mass spread over the non-matching pairs
            (default 0.3).
        weight: stored as `Loss` stores it (default 1.); as in MXNet, the result is not
            multiplied by it.
        batch_axis: stored (default 0); samples are always on axis 0 of `x1` and `x2`.

    Inputs:
        - **x1**: (N, D) embeddings.
        - **x2**: (N, D) embeddings, x2[i] the positive of x1[i].

    Outputs:
        - **loss**: one value per sample, shape (N,).

    Raises:
        NotImplementedError: hybridized (called with symbols).
        ValueError: x1 and x2 not of one (N, D) shape.

    Example::

        loss_fn = gluon.loss.SDMLLoss()
        x1, x2 = nd.random.normal(shape=(4, 8)), nd.random.normal(shape=(4, 8))
        loss_fn(x1, x2).shape   # (4,)
    """

    def __init__(self, smoothing_parameter=0.3, weight=1., batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self.kl_loss = KLDivLoss(from_logits=True)
        self.smoothing_parameter = smoothing_parameter

    def _compute_labels(self, F, batch_size):
        gold = np.eye(batch_size)
        s = self.smoothing_parameter
        return gold * (1 - s) + (1 - gold) * s / (batch_size - 1)

    def hybrid_forward(self, F, x1, x2):
        if F is not _nd:
            raise NotImplementedError("SDMLLoss: needs the batch size, so it runs imperatively "
                                      "only (as in MXNet); do not hybridize it")
        if x1.shape != x2.shape or len(x1.shape) != 2:
            raise ValueError(f"SDMLLoss: x1 and x2 must share one (batch, dim) shape, got "
                             f"{x1.shape} and {x2.shape}")
        n, d = x1.shape
        a = x1.expand_dims(1).broadcast_to((n, n, d))
        b = x2.expand_dims(0).broadcast_to((n, n, d))
        dist = F.sum(F.square(a - b), axis=2)
        logp = F.log_softmax(-dist, axis=1)
        labels = _nd.array(self._compute_labels(F, n), ctx=dist.context, dtype=dist.dtype)
        return self.kl_loss(logp, labels)
