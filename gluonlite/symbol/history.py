"""The recorded history of an imperative array as a Symbol (`autograd.get_symbol`).

Installed into `gluonlite.autograd` when this package loads (with `Symbol`, which MXNet's
autograd module also names): the symbolic layer imports autograd, never the other way round.
"""
from .. import autograd
from ..autograd_tape import Leaf, toposort
from ..ops import registry
from ..ops.attrs import format_attr
from ..ops.registry import Params
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


def _subgraph_call(sub, inline, ins):
    """The output entries of a recorded hybridized call on input entries `ins`: the subgraph's
    operator nodes copied onto them (`inline`), or one ``_CachedOp`` node holding it."""
    if not inline:
        node = Node(registry.get("_CachedOp"), "node_", {}, Params({"_subgraphs": [sub]}), ins)
        return [(node, i) for i in range(len(sub.outputs))]
    made = {id(v): e for v, e in zip(_variables(sub), ins)}
    for n in topo_nodes(sub.outputs):
        if n.op is not None:
            made[id(n)] = Node(n.op, "node_", dict(n.attrs), n.params,
                               [_entry(made, src, k) for src, k in n.inputs])
    return [_entry(made, n, k) for n, k in sub.outputs]


def _variables(sub):
    return [n for n in topo_nodes(sub.outputs) if n.op is None]


def _entry(made, node, k):
    got = made[id(node)]
    return got if node.op is None else (got, k)


def history_to_symbol(entry):
    """A Symbol whose one output computes the tape `entry` ``(node, index)``.

    Variables marked for gradients are named ``var0, var1, ...`` and other arrays the calls
    read ``null0, null1, ...``; operator calls are ``node_0, node_1, ...`` (MXNet's names). A
    hybridized call appears as its operators when its graph is within the block's
    ``inline_limit``, otherwise as one ``_CachedOp`` node holding the graph (as in MXNet).

    Example::

        x = nd.array([1, 2])
        x.attach_grad()
        with autograd.record():
            y = nd.relu(x * 2)
        autograd.get_symbol(y).list_arguments()   # ['var0'] (get_symbol calls this)

    Raises:
        NotImplementedError: a recorded step with no operator form.
    """
    order, _ = toposort([entry[0]])
    made = {}  # id(tape node) -> its output entries
    for t in order:
        if t.__class__ is Leaf:
            made[id(t)] = [(Node(None, "var"), 0)]
            continue
        if t.call is None:
            raise NotImplementedError(
                f"get_symbol: the history holds a {t.label!r} step (an autograd.Function or "
                "an imperative loop), which has no operator form")
        ins = [(Node(None, "null"), 0) if e is None else made[id(e[0])][e[1]]
               for e in t.inputs]
        sub = getattr(t.call, "subgraph", None)
        if sub is not None:
            made[id(t)] = _subgraph_call(sub, t.call.inline, ins)
            continue
        steps = t.call() if callable(t.call) else [(t.call.op, t.call.p)]
        for op, params in steps:  # a chain: each step reads the previous one's output
            node = Node(op, "node_", _given_attrs(op, params), params, ins)
            ins = [(node, 0)]
        made[id(t)] = [(node, i) for i in range(t.nout)]
    out = Symbol([made[id(entry[0])][entry[1]]])
    counts = {}
    for n in topo_nodes(out.outputs):  # numbered in graph order, as MXNet's
        k = counts[n.name] = counts.get(n.name, -1) + 1
        n.name = f"{n.name}{k}"
    return out


autograd._history_to_symbol = history_to_symbol
autograd.Symbol = Symbol
