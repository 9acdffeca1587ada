"""Rewriting graphs: replace entries and rebuild only what depends on them."""
from .symbol import Node, Symbol, topo_nodes

__all__ = ["substitute"]


def substitute(symbol, mapping):
    """A copy of `symbol` in which every use of an entry in `mapping` reads its replacement.

    Args:
        symbol: the graph.
        mapping: {(node, index) as (id(node), index): replacement entry (node, index)}.

    Returns:
        A new Symbol; nodes that do not depend on a replaced entry are shared, the others are
        copied with the same name, attributes and params.

    Example::

        new = substitute(body, {(id(fc), 0): (var_node, 0)})   # fc's output is now an input
    """
    copies = {}

    def entry(src, i):
        hit = mapping.get((id(src), i))
        if hit is not None:
            return hit
        return (copies.get(id(src), src), i)

    for n in topo_nodes(symbol.outputs):
        ins = [entry(s, i) for s, i in n.inputs]
        if any(new[0] is not old[0] for new, old in zip(ins, n.inputs)):
            copies[id(n)] = Node(n.op, n.name, n.attrs, n.params, ins, n.source)
    return Symbol([entry(n, i) for n, i in symbol.outputs])
