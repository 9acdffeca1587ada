"""Common subexpression elimination at bind, as MXNet's executor does it
(``MXNET_ELIMINATE_COMMON_EXPR``, on unless set to 0): two operator nodes with the same
operator, the same attributes and the same inputs compute the same values, so one of them is
kept. An output that then appears twice gets a ``_copy`` for its second place, so that each
output is its own array.

Never merged: variables, nodes without inputs, and nodes whose result is not a function of
their inputs and attributes alone (random operators, Dropout), that update an input
(auxiliary states, optimizer updates) or that hold a subgraph or state (loops, branches).
"""
import os

from ..ops import registry
from ..symbol.symbol import Node, Symbol, topo_nodes

__all__ = ["eliminate_common_expr", "cse_enabled"]


def cse_enabled():
    """Whether bind eliminates common subexpressions (the environment variable
    ``MXNET_ELIMINATE_COMMON_EXPR``, read at bind; on unless it is ``0``, as in MXNet).

    Example::

        from gluonlite.executor.cse import cse_enabled
        cse_enabled()   # True unless MXNET_ELIMINATE_COMMON_EXPR=0
    """
    return os.environ.get("MXNET_ELIMINATE_COMMON_EXPR", "1").strip() != "0"


def _mergeable(node):
    op = node.op
    # An operator that updates an input in place declares it auxiliary (the optimizer
    # updates' states), so has_aux covers it; the stateless updates are pure.
    return (bool(node.inputs) and not op.random and not op.stateful and not op.has_aux
            and not node.subgraphs)


def eliminate_common_expr(symbol):
    """`symbol` with duplicate operator nodes merged (see the module docstring); the same
    Symbol when there is nothing to merge. Arguments, auxiliary states and outputs keep
    their names and order.

    Example::

        from gluonlite.executor.cse import eliminate_common_expr
        a, b = sym.var('a'), sym.var('b')
        z = eliminate_common_expr((a + b) + (a + b))
        len(z.get_internals().list_outputs())   # 4
    """
    kept, seen, merged = {}, {}, False
    for node in topo_nodes(symbol.outputs):
        if node.op is None:
            kept[id(node)] = node
            continue
        inputs = [(kept[id(src)], i) for src, i in node.inputs]
        key = None
        if _mergeable(node):
            key = (node.op.name, tuple(sorted(node.attrs.items())),
                   tuple((id(src), i) for src, i in inputs))
            if key in seen:
                kept[id(node)], merged = seen[key], True
                continue
        new = Node(node.op, node.name, node.attrs, node.params, inputs, node.source)
        kept[id(node)] = new
        if key is not None:
            seen[key] = new
    if not merged:
        return symbol
    outputs, taken = [], set()
    copy = registry.get("_copy")
    for src, i in symbol.outputs:
        entry = (kept[id(src)], i)
        if (id(entry[0]), i) in taken:
            dup = Node(copy, f"{entry[0].name}_copy{len(outputs)}", {}, copy.parse({})[0],
                       [entry], entry[0].source)
            entry = (dup, 0)
        taken.add((id(entry[0]), entry[1]))
        outputs.append(entry)
    return Symbol(outputs)
