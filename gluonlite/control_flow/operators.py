"""The `_foreach`, `_while_loop` and `_cond` operators: graph nodes that hold their bodies.

Each is an ordinary registry operator (attributes and index maps as MXNet writes them to
JSON) whose params carry the bodies in ``p['_subgraphs']``. Every rule of one operator sits
in one block below: attributes, shape and dtype inference through the bodies, the kernel
(the body's static-alloc plan run once per step, step outputs written straight into their
row of the stacked output, loop-var buffers swapped instead of copied) and the gradient
(the body's backward plan run over the saved steps in reverse, accumulating gradients of
loop vars, scanned data and free inputs).

The operators are stateful: their last output is a `Saved` object holding what the
gradient needs (each executed step's saved values). Steps are kept only when the executor
says a gradient will be asked for (``rc.need_grad``); a vjp without them re-runs the loop.

How a loop runs beyond the plain per-step loop is decided once per compiled plan step by
the loop pass (`gluonlite.control_flow.passes`, the operators' ``prepare`` rule): its
`LoopSpec` reaches the kernel and vjp as ``rc.spec``, and holds the body plans.

Where each stage of a hybridized ``_foreach`` lives (``_while_loop`` is the same with
``_while_run``/``_while_vjp``; open these in order):

1. decide: `passes.plan_foreach` -> a `LoopSpec` (print it to see the decisions);
2. forward: `_loop_rules`'s kernel here -> `hoisting.run_hoisted` when the pass hoisted
   the input projection -> `_foreach_run` here (the body's plan: `passes.LoopSpec.body`; its
   storage: `loop_steps.LoopStorage`) -> the generated step loop
   (`loop_codegen.step_loop`, emitting the body's steps with `executor.codegen`);
3. gradient: `_loop_rules`'s vjp -> `hoisting.hoisted_vjp` -> `_foreach_vjp` here ->
   `loop_steps.reverse_pass` -> the generated reverse pass
   (`loop_codegen.reverse_pass_function`) -> the loop-summed weight gradients
   (`loop_steps.add_deferred_sums`, the operators' `Fast.vjp_sum`).

Index maps (positions in a body's ``list_inputs()``; node inputs by position):

- ``_foreach``: node inputs are ``data..., states..., remain...``; ``in_data_locs[k]``,
  ``in_state_locs[k]``, ``remain_locs[k]`` say where each feeds the body. Body outputs are
  ``step outputs..., new states...``.
- ``_while_loop``: ``cond_input_locs[j]`` / ``func_input_locs[j]``: the node input feeding
  input j of cond / func; ``func_var_locs[k]``: the func input that is loop var k.
- ``_cond``: ``cond_input_locs``, ``then_input_locs``, ``else_input_locs`` likewise.
"""
import numpy as np

from ..context import host_scalar
from ..ops import attrs as A
from ..ops import registry
from ..ops.fast import Fast
from ..ops.registry import Operator
from . import checks
from .body import add_into, fast_weight_layout, free_dest, infer_body
from .counting import gather, gathered_rows
from .hoisting import HoistedSaved, hoisted_vjp, run_hoisted
from .loop_steps import (LoopStorage, StackedSteps, add_deferred_sums, data_column, data_row,
                         reverse_pass)
from .passes import WhileRoles, plan_cond, plan_foreach, plan_while

__all__ = ["Saved"]


class Saved:
    """What a loop or branch node keeps for its gradient (the opaque stateful output).

    Attributes:
        body: the `gluonlite.control_flow.passes.LoopBody` that ran (its plan compiled for
            gradients when `steps` is not None).
        steps: the `saved` object of each executed step, or None when nothing was kept.
        n_steps: how many steps ran (for `_cond`: 0 = else, 1 = then).
    """

    __slots__ = ("body", "steps", "n_steps")

    def __init__(self, body, steps, n_steps):
        self.body, self.steps, self.n_steps = body, steps, n_steps


def _input_names(n_subgraphs):
    return lambda p: [f"data{i}" for i in range(p.num_args - n_subgraphs)]


def _make_op(name, kernel, vjp, shape, dtype, attrs, n_subgraphs, doc, prepare,
             writes_dests=False):
    op = Operator(name, kernel, inputs=_input_names(n_subgraphs),
                  outputs=lambda p: p.num_outputs + 1, visible=lambda p: p.num_outputs,
                  attrs=attrs, vjp=vjp, shape=shape, dtype=dtype, doc=doc, signature=(),
                  same_dtype=(),  # loop inputs mix dtypes (int counters, float states)
                  prepare=prepare, fast=Fast(writes_dests=writes_dests))
    op.stateful = True
    return registry.add(op)


def _known_or(a, b):
    """a unless it is None (dtypes are falsy, so `or` will not do)."""
    return b if a is None else a


def _float(d):
    return d is not None and np.dtype(d).kind == "f"


def _row_shape(s):
    return None if s is None else (tuple(s[1:]) or (1,))


def _spec(plan_loop, p, rc, xs):
    """The loop pass's decisions for this call: the plan step's (`rc.spec`), or, for a
    kernel called outside a compiled plan, decided now."""
    if rc.spec is not None:
        return rc.spec
    return plan_loop(p, [x.shape for x in xs], [x.dtype for x in xs], rc.is_train, rc.xp, {})


def _loop_rules(run, vjp, plan_loop, doc):
    """A loop operator's kernel and vjp from `run(spec, rc, xs, keep) -> (outs, Saved)` and
    `vjp(spec, rc, xs, ys, gys, need, dests)`: the steps are kept when a gradient will be
    asked for, and a loop the pass hoisted runs its rewritten loop."""
    def kernel(p, rc, *xs):
        spec = _spec(plan_loop, p, rc, xs)
        if spec.hoist is not None:
            return run_hoisted(run, spec.hoist, rc, xs)
        outs, state = run(spec, rc, xs, keep=rc.need_grad)
        return (*outs, state)

    def loop_vjp(p, rc, xs, ys, gys, need, dests=None):
        if isinstance(ys[-1], HoistedSaved):
            return hoisted_vjp(vjp, rc, xs, ys, gys, need, dests)
        return vjp(_spec(plan_loop, p, rc, xs), rc, xs, ys, gys, need, dests)

    kernel.__doc__ = doc
    return kernel, loop_vjp


def _saved_steps(fname, state, rerun):
    """The forward's saved state; when it kept no steps (no gradient was expected),
    `rerun()` runs the forward again, keeping them."""
    if state is None:
        raise ValueError(f"{fname}: no saved state for the gradient; the node's forward "
                         "must run before its backward")
    return state if state.steps is not None else rerun()[1]


# ============================================================================ _foreach
def _foreach_split(p, xs):
    n_d, n_s = len(p.in_data_locs), len(p.in_state_locs)
    return xs[:n_d], xs[n_d:n_d + n_s], xs[n_d + n_s:]


def _foreach_body_values(p, data, states, remain, n_body):
    vals = [None] * n_body
    for k, loc in enumerate(p.in_data_locs):
        vals[loc] = data[k]
    for k, loc in enumerate(p.in_state_locs):
        vals[loc] = states[k]
    for k, loc in enumerate(p.remain_locs):
        vals[loc] = remain[k]
    return vals


def _foreach_shape(p, ins):
    data, states, remain = _foreach_split(p, ins)
    body = p["_subgraphs"][0]
    n_body = len(p.in_data_locs) + len(p.in_state_locs) + len(p.remain_locs)
    b_in = _foreach_body_values(p, [_row_shape(s) for s in data], states, remain, n_body)
    b_in, b_out = infer_body("foreach", "body", body, in_shapes=b_in)
    n_steps = next((s[0] for s in data if s is not None), None)
    new_ins = list(ins)
    n_d, n_s = len(p.in_data_locs), len(p.in_state_locs)
    for k, loc in enumerate(p.in_state_locs):
        new_ins[n_d + k] = _known_or(new_ins[n_d + k], b_in[loc])
    for k, loc in enumerate(p.remain_locs):
        new_ins[n_d + n_s + k] = _known_or(new_ins[n_d + n_s + k], b_in[loc])
    outs = [None if s is None or n_steps is None else (n_steps,) + tuple(s)
            for s in b_out[:p.num_out_data]]
    for k in range(n_s):
        before, after = ins[n_d + k], b_out[p.num_out_data + k]
        checks.check_state(k, (before, None), (after, None), 0)
        outs.append(_known_or(after, before))
    return new_ins, outs


def _foreach_dtype(p, ins):
    data, states, remain = _foreach_split(p, ins)
    n_body = len(p.in_data_locs) + len(p.in_state_locs) + len(p.remain_locs)
    b_in = _foreach_body_values(p, data, states, remain, n_body)
    b_in, b_out = infer_body("foreach", "body", p["_subgraphs"][0], in_dtypes=b_in)
    n_d, n_s = len(p.in_data_locs), len(p.in_state_locs)
    new_ins = list(ins)
    for k, loc in enumerate(p.in_state_locs):
        new_ins[n_d + k] = _known_or(new_ins[n_d + k], b_in[loc])
    for k, loc in enumerate(p.remain_locs):
        new_ins[n_d + n_s + k] = _known_or(new_ins[n_d + n_s + k], b_in[loc])
    for k in range(n_s):
        checks.check_state(k, (None, ins[n_d + k]), (None, b_out[p.num_out_data + k]), 0)
    return new_ins, list(b_out)


def _foreach_run(spec, rc, xs, keep):
    p, xp = spec.params, rc.xp
    data, states, remain = _foreach_split(p, xs)
    n_body = len(data) + len(states) + len(remain)
    n_steps = data[0].shape[0]
    args = _foreach_body_values(p, [data_row(d, 0) for d in data], states, remain, n_body)
    free = [False] * n_body  # the free inputs are the same at every step
    for loc in p.remain_locs:
        free[loc] = True
    body = spec.body(0, [a.shape for a in args], [a.dtype for a in args], rc.is_train, keep,
                     xp, invariant=free if keep else None)
    store = LoopStorage(xp, body, p.num_out_data, n_steps, keep, zero_rows=False,
                        scanned=p.in_data_locs, carried=p.in_state_locs)
    saved = [] if keep and store.saved is None else None
    # The forward may read free weights in a faster layout; a backward reads the originals.
    fast = fast_weight_layout(xp, {j: args[j] for j in spec.weight_layout},
                              spec.buffers.layouts, steps_as_lists=saved is not None)
    step_outs, step_rows = store.columns(n_steps)
    store.run([fast.get(j, a) for j, a in enumerate(args)], [data_column(d) for d in data],
              step_outs, step_rows, saved, 0, n_steps)
    first = list(states)
    cur = store.final([col[n_steps - 1] for col in step_outs[p.num_out_data:]] if n_steps
                      else first, first)
    state_locs = p.in_state_locs
    if store.saved is not None:
        # What the backward needs is rebuilt from the arrays when it runs: lists of row
        # views held until then would cost ~100 bytes a step.
        def columns(n):  # the forward's original inputs, not `fast`
            cols = list(args)
            for loc, d in zip(p.in_data_locs, data):
                cols[loc] = data_column(d)
            for k, loc in enumerate(state_locs):
                cols[loc] = store.entering_column(k, states[k], n)
            return cols

        def input_stacks(n):
            held = {loc: d for loc, d in zip(p.in_data_locs, data) if d.ndim > 1}
            held.update({loc: store.entering(k, states[k], n)
                         for k, loc in enumerate(state_locs)})
            return held
        saved = StackedSteps(store.saved_rows, columns, input_stacks, free)
    return store.stacked + cur, Saved(body, saved, n_steps)


def _zeroed(xp, x, dest):
    """A zero gradient for x: `dest` zeroed, or a new array."""
    if dest is None:
        return xp.zeros_like(x)
    dest.fill(0)
    return dest


def _foreach_vjp(spec, rc, xs, ys, gys, need, dests=None):
    p = spec.params
    state = _saved_steps("foreach", ys[-1], lambda: _foreach_run(spec, rc, xs, keep=True))
    data, states, remain = _foreach_split(p, xs)
    n_d, n_s, n_out = len(data), len(states), p.num_out_data
    acc = [None] * len(xs)
    g_data = [_zeroed(rc.xp, d, free_dest(dests, acc, k)) if _float(d.dtype) else None
              for k, d in enumerate(data)]
    # Each step writes its own rows of the data gradients once.
    rows = {loc: gd for loc, gd in zip(p.in_data_locs, g_data) if gd is not None}
    sums = {loc: k for k, loc in enumerate(p.remain_locs)}
    carry, summed, stash = reverse_pass(state, gys, n_out, [gys[n_out + k] for k in range(n_s)],
                                        p.in_state_locs, rows, sums)
    for k, g in enumerate(summed):
        add_into(acc, n_d + n_s + k, g, fresh=True)
    n_body = n_d + n_s + len(p.remain_locs)
    remain_of = {loc: n_d + n_s + k for k, loc in enumerate(p.remain_locs)}
    add_deferred_sums(state.body, stash,
                      _foreach_body_values(p, [None] * n_d, [None] * n_s, remain, n_body),
                      acc, remain_of.__getitem__, dests)
    for k in range(n_d):
        acc[k] = g_data[k]
    for k in range(n_s):
        acc[n_d + k] = carry[k] if _float(states[k].dtype) else None
    return acc


_FOREACH_DOC = "_foreach: run the body over axis 0 of the data inputs (see the module docstring)."
_make_op("_foreach", *_loop_rules(_foreach_run, _foreach_vjp, plan_foreach, _FOREACH_DOC),
         _foreach_shape, _foreach_dtype,
         {"num_args": A.Int(), "num_outputs": A.Int(), "num_out_data": A.Int(0),
          "in_data_locs": A.IntList(), "in_state_locs": A.IntList(), "remain_locs": A.IntList()},
         1, _FOREACH_DOC, plan_foreach, writes_dests=True)


# ========================================================================= _while_loop
def _by_role(roles, var_values, node_values):
    """Per body input, its value: loop var k's from `var_values`, a node input's from
    `node_values` (roles as `WhileRoles.cond` and `.func` give them)."""
    return [var_values[r[1]] if r[0] == "var" else node_values[r[1]] for r in roles]


def _check_pred(shape):
    if shape is not None and int(np.prod(shape)) != 1:
        raise ValueError(f"while_loop: cond must return a scalar (one element, e.g. shape "
                         f"(1,)), got shape {tuple(shape)}")


def _while_shape(p, ins):
    roles = WhileRoles(p)
    var_nodes, cond_roles, func_roles = roles.var_nodes, roles.cond, roles.func
    cur = [ins[i] for i in var_nodes]
    c_in, c_out = infer_body("while_loop", "cond", p["_subgraphs"][0],
                             in_shapes=_by_role(cond_roles, cur, ins))
    _check_pred(c_out[0])
    f_in, f_out = infer_body("while_loop", "func", p["_subgraphs"][1],
                             in_shapes=_by_role(func_roles, cur, ins))
    new_ins = list(ins)
    for body_roles, b_in in ((cond_roles, c_in), (func_roles, f_in)):
        for r, s in zip(body_roles, b_in):
            idx = roles.node_input(r)
            new_ins[idx] = _known_or(new_ins[idx], s)
    n_out = p.num_out_data
    outs = [None if s is None else (p.max_iterations,) + tuple(s) for s in f_out[:n_out]]
    for k, idx in enumerate(var_nodes):
        before, after = ins[idx], f_out[n_out + k]
        checks.check_loop_var("while_loop", k, (before, None), (after, None), 0)
        outs.append(_known_or(after, before))
    return new_ins, outs


def _while_dtype(p, ins):
    roles = WhileRoles(p)
    var_nodes, func_roles = roles.var_nodes, roles.func
    cur = [ins[i] for i in var_nodes]
    f_in, f_out = infer_body("while_loop", "func", p["_subgraphs"][1],
                             in_dtypes=_by_role(func_roles, cur, ins))
    new_ins = list(ins)
    for r, d in zip(func_roles, f_in):
        idx = roles.node_input(r)
        new_ins[idx] = _known_or(new_ins[idx], d)
    n_out = p.num_out_data
    for k, idx in enumerate(var_nodes):
        checks.check_loop_var("while_loop", k, (None, ins[idx]), (None, f_out[n_out + k]), 0)
    return new_ins, list(f_out)


def _while_run(spec, rc, xs, keep):
    p, xp = spec.params, rc.xp
    var_nodes, cond_roles, func_roles = spec.roles.var_nodes, spec.roles.cond, spec.roles.func
    cur = [xs[i] for i in var_nodes]
    f_args = _by_role(func_roles, cur, xs)
    fixed = spec.roles.func_fixed
    func = spec.body(1, [a.shape for a in f_args], [a.dtype for a in f_args], rc.is_train,
                     keep, xp, invariant=fixed if keep else None)
    n_out, n_it = p.num_out_data, p.max_iterations
    counter = spec.counter
    gathered = []  # (slot, every step's row) of the rows func picks by the counter
    if counter is not None:  # the trip count and every step's counter, known at entry
        values, n_steps = counter.values(rc, cur[counter.k], n_it)
        for slot, j, tp in gathered_rows(p, func, counter):
            rows = gather(rc, f_args[j], tp, values[:n_steps])
            if rows.shape[1:] == func.plan.slot_shape[slot]:
                gathered.append((slot, rows))
    else:
        n_steps = None
    # Inputs the loop gives each step from a row of a column: the counter, gathered rows.
    scanned, fed = [], []
    if counter is not None:
        scanned.append(p.func_var_locs[counter.k])
        fed.append(values)
    scanned += [slot for slot, _ in gathered]
    fed += [rows for _, rows in gathered]
    # Stacks have max_iterations rows; rows past the last step are never touched.
    store = LoopStorage(xp, func, n_out, n_it, keep, zero_rows=True, scanned=scanned,
                        carried=p.func_var_locs,
                        fed_vars=() if counter is None else (counter.k,),
                        given=[slot for slot, _ in gathered])
    saved = [] if keep and store.saved is None else None
    first = cur
    # The forward may read invariant weights in a faster layout; a backward reads xs.
    fast = fast_weight_layout(xp, {i: xs[i] for i in spec.weight_layout},
                              spec.buffers.layouts, steps_as_lists=saved is not None)
    f_args = _by_role(func_roles, cur, [fast.get(i, x) for i, x in enumerate(xs)])
    step_outs, step_rows = store.columns(n_it if n_steps is None else n_steps)
    if n_steps is not None:
        store.run(f_args, fed, step_outs, step_rows, saved, 0, n_steps)
        step = n_steps
    else:  # cond decides before each step (a counted loop never runs its plan)
        c_args = _by_role(cond_roles, cur, xs)
        cond = spec.body(0, [a.shape for a in c_args], [a.dtype for a in c_args], False,
                         False, xp).plan.forward_fn(False)
        c_vars, f_vars = spec.roles.cond_vars, spec.roles.func_vars
        for step in range(n_it + 1):
            for j, k in c_vars:
                c_args[j] = cur[k]
            if step == n_it or not host_scalar(cond(c_args, None)[0][0]):
                break
            for j, k in f_vars:
                f_args[j] = cur[k]
            store.run(f_args, fed, step_outs, step_rows, saved, step, step + 1)
            cur = [col[step] for col in step_outs[n_out:]]
    if n_steps:
        cur = [col[n_steps - 1] for col in step_outs[n_out:]]
    if counter is not None and step:  # the steps did not write the counter: it is known
        cur = list(cur)
        cur[counter.k] = values[step]
    cur = store.final(cur, first)
    if store.saved is not None:
        def var_column(k, n):
            if counter is not None and k == counter.k:
                return values[:n]
            return store.entering_column(k, first[k], n)

        def columns(n):
            return [var_column(r[1], n) if r[0] == "var" else xs[r[1]] for r in func_roles]

        def input_stacks(n):
            held = {j: store.entering(k, first[k], n) for k, j in enumerate(p.func_var_locs)}
            if counter is not None:
                held[p.func_var_locs[counter.k]] = values[:n]
            return held
        saved = StackedSteps(store.saved_rows, columns, input_stacks, fixed)
    return store.stacked + cur, Saved(func, saved, step)


def _while_vjp(spec, rc, xs, ys, gys, need, dests=None):
    p = spec.params
    state = _saved_steps("while_loop", ys[-1], lambda: _while_run(spec, rc, xs, keep=True))
    var_nodes, func_roles = spec.roles.var_nodes, spec.roles.func
    n_out = p.num_out_data
    acc = [None] * len(xs)
    ins, sums = spec.roles.summed, spec.roles.sum_index
    carry, summed, stash = reverse_pass(state, gys, n_out,
                                        [gys[n_out + k] for k in range(len(var_nodes))],
                                        p.func_var_locs, sums=sums)
    for i, g in zip(ins, summed):
        add_into(acc, i, g, fresh=True)
    add_deferred_sums(state.body, stash, _by_role(func_roles, [None] * len(var_nodes), xs),
                      acc, lambda j: func_roles[j][1], dests)
    for k, idx in enumerate(var_nodes):
        if _float(xs[idx].dtype):
            add_into(acc, idx, carry[k])
    return acc


_WHILE_DOC = ("_while_loop: run func while cond holds, at most max_iterations times; "
              "stacked step outputs have max_iterations rows, zeros past the last step.")
_make_op("_while_loop", *_loop_rules(_while_run, _while_vjp, plan_while, _WHILE_DOC),
         _while_shape, _while_dtype,
         {"num_args": A.Int(), "num_outputs": A.Int(), "num_out_data": A.Int(0),
          "max_iterations": A.Int(), "cond_input_locs": A.IntList(),
          "func_input_locs": A.IntList(), "func_var_locs": A.IntList()},
         2, _WHILE_DOC, plan_while, writes_dests=True)


# =============================================================================== _cond
_BRANCH_LOCS = ("then_input_locs", "else_input_locs")


def _infer_branches(p, ins, what):
    """Infer both branches' shapes or dtypes (`what`): (node inputs filled in, [then outputs,
    else outputs])."""
    new_ins, branch_outs = list(ins), []
    for b, key in enumerate(_BRANCH_LOCS):
        locs = p[key]
        b_in, b_out = infer_body("cond", key[:4] + "_func", p["_subgraphs"][1 + b],
                                 **{what: [ins[i] for i in locs]})
        for i, v in zip(locs, b_in):
            new_ins[i] = _known_or(new_ins[i], v)
        branch_outs.append(b_out)
    return new_ins, branch_outs


def _cond_shape(p, ins):
    _, pred = infer_body("cond", "pred", p["_subgraphs"][0],
                         in_shapes=[ins[i] for i in p.cond_input_locs])
    if pred[0] is not None and int(np.prod(pred[0])) != 1:
        raise ValueError(f"cond: pred must be a scalar (one element, e.g. shape (1,)), got "
                         f"shape {tuple(pred[0])}")
    new_ins, (then_o, else_o) = _infer_branches(p, ins, "in_shapes")
    for j, (a, b) in enumerate(zip(then_o, else_o)):
        if a is not None and b is not None and tuple(a) != tuple(b):
            raise ValueError(f"cond: output {j} has shape {tuple(a)} in then_func but "
                             f"{tuple(b)} in else_func; both branches must return the same "
                             "shapes")
    return new_ins, [_known_or(a, b) for a, b in zip(then_o, else_o)]


def _cond_dtype(p, ins):
    new_ins, branch_outs = _infer_branches(p, ins, "in_dtypes")
    for j, (a, b) in enumerate(zip(*branch_outs)):
        if a is not None and b is not None and np.dtype(a) != np.dtype(b):
            raise ValueError(f"cond: output {j} has dtype {np.dtype(a).name} in then_func but "
                             f"{np.dtype(b).name} in else_func")
    return new_ins, [a if a is not None else b for a, b in zip(*branch_outs)]


def _cond_run(spec, rc, xs, keep, taken=None):
    p, xp = spec.params, rc.xp
    if taken is None:
        c_args = [xs[i] for i in p.cond_input_locs]
        cplan = spec.body(0, [a.shape for a in c_args], [a.dtype for a in c_args], False,
                          False, xp).plan
        (c,), _ = cplan.forward(c_args)
        if c.size != 1:
            raise ValueError(f"cond: pred must be a scalar (one element), got shape {c.shape}")
        taken = bool(host_scalar(c))
    b = 0 if taken else 1
    args = [xs[i] for i in p[_BRANCH_LOCS[b]]]
    body = spec.body(1 + b, [a.shape for a in args], [a.dtype for a in args], rc.is_train,
                     keep, xp)
    plan = body.plan
    outs = [xp.empty(s, dtype=d) for s, d in zip(plan.out_shapes, plan.out_dtypes)]
    _, s = plan.forward(args, outs=outs)
    return outs, Saved(body, [s] if keep else None, 1 if taken else 0)


def _cond_vjp(spec, rc, xs, ys, gys, need, dests=None):
    p = spec.params
    state = _saved_steps("cond", ys[-1], lambda: _cond_run(
        spec, rc, xs, keep=True, taken=bool(ys[-1].n_steps)))
    acc = [None] * len(xs)
    heads = list(gys[:p.num_outputs])
    if all(h is None for h in heads):
        return acc
    g = state.body.plan.backward(state.steps[0], heads)
    for j, i in enumerate(p[_BRANCH_LOCS[0 if state.n_steps else 1]]):
        add_into(acc, i, g[j])
    return acc


_COND_DOC = "_cond: run the then or the else body, as the pred body decides."
_make_op("_cond", *_loop_rules(_cond_run, _cond_vjp, plan_cond, _COND_DOC),
         _cond_shape, _cond_dtype,
         {"num_args": A.Int(), "num_outputs": A.Int(), "cond_input_locs": A.IntList(),
          "then_input_locs": A.IntList(), "else_input_locs": A.IntList()},
         3, _COND_DOC, plan_cond)
