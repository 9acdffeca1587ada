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

A `Hoist` rewrites the body (`gluonlite.symbol.rewrite.substitute`), keeps new loop params
whose index maps address the rewritten body, runs the prologue on the node's inputs, and
maps the gradients back. The lowered loop itself runs unchanged on the new params. The
decisions (`decisions`) say once per compiled plan whether a loop is hoisted; the
projections' buffers are the plan step's (`runtime.LoopBuffers`). The results equal the
plain loop's (tested with `loop_optimizations(False)`).
"""
import weakref

from ...ops import registry
from ...ops.registry import Params
from ...symbol.rewrite import substitute
from ...symbol.symbol import Node, topo_nodes
from ..body import body_vars
from .deferred import add_into, free_dest

__all__ = ["Hoist", "HoistedSaved", "foreach_hoist", "while_hoist", "run_hoisted",
           "hoisted_vjp"]

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
    """

    def __init__(self, params, projections, layout, loop):
        self.params, self.projections, self.layout = params, projections, layout
        self.loop = loop
        self._fc = registry.get(_FC)

    def _rows(self, pr, d):
        """Every step's rows of data `d` as one matrix, and the projection's output shape."""
        if pr.p.flatten:
            rows = d.reshape(d.shape[0] * d.shape[1], -1)
            return rows, (d.shape[0], d.shape[1], pr.p.num_hidden)
        return d.reshape(-1, d.shape[-1]), d.shape[:-1] + (pr.p.num_hidden,)

    def _fc_inputs(self, pr, xs, rows):
        return [rows, xs[pr.weight]] + ([] if pr.bias is None else [xs[pr.bias]])

    def prologue(self, rc, xs, buffers, used=None):
        """The rewritten loop's inputs: the node's inputs and every projection, computed once
        over all steps, into the node's buffers (`buffers`, its `runtime.LoopBuffers`)
        unless a live saved state holds them. `used` (a list) receives the keys of the
        buffers written (a training call marks them held by its saved state,
        `run_hoisted`)."""
        # One buffer per projection and shape, reused by the node's runs. A body may save
        # its projection rows for the backward (a product of the projection, a cond in the
        # step), so a buffer is held by the saved state of the training run that filled it
        # (a weak reference: until that state is gone, after its backward); a run meanwhile
        # (a second call before the backward, an inner loop run at every outer step)
        # computes its projections into fresh arrays.
        buffers, holders, proj = buffers.projections, buffers.holders, []
        for k, pr in enumerate(self.projections):
            rows, shape = self._rows(pr, xs[pr.data])
            key = (k, shape, rows.dtype, rc.xp.__name__)
            y = buffers.get(key)
            holder = holders.get(key)
            if y is not None and holder is not None and holder() is not None:
                y = rc.xp.empty(shape, dtype=rows.dtype)
            else:
                if y is None:
                    y = buffers[key] = rc.xp.empty(shape, dtype=rows.dtype)
                if used is not None:
                    used.append(key)
            y2 = y.reshape(-1, pr.p.num_hidden)
            ins = self._fc_inputs(pr, xs, rows)
            if pr.folded is not None and pr.bias is not None:  # one add of both biases
                ins[2] = ins[2] + xs[pr.folded]
            self._fc.forward(pr.p, rc, ins, out=[y2])
            if pr.folded is not None and pr.bias is None:
                y2 += xs[pr.folded]
            proj.append(y)
        return [xs[i] if kind == "in" else proj[i] for kind, i in self.layout]

    def pullback(self, rc, xs, grads, need, dests=None):
        """Gradients of the node's inputs from those of the rewritten loop's inputs: the
        projections' gradients go through one FullyConnected backward each (computing only
        what `need`, per node input, asks for). A node input's first gradient is written
        into its array in `dests` when there is one (`Fast.writes_dests`)."""
        acc = [None] * len(xs)
        proj_g = [None] * len(self.projections)
        for (kind, i), g in zip(self.layout, grads):
            if kind == "in":
                add_into(acc, i, g, fresh=True)  # the loop's own accumulators
            else:
                proj_g[i] = g
        for pr, g in zip(self.projections, proj_g):
            if g is None:
                continue
            d = xs[pr.data]
            rows, _ = self._rows(pr, d)
            ins = self._fc_inputs(pr, xs, rows)
            wanted = [need[pr.data] and d.dtype.kind == "f", need[pr.weight]]
            into = [free_dest(dests, acc, pr.data), free_dest(dests, acc, pr.weight)]
            if pr.bias is not None:
                wanted.append(need[pr.bias])
                into.append(free_dest(dests, acc, pr.bias))
            g2 = g.reshape(-1, pr.p.num_hidden)
            gxs = self._fc.vjp(pr.p, rc, ins, [None], [g2], wanted,
                               dests=[t if t is None or t.shape == r.shape else
                                      t.reshape(r.shape) for t, r in zip(into, ins)])
            gx = gxs[0]
            if gx is not None:  # the data's own array when written there (not a view)
                gx = gx.reshape(d.shape) if into[0] is None else into[0]
            add_into(acc, pr.data, gx, fresh=True)
            add_into(acc, pr.weight, gxs[1], fresh=True)
            if pr.bias is not None:
                add_into(acc, pr.bias, gxs[2], fresh=True)
            if pr.folded is not None and need[pr.folded]:  # the same sum as the bias's
                gf = free_dest(dests, acc, pr.folded)
                if pr.bias is None or gxs[2] is None:
                    gf = g2.sum(axis=0, out=gf)
                elif gf is None:
                    gf = gxs[2].copy()
                else:
                    rc.xp.copyto(gf, gxs[2])
                add_into(acc, pr.folded, gf, fresh=True)
        return acc


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


def _rewritten_params(p, subgraphs, **locs):
    """The rewritten loop's params: p's attributes with new index maps and bodies."""
    q = Params(p)
    q.update(locs)
    q["_subgraphs"] = subgraphs
    return q


def foreach_hoist(p, decide_loop):
    """The `Hoist` of a `_foreach` node's params, or None when nothing qualifies;
    `decide_loop(params)` gives the rewritten loop's spec."""
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
    found.fold_biases(body, free_ids)
    new_vars, hoist = found.new_vars, None
    if found.projections:
        new_body = substitute(body, found.mapping)
        nvars = body_vars(new_body)
        pos = {id(v): j for j, v in enumerate(nvars)}
        state_vars = [vars_[loc] for loc in p.in_state_locs]
        if all(id(v) in pos for v in state_vars):
            data = [(vars_[loc], ("in", k)) for k, loc in enumerate(p.in_data_locs)
                    if id(vars_[loc]) in pos]
            data += [(v, ("proj", h)) for h, v in enumerate(new_vars)]
            remain = [(vars_[loc], ("in", n_d + n_s + k)) for k, loc in enumerate(p.remain_locs)
                      if id(vars_[loc]) in pos]
            layout = [src for _, src in data] + [("in", n_d + k) for k in range(n_s)] + \
                [src for _, src in remain]
            q = _rewritten_params(p, [new_body], in_data_locs=[pos[id(v)] for v, _ in data],
                          in_state_locs=[pos[id(v)] for v in state_vars],
                          remain_locs=[pos[id(v)] for v, _ in remain],
                          num_args=len(layout) + 1)
            hoist = Hoist(q, found.projections, layout, decide_loop(q))
    return hoist


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
    """The `Hoist` of a `_while_loop` node's params (as `foreach_hoist`), or None."""
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
    found.fold_biases(func, invariant)
    new_vars, hoist = found.new_vars, None
    if found.projections:
        new_func = substitute(func, found.mapping)
        nvars = body_vars(new_func)
        pos = {id(v): j for j, v in enumerate(nvars)}
        loop_vars = [vars_[j] for j in p.func_var_locs]
        if all(id(v) in pos for v in loop_vars):
            extra = {id(v): n_node + h for h, v in enumerate(new_vars)}
            q = _rewritten_params(p, [p["_subgraphs"][0], new_func],
                          func_input_locs=[source.get(id(v), extra.get(id(v))) for v in nvars],
                          func_var_locs=[pos[id(v)] for v in loop_vars],
                          num_args=n_node + len(new_vars) + 2)
            layout = [("in", i) for i in range(n_node)] + \
                [("proj", h) for h in range(len(new_vars))]
            hoist = Hoist(q, found.projections, layout, decide_loop(q))
    return hoist


class HoistedSaved:
    """The saved state of a hoisted loop: the rewritten loop's inputs and its own state."""

    __slots__ = ("hoist", "xs", "inner", "__weakref__")

    def __init__(self, hoist, xs, inner):
        self.hoist, self.xs, self.inner = hoist, xs, inner


def run_hoisted(run, hoist, rc, xs):
    """Run a loop hoisted by `hoist`: the prologue on the node's inputs `xs`, then
    `run(spec, rc, inputs, keep)` (a lowered loop's run) on the rewritten loop. Returns the
    loop's outputs, its last one a `HoistedSaved`."""
    inner_rc = rc._replace(spec=hoist.loop)
    used = [] if rc.need_grad else None
    buffers = rc.runtime.buffers
    xs2 = hoist.prologue(rc, xs, buffers, used)
    outs, state = run(hoist.loop, inner_rc, xs2, keep=rc.need_grad)
    if not rc.need_grad:
        return (*outs, HoistedSaved(hoist, xs2, state))
    # The pullback reads only the projections' shapes (what the steps saved of them,
    # `state` holds): keep stubs here, so the memory kept for the backward is what the
    # steps saved.
    xs2 = [x if kind == "in" else buffers.shape_stub(rc.xp, x)
           for (kind, _), x in zip(hoist.layout, xs2)]
    saved = HoistedSaved(hoist, xs2, state)
    ref = weakref.ref(saved)  # the buffers written are held while `saved` lives
    for key in used:
        buffers.holders[key] = ref
    return (*outs, saved)


def hoisted_vjp(vjp, rc, xs, ys, gys, need, dests=None):
    """The gradient of a loop run by `run_hoisted` (its state is ``ys[-1]``): `vjp(spec, rc,
    xs, ys, gys, need, dests)` (a loop's gradient) on the rewritten loop, then the
    projections' pullback."""
    state = ys[-1]
    h, xs2 = state.hoist, state.xs
    if state.inner is not None and state.inner.steps is None:
        # the loop re-runs: its projections may be overwritten
        xs2 = h.prologue(rc, xs, rc.runtime.buffers)
    inner = None
    if dests is not None:  # a node input's array goes to its first place in the loop
        inner, seen = [None] * len(xs2), set()
        for k, (kind, i) in enumerate(h.layout):
            if kind == "in" and i not in seen:
                seen.add(i)
                inner[k] = dests[i]
    grads = vjp(h.loop, rc._replace(spec=h.loop), xs2, list(ys[:-1]) + [state.inner], gys,
                [True] * len(xs2), inner)
    return h.pullback(rc, xs, grads, need, dests)
