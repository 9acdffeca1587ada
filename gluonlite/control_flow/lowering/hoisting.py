"""Moving work that does not depend on the loop-carried state out of a loop.

A recurrent cell's input projection ``FullyConnected(x_t, W, b)`` reads only the step's
input and loop-invariant weights, so the T small products of a loop can be one product over
every step's rows before the loop (and, in the backward, one product for the input gradient
and one for the weight gradient after it). Two shapes of body qualify:

- ``_foreach``: ``FullyConnected(x_t, W, b)`` where ``x_t`` is a scanned data input and
  ``W``, ``b`` are free inputs. The projection of all steps becomes a new scanned input.
- ``_while_loop``: ``FullyConnected(squeeze(take(D, i), axis=0), W, b)`` where ``D``, ``W``,
  ``b`` are not loop vars (the seed benchmark's WhileRNN). ``FC`` commutes with ``take``, so
  the body reads ``squeeze(take(FC_rows(D), i), axis=0)`` instead, whatever ``i`` does.

When the body adds a hoisted projection to another FullyConnected of the same shape (an RNN
or LSTM cell's ``i2h + h2h``), that one's bias is folded into the projection too: the loop
adds it once over all steps instead of once per step.

A `Hoist` is the decision: the body rewritten (`gluonlite.symbol.rewrite.substitute`), new
loop params whose index maps address it, and where the projections read from. Running it
(the prologue on the node's inputs, the gradients mapped back) is `hoisted.py`'s; the
lowered loop itself runs unchanged on the new params. The
decisions (`decisions`) say once per compiled plan whether a loop is hoisted; the
projections' buffers are the plan step's (`runtime.LoopBuffers`). The results equal the
plain loop's (tested with `loop_optimizations(False)`).
"""
from ...ops import registry
from ...ops.registry import Params
from ...symbol.rewrite import substitute
from ...symbol.symbol import Node, topo_nodes
from ..body import body_vars

__all__ = ["Hoist", "foreach_hoist", "while_hoist"]

_FC = "FullyConnected"


class _Projection:
    """One hoisted FullyConnected: its params, where its data and weights come from, and the
    bias of a per-step product folded into it (`folded`: a node input index, or None)."""

    __slots__ = ("p", "data", "weight", "bias", "folded")

    def __init__(self, p, data, weight, bias):
        self.p, self.data, self.weight, self.bias = p, data, weight, bias
        self.folded = None


class Hoist:
    """A loop node's body with its input projections hoisted (see the module docstring).

    Attributes:
        params: the loop params for the rewritten body (run by the unchanged loop kernels).
        loop: the rewritten loop's `LoopSpec`.
        projections: the hoisted FullyConnected nodes; `data`/`weight`/`bias` index the
            node's inputs.
        layout: how to build the rewritten loop's inputs from the node's inputs and the
            projections: a list of ('in', node input index) or ('proj', projection index).

    Example::

        from gluonlite.symbol.symbol import topo_nodes
        from gluonlite.control_flow.lowering import decisions, hoisting
        def step(x, h):   # x's projection by w does not depend on the state: hoistable
            new = sym.tanh(sym.FullyConnected(x, sym.var('w'), no_bias=True, num_hidden=4) + h[0])
            return new, [new]
        outs, _ = sym.contrib.foreach(step, sym.var('data'), [sym.var('h0')])
        node = [n for n in topo_nodes(outs.outputs) if n.op and n.op.name == '_foreach'][0]
        hoist = hoisting.foreach_hoist(node.params, lambda q: decisions.LoopSpec('_foreach', q))
        hoist.layout   # [('proj', 0), ('in', 1)]: the projection replaces data
    """

    def __init__(self, params, projections, layout, loop):
        self.params, self.projections, self.layout = params, projections, layout
        self.loop = loop


def _fc_parts(m):
    """(data entry, weight var, bias var or None) of a FullyConnected node m."""
    weight = m.inputs[1][0]
    bias = None if m.params.no_bias else m.inputs[2][0]
    return m.inputs[0], weight, bias


class _Rewrite:
    """The projections a finder collects: the body rewrite and where each one reads from."""

    def __init__(self, source):
        self.source = source  # id(body var) -> node input index
        self.mapping, self.new_vars, self.projections, self.nodes = {}, [], [], []

    def add(self, fc, data_var, weight, bias, replacement, var):
        """Hoist FullyConnected node `fc`: the body reads `replacement` instead of its output,
        and the loop gets the new input `var`."""
        self.mapping[(id(fc), 0)] = replacement
        self.new_vars.append(var)
        self.nodes.append(fc)
        self.projections.append(_Projection(fc.params, self.source[id(data_var)],
                                            self.source[id(weight)],
                                            None if bias is None else self.source[id(bias)]))

    def fold_biases(self, body, invariant):
        """Fold into each projection the bias of the FullyConnected it is added to (see the
        module docstring): ``elemwise_add(FC(x_t, W, b), FC(h, U, c))`` where each FC feeds
        only that add, `h` is a body input and `c` an invariant one (ids in `invariant`)
        becomes ``elemwise_add(projection + c, FC(h, U, no_bias=True))``."""
        users = {}
        for n in topo_nodes(body.outputs):
            for src, i in n.inputs:
                users.setdefault((id(src), i), []).append(n)
        for src, i in body.outputs:  # a body output is a use too: its value must not change
            users.setdefault((id(src), i), []).append(None)
        fc_op = registry.get(_FC)
        hoisted = {id(m) for m in self.nodes}
        for pr, m in zip(self.projections, self.nodes):
            add = users.get((id(m), 0), [])
            if len(add) != 1 or add[0] is None or add[0].op is None or \
                    add[0].op.name != "elemwise_add":
                continue
            (other, oi), = [e for e in add[0].inputs if e[0] is not m] or [(None, 0)]
            # `other` must be a per-step product, not another projection (nor one already
            # folded into a projection)
            if other is None or id(other) in hoisted or (id(other), 0) in self.mapping or \
                    oi != 0 or other.op is not fc_op or other.params.no_bias or \
                    len(users.get((id(other), 0), [])) != 1 or \
                    other.params.num_hidden != m.params.num_hidden or \
                    other.inputs[0][0].op is not None or id(other.inputs[2][0]) not in invariant:
                continue
            q, strings = fc_op.parse({"num_hidden": other.params.num_hidden, "no_bias": True,
                                      "flatten": other.params.flatten})
            self.mapping[(id(other), 0)] = (
                Node(fc_op, other.name, strings, q, other.inputs[:2], other.source), 0)
            pr.folded = self.source[id(other.inputs[2][0])]

    def hoist(self, body, invariant, carried, rewrite, decide_loop):
        """The `Hoist` of the projections found, or None when there are none (or the
        rewrite dropped a carried var, `carried`): the biases folded in (`fold_biases`),
        `body` rewritten, then ``rewrite(new body, its vars, {id(var): position})`` gives
        the rewritten loop's (params, layout) and `decide_loop(params)` its spec."""
        self.fold_biases(body, invariant)
        if not self.projections:
            return None
        new_body = substitute(body, self.mapping)
        nvars = body_vars(new_body)
        pos = {id(v): j for j, v in enumerate(nvars)}
        if not all(id(v) in pos for v in carried):
            return None
        q, layout = rewrite(new_body, nvars, pos)
        return Hoist(q, self.projections, layout, decide_loop(q))


def _rewritten_params(p, subgraphs, **locs):
    """The rewritten loop's params: p's attributes with new index maps and bodies."""
    q = Params(p)
    q.update(locs)
    q["_subgraphs"] = subgraphs
    return q


def foreach_hoist(p, decide_loop):
    """The `Hoist` of a `_foreach` node's params, or None when nothing qualifies;
    `decide_loop(params)` gives the rewritten loop's spec.

    Args:
        p: the `_foreach` node's params.
        decide_loop: ``decide_loop(params) -> LoopSpec`` for the rewritten loop.

    Example::

        from gluonlite.symbol.symbol import topo_nodes
        from gluonlite.control_flow.lowering import decisions, hoisting
        def step(x, h):   # x's projection by w does not depend on the state: hoistable
            new = sym.tanh(sym.FullyConnected(x, sym.var('w'), no_bias=True, num_hidden=4) + h[0])
            return new, [new]
        outs, _ = sym.contrib.foreach(step, sym.var('data'), [sym.var('h0')])
        node = [n for n in topo_nodes(outs.outputs) if n.op and n.op.name == '_foreach'][0]
        hoist = hoisting.foreach_hoist(node.params, lambda q: decisions.LoopSpec('_foreach', q))
        len(hoist.projections)   # 1
    """
    body = p["_subgraphs"][0]
    vars_ = body_vars(body)
    n_d, n_s = len(p.in_data_locs), len(p.in_state_locs)
    source = {}  # id(body var) -> node input index
    for k, loc in enumerate(p.in_data_locs):
        source[id(vars_[loc])] = k
    for k, loc in enumerate(p.in_state_locs):
        source[id(vars_[loc])] = n_d + k
    for k, loc in enumerate(p.remain_locs):
        source[id(vars_[loc])] = n_d + n_s + k
    data_ids = {id(vars_[loc]) for loc in p.in_data_locs}
    free_ids = {id(vars_[loc]) for loc in p.remain_locs}
    found = _Rewrite(source)
    for m in topo_nodes(body.outputs):
        if m.op is None or m.op.name != _FC:
            continue
        (d, di), w, b = _fc_parts(m)
        if di != 0 or id(d) not in data_ids or id(w) not in free_ids or \
                (b is not None and id(b) not in free_ids):
            continue
        v = Node(None, f"{m.name}_hoisted")
        found.add(m, d, w, b, (v, 0), v)
    state_vars = [vars_[loc] for loc in p.in_state_locs]

    def rewrite(new_body, nvars, pos):
        data = [(vars_[loc], ("in", k)) for k, loc in enumerate(p.in_data_locs)
                if id(vars_[loc]) in pos]
        data += [(v, ("proj", h)) for h, v in enumerate(found.new_vars)]
        remain = [(vars_[loc], ("in", n_d + n_s + k)) for k, loc in enumerate(p.remain_locs)
                  if id(vars_[loc]) in pos]
        layout = [src for _, src in data] + [("in", n_d + k) for k in range(n_s)] + \
            [src for _, src in remain]
        q = _rewritten_params(p, [new_body], in_data_locs=[pos[id(v)] for v, _ in data],
                              in_state_locs=[pos[id(v)] for v in state_vars],
                              remain_locs=[pos[id(v)] for v, _ in remain],
                              num_args=len(layout) + 1)
        return q, layout
    return found.hoist(body, free_ids, state_vars, rewrite, decide_loop)


def _take_squeeze_source(entry):
    """(take node, D var) when `entry` is squeeze(take(D, i, axis=0), axis=0), else None."""
    sq, i = entry
    if i != 0 or sq.op is None or sq.op.name != "squeeze" or sq.params.axis not in (0, (0,)):
        return None
    tk = sq.inputs[0][0]
    if tk.op is None or tk.op.name != "take" or tk.params.axis != 0 or sq.inputs[0][1] != 0:
        return None
    d = tk.inputs[0][0]
    return (tk, d) if d.op is None and tk.inputs[0][1] == 0 else None


def while_hoist(p, decide_loop):
    """The `Hoist` of a `_while_loop` node's params (as `foreach_hoist`), or None.

    Args:
        p: the `_while_loop` node's params.
        decide_loop: ``decide_loop(params) -> LoopSpec`` for the rewritten loop.

    Example::

        from gluonlite.symbol.symbol import topo_nodes
        from gluonlite.control_flow.lowering import decisions, hoisting
        i, s, D = sym.var('i'), sym.var('s'), sym.var('D')
        def func(i, s):   # projects row i of D, which the counter i picks
            x = sym.squeeze(sym.take(D, i, axis=0), axis=0)
            new = sym.tanh(sym.FullyConnected(x, sym.var('w'), num_hidden=2, no_bias=True) + s)
            return s, [i + 1, new]
        out, _ = sym.contrib.while_loop(lambda i, s: i < 3, func, [i, s], max_iterations=5)
        node = [n for n in topo_nodes(out.outputs) if n.op and n.op.name == '_while_loop'][0]
        hoist = hoisting.while_hoist(node.params, lambda q: decisions.LoopSpec('_while_loop', q))
        len(hoist.projections)   # 1: all rows of D projected at once, before the loop
    """
    func = p["_subgraphs"][1]
    vars_ = body_vars(func)
    var_positions = set(p.func_var_locs)
    source = {id(v): p.func_input_locs[j] for j, v in enumerate(vars_)}
    invariant = {id(v) for j, v in enumerate(vars_) if j not in var_positions}
    n_node = p.num_args - 2
    found = _Rewrite(source)
    take_op, squeeze_op = registry.get("take"), registry.get("squeeze")
    for m in topo_nodes(func.outputs):
        if m.op is None or m.op.name != _FC:
            continue
        row_of = _take_squeeze_source(m.inputs[0])
        _, w, b = _fc_parts(m)
        if row_of is None or id(row_of[1]) not in invariant or id(w) not in invariant or \
                (b is not None and id(b) not in invariant):
            continue
        tk, d = row_of
        v = Node(None, f"{m.name}_hoisted")
        tp, ts = take_op.parse({"axis": 0, "mode": tk.params.mode})
        taken = Node(take_op, f"{m.name}_hoisted_take", ts, tp, [(v, 0), tk.inputs[1]])
        sp, ss = squeeze_op.parse({"axis": 0})
        row = Node(squeeze_op, f"{m.name}_hoisted_row", ss, sp, [(taken, 0)])
        found.add(m, d, w, b, (row, 0), v)
    loop_vars = [vars_[j] for j in p.func_var_locs]

    def rewrite(new_func, nvars, pos):
        new_vars = found.new_vars
        extra = {id(v): n_node + h for h, v in enumerate(new_vars)}
        q = _rewritten_params(p, [p["_subgraphs"][0], new_func],
                              func_input_locs=[source.get(id(v), extra.get(id(v)))
                                               for v in nvars],
                              func_var_locs=[pos[id(v)] for v in loop_vars],
                              num_args=n_node + len(new_vars) + 2)
        layout = [("in", i) for i in range(n_node)] + \
            [("proj", h) for h in range(len(new_vars))]
        return q, layout
    return found.hoist(func, invariant, loop_vars, rewrite, decide_loop)
