"""The ``'MKLDNN_QUANTIZE'`` backend: the graph pass MXNet 1.9.1's quantization runs on a CPU
before and after quantizing (`mx.contrib.quantization`).

gluonlite's version does the first of MXNet's steps only: it removes the operators that do
nothing in inference and stand between two operators: a ``_copy`` (``identity``) or a
``Dropout`` in its default ``mode='training'`` (it drops only while training) that reads an
operator's output. Its consumers read the operator's output directly, so a quantized graph
need not dequantize and quantize again around it. MXNet's other steps (fusing a
convolution with its BatchNorm, sum and activation into one quantized node, folding a
calibrated requantize into the node before it) are not done; the graphs compute the same.

A chain of identities after one operator goes at once. An identity is left in place when it
reads a variable or an output the graph reads elsewhere too, or when its operator has
several outputs or reads one entry twice.

Example::

    x = sym.var('x')
    y = sym.FullyConnected(sym.Dropout(sym.relu(x), p=0.5), num_hidden=2, name='fc')
    z = y.get_backend_symbol('MKLDNN_QUANTIZE')
    [n.op.name for n in mx.symbol.symbol.topo_nodes(z.outputs) if n.op is not None]
    # ['relu', 'FullyConnected']
"""
from ..symbol.rewrite import entry_uses
from ..symbol.symbol import Node, topo_nodes
from .property import SubgraphProperty
from .registry import register_subgraph_property
from .selector import SubgraphSelector

__all__ = ["is_identity", "IdentitySelector", "IdentityRemovalProperty"]


def is_identity(node):
    """Whether `node` passes its input through unchanged in inference: a ``_copy`` node, or
    a ``Dropout`` node whose ``mode`` is ``'training'``.

    Args:
        node: a graph `Node`.

    Returns:
        bool

    Example::

        from gluonlite.subgraph.identity import is_identity
        d = sym.Dropout(sym.var('x'), p=0.5)
        is_identity(d.outputs[0][0])   # True
    """
    if node.op is None:
        return False
    return node.op.name == "_copy" or (node.op.name == "Dropout"
                                       and node.params.get("mode", "training") == "training")


class IdentitySelector(SubgraphSelector):
    """Selects an identity (`is_identity`), the identities that read it one after the
    other, and the operator node the first one reads, when the identities can be dropped:
    that operator has one visible output, read by the first identity alone, reads no entry
    twice, and each identity but the last is read by the next one alone.

    Args:
        uses: {(id(node), output index): number of readers} of the whole graph
            (`gluonlite.symbol.rewrite.entry_uses`).

    Example::

        from gluonlite.subgraph.identity import IdentitySelector
        from gluonlite.symbol.rewrite import entry_uses
        y = sym.Dropout(sym.relu(sym.var('x')), p=0.5)
        sel = IdentitySelector(entry_uses(y))
        sel.select(y.outputs[0][0])   # True: a Dropout in training mode
    """

    def __init__(self, uses):
        self.uses = uses
        self.found = False

    def select(self, node):
        """Seed at an identity.

        Args:
            node: the graph node to consider.

        Returns:
            True for an identity node.

        Example::

            from gluonlite.subgraph.identity import IdentitySelector
            y = sym.relu(sym.var('x'))
            IdentitySelector({}).select(y.outputs[0][0])   # False
        """
        return is_identity(node)

    def select_input(self, node, input_node):
        """Take the seed's input once, when it is an operator node that is no identity.

        Args:
            node: a node already selected.
            input_node: a node `node` reads.

        Returns:
            True for the first such input met.

        Example::

            from gluonlite.subgraph.identity import IdentitySelector
            r = sym.relu(sym.var('x')); y = sym.Dropout(r, p=0.5)
            IdentitySelector({}).select_input(y.outputs[0][0], r.outputs[0][0])   # True
        """
        if self.found or input_node.op is None or is_identity(input_node) or \
                not is_identity(node):
            return False
        self.found = True
        return True

    def select_output(self, node, output_node):
        """Take an identity that reads the selected identity `node`.

        Args:
            node: a node already selected.
            output_node: a node that reads `node`.

        Returns:
            True when both are identities.

        Example::

            from gluonlite.subgraph.identity import IdentitySelector
            d = sym.Dropout(sym.var('x'), p=0.5); c = sym.identity(d)
            IdentitySelector({}).select_output(d.outputs[0][0], c.outputs[0][0])   # True
        """
        return is_identity(node) and is_identity(output_node)

    def filter(self, candidates):
        """Keep the chain only when dropping its identities rewires nothing else.

        Args:
            candidates: the selected nodes, in topological order.

        Returns:
            The nodes, or [] to keep the graph as it is.

        Example::

            from gluonlite.subgraph.identity import IdentitySelector
            from gluonlite.symbol.rewrite import entry_uses
            r = sym.relu(sym.var('x')); y = sym.Dropout(r, p=0.5)
            nodes = [r.outputs[0][0], y.outputs[0][0]]
            IdentitySelector(entry_uses(y)).filter(nodes) == nodes   # True
        """
        if len(candidates) < 2:
            return []
        producer, chain = candidates[0], candidates[1:]
        if is_identity(producer) or producer.num_visible() != 1:
            return []
        if len(set((id(s), k) for s, k in producer.inputs)) != len(producer.inputs):
            return []
        before = producer
        for identity in chain:
            if not is_identity(identity) or identity.inputs[0] != (before, 0) or \
                    self.uses.get((id(before), 0), 0) != 1:
                return []
            before = identity
        return list(candidates)


class IdentityRemovalProperty(SubgraphProperty):
    """The backend registered as ``'MKLDNN_QUANTIZE'``: each operator and the identities after
    it that `IdentitySelector` finds are replaced by a copy of the operator node (same name,
    attributes and inputs), so the identities disappear.

    Example::

        from gluonlite.subgraph import partition_graph
        y = sym.exp(sym.identity(sym.tanh(sym.var('x'), name='t')))
        partition_graph(y, 'MKLDNN_QUANTIZE').get_children().list_outputs()   # ['t_output']
    """

    # like MXNet's, for inference only: a bind that computes gradients keeps the dropouts
    inference_only = True

    def pre_partition(self, symbol):
        """Count the readers of every entry of `symbol` (see `IdentitySelector`).

        Args:
            symbol: the whole graph.

        Example::

            from gluonlite.subgraph.identity import IdentityRemovalProperty
            IdentityRemovalProperty().pre_partition(sym.relu(sym.var('x')))
        """
        self._uses = entry_uses(symbol)

    def create_subgraph_selector(self):
        """A new `IdentitySelector` over the counts of `pre_partition`.

        Example::

            from gluonlite.subgraph.identity import IdentityRemovalProperty
            IdentityRemovalProperty().create_subgraph_selector().found   # False
        """
        return IdentitySelector(getattr(self, "_uses", {}))

    def create_subgraph_node(self, symbol, subgraph_id):
        """A copy, without inputs, of the operator node of the chain `symbol`.

        Args:
            symbol: the chain as a Symbol (the operator, then the identities).
            subgraph_id: not used (the copy keeps the operator's name).

        Returns:
            Node: the operator node's copy.

        Example::

            from gluonlite.subgraph.identity import IdentityRemovalProperty
            pair = sym.Dropout(sym.relu(sym.var('x'), name='r'), p=0.5)
            IdentityRemovalProperty().create_subgraph_node(pair, 0).name   # 'r'
        """
        producer = next(n for n in topo_nodes(symbol.outputs)
                        if n.op is not None and not is_identity(n))
        return Node(producer.op, producer.name, producer.attrs, producer.params, (),
                    producer.source)


register_subgraph_property("MKLDNN_QUANTIZE", IdentityRemovalProperty)
