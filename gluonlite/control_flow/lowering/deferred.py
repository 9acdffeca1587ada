"""Deferred sums: the gradients of a loop's invariant inputs summed once after its reverse
pass instead of at every step.

A body operator whose gradient of an input is a sum over the batch of a product (a
FullyConnected's weight and bias, take's table) has a fast path for it
(`Fast.summed_grads`): that gradient summed over the loop's steps from the (T, ...) stacks of
what it reads. When such
an input is the same at every step, the reverse pass leaves it out of each step's backward
and stashes what the rule reads (`new_stash`); one call per deferred gradient follows the
loop (`add_deferred_sums`). `LoopBody` decides which gradients, once per body plan.
"""
__all__ = ["LoopBody", "Deferred", "new_stash", "add_deferred_sums", "free_dest", "add_into"]


class Deferred:
    """The gradient of invariant body input `slot` at body plan step `step`, summed over
    the loop's steps in one call after the reverse pass instead of at every step: each
    step stashes `step`'s output gradient and the inputs `names` (slots `uses`) that the
    operator's `Fast.summed_grads` rule `fn` reads; then ``fn(p, rc, input, {name: stacked
    values}, stacked gradient, out=)``.

    Example::

        from gluonlite.executor import compile_plan
        from gluonlite.control_flow.lowering.deferred import LoopBody
        step = sym.FullyConnected(sym.var('x'), sym.var('w'), no_bias=True, num_hidden=4)
        plan = compile_plan(step, [(2, 3), (4, 3)], ['float32'] * 2, is_train=True,
                            grad_inputs=[True, True], static_alloc=True)
        deferred = LoopBody(plan, invariant=[False, True]).deferred[0]   # w's gradient
        deferred.slot, deferred.names   # (1, ('data',)): summed from the stacked x
    """

    __slots__ = ("step", "slot", "fn", "names", "uses")

    def __init__(self, step, slot, fn, names, uses):
        self.step, self.slot, self.fn, self.names, self.uses = step, slot, fn, names, uses


class LoopBody:
    """A loop body's compiled plan with what the loop pass decided for running it at every
    step (kept in `runtime.LoopRuntime.plans`).

    Attributes:
        plan: the body's static-alloc `gluonlite.executor.plan.Plan`.
        stackable: every value the backward reads of a step (`Plan.saved_ops`) is an array
            (a nested loop's opaque state is not): the loop keeps its steps in stacks.
        deferred: the `Deferred` gradients, in backward order (none unless `invariant`).
        need: per backward step (`Plan.bwd_steps` order), the inputs whose gradient the
            reverse pass computes at every step: the step's `need` less the deferred ones.
        deferred_at: per backward step, the indices in `deferred` of its own.
        layouts, gathered: what the loop derives from the plan on first use
            (`runtime.LoopStorage`'s layout per number of stacked outputs; a counted
            loop's `counting.gathered_rows`), kept here so it lives as long as the plan.

    Example: ``LoopBody(plan, invariant=[False, False, True])`` defers input 2's gradient
    where its step's operator has a `Fast.summed_grads` rule for it.
    """

    def __init__(self, plan, invariant=None):
        self.plan = plan
        self.stackable = all(s in plan.slot_shape for s in plan.saved_ops)
        self.deferred, self.need, self.deferred_at = [], [], []
        for st in plan.bwd_steps:
            need, mine = list(st.need), []
            rules = st.op.fast.summed_grads if invariant and not st.op.variadic else None
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


def new_stash(body, n_steps, provided=None, grads=None, shared=None):
    """Zeroed (n_steps, ...) stacks for the deferred gradients (`LoopBody.deferred`) of a
    loop of n_steps running `body`.

    Args:
        provided: {body input slot: its (n_steps, ...) stack of per-step values} that the
            loop already holds (a scanned input, the carried states): the deferred sums
            read those instead of a copy made step by step.
        grads: {output slot: (n_steps, ...) zeroed array}: that slot's gradient stack (the
            reverse pass's `grads_in_rows`: it writes them there itself), viewed in the
            slot's shape.
        shared: {output slot: other output slot}: slot's gradient stack is other's, viewed
            in slot's shape (the reverse pass's `grads_shared`).
        body: the loop's `LoopBody`.
        n_steps: the number of rows of each stack (the loop's steps).

    Returns:
        A list with, per deferred gradient, (its output-gradient stack, [the stack of
        each input it reads]).

    Example: ``stash = new_stash(body, T, {0: xs})``; after the reverse pass,
    ``add_deferred_sums(body, stash, args, acc, ...)`` adds the summed gradients.
    """
    plan, provided = body.plan, provided or {}
    xp = plan.xp
    stash = []
    # One stack per slot, shared by the deferred sums of one step: one for the values a
    # sum reads and, apart (a slot may be both, in a chain of products), one for the
    # gradients it sums.
    values, grads, shared = dict(provided), dict(grads or {}), shared or {}

    def stack(stacks, s):
        shape = (n_steps,) + tuple(plan.slot_shape[s])
        if s not in stacks:
            stacks[s] = xp.zeros(shape, dtype=plan.slot_dtype[s])
        elif stacks[s].shape != shape:  # C-contiguous (a stack, rows of a dest): a view
            stacks[s] = stacks[s].reshape(shape)
        return stacks[s]
    for s, other in shared.items():
        grads[s] = stack(grads, other)
    for d in body.deferred:
        stash.append((stack(grads, d.step.outs[0]), [stack(values, u) for u in d.uses]))
    return stash


def add_deferred_sums(body, stash, body_args, acc, node_index_of, dests):
    """Add the loop-summed gradients of the deferred invariant inputs (one `Fast.summed_grads`
    call each, over the stacks of `stash`) into `acc`, the node's gradients (`add_into`).

    Args:
        body_args: per body input, its value (the invariant ones are read).
        node_index_of: the node input index of a body input slot.
        dests: per node input, None or its caller's array (`Fast.writes_dests`): a node
            input's first gradient is written there.
        body: the loop's `LoopBody` (its `deferred` gradients and plan).
        stash: what `new_stash` made and the reverse pass filled, or None (nothing to do).
        acc: the node's gradients, one per node input (None where none yet); updated in place.

    Example::

        from gluonlite.executor import compile_plan
        from gluonlite.executor.lowering import lowering_of
        from gluonlite.ops.registry import RunCtx
        from gluonlite.control_flow.lowering.kernels import reverse_pass
        from gluonlite.control_flow.lowering.deferred import add_deferred_sums
        def step(x, h):   # w is the same at every step: its gradient is summed after the loop
            new = sym.tanh(x + sym.FullyConnected(h[0], sym.var('w'), no_bias=True, num_hidden=3))
            return new, [new]
        outs = sym.contrib.foreach(step, sym.var('data'), [sym.var('h0')])[0]
        plan = compile_plan(outs, [(5, 2, 3), (2, 3), (3, 3)], ['float32'] * 3, is_train=True,
                            grad_inputs=[True] * 3, static_alloc=True)
        loop = [st for st in plan.steps if st.spec is not None][0]
        rc = RunCtx(True, np, True, loop.spec, loop.runtime)
        xs = [np.ones((5, 2, 3), np.float32), np.zeros((2, 3), np.float32),   # data, h0,
              np.full((3, 3), 0.1, np.float32)]                                 # w
        state = lowering_of('_foreach').kernel(loop.spec.params, rc, *xs)[-1]
        gys = [np.ones((5, 2, 3), np.float32)]
        _, sums, stash = reverse_pass(state, gys, 1, [None], [1], sums={2: 0})   # sums: [None]
        acc = [None] * 3   # the node's gradients: data, h0, w
        add_deferred_sums(state.body, stash, [None, None, xs[2]], acc, {2: 2}.get, None)
        print(acc[2].shape)   # (3, 3): w's gradient, one sum over the 5 steps
    """
    if stash is None:
        return
    into, taken = {}, set()  # body slot -> the dest its sum goes to, once per node input
    for d in body.deferred:
        i = node_index_of(d.slot)
        dest = free_dest(dests, acc, i)
        if dest is not None and i not in taken:
            into[d.slot] = dest
            taken.add(i)
    for d, (g, uses) in zip(body.deferred, stash):
        grad = d.fn(d.step.p, body.plan.rc, body_args[d.slot], dict(zip(d.names, uses)), g,
                    out=into.pop(d.slot, None))
        add_into(acc, node_index_of(d.slot), grad, fresh=True)


def free_dest(dests, acc, i):
    """Where node input i's gradient may be written (`Fast.writes_dests`): dests[i]
    while no gradient of that input was made yet (`acc[i]` is None), else None.

    Args:
        dests: None, or per node input None or the caller's array.
        acc: the gradients accumulated so far, per node input.
        i: the node input's index.

    Returns:
        An array or None.

    Example: ``g = fc.fast.vjp(p, rc, xs, ys, gys, need, dests=[free_dest(dests, acc, 1)])``
    then ``add_into(acc, 1, g[1], fresh=True)``: the first gradient lands in the caller's
    array, later ones add into it."""
    return None if dests is None or acc[i] is not None else dests[i]


def add_into(acc, i, g, fresh=False):
    """acc[i] += g in place, so accumulating over many steps allocates once. The first
    contribution is copied (g may be a buffer reused later) unless `fresh` says that g was
    just computed for this call and nothing else holds it.

    Args:
        acc: the list of accumulated gradients (None where none yet).
        i: the index in `acc`.
        g: the gradient to add; None adds nothing.
        fresh: default False: `g` may be kept as is for a first contribution.

    Example::

        from gluonlite.control_flow.lowering.deferred import add_into
        acc = [None]
        add_into(acc, 0, np.ones(2)); add_into(acc, 0, np.ones(2))
        acc   # [array([2., 2.])]
    """
    if g is None:
        return
    if acc[i] is None:
        acc[i] = g if fresh else g.copy()
    else:
        acc[i] += g
