"""The loops' lowering at run time: what a plan step keeps from call to call, and the
buffers of one call.

A lowered loop step keeps a `LoopRuntime` (``rc.runtime``, made once when the plan is
compiled, beside the frozen decisions of ``rc.spec``): its body plans, compiled on first
use with static alloc and kept with what the analysis derives from them
(`deferred.LoopBody`), and the node's large per-call arrays (`LoopBuffers`, shared by the
node's plans of one graph).

A call lays out here, once, what its steps write: each step's rows of the stacked
outputs, the buffers of the values carried from step to step (rows of a stacked output
when they are the same value, two swapped buffers in inference, rows of one stack in
training), and the stacks that keep what the body's backward reads (`LoopStorage`); the
steps themselves are the generated step loop (`codegen.step_loop`).
"""
import numpy as np

from ...executor.lowering import lowerings
from ...executor.plan import compile_plan
from ..body import wants_grad
from .codegen import step_loop
from .deferred import LoopBody

__all__ = ["LoopRuntime", "LoopBuffers", "LoopStorage", "StackedSteps", "data_row",
           "data_column", "saved_stacks", "fast_weight_layout"]


class LoopRuntime:
    """What a lowered loop step keeps from call to call (its plan step's ``runtime``).

    Attributes:
        plans: {key: `deferred.LoopBody`} compiled on first use (see `body`).
        buffers: the node's `LoopBuffers`, shared by its plans of one graph.

    Args:
        spec: the step's `LoopSpec` (not read here: the plans are compiled per call, `body`).
        store: the dict the graph's plans share for this node (`compile_plan`'s ``shared[node]``);
            its ``'loop_buffers'`` entry is created on first use.

    Example::

        from gluonlite.control_flow.lowering.runtime import LoopRuntime
        store = {}
        rt = LoopRuntime(None, store)   # spec is not read here
        rt.plans, store['loop_buffers'] is rt.buffers   # ({}, True)
    """

    def __init__(self, spec, store):
        self.plans = {}
        self.buffers = store.setdefault("loop_buffers", LoopBuffers())

    def body(self, spec, index, shapes, dtypes, is_train, keep, xp, invariant=None):
        """The `LoopBody` of subgraph `index` of the loop `spec` decides (the node's, or
        its hoisted rewrite's) for body inputs of these shapes and dtypes, compiled (static
        alloc) on first use and kept in `plans`.

        Args:
            is_train: run operators in training mode.
            keep: compile for gradients (every floating input wants one).
            xp: array module.
            invariant: per body input, whether it is the same at every step (free
                variables): their gradients are deferred to one sum after the loop
                (`LoopBody.deferred`).
            spec: the loop's `LoopSpec`.
            index: which of its subgraphs (0 for foreach's body; while_loop: 0 cond, 1 func).
            shapes: the body input shapes.
            dtypes: the body input dtypes.

        Returns:
            A `deferred.LoopBody`.

        Example::

            from gluonlite.executor import compile_plan
            def step(x, h):
                new = sym.tanh(sym.FullyConnected(x, sym.var('w'), no_bias=True,
                                                  num_hidden=4) + h[0])
                return new, [new]
            outs = sym.contrib.foreach(step, sym.var('data'), [sym.var('h0')])[0]
            plan = compile_plan(outs, [(5, 2, 3), (2, 4), (4, 3)], ['float32'] * 3,
                                static_alloc=True)
            loop_step = [st for st in plan.steps if st.spec is not None][0]
            runtime = loop_step.runtime   # the step's LoopRuntime
            body = runtime.body(loop_step.spec, 0, [(2, 3), (4, 3), (2, 4)],   # data-0, w, h0-0
                                ['float32'] * 3, False, False, np)
            body.plan.input_names   # ['data-0', 'w', 'h0-0']
        """
        invariant = tuple(invariant) if invariant is not None else None
        # Looked up on every loop call: the key is made of what the caller has at hand.
        key = (id(spec), index, tuple(shapes), tuple(dtypes), bool(is_train), bool(keep),
               xp.__name__, invariant)
        body = self.plans.get(key)
        if body is None:
            if len(self.plans) > 64:  # many distinct shapes: keep memory bounded
                self.plans.clear()
            dtypes = [np.dtype(d) for d in dtypes]
            grad = [wants_grad(d) for d in dtypes] if keep else None
            # Loops nested in the body are lowered too, as this one was.
            with lowerings(True):
                plan = compile_plan(spec.params["_subgraphs"][index], [tuple(s) for s in shapes],
                                    dtypes, is_train=is_train, grad_inputs=grad,
                                    static_alloc=True, xp=xp, shared=self.buffers.bodies)
            body = self.plans[key] = LoopBody(plan, invariant)
        return body


class LoopBuffers:
    """A loop node's large per-call arrays, made once and refilled by every call of every
    plan of its graph: a `CachedOp`'s (or an `Executor`'s) training and inference plans
    share one (their calls never overlap; `compile_plan`'s `shared`), so a block keeps one
    hoisted projection, not one per plan.

    Attributes:
        projections: the hoisted projections {(projection, shape, dtype, xp name): array};
        holders: {the same key: weak reference to the saved state of the training call
            whose backward still reads that array}: a call meanwhile computes into a fresh
            array (`hoisting.Hoist.prologue`).
        layouts: the transposed weight copies (`fast_weight_layout`), read only while a
            call's steps run.
        bodies: the `shared` dict the loop's body plans are compiled with: the loops
            nested in them share theirs likewise.
        stubs: the zero-memory arrays `shape_stub` made.

    Example::

        from gluonlite.control_flow.lowering.runtime import LoopBuffers
        buffers = LoopBuffers()   # one per loop node, shared by its plans of one graph
        buffers.projections, buffers.stubs   # ({}, {}): filled by the calls
    """

    def __init__(self):
        self.projections, self.holders, self.layouts, self.bodies = {}, {}, {}, {}
        self.stubs = {}

    def shape_stub(self, xp, x):
        """A read-only array with x's shape and dtype and no data (a zero broadcast), made
        once per shape: what a saved state keeps in place of a hoisted projection.

        Args:
            xp: the array module (numpy or cupy).
            x: the array whose shape and dtype the stub takes.

        Returns:
            A read-only broadcast array of zeros.

        Example::

            from gluonlite.control_flow.lowering.runtime import LoopBuffers
            stub = LoopBuffers().shape_stub(np, np.ones((3, 4)))
            stub.shape, stub.strides   # ((3, 4), (0, 0)): no memory of its own
        """
        key = (x.shape, x.dtype, xp.__name__)
        stub = self.stubs.get(key)
        if stub is None:
            stub = self.stubs[key] = xp.broadcast_to(xp.zeros((), x.dtype), x.shape)
        return stub



def data_row(x, t):
    """Row t of scanned data (a 1-D array gives shape (1,), as MXNet slices it).

    Args:
        x: the scanned data, steps along axis 0.
        t: the step.

    Returns:
        A view of row t.

    Example::

        from gluonlite.control_flow.lowering.runtime import data_row
        data_row(np.arange(3.), 1)   # array([1.]): a 1-D row keeps one axis
    """
    return x[t] if x.ndim > 1 else x[t:t + 1]


def data_column(x):
    """Scanned data indexable by step: row t is `data_row(x, t)`.

    Args:
        x: the scanned data, steps along axis 0.

    Returns:
        `x` itself, or a 1-D `x` reshaped to (steps, 1).

    Example::

        from gluonlite.control_flow.lowering.runtime import data_column
        data_column(np.arange(3.)).shape   # (3, 1)
    """
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
    sums over steps reads them there.

    Args:
        saved_rows: {slot: (steps, ...) stack} of the saved operator outputs.
        columns: ``columns(n)``: per body input its value or its column (see above).
        input_stacks: ``input_stacks(n)``: {body input: stack} (see above).
        fixed: per body input, whether it is the same at every step.

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
        steps = state.steps
        print(type(steps).__name__, steps.fixed)   # StackedSteps (False, False): both vary
        stacks = steps.input_stacks(5)
        print({k: v.shape for k, v in stacks.items()})   # {0: (5, 2, 3), 1: (5, 2, 3)}
    """

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

    Args:
        xp: the array module (numpy or cupy).
        body: the loop's `LoopBody`.
        n_out: how many of the body's outputs are stacked step outputs (the rest are carried).
        n_rows: the most steps the loop runs.
        keep: whether the steps' saved values are kept for a backward.
        zero_rows: zero the stacked outputs first (else they are left uninitialised).
        scanned: the body input slots fed a row of the data at each step.
        carried: per carried value, the body input it is fed back into.
        fed_vars: default (): the carried values the loop feeds itself.
        given: default (): slots the loop gives each step (gathered rows, `counting.gathered_rows`).

    Example::

        from gluonlite.executor import compile_plan
        from gluonlite.control_flow.lowering.runtime import LoopStorage
        def step(x, h):
            fc = sym.FullyConnected(x, sym.var('w'), no_bias=True, num_hidden=4)
            new = sym.tanh(fc + h[0])
            return new, [new]
        outs = sym.contrib.foreach(step, sym.var('data'), [sym.var('h0')])[0]
        f32 = ['float32'] * 3
        plan = compile_plan(outs, [(5, 2, 3), (2, 4), (4, 3)], f32, static_alloc=True)
        loop = [st for st in plan.steps if st.spec is not None][0]
        # the body's plan for a training call: inputs data-0, w, h0-0, with w the same each step
        body = loop.runtime.body(loop.spec, 0, [(2, 3), (4, 3), (2, 4)], f32, True, True, np,
                                 invariant=[False, True, False])
        store = LoopStorage(np, body, 1, 5, keep=True, zero_rows=False, scanned=[0], carried=[2])
        print(store.stacked[0].shape, list(store.shared))   # (5, 2, 4) [0]: h equals the output
        print(sorted(store.saved) == sorted(body.plan.saved_ops))   # True: steps saved in stacks
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
        # Two carried values equal to one output enter from different values: the buffer
        # in front holds the first one's; the other's `entering` is made apart.
        self._entering, fronted = {}, set()
        for k, j in sorted(carried_as.items()):
            if j in by_output and j not in fronted:
                fronted.add(j)
                self._entering[k] = by_output[j]
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
        the saved-step stacks (None when steps are not stacked).

        Args:
            n: the number of steps that will run.

        Returns:
            (outputs, saved): the output columns and the saved stacks (or None).

        Example::

            from gluonlite.executor import compile_plan
            from gluonlite.control_flow.lowering.runtime import LoopStorage
            def step(x, h):
                fc = sym.FullyConnected(x, sym.var('w'), no_bias=True, num_hidden=4)
                new = sym.tanh(fc + h[0])
                return new, [new]
            outs = sym.contrib.foreach(step, sym.var('data'), [sym.var('h0')])[0]
            f32 = ['float32'] * 3
            plan = compile_plan(outs, [(5, 2, 3), (2, 4), (4, 3)], f32, static_alloc=True)
            loop = [st for st in plan.steps if st.spec is not None][0]
            # the body's plan for a training call: inputs data-0, w, h0-0, with w the same each step
            body = loop.runtime.body(loop.spec, 0, [(2, 3), (4, 3), (2, 4)], f32, True, True, np,
                                     invariant=[False, True, False])
            store = LoopStorage(np, body, 1, 5, keep=True, zero_rows=False, scanned=[0],
                                carried=[2])
            cols, rows = store.columns(5)   # output stack, carried stack; the saved stacks
            x, w = np.ones((5, 2, 3), np.float32), np.full((4, 3), 0.1, np.float32)
            h0 = np.zeros((2, 4), np.float32)
            store.run([x[0], w, h0], [x], cols, rows, None, 0, 5)
            print(cols[0][0, 0])   # [0.29131263 0.29131263 0.29131263 0.29131263]
        """
        return self.stacked + self._columns(n), self.saved_rows

    def entering_column(self, k, first, n):
        """Carried value k entering each of steps 0..n-1, indexable by step: the view
        `entering` gives when it is one, else a list of views (`first`, then its stack's
        rows; no copy).

        Args:
            k: the carried value's index.
            first: its value entering step 0.
            n: the number of steps.

        Returns:
            An (n, ...) array or a list of n arrays.

        Example::

            from gluonlite.executor import compile_plan
            from gluonlite.control_flow.lowering.runtime import LoopStorage
            def step(x, h):
                fc = sym.FullyConnected(x, sym.var('w'), no_bias=True, num_hidden=4)
                new = sym.tanh(fc + h[0])
                return new, [new]
            outs = sym.contrib.foreach(step, sym.var('data'), [sym.var('h0')])[0]
            f32 = ['float32'] * 3
            plan = compile_plan(outs, [(5, 2, 3), (2, 4), (4, 3)], f32, static_alloc=True)
            loop = [st for st in plan.steps if st.spec is not None][0]
            # the body's plan for a training call: inputs data-0, w, h0-0, with w the same each step
            body = loop.runtime.body(loop.spec, 0, [(2, 3), (4, 3), (2, 4)], f32, True, True, np,
                                     invariant=[False, True, False])
            store = LoopStorage(np, body, 1, 5, keep=True, zero_rows=False, scanned=[0],
                                carried=[2])
            h0 = np.zeros((2, 4), np.float32)
            col = store.entering_column(0, h0, 5)   # h entering steps 0..4
            print(col.shape, np.shares_memory(col, store.stacked[0]))   # (5, 2, 4) True: no copy
        """
        if k in self._entering:
            return self.entering(k, first, n)
        return [first] + list(self.carried[k][:n - 1]) if n else []

    def entering(self, k, first, n):
        """(n, ...) values of carried value k entering each of steps 0..n-1 (`first`, then
        its stack's rows): a view of the buffer in front of its stacked output when it has
        one (`first` is written to that buffer's row 0), else a new array.

        Args:
            k: the carried value's index.
            first: its value entering step 0.
            n: the number of steps.

        Returns:
            An (n, ...) array.

        Example::

            from gluonlite.executor import compile_plan
            from gluonlite.control_flow.lowering.runtime import LoopStorage
            def step(x, h):
                fc = sym.FullyConnected(x, sym.var('w'), no_bias=True, num_hidden=4)
                new = sym.tanh(fc + h[0])
                return new, [new]
            outs = sym.contrib.foreach(step, sym.var('data'), [sym.var('h0')])[0]
            f32 = ['float32'] * 3
            plan = compile_plan(outs, [(5, 2, 3), (2, 4), (4, 3)], f32, static_alloc=True)
            loop = [st for st in plan.steps if st.spec is not None][0]
            # the body's plan for a training call: inputs data-0, w, h0-0, with w the same each step
            body = loop.runtime.body(loop.spec, 0, [(2, 3), (4, 3), (2, 4)], f32, True, True, np,
                                     invariant=[False, True, False])
            store = LoopStorage(np, body, 1, 5, keep=True, zero_rows=False, scanned=[0],
                                carried=[2])
            cols, rows = store.columns(5)
            x, w = np.ones((5, 2, 3), np.float32), np.full((4, 3), 0.1, np.float32)
            h0 = np.zeros((2, 4), np.float32)
            store.run([x[0], w, h0], [x], cols, rows, None, 0, 5)
            h_in = store.entering(0, h0, 5)   # h0, then the outputs of steps 0..3
            print(h_in[0, 0, 0], np.array_equal(h_in[1:], cols[0][:4]))   # 0.0 True
        """
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
        step, the caller's own arrays).

        Args:
            cur: the carried values after the last step.
            first: the carried values the loop started from (the caller's arrays).

        Returns:
            A list of arrays, copies where `cur` could alias a buffer or the caller's arrays.

        Example::

            from gluonlite.executor import compile_plan
            from gluonlite.control_flow.lowering.runtime import LoopStorage
            def step(x, h):
                fc = sym.FullyConnected(x, sym.var('w'), no_bias=True, num_hidden=4)
                new = sym.tanh(fc + h[0])
                return new, [new]
            outs = sym.contrib.foreach(step, sym.var('data'), [sym.var('h0')])[0]
            f32 = ['float32'] * 3
            plan = compile_plan(outs, [(5, 2, 3), (2, 4), (4, 3)], f32, static_alloc=True)
            loop = [st for st in plan.steps if st.spec is not None][0]
            # the body's plan for a training call: inputs data-0, w, h0-0, with w the same each step
            body = loop.runtime.body(loop.spec, 0, [(2, 3), (4, 3), (2, 4)], f32, True, True, np,
                                     invariant=[False, True, False])
            store = LoopStorage(np, body, 1, 5, keep=True, zero_rows=False, scanned=[0],
                                carried=[2])
            h0 = np.zeros((2, 4), np.float32)
            last = store.final([store.stacked[0][4]], [h0])[0]
            print(np.shares_memory(last, store.stacked[0]))   # False: a copy, not a view
        """
        if cur is first:
            return [x.copy() for x in cur]
        return [c.copy() if k in self.shared else c for k, c in enumerate(cur)]


def saved_stacks(plan, n_steps, provided=None):
    """{slot: (n_steps, ...) array}: a loop's stacks of its steps' saved values (`plan`:
    the body's plan; needs `LoopBody.stackable`); `provided` {slot: stack} gives stacks the
    caller already holds (a loop's stacked step output that is the same value).

    Args:
        plan: the body's plan.
        n_steps: the number of rows of each stack.
        provided: default None: {slot: stack} reused instead of allocated.

    Example::

        from gluonlite.executor import compile_plan
        from gluonlite.control_flow.lowering.runtime import saved_stacks
        body = sym.tanh(sym.var('x')) * sym.var('y')
        plan = compile_plan(body, [(2,), (2,)], ['float32'] * 2, is_train=True,
                            grad_inputs=[True, True], static_alloc=True)
        {slot: a.shape for slot, a in saved_stacks(plan, 4).items()}
        # {2: (4, 2)}: tanh's output, for 4 steps
    """
    provided = provided or {}
    return {s: provided[s] if s in provided else
            plan.xp.empty((n_steps,) + tuple(plan.slot_shape[s]), dtype=plan.slot_dtype[s])
            for s in plan.saved_ops}



def fast_weight_layout(xp, weights, buffers, steps_as_lists=False):
    """{index: the same weight laid out for `x @ W.T`} for `weights` {index: array} (the
    ones the loop pass chose, `LoopSpec.weight_layout`): a copy of W with W's shape and
    values whose transpose is contiguous (2-D C-contiguous floating weights only).

    Args:
        buffers: a dict (`LoopBuffers.layouts`) holding one such array per weight
            position, shape and dtype, refilled on every call instead of allocated anew.
        steps_as_lists: the loop keeps its steps as lists of their values (they cannot be
            stacked): those would hold the copy, which the next run refills, so none is
            made. (Stacked steps keep the original weights for the backward.)
        xp: the array module (numpy or cupy).
        weights: {node input index: weight array}.

    Returns:
        {index: array}; empty with `steps_as_lists` or no weights.

    Example::

        from gluonlite.control_flow.lowering.runtime import fast_weight_layout
        W = np.ones((4, 3), np.float32)
        copy = fast_weight_layout(np, {2: W}, {})[2]
        copy.shape, copy.T.flags['C_CONTIGUOUS']   # ((4, 3), True)
    """
    if steps_as_lists or not weights:
        return {}
    fast = {}
    for i, w in weights.items():
        if w.ndim != 2 or not w.flags.c_contiguous or w.dtype.kind != "f":
            continue
        key = (i, w.shape, w.dtype, xp.__name__)
        buf = buffers.get(key)
        if buf is None:
            buf = buffers[key] = xp.empty(w.shape[::-1], dtype=w.dtype)
        xp.copyto(buf, w.T)
        fast[i] = buf.T
    return fast
