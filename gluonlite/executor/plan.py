"""Compiling a Symbol into a `Plan`: a flat list of kernel steps with resolved slots.

``compile_plan`` does the work once per (graph, input shapes, dtypes, train/infer, which
inputs want gradients): topological order, shape/dtype inference, the backward steps (from
the same VJP rules autograd uses), and with ``static_alloc`` a liveness-based memory plan so
that a steady-state call allocates (almost) nothing.

Slots: every entry of the graph (variable or operator output) has a slot index; the inputs
occupy slots 0..n_inputs-1 in ``symbol.list_inputs()`` order.
"""
from types import MappingProxyType

import numpy as np

from ..ops import float_errors
from ..ops.fast import compiles_kernels, device_kernels_enabled
from ..ops.registry import RunCtx
from ..symbol.symbol import topo_nodes
from .. import _profiling
from .codegen import backward_function, forward_function
from .hooks import apply_device_passes
from .infer import infer_graph
from .lowering import lowering_of
from .memory import plan_buffers

__all__ = ["Plan", "compile_plan"]


class _Step:
    """One operator application: slots in, slots out, and the node it came from."""

    __slots__ = ("node", "op", "p", "ins", "outs", "n_arrays", "use_into", "bufs", "need",
                 "rc", "spec", "runtime", "kernel", "vjp", "dynamic", "headless")

    def __init__(self, node, ins, outs, n_arrays, xp):
        self.node, self.op, self.p = node, node.op, node.params
        self.ins, self.outs, self.n_arrays = ins, outs, n_arrays
        self.use_into = node.op.fast.into is not None and not node.op.stateful
        self.bufs = None
        self.need = None  # per input, whether the backward computes its gradient
        self.rc = None  # a stateful step's own RunCtx (need_grad set when it runs backward)
        # The operator's rules (its faster kernel and vjp where it has them), or its lowering's
        # (`gluonlite.executor.lowering`): then `spec` is what the lowering decided for this
        # step and `runtime` what the step keeps from call to call.
        self.kernel, self.vjp = node.op.rules_on(xp)  # `Fast.device` read when compiling
        self.spec = self.runtime = None
        # an input or output's shape is known only when the step runs (`Plan.dynamic`)
        self.dynamic = False
        # an output layer: its vjp runs without a gradient of its output (`_plan_backward`)
        self.headless = node.op.ignores_head_grad(node.params)


class Plan:
    """A compiled graph. See `compile_plan`.

    Attributes:
        input_names: the symbol's `list_inputs()`.
        out_shapes, out_dtypes: per visible output.
        steps: the forward steps, in order; a step's `spec` is what its operator's
            lowering decided for it (a loop's `LoopSpec`), else None.
        buffer_of: {slot: buffer id} of the static memory plan (empty without static_alloc).
        live: {slot: (first step, last step)} lifetimes used by the memory plan.
        dynamic: the slots whose shapes depend on values (downstream of an operator with
            ``shape_from_values``, boolean_mask): not in `slot_shape`, their steps run the
            plain kernel, which decides the shape when it runs (no static buffer, no fast
            path that needs a shape); empty for a graph of static shapes.

    Args:
        symbol: the `Symbol` to compile (device passes are applied first when kernels are compiled
            for the array module).
        shapes: the input shapes, aligned with `list_inputs()`.
        dtypes: the input dtypes, aligned with `list_inputs()`.
        is_train: run operators in training mode.
        grad_inputs: bools aligned with `list_inputs()`: the inputs that want gradients (None:
            none).
        static_alloc: preallocate the temporaries once (a static memory plan).
        xp: the array module (numpy, or cupy).
        shared: default None: the dict the caller keeps for all plans of one graph (see
            `compile_plan`).

    Raises:
        ValueError: shapes or dtypes that do not fit the graph, or an output whose shape cannot be
            inferred.

    Example::

        from gluonlite.executor import compile_plan
        plan = compile_plan(sym.tanh(sym.var('x')) * 2, [(2,)], ['float32'], is_train=True,
                            grad_inputs=[True])
        outs, saved = plan.forward([np.ones(2, np.float32)])   # [2 * tanh(1)] = [1.52 1.52]
    """

    def __init__(self, symbol, shapes, dtypes, is_train, grad_inputs, static_alloc, xp,
                 shared=None):
        if compiles_kernels(xp) and device_kernels_enabled():  # decided once, here
            names = symbol.list_inputs()
            if len(names) == len(shapes) == len(dtypes):
                symbol = apply_device_passes(symbol, dict(zip(names, shapes)),
                                             dict(zip(names, dtypes)))
        self.symbol = symbol
        nodes = topo_nodes(symbol.outputs)  # walked once: inference takes it too
        var_nodes = [n for n in nodes if n.op is None]
        self.input_names = [n.name for n in var_nodes]   # symbol.list_inputs()
        self.is_train = bool(is_train)
        self.static_alloc = bool(static_alloc)
        self.xp = xp
        self.rc = RunCtx(self.is_train, xp)
        n_in = len(var_nodes)
        if len(shapes) != n_in or len(dtypes) != n_in:
            raise ValueError(f"compile_plan: expected {n_in} input shapes/dtypes (for "
                             f"{self.input_names}), got {len(shapes)} and {len(dtypes)}")
        known_s = {n.name: s for n, s in zip(var_nodes, shapes)}
        known_d = {n.name: d for n, d in zip(var_nodes, dtypes)}
        eshape, _ = infer_graph(symbol, known_s, None, what="shape", nodes=nodes)
        edtype = _dtypes_of(symbol, known_d, shared, nodes)
        self.n_inputs = n_in

        slot_of = {(id(n), 0): i for i, n in enumerate(var_nodes)}
        self.slot_shape, self.slot_dtype = {}, {}
        for i, n in enumerate(var_nodes):
            self.slot_shape[i], self.slot_dtype[i] = tuple(shapes[i]), np.dtype(dtypes[i])
        n_slots = n_in
        self.steps = []
        dynamic = set()
        for n in nodes:
            if n.op is None:
                continue
            n_arrays = n.num_outputs()
            total = n_arrays + (1 if n.op.stateful else 0)
            outs = list(range(n_slots, n_slots + total))
            n_slots += total
            ins = [slot_of[(id(s), i)] for s, i in n.inputs]
            # a shape that depends on values is decided by the kernel when it runs
            may_vary = n.op.shape_from_values or any(s in dynamic for s in ins)
            for k in range(n_arrays):
                slot_of[(id(n), k)] = outs[k]
                shp, dt = eshape.get((id(n), k)), edtype.get((id(n), k))
                if dt is None or (shp is None and not may_vary):
                    raise ValueError(f"compile_plan: cannot infer the shape/dtype of output {k} "
                                     f"of node {n.name!r} ({n.op.name}); known inputs: "
                                     f"{dict(zip(self.input_names, shapes))}")
                if shp is None:
                    dynamic.add(outs[k])
                else:
                    self.slot_shape[outs[k]] = shp
                self.slot_dtype[outs[k]] = dt
            st = _Step(n, ins, outs, n_arrays, xp)
            if any(s in dynamic for s in ins + outs[:n_arrays]):
                st.dynamic, st.use_into = True, False
            self.steps.append(st)
        self.n_slots = n_slots
        self.dynamic = frozenset(dynamic)
        for st in self.steps:
            if st.dynamic:
                continue  # a lowering decides from shapes known now
            low = lowering_of(st.op.name)  # looked up once, here
            if low is not None:
                st.spec = low.decide(st.p, [self.slot_shape.get(s) for s in st.ins],
                                     [self.slot_dtype.get(s) for s in st.ins], self.is_train, xp)
            if st.spec is not None:
                st.kernel, st.vjp = low.kernel, low.vjp
                if low.runtime is not None:
                    store = {} if shared is None else shared.setdefault(st.node, {})
                    st.runtime = low.runtime(st.spec, store)
        self._copies = {st.outs[0]: st.ins[0] for st in self.steps if st.op.name == "_copy"}
        self.out_slots = [slot_of[(id(n), i)] for n, i in symbol.outputs]
        # None for an output whose shape is decided when the plan runs (`dynamic`)
        self.out_shapes = [self.slot_shape.get(s) for s in self.out_slots]
        self.out_dtypes = [self.slot_dtype[s] for s in self.out_slots]
        self.grad_inputs = list(grad_inputs) if grad_inputs is not None else [False] * n_in
        self._plan_backward()
        backward = set(map(id, self.bwd_steps))
        for st in self.steps:
            if st.op.stateful and (id(st) in backward or st.spec is not None):
                st.rc = RunCtx(self.is_train, xp, id(st) in backward, st.spec, st.runtime)
        self._plan_memory()
        self._build_runners()

    # ---- backward -------------------------------------------------------------------------
    def _plan_backward(self):
        """Which steps run backward, and which inputs of each want a gradient."""
        requires = set(i for i, g in enumerate(self.grad_inputs) if g)
        self.bwd_steps = []
        if not requires:
            self.saved_slots, self._saved_ops = set(), ()
            self._stubs, self._dropped = (), ()
            return
        for st in self.steps:
            names = st.op.input_names(st.p) if not st.op.variadic else [None] * len(st.ins)
            st.need = [s in requires and (st.op.vjp is not None) and (
                names[j] is None or st.op.differentiable(j, st.p)) for j, s in enumerate(st.ins)]
            if any(st.need):
                requires.update(st.outs)
                self.bwd_steps.append(st)
        self.bwd_steps.reverse()
        # A gradient reaches only the steps on a differentiable path to an output: drop the
        # others (those behind stop_gradient), so that nothing is saved for them. An output
        # layer (SoftmaxOutput, MakeLoss, ...) ignores its output's gradient, and MXNet's
        # backward runs it wherever an output depends on it, behind BlockGrad too.
        upstream = self._upstream() if any(st.headless for st in self.bwd_steps) else ()
        reached, kept = set(self.out_slots), []
        for st in self.bwd_steps:
            if any(s in reached for s in st.outs) or (
                    st.headless and any(s in upstream for s in st.outs)):
                kept.append(st)
                reached.update(s for s, n in zip(st.ins, st.need) if n)
        self.bwd_steps = kept
        # Keep what each vjp reads (`Fast.saves`); the other values it sees only as
        # zero-memory shape stubs, and values no vjp sees are dropped after the forward.
        saved, seen = set(), set()
        for st in self.bwd_steps:
            ins, outs = st.op.saved_inputs(st.p)
            saved.update(s for j, s in enumerate(st.ins) if j in ins)
            if outs:
                saved.update(st.outs)
            seen.update(st.ins)
            seen.update(st.outs)
        self.saved_slots = saved
        xp = self.xp
        self._stubs = tuple((s, xp.broadcast_to(xp.zeros((), dtype=self.slot_dtype[s]),
                                           self.slot_shape[s]))
                            for s in sorted(seen - saved) if s in self.slot_shape)
        self._dropped = tuple(s for s in range(self.n_inputs, self.n_slots)
                              if s not in seen and s not in self.out_slots)
        self._saved_ops = tuple(sorted(s for s in saved if s >= self.n_inputs))

    def _upstream(self):
        """The slots the outputs depend on through any input of any step."""
        upstream = set(self.out_slots)
        for st in reversed(self.steps):
            if any(s in upstream for s in st.outs):
                upstream.update(st.ins)
        return upstream

    def value_of(self, slot):
        """The slot whose value `slot` holds: followed back through `_copy` steps (a loop
        body copies a value it returns both as a step output and as a new state).

        Example::

            from gluonlite.executor import compile_plan
            plan = compile_plan(sym.tanh(sym.var('x')) * 2, [(2,)], ['float32'], is_train=True,
                                grad_inputs=[True])
            plan.value_of(1)   # 1: no copy step in this plan
        """
        while slot in self._copies:
            slot = self._copies[slot]
        return slot

    # ---- what a loop running this plan as its body reads (read-only) -------------------
    @property
    def saved_ops(self):
        """The operator outputs a backward reads (`Fast.saves`), in slot order: what a
        loop keeps of each step.

        Example::

            from gluonlite.executor import compile_plan
            plan = compile_plan(sym.tanh(sym.var('x')) * 2, [(2,)], ['float32'], is_train=True,
                                grad_inputs=[True])
            plan.saved_ops   # (1,): the tanh output, which its gradient reads
        """
        return self._saved_ops

    @property
    def stubs(self):
        """The values a backward sees only as their shape, as
        ``(slot, zero-memory array of its shape)`` pairs.

        Example::

            from gluonlite.executor import compile_plan
            plan = compile_plan(sym.tanh(sym.var('x')) * 2, [(2,)], ['float32'], is_train=True,
                                grad_inputs=[True])
            [slot for slot, _ in plan.stubs]   # [0, 2]: only their shapes are kept
        """
        return self._stubs

    @property
    def dropped(self):
        """Slots no backward step sees: dropped after the forward.

        Example::

            from gluonlite.executor import compile_plan
            plan = compile_plan(sym.tanh(sym.var('x')) * 2, [(2,)], ['float32'], is_train=True,
                                grad_inputs=[True])
            plan.dropped   # (): the backward sees every value
        """
        return self._dropped

    @property
    def caller_direct(self):
        """Output slots a forward may write straight into a caller's array (not kept for
        the backward: a caller's buffer may be reused).

        Example::

            from gluonlite.executor import compile_plan
            plan = compile_plan(sym.tanh(sym.var('x')) * 2, [(2,)], ['float32'], is_train=True,
                                grad_inputs=[True])
            plan.caller_direct   # frozenset({2}): the output slot
        """
        return self._caller_direct

    # ---- memory ---------------------------------------------------------------------------
    def _plan_memory(self):
        """Static buffers for temporaries (liveness-shared); see the module docstring."""
        self.buffer_of, self.live, self.buffers = {}, {}, []
        if not self.static_alloc:
            return
        defs, last = {}, {}
        for k, st in enumerate(self.steps):
            for s in st.outs:
                defs[s] = k
            for s in st.ins:
                last[s] = k
        end = len(self.steps)
        for s in self.out_slots:
            last[s] = end
        # A kernel that allocates its own result may return a view of an input (reshape):
        # keep such inputs alive as long as the result, and out of the pool if it is saved.
        changed = True
        # what the backward reads stays out of the pool whatever the train mode: a graph
        # recorded under record(train_mode=False) has a backward too
        keep_fresh = set(self.out_slots) | set(self.saved_slots)
        while changed:
            changed = False
            for k in range(len(self.steps) - 1, -1, -1):
                st = self.steps[k]
                if st.use_into:
                    continue
                reach = max(last.get(s, k) for s in st.outs)
                fresh = any(s in keep_fresh for s in st.outs)
                for s in st.ins:
                    if last.get(s, -1) < reach:
                        last[s] = reach
                        changed = True
                    if fresh and s not in keep_fresh:
                        keep_fresh.add(s)
                        changed = True
        candidates = [s for st in self.steps if st.use_into for s in st.outs[:st.n_arrays]
                      if s not in keep_fresh]
        self.live = {s: (defs[s], last.get(s, defs[s])) for s in candidates}
        self.buffer_of, specs = plan_buffers(len(self.steps), defs, last, candidates,
                                             self.slot_shape.__getitem__,
                                             self.slot_dtype.__getitem__)
        self.buffers = [self.xp.zeros(shape, dtype=dt) for shape, dt in specs]
        for st in self.steps:
            if st.use_into:
                st.bufs = [self.buffers[self.buffer_of[s]] if s in self.buffer_of else None
                           for s in st.outs[:st.n_arrays]]

    # ---- running --------------------------------------------------------------------------
    def _build_runners(self):
        """Decide which outputs a caller may provide; the forward functions themselves are
        generated on first use (`gluonlite.executor.codegen`), one per way of calling."""
        # Outputs the caller may have preallocated: written in place unless backward keeps
        # the value (a caller's buffer, e.g. a loop's slice or loop var, may be reused).
        keep = self.saved_slots if self.bwd_steps else set()
        self._caller_direct = frozenset(self.out_slots) - keep
        self._fns, self._sources = {}, {}

    def generated(self, key, make):
        """The function generated for this plan under `key`, made by `make() -> (function,
        source)` the first time (the plan's own forward and backward, and the step loops a
        loop running it as its body generates, `gluonlite.control_flow.lowering.codegen`).

        Args:
            key: a hashable naming the function in this plan's cache.
            make: a callable without arguments returning (function, source), called only when `key`
                is not cached yet.

        Returns:
            The cached function (a timed variant while gluonlite.profiler records).

        Example::

            from gluonlite.executor import compile_plan
            plan = compile_plan(sym.tanh(sym.var('x')) * 2, [(2,)], ['float32'], is_train=True,
                                grad_inputs=[True])
            fn = plan.generated(('mine',), lambda: ((lambda: 42), 'def f(): return 42'))
            fn()   # 42; a second call with the key ('mine',) returns the same fn
        """
        if _profiling.ACTIVE:  # a timed variant of the function, cached apart
            return self._profiled(key, make)
        fn = self._fns.get(key)
        if fn is None:
            fn, self._sources[key] = make()
            self._fns[key] = fn
        return fn

    def _profiled(self, key, make):
        """`generated` while gluonlite.profiler records: the function made with a timer
        around every step (`codegen.Writer.profile`), each call recorded as one event."""
        pkey = ("profiled",) + key
        fn = self._fns.get(pkey)
        if fn is None:
            fn, self._sources[pkey] = make()
            self._fns[pkey] = fn
        return _profiling.timed_plan(key[0], fn)

    def forward_fn(self, with_outs, skip=()):
        """The generated forward ``f(args, outs) -> (results, saved)`` (see `forward`); with
        `with_outs` the caller passes `outs` to write into, and outputs at positions `skip`
        are not written (see `gluonlite.executor.codegen.forward_function`).

        Example::

            from gluonlite.executor import compile_plan
            plan = compile_plan(sym.tanh(sym.var('x')) * 2, [(2,)], ['float32'], is_train=True,
                                grad_inputs=[True])
            forward = plan.forward_fn(False)
            outs, saved = forward([np.ones(2, np.float32)], None)
        """
        key = ("forward", bool(with_outs), frozenset(skip))
        return self.generated(key, lambda: forward_function(self, *key[1:]))

    def backward_fn(self, with_dests=False):
        """The generated backward ``f(saved, heads, dests=None) -> grads`` (see `backward`),
        with or without the caller's gradient arrays (`with_dests`).

        Example::

            from gluonlite.executor import compile_plan
            plan = compile_plan(sym.tanh(sym.var('x')) * 2, [(2,)], ['float32'], is_train=True,
                                grad_inputs=[True])
            outs, saved = plan.forward([np.ones(2, np.float32)])
            plan.backward_fn()(saved, [np.ones(2, np.float32)], None)   # [array([0.84, 0.84])]
        """
        key = ("backward", bool(with_dests))
        return self.generated(key, lambda: backward_function(self, *key[1:]))

    @property
    def source(self):
        """The Python source of the plain forward (no caller buffers), for reading.

        Example::

            from gluonlite.executor import compile_plan
            print(compile_plan(sym.tanh(sym.var("x")), [(2,)], ["float32"]).source)
            # def forward(args, outs):
            #     v0, = args
            #     v1 = empty(S1, dtype=D1)
            #     u0(v0, out=v1)  # tanh 'tanh0'
            #     return [v1], None
        """
        self.forward_fn(False)
        key = ("forward", False, frozenset())
        return self._sources.get(key) or self._sources[("profiled",) + key]

    @property
    def sources(self):
        """{key: Python source} of every function generated for this plan so far, read-only:
        ``("forward", with_outs, skip)`` as `forward_fn` takes them, ``("backward",
        with_dests)``, and the step loops and reverse passes of a loop running this plan
        as its body (keys starting with "loop" and "reverse"); those made while
        gluonlite.profiler records have the same keys with "profiled" in front.

        Example::

            from gluonlite.executor import compile_plan
            plan = compile_plan(sym.tanh(sym.var('x')) * 2, [(2,)], ['float32'], is_train=True,
                                grad_inputs=[True])
            plan.forward([np.ones(2, np.float32)])
            list(plan.sources)   # [('forward', False, frozenset())]
        """
        return MappingProxyType(self._sources)

    def forward(self, args, outs=None):
        """Run the forward, with numpy's floating-point errors ignored as in every runner of
        operators (`gluonlite.ops.float_errors`).

        Args:
            args: raw arrays aligned with `input_names`.
            outs: optional preallocated arrays, one per visible output, to write into.

        Returns:
            (outputs, saved): raw output arrays, and what `backward` needs (None when no input
            wants a gradient).

        Example::

            from gluonlite.executor import compile_plan
            plan = compile_plan(sym.tanh(sym.var('x')) * 2, [(2,)], ['float32'], is_train=True,
                                grad_inputs=[True])
            outs, saved = plan.forward([np.ones(2, np.float32)])
            outs   # [array([1.5231884, 1.5231884], dtype=float32)]
        """
        token = float_errors.quiet()
        try:
            return self.forward_fn(outs is not None)(args, outs)
        finally:
            float_errors.restore(token)

    def backward(self, saved, out_grads, dests=None):
        """Gradients of the inputs from gradients of the outputs (a loop runs its body's
        backward in its generated reverse pass instead, `gluonlite.control_flow.lowering`).

        Args:
            saved: the `saved` object of a training forward of this plan.
            out_grads: one raw array (or None for zero) per visible output.
            dests: optional, per input None or a C-contiguous array of its shape and dtype
                that nothing else reads: the input's gradient may be written there (and is
                then that array; see `Fast.writes_dests`).

        Returns:
            A list aligned with `input_names`: the gradient, or None where the input wants
            none or receives none (zero).

        Example::

            from gluonlite.executor import compile_plan
            plan = compile_plan(sym.tanh(sym.var('x')) * 2, [(2,)], ['float32'], is_train=True,
                                grad_inputs=[True])
            outs, saved = plan.forward([np.ones(2, np.float32)])
            plan.backward(saved, [np.ones(2, np.float32)])   # [array([0.83994865, 0.83994865])]
        """
        if saved is None:
            raise ValueError("backward: this plan was compiled without any input that needs a "
                             "gradient, or forward was not run for training")
        with_dests = dests is not None and any(d is not None for d in dests)
        token = float_errors.quiet()
        try:
            return self.backward_fn(with_dests)(saved, out_grads, dests)
        finally:
            float_errors.restore(token)


def _dtypes_of(symbol, known, shared, nodes):
    """`infer_graph`'s dtypes of `symbol`'s entries from its inputs' dtypes `known` ({name:
    dtype}), kept in `shared` (when given) for the other plans of the graph: they depend on
    the inputs' dtypes alone, and a graph run at a new shape (a decoder's next step) would
    infer the same ones again."""
    if shared is None:
        return infer_graph(symbol, None, known, what="dtype", nodes=nodes)[1]
    key = (id(symbol), tuple((k, None if v is None else np.dtype(v)) for k, v in known.items()))
    memo = shared.setdefault("_dtypes", {})
    hit = memo.get(key)
    if hit is None or hit[0] is not symbol:  # (the symbol is kept: its id stays its own)
        hit = memo[key] = (symbol, infer_graph(symbol, None, known, what="dtype",
                                               nodes=nodes)[1])
    return hit[1]


def compile_plan(symbol, shapes, dtypes, is_train=False, grad_inputs=None, static_alloc=False,
                 xp=np, shared=None):
    """Compile `symbol` for the given input shapes and dtypes (aligned with list_inputs()).

    Args:
        is_train: run operators in training mode (Dropout, BatchNorm statistics).
        grad_inputs: bools aligned with list_inputs(): inputs that want gradients.
        static_alloc: preallocate temporaries once, sharing buffers between values whose
            lifetimes do not overlap, and have kernels write into them.
        xp: the array module (numpy, or cupy for gpu).
        shared: a dict the caller keeps for all the plans it compiles of one graph (a
            `CachedOp`'s, an `Executor`'s: their calls never overlap). A node's lowering
            gets the same dict of its own in each of them (``shared[node]``, its
            `runtime` rule's `store`), for what those plans can share (a loop's large
            per-call buffers); without it, a fresh dict per plan.
        symbol: the `Symbol` to compile.
        shapes: the input shapes (tuples), aligned with `list_inputs()`.
        dtypes: the input dtypes, aligned with `list_inputs()`.

    Returns:
        A `Plan`.

    Raises:
        ValueError: shapes that do not fit (naming the node), or an output whose shape cannot
            be inferred.

    Example::

        from gluonlite.executor import compile_plan
        plan = compile_plan(sym.tanh(sym.var('x')) * 2, [(2,)], ['float32'], is_train=True,
                            grad_inputs=[True])
        plan.out_shapes   # [(2,)]
    """
    return Plan(symbol, shapes, dtypes, is_train, grad_inputs, static_alloc, xp, shared)
