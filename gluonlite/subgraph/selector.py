"""`SubgraphSelector`: the rules that decide which nodes the partition pass groups together.

The pass (see `gluonlite.subgraph.partition`) visits nodes in topological order; a node that
`select` accepts seeds a subgraph, which grows breadth-first through `select_input` and
`select_output`; `filter` then has the last word on the candidates.
"""
from ..ops import registry

__all__ = ["SubgraphSelector", "ContainOpSelector"]


class SubgraphSelector:
    """Base class of selectors: override `select`, `select_input`, `select_output` (and
    `filter` to post-process a candidate set).

    Every method receives graph nodes (`gluonlite.symbol.symbol.Node`: ``op``, ``name``,
    ``attrs``, ``params``, ``inputs``). A loop or branch node is one node here: its body is
    never visited. Variables are never grouped, whatever a selector answers.

    Example::

        from gluonlite.subgraph import SubgraphSelector
        class ExpTanh(SubgraphSelector):
            def select(self, node):
                return node.op.name == "exp"
            def select_input(self, node, input_node):
                return input_node.op is not None and input_node.op.name in ("exp", "tanh")
            def select_output(self, node, output_node):
                return output_node.op.name in ("exp", "tanh")
    """

    def select(self, node):
        """Whether `node` may seed a new subgraph. Returns a bool (default False).

        Example::

            from gluonlite.subgraph.grouping import IndexedGraph
            x = sym.var('x'); g = IndexedGraph(sym.tanh(sym.exp(x)) + x)   # x, exp, tanh, +
            mx.subgraph.SubgraphSelector().select(g.nodes[1])   # False: selects nothing
        """
        return False

    def select_input(self, node, input_node):
        """Whether `input_node`, an input of the subgraph node `node`, joins the subgraph.

        Example::

            from gluonlite.subgraph.grouping import IndexedGraph
            x = sym.var('x'); g = IndexedGraph(sym.tanh(sym.exp(x)) + x)   # x, exp, tanh, +
            mx.subgraph.SubgraphSelector().select_input(g.nodes[2], g.nodes[1])   # False
        """
        return False

    def select_output(self, node, output_node):
        """Whether `output_node`, a consumer of the subgraph node `node`, joins the subgraph.

        Example::

            from gluonlite.subgraph.grouping import IndexedGraph
            x = sym.var('x'); g = IndexedGraph(sym.tanh(sym.exp(x)) + x)   # x, exp, tanh, +
            mx.subgraph.SubgraphSelector().select_output(g.nodes[1], g.nodes[2])   # False
        """
        return False

    def filter(self, candidates):
        """The nodes to keep among `candidates` (a list of nodes in topological order).

        Returns a subset of `candidates`; a subset that falls apart becomes one subgraph per
        connected part. Default: keep them all.

        Example::

            from gluonlite.subgraph.grouping import IndexedGraph
            x = sym.var('x'); g = IndexedGraph(sym.tanh(sym.exp(x)) + x)   # x, exp, tanh, +
            mx.subgraph.SubgraphSelector().filter(g.nodes[1:3])   # both nodes, kept
        """
        return list(candidates)


def _resolve_op_names(op_names, where):
    """The set of operator objects named in `op_names` (aliases resolve to their operator).

    Raises:
        TypeError: `op_names` is a bare string or holds a non-string.
        ValueError: a name that is not a registered operator.
    """
    if isinstance(op_names, str):
        raise TypeError(f"{where}: op_names must be a list of operator names, got the string "
                        f"{op_names!r}; write [{op_names!r}]")
    ops = set()
    for name in op_names:
        if not isinstance(name, str):
            raise TypeError(f"{where}: op_names must hold strings, got {type(name).__name__} "
                            f"{name!r}")
        try:
            ops.add(registry.get(name))
        except ValueError as e:
            raise ValueError(f"{where}: op_names: {e}") from None
    return ops


class ContainOpSelector(SubgraphSelector):
    """Selects connected operator nodes whose operator is one of `op_names` (the rule of the
    built-in ``'default'`` backend), growing through inputs and outputs alike.

    Args:
        op_names: operator names (aliases allowed: ``'_plus'`` matches ``elemwise_add``).

    Raises:
        TypeError, ValueError: see `_resolve_op_names`.

    Example::

        from gluonlite.subgraph.grouping import IndexedGraph
        sel = mx.subgraph.ContainOpSelector(['exp', 'tanh'])
        x = sym.var('x'); g = IndexedGraph(sym.tanh(sym.exp(x)))
        sel.select(g.nodes[1])   # True: an exp node
    """

    def __init__(self, op_names):
        self.ops = _resolve_op_names(op_names, "ContainOpSelector")

    def _ok(self, node):
        return node.op is not None and node.op in self.ops

    def select(self, node):
        """Seed at operator nodes of the listed operators.

        Args:
            node: the graph node to consider as a seed.

        Returns:
            True when `node` is an operator node of one of the listed operators.

        Example::

            from gluonlite.subgraph.grouping import IndexedGraph
            x = sym.var('x'); g = IndexedGraph(sym.tanh(sym.exp(x)) + x)   # x, exp, tanh, +
            mx.subgraph.ContainOpSelector(['exp']).select(g.nodes[1])   # True: exp
        """
        return self._ok(node)

    def select_input(self, node, input_node):
        """Grow into inputs of the listed operators.

        Args:
            node: a graph node (a `gluonlite.symbol` Node) already in the subgraph.
            input_node: a node that feeds `node`.

        Returns:
            True when `input_node` is an operator node of one of the listed operators.

        Example::

            from gluonlite.subgraph.grouping import IndexedGraph
            x = sym.var('x'); g = IndexedGraph(sym.tanh(sym.exp(x)) + x)   # x, exp, tanh, +
            sel = mx.subgraph.ContainOpSelector(['exp', 'tanh'])
            sel.select_input(g.nodes[2], g.nodes[1])   # True: tanh's input is an exp
        """
        return self._ok(input_node)

    def select_output(self, node, output_node):
        """Grow into consumers of the listed operators.

        Args:
            node: a graph node (a `gluonlite.symbol` Node) already in the subgraph.
            output_node: a node that reads `node`.

        Returns:
            True when `output_node` is an operator node of one of the listed operators.

        Example::

            from gluonlite.subgraph.grouping import IndexedGraph
            x = sym.var('x'); g = IndexedGraph(sym.tanh(sym.exp(x)) + x)   # x, exp, tanh, +
            sel = mx.subgraph.ContainOpSelector(['exp', 'tanh'])
            sel.select_output(g.nodes[2], g.nodes[3])   # False: '+' is not listed
        """
        return self._ok(output_node)
