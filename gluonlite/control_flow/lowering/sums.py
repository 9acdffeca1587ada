"""The loop-summed gradients a lowered loop defers (`deferred.LoopBody`): per operator, per
input, ``(names of the inputs the rule reads, fn)``.

``fn(p, rc, target, stacked, g, out=None)`` is the gradient of input `target`, the same at
every step of a loop, summed over the steps from the (T, ...) stacks of the inputs it reads
(`stacked`, by name) and of the output-0 gradients (`g`): a loop turns T small
weight-gradient products into one after its reverse pass. The rules are the operators'
gradient math, kept beside their vjps in `gluonlite.ops.matrix`; which ones a loop uses is
the lowering's concern, so the table is here. The registry walk holds each rule against the
operator's vjp summed over steps (tests/core/test_registry_walk.py).

Example: ``VJP_SUMS["FullyConnected"]["weight"]`` -> ``(("data",), fn)``.
"""
from ...ops.matrix import _fc_bias_sum, _fc_weight_sum, _take_a_sum

__all__ = ["VJP_SUMS"]

VJP_SUMS = {
    "FullyConnected": {"weight": (("data",), _fc_weight_sum), "bias": ((), _fc_bias_sum)},
    "take": {"a": (("indices",), _take_a_sum)},
}
