"""A graph pass: an `RNN` whose packed parameters are a `_rnn_param_concat` reads the parts.

MXNet's RNN layers pack their parameters on every call: each one flattened (``Reshape``),
joined by ``_rnn_param_concat``, then handed to ``RNN`` as one vector; its exports hold that
graph, and so do ours. Compiled as it stands, every call copies every weight into the vector
and the vector's gradient back out into each parameter's gradient. This pass gives such an
``RNN`` node the parts themselves instead (`_rnn_unpacked`, the same kernel reading each
part where it lies), looking through the flattening reshapes, so that a plan reads the
parameters in place and writes their gradients straight into the caller's buffers
(`Fast.writes_dests`).

The rewrite applies to the compiled graph only (the symbol a block exports is unchanged),
and only where the concatenation joins along axis 0 (as MXNet's layers do) and feeds nothing
else, the reshapes feed nothing else, and the ``RNN`` node takes no ``sequence_length``.

Example::

    rewritten = unpack_rnn_params(sym)     # what compile_plan sees for a hybridized LSTM
"""
from ..ops.registry import get
from ..symbol.rewrite import substitute
from ..symbol.symbol import Node, topo_nodes
from .hooks import register_graph_pass

__all__ = ["unpack_rnn_params"]


def _uses(symbol):
    """{(id(node), index): how many node inputs and graph outputs read that entry}."""
    uses = {}
    for n in topo_nodes(symbol.outputs):
        for src, i in n.inputs:
            uses[(id(src), i)] = uses.get((id(src), i), 0) + 1
    for src, i in symbol.outputs:
        uses[(id(src), i)] = uses.get((id(src), i), 0) + 1
    return uses


def _part(entry, uses):
    """The entry a concatenated part is read from: a reshape's input when the reshape feeds
    only the concatenation (a reshape keeps the elements' order), else the part itself."""
    src, i = entry
    if src.op is not None and src.op.fast.reshapes and uses.get((id(src), i)) == 1:
        return src.inputs[0]
    return entry


def unpack_rnn_params(symbol):
    """`symbol` with every ``RNN(data, _rnn_param_concat(*parts), state...)`` that allows it
    (see the module doc) turned into ``_rnn_unpacked(data, *parts, state...)``; the symbol
    itself when none does.

    Returns:
        A Symbol computing the same outputs (nodes not depending on a rewritten one shared).
    """
    nodes = topo_nodes(symbol.outputs)
    rnn = get("RNN")
    if not any(n.op is rnn for n in nodes):
        return symbol
    uses = _uses(symbol)
    unpacked = get("_rnn_unpacked")
    mapping = {}
    for n in nodes:
        if n.op is not rnn or n.params.use_sequence_length:
            continue
        src, i = n.inputs[1]
        if src.op is None or src.op.name != "_rnn_param_concat" or uses.get((id(src), i)) != 1 \
                or src.params.dim != 0:  # another axis interleaves the parts' elements
            continue
        # data, the parts, the states: the graph's variables are met in the same order, so
        # the compiled graph takes its inputs as the caller gives them (list_inputs())
        ins = n.inputs[:1] + [_part(e, uses) for e in src.inputs] + n.inputs[2:]
        attrs = dict(n.attrs, num_args=str(len(ins)))
        params = type(n.params)(n.params, num_args=len(ins))
        new = Node(unpacked, n.name, attrs, params, ins, n.source)
        for k in range(rnn.num_outputs(n.params)):
            mapping[(id(n), k)] = (new, k)
    return substitute(symbol, mapping) if mapping else symbol


register_graph_pass(unpack_rnn_params)
