"""`nd.contrib`: MXNet's contrib operators (``_contrib_*`` in the registry, by their short
names: ``nd.contrib.box_nms``), the helpers `isinf`/`isfinite`/`isnan`/`rand_zipfian`, and
the imperative control flow (`foreach`, `while_loop`, `cond`, defined in
gluonlite.control_flow)."""
import math

from ..context import current_context  # noqa: F401  (MXNet's nd.contrib has it)
from ..ops import registry as _registry
from .random import uniform  # noqa: F401  (MXNet's nd.contrib has it)
from .register import _gen_cache

__all__ = ["rand_zipfian", "isinf", "isfinite", "isnan"]  # + foreach, while_loop, cond

_PREFIX = "_contrib_"
globals().update({n[len(_PREFIX):]: _gen_cache[n] for n in _registry.names()
                  if n.startswith(_PREFIX) and n in _gen_cache})


def isinf(data):
    """1 where data is +inf or -inf, else 0 (data's dtype).

    Example: ``nd.contrib.isinf(nd.array([1, np.inf]))`` -> [0, 1].
    """
    return data.abs() == math.inf


def isfinite(data):
    """1 where data is neither infinite nor NaN, else 0 (data's dtype)."""
    return (data.abs() != math.inf) * (data == data)


def isnan(data):
    """1 where data is NaN, else 0 (data's dtype)."""
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

    Example: ``s, et, es = nd.contrib.rand_zipfian(nd.array([3]), 4, 5)``.
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
    # The control-flow layer sits above the compiler; import it on first use.
    from ..control_flow import imperative
    try:
        return getattr(imperative, name)
    except AttributeError:
        pass
    # MXNet's contrib operators are registered as ``_contrib_<name>``
    from .. import ndarray
    f = getattr(ndarray, f"_contrib_{name}", None)
    if f is None:
        raise AttributeError(f"nd.contrib has no attribute {name!r}")
    return f
