"""The loop pass: what a compiled plan's loop step does beyond the plain per-step loop.

A compiled plan (`gluonlite.executor.plan`) calls an operator's ``prepare`` rule once per
step; for `_foreach`, `_while_loop` and `_cond` that rule is this pass. It reads the node's
params and the input shapes the plan inferred, decides every loop optimization once, and
returns a `LoopSpec`, which the plan keeps on its step and hands to the loop's kernel and
vjp (``rc.spec``). Nothing is decided again when the loop runs, and nothing is cached in the
node's params, so one graph compiled twice (say, inside and outside
``loop_optimizations(False)``) runs each plan as it was compiled.

What the pass decides, in the order a loop runs:

- ``hoist``: the input projections moved out of the loop (`gluonlite.control_flow.hoisting`);
  the loop then runs a rewritten body, described by its own spec (``hoist.loop``).
- ``counter``: a `_while_loop` whose trip count follows from its counter at entry
  (`gluonlite.control_flow.counting`).
- ``defer_sums``: gradients of loop-invariant inputs summed once after the reverse pass
  instead of per step (which ones: `LoopBody.deferred`, once per body plan).
- ``weight_layout``: the loop-invariant FullyConnected weights read in a transposed
  contiguous copy (`fast_weight_layout`), for loops large enough to repay the copy.

The body plans are compiled with ``static_alloc`` on first use (`LoopSpec.body`, when the
input shapes of the body are known) and kept in ``plans``, each as a `LoopBody`: the plan
(which decides what each step keeps for the backward) with what the pass decides for it
(the deferred gradients, whether the steps can be stacked).

Example::

    plan = compile_plan(rnn_loop, shapes, dtypes, is_train=True, grad_inputs=...)
    print(next(st.spec for st in plan.steps if st.spec is not None))
    # LoopSpec(_foreach: hoist 1 projection (1 bias folded), defer_sums; rewritten loop:
    #          defer_sums)
"""
import numpy as np

from ..executor.plan import compile_plan
from ..symbol.symbol import topo_nodes
from .body import (LoopBuffers, body_vars, loop_optimizations, loop_optimizations_enabled,
                   wants_grad)
from .counting import find_counter
from .hoisting import foreach_hoist, while_hoist

__all__ = ["LoopSpec", "LoopBody", "Deferred", "WhileRoles", "plan_foreach", "plan_while",
           "plan_cond"]

# A loop multiplies by the transpose of an invariant FullyConnected weight at every step;
# OpenBLAS does `x @ W.T` about 1.5x faster at 8 to a few hundred rows when W.T is
# C-contiguous (benchmarks/README.md). One contiguous copy per loop call repays itself
# when a loop has at least this many rows per step and steps.
_LAYOUT_ROWS, _LAYOUT_STEPS = 8, 16


class LoopSpec:
    """What the loop pass decided for one loop step of a compiled plan (see the module
    docstring). Decisions are fixed when the plan is compiled; `plans` and `buffers` are
    what the loop fills in as it runs.

    Attributes:
        params: the loop node's params (for a hoisted loop's `hoist.loop`: the rewritten
            loop's).
        optimize: whether loop optimizations were on when the plan was compiled (the body
            plans, and the loops nested in them, are compiled with the same setting).
        hoist: a `gluonlite.control_flow.hoisting.Hoist`, or None.
        counter: a `_while_loop`'s `gluonlite.control_flow.counting.Counter`, or None.
        defer_sums: whether body plans leave invariant inputs' gradients to the loop.
        weight_layout: the inputs read as FullyConnected weights in the transposed copy
            (`_foreach`: body input positions; `_while_loop`: node input indices).
        roles: a `_while_loop`'s `WhileRoles` (None for the others).
        plans: {key: `LoopBody`} compiled on first use (see `body`).
        buffers: the node's `gluonlite.control_flow.body.LoopBuffers`, shared by its plans
            of one graph (the hoisted projections, the transposed weight copies).
    """

    def __init__(self, op_name, params, optimize, buffers, hoist=None, counter=None,
                 weight_layout=(), roles=None):
        self.op_name, self.params, self.optimize = op_name, params, bool(optimize)
        self.hoist, self.counter, self.roles = hoist, counter, roles
        self.weight_layout = tuple(weight_layout)
        self.plans, self.buffers = {}, buffers

    @property
    def defer_sums(self):
        """Whether body plans leave invariant inputs' gradients to the loop (whenever the
        loop optimizations are on)."""
        return self.optimize

    def body(self, index, shapes, dtypes, is_train, keep, xp, invariant=None):
        """The `LoopBody` of subgraph `index` for body inputs of these shapes and dtypes,
        compiled (static alloc) on first use and kept in `plans`.

        Args:
            is_train: run operators in training mode.
            keep: compile for gradients (every floating input wants one).
            xp: array module.
            invariant: per body input, whether it is the same at every step (free
                variables): their gradients are deferred to one sum after the loop
                (`LoopBody.deferred`) when this spec says so (`defer_sums`).
        """
        invariant = tuple(invariant) if invariant is not None and self.defer_sums else None
        # Looked up on every loop call: the key is made of what the caller has at hand.
        key = (index, tuple(shapes), tuple(dtypes), bool(is_train), bool(keep), xp.__name__,
               invariant)
        body = self.plans.get(key)
        if body is None:
            if len(self.plans) > 64:  # many distinct shapes: keep memory bounded
                self.plans.clear()
            dtypes = [np.dtype(d) for d in dtypes]
            grad = [wants_grad(d) for d in dtypes] if keep else None
            # Loops nested in the body are planned with the setting this one was compiled with.
            with loop_optimizations(self.optimize):
                plan = compile_plan(self.params["_subgraphs"][index], [tuple(s) for s in shapes],
                                    dtypes, is_train=is_train, grad_inputs=grad,
                                    static_alloc=True, xp=xp, shared=self.buffers.bodies)
            body = self.plans[key] = LoopBody(plan, invariant)
        return body

    def describe(self):
        """The decisions as one line of text (what `repr` shows)."""
        parts = []
        if self.hoist is not None:
            n = len(self.hoist.projections)
            folded = sum(pr.folded is not None for pr in self.hoist.projections)
            parts.append(f"hoist {n} projection{'s' * (n != 1)}" +
                         (f" ({folded} bias folded)" if folded else ""))
        if self.counter is not None:
            parts.append(f"counted (loop var {self.counter.k})")
        if self.defer_sums:
            parts.append("defer_sums")
        if self.weight_layout:
            parts.append(f"weight_layout {list(self.weight_layout)}")
        text = ", ".join(parts) or "plain"
        if self.hoist is not None:
            text += f"; rewritten loop: {self.hoist.loop.describe()}"
        return text

    def __repr__(self):
        return f"LoopSpec({self.op_name}: {self.describe()})"


class Deferred:
    """The gradient of invariant body input `slot` at body plan step `step`, summed over
    the loop's steps in one call after the reverse pass instead of at every step: each
    step stashes `step`'s output gradient and the inputs `names` (slots `uses`) that the
    operator's `Fast.vjp_sum` rule `fn` reads; then ``fn(p, rc, input, {name: stacked
    values}, stacked gradient, out=)``."""

    __slots__ = ("step", "slot", "fn", "names", "uses")

    def __init__(self, step, slot, fn, names, uses):
        self.step, self.slot, self.fn, self.names, self.uses = step, slot, fn, names, uses


class LoopBody:
    """A loop body's compiled plan with what the loop pass decided for running it at every
    step (kept in `LoopSpec.plans`).

    Attributes:
        plan: the body's static-alloc `gluonlite.executor.plan.Plan`.
        stackable: every value the backward reads of a step (`Plan.saved_ops`) is an array
            (a nested loop's opaque state is not): the loop keeps its steps in stacks.
        deferred: the `Deferred` gradients, in backward order (none unless `invariant`).
        need: per backward step (`Plan.bwd_steps` order), the inputs whose gradient the
            reverse pass computes at every step: the step's `need` less the deferred ones.
        deferred_at: per backward step, the indices in `deferred` of its own.
        layouts, gathered: what the loop derives from the plan on first use
            (`loop_steps.LoopStorage`'s layout per number of stacked outputs; a counted
            loop's `counting.gathered_rows`), kept here so it lives as long as the plan.

    Example: ``LoopBody(plan, invariant=[False, False, True])`` defers input 2's gradient
    where its step's operator has a `Fast.vjp_sum` rule for it.
    """

    def __init__(self, plan, invariant=None):
        self.plan = plan
        self.stackable = all(s in plan.slot_shape for s in plan.saved_ops)
        self.deferred, self.need, self.deferred_at = [], [], []
        for st in plan.bwd_steps:
            need, mine = list(st.need), []
            rules = st.op.fast.vjp_sum if invariant and not st.op.variadic else None
            names = st.op.input_names(st.p) if rules else ()
            for j, s in enumerate(st.ins if rules else ()):
                rule = rules.get(names[j])
                if need[j] and s < plan.n_inputs and invariant[s] and rule:
                    reads, fn = rule
                    need[j] = False
                    mine.append(len(self.deferred))
                    self.deferred.append(Deferred(st, s, fn, reads,
                                                  [st.ins[names.index(r)] for r in reads]))
            self.need.append(need)
            self.deferred_at.append(tuple(mine))
        self.deferred = tuple(self.deferred)
        self.layouts, self.gathered = {}, None

    def __repr__(self):
        return f"LoopBody({len(self.plan.steps)} steps, {len(self.deferred)} deferred)"


class WhileRoles:
    """Where each input of a `_while_loop`'s cond and func comes from, derived from the
    index maps.

    Attributes:
        var_nodes: the node input index of each loop var.
        cond, func: per body input, ('var', k) for loop var k or ('in', node input index).
        summed: the node inputs func reads directly (their gradients are summed over the
            steps), in order.
        sum_index: {func input position: index in `summed`}.
        cond_vars, func_vars: (body input position, loop var k) of each body input that is
            a loop var (what a step refreshes from the current loop vars).
        func_fixed: per func input, whether it is a node input rather than a loop var.
    """

    def __init__(self, p):
        self.var_nodes = [p.func_input_locs[j] for j in p.func_var_locs]
        self.cond = _roles(p.cond_input_locs, lambda j, i: self._var_index(i))
        var_of_pos = {j: k for k, j in enumerate(p.func_var_locs)}
        self.func = _roles(p.func_input_locs, lambda j, i: var_of_pos.get(j))
        self.summed = sorted({i for kind, i in self.func if kind == "in"})
        self.sum_index = {j: self.summed.index(i) for j, (kind, i) in enumerate(self.func)
                          if kind == "in"}
        self.cond_vars = [(j, k) for j, (kind, k) in enumerate(self.cond) if kind == "var"]
        self.func_vars = [(j, k) for j, (kind, k) in enumerate(self.func) if kind == "var"]
        self.func_fixed = [kind == "in" for kind, _ in self.func]

    def _var_index(self, node_input):
        return self.var_nodes.index(node_input) if node_input in self.var_nodes else None

    def node_input(self, role):
        """The node input index a role reads."""
        kind, i = role
        return self.var_nodes[i] if kind == "var" else i


def _roles(locs, var_of):
    out = []
    for j, i in enumerate(locs):
        k = var_of(j, i)
        out.append(("var", k) if k is not None else ("in", i))
    return out


def _fc_weight_inputs(body):
    """Positions of `body`'s inputs that a FullyConnected reads as its weight."""
    pos = {id(v): j for j, v in enumerate(body_vars(body))}
    return sorted({pos[id(n.inputs[1][0])] for n in topo_nodes(body.outputs)
                   if n.op is not None and n.op.name == "FullyConnected"
                   and id(n.inputs[1][0]) in pos})


def _large(rows, steps):
    return rows >= _LAYOUT_ROWS and steps >= _LAYOUT_STEPS


def _first_dim(shape):
    return shape[0] if shape is not None and len(shape) else 0


def plan_foreach(p, shapes, dtypes, is_train, xp, store):
    """The loop pass for a `_foreach` node with input shapes `shapes` (see the module
    docstring); `store` is the dict its plans of one graph share (`compile_plan`)."""
    optimize = loop_optimizations_enabled()
    n_d, n_s = len(p.in_data_locs), len(p.in_state_locs)
    large = optimize and _large(_first_dim(shapes[n_d]) if n_s else 0,
                                _first_dim(shapes[0]) if n_d else 0)
    buffers = store.setdefault("loop_buffers", LoopBuffers())
    spec = _foreach_spec(p, optimize, large, buffers)
    spec.hoist = foreach_hoist(p, buffers) if optimize else None
    if spec.hoist is not None:  # the rewritten loop has the node's steps and state rows
        spec.hoist.loop = _foreach_spec(spec.hoist.params, optimize, large, buffers)
    return spec


def _foreach_spec(p, optimize, large, buffers):
    free = set(p.remain_locs)
    layout = [j for j in _fc_weight_inputs(p["_subgraphs"][0]) if j in free] if large else ()
    return LoopSpec("_foreach", p, optimize, buffers, weight_layout=layout)


def plan_while(p, shapes, dtypes, is_train, xp, store):
    """The loop pass for a `_while_loop` node with input shapes `shapes`."""
    optimize = loop_optimizations_enabled()
    var_shapes = [shapes[p.func_input_locs[j]] for j in p.func_var_locs]
    rows = max((s[0] for s in var_shapes if s is not None and len(s) > 1), default=0)
    large = optimize and _large(rows, p.max_iterations)
    buffers = store.setdefault("loop_buffers", LoopBuffers())
    spec = _while_spec(p, var_shapes, optimize, large, buffers)
    spec.hoist = while_hoist(p, buffers) if optimize else None
    if spec.hoist is not None:  # the rewritten loop has the node's loop vars
        spec.hoist.loop = _while_spec(spec.hoist.params, var_shapes, optimize, large, buffers)
    return spec


def _while_spec(p, var_shapes, optimize, large, buffers):
    roles = WhileRoles(p)
    counter = find_counter(p) if optimize else None
    # Counter values are computed for a one-element counter only.
    if counter is not None and (var_shapes[counter.k] is None or
                                int(np.prod(var_shapes[counter.k])) != 1):
        counter = None
    layout = [roles.func[j][1] for j in _fc_weight_inputs(p["_subgraphs"][1])
              if roles.func[j][0] == "in"] if large else ()
    return LoopSpec("_while_loop", p, optimize, buffers, counter=counter,
                    weight_layout=layout, roles=roles)


def plan_cond(p, shapes, dtypes, is_train, xp, store):
    """The loop pass for a `_cond` node: nothing to optimize; its spec holds its plans."""
    return LoopSpec("_cond", p, loop_optimizations_enabled(),
                    store.setdefault("loop_buffers", LoopBuffers()))
