"""Generating a plan's forward and backward as straight-line Python functions.

A plan is run once per call, and a loop node runs its body's plan once per step, so the
Python work around each kernel is paid T times per call. Instead of walking a list of
steps, a plan generates (once per way of calling it) a function in which every slot is a
local variable and every step one line calling its kernel with its bound parameters, as
torch.fx does for its graphs. What varies between calls (the arrays) are arguments; what
does not (kernels, params, static buffers, shapes) is bound in the function's namespace.
Which buffer each value is written to is decided here, once, instead of on every call;
so is which steps a caller's outputs need at all.

The source is kept for reading (`Plan.source`) and registered with `linecache`, so a
traceback through a plan shows the line of the failing step with its node's name.

A loop node's body is generated together with the loop around it (`loop_function`), so a
step costs its kernels and a few local assignments, not a call; what a step reads and
writes is row ``step`` of a column (an array, or a list). An RNN cell's step loop in
inference (``fed0``: the hoisted input projection; ``out0``: the stacked output, ``out1``:
the new states, the same array, so the step writes its row once and reads it back as the
state)::

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

A backward (`backward_function`, and inside a loop's reverse pass `reverse_function`) is
the same walk in reverse, one guarded block per step adding what the step's gradient rule
returns into its inputs' gradients (a rule that needs no attributes is called directly,
`Operator.grads`; others through the vjp). In a reverse pass, a rule that takes ``out=``
writes a gradient the loop keeps per step straight into its row (here the data's)::

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
import linecache
import weakref

__all__ = ["forward_function", "loop_function", "backward_function", "reverse_function"]

_COUNTER = itertools.count()


class _Writer:
    """Source lines plus the namespace of the names they refer to."""

    def __init__(self, plan):
        self.lines = []
        self.ns = {"rc": plan.rc, "xp": plan.xp, "empty": plan.xp.empty,
                   "copyto": plan.xp.copyto}
        self.depth = 1
        # In a backward: which gradient variables are known to hold the same data (one
        # token per array, kept by a reshape of it; a variable holding a sum or a rule's
        # result gets a new one), and per stash stack of output gradients, (its write's
        # line, the token written, its stash index).
        self.alias = {}
        self.stash_writes = {}
        # {token: (line, shape, how)} of a gradient made by a rule that takes ``out=``
        # (`writes_out`; how is None) or a vjp that takes ``dests=`` (`writes_dests`; how is
        # (input position, number of inputs)), and the lines given a target already.
        self.made_by, self.targeted = {}, set()
        self._tokens = itertools.count()

    def new_token(self, var):
        self.alias[var] = next(self._tokens)

    def bind(self, name, value):
        self.ns[name] = value
        return name

    def emit(self, line):
        self.lines.append("    " * self.depth + line)


def _dest(plan, slot, k, step_bufs, direct):
    """Where output k (slot `slot`) of a step is written: its static buffer, the caller's
    array for it, or (None) a fresh array."""
    if step_bufs is not None and step_bufs[k] is not None:
        return "static"
    return direct.get(slot)


def _live_steps(plan, skip, given):
    """Indices of the steps that some wanted value depends on: every output but those at
    positions `skip`, and the values the backward reads (`Plan.saved_slots`; it sees the
    others as shape stubs). Steps whose outputs the caller gives do not run. Random and
    stateful steps always run (a skipped random draw would shift the generator's stream)."""
    live = {s for k, s in enumerate(plan.out_slots) if k not in skip}
    live.update(plan.saved_slots)
    keep = []
    for i in range(len(plan.steps) - 1, -1, -1):
        st = plan.steps[i]
        if all(s in given for s in st.outs):
            continue
        if st.op.random or st.op.stateful or any(s in live for s in st.outs):
            keep.append(i)
            live.update(st.ins)
    return keep[::-1]


def forward_function(plan, with_outs, skip=()):
    """Generate `plan`'s forward for one way of calling it.

    Args:
        plan: a compiled `Plan`.
        with_outs: the caller passes `outs`, one array per visible output, to write into.
        skip: positions of visible outputs the caller does not want: they are not written,
            and steps only they need do not run.

    Returns:
        (function, source): ``function(args, outs) -> (results, saved)`` with the meaning
        of `Plan.forward`, and its source text.
    """
    w = _Writer(plan)
    if plan.n_inputs:
        w.emit(", ".join(f"v{s}" for s in range(plan.n_inputs)) + ", = args")
    results, saved = _forward_body(w, plan, with_outs, False, skip, (), "outs", None)
    w.emit(f"return {results}, {saved}")
    return _compile(w, plan, "forward(args, outs)")


def loop_function(plan, with_rows, keep, skip, given, scanned, carried):
    """Generate a loop over `plan` as one function: the step loop and its body together, so
    a step costs its kernels and a few local assignments (no call, no argument list).

    Args:
        plan, skip: as for `forward_function` (the loop always passes each step's `outs`;
            a loop that reads a carried value from the stacked step output it equals skips
            writing it twice).
        with_rows: each step writes its saved operator outputs (`plan._saved_ops` order)
            into row t of the stacks of `new_saved_stacks` (`rows`).
        given: slots of single-output steps whose values come from `scanned` lists (a
            counted loop's rows gathered for every step at once): those steps, and what
            only they need, do not run.
        keep: append each step's saved values (the `saved` of `Plan.forward`) to a list;
            for a plan whose saved values cannot be stacked (`with_rows` False).
        scanned: slots whose value at step t the loop reads from row t of a column
            (scanned data, a counter, `given` rows).
        carried: (input slot, output position) pairs: the value that output had after
            step t is that input at step t + 1.

    Returns:
        (function, source): ``function(args, fed, outs, rows, saved, start, stop)`` runs
        steps start..stop-1. `args` holds every input's value at step `start` (scanned ones
        are ignored), `fed[k][t]` is scanned slot k at step t, `outs[j][t]` is what step t
        writes for output j and `rows[k][t]` for saved value k (`outs[j]`, `rows[k]`:
        arrays or lists), `saved` is the list `keep` appends to. It returns nothing: the
        carried values after the last step are in its outs.
    """
    w = _Writer(plan)
    if plan.n_inputs:
        w.emit(", ".join(f"v{s}" for s in range(plan.n_inputs)) + ", = args")
    if scanned:
        w.emit(", ".join(f"fed{k}" for k in range(len(scanned))) + ", = fed")
    n_outs, n_rows = len(plan.out_slots), len(plan._saved_ops) if with_rows else 0
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
    results, saved = _forward_body(w, plan, True, with_rows, skip, given,
                                   [f"out{k}[step]" if k not in skip or k in carried_from
                                    else None for k in range(n_outs)],
                                   [f"stack{k}[step]" for k in range(n_rows)])
    if keep:
        w.emit(f"saved.append({saved})")
    if carried:
        w.emit(", ".join(f"v{s}" for s, _ in carried) + ", = " +
               ", ".join(f"o{k}" for _, k in carried) + ",")
    return _compile(w, plan, "loop(args, fed, outs, rows, saved, start, stop)")


def _forward_body(w, plan, with_outs, with_rows, skip, given, outs, rows):
    """Emit a forward's steps once its inputs (and `given` slots) are in ``v{slot}``;
    `outs`/`rows` are the expression of the caller's list of arrays, or a list of
    expressions, one per array. Returns the expressions of (the results, the saved
    values)."""
    n_in = plan.n_inputs
    value = {s: f"v{s}" for s in list(range(n_in)) + list(given)}
    direct = {}  # slot -> the caller's array it is written to
    if with_outs and plan.out_slots:
        _unpack(w, "o", len(plan.out_slots), outs)
        for k, s in enumerate(plan.out_slots):
            if s in plan._caller_direct and k not in skip:
                direct.setdefault(s, f"o{k}")
    if with_rows and plan._saved_ops:
        _unpack(w, "r", len(plan._saved_ops), rows)
        for k, s in enumerate(plan._saved_ops):
            direct[s] = f"r{k}"
    for i in _live_steps(plan, skip, set(given)):
        _emit_step(w, plan, i, plan.steps[i], direct, value)
    if with_rows:
        for k, s in enumerate(plan._saved_ops):
            if value[s] != f"r{k}":  # a kernel that allocated its own result
                w.emit(f"r{k}[...] = {value[s]}")
    if with_outs:
        for k, s in enumerate(plan.out_slots):
            if k not in skip and value[s] != f"o{k}":
                w.emit(f"copyto(o{k}, {value[s]}, casting='unsafe')")
        results = "outs"
    else:
        results = "[" + ", ".join(
            f"{value[s]}.copy()" if s < n_in else value[s] for s in plan.out_slots) + "]"
    if not plan.bwd_steps or with_rows:
        return results, "None"
    saved = [value.get(s, "None") for s in range(plan.n_slots)]
    for s, stub in plan._stubs:
        saved[s] = w.bind(f"z{s}", stub)
    for s in plan._dropped:
        saved[s] = "None"
    return results, f"[{', '.join(saved)}]"


def _unpack(w, prefix, n, source):
    """``{prefix}0, ... = source`` for an expression, one line each for a list of them
    (None: a name not needed)."""
    if isinstance(source, str):
        w.emit(", ".join(f"{prefix}{k}" for k in range(n)) + f", = {source}")
    else:
        for k, expr in enumerate(source):
            if expr is not None:
                w.emit(f"{prefix}{k} = {expr}")


def _emit_step(w, plan, i, st, direct, value):
    ins = ", ".join(value[s] for s in st.ins)
    where = f"  # {st.op.name} {st.node.name!r}"
    outs = st.outs
    if st.op.reshapes:  # a view with the shape inferred at compile time
        shape = w.bind(f"S{outs[0]}", plan.slot_shape[outs[0]])
        w.emit(f"v{outs[0]} = {value[st.ins[0]]}.reshape({shape}){where}")
        value[outs[0]] = f"v{outs[0]}"
        return
    if st.op.views is not None:  # views of the input at indices known now
        src = value[st.ins[0]]
        index = st.op.views(st.p, plan.slot_shape[st.ins[0]])
        w.emit(", ".join(f"v{s}" for s in outs) + ", = " +
               ", ".join(f"{src}[{w.bind(f'I{s}', ix)}]" for s, ix in zip(outs, index)) +
               f",{where}")
        for s in outs:
            value[s] = f"v{s}"
        return
    w.bind(f"p{i}", st.p)
    args = f"p{i}, " + w.bind(f"rc{i}", st.rc) if st.rc is not None else f"p{i}, rc"
    if not st.use_into:
        fn = w.bind(f"f{i}", st.op.kernel)
        names = [f"v{s}" for s in outs]
        lhs = names[0] if len(outs) == 1 else ", ".join(names) + ","
        w.emit(f"{lhs} = {fn}({args}{', ' if ins else ''}{ins}){where}")
        for s, name in zip(outs, names):
            value[s] = name
        return
    targets, all_static = [], True
    for k, s in enumerate(outs[:st.n_arrays]):
        dest = _dest(plan, s, k, st.bufs, direct)
        all_static = all_static and dest == "static"
        if dest == "static":
            dest = w.bind(f"b{i}_{k}", st.bufs[k])
        elif dest is None:
            shape = w.bind(f"S{s}", plan.slot_shape[s])
            dtype = w.bind(f"D{s}", plan.slot_dtype[s])
            w.emit(f"v{s} = empty({shape}, dtype={dtype})")
            dest = f"v{s}"
        targets.append(dest)
        value[s] = dest
    lines = None
    if st.op.inline is not None and all_static and len(targets) == 1:  # known contiguous
        lines = st.op.inline(st.p, [plan.slot_shape[s] for s in st.ins],
                             [plan.slot_dtype[s] for s in st.ins])
    if lines:  # the operator's own lines
        for line in lines:
            w.emit(line.format(*[value[s] for s in st.ins], out=targets[0]) + where)
        return
    function = _ufunc_of(st.op, plan.xp) if len(targets) == 1 else None
    if function is not None:  # the array function itself
        uf = w.bind(f"u{i}", function)
        extra = "".join(f", {k}={v!r}" for k, v in st.op.ufunc[1].items())
        w.emit(f"{uf}({ins}, out={targets[0]}{extra}){where}")
        return
    fn = w.bind(f"f{i}", st.op.into)
    if all_static:  # bind the list once
        out_list = w.bind(f"B{i}", [st.bufs[k] for k in range(len(targets))])
    else:
        out_list = "[" + ", ".join(targets) + "]"
    w.emit(f"{fn}({args}, {out_list}{', ' if ins else ''}{ins}){where}")


def _ufunc_of(op, xp):
    """The array function `op.ufunc` names for array module `xp`, or None."""
    if op.ufunc is None:
        return None
    name = op.ufunc[0]
    return name(xp) if callable(name) else getattr(xp, name)


def _compile(w, plan, signature):
    source = f"def {signature}:\n" + "\n".join(w.lines) + "\n"
    filename = f"<gluonlite plan {next(_COUNTER)}>"
    # Keep the source where tracebacks look for it.
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    weakref.finalize(plan, linecache.cache.pop, filename, None)
    ns = dict(w.ns)
    exec(compile(source, filename, "exec"), ns)
    return ns[signature.split("(")[0]], source


def backward_function(plan, with_dests=False):
    """Generate `plan`'s backward (the meaning of `Plan.backward`).

    Args:
        plan: a compiled `Plan` with backward steps.
        with_dests: the caller passes `dests`, per input None or an array for its gradient
            (see `Operator.writes_dests`): an input used once in the plan, by an operator
            that writes into destinations, gets its gradient written there.

    Returns:
        (function, source): ``function(saved, heads, dests=None) -> grads``, one per input
        (None where the input wants none or receives none).

    Each step's gradient code runs only when a gradient reaches one of its outputs; a
    value's gradient is the sum of its uses' contributions.
    """
    w = _Writer(plan)
    into = _destinations(plan) if with_dests else {}
    if into:
        w.emit(", ".join(f"into{s}" for s in range(plan.n_inputs)) + ", = dests")
    _backward_body(w, plan, False, None, frozenset(),
                   [f"heads[{k}]" for k in range(len(plan.out_slots))], into)
    w.emit("return [" + ", ".join(f"g{s}" if plan.grad_inputs[s] else "None"
                                  for s in range(plan.n_inputs)) + "]")
    return _compile(w, plan, "backward(saved, heads, dests=None)")


def _destinations(plan):
    """{backward step index: input positions whose gradient it may write into a caller's
    array}: inputs of the plan that only that one position reads (so that gradient is the
    input's whole gradient), of operators that write into destinations."""
    uses = {}
    for st in plan.steps:
        for s in st.ins:
            uses[s] = uses.get(s, 0) + 1
    for s in plan.out_slots:
        uses[s] = uses.get(s, 0) + 1
    into = {}
    for i, st in enumerate(plan.bwd_steps):
        if st.op.writes_dests:
            js = [j for j, s in enumerate(st.ins) if s < plan.n_inputs and uses[s] == 1]
            if js:
                into[i] = js
    return into


def reverse_function(plan, with_stash, from_rows, provided, n_out, carry_locs, rows, sums):
    """Generate a loop's reverse pass over `plan` as one function (the steps' backward and
    the loop around it, as `loop_function` does for the forward).

    Args:
        plan: a compiled `Plan` with backward steps.
        with_stash: the loop passes a stash (`Plan.new_stash`): deferred gradients of
            invariant inputs go to row `step` of its stacks instead of being computed.
        from_rows: None, or per body input whether it is the same at every step: then the
            steps' saved values are columns and stacks (`steps` below) instead of, per
            step, the list of slot values a forward with `keep` appended.
        provided: input slots whose stash stacks the loop filled itself.
        n_out: how many of the plan's outputs are stacked step outputs; the others are the
            carried values, whose gradients flow from step t + 1 to step t.
        carry_locs: the input slot of each carried value.
        rows: input slots whose gradient at step t is written to row t of an array.
        sums: {input slot: accumulator index}: gradients summed over the steps (slots with
            one index share the sum).

    Returns:
        (function, source): ``function(steps, heads, carry, dests, stash, start) ->
        (carry, sums)`` runs steps start..0. `steps[t]` is step t's saved values (as
        `backward_function` reads them), or with `from_rows` the pair (ins, stacks): per
        body input its value when `from_rows` says it is the same at every step, else its
        column (row t: its value at step t; an array or a list), and the
        stacks of the saved operator outputs (`plan._saved_ops` order, row t: step t's);
        `heads[j][t]` is stacked output j's gradient at
        step t, `carry` holds the carried values' gradients after step `start`, `dests` one
        array per `rows` slot. It returns the carried gradients at the loop's entry (they
        may alias a head or one another) and the sums (None where nothing reached).
        ``function.grads_in_rows`` is {slot: k}: the stash's stack of slot's output
        gradients must be the first rows of ``dests[k]`` (viewed in slot's shape: the
        function writes that gradient there once instead of to both; `Plan.new_stash`'s
        `grads`); ``function.grads_shared`` is {slot: other}: slot's stack must be other's
        (viewed in slot's shape; `Plan.new_stash`'s `shared`).
    """
    w = _Writer(plan)
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
        read, kept = _read_slots(plan)
        for s in sorted(read & kept):
            if s < plan.n_inputs:
                w.emit(f"v{s} = ins[{s}]" if from_rows[s] else f"in{s} = ins[{s}]")
        for k, s in enumerate(plan._saved_ops):
            if s in read:
                w.emit(f"stack{s} = stacks[{k}]")
    w.emit("for step in range(start, -1, -1):")
    w.depth += 1
    if from_rows is None:
        w.emit("saved = steps[step]")
    _backward_body(w, plan, with_stash, from_rows, provided,
                   [f"head{j}[step]" for j in range(n_out)] +
                   [f"carry{k}" for k in range(len(carry_locs))])
    if carry_locs:
        w.emit(", ".join(f"carry{k}" for k in range(len(carry_locs))) + ", = " +
               ", ".join(f"g{s}" for s in carry_locs) + ",")
    # A stash stack that would receive the very array (or its data in another shape) a row
    # of dests receives is that dests array instead (`function.grads_in_rows`), and one that
    # would receive what another stash stack does is that stack (`function.grads_shared`):
    # each step writes it once, not twice; where a rule that takes out= made it, the rule
    # writes it there itself.
    grads_in_rows, grads_shared, holder = {}, {}, {}
    for k, s in enumerate(rows):
        token = w.alias.get(f"g{s}")
        for slot, (line, written, _) in w.stash_writes.items():
            if token is not None and written == token and slot not in grads_in_rows:
                _blank(w, line, f"{slot}'s gradient: the rows of dest{k}")
                grads_in_rows[slot] = k
                holder[token] = slot
                break
        made = _write_where_made(w, token, f"dest{k}[step]", plan.slot_shape.get(s), vjp=True)
        if made is True:
            w.emit(f"pass  # g{s} is written to dest{k}[step] where it is made")
        elif made:
            w.emit(f"if g{s} is not None and g{s} is not {made}: {made}[...] = g{s}")
        else:
            w.emit(f"if g{s} is not None: dest{k}[step] = g{s}")
    for slot, (line, written, j) in w.stash_writes.items():
        if written is None or slot in grads_in_rows:
            continue
        if written in holder:
            _blank(w, line, f"{slot}'s gradient: the stack of {holder[written]}'s")
            grads_shared[slot] = holder[written]
        else:
            holder[written] = slot
            if _write_where_made(w, written, f"stash[{j}][0][step]", plan.slot_shape.get(slot)):
                _blank(w, line, f"{slot}'s gradient: written to its stack where it is made")
    for s, i in sums.items():
        w.emit(f"if g{s} is not None:")
        w.emit(f"    if acc{i} is None: acc{i} = g{s}.copy()")
        w.emit(f"    else: acc{i} += g{s}")
    w.depth -= 1
    carry = "".join(f"carry{k}, " for k in range(len(carry_locs)))
    w.emit(f"return [{carry}], [{', '.join(f'acc{i}' for i in range(n_sums))}]")
    fn, source = _compile(w, plan, "reverse(steps, heads, carry, dests, stash, start)")
    fn.grads_in_rows, fn.grads_shared = grads_in_rows, grads_shared
    return fn, source


def _write_where_made(w, token, target, shape, vjp=False):
    """Have the rule that made the gradient `token` (`w.made_by`) write it into `target`, a
    C-contiguous array of `shape`, or with `vjp`, the vjp that made it (which may not).

    Returns False when neither made it in that shape (the token may have come through a
    reshape) or its line was given a target already; True for a rule; for a vjp, the local
    name holding `target` (the vjp returns that array when it wrote there)."""
    made = w.made_by.get(token) if token is not None else None
    if made is None or made[1] is None or tuple(made[1]) != tuple(shape or ()) \
            or made[0] in w.targeted or (made[2] is not None and not vjp):
        return False
    del w.made_by[token]
    line, _, how = made
    w.targeted.add(line)
    if how is None:
        w.lines[line] = w.lines[line][:-1] + f", out={target})"
        return True
    j, n = how
    name = f"kept{line}"
    dests = ", ".join(f"({name} := {target})" if k == j else "None" for k in range(n))
    w.lines[line] = w.lines[line][:-1] + f", dests=[{dests}])"
    return name


def _blank(w, line, why):
    """Turn emitted line `line` into a no-op that says why it is not needed."""
    text = w.lines[line]
    w.lines[line] = f"{text[:len(text) - len(text.lstrip())]}pass  # {why}"


def _backward_body(w, plan, with_stash, from_rows, provided, heads, into=None):
    """Emit a backward from the saved values in `saved` and the output gradients (the
    expressions `heads`, one per output) to ``g{slot}`` of every input; `into` is
    `_destinations` when the caller's arrays are in ``into{slot}``."""
    read, kept = _read_slots(plan)
    stubs = dict(plan._stubs)
    if from_rows is not None:  # step t's values: row t of their columns and stacks (or a stub)
        saved_ops = set(plan._saved_ops)
        for s in sorted(read):
            if s < plan.n_inputs and s in kept:
                if not from_rows[s]:
                    w.emit(f"v{s} = in{s}[step]")
            elif s in saved_ops:
                w.emit(f"v{s} = stack{s}[step]")
            elif s in stubs:
                w.bind(f"v{s}", stubs[s])
    else:
        for s in sorted(read):
            w.emit(f"v{s} = saved[{s}]")
    grads = sorted({s for st in plan.bwd_steps for s in st.ins + st.outs} |
                   set(range(plan.n_inputs)) | set(plan.out_slots))
    w.emit(" = ".join(f"g{s}" for s in grads) + " = None")
    w.alias.clear()
    w.made_by.clear()
    w.targeted.clear()
    headed = set()
    for k, s in enumerate(plan.out_slots):
        if s not in headed:
            w.emit(f"g{s} = {heads[k]}")
            headed.add(s)
        else:  # an output listed twice: its gradients add
            w.emit(f"h = {heads[k]}")
            w.emit(f"if h is not None: g{s} = h if g{s} is None else g{s} + h")
        w.new_token(f"g{s}")
    contributed = set(plan.out_slots)  # a head counts as a first contribution
    for i, st in enumerate(plan.bwd_steps):
        _emit_vjp(w, plan, i, st, with_stash, contributed, provided, (into or {}).get(i))


def _read_slots(plan):
    """(the slots a backward refers to, those of them whose values it reads): the others
    it sees as shape stubs (`Plan.saved_slots`); a deferred sum reads its uses."""
    read, kept = set(), set(plan.saved_slots)
    for st in plan.bwd_steps:
        read.update(st.ins)
        read.update(st.outs)
        for k in st.deferred:
            read.update(plan.deferred[k].uses)
            kept.update(plan.deferred[k].uses)
    return read, kept


def _rule(op, j):
    """Input j's direct gradient rule (`Operator.grads`), or None."""
    return op.grads[j] if op.grads is not None and j < len(op.grads) else None


def _emit_vjp(w, plan, i, st, with_stash, contributed, provided, into=None):
    gys = [f"g{s}" for s in st.outs]
    w.emit("if " + " or ".join(f"{g} is not None" for g in gys) + ":" +
           f"  # {st.op.name} {st.node.name!r}")
    need = st.need if with_stash else st.need_all
    if with_stash:  # each stack once: a step's deferred sums share them (`new_stash`)
        grad_stacked, value_stacked = False, set()
        for k in st.deferred:
            d = plan.deferred[k]
            if not grad_stacked:
                grad_stacked = True
                guard = f"if {gys[0]} is not None: " if len(gys) > 1 else ""
                w.emit(f"    {guard}stash[{k}][0][step] = {gys[0]}")
                w.stash_writes[st.outs[0]] = (len(w.lines) - 1, w.alias.get(gys[0]), k)
            for j, u in enumerate(d.uses):
                if u not in provided and u not in value_stacked:
                    value_stacked.add(u)
                    w.emit(f"    stash[{k}][1][{j}][step] = v{u}")
    wanted = [j for j, want in enumerate(need) if want]
    same_data = {}  # a local expression holding a gradient variable's data, reshaped
    # A local expression made by a rule taking out= or a vjp taking dests=: (its line, its
    # shape, None for a rule or (input position, number of inputs) for a vjp).
    rule_lines = {}
    if wanted and len(gys) == 1 and all(j in st.op.passes_grad for j in wanted):
        grads = {j: (gys[0], False) for j in wanted}  # the output's gradient itself
    elif wanted == [0] and st.op.reshapes and len(st.ins) == 1 and len(gys) == 1:
        # a reshape's gradient: the output's, in the input's shape known now
        shape = w.bind(f"S{st.ins[0]}", tuple(plan.slot_shape[st.ins[0]]))
        w.emit(f"    gx0 = {gys[0]}.reshape({shape})")
        grads = {0: ("gx0", False)}
        if gys[0] in w.alias:  # the same data: a stash stack may hold both (reshaped)
            same_data["gx0"] = w.alias[gys[0]]
    elif wanted and len(gys) == 1 and not into and \
            all(j in st.op.passes_grad or _rule(st.op, j) for j in wanted):
        # each rule, called directly
        args = ", ".join(f"v{s}" for s in st.ins + st.outs[:1]) + f", {gys[0]}"
        grads = {}
        for j in wanted:
            if j in st.op.passes_grad:
                grads[j] = (gys[0], False)
            else:
                w.emit(f"    gx{j} = {w.bind(f'grad{i}_{j}', st.op.grads[j])}(xp, {args})")
                grads[j] = (f"gx{j}", False)
                if getattr(st.op.grads[j], "writes_out", False):
                    rule_lines[f"gx{j}"] = (len(w.lines) - 1, plan.slot_shape.get(st.ins[j]),
                                            None)
    elif wanted:
        fn = w.bind(f"vjp{i}", st.op.vjp)
        w.bind(f"p{i}", st.p)
        w.bind(f"need{i}", list(need))
        ins = ", ".join(f"v{s}" for s in st.ins)
        outs = ", ".join(f"v{s}" for s in st.outs)
        dests = ""
        if into:
            dests = ", dests=[" + ", ".join(f"into{st.ins[j]}" if j in into else "None"
                                            for j in range(len(st.ins))) + "]"
        rc = w.bind(f"rc{i}", st.rc) if st.rc is not None else "rc"
        w.emit(f"    gx = {fn}(p{i}, {rc}, [{ins}], [{outs}], [{', '.join(gys)}], need{i}{dests})")
        grads = {j: (f"gx[{j}]", True) for j in wanted}  # (expression, may be None)
        if st.op.writes_dests and not into:  # it may be given its rows as destinations
            for j in wanted:
                rule_lines[f"gx[{j}]"] = (len(w.lines) - 1, plan.slot_shape.get(st.ins[j]),
                                          (j, len(st.ins)))
    else:
        grads = {}
        w.emit("    pass")
    for j, (expr, maybe_none) in grads.items():
        s = st.ins[j]
        if s not in contributed:  # the first contribution to this value's gradient
            w.emit(f"    g{s} = {expr}")
            contributed.add(s)
            token = same_data.get(expr, w.alias.get(expr))
            if token is not None:  # another variable's array (or its data), handed on
                w.alias[f"g{s}"] = token
            else:
                w.new_token(f"g{s}")
                if expr in rule_lines:
                    w.made_by[w.alias[f"g{s}"]] = rule_lines[expr]
        else:
            check = f"if {expr} is not None: " if maybe_none else ""
            w.emit(f"    {check}g{s} = {expr} if g{s} is None else g{s} + {expr}")
            w.new_token(f"g{s}")
    # The outputs' gradients are used up: let them go.
    w.emit("    " + " = ".join(gys) + " = None")
    for g in gys:
        w.alias.pop(g, None)
