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

Its imperative twin (`unpack_recorded`) does the same on the autograd tape: an ``RNN`` called
on NDArrays whose parameters autograd recorded as such a concatenation runs `_rnn_unpacked`
on the parts, so that the backward writes each parameter's gradient into its buffer instead
of splitting a packed one.

Example::

    from gluonlite.executor import unpack_rnn_params
    net = gluon.rnn.LSTM(4, input_size=3); net.initialize()
    lstm = net(sym.var('data'))
    rewritten = unpack_rnn_params(lstm)     # what compile_plan sees for a hybridized LSTM
"""
from ..autograd_tape import TapeNode
from ..ndarray.invoke import CallPlan, plan_for, register_call_rewrite
from ..ndarray.ndarray import NDArray
from ..ops.registry import get
from ..symbol.rewrite import substitute
from ..symbol.symbol import Node, topo_nodes
from .hooks import register_graph_pass

__all__ = ["unpack_rnn_params", "unpack_recorded"]


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

    Example::

        net = gluon.rnn.LSTM(4, input_size=3); net.initialize()
        out = net(sym.var('data'))   # RNN(data, _rnn_param_concat(...), ...)
        '_rnn_unpacked' in mx.executor.unpack_rnn_params(out).tojson()   # True
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


def _recorded_part(entry, raw, ctx):
    """A packed part as the concatenation recorded it, looking through a reshape (a reshape
    keeps the elements' order): an NDArray holding the raw array with its tape entry."""
    src = entry[0] if entry is not None else None
    call = getattr(src, "call", None) if src.__class__ is TapeNode else None
    if call.__class__ is CallPlan and call.op.fast.reshapes and src.saved is not None:
        raw, entry = src.saved[2][0], src.inputs[0]
    part = NDArray(raw, ctx)
    part._entry = entry
    return part


def unpack_recorded(plan, inputs):
    """`unpack_rnn_params` on a recorded call: ``(the _rnn_unpacked call, its inputs)`` for
    an ``RNN`` call (`plan`, NDArray `inputs`) whose parameters autograd recorded as
    ``_rnn_param_concat`` along axis 0, or None (other parameters, or sequence lengths).

    Example::

        from gluonlite.executor.rnn_params import unpack_recorded
        from gluonlite.ndarray.invoke import plan_for
        from gluonlite.ops import registry
        call = plan_for(registry.get('RNN'), {'state_size': '2', 'num_layers': '1',
                                              'mode': 'rnn_tanh'})
        unpack_recorded(call, [nd.ones((4, 1, 3)), nd.zeros(14), nd.zeros((1, 1, 2))])
        # None: these parameters were not recorded as _rnn_param_concat
    """
    if plan.p.use_sequence_length or inputs[1]._entry is None:
        return None
    concat = inputs[1]._entry[0]
    call = concat.call if concat.__class__ is TapeNode else None
    if call.__class__ is not CallPlan or call.op.name != "_rnn_param_concat" or \
            call.p.dim != 0 or concat.saved is None:
        return None
    _, ctx, raws, _ = concat.saved
    parts = [_recorded_part(e, raw, ctx) for e, raw in zip(concat.inputs, raws)]
    ins = [inputs[0]] + parts + list(inputs[2:])
    return plan_for(get("_rnn_unpacked"), dict(plan.p, num_args=len(ins))), ins


register_call_rewrite("RNN", unpack_recorded)
