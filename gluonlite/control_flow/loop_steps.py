"""Running a loop's steps: the per-call buffers and the reverse pass.

A loop kernel (`gluonlite.control_flow.operators`) runs its body's generated step loop
(`loop_codegen.step_loop`: the loop and the body in one function). What the steps write is
laid out here, once per call: each step's rows of
the stacked outputs, the buffers of the values carried from step to step (rows of a stacked
output when they are the same value, two swapped buffers in inference, rows of one stack in
training), and the stacks that keep what the body's backward reads. `reverse_pass` runs the
body's generated reverse pass (`loop_codegen.reverse_pass_function`) over the kept steps,
last to first, with the stacks of the gradients of invariant inputs whose sums it defers
(`new_stash`, `add_deferred_sums`).
"""
from .body import add_into, free_dest
from .loop_codegen import reverse_pass_function, step_loop

__all__ = ["LoopStorage", "StackedSteps", "data_row", "data_column", "reverse_pass",
           "saved_stacks", "new_stash", "add_deferred_sums"]


def data_row(x, t):
    """Row t of scanned data (a 1-D array gives shape (1,), as MXNet slices it)."""
    return x[t] if x.ndim > 1 else x[t:t + 1]


def data_column(x):
    """Scanned data indexable by step: row t is `data_row(x, t)`."""
    return x if x.ndim > 1 else x.reshape(-1, 1)


class StackedSteps:
    """A loop's saved steps held in stacks (the generated step loop, `step_loop` with
    rows, wrote step t's saved values to row t).

    `columns(n)` gives, per body input, its value when it is the same at every step
    (`fixed`), else its column over the first n steps (row t: its value at step t, an
    array or a list of views). With the saved stacks, they are what the body's
    generated reverse pass reads (`reverse_pass_function` with `from_rows`), row by row.
    `input_stacks(n)` gives {body input: (n, ...) stack of its value at each step} for the
    inputs the loop holds that way anyway (scanned data, carried values): a backward that
    sums over steps reads them there."""

    __slots__ = ("saved_rows", "columns", "input_stacks", "fixed")

    def __init__(self, saved_rows, columns, input_stacks, fixed):
        self.saved_rows, self.columns, self.input_stacks = saved_rows, columns, input_stacks
        self.fixed = tuple(fixed)


def _carried_columns(xp, specs, n_steps, keep, stackable, shared):
    """Buffers for the values carried from step to step.

    `shared[k]` (when present) is carried value k's stack: the stacked step output it
    equals, whose row t the step writes anyway. The others: without gradients two buffers
    per value are swapped; with them every step's value stays alive (a saved step reads
    it): rows of one (n_steps, ...) stack per value when the steps are stacked, else fresh
    arrays.

    Returns (columns, stacks): `columns(n)` gives, per carried value, the buffers steps
    0..n-1 write its new values to (row t: step t's; a stack or a list), and the carried
    values' stacks (None unless `stackable`).
    """
    if stackable:
        stacks = [shared[k] if k in shared else
                  xp.empty((max(n_steps, 1),) + tuple(s), dtype=d)
                  for k, (s, d) in enumerate(specs)]
        return (lambda n: stacks), stacks
    makers = []
    for k, (s, d) in enumerate(specs):
        if k in shared:
            makers.append(lambda n, st=shared[k]: st)
        elif not keep:
            pair = (xp.empty(s, dtype=d), xp.empty(s, dtype=d))
            makers.append(lambda n, pair=pair: [pair[t % 2] for t in range(n)])
        else:
            makers.append(lambda n, s=s, d=d: [xp.empty(s, dtype=d) for _ in range(n)])
    return (lambda n: [make(n) for make in makers]), None


def _layout(body, n_out):
    """Which step outputs hold the same body value as a carried value or a saved value, as
    ({carried value k: step output j}, {saved slot: step output j}) (an RNN's new state is
    also its step output: one stack serves both, as in the hand-written floor). Derived
    from the plan once (kept in `LoopBody.layouts`)."""
    by_plan, plan = body.layouts, body.plan
    if n_out not in by_plan:
        outputs = {}
        for j, s in enumerate(plan.out_slots[:n_out]):
            outputs.setdefault(plan.value_of(s), j)
        carried = {k: outputs[plan.value_of(s)] for k, s in enumerate(plan.out_slots[n_out:])
                   if plan.value_of(s) in outputs}
        saved = {s: outputs[s] for s in plan.saved_ops if s in outputs}
        by_plan[n_out] = (carried, saved)
    return by_plan[n_out]


class LoopStorage:
    """The per-call buffers of a loop over at most `n_rows` steps, and the generated step
    loop of its body (`body`, a `LoopBody`) that writes them.

    Attributes:
        stacked: the stacked step outputs (zeroed when `zero_rows`: while_loop's rows past
            the last step read 0).
        shared: {carried value k: the stacked output it equals} (the step does not write
            such a value twice: the next step reads it from its row).
        carried: the carried values' stacks (None unless the steps are stacked).
        saved: the saved-step stacks {slot: stack} (None when steps are not stacked).
        run: the body's generated step loop (`step_loop`, called with `columns`' columns):
            the `scanned` slots read from `fed`, output n_out + k carried into body input
            `carried[k]` (but for the loop vars `fed_vars`, which the loop feeds itself:
            a counted loop's counter), the values in `shared` not written twice, and each
            step's saved values appended to a list when they cannot be stacked (`keep`
            with the attribute `saved` None).
    """

    def __init__(self, xp, body, n_out, n_rows, keep, zero_rows, scanned, carried,
                 fed_vars=(), given=()):
        make = xp.zeros if zero_rows else xp.empty
        self.xp, plan = xp, body.plan
        stackable = keep and body.stackable
        carried_as, saved_as = _layout(body, n_out)
        # A stacked output that is also a carried value gets one row more in front when the
        # steps are kept: filled with the value the loop starts from, the buffer's first n
        # rows are then the values entering each step, without a copy (`entering`).
        extended = set(carried_as.values()) if stackable else set()
        self.stacked, by_output = [], {}
        for j, (s, d) in enumerate(zip(plan.out_shapes[:n_out], plan.out_dtypes[:n_out])):
            if j in extended:
                by_output[j] = make((n_rows + 1,) + tuple(s), dtype=d)
                self.stacked.append(by_output[j][1:])
            else:
                self.stacked.append(make((n_rows,) + tuple(s), dtype=d))
        self._entering = {k: by_output[j] for k, j in carried_as.items() if j in by_output}
        specs = list(zip(plan.out_shapes[n_out:], plan.out_dtypes[n_out:]))
        self.shared = {k: self.stacked[j] for k, j in carried_as.items()}
        self._columns, self.carried = _carried_columns(xp, specs, n_rows, keep, stackable,
                                                       self.shared)
        skip = {n_out + k for k in set(self.shared) | set(fed_vars)}
        self.saved = None
        if stackable:
            # A saved value that is also a step output is kept in the output's stack: the
            # step writes it once, for both.
            self.saved = saved_stacks(
                plan, n_rows, {s: self.stacked[j] for s, j in saved_as.items()})
            skip.update(saved_as.values())
        # The saved stacks in the order a step's `rows` take them.
        self.saved_rows = None if self.saved is None else [self.saved[s] for s in plan.saved_ops]
        self.run = step_loop(plan, stackable, keep and not stackable, skip, given, scanned,
                             [(slot, n_out + k) for k, slot in enumerate(carried)
                              if k not in fed_vars])

    def columns(self, n):
        """What steps 0..n-1 write, row t by step t: the columns of the step outputs (the
        stacked outputs, then the carried values' buffers: stacks, or lists made here) and
        the saved-step stacks (None when steps are not stacked)."""
        return self.stacked + self._columns(n), self.saved_rows

    def entering_column(self, k, first, n):
        """Carried value k entering each of steps 0..n-1, indexable by step: the view
        `entering` gives when it is one, else a list of views (`first`, then its stack's
        rows; no copy)."""
        if k in self._entering:
            return self.entering(k, first, n)
        return [first] + list(self.carried[k][:n - 1]) if n else []

    def entering(self, k, first, n):
        """(n, ...) values of carried value k entering each of steps 0..n-1 (`first`, then
        its stack's rows): a view of the buffer in front of its stacked output when it has
        one (`first` is written to that buffer's row 0), else a new array."""
        buf = self._entering.get(k)
        if buf is None:
            out = self.xp.empty((n,) + first.shape, dtype=first.dtype)
            if n:
                out[0] = first
                out[1:] = self.carried[k][:n - 1]
            return out
        buf[0] = first
        return buf[:n]

    def final(self, cur, first):
        """The loop's final carried values: never a view of a stacked output (nor, after no
        step, the caller's own arrays)."""
        if cur is first:
            return [x.copy() for x in cur]
        return [c.copy() if k in self.shared else c for k, c in enumerate(cur)]


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


def saved_stacks(plan, n_steps, provided=None):
    """{slot: (n_steps, ...) array}: a loop's stacks of its steps' saved values (`plan`:
    the body's plan; needs `LoopBody.stackable`); `provided` {slot: stack} gives stacks the
    caller already holds (a loop's stacked step output that is the same value)."""
    provided = provided or {}
    return {s: provided[s] if s in provided else
            plan.xp.empty((n_steps,) + tuple(plan.slot_shape[s]), dtype=plan.slot_dtype[s])
            for s in plan.saved_ops}


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
    """Add the loop-summed gradients of the deferred invariant inputs (one `Fast.vjp_sum`
    call each, over the stacks of `stash`) into `acc`, the node's gradients (`add_into`).

    Args:
        body_args: per body input, its value (the invariant ones are read).
        node_index_of: the node input index of a body input slot.
        dests: per node input, None or its caller's array (`Fast.writes_dests`): a node
            input's first gradient is written there.
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
