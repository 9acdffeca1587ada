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

Its imperative twin (`unpack_call`, tried on every imperative ``RNN`` call) does the same
without a graph. An RNN layer called on NDArrays packs its parameters with
`pack_rnn_params`, which gives a `PackedParams`: the vector of the parts, packed only if
something reads its data. The twin runs `_rnn_unpacked` on its parts instead (recorded or
not), so an imperative call neither copies the weights into a vector nor splits a packed
gradient; the parts are the parameters' arrays as they are at the call, so nothing is
cached between calls that an update could leave stale. An ``RNN`` whose parameters autograd
recorded as a ``_rnn_param_concat`` along axis 0 is rewritten the same way.

Example::

    from gluonlite.executor import unpack_rnn_params
    net = gluon.rnn.LSTM(4, input_size=3); net.initialize()
    lstm = net(sym.var('data'))
    rewritten = unpack_rnn_params(lstm)     # what compile_plan sees for a hybridized LSTM
"""
from ..autograd_tape import TapeNode
from ..ndarray.invoke import CallPlan, invoke, plan_for, register_call_rewrite
from ..ndarray.ndarray import NDArray
from ..ops.registry import get
from ..symbol.rewrite import entry_uses, substitute
from ..symbol.symbol import Node, topo_nodes
from .hooks import register_graph_pass

__all__ = ["unpack_rnn_params", "unpack_call", "unpack_recorded", "pack_rnn_params",
           "PackedParams"]


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
    uses = entry_uses(symbol)
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


# the base class's storage of `_data`, which PackedParams reads and writes through
_DATA_SLOT = NDArray.__dict__["_data"]


class PackedParams(NDArray):
    """An RNN layer's packed parameter vector given by its parts: what ``_rnn_param_concat``
    of the flattened parts holds, packed only when something reads its data.

    `pack_rnn_params` makes one per imperative call, and the ``RNN`` call's twin
    (`unpack_call`) runs `_rnn_unpacked` on `parts` instead, so in the usual call the
    vector is never built. Read outside that call, the data is packed from the parts as they
    are at the first read, without an autograd record.

    Args:
        parts: the parameter NDArrays in the packed vector's order (any shapes, one dtype,
            one context).

    Example::

        from gluonlite.executor.rnn_params import PackedParams
        v = PackedParams([nd.ones((2, 2)), nd.zeros((3,))])
        v.shape, v.asnumpy().tolist()   # ((7,), [1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0])
    """

    __slots__ = ("parts",)

    def __init__(self, parts):
        self.parts = tuple(parts)
        NDArray.__init__(self, None, self.parts[0]._ctx)

    @property
    def _data(self):
        data = _DATA_SLOT.__get__(self)
        if data is None:
            xp = self._ctx.xp
            data = xp.concatenate([p._data.reshape(-1) for p in self.parts])
            _DATA_SLOT.__set__(self, data)
        return data

    @_data.setter
    def _data(self, data):
        _DATA_SLOT.__set__(self, data)

    def concat(self):
        """The packed vector as the ``_rnn_param_concat`` call of the flattened parts,
        recorded when autograd records (what an ``RNN`` call the twin cannot unpack reads).

        Returns:
            NDArray: the (sum of the parts' sizes,) vector.

        Example::

            from gluonlite.executor.rnn_params import PackedParams
            PackedParams([nd.ones((2, 2)), nd.zeros((3,))]).concat().shape   # (7,)
        """
        flat = [p.reshape((-1,)) for p in self.parts]
        return invoke(get("_rnn_param_concat"), flat, {"dim": 0, "num_args": len(flat)})[0]


def pack_rnn_params(F, parts):
    """An RNN layer's packed parameter vector (MXNet's order, see `gluonlite.ops.rnn`):
    symbolically ``F._rnn_param_concat`` of every part flattened, the graph MXNet's layers
    export (which `unpack_rnn_params` rewrites when compiled); imperatively a `PackedParams`
    that the ``RNN`` call runs unpacked (`unpack_call`).

    Args:
        F: the namespace of the computation (``nd`` or ``sym``).
        parts: the parameters (NDArrays or Symbols) in the packed order.

    Returns:
        Symbol or PackedParams: the vector to give ``F.RNN``.

    Example::

        from gluonlite.executor.rnn_params import pack_rnn_params
        pack_rnn_params(sym, [sym.var('w'), sym.var('b')]).list_arguments()   # ['w', 'b']
        pack_rnn_params(nd, [nd.ones((2, 2)), nd.zeros((3,))]).shape   # (7,)
    """
    if isinstance(parts[0], NDArray):
        return PackedParams(parts)
    return F._rnn_param_concat(*[w.reshape((-1,)) for w in parts], dim=0)


# {(RNN's CallPlan, number of inputs): the `_rnn_unpacked` CallPlan with its attributes}
_UNPACKED_PLANS = {}


def _unpacked_plan(plan, n):
    key = (plan, n)
    found = _UNPACKED_PLANS.get(key)
    if found is None:
        if len(_UNPACKED_PLANS) >= 256:
            _UNPACKED_PLANS.clear()
        found = _UNPACKED_PLANS[key] = plan_for(get("_rnn_unpacked"), dict(plan.p, num_args=n))
    return found


def unpack_call(plan, inputs):
    """The imperative twin of `unpack_rnn_params`, tried on every ``RNN`` call: ``(the
    _rnn_unpacked call, its inputs)`` when the parameters (`inputs[1]`) are a `PackedParams`
    or, under autograd, were recorded as ``_rnn_param_concat`` along axis 0 (see
    `unpack_recorded`); with ``use_sequence_length`` (which `_rnn_unpacked` does not take) a
    `PackedParams` is packed by a ``_rnn_param_concat`` call instead; else None.

    Args:
        plan: the ``RNN`` call's `CallPlan`.
        inputs: its input NDArrays (None for an absent optional one).

    Returns:
        (CallPlan, list of NDArray) to run instead, or None.

    Example::

        from gluonlite.executor.rnn_params import PackedParams, unpack_call
        from gluonlite.ndarray.invoke import plan_for
        from gluonlite.ops import registry
        call = plan_for(registry.get('RNN'), {'state_size': '2', 'num_layers': '1',
                                              'mode': 'rnn_tanh'})
        parts = [nd.zeros((2, 3)), nd.zeros((2, 2)), nd.zeros((2,)), nd.zeros((2,))]
        x, h = nd.ones((4, 1, 3)), nd.zeros((1, 1, 2))
        unpack_call(call, [x, PackedParams(parts), h])[0].op.name   # '_rnn_unpacked'
    """
    packed = inputs[1]
    if packed.__class__ is not PackedParams:
        return unpack_recorded(plan, inputs)
    if plan.p.use_sequence_length:
        return plan, [inputs[0], packed.concat(), *inputs[2:]]
    ins = [inputs[0], *packed.parts, *inputs[2:]]
    return _unpacked_plan(plan, len(ins)), ins


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
    if inputs[1]._entry is None or plan.p.use_sequence_length:
        return None
    concat = inputs[1]._entry[0]
    call = concat.call if concat.__class__ is TapeNode else None
    if call.__class__ is not CallPlan or call.op.name != "_rnn_param_concat" or \
            call.p.dim != 0 or concat.saved is None:
        return None
    _, ctx, raws, _ = concat.saved
    parts = [_recorded_part(e, raw, ctx) for e, raw in zip(concat.inputs, raws)]
    ins = [inputs[0]] + parts + list(inputs[2:])
    return _unpacked_plan(plan, len(ins)), ins


register_call_rewrite("RNN", unpack_call)
