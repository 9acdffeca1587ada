"""Rewriting graphs: replace entries and rebuild only what depends on them."""
from .symbol import Node, Symbol, topo_nodes

__all__ = ["substitute", "entry_uses"]


def substitute(symbol, mapping):
    """A copy of `symbol` in which every use of an entry in `mapping` reads its replacement.

    Args:
        symbol: the graph.
        mapping: {(node, index) as (id(node), index): replacement entry (node, index)}.

    Returns:
        A new Symbol; nodes that do not depend on a replaced entry are shared, the others are
        copied with the same name, attributes and params. A replacement node built on
        entries of the old graph reads them through the substitution too, so that one
        replacement upstream of another leaves no copy of the old nodes behind.

    Example::

        new = substitute(body, {(id(fc), 0): (var_node, 0)})   # fc's output is now an input
    """
    copies = {}
    fixed = {}

    def replacement(node):
        new = fixed.get(id(node))
        if new is None:
            ins = [entry(s, i) for s, i in node.inputs]
            new = node if all(a[0] is b[0] for a, b in zip(ins, node.inputs)) else \
                Node(node.op, node.name, node.attrs, node.params, ins, node.source)
            fixed[id(node)] = new
        return new

    def entry(src, i):
        hit = mapping.get((id(src), i))
        if hit is not None:
            return (replacement(hit[0]), hit[1])
        return (copies.get(id(src), src), i)

    for n in topo_nodes(symbol.outputs):
        ins = [entry(s, i) for s, i in n.inputs]
        if any(new[0] is not old[0] for new, old in zip(ins, n.inputs)):
            copies[id(n)] = Node(n.op, n.name, n.attrs, n.params, ins, n.source)
    return Symbol([entry(n, i) for n, i in symbol.outputs])


def entry_uses(symbol):
    """How many node inputs and graph outputs read each entry of `symbol`.

    Args:
        symbol: the graph.

    Returns:
        dict: {(id(node), output index): count}; entries nothing reads are absent.

    Example::

        x = sym.var('x'); t = sym.tanh(x); y = t + t
        uses = entry_uses(y)
        uses[(id(t.outputs[0][0]), 0)]      # 2: both inputs of the addition
    """
    uses = {}
    for n in topo_nodes(symbol.outputs):
        for src, i in n.inputs:
            uses[(id(src), i)] = uses.get((id(src), i), 0) + 1
    for src, i in symbol.outputs:
        uses[(id(src), i)] = uses.get((id(src), i), 0) + 1
    return uses
