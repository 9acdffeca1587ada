"""Loss operators: the output layers of MXNet's symbolic API (SoftmaxOutput, the regression
outputs, SVMOutput, MakeLoss, make_loss) and softmax_cross_entropy.

An output layer's forward is its prediction (the softmax, the data itself, the sigmoid) and
its gradient is the loss's gradient with respect to data, whatever gradient reaches the
output (MXNet's rule: the head gradient is ignored, except by SoftmaxOutput with
``out_grad=True``), and even when none does: a backward runs it wherever a head depends on
the output, BlockGrad between them included (the registry's ``loss_output``; Sockeye's
cross-entropy reads its value through ``BlockGrad(SoftmaxOutput(...))``). Labels never take a
gradient.
"""
import numpy as np

from . import attrs as A
from . import libm32, onednn_softmax
from .registry import ShapeError, register
from .rules import fmt_shapes
from .sparse.elementwise import IDENTITY

_NORMALIZATION = ("batch", "null", "valid")


# ---- SoftmaxOutput ----
def _softmax_2d(p, shape):
    """The (rows, classes) view SoftmaxOutput works on (multi_output: see `_so_3d`)."""
    if p.preserve_shape:
        return (int(np.prod(shape[:-1])), shape[-1])
    return (shape[0], int(np.prod(shape[1:])))


def _so_3d(shape):
    return (shape[0], shape[1], int(np.prod(shape[2:])))


def _so_label_shape(p, d):
    if p.multi_output:
        return (d[0],) + tuple(d[2:])
    if p.preserve_shape:
        return tuple(d[:-1])
    return (d[0],)


def _so_shape(p, ins):
    d, lab = ins
    if d is None:
        return ins, [None]
    d = tuple(d)
    want = _so_label_shape(p, d)
    if lab is None:
        ins[1] = want
    elif tuple(lab) != d and int(np.prod(lab)) != int(np.prod(want)):
        raise ShapeError(f"SoftmaxOutput: label must have shape {want} (or data's shape {d} "
                         f"for probabilities), got {tuple(lab)}")
    return ins, [d]


def _exp_sums(xp, x, axis):
    """(exp(x - its maximum along axis), their sums along it) in MXNet's CPU arithmetic,
    mshadow's softmax's and softmax_cross_entropy's: the C library's exp of each shifted
    entry in the data's type (`libm32.like_mxnet`), each sum added in order in that type (a
    cumulative sum's last entry), as their loops add it."""
    e = libm32.like_mxnet("exp", xp, x - x.max(axis=axis, keepdims=True))
    return e, xp.cumsum(e, axis=axis, dtype=e.dtype).take([-1], axis=axis)


def _softmax(xp, x, axis):
    """mshadow's softmax, SoftmaxOutput's kernel in training (and with multi_output): the
    exponentials over their row's sum (`_exp_sums`)."""
    e, total = _exp_sums(xp, x, axis)
    return e / total


def _onednn_softmax_output(p, rc, x):
    """Whether this SoftmaxOutput takes oneDNN's softmax, as MXNet's CPU build runs it:
    float32, in inference, not multi_output, where its softmax is over data's last axis
    (oneDNN takes the last axis whatever the shape), and not over `EXACT_ENTRIES`
    (`onednn_softmax.applies`)."""
    return (onednn_softmax.applies(x.size) and rc.xp is np and x.dtype == np.float32
            and not rc.is_train and not p.multi_output
            and (x.ndim == 2 or (p.preserve_shape and x.ndim == 4)))


def _so_target(p, xp, out, label, axis):
    """One-hot (or smoothed) targets shaped as `out`, classes along `axis`; ignored rows get
    their own output as target (a zero gradient)."""
    k = out.shape[axis]
    lab = label.astype(np.int64)
    classes = xp.arange(k).reshape((1, k) + (1,) * (out.ndim - 2))
    hot = (xp.expand_dims(lab, axis) == classes)
    if p.smooth_alpha:
        t = xp.where(hot, 1 - p.smooth_alpha, p.smooth_alpha / (k - 1)).astype(out.dtype)
    else:
        t = hot.astype(out.dtype)
    if p.use_ignore:
        ignored = xp.expand_dims(lab == int(p.ignore_label), axis)
        t = xp.where(ignored, out, t)
    return t


def _valid_count(p, label):
    """How many labels are not `ignore_label` (at least 1): the 'valid' normalisation."""
    return max((label.astype(np.int64) != int(p.ignore_label)).sum().item(), 1)


def _so_vjp(p, rc, xs, ys, gys, need):
    x, label = xs
    out, xp = ys[0], rc.xp
    g_head = gys[0]
    if tuple(label.shape) == tuple(x.shape):
        g = (out - label) * p.grad_scale
        return (g * g_head if p.out_grad else g).astype(x.dtype), None
    if p.multi_output:
        s3 = _so_3d(x.shape)
        o, lab = out.reshape(s3), label.reshape(s3[0], s3[2])
        g = o - _so_target(p, xp, o, lab, 1)
        if p.normalization == "valid":
            scale = p.grad_scale / _valid_count(p, lab)
        else:
            scale = p.grad_scale / s3[2] / (s3[0] if p.normalization == "batch" else 1)
    else:
        s2 = _softmax_2d(p, x.shape)
        o, lab = out.reshape(s2), label.reshape(-1)
        g = o - _so_target(p, xp, o, lab, 1)
        if p.normalization == "valid":
            scale = p.grad_scale / _valid_count(p, lab)
        elif p.normalization == "batch":
            scale = p.grad_scale / lab.shape[0]
        else:
            scale = p.grad_scale
    g = (g * scale).reshape(x.shape)
    if p.out_grad:
        g = g * g_head
    return g.astype(x.dtype), None


_SO_ATTRS = {"grad_scale": A.Float(1.0), "ignore_label": A.Float(-1.0),
             "multi_output": A.Bool(False), "use_ignore": A.Bool(False),
             "preserve_shape": A.Bool(False),
             "normalization": A.Enum(*_NORMALIZATION, default="null"),
             "out_grad": A.Bool(False), "smooth_alpha": A.Float(0.0)}


@register("SoftmaxOutput", aliases=("Softmax",), inputs=("data", "label"), nondiff=("label",),
          loss_output=lambda p: not p.out_grad,
          attrs=_SO_ATTRS, shape=_so_shape, vjp=_so_vjp, same_dtype=("data",),
          dtype=lambda p, ins: ([ins[0], ins[1] if ins[1] is not None else ins[0]], [ins[0]]))
def _softmax_output(p, rc, x, label):
    """SoftmaxOutput(data, label, grad_scale=1, ignore_label=-1, multi_output=False,
    use_ignore=False, preserve_shape=False, normalization='null', out_grad=False,
    smooth_alpha=0): the softmax of data (over all but the first axis; over axis 1 with
    `multi_output`; over the last axis with `preserve_shape`), whose gradient is that of the
    cross-entropy with the class indices `label`: ``grad_scale * (softmax - one_hot(label))``,
    divided by the batch size (normalization='batch') or the count of labels other than
    `ignore_label` ('valid'); rows labelled `ignore_label` get none with `use_ignore`;
    `smooth_alpha` spreads that much of each target over the other classes. A label of data's
    shape is taken as target probabilities.

    Example::

        out = nd.SoftmaxOutput(nd.array([[1., 2.]]), nd.array([1.]))   # [[0.269, 0.731]]
    """
    xp = rc.xp
    if _onednn_softmax_output(p, rc, x):
        return onednn_softmax.softmax(x)
    if p.multi_output:
        s3 = _so_3d(x.shape)
        y = _softmax(xp, x.reshape(s3), 1)
    else:
        y = _softmax(xp, x.reshape(_softmax_2d(p, x.shape)), 1)
    return y.reshape(x.shape).astype(x.dtype, copy=False)


# ---- regression outputs ----
def _reg_shape(name):
    def rule(p, ins):
        d, lab = ins
        if d is None:
            return ins, [None]
        d = tuple(d)
        want = (d[0],) if len(d) == 2 and d[1] == 1 else d
        if lab is None:
            ins[1] = want
        elif int(np.prod(lab)) != int(np.prod(d)) or tuple(lab)[:1] != d[:1]:
            raise ShapeError(f"{name}: label must have shape {want}, got {tuple(lab)}")
        return ins, [d]
    return rule


def _regression(name, fwd, grad, doc):
    def kernel(p, rc, x, label):
        return fwd(rc.xp, x).astype(x.dtype, copy=False)

    def vjp(p, rc, xs, ys, gys, need):
        x, label = xs
        n_out = label.size / label.shape[0]
        # from data, not the saved output: a second derivative then differentiates the loss's
        # gradient itself
        g = grad(rc.xp, fwd(rc.xp, x), label.reshape(x.shape)) * (p.grad_scale / n_out)
        return g.astype(x.dtype), None

    kernel.__doc__ = doc
    register(name, inputs=("data", "label"), nondiff=("label",), same_dtype=("data",),
             attrs={"grad_scale": A.Float(1.0)}, shape=_reg_shape(name), vjp=vjp,
             loss_output=True,
             dtype=lambda p, ins: ([ins[0], ins[1] if ins[1] is not None else ins[0]],
                                   [ins[0]]))(kernel)


def _sigmoid(xp, x):
    return 1 / (1 + xp.exp(-x))


_regression("LinearRegressionOutput", lambda xp, x: x * 1, lambda xp, y, t: y - t,
            "LinearRegressionOutput(data, label, grad_scale=1): data itself; its gradient is "
            "that of the squared error, ``grad_scale / m * (data - label)`` (m: outputs per "
            "sample).")
_regression("LogisticRegressionOutput", _sigmoid, lambda xp, y, t: y - t,
            "LogisticRegressionOutput(data, label, grad_scale=1): sigmoid(data); its gradient "
            "is that of the logistic loss, ``grad_scale / m * (sigmoid(data) - label)``.")
_regression("MAERegressionOutput", lambda xp, x: x * 1, lambda xp, y, t: xp.sign(y - t),
            "MAERegressionOutput(data, label, grad_scale=1): data itself; its gradient is that "
            "of the absolute error, ``grad_scale / m * sign(data - label)``.")


# ---- SVMOutput ----
def _svm_shape(p, ins):
    d, lab = ins
    if d is None:
        return ins, [None]
    d = tuple(d)
    if lab is None:
        ins[1] = (d[0],)
    elif int(np.prod(lab)) != d[0]:
        raise ShapeError(f"SVMOutput: label must have shape {(d[0],)}, got {tuple(lab)}")
    return ins, [d]


def _svm_vjp(p, rc, xs, ys, gys, need):
    x, label, xp = xs[0], xs[1], rc.xp
    s = x.reshape(x.shape[0], -1)
    hot = (label.reshape(-1, 1).astype(np.int64) == xp.arange(s.shape[1]))
    m, c = p.margin, p.regularization_coefficient
    if p.use_linear:
        g = xp.where(hot, -(m > s).astype(x.dtype), (m > -s).astype(x.dtype)) * c
    else:
        g = xp.where(hot, -2 * xp.maximum(m - s, 0), 2 * xp.maximum(m + s, 0)) * c
    return g.reshape(x.shape).astype(x.dtype), None


@register("SVMOutput", inputs=("data", "label"), nondiff=("label",), same_dtype=("data",),
          loss_output=True,
          attrs={"margin": A.Float(1.0), "regularization_coefficient": A.Float(1.0),
                 "use_linear": A.Bool(False)},
          shape=_svm_shape, vjp=_svm_vjp,
          dtype=lambda p, ins: ([ins[0], ins[1] if ins[1] is not None else ins[0]], [ins[0]]))
def _svm_output(p, rc, x, label):
    """SVMOutput(data, label, margin=1, regularization_coefficient=1, use_linear=False): data
    itself; its gradient is that of the one-vs-all hinge loss (squared unless `use_linear`)
    of the class scores data against the class indices label."""
    return x.copy()


# ---- MakeLoss, make_loss ----
def _make_loss_vjp(p, rc, xs, ys, gys, need):
    x = xs[0]
    if p.normalization == "batch":
        scale = p.grad_scale / x.shape[0]
    elif p.normalization == "valid":
        scale = p.grad_scale / max((x > p.valid_thresh).sum().item(), 1)
    else:
        scale = p.grad_scale
    return (rc.xp.full(x.shape, scale, dtype=x.dtype),)


@register("MakeLoss", attrs={"grad_scale": A.Float(1.0), "valid_thresh": A.Float(0.0),
                             "normalization": A.Enum(*_NORMALIZATION, default="null")},
          shape=lambda p, ins: (ins, [ins[0]]), vjp=_make_loss_vjp, loss_output=True)
def _make_loss(p, rc, x):
    """MakeLoss(data, grad_scale=1, valid_thresh=0, normalization='null'): data itself, taken
    as a loss: its gradient is `grad_scale` everywhere, divided by the batch size
    ('batch') or by the count of elements above `valid_thresh` ('valid')."""
    return x.copy()


@register("make_loss", shape=lambda p, ins: (ins, [ins[0]]),
          vjp=lambda p, rc, xs, ys, gys, need: (rc.xp.ones_like(xs[0]),), storage=IDENTITY,
          loss_output=True)
def _make_loss_plain(p, rc, x):
    """make_loss(data): data itself, taken as a loss (its gradient is 1 everywhere)."""
    return x.copy()


# ---- softmax_cross_entropy ----
def _sce_shape(p, ins):
    d, lab = ins
    if d is not None and len(d) != 2:
        raise ShapeError(f"softmax_cross_entropy: data must be 2-D (batch, classes), got "
                         f"{tuple(d)}")
    if d is not None and lab is None:
        ins[1] = (d[0],)
    elif d is not None and tuple(lab) != (d[0],):
        raise ShapeError(f"softmax_cross_entropy: label must have shape {(d[0],)}, got "
                         f"{fmt_shapes([lab])}")
    return ins, [(1,)]


def _sce_vjp(p, rc, xs, ys, gys, need):
    x, label = xs
    sm = _softmax(rc.xp, x, 1)
    sm[rc.xp.arange(x.shape[0]), label.astype(np.int64)] -= 1
    return (sm * gys[0].reshape(())).astype(x.dtype), None


@register("softmax_cross_entropy", inputs=("data", "label"), nondiff=("label",),
          shape=_sce_shape, vjp=_sce_vjp, same_dtype=("data",),
          dtype=lambda p, ins: ([ins[0], ins[1] if ins[1] is not None else ins[0]], [ins[0]]))
def _softmax_cross_entropy(p, rc, x, label):
    """softmax_cross_entropy(data, label): the cross-entropy of softmax(data) (batch,
    classes) with the class indices label, summed over the batch, shape (1,).

    As MXNet 1.9.1's kernel computes it: each row's loss is minus the log of its label's
    softmax probability floored at 1e-8, so no row adds more than 18.42 (-log 1e-8) however
    wrong its logits; the gradient is softmax(data) - onehot(label) all the same.
    """
    xp = rc.xp
    if x.shape[0] == 0:
        return xp.zeros((1,), dtype=x.dtype)
    e, sums = _exp_sums(xp, x, 1)
    prob = e[xp.arange(x.shape[0]), label.astype(np.int64)] / sums[:, 0]
    loss = -libm32.like_mxnet("log", xp, xp.maximum(prob, x.dtype.type(1e-8)))
    return xp.cumsum(loss)[-1:]  # the rows added in order, as MXNet's reducer adds them
