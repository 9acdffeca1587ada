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

A backward (`backward_function`) is the same walk in reverse, one guarded block per step
adding what the step's gradient rule returns into its inputs' gradients (a rule that needs
no attributes is called directly, `Fast.grads`; others through the vjp).

A caller generating a larger function around a plan's steps (a loop node's step loop and
reverse pass, `gluonlite.control_flow.lowering.codegen`) uses the emitters here (`Writer`,
`forward_body`, `backward_body`, `compile_function`) with its own `Emission`: the hooks
where its function differs from a plan's own (where saved values go and come from, what
each gradient block does first, following what each gradient variable holds), and a
`WriteTargets` it decided, where gradients are written. This module knows no loop forms.
"""
import collections
import inspect
import itertools
import linecache

import numpy as np
from .. import _profiling

__all__ = ["forward_function", "backward_function", "Writer", "Emission", "WriteTargets",
           "forward_body", "backward_body", "compile_function", "read_slots", "unpack"]

_COUNTER = itertools.count()
_CODE_CACHE = collections.OrderedDict()  # source text -> (code object, its linecache name)
_CODE_CACHE_SIZE = 512


class WriteTargets:
    """Where a generated backward writes gradients, decided before any line is emitted.

    Attributes:
        rule_out: {(step, input): expression}: the gradient rule writes there (``out=``).
        vjp_dests: {step: (input, expression)}: the vjp is given that destination for that
            input (``dests=``); the name ``kept{step}`` holds it.

    Example::

        from gluonlite.executor.codegen import WriteTargets
        targets = WriteTargets()
        targets.rule_out, targets.vjp_dests   # ({}, {}): nothing decided yet
    """

    def __init__(self):
        self.rule_out, self.vjp_dests = {}, {}


class Emission:
    """The hooks `forward_body` and `backward_body` call where a generated function that
    embeds a plan's steps differs from the plan's own forward and backward (what this
    class emits). A loop's step loop and reverse pass subclass it
    (`gluonlite.control_flow.lowering.codegen`).

    Example: a caller writing each saved value into an array it gives overrides
    `forward_start` (adding ``direct[slot] = "r0"``) and `forward_end` (returning False).
    """

    def forward_start(self, w, plan, direct):
        """Before the steps: add {slot: expression} entries to `direct` for values to be
        written into arrays the caller gives.

        Args:
            w: the `Writer` the lines are emitted into.
            plan: the compiled `gluonlite.executor.plan.Plan` whose steps are emitted.
            direct: {slot: expression} of the caller's arrays the values are written to; updated in
                place (the plain forward adds nothing).

        Example::

            from gluonlite.executor import compile_plan, codegen
            plan = compile_plan(sym.tanh(sym.var('x')) * 2, [(2,)], ['float32'], is_train=True,
                                grad_inputs=[True])
            w = codegen.Writer(plan); e = codegen.Emission()
            direct = {}; e.forward_start(w, plan, direct)
            direct   # {}: the plain forward writes nothing to a caller
        """

    def forward_end(self, w, plan, value):
        """After the steps ({slot: expression} in `value`); returns whether the forward
        hands back its saved values (the `saved` of `Plan.forward`).

        Args:
            w: the `Writer` the lines are emitted into.
            plan: the compiled `gluonlite.executor.plan.Plan` whose steps are emitted.
            value: {slot: expression} of the values the steps computed.

        Returns:
            True when the forward hands back its saved values (the plain forward's choice), False
            when it does not.

        Example::

            from gluonlite.executor import compile_plan, codegen
            plan = compile_plan(sym.tanh(sym.var('x')) * 2, [(2,)], ['float32'], is_train=True,
                                grad_inputs=[True])
            w = codegen.Writer(plan); e = codegen.Emission()
            e.forward_end(w, plan, {})   # True: the saved values are handed back
        """
        return True

    def read_values(self, w, plan):
        """Emit ``v{slot} = ...`` for every slot the backward refers to (`read_slots`).

        Args:
            w: the `Writer` the lines are emitted into.
            plan: the compiled `gluonlite.executor.plan.Plan` whose steps are emitted.

        Example::

            from gluonlite.executor import compile_plan, codegen
            plan = compile_plan(sym.tanh(sym.var('x')) * 2, [(2,)], ['float32'], is_train=True,
                                grad_inputs=[True])
            w = codegen.Writer(plan); e = codegen.Emission()
            e.read_values(w, plan)
            w.lines   # ['    v0 = saved[0]', '    v1 = saved[1]', '    v2 = saved[2]']
        """
        for s in sorted(read_slots(plan)[0]):
            w.emit(f"v{s} = saved[{s}]")

    def need(self, i, st):
        """The inputs of backward step i (`st`) whose gradients its block computes.

        Args:
            i: the index of the backward step in the plan's `bwd_steps`.
            st: that backward step.

        Returns:
            A list of bools, one per input of the step (the plain backward: `st.need`).

        Example::

            from gluonlite.executor import compile_plan, codegen
            plan = compile_plan(sym.tanh(sym.var('x')) * 2, [(2,)], ['float32'], is_train=True,
                                grad_inputs=[True])
            w = codegen.Writer(plan); e = codegen.Emission()
            e.need(0, plan.bwd_steps[0])   # [True]: the step's input wants a gradient
        """
        return st.need

    def before_gradient(self, w, plan, i, st, gys):
        """At the top of backward step i's block (entered when one of the output gradient
        variables `gys` is not None).

        Args:
            w: the `Writer` the lines are emitted into.
            plan: the compiled `gluonlite.executor.plan.Plan` whose steps are emitted.
            i: the index of the backward step in `plan.bwd_steps`.
            st: that backward step.
            gys: the names of the step's output gradient variables.

        Example::

            from gluonlite.executor import compile_plan, codegen
            plan = compile_plan(sym.tanh(sym.var('x')) * 2, [(2,)], ['float32'], is_train=True,
                                grad_inputs=[True])
            w = codegen.Writer(plan); e = codegen.Emission()
            e.before_gradient(w, plan, 0, plan.bwd_steps[0], ['g2'])
            w.lines   # []: the plain backward emits nothing here
        """

    # What each gradient variable holds, as the backward is emitted (a caller choosing
    # where gradients are written follows it; `WriteTargets`).
    def new_array(self, var):
        """Gradient variable `var` now holds an array of its own (a head, a sum).

        Example::

            from gluonlite.executor import compile_plan, codegen
            plan = compile_plan(sym.tanh(sym.var('x')) * 2, [(2,)], ['float32'], is_train=True,
                                grad_inputs=[True])
            w = codegen.Writer(plan); e = codegen.Emission()
            e.new_array('g2')   # the plain backward does not track it
        """

    def assigned(self, var, expr, same_as=None, made=None):
        """`var` now holds what the expression `expr` holds: a gradient variable's array,
        the data of gradient variable `same_as` reshaped, or an array made by `made`
        (``(maker, shape)``: maker ("rule", step, input) for a rule taking ``out=``,
        `Fast.grads_out`; ("vjp", step, input) for a vjp taking ``dests=``).

        Example::

            from gluonlite.executor import compile_plan, codegen
            plan = compile_plan(sym.tanh(sym.var('x')) * 2, [(2,)], ['float32'], is_train=True,
                                grad_inputs=[True])
            w = codegen.Writer(plan); e = codegen.Emission()
            e.assigned('g1', 'g2')   # g1 holds what g2 holds: nothing to do here
        """

    def released(self, variables):
        """The gradient variables `variables` are let go (set to None).

        Example::

            from gluonlite.executor import compile_plan, codegen
            plan = compile_plan(sym.tanh(sym.var('x')) * 2, [(2,)], ['float32'], is_train=True,
                                grad_inputs=[True])
            w = codegen.Writer(plan); e = codegen.Emission()
            e.released(['g1', 'g2'])   # nothing to do for the plain backward
        """


class Writer:
    """Source lines plus the namespace of the names they refer to.

    Args:
        plan: the `Plan` the code is generated for: its run context and array module are bound in
            the namespace (``rc``, ``xp``, ``empty``, ``copyto``).

    Example::

        from gluonlite.executor import compile_plan, codegen
        plan = compile_plan(sym.tanh(sym.var('x')) * 2, [(2,)], ['float32'], is_train=True,
                            grad_inputs=[True])
        w = codegen.Writer(plan)
        w.emit('return ' + w.bind('answer', 42))
        fn, source = codegen.compile_function(w, 'f()'); fn()   # 42
    """

    def __init__(self, plan):
        self.lines = []
        self.ns = {"rc": plan.rc, "xp": plan.xp, "empty": plan.xp.empty,
                   "copyto": plan.xp.copyto}
        self.depth = 1
        # Made while gluonlite.profiler records: a timer around each step (see _timed).
        self.profile = _profiling.ACTIVE
        if self.profile:
            self.ns.update(_clock=_profiling.clock, _step_done=_profiling.step_done)
        # Decided before emitting (`WriteTargets`, a loop's reverse pass): where rules and
        # vjps write the gradients the caller keeps.
        self.targets = WriteTargets()

    def bind(self, name, value):
        """Make `value` visible to the generated code as `name`; returns `name` (for use
        in an emitted line).

        Example::

            from gluonlite.executor import compile_plan, codegen
            plan = compile_plan(sym.tanh(sym.var('x')) * 2, [(2,)], ['float32'], is_train=True,
                                grad_inputs=[True])
            w = codegen.Writer(plan)
            w.bind('two', 2)   # 'two': the generated code can read it
        """
        self.ns[name] = value
        return name

    def emit(self, line):
        """Append source `line`, indented to the current `depth`.

        Example::

            from gluonlite.executor import compile_plan, codegen
            plan = compile_plan(sym.tanh(sym.var('x')) * 2, [(2,)], ['float32'], is_train=True,
                                grad_inputs=[True])
            w = codegen.Writer(plan); w.emit('return 1')
            w.lines   # ['    return 1']: indented to the function body
        """
        self.lines.append("    " * self.depth + line)


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

    Example::

        from gluonlite.executor import compile_plan, codegen
        plan = compile_plan(sym.tanh(sym.var('x')) * 2, [(2,)], ['float32'], is_train=True,
                            grad_inputs=[True])
        forward, source = codegen.forward_function(plan, with_outs=False)
        outs, saved = forward([np.ones(2, np.float32)], None)   # [1.52 1.52]
    """
    w = Writer(plan)
    if plan.n_inputs:
        w.emit(", ".join(f"v{s}" for s in range(plan.n_inputs)) + ", = args")
    results, saved = forward_body(w, plan, with_outs, skip, (), "outs")
    w.emit(f"return {results}, {saved}")
    return compile_function(w, "forward(args, outs)")


def forward_body(w, plan, with_outs, skip, given, outs, emission=None):
    """Emit a forward's steps once its inputs (and `given` slots) are in ``v{slot}``;
    `outs` is the expression of the caller's list of arrays, or a list of expressions, one
    per array; `emission` the caller's hooks (`Emission`). Returns the expressions of (the
    results, the saved values).

    Args:
        w: the `Writer` the lines are emitted into.
        plan: the compiled `gluonlite.executor.plan.Plan` whose steps are emitted.
        with_outs: whether the caller passes arrays to write the outputs into.
        skip: the output positions not computed or written (a collection of ints).
        given: the slots (beyond the inputs) already in ``v{slot}``.
        outs: the expression of the caller's list of output arrays, or a list of expressions, one
            per output.
        emission: default None: the plain `Emission`; else the caller's hooks.

    Returns:
        (results, saved): the expressions of the outputs and of the saved values (``'None'`` when
        nothing is handed back).

    Example::

        from gluonlite.executor import compile_plan, codegen
        plan = compile_plan(sym.tanh(sym.var('x')) * 2, [(2,)], ['float32'], is_train=True,
                            grad_inputs=[True])
        w = codegen.Writer(plan); w.emit('v0, = args')
        results, saved = codegen.forward_body(w, plan, False, (), (), 'outs')
        results   # '[v2]': the expression of the outputs
    """
    emission = emission or _PLAIN
    n_in = plan.n_inputs
    value = {s: f"v{s}" for s in list(range(n_in)) + list(given)}
    direct = {}  # slot -> the caller's array it is written to
    if with_outs and plan.out_slots:
        unpack(w, "o", len(plan.out_slots), outs)
        for k, s in enumerate(plan.out_slots):
            if s in plan.caller_direct and k not in skip:
                direct.setdefault(s, f"o{k}")
    emission.forward_start(w, plan, direct)
    for i in _live_steps(plan, skip, set(given)):
        if w.profile:
            w.emit("_t = _clock()")
        _emit_step(w, plan, i, plan.steps[i], direct, value)
        if w.profile:
            w.emit(f"_step_done({plan.steps[i].op.name!r}, _t)")
    hands_back = emission.forward_end(w, plan, value)
    if with_outs:
        for k, s in enumerate(plan.out_slots):
            if k not in skip and value[s] != f"o{k}":
                w.emit(f"copyto(o{k}, {value[s]}, casting='unsafe')")
        results = "outs"
    else:
        results = "[" + ", ".join(
            f"{value[s]}.copy()" if s < n_in else value[s] for s in plan.out_slots) + "]"
    if not plan.bwd_steps or not hands_back:
        return results, "None"
    saved = [value.get(s, "None") for s in range(plan.n_slots)]
    for s, stub in plan.stubs:
        saved[s] = w.bind(f"z{s}", stub)
    for s in plan.dropped:
        saved[s] = "None"
    return results, f"[{', '.join(saved)}]"


def unpack(w, prefix, n, source):
    """``{prefix}0, ... = source`` for an expression, one line each for a list of them
    (None: a name not needed).

    Args:
        w: the `Writer` the lines are emitted into.
        prefix: the prefix of the variable names (``o`` gives ``o0``, ``o1``...).
        n: the number of names, for an expression `source`.
        source: an expression string for a sequence of `n` values, or a list of expressions (None
            entries are skipped).

    Example::

        from gluonlite.executor import compile_plan, codegen
        plan = compile_plan(sym.tanh(sym.var('x')) * 2, [(2,)], ['float32'], is_train=True,
                            grad_inputs=[True])
        w = codegen.Writer(plan); codegen.unpack(w, 'o', 2, 'outs')
        w.lines   # ['    o0, o1, = outs']
    """
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
    if st.dynamic:  # shapes decided as it runs: the kernel itself, no fast path
        fn = w.bind(f"f{i}", st.kernel)
        w.bind(f"p{i}", st.p)
        args = f"p{i}, " + w.bind(f"rc{i}", st.rc) if st.rc is not None else f"p{i}, rc"
        names = [f"v{s}" for s in outs]
        lhs = names[0] if len(outs) == 1 else ", ".join(names) + ","
        w.emit(f"{lhs} = {fn}({args}{', ' if ins else ''}{ins}){where}")
        value.update(zip(outs, names))
        return
    if st.op.fast.reshapes:  # a view with the shape inferred at compile time
        shape = w.bind(f"S{outs[0]}", plan.slot_shape[outs[0]])
        w.emit(f"v{outs[0]} = {value[st.ins[0]]}.reshape({shape}){where}")
        value[outs[0]] = f"v{outs[0]}"
        return
    if st.op.fast.views is not None:  # views of the input at indices known now
        src = value[st.ins[0]]
        index = st.op.fast.views(st.p, plan.slot_shape[st.ins[0]])
        w.emit(", ".join(f"v{s}" for s in outs) + ", = " +
               ", ".join(f"{src}[{w.bind(f'I{s}', ix)}]" for s, ix in zip(outs, index)) +
               f",{where}")
        for s in outs:
            value[s] = f"v{s}"
        return
    w.bind(f"p{i}", st.p)
    args = f"p{i}, " + w.bind(f"rc{i}", st.rc) if st.rc is not None else f"p{i}, rc"
    if not st.use_into:
        fn = w.bind(f"f{i}", st.kernel)
        names = [f"v{s}" for s in outs]
        lhs = names[0] if len(outs) == 1 else ", ".join(names) + ","
        w.emit(f"{lhs} = {fn}({args}{', ' if ins else ''}{ins}){where}")
        for s, name in zip(outs, names):
            value[s] = name
        return
    targets, all_static = [], True
    for k, s in enumerate(outs[:st.n_arrays]):
        # its static buffer, the caller's array for it, or (None) a fresh array
        dest = "static" if st.bufs is not None and st.bufs[k] is not None else direct.get(s)
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
    if st.op.fast.inline is not None and all_static and len(targets) == 1:  # known contiguous
        lines = st.op.fast.inline(st.p, [plan.slot_shape[s] for s in st.ins],
                             [plan.slot_dtype[s] for s in st.ins])
    if lines:  # the operator's own lines
        for line in lines:
            w.emit(line.format(*[value[s] for s in st.ins], out=targets[0]) + where)
        return
    # Array functions are called straight for float data; other dtypes go through the
    # operator's own forward, which knows MXNet's integer rules (sqrt of int32 truncates).
    floats = all(np.dtype(plan.slot_dtype[s]).kind == "f" for s in st.ins)
    function = _ufunc_of(st.op, plan.xp) if len(targets) == 1 and floats else None
    if function is not None:  # the array function itself
        uf = w.bind(f"u{i}", function)
        kwargs = dict(st.op.fast.ufunc[1])
        if len({np.dtype(plan.slot_dtype[s]) for s in (*st.ins, outs[0])}) == 1:
            kwargs.pop("casting", None)  # nothing to cast: inputs and output share a dtype
        extra = "".join(f", {k}={v!r}" for k, v in kwargs.items())
        args = [value[s] for s in st.ins]
        if len(st.op.fast.ufunc) > 2:  # the scalar, bound once in the data's dtype
            scalar = plan.xp.asarray(st.p.scalar, dtype=plan.slot_dtype[st.ins[0]])
            args.insert(1 if st.op.fast.ufunc[2] == "right" else 0, w.bind(f"K{i}", scalar))
        w.emit(f"{uf}({', '.join(args)}, {_out_argument(function, targets[0])}{extra})"
               f"{where}")
        return
    fn = w.bind(f"f{i}", st.op.fast.into)
    if all_static:  # bind the list once
        out_list = w.bind(f"B{i}", [st.bufs[k] for k in range(len(targets))])
    else:
        out_list = "[" + ", ".join(targets) + "]"
    w.emit(f"{fn}({args}, {out_list}{', ' if ins else ''}{ins}){where}")


# ufuncs whose output numpy 2 wants as a keyword (a third positional argument is deprecated
# for them: it reads as a third operand)
_OUT_BY_KEYWORD = frozenset(("maximum", "minimum"))


def _out_argument(function, target):
    """How a generated call hands `function` its output: by position to a numpy ufunc or a
    Python function (numpy parses a keyword argument at about the cost of the call itself,
    which a loop's step pays for each of its operators), else as ``out=``."""
    if isinstance(function, np.ufunc) and function.__name__ not in _OUT_BY_KEYWORD:
        return target
    if inspect.isfunction(function):
        return target
    return f"out={target}"


def _ufunc_of(op, xp):
    """The array function `op.fast.ufunc` names for array module `xp`, or None."""
    if op.fast.ufunc is None:
        return None
    name = op.fast.ufunc[0]
    return name(xp) if callable(name) else getattr(xp, name)


def compile_function(w, signature):
    """Compile the lines `w` holds as ``def {signature}:`` with `w`'s namespace; returns
    (function, source). The source is registered with `linecache` for tracebacks.

    Args:
        w: the `Writer` holding the body lines and the namespace.
        signature: the function's name and parameters, e.g. ``'forward(args, outs)'``.

    Returns:
        (function, source): the compiled function and its Python source text.

    Example::

        from gluonlite.executor import compile_plan, codegen
        plan = compile_plan(sym.tanh(sym.var('x')) * 2, [(2,)], ['float32'], is_train=True,
                            grad_inputs=[True])
        w = codegen.Writer(plan); w.emit('return 7')
        fn, source = codegen.compile_function(w, 'seven()')
        fn(), source   # (7, 'def seven():\n    return 7\n')
    """
    source = f"def {signature}:\n" + "\n".join(w.lines) + "\n"
    ns = dict(w.ns)
    exec(_code_of(source), ns)
    return ns[signature.split("(")[0]], source


def _code_of(source):
    """The code object of `source`, compiled once: a graph run at a new input shape gets a
    new plan whose source is usually the same text (a decoder growing one step at a time
    makes one plan per step). Each cached source stays in `linecache`, where tracebacks
    look for it, until it leaves the cache."""
    hit = _CODE_CACHE.get(source)
    if hit is not None:
        _CODE_CACHE.move_to_end(source)
        return hit[0]
    filename = f"<gluonlite plan {next(_COUNTER)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    code = compile(source, filename, "exec")
    _CODE_CACHE[source] = (code, filename)
    if len(_CODE_CACHE) > _CODE_CACHE_SIZE:
        _, (_, old) = _CODE_CACHE.popitem(last=False)
        linecache.cache.pop(old, None)
    return code


def backward_function(plan, with_dests=False):
    """Generate `plan`'s backward (the meaning of `Plan.backward`).

    Args:
        plan: a compiled `Plan` with backward steps.
        with_dests: the caller passes `dests`, per input None or an array for its gradient
            (see `Fast.writes_dests`): an input used once in the plan, by an operator
            that writes into destinations, gets its gradient written there.

    Returns:
        (function, source): ``function(saved, heads, dests=None) -> grads``, one per input
        (None where the input wants none or receives none).

    Each step's gradient code runs only when a gradient reaches one of its outputs; a
    value's gradient is the sum of its uses' contributions.

    Example::

        from gluonlite.executor import compile_plan, codegen
        plan = compile_plan(sym.tanh(sym.var('x')) * 2, [(2,)], ['float32'], is_train=True,
                            grad_inputs=[True])
        backward, source = codegen.backward_function(plan)
        outs, saved = plan.forward([np.ones(2, np.float32)])
        backward(saved, [np.ones(2, np.float32)])   # [array([0.84, 0.84])]
    """
    w = Writer(plan)
    into = _destinations(plan) if with_dests else {}
    if into:
        w.emit(", ".join(f"into{s}" for s in range(plan.n_inputs)) + ", = dests")
    backward_body(w, plan, [f"heads[{k}]" for k in range(len(plan.out_slots))], into)
    w.emit("return [" + ", ".join(f"g{s}" if plan.grad_inputs[s] else "None"
                                  for s in range(plan.n_inputs)) + "]")
    return compile_function(w, "backward(saved, heads, dests=None)")


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
        if st.op.fast.writes_dests:
            js = [j for j, s in enumerate(st.ins) if s < plan.n_inputs and uses[s] == 1]
            if js:
                into[i] = js
    return into


def backward_body(w, plan, heads, into=None, emission=None):
    """Emit a backward from the saved values in `saved` (or where `emission`, the caller's
    `Emission`, reads them) and the output gradients (the expressions `heads`, one per
    output) to ``g{slot}`` of every input; `into` is `_destinations` when the caller's
    arrays are in ``into{slot}``.

    Args:
        w: the `Writer` the lines are emitted into.
        plan: the compiled `gluonlite.executor.plan.Plan` whose steps are emitted.
        heads: the expressions of the output gradients, one per output of the plan (each may
            evaluate to None).
        into: default None: {backward step index: destinations} (`_destinations`) when the caller's
            arrays are in ``into{slot}``.
        emission: default None: the plain `Emission`; else the caller's hooks.

    Example::

        from gluonlite.executor import compile_plan, codegen
        plan = compile_plan(sym.tanh(sym.var('x')) * 2, [(2,)], ['float32'], is_train=True,
                            grad_inputs=[True])
        w = codegen.Writer(plan)
        codegen.backward_body(w, plan, ['heads[0]'])
        w.lines[0]   # '    v0 = saved[0]'
    """
    emission = emission or _PLAIN
    emission.read_values(w, plan)
    grads = sorted({s for st in plan.bwd_steps for s in st.ins + st.outs} |
                   set(range(plan.n_inputs)) | set(plan.out_slots))
    w.emit(" = ".join(f"g{s}" for s in grads) + " = None")
    headed = set()
    for k, s in enumerate(plan.out_slots):
        if s not in headed:
            w.emit(f"g{s} = {heads[k]}")
            headed.add(s)
        else:  # an output listed twice: its gradients add
            w.emit(f"h = {heads[k]}")
            w.emit(f"if h is not None: g{s} = h if g{s} is None else g{s} + h")
        emission.new_array(f"g{s}")
    contributed = set(plan.out_slots)  # a head counts as a first contribution
    for i, st in enumerate(plan.bwd_steps):
        if w.profile:
            w.emit("_t = _clock()")
        _emit_vjp(w, plan, i, st, emission, contributed, (into or {}).get(i))
        if w.profile:
            w.emit(f"_step_done({'backward:' + st.op.name!r}, _t)")


def read_slots(plan):
    """(the slots a backward refers to, those of them whose values it reads): the others
    it sees as shape stubs (`Plan.saved_slots`).

    Args:
        plan: the compiled `gluonlite.executor.plan.Plan` whose steps are emitted.

    Returns:
        (set, set): the slots a backward step reads or writes, and the saved slots whose values it
        reads.

    Example::

        from gluonlite.executor import compile_plan, codegen
        plan = compile_plan(sym.tanh(sym.var('x')) * 2, [(2,)], ['float32'], is_train=True,
                            grad_inputs=[True])
        codegen.read_slots(plan)   # ({0, 1, 2}, {1})
    """
    read = set()
    for st in plan.bwd_steps:
        read.update(st.ins)
        read.update(st.outs)
    return read, set(plan.saved_slots)


def _emit_vjp(w, plan, i, st, emission, contributed, into=None):
    gys = [f"g{s}" for s in st.outs]
    # an output layer's vjp runs with or without a gradient of its output (`Plan.bwd_steps`)
    reach = "True" if st.headless else " or ".join(f"{g} is not None" for g in gys)
    w.emit(f"if {reach}:  # {st.op.name} {st.node.name!r}")
    need = emission.need(i, st)
    emission.before_gradient(w, plan, i, st, gys)
    wanted = [j for j, want in enumerate(need) if want]
    same_data = {}  # a local expression holding a gradient variable's data, reshaped
    # A local expression made by a rule taking out= or a vjp taking dests=: (its maker, its
    # shape; see `Emission.assigned`).
    made = {}
    if wanted and len(gys) == 1 and all(j in st.op.fast.passes_grad for j in wanted):
        grads = {j: (gys[0], False) for j in wanted}  # the output's gradient itself
    elif wanted == [0] and st.op.fast.reshapes and len(st.ins) == 1 and len(gys) == 1 and \
            not st.dynamic:
        # a reshape's gradient: the output's, in the input's shape known now
        shape = w.bind(f"S{st.ins[0]}", tuple(plan.slot_shape[st.ins[0]]))
        w.emit(f"    gx0 = {gys[0]}.reshape({shape})")
        grads = {0: ("gx0", False)}
        same_data["gx0"] = gys[0]  # the same data: one array may hold both (reshaped)
    elif wanted and len(gys) == 1 and not into and \
            all(j in st.op.fast.passes_grad or j < len(st.op.fast.grads or ()) and
                st.op.fast.grads[j] for j in wanted):
        # each rule, called directly
        args = ", ".join(f"v{s}" for s in st.ins + st.outs[:1]) + f", {gys[0]}"
        grads = {}
        for j in wanted:
            if j in st.op.fast.passes_grad:
                grads[j] = (gys[0], False)
            else:
                target = w.targets.rule_out.get((i, j))
                out = "" if target is None else f", out={target}"
                rule = w.bind(f"grad{i}_{j}", st.op.fast.grads[j])
                w.emit(f"    gx{j} = {rule}(xp, {args}{out})")
                grads[j] = (f"gx{j}", False)
                if st.op.fast.grads_out:
                    made[f"gx{j}"] = (("rule", i, j), plan.slot_shape.get(st.ins[j]))
    elif wanted:
        fn = w.bind(f"vjp{i}", st.vjp)
        w.bind(f"p{i}", st.p)
        w.bind(f"need{i}", list(need))
        ins = ", ".join(f"v{s}" for s in st.ins)
        outs = ", ".join(f"v{s}" for s in st.outs)
        dests = ""
        if into:
            dests = ", dests=[" + ", ".join(f"into{st.ins[j]}" if j in into else "None"
                                            for j in range(len(st.ins))) + "]"
        elif i in w.targets.vjp_dests:
            jt, target = w.targets.vjp_dests[i]
            dests = ", dests=[" + ", ".join(f"(kept{i} := {target})" if j == jt else "None"
                                            for j in range(len(st.ins))) + "]"
        rc = w.bind(f"rc{i}", st.rc) if st.rc is not None else "rc"
        w.emit(f"    gx = {fn}(p{i}, {rc}, [{ins}], [{outs}], [{', '.join(gys)}], need{i}{dests})")
        grads = {j: (f"gx[{j}]", True) for j in wanted}  # (expression, may be None)
        if st.op.fast.writes_dests and not into:  # a caller may give it dests
            for j in wanted:
                made[f"gx[{j}]"] = (("vjp", i, j), plan.slot_shape.get(st.ins[j]))
    else:
        grads = {}
        w.emit("    pass")
    for j, (expr, maybe_none) in grads.items():
        s = st.ins[j]
        if s not in contributed:  # the first contribution to this value's gradient
            w.emit(f"    g{s} = {expr}")
            contributed.add(s)
            emission.assigned(f"g{s}", expr, same_data.get(expr), made.get(expr))
        else:
            check = f"if {expr} is not None: " if maybe_none else ""
            w.emit(f"    {check}g{s} = {expr} if g{s} is None else g{s} + {expr}")
            emission.new_array(f"g{s}")
    # The outputs' gradients are used up: let them go.
    w.emit("    " + " = ".join(gys) + " = None")
    emission.released(gys)


_PLAIN = Emission()
