"""A training pass: a BatchNorm whose output only an Activation(relu) reads becomes one
``_contrib_BatchNormWithReLU`` node, one whose output only an elemwise_add read by a
relu alone reads (a residual connection, ``relu(BatchNorm(x) + shortcut)``) one
``_bn_add_relu`` node (`gluonlite.ops.bn_relu`), and one whose output only a clip reads
(relu6, ``clip(BatchNorm(x), 0, 6)`` in MobileNet v2) one ``_bn_clip`` node
(`gluonlite.ops.bn_clip`).

In a training step the relu (and the addition) is then applied to each block of the
normalized output while it is in the cache, and the relu's gradient taken in the pass that
sums BatchNorm's, instead of a pass over memory for each. ResNet, MobileNet, VGG with
BatchNorm and the DCGAN generator place every BatchNorm before a relu, or before the
addition of a residual block and then a relu. The fused operators' rules are their parts'
rules in order, so the numbers are the same. With the relu alone, a training step at batch
32 takes 0.95 of its time for MobileNet 0.25, 0.98 for ResNet-18 and 0.99 for ResNet-50
(per-round ratios 0.90-1.08; the DCGAN generator 1.01, within its spread;
benchmarks/models.py --ab nobnrelu, 5 rounds); the residual blocks then take ResNet-18's
step to 0.92-0.97 of its time and ResNet-50's to 0.98 (in-process interleaved rounds;
``--ab nobnaddrelu``). The clips take MobileNet v2's 36 BatchNorm -> relu6 layers to 0.81-0.85
of their time at batch 32 and leave them as they were at batch 1, where the data stays in
the cache between the two operators anyway (benchmarks/bn_clip.py); its training step at
batch 32 took 0.92 and 1.03 of its time in two in-process runs, within the machine's
spread.

It runs on the graphs of a hybridized block's plans that compute gradients
(`register_training_pass`); inference plans keep BatchNorm for the inference fusion, which
folds it into the convolution before it (`gluonlite.subgraph.fuse`), and exports keep the
original nodes. ``ENABLED = False`` turns it off (benchmarks/models.py --ab nobnrelu),
``RESIDUAL = False`` only its residual half (``--ab nobnaddrelu``), ``CLIP = False`` only
its clips.

Example::

    from gluonlite.executor.bn_relu import fuse_bn_relu
    x = sym.var('x')
    y = sym.Activation(sym.BatchNorm(x, name='bn'), act_type='relu', name='act')
    '_contrib_BatchNormWithReLU' in fuse_bn_relu(y).tojson()    # True
"""
from ..ops.bn_clip import BATCHNORM_CLIP
from ..ops.bn_relu import BATCHNORM_ADD_RELU, BATCHNORM_WITH_RELU
from ..ops.registry import get
from ..symbol.rewrite import entry_uses, substitute
from ..symbol.symbol import Node, topo_nodes
from .hooks import register_training_pass

__all__ = ["fuse_bn_relu", "ENABLED", "RESIDUAL", "CLIP"]

ENABLED = True
RESIDUAL = True
CLIP = True


def fuse_bn_relu(symbol):
    """`symbol` with every BatchNorm -> Activation(relu) pair that allows it as one
    ``_contrib_BatchNormWithReLU`` node, every BatchNorm -> elemwise_add ->
    Activation(relu) chain as one ``_bn_add_relu`` node and every BatchNorm -> clip pair as
    one ``_bn_clip`` node (with the clip's bounds). A BatchNorm is taken when its output 0 is
    read by that Activation (or addition, or clip) alone, no other output of it is read, it
    is not a graph output and ``output_mean_var`` is off; the addition's output must be read
    by the relu alone. Of an addition of two such BatchNorms, the first is taken.

    Args:
        symbol: the graph.

    Returns:
        A Symbol computing the same outputs with the same inputs in the same order (the fused
        node takes the BatchNorm's inputs, then the addition's other operand, the BatchNorm's
        attributes and the Activation's or the clip's name); `symbol` itself when nothing is
        fused or `ENABLED` is False. An addition whose fused form would list the graph's inputs in
        another order (the other operand, first, reaches inputs that nothing before it
        does) is left as it is.

    Example::

        x = sym.var('x')
        y = sym.Activation(sym.BatchNorm(x), act_type='relu')
        fused = mx.executor.bn_relu.fuse_bn_relu(y)
        fused.list_inputs() == y.list_inputs()      # True
    """
    if not ENABLED:
        return symbol
    nodes = topo_nodes(symbol.outputs)
    bn, act, add, clip = get("BatchNorm"), get("Activation"), get("elemwise_add"), get("clip")
    if not any(n.op is bn for n in nodes):
        return symbol
    with_relu, add_relu = get(BATCHNORM_WITH_RELU), get(BATCHNORM_ADD_RELU)
    with_clip = get(BATCHNORM_CLIP)
    uses = entry_uses(symbol)

    def alone(entry):
        """Whether `entry` is a BatchNorm's output 0 that one reader alone reads."""
        src, i = entry
        return (src.op is bn and i == 0 and not src.params.output_mean_var
                and uses.get((id(src), 0)) == 1
                and not any(uses.get((id(src), k)) for k in (1, 2)))

    def fused(op, b, name, extra=()):
        return Node(op, name, dict(b.attrs), b.params, list(b.inputs) + list(extra), b.source)

    mapping, second = {}, []
    for n in nodes:
        if n.op is clip:
            if CLIP and alone(n.inputs[0]):
                b = n.inputs[0][0]
                bounds = {"a_min": n.params.a_min, "a_max": n.params.a_max}
                params = with_clip.parse({**b.attrs, **bounds})[0]
                mapping[(id(n), 0)] = (Node(with_clip, n.name, {**b.attrs, **bounds}, params,
                                            b.inputs, b.source), 0)
            continue
        if n.op is not act or n.params.act_type != "relu":
            continue
        src = n.inputs[0]
        if alone(src):
            mapping[(id(n), 0)] = (fused(with_relu, src[0], n.name), 0)
            continue
        s, i = src
        if not RESIDUAL or s.op is not add or i != 0 or uses.get((id(s), 0)) != 1:
            continue
        first, other = s.inputs
        if alone(first):
            mapping[(id(n), 0)] = (fused(add_relu, first[0], n.name, [other]), 0)
        elif alone(other):
            second.append(((id(n), 0), (fused(add_relu, other[0], n.name, [first]), 0)))
    order = symbol.list_inputs()
    # the BatchNorm second: its inputs now come before the other operand's
    for key, rep in second:
        if substitute(symbol, {**mapping, key: rep}).list_inputs() == order:
            mapping[key] = rep
    if not mapping:
        return symbol
    out = substitute(symbol, mapping)
    # the plan takes its inputs in list_inputs() order: a rewrite must not reorder them
    if out.list_inputs() != order:
        return symbol
    return out


register_training_pass(fuse_bn_relu)
