"""`nd.contrib`: MXNet's contrib operators (``_contrib_*`` in the registry, by their short
names: ``nd.contrib.box_nms``), the helpers `isinf`/`isfinite`/`isnan`/`rand_zipfian`, and
the imperative control flow (`foreach`, `while_loop`, `cond`, defined in
gluonlite.control_flow, which installs them when it loads)."""
import math

from ..context import current_context  # noqa: F401  (MXNet's nd.contrib has it)
from ..ops import registry as _registry
from .random import uniform  # noqa: F401  (MXNet's nd.contrib has it)
from .register import _gen_cache
from .ndarray import array
from ..ops.missing_names import missing_attribute

__all__ = ["rand_zipfian", "isinf", "isfinite", "isnan", "adamw_update", "mp_adamw_update",
           "multi_adamw_update",
           "multi_mp_adamw_update", "multi_lamb_update", "multi_mp_lamb_update"]
# (+ foreach, while_loop, cond: installed by gluonlite.control_flow)

_PREFIX = "_contrib_"
globals().update({n[len(_PREFIX):]: _gen_cache[n] for n in _registry.names()
                  if n.startswith(_PREFIX) and n in _gen_cache})


def isinf(data):
    """1 where data is +inf or -inf, else 0 (data's dtype).

    Args:
        data: an NDArray.

    Returns:
        NDArray: of data's shape and dtype, 1 where the test holds, else 0.

    Example::

        nd.contrib.isinf(nd.array([1, np.inf, np.nan])).asnumpy()   # [0. 1. 0.]
    """
    return data.abs() == math.inf


def isfinite(data):
    """1 where data is neither infinite nor NaN, else 0 (data's dtype).

    Args:
        data: an NDArray.

    Returns:
        NDArray: of data's shape and dtype, 1 where the test holds, else 0.

    Example::

        nd.contrib.isfinite(nd.array([1, np.inf, np.nan])).asnumpy()   # [1. 0. 0.]
    """
    return (data.abs() != math.inf) * (data == data)


def isnan(data):
    """1 where data is NaN, else 0 (data's dtype).

    Args:
        data: an NDArray.

    Returns:
        NDArray: of data's shape and dtype, 1 where the test holds, else 0.

    Example::

        nd.contrib.isnan(nd.array([1, np.inf, np.nan])).asnumpy()   # [0. 0. 1.]
    """
    return data != data


def rand_zipfian(true_classes, num_sampled, range_max, ctx=None):
    """Sample `num_sampled` classes (with replacement) from the approximately Zipfian
    (log-uniform) distribution over [0, range_max), as candidate sampling does.

    Args:
        true_classes: 1-D NDArray of the target classes.
        num_sampled: how many classes to draw.
        range_max: the number of classes.
        ctx: the context of the outputs (default: the current context).

    Returns:
        (sampled_classes int64, expected_count_true float64, expected_count_sampled float64).

    Example::

        s, et, es = nd.contrib.rand_zipfian(nd.array([3]), 4, 5)
        s.shape          # (4,)
        et.asnumpy()     # [0.49815515]
    """
    ctx = ctx or current_context()
    log_range = math.log(range_max + 1)
    rand = uniform(0, log_range, shape=(num_sampled,), dtype="float64", ctx=ctx)
    sampled = (rand.exp() - 1).astype("int64") % range_max
    true_cls = true_classes.as_in_context(ctx).astype("float64")
    count_true = ((true_cls + 2.0) / (true_cls + 1.0)).log() / log_range * num_sampled
    s = sampled.astype("float64")
    count_sampled = ((s + 2.0) / (s + 1.0)).log() / log_range * num_sampled
    return sampled, count_true, count_sampled


def __getattr__(name):
    if name.startswith("__"):      # import-system probes (__path__ ...) are not operators
        raise AttributeError(name)
    # MXNet's contrib operators are registered as ``_contrib_<name>``
    from .. import ndarray
    f = getattr(ndarray, f"_contrib_{name}", None)
    if f is None:
        raise missing_attribute("ndarray.contrib", name)
    return f


def _multi_update(op_name, per_tensor, tail=(), **attrs):
    """Call a multi-tensor update operator with its inputs interleaved per tensor (weight,
    grad, states... of tensor 0, then tensor 1, ...) and `tail` after them, as MXNet's
    contrib wrappers pass them."""
    flat = [a for group in zip(*per_tensor) for a in group] + list(tail)
    return _gen_cache[op_name](*flat, **attrs)


def _rescale_array(rescale_grad, like):
    if hasattr(rescale_grad, "asnumpy"):
        return rescale_grad
    return array([rescale_grad], ctx=like.context, dtype="float32")


def adamw_update(weight, grad, mean, var, rescale_grad, lr, eta, beta1=0.9, beta2=0.999,
                 epsilon=1e-8, wd=0, clip_gradient=-1, out=None, name=None, **kwargs):
    """One AdamW step (`_adamw_update`) on `weight`, `mean` and `var` in place.

    Args:
        weight: the weights, an NDArray.
        grad: the gradient, of weight's shape.
        mean: the first-moment state, of weight's shape, updated in place.
        var: the second-moment state, of weight's shape, updated in place.
        rescale_grad: a number or a one-element NDArray the gradient is multiplied by (a
            number becomes a float32 array on weight's context, as in MXNet); a zero, NaN or
            infinite value skips the update.
        lr: the learning rate.
        eta: the schedule multiplier of the whole step: the weight moves by
            eta * (lr * mean / (sqrt(var) + epsilon) + wd * weight).
        beta1: the decay rate of the first moment `mean` (default 0.9).
        beta2: the decay rate of the second moment `var` (default 0.999).
        epsilon: added to sqrt(var) against division by zero (default 1e-8).
        wd: the decoupled weight decay (default 0).
        clip_gradient: clip the rescaled gradient to [-clip_gradient, clip_gradient]
            (default -1: no clipping).
        out: the array to write the new weight to (usually `weight`; default None: a new one).
        name: the operator's name (for the profiler; default None).
        **kwargs: more attributes for the operator.

    Returns:
        NDArray: the new weight (`out` when given).

    Example::

        w, g, m, v = nd.array([1, 2]), nd.array([1, 1]), nd.zeros(2), nd.zeros(2)
        nd.contrib.adamw_update(w, g, m, v, 1.0, lr=0.1, eta=1.0, out=w)
        w.asnumpy()   # [0.6837723 1.6837723]
        m.asnumpy()   # [0.1 0.1]
    """
    return _gen_cache["_adamw_update"](
        weight, grad, mean, var, _rescale_array(rescale_grad, weight), lr=lr, eta=eta,
        beta1=beta1, beta2=beta2, epsilon=epsilon, wd=wd, clip_gradient=clip_gradient,
        out=out, name=name, **kwargs)


def mp_adamw_update(weight, grad, mean, var, weight32, rescale_grad, lr, eta, beta1=0.9,
                    beta2=0.999, epsilon=1e-8, wd=0, clip_gradient=-1, out=None, name=None,
                    **kwargs):
    """`adamw_update` with a float32 master copy `weight32` of a float16 `weight`
    (`_mp_adamw_update`); `rescale_grad` is a number or a one-element NDArray.

    Args:
        weight: the float16 weights, an NDArray.
        grad: the float16 gradient, of weight's shape.
        mean: the float32 first-moment state, updated in place.
        var: the float32 second-moment state, updated in place.
        weight32: the float32 master copy of weight; the step runs on it, in place.
        rescale_grad: a number or a one-element NDArray the gradient is multiplied by; a
            zero, NaN or infinite value skips the update.
        lr: the learning rate.
        eta: the schedule multiplier of the whole step: the weight moves by
            eta * (lr * mean / (sqrt(var) + epsilon) + wd * weight).
        beta1: the decay rate of the first moment `mean` (default 0.9).
        beta2: the decay rate of the second moment `var` (default 0.999).
        epsilon: added to sqrt(var) against division by zero (default 1e-8).
        wd: the decoupled weight decay (default 0).
        clip_gradient: clip the rescaled gradient to [-clip_gradient, clip_gradient]
            (default -1: no clipping).
        out: the array to write the new weight (cast to weight's dtype) to (usually
            `weight`; default None: a new one).
        name: the operator's name (for the profiler; default None).
        **kwargs: more attributes for the operator.

    Returns:
        NDArray: the new weight (`out` when given).

    Example::

        w, g = nd.array([1, 2], dtype='float16'), nd.array([1, 1], dtype='float16')
        m, v, w32 = nd.zeros(2), nd.zeros(2), nd.array([1, 2])
        nd.contrib.mp_adamw_update(w, g, m, v, w32, 1.0, lr=0.1, eta=1.0, out=w)
        w.asnumpy()     # [0.6836 1.684 ] (float16)
        w32.asnumpy()   # [0.6837723 1.6837723]
    """
    return _gen_cache["_mp_adamw_update"](
        weight, grad, mean, var, weight32, _rescale_array(rescale_grad, weight), lr=lr,
        eta=eta, beta1=beta1, beta2=beta2, epsilon=epsilon, wd=wd,
        clip_gradient=clip_gradient, out=out, name=name, **kwargs)


def multi_adamw_update(weights, grads, mean, var, rescale_grad, lrs, wds, etas, out=None,
                       name=None, size=0, **kwargs):
    """AdamW over several tensors in one call (`_multi_adamw_update`): each weight, mean and
    var list entry is updated in place.

    Args:
        weights: the weights, a list of NDArrays.
        grads: their gradients, a list of NDArrays of the weights' shapes.
        mean: the first-moment states, a list of NDArrays, updated in place.
        var: the second-moment states, a list of NDArrays, updated in place.
        rescale_grad: a number or a one-element NDArray the gradients are multiplied by; a
            zero, NaN or infinite value skips every update.
        lrs: the learning rate of each tensor, a sequence of floats.
        wds: the weight decay of each tensor.
        etas: the schedule multiplier of each tensor.
        out: the arrays to write the new weights to, a list (usually `weights`; default None:
            new ones).
        name: not used (MXNet's signature).
        size: how many tensors (default 0: all of `weights`).
        **kwargs: more attributes for the operator (beta1, beta2, epsilon, clip_gradient).

    Returns:
        list of NDArray: the updated weights.

    Example::

        w, g, m, v = nd.array([1, 2]), nd.array([1, 1]), nd.zeros(2), nd.zeros(2)
        nd.contrib.multi_adamw_update([w], [g], [m], [v], 1.0, lrs=[0.1], wds=[0], etas=[1],
                                      out=[w])
        w.asnumpy()   # [0.6837723 1.6837723]
    """
    size = size or len(weights)
    return _multi_update("_multi_adamw_update", (weights, grads, mean, var),
                         [_rescale_array(rescale_grad, weights[0])], out=out,
                         num_weights=size, lrs=lrs, wds=wds, etas=etas, **kwargs)


def multi_mp_adamw_update(weights, grads, mean, var, weights32, rescale_grad, lrs, wds, etas,
                          out=None, name=None, size=0, **kwargs):
    """`multi_adamw_update` with float32 master copies `weights32` of float16 weights.

    Args:
        weights: the weights, a list of NDArrays.
        grads: their gradients, a list of NDArrays of the weights' shapes.
        mean: the first-moment states, a list of NDArrays, updated in place.
        var: the second-moment states, a list of NDArrays, updated in place.
        weights32: the float32 master copies of the weights, updated in place.
        rescale_grad: a number or a one-element NDArray the gradients are multiplied by; a
            zero, NaN or infinite value skips every update.
        lrs: the learning rate of each tensor, a sequence of floats.
        wds: the weight decay of each tensor.
        etas: the schedule multiplier of each tensor.
        out: the arrays to write the new weights to, a list (usually `weights`; default None:
            new ones).
        name: not used (MXNet's signature).
        size: how many tensors (default 0: all of `weights`).
        **kwargs: more attributes for the operator (beta1, beta2, epsilon, clip_gradient).

    Returns:
        list of NDArray: the updated weights.

    Example::

        w, g = nd.array([1, 2], dtype='float16'), nd.array([1, 1], dtype='float16')
        m, v, w32 = nd.zeros(2), nd.zeros(2), nd.array([1, 2])
        nd.contrib.multi_mp_adamw_update([w], [g], [m], [v], [w32], 1.0, lrs=[0.1], wds=[0],
                                         etas=[1], out=[w])
        w32.asnumpy()   # [0.6837723 1.6837723]
    """
    size = size or len(weights)
    return _multi_update("_multi_mp_adamw_update", (weights, grads, mean, var, weights32),
                         [_rescale_array(rescale_grad, weights[0])], out=out,
                         num_weights=size, lrs=lrs, wds=wds, etas=etas, **kwargs)


def multi_lamb_update(weights, grads, mean, var, step_count, lrs, wds, out=None,
                      num_tensors=0, **kwargs):
    """LAMB over several tensors in one call (`_multi_lamb_update`).

    Args:
        weights: the weights, a list of NDArrays.
        grads: their gradients, a list of NDArrays of the weights' shapes.
        mean: the first-moment states, a list of NDArrays, updated in place.
        var: the second-moment states, a list of NDArrays, updated in place.
        step_count: the update count of each tensor (for the bias correction).
        lrs: the learning rate of each tensor, a sequence of floats.
        wds: the weight decay of each tensor.
        out: the arrays to write the new weights to, a list (usually `weights`; default None:
            new ones).
        num_tensors: how many tensors (default 0: all of `weights`).
        **kwargs: more attributes for the operator (beta1, beta2, epsilon, bias_correction,
            clip_gradient, lower_bound, upper_bound, rescale_grad).

    Returns:
        list of NDArray: the updated weights.

    Example::

        w, g, m, v = nd.array([1, 2]), nd.array([1, 1]), nd.zeros(2), nd.zeros(2)
        nd.contrib.multi_lamb_update([w], [g], [m], [v], step_count=[1], lrs=[0.1], wds=[0],
                                     out=[w])
        w.asnumpy()   # [0.8418861 1.841886 ]
    """
    num_tensors = num_tensors or len(weights)
    return _multi_update("_multi_lamb_update", (weights, grads, mean, var), out=out,
                         num_tensors=num_tensors, step_count=step_count, learning_rates=lrs,
                         wds=wds, **kwargs)


def multi_mp_lamb_update(weights, grads, mean, var, weights32, step_count, lrs, wds, out=None,
                         num_tensors=0, **kwargs):
    """`multi_lamb_update` with float32 master copies `weights32` of float16 weights.

    Args:
        weights: the weights, a list of NDArrays.
        grads: their gradients, a list of NDArrays of the weights' shapes.
        mean: the first-moment states, a list of NDArrays, updated in place.
        var: the second-moment states, a list of NDArrays, updated in place.
        weights32: the float32 master copies of the weights, updated in place.
        step_count: the update count of each tensor (for the bias correction).
        lrs: the learning rate of each tensor, a sequence of floats.
        wds: the weight decay of each tensor.
        out: the arrays to write the new weights to, a list (usually `weights`; default None:
            new ones).
        num_tensors: how many tensors (default 0: all of `weights`).
        **kwargs: more attributes for the operator (as `multi_lamb_update`).

    Returns:
        list of NDArray: the updated weights.

    Example::

        w, g = nd.array([1, 2], dtype='float16'), nd.array([1, 1], dtype='float16')
        m, v, w32 = nd.zeros(2), nd.zeros(2), nd.array([1, 2])
        nd.contrib.multi_mp_lamb_update([w], [g], [m], [v], [w32], step_count=[1], lrs=[0.1],
                                        wds=[0], out=[w])
        w32.asnumpy()   # [0.8418861 1.841886 ]
    """
    num_tensors = num_tensors or len(weights)
    return _multi_update("_multi_mp_lamb_update", (weights, grads, mean, var, weights32),
                         out=out, num_tensors=num_tensors, step_count=step_count,
                         learning_rates=lrs, wds=wds, **kwargs)
