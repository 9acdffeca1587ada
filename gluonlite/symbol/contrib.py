"""`sym.contrib`: MXNet's contrib operators as graph nodes (``_contrib_*`` in the registry,
by their short names: ``sym.contrib.box_nms``), `rand_zipfian`, and the symbolic control flow
(`foreach`, `while_loop`, `cond`, defined in gluonlite.control_flow, which installs them
with `register`)."""
import math

from ..ops import registry as _registry
from .naming import AttrScope  # noqa: F401  (MXNet's sym.contrib has it)
from .random import uniform
from .register import fn as _fn, make_function as _make
from .symbol import Symbol  # noqa: F401  (MXNet's sym.contrib has it)
from ..ops.missing_names import missing_attribute

# + the operators, foreach, while_loop, cond (see control_flow)
__all__ = ["rand_zipfian", "adamw_update", "mp_adamw_update"]

_PREFIX = "_contrib_"
# named by their short names, as MXNet names the nodes (box_nms0)
globals().update({n[len(_PREFIX):]: _make(_registry.get(n), n[len(_PREFIX):])
                  for n in _registry.names() if n.startswith(_PREFIX)})


def rand_zipfian(true_classes, num_sampled, range_max):
    """Nodes sampling `num_sampled` classes (with replacement) from the approximately Zipfian
    (log-uniform) distribution over [0, range_max), as `nd.contrib.rand_zipfian` does.

    Args:
        true_classes: a Symbol of the target classes (1-D).
        num_sampled: how many classes to draw, an int.
        range_max: the number of classes, an int.

    Returns:
        (sampled_classes int64, expected_count_true float64, expected_count_sampled float64)
        Symbols.

    Example::

        s, ct, cs = sym.contrib.rand_zipfian(sym.var("label"), 4, 5)
        ct.eval(label=nd.array([3]))[0].asnumpy()   # [0.49815515]
    """
    log_range = math.log(range_max + 1)
    rand = uniform(0, log_range, shape=(num_sampled,), dtype="float64")
    sampled = _fn("_mod_scalar")(_fn("Cast")(_fn("exp")(rand) - 1, dtype="int64"),
                                 scalar=range_max)
    cast = _fn("Cast")
    true_cls = cast(true_classes, dtype="float64")
    count_true = _fn("log")((true_cls + 2.0) / (true_cls + 1.0)) / log_range * num_sampled
    s = cast(sampled, dtype="float64")
    count_sampled = _fn("log")((s + 2.0) / (s + 1.0)) / log_range * num_sampled
    return sampled, count_true, count_sampled


def _rescale_symbol(rescale_grad):
    # a number becomes a one-element constant node, as MXNet's wrapper makes it
    if isinstance(rescale_grad, Symbol):
        return rescale_grad
    return _fn("_full")(shape=(1,), value=rescale_grad)


def adamw_update(weight, grad, mean, var, rescale_grad, lr, eta, beta1=0.9, beta2=0.999,
                 epsilon=1e-8, wd=0, clip_gradient=-1, out=None, name=None, **kwargs):
    """A node of one AdamW step (`_adamw_update`); `rescale_grad` is a Symbol or a number.

    Args:
        weight: the weights, a Symbol.
        grad: the gradient, a Symbol.
        mean: the first-moment state, a Symbol (an auxiliary state of the node).
        var: the second-moment state, a Symbol (an auxiliary state of the node).
        rescale_grad: a Symbol or a number (made a one-element constant node) the gradient
            is multiplied by; zero, NaN or infinite skips the step.
        lr: the learning rate.
        eta: the schedule multiplier of the whole step.
        beta1: the decay rate of the first moment (default 0.9).
        beta2: the decay rate of the second moment (default 0.999).
        epsilon: added to sqrt(var) against division by zero (default 1e-8).
        wd: the decoupled weight decay (default 0).
        clip_gradient: clip the rescaled gradient to [-clip_gradient, clip_gradient]
            (default -1: no clipping).
        out: not used by the symbolic front end (MXNet's signature).
        name: the node's name (default None: an automatic one).
        **kwargs: more attributes of the node.

    Returns:
        Symbol: the node, whose output is the new weight (the states are its auxiliary
        states, updated when it runs).

    Example::

        w, g, m, v = sym.var('w'), sym.var('g'), sym.var('m'), sym.var('v')
        z = sym.contrib.adamw_update(w, g, m, v, 1.0, lr=0.1, eta=1.0)
        z.list_arguments(), z.list_auxiliary_states()   # (['w', 'g'], ['m', 'v'])
    """
    return _fn("_adamw_update")(weight, grad, mean, var, _rescale_symbol(rescale_grad),
                                lr=lr, eta=eta, beta1=beta1, beta2=beta2, epsilon=epsilon,
                                wd=wd, clip_gradient=clip_gradient, name=name, **kwargs)


def mp_adamw_update(weight, grad, mean, var, weight32, rescale_grad, lr, eta, beta1=0.9,
                    beta2=0.999, epsilon=1e-8, wd=0, clip_gradient=-1, out=None, name=None,
                    **kwargs):
    """A node of `_mp_adamw_update` (AdamW with a float32 master weight); `rescale_grad` is a
    Symbol or a number.

    Args:
        weight: the float16 weights, a Symbol.
        grad: the float16 gradient, a Symbol.
        mean: the float32 first-moment state, a Symbol (an auxiliary state).
        var: the float32 second-moment state, a Symbol (an auxiliary state).
        weight32: the float32 master weights, a Symbol (an auxiliary state).
        rescale_grad: a Symbol or a number (made a one-element constant node) the gradient
            is multiplied by; zero, NaN or infinite skips the step.
        lr: the learning rate.
        eta: the schedule multiplier of the whole step.
        beta1: the decay rate of the first moment (default 0.9).
        beta2: the decay rate of the second moment (default 0.999).
        epsilon: added to sqrt(var) against division by zero (default 1e-8).
        wd: the decoupled weight decay (default 0).
        clip_gradient: clip the rescaled gradient to [-clip_gradient, clip_gradient]
            (default -1: no clipping).
        out: not used by the symbolic front end (MXNet's signature).
        name: the node's name (default None: an automatic one).
        **kwargs: more attributes of the node.

    Returns:
        Symbol: the node, whose output is the new weight (the states are its auxiliary
        states, updated when it runs).

    Example::

        w, g, m, v, w32 = (sym.var(n) for n in ('w', 'g', 'm', 'v', 'w32'))
        z = sym.contrib.mp_adamw_update(w, g, m, v, w32, 1.0, lr=0.1, eta=1.0)
        z.list_auxiliary_states()   # ['m', 'v', 'w32']
    """
    return _fn("_mp_adamw_update")(weight, grad, mean, var, weight32,
                                   _rescale_symbol(rescale_grad), lr=lr, eta=eta, beta1=beta1,
                                   beta2=beta2, epsilon=epsilon, wd=wd,
                                   clip_gradient=clip_gradient, name=name, **kwargs)


def __getattr__(name):
    # A name MXNet 1.9.1 has here is reported as an operator gluonlite lacks, not as a typo.
    if name.startswith("__"):
        raise AttributeError(name)
    raise missing_attribute("symbol.contrib", name)
