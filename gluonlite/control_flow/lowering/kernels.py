"""The lowered kernels and vjps of `_foreach`, `_while_loop` and `_cond`, and their
registration as the loops' lowerings.

They compute what the plain kernels of `gluonlite.control_flow.foreach` (`while_loop`,
`cond`) compute, faster, and only inside a compiled plan: the decisions of the step
(``rc.spec``, a `decisions.LoopSpec`) and its runtime (``rc.runtime``, a
`runtime.LoopRuntime`) come from the plan. Where each stage of a lowered ``_foreach``
lives (``_while_loop`` is the same with ``_while_run``/``_while_vjp``; open these in order):

1. decide: `decisions.plan_foreach` -> a `LoopSpec` (print it to see the decisions);
2. forward: `lowered_kernel` -> `hoisted.run_hoisted` when the input projection is
   hoisted -> `_foreach_run` here (the body's plan: `runtime.LoopRuntime.body`; its
   storage: `runtime.LoopStorage`) -> the generated step loop (`codegen.step_loop`,
   emitting the body's steps with `gluonlite.executor.codegen`);
3. gradient: `lowered_vjp` -> `hoisted.hoisted_vjp` -> `_foreach_vjp` here ->
   `reverse_pass` -> the generated reverse pass (`codegen.reverse_pass_function`) -> the
   loop-summed weight gradients (`deferred.add_deferred_sums`).

A lowered loop's last output is a `Saved` object (a `hoisted.HoistedSaved` around one when
hoisted) holding what the gradient needs. Steps are kept only when the plan says a gradient
will be asked for (``rc.need_grad``); a vjp without them re-runs the loop.
"""
from ...context import host_scalar
from ...executor.lowering import register_lowering
from ..cond import BRANCH_LOCS, pred_value
from ..while_loop import by_role
from .codegen import reverse_pass_function
from .counting import gather, gathered_rows
from .decisions import plan_cond, plan_foreach, plan_while
from .deferred import add_deferred_sums, add_into, free_dest, new_stash
from .hoisted import HoistedSaved, hoisted_vjp, run_hoisted
from .runtime import (LoopRuntime, LoopStorage, StackedSteps, data_column, data_row,
                      fast_weight_layout)

__all__ = ["Saved", "lowered_kernel", "lowered_vjp", "reverse_pass"]


class Saved:
    """What a loop or branch node keeps for its gradient (the opaque stateful output).

    Attributes:
        body: the `deferred.LoopBody` that ran (its plan compiled for
            gradients when `steps` is not None).
        steps: the `saved` object of each executed step, or None when nothing was kept.
        n_steps: how many steps ran (for `_cond`: 0 = else, 1 = then).

    Example::

        from gluonlite.control_flow.lowering.kernels import Saved
        saved = Saved(body=None, steps=None, n_steps=0)   # a loop that ran no step
        saved.n_steps   # 0
    """

    __slots__ = ("body", "steps", "n_steps")

    def __init__(self, body, steps, n_steps):
        self.body, self.steps, self.n_steps = body, steps, n_steps


def _float(d):
    return d is not None and d.kind == "f"


def lowered_kernel(run):
    """A lowered loop kernel from `run(spec, rc, xs, keep) -> (outs, Saved)`: the steps are
    kept when a gradient will be asked for, and a hoisted loop runs its rewritten loop.

    Example::

        from gluonlite.executor.lowering import lowering_of
        lowering_of('_foreach').kernel.__qualname__
        # 'lowered_kernel.<locals>.kernel': made by lowered_kernel(_foreach_run)
    """
    def kernel(p, rc, *xs):
        spec = rc.spec
        if spec.hoist is not None:
            return run_hoisted(run, spec.hoist, rc, xs)
        outs, state = run(spec, rc, xs, keep=rc.need_grad)
        return (*outs, state)
    return kernel


def lowered_vjp(vjp):
    """A lowered loop vjp from `vjp(spec, rc, xs, ys, gys, need, dests)`.

    Example::

        from gluonlite.executor.lowering import lowering_of
        lowering_of('_foreach').vjp.__qualname__
        # 'lowered_vjp.<locals>.loop_vjp': made by lowered_vjp(_foreach_vjp)
    """
    def loop_vjp(p, rc, xs, ys, gys, need, dests=None):
        if isinstance(ys[-1], HoistedSaved):
            return hoisted_vjp(vjp, rc, xs, ys, gys, need, dests)
        return vjp(rc.spec, rc, xs, ys, gys, need, dests)
    return loop_vjp


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


def _foreach_run(spec, rc, xs, keep):
    p, xp = spec.params, rc.xp
    data, states, remain = _foreach_split(p, xs)
    n_body = len(data) + len(states) + len(remain)
    n_steps = data[0].shape[0]
    args = _foreach_body_values(p, [data_row(d, 0) for d in data], states, remain, n_body)
    free = [False] * n_body  # the free inputs are the same at every step
    for loc in p.remain_locs:
        free[loc] = True
    body = rc.runtime.body(spec, 0, [a.shape for a in args], [a.dtype for a in args],
                           rc.is_train, keep, xp, invariant=free if keep else None)
    store = LoopStorage(xp, body, p.num_out_data, n_steps, keep, zero_rows=False,
                        scanned=p.in_data_locs, carried=p.in_state_locs)
    saved = [] if keep and store.saved is None else None
    # The forward may read free weights in a faster layout; a backward reads the originals.
    fast = fast_weight_layout(xp, {j: args[j] for j in spec.weight_layout},
                              rc.runtime.buffers.layouts, steps_as_lists=saved is not None)
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



def _while_run(spec, rc, xs, keep):
    p, xp = spec.params, rc.xp
    var_nodes, cond_roles, func_roles = spec.roles.var_nodes, spec.roles.cond, spec.roles.func
    cur = [xs[i] for i in var_nodes]
    f_args = by_role(func_roles, cur, xs)
    fixed = spec.roles.func_fixed
    func = rc.runtime.body(spec, 1, [a.shape for a in f_args], [a.dtype for a in f_args],
                           rc.is_train, keep, xp, invariant=fixed if keep else None)
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
                              rc.runtime.buffers.layouts, steps_as_lists=saved is not None)
    f_args = by_role(func_roles, cur, [fast.get(i, x) for i, x in enumerate(xs)])
    step_outs, step_rows = store.columns(n_it if n_steps is None else n_steps)
    if n_steps is not None:
        store.run(f_args, fed, step_outs, step_rows, saved, 0, n_steps)
        step = n_steps
    else:  # cond decides before each step (a counted loop never runs its plan)
        c_args = by_role(cond_roles, cur, xs)
        cond = rc.runtime.body(spec, 0, [a.shape for a in c_args], [a.dtype for a in c_args],
                               False, False, xp).plan.forward_fn(False)
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
    add_deferred_sums(state.body, stash, by_role(func_roles, [None] * len(var_nodes), xs),
                      acc, lambda j: func_roles[j][1], dests)
    for k, idx in enumerate(var_nodes):
        if _float(xs[idx].dtype):
            add_into(acc, idx, carry[k])
    return acc



# =============================================================================== _cond
def _cond_run(spec, rc, xs, keep, taken=None):
    p, xp = spec.params, rc.xp
    if taken is None:
        c_args = [xs[i] for i in p.cond_input_locs]
        cplan = rc.runtime.body(spec, 0, [a.shape for a in c_args], [a.dtype for a in c_args],
                                False, False, xp).plan
        (c,), _ = cplan.forward(c_args)
        taken = pred_value(c)
    b = 0 if taken else 1
    args = [xs[i] for i in p[BRANCH_LOCS[b]]]
    body = rc.runtime.body(spec, 1 + b, [a.shape for a in args], [a.dtype for a in args],
                           rc.is_train, keep, xp)
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
    for j, i in enumerate(p[BRANCH_LOCS[0 if state.n_steps else 1]]):
        add_into(acc, i, g[j])
    return acc


def reverse_pass(state, gys, n_out, carry, carry_locs, rows=None, sums=None):
    """Run the body's backward over the executed steps in reverse (one generated function,
    `reverse_pass_function`).

    Args:
        state: the loop's `Saved`.
        gys: the node's output gradients (None where none): the stacked outputs first.
        n_out: how many outputs are stacked.
        carry: the gradients of the carried values at the loop's exit (None for none).
        carry_locs: the body input of each carried value; its gradient flows from step t
            to step t - 1.
        rows: {body input: zeroed array}: row t of the array receives that input's
            gradient at step t (scanned data); it may double as a stash stack of the same
            gradients (`new_stash`'s `grads`), whose rows no step reaches read 0.
        sums: {body input: index}: gradients summed over the steps into accumulator
            `index` (0, 1, ...; inputs with one index share it).

    Returns:
        (carry, sums, stash): the carried gradients at the loop's entry, the sums (None
        where nothing reached), and the stacks of the deferred invariant-input gradients
        (None when the plan defers none).

    Example::

        from gluonlite.executor import compile_plan
        from gluonlite.executor.lowering import lowering_of
        from gluonlite.ops.registry import RunCtx
        def step(x, h):
            new = sym.tanh(x + h[0])
            return new, [new]
        outs = sym.contrib.foreach(step, sym.var('data'), [sym.var('h0')])[0]
        plan = compile_plan(outs, [(5, 2, 3), (2, 3)], ['float32'] * 2, is_train=True,
                            grad_inputs=[True, True], static_alloc=True)
        loop = [st for st in plan.steps if st.spec is not None][0]
        rc = RunCtx(True, np, True, loop.spec, loop.runtime)   # a training call
        xs = [np.ones((5, 2, 3), np.float32), np.zeros((2, 3), np.float32)]   # data, h0
        state = lowering_of('_foreach').kernel(loop.spec.params, rc, *xs)[-1]   # a kernels.Saved
        from gluonlite.control_flow.lowering.kernels import reverse_pass
        g_data = np.zeros((5, 2, 3), np.float32)   # row t receives data's gradient at step t
        gys = [np.ones((5, 2, 3), np.float32)]   # the gradient of the stacked output
        carry, sums, stash = reverse_pass(state, gys, 1, [None], [1], rows={0: g_data})
        print(carry[0][0, 0] == g_data[0, 0, 0], sums, stash)   # True [] None: x, h0 alike
    """
    rows, sums = rows or {}, sums or {}
    body, steps, n = state.body, state.steps, state.n_steps
    stacked = isinstance(steps, StackedSteps)
    held = steps.input_stacks(n) if body.deferred and stacked else None
    if not n:
        return [None if c is None else c.copy() for c in carry], \
            [None] * len(set(sums.values())), new_stash(body, 0, held) if body.deferred else None
    # the stacks the loop holds anyway that the deferred sums read: the reverse pass does
    # not copy their rows
    provided = frozenset(u for d in body.deferred for u in d.uses if u in (held or ())) \
        if body.deferred else None
    reverse = reverse_pass_function(body, provided, steps.fixed if stacked else None, n_out,
                                    carry_locs, list(rows), sums)
    dests = [d if d.ndim > 1 else d.reshape(-1, 1) for d in rows.values()]
    stash = None
    if body.deferred:
        stash = new_stash(body, n, held, {slot: dests[k][:n]
                                          for slot, k in reverse.grads_in_rows.items()},
                          reverse.grads_shared)
    heads = [[None] * n if g is None else list(g) for g in gys[:n_out]]
    carry, summed = reverse((steps.columns(n), steps.saved_rows) if stacked else steps, heads,
                            carry, dests, stash, n - 1)
    # The carried gradients that leave the loop must not alias a head or each other.
    return [None if c is None else c.copy() for c in carry], summed, stash




# ---- registration ----------------------------------------------------------------------
register_lowering("_foreach", decide=plan_foreach, kernel=lowered_kernel(_foreach_run),
                  vjp=lowered_vjp(_foreach_vjp), runtime=LoopRuntime)
register_lowering("_while_loop", decide=plan_while, kernel=lowered_kernel(_while_run),
                  vjp=lowered_vjp(_while_vjp), runtime=LoopRuntime)
register_lowering("_cond", decide=plan_cond, kernel=lowered_kernel(_cond_run),
                  vjp=lowered_vjp(_cond_vjp), runtime=LoopRuntime)
