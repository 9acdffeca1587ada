"""Generating a loop's step loop and reverse pass over its body's plan.

A loop node runs its body's compiled plan once per step, so the Python around each kernel
is paid T times per call. Its body is generated together with the loop around it
(`step_loop`), so a step costs its kernels and a few local assignments, not a call; what a
step reads and writes is row ``step`` of a column (an array, or a list). The emitters of
the plan's own forward and backward (`gluonlite.executor.codegen`) write the body; this
module writes the loop around it, and keeps what it generates on the plan
(`Plan.generated`). An RNN cell's step loop in inference (``fed0``: the hoisted input
projection; ``out0``: the stacked output, ``out1``: the new states, the same array, so the
step writes its row once and reads it back as the state)::

    def loop(args, fed, outs, rows, saved, start, stop):
        v0, v1, v2, = args
        fed0, = fed
        out0, out1, = outs
        for step in range(start, stop):
            v0 = fed0[step]
            o0 = out0[step]
            o1 = out1[step]
            xp.dot(v1, v2.T, out=b0_0)  # FullyConnected 'rnn0_t0_h2h'
            u1(v0, b0_0, out=b1_0, casting='unsafe')  # elemwise_add 'rnn0_t0_plus0'
            u2(b1_0, out=o0)  # tanh 'rnn0_t0_out'
            v1, = o1,

The reverse pass (`reverse_pass_function`) is the body's backward in a loop from the last
step to the first. Where each gradient the loop keeps is written is planned before any
line is emitted (`_plan_targets`): a rule that takes ``out=`` writes a gradient kept per
step straight into its row (here the data's), and a stash stack that would receive the
same array as a row (or as another stack) is that row (or stack)::

    if g5 is not None:  # tanh 'rnn0_t0_out'
        gx0 = grad1_0(xp, v4, v5, g5, out=dest0[step])
        g4 = gx0
        g5 = None
    if g4 is not None:  # elemwise_add 'rnn0_t0_plus0'
        g0 = g4
        g3 = g4
        g4 = None
"""
import itertools

from ...executor.codegen import (Emission, Writer, WriteTargets, backward_body,
                                compile_function, forward_body, read_slots, unpack)

__all__ = ["step_loop", "reverse_pass_function"]


# ---- the step loop ---------------------------------------------------------------------
def step_loop(plan, with_rows, keep, skip, given, scanned, carried):
    """The generated step loop ``f(args, fed, outs, rows, saved, start, stop)`` of a loop
    node running `plan` as its body, generated once per way of calling it.

    Args:
        plan: the body's compiled `Plan`.
        with_rows: each step writes its saved operator outputs (`Plan.saved_ops` order)
            into row t of the stacks of `runtime.saved_stacks` (`rows`).
        keep: append each step's saved values (the `saved` of `Plan.forward`) to a list;
            for a plan whose saved values cannot be stacked (`with_rows` False).
        skip: positions of outputs the steps do not write (a loop that reads a carried
            value from the stacked step output it equals does not write it twice).
        given: slots of single-output steps whose values come from `scanned` columns (a
            counted loop's rows gathered for every step at once): those steps, and what
            only they need, do not run.
        scanned: slots whose value at step t the loop reads from row t of a column
            (scanned data, a counter, `given` rows).
        carried: (input slot, output position) pairs: the value that output had after
            step t is that input at step t + 1.

    Returns:
        ``function(args, fed, outs, rows, saved, start, stop)`` runs steps start..stop-1.
        `args` holds every input's value at step `start` (scanned ones are ignored),
        `fed[k][t]` is scanned slot k at step t, `outs[j][t]` is what step t writes for
        output j and `rows[k][t]` for saved value k (`outs[j]`, `rows[k]`: arrays or
        lists), `saved` is the list `keep` appends to. It returns nothing: the carried
        values after the last step are in its outs.

    Example (a body ``(x, h, w) -> (y, h')`` scanning x, carrying output 1 into input 1;
    ys, hs: (T, ...) stacks the steps write)::

        run = step_loop(plan, False, False, (), (), scanned=[0], carried=[(1, 1)])
        run([None, h0, w], [xs], [ys, hs], None, None, 0, T)
    """
    key = ("loop", bool(with_rows), bool(keep), frozenset(skip), tuple(given),
           tuple(scanned), tuple(carried))
    return plan.generated(key, lambda: _step_loop(plan, *key[1:]))


def _step_loop(plan, with_rows, keep, skip, given, scanned, carried):
    w = Writer(plan)
    if plan.n_inputs:
        w.emit(", ".join(f"v{s}" for s in range(plan.n_inputs)) + ", = args")
    if scanned:
        w.emit(", ".join(f"fed{k}" for k in range(len(scanned))) + ", = fed")
    n_outs, n_rows = len(plan.out_slots), len(plan.saved_ops) if with_rows else 0
    if n_outs:
        w.emit(", ".join(f"out{k}" for k in range(n_outs)) + ", = outs")
    if n_rows:
        w.emit(", ".join(f"stack{k}" for k in range(n_rows)) + ", = rows")
    w.emit("for step in range(start, stop):")
    w.depth += 1
    for k, s in enumerate(scanned):
        w.emit(f"v{s} = fed{k}[step]")
    # An output the step does not write (`skip`) is read only when it is carried.
    carried_from = {k for _, k in carried}
    results, saved = forward_body(w, plan, True, skip, given,
                                  [f"out{k}[step]" if k not in skip or k in carried_from
                                   else None for k in range(n_outs)],
                                  _StepRows([f"stack{k}[step]" for k in range(n_rows)])
                                  if with_rows else None)
    if keep:
        w.emit(f"saved.append({saved})")
    if carried:
        w.emit(", ".join(f"v{s}" for s, _ in carried) + ", = " +
               ", ".join(f"o{k}" for _, k in carried) + ",")
    return compile_function(w, "loop(args, fed, outs, rows, saved, start, stop)")


class _StepRows(Emission):
    """A step of a loop that stacks its steps' saved values: the step writes each
    (`Plan.saved_ops` order) into its row (`rows`, one expression each) and hands none
    back."""

    def __init__(self, rows):
        self.rows = rows

    def forward_start(self, w, plan, direct):
        if plan.saved_ops:
            unpack(w, "r", len(plan.saved_ops), self.rows)
            for k, s in enumerate(plan.saved_ops):
                direct[s] = f"r{k}"

    def forward_end(self, w, plan, value):
        for k, s in enumerate(plan.saved_ops):
            if value[s] != f"r{k}":  # a kernel that allocated its own result
                w.emit(f"r{k}[...] = {value[s]}")
        return False


# ---- the reverse pass ------------------------------------------------------------------
def reverse_pass_function(body, provided, from_rows, n_out, carry_locs, rows, sums):
    """The generated reverse pass ``f(steps, heads, carry, dests, stash, start)`` of a loop
    node running `body` (its `deferred.LoopBody`): the steps' backward
    and the loop around it, as `step_loop` does for the forward, generated once per way of
    calling it.

    Args:
        body: the body's `LoopBody`, its plan with backward steps.
        provided: None when the loop passes no stash, else the slots whose stacks the
            loop holds already and gives the stash (`deferred.new_stash`'s `provided`):
            deferred gradients of invariant inputs go to row `step` of the stash's stacks
            instead of being computed, and those stacks are not written.
        from_rows: None, or per body input whether it is the same at every step: then the
            steps' saved values are columns and stacks (`steps` below) instead of, per
            step, the list of slot values a forward with `keep` appended.
        n_out: how many of the plan's outputs are stacked step outputs (the plan's
            outputs past n_out are the carried values).
        carry_locs: the body input of each carried value; its gradient flows from step t
            to step t - 1 (as `kernels.reverse_pass` takes it).
        sums: {body input: index}: gradients summed over the steps into accumulator
            `index` (as `kernels.reverse_pass` takes it).
        rows: input slots whose gradient at step t is written to row t of an array.

    Returns:
        ``function(steps, heads, carry, dests, stash, start) -> (carry, sums)`` runs steps
        start..0. `steps[t]` is step t's saved values (as `Plan.backward` reads them), or
        with `from_rows` the pair (ins, stacks): per body input its value when `from_rows`
        says it is the same at every step, else its column (row t: its value at step t; an
        array or a list), and the stacks of the saved operator outputs (`Plan.saved_ops`
        order, row t: step t's); `heads[j][t]` is stacked output j's gradient at step t,
        `carry` holds the carried values' gradients after step `start`, `dests` one array
        per `rows` slot. It returns the carried gradients at the loop's entry (they may
        alias a head or one another) and the sums (None where nothing reached).
        ``function.grads_in_rows`` is {slot: k}: the stash's stack of slot's output
        gradients must be the first rows of ``dests[k]`` (viewed in slot's shape: the
        function writes that gradient there once instead of to both; `new_stash`'s
        `grads`); ``function.grads_shared`` is {slot: other}: slot's stack must be other's
        (viewed in slot's shape; `new_stash`'s `shared`).

    Example (a loop's steps saved as lists: x's gradient to the rows of gx, w's summed over
    the steps)::

        rev = reverse_pass_function(LoopBody(plan), None, None, 1, [1], [0], {2: 0})
        (g_h0,), (g_w,) = rev(saved_steps, [list(g_ys)], [g_h_last], [gx], None, T - 1)
    """
    key = ("reverse", provided is not None, None if from_rows is None else tuple(from_rows),
           provided or frozenset(), n_out, tuple(carry_locs), tuple(rows),
           tuple(sorted(sums.items())))
    return body.plan.generated(key, lambda: _reverse_pass(body, *key[1:7], dict(key[7])))


def _reverse_pass(body, with_stash, from_rows, provided, n_out, carry_locs, rows, sums):
    plan = body.plan
    # Where the kept gradients go is read off a first emission (which gradient variables
    # hold the same array, and what made each), then the function is emitted with it.
    drafted = _ReverseStep(body, with_stash, from_rows, provided)
    _emit_reverse(Writer(plan), drafted, plan, from_rows, n_out, carry_locs, rows, sums)
    targets, skipped, grads_in_rows, grads_shared, row_writes = _plan_targets(drafted, plan,
                                                                              rows)
    w = Writer(plan)
    w.targets = targets
    _emit_reverse(w, _ReverseStep(body, with_stash, from_rows, provided, skipped), plan,
                  from_rows, n_out, carry_locs, rows, sums)
    for k, s in enumerate(rows):
        made = row_writes[k]
        if made is True:
            w.emit(f"pass  # g{s} is written to dest{k}[step] where it is made")
        elif made:
            w.emit(f"if g{s} is not None and g{s} is not {made}: {made}[...] = g{s}")
        else:
            w.emit(f"if g{s} is not None: dest{k}[step] = g{s}")
    for s, i in sums.items():
        w.emit(f"if g{s} is not None:")
        w.emit(f"    if acc{i} is None: acc{i} = g{s}.copy()")
        w.emit(f"    else: acc{i} += g{s}")
    w.depth -= 1
    carry = "".join(f"carry{k}, " for k in range(len(carry_locs)))
    n_sums = len(set(sums.values()))
    w.emit(f"return [{carry}], [{', '.join(f'acc{i}' for i in range(n_sums))}]")
    fn, source = compile_function(w, "reverse(steps, heads, carry, dests, stash, start)")
    fn.grads_in_rows, fn.grads_shared = grads_in_rows, grads_shared
    return fn, source


def _emit_reverse(w, emission, plan, from_rows, n_out, carry_locs, rows, sums):
    """Emit the reverse pass up to the end of a step's backward (the carried gradients
    handed on to the step before) with `emission` (a `_ReverseStep`); returns `w`."""
    if n_out:
        w.emit(", ".join(f"head{j}" for j in range(n_out)) + ", = heads")
    if carry_locs:
        w.emit(", ".join(f"carry{k}" for k in range(len(carry_locs))) + ", = carry")
    if rows:
        w.emit(", ".join(f"dest{k}" for k in range(len(rows))) + ", = dests")
    n_sums = len(set(sums.values()))
    if n_sums:
        w.emit(" = ".join(f"acc{i}" for i in range(n_sums)) + " = None")
    if from_rows is not None:  # the columns and stacks the steps read, named once
        w.emit("ins, stacks = steps")
        read, kept = emission.reads(plan)
        for s in sorted(read & kept):
            if s < plan.n_inputs:
                w.emit(f"v{s} = ins[{s}]" if from_rows[s] else f"in{s} = ins[{s}]")
        for k, s in enumerate(plan.saved_ops):
            if s in read:
                w.emit(f"stack{s} = stacks[{k}]")
    w.emit("for step in range(start, -1, -1):")
    w.depth += 1
    if from_rows is None:
        w.emit("saved = steps[step]")
    backward_body(w, plan, [f"head{j}[step]" for j in range(n_out)] +
                  [f"carry{k}" for k in range(len(carry_locs))], emission=emission)
    if carry_locs:
        w.emit(", ".join(f"carry{k}" for k in range(len(carry_locs))) + ", = " +
               ", ".join(f"g{s}" for s in carry_locs) + ",")
    return w


class _ReverseStep(Emission):
    """One step of a reverse pass: the step's values are read from row ``step`` of their
    columns and stacks (`from_rows`: per body input, True where ``v{slot}`` is the whole
    column, the same at every step; None: from ``saved``, the step's own list), its
    gradient blocks compute what deferral leaves them (`LoopBody.deferred`) and, `with_stash`,
    stash what the deferred sums read (`provided`: the stacks the loop gives; `skipped`:
    {slot: why} of stash writes not emitted, their stacks written elsewhere).

    For `_plan_targets` it follows which gradient variables hold the same data:
    ``alias`` gives each variable a token per array (kept by a reshape of it; a variable
    holding a sum or a rule's result gets a new one), ``made_by`` {token: (maker, shape)}
    what made an array (`Emission.assigned`), and ``stash_writes``, per stash stack of
    output gradients, (the token written, its stash index)."""

    def __init__(self, body, with_stash, from_rows, provided, skipped=None):
        self.body, self.with_stash, self.from_rows = body, with_stash, from_rows
        self.provided, self.skipped = provided or frozenset(), skipped or {}
        self.stash_writes, self.alias, self.made_by = {}, {}, {}
        self._tokens = itertools.count()

    def new_array(self, var):
        self.alias[var] = next(self._tokens)

    def assigned(self, var, expr, same_as=None, made=None):
        token = self.alias.get(expr if same_as is None else same_as)
        if token is not None:  # another variable's array (or its data), handed on
            self.alias[var] = token
        else:
            self.new_array(var)
            if made is not None:
                self.made_by[self.alias[var]] = made

    def released(self, variables):
        for var in variables:
            self.alias.pop(var, None)

    def reads(self, plan):
        """`read_slots`; the inputs the deferred sums read (a step's inputs, so read
        already) are kept too."""
        read, kept = read_slots(plan)
        kept.update(u for d in self.body.deferred for u in d.uses)
        return read, kept

    def read_values(self, w, plan):
        if self.from_rows is None:
            return super().read_values(w, plan)
        read, kept = self.reads(plan)
        saved_ops, stubs = set(plan.saved_ops), dict(plan.stubs)
        for s in sorted(read):  # step t's values: row t of their columns and stacks
            if s < plan.n_inputs and s in kept:
                if not self.from_rows[s]:
                    w.emit(f"v{s} = in{s}[step]")
            elif s in saved_ops:
                w.emit(f"v{s} = stack{s}[step]")
            elif s in stubs:
                w.bind(f"v{s}", stubs[s])

    def need(self, i, st):
        return self.body.need[i] if self.with_stash else st.need

    def before_gradient(self, w, plan, i, st, gys):
        if not self.with_stash:
            return
        # each stack once: a step's deferred sums share them (`new_stash`)
        grad_stacked, value_stacked = False, set()
        for k in self.body.deferred_at[i]:
            d = self.body.deferred[k]
            if not grad_stacked:
                grad_stacked = True
                why = self.skipped.get(st.outs[0])
                if why is not None:
                    w.emit(f"    pass  # {why}")
                else:
                    guard = f"if {gys[0]} is not None: " if len(gys) > 1 else ""
                    w.emit(f"    {guard}stash[{k}][0][step] = {gys[0]}")
                self.stash_writes[st.outs[0]] = (self.alias.get(gys[0]), k)
            for j, u in enumerate(d.uses):
                if u not in self.provided and u not in value_stacked:
                    value_stacked.add(u)
                    w.emit(f"    stash[{k}][1][{j}][step] = v{u}")


def _plan_targets(draft, plan, rows):
    """Where the reverse pass writes the gradients the loop keeps, from a draft emission
    (`draft`, its `_ReverseStep`): (WriteTargets,
    the stash writes skipped {slot: why}, grads_in_rows, grads_shared, per row: True when
    its gradient is written where it is made, the name holding the destination a vjp was
    given, or False).

    A stash stack that would receive the very array (or its data in another shape) a row
    of dests receives is that dests array instead (`grads_in_rows`), and one that would
    receive what another stash stack does is that stack (`grads_shared`): each step writes
    it once, not twice; where a rule that takes out= made it, the rule writes it there
    itself."""
    targets, taken, skipped = WriteTargets(), set(), {}
    grads_in_rows, grads_shared, holder, row_writes = {}, {}, {}, []
    for k, s in enumerate(rows):
        token = draft.alias.get(f"g{s}")
        for slot, (written, _) in draft.stash_writes.items():
            if token is not None and written == token and slot not in grads_in_rows:
                skipped[slot] = f"{slot}'s gradient: the rows of dest{k}"
                grads_in_rows[slot] = k
                holder[token] = slot
                break
        row_writes.append(_target_maker(draft, targets, taken, token, f"dest{k}[step]",
                                        plan.slot_shape.get(s), vjp=True))
    for slot, (written, j) in draft.stash_writes.items():
        if written is None or slot in grads_in_rows:
            continue
        if written in holder:
            skipped[slot] = f"{slot}'s gradient: the stack of {holder[written]}'s"
            grads_shared[slot] = holder[written]
        else:
            holder[written] = slot
            if _target_maker(draft, targets, taken, written, f"stash[{j}][0][step]",
                             plan.slot_shape.get(slot)):
                skipped[slot] = \
                    f"{slot}'s gradient: written to its stack where it is made"
    return targets, skipped, grads_in_rows, grads_shared, row_writes


def _target_maker(draft, targets, taken, token, target, shape, vjp=False):
    """Have the rule that made the gradient `token` (`_ReverseStep.made_by`) write it into
    `target`, a C-contiguous array of `shape`, or with `vjp`, the vjp that made it (which
    may not); `taken` holds the makers given a target already.

    Returns False when neither made it in that shape (the token may have come through a
    reshape) or its maker has a target already; True for a rule; for a vjp, the local name
    holding `target` (the vjp returns that array when it wrote there)."""
    made = draft.made_by.get(token) if token is not None else None
    if made is None:
        return False
    maker, made_shape = made
    line = maker[:2] if maker[0] == "vjp" else maker
    if made_shape is None or tuple(made_shape) != tuple(shape or ()) or line in taken or \
            (maker[0] == "vjp" and not vjp):
        return False
    del draft.made_by[token]
    taken.add(line)
    if maker[0] == "rule":
        targets.rule_out[maker[1:]] = target
        return True
    targets.vjp_dests[maker[1]] = (maker[2], target)
    return f"kept{maker[1]}"
