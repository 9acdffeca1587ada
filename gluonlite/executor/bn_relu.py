"""A training pass: a BatchNorm whose output only an Activation(relu) reads becomes one
``_contrib_BatchNormWithReLU`` node (`gluonlite.ops.bn_relu`).

In a training step the relu is then applied to each block of the normalized output while it
is in the cache, and its gradient taken in the pass that sums BatchNorm's, instead of a pass
over memory for each (ResNet, MobileNet, VGG with BatchNorm and the DCGAN generator place
every BatchNorm before a relu but those feeding a residual addition). The fused operator's
rule is the two operators' rules in order, so the numbers are the same. A training step at
batch 32 takes 0.95 of its time for MobileNet 0.25, 0.98 for ResNet-18 and 0.99 for
ResNet-50 (per-round ratios 0.90-1.08; the DCGAN generator 1.01, within its spread;
benchmarks/models.py --ab nobnrelu, 5 rounds).

It runs on the graphs of a hybridized block's plans that compute gradients
(`register_training_pass`); inference plans keep BatchNorm for the inference fusion, which
folds it into the convolution before it (`gluonlite.subgraph.fuse`), and exports keep the
two nodes. ``ENABLED = False`` turns it off (benchmarks/models.py --ab nobnrelu).

Example::

    from gluonlite.executor.bn_relu import fuse_bn_relu
    x = sym.var('x')
    y = sym.Activation(sym.BatchNorm(x, name='bn'), act_type='relu', name='act')
    '_contrib_BatchNormWithReLU' in fuse_bn_relu(y).tojson()    # True
"""
from ..ops.bn_relu import BATCHNORM_WITH_RELU
from ..ops.registry import get
from ..symbol.rewrite import entry_uses, substitute
from ..symbol.symbol import Node, topo_nodes
from .hooks import register_training_pass

__all__ = ["fuse_bn_relu", "ENABLED"]

ENABLED = True


def fuse_bn_relu(symbol):
    """`symbol` with every BatchNorm -> Activation(relu) pair that allows it as one
    ``_contrib_BatchNormWithReLU`` node: the BatchNorm's output 0 read by that Activation
    alone, no other output of it read, not a graph output, and ``output_mean_var`` off.

    Args:
        symbol: the graph.

    Returns:
        A Symbol computing the same outputs with the same inputs in the same order (the fused
        node takes the BatchNorm's inputs and attributes and the Activation's name); `symbol`
        itself when nothing is fused or `ENABLED` is False.

    Example::

        x = sym.var('x')
        y = sym.Activation(sym.BatchNorm(x), act_type='relu')
        fused = mx.executor.bn_relu.fuse_bn_relu(y)
        fused.list_inputs() == y.list_inputs()      # True
    """
    if not ENABLED:
        return symbol
    nodes = topo_nodes(symbol.outputs)
    bn, act = get("BatchNorm"), get("Activation")
    if not any(n.op is bn for n in nodes):
        return symbol
    fused_op = get(BATCHNORM_WITH_RELU)
    uses = entry_uses(symbol)
    mapping = {}
    for n in nodes:
        if n.op is not act or n.params.act_type != "relu":
            continue
        src, i = n.inputs[0]
        if src.op is not bn or i != 0 or src.params.output_mean_var:
            continue
        if uses.get((id(src), 0)) != 1 or any(uses.get((id(src), k)) for k in (1, 2)):
            continue
        mapping[(id(n), 0)] = (Node(fused_op, n.name, dict(src.attrs), src.params,
                                    list(src.inputs), src.source), 0)
    if not mapping:
        return symbol
    fused = substitute(symbol, mapping)
    # the plan takes its inputs in list_inputs() order: a rewrite must not reorder them
    if fused.list_inputs() != symbol.list_inputs():
        return symbol
    return fused


register_training_pass(fuse_bn_relu)
