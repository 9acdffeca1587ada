"""The recorded history of an imperative array as a Symbol (`autograd.get_symbol`).

Installed into `gluonlite.autograd` when this package loads (with `Symbol`, which MXNet's
autograd module also names): the symbolic layer imports autograd, never the other way round.
"""
from .. import autograd
from ..autograd_tape import Leaf, toposort
from ..ops.attrs import format_attr
from .symbol import Node, Symbol, topo_nodes

__all__ = ["history_to_symbol"]


def _given_attrs(op, params):
    """The attribute strings of a call: those whose value differs from the default."""
    strings = {}
    for k, v in params.items():
        spec = op.attrs.get(k)
        if spec is None or v is None:
            continue
        try:
            same = bool(v == spec.default)
        except ValueError:  # an array-valued attribute
            same = False
        if not same:
            strings[k] = format_attr(v)
    return strings


def history_to_symbol(entry):
    """A Symbol whose one output computes the tape `entry` ``(node, index)``.

    Variables marked for gradients are named ``var0, var1, ...`` and other arrays the calls
    read ``null0, null1, ...``; operator calls are ``node_0, node_1, ...`` (MXNet's names).

    Raises:
        NotImplementedError: a recorded step with no operator form.
    """
    order, _ = toposort([entry[0]])
    made = {}
    for t in order:
        if t.__class__ is Leaf:
            made[id(t)] = Node(None, "var")
            continue
        if t.call is None:
            raise NotImplementedError(
                f"get_symbol: the history holds a {t.label!r} step (a hybridized block or an "
                "autograd.Function), which has no operator form")
        ins = [(Node(None, "null"), 0) if e is None else (made[id(e[0])], e[1])
               for e in t.inputs]
        steps = t.call() if callable(t.call) else [(t.call.op, t.call.p)]
        for op, params in steps:  # a chain: each step reads the previous one's output
            node = Node(op, "node_", _given_attrs(op, params), params, ins)
            ins = [(node, 0)]
        made[id(t)] = node
    out = Symbol([(made[id(entry[0])], entry[1])])
    counts = {}
    for n in topo_nodes(out.outputs):  # numbered in graph order, as MXNet's
        k = counts[n.name] = counts.get(n.name, -1) + 1
        n.name = f"{n.name}{k}"
    return out


autograd._history_to_symbol = history_to_symbol
autograd.Symbol = Symbol
