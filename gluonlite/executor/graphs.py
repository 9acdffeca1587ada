"""CUDA graphs of static plans: a hybridized call captured once, then replayed.

On a GPU a plan's call is hundreds of kernel launches (a recurrent layer: a few per step,
times the steps), each costing the host a few microseconds of Python and driver work while
the GPU waits. A plan compiled with ``static_alloc=True, static_shape=True`` fixes what
capture needs: the same kernels, on arrays of the same shapes, every call. So a `CachedOp`
with both flags on a CuPy context runs its plans through `PlanGraphs`:

1. the first call runs as usual (it compiles CuPy's kernels and makes the plan's buffers);
2. the second call is captured (CuPy's stream capture, on a stream of its own, with a memory
   pool of its own, so that no memory a graph uses is ever handed to anyone else) and
   launched;
3. every later call launches the graph: one launch for the whole call.

What the caller sees is what the plan gives: outputs are copies of the graph's (a later
replay never changes an array a caller holds), inputs whose arrays move between calls are
copied into the graph's own before each launch (those that stay, such as parameters, are
read where they lie), and the backward of a recorded call is captured and replayed the same
way (into the parameters' gradient buffers when autograd hands them down).

Reads on the host. A plan that reads a device value on the host (`gluonlite.context.
host_scalar`: a ``while_loop``'s condition before each step, a counted loop's trip count,
``cond``'s predicate) cannot be one graph: the value decides what runs next. A capture
ends its graph at each such read, launches it, reads the value and captures on; a replay
launches the graphs in turn and reads the same values, and follows its chain while they are
those it was captured with. So a counted ``while_loop`` (one read: its trip count) is
captured **per trip count**: the graph before the loop, then the whole loop with every step
as nodes of one graph, one chain per trip count seen; a ``while_loop`` whose condition is
read before each step is captured **per body**: one graph per step (its body and the next
condition), because the host must see each condition before it launches the next step. A
replay that reads a value its chain was not captured with runs the call again from the
start as a new capture (what the graphs wrote before is the plan's own scratch memory), so
every result is the plain plan's.

Exact only. A plan is captured only where a replay computes what the plan computes
(`why_not`): no random operator (its draws are made on the host: a replay would repeat
them), no shape decided by values, no auxiliary state updated in place in training (a
replay would update it into the arrays of the capture). A capture that fails (an array
function that syncs with the host on its own) leaves that function to run as usual, the
reason kept in `GraphedFunction.disabled`.

The switch: ``GLUONLITE_CUDA_GRAPHS=0`` in the environment (or `cuda_graphs(False)` around
the calls that compile the plans) turns capture off; it is read when a plan is compiled.

Example::

    # not run: CUDA graphs need a GPU (CuPy)
    net = gluon.nn.Dense(4); net.initialize(ctx=mx.gpu())
    x = nd.ones((2, 3), ctx=mx.gpu())
    net.hybridize(static_alloc=True, static_shape=True)
    y = net(x)      # runs the plan
    y = net(x)      # captured, launched
    y = net(x)      # one graph launch
"""
import os
import weakref

from ..context import read_hook
from ..symbol.symbol import topo_nodes

__all__ = ["cuda_graphs", "cuda_graphs_enabled", "can_capture", "why_not", "PlanGraphs",
           "GraphedFunction", "ENV_VAR"]

ENV_VAR = "GLUONLITE_CUDA_GRAPHS"
_STATE = {"on": os.environ.get(ENV_VAR, "1").strip() != "0"}
# Chains kept per function (trip counts seen, paths of conditions); past it they are made
# afresh: a loop whose trip count changes on every call gains nothing from capture.
MAX_CHAINS = 8


def cuda_graphs_enabled():
    """Whether static plans compiled now on a CuPy context are captured (default on; off
    with ``GLUONLITE_CUDA_GRAPHS=0`` or inside `cuda_graphs(False)`).

    Example::

        from gluonlite.executor.graphs import cuda_graphs_enabled
        cuda_graphs_enabled()   # True
    """
    return _STATE["on"]


class cuda_graphs:
    """Turn graph capture on or off for the plans compiled inside the block (to compare a
    captured call with the plain one; results are the same). Plans keep the setting they
    were compiled with.

    Args:
        enabled: True to capture CUDA graphs for the plans compiled inside the block, False to
            launch them kernel by kernel.

    Example::

        from gluonlite.executor.graphs import cuda_graphs
        net = gluon.nn.Dense(4); net.initialize(); x = nd.ones((2, 3))
        with cuda_graphs(False):
            net.hybridize(static_alloc=True, static_shape=True)
            y = net(x)      # a net hybridized inside the block launches kernel by kernel
    """

    def __init__(self, enabled):
        self.enabled = bool(enabled)

    def __enter__(self):
        self._old, _STATE["on"] = _STATE["on"], self.enabled
        return self

    def __exit__(self, *exc):
        _STATE["on"] = self._old


def can_capture(xp):
    """Whether array module `xp` captures CUDA graphs (CuPy's ``cuda.Stream.begin_capture``).

    Example::

        from gluonlite.executor.graphs import can_capture
        can_capture(np)   # False
    """
    stream = getattr(getattr(xp, "cuda", None), "Stream", None)
    return getattr(stream, "begin_capture", None) is not None


def _nodes_deep(symbol):
    """Every operator node of `symbol` and of the subgraphs its loop and branch nodes hold."""
    stack, seen = [symbol], []
    while stack:
        for n in topo_nodes(stack.pop().outputs):
            if n.op is None:
                continue
            seen.append(n)
            stack.extend(getattr(n.params, "get", lambda k, d=None: d)("_subgraphs", ()) or ())
    return seen


def why_not(plan):
    """Why `plan` may not be captured (a replay would not compute what it computes), or
    None when it may.

    Example::

        from gluonlite.executor import compile_plan
        from gluonlite.executor.graphs import why_not
        drop = sym.Dropout(sym.var('x'), p=0.5, name='drop')
        plan = compile_plan(drop, [(2,)], ['float32'], is_train=True, grad_inputs=[True])
        why_not(plan).split(':')[0]   # "random operator Dropout ('drop')"
    """
    if plan.dynamic:
        return "shapes decided by values when the plan runs"
    for n in _nodes_deep(plan.symbol):
        op = n.op
        if op.random:
            return (f"random operator {op.name} ({n.name!r}): its draws are made on the host, "
                    "a replay would repeat them")
        if op.shape_from_values:
            return f"operator {op.name} ({n.name!r}) gives a shape decided by values"
        if plan.is_train and op.has_aux and any(op.aux_mask(n.params)):
            return (f"operator {op.name} ({n.name!r}) updates auxiliary states in place in "
                    "training")
    return None


# ---- one function run as graphs ---------------------------------------------------------------
def _signature(a):
    """Where array `a` lies and how: (address, shape, strides, dtype), or None."""
    if a is None:
        return None
    return a.data.ptr, a.shape, a.strides, a.dtype


class _Chain:
    """The graphs of one capture: `segments` launched in turn with `reads` between them
    ((array, whole, value) read on the host after segment k), and `result`, what the
    function returned at its capture (its arrays are the graphs' memory)."""

    __slots__ = ("segments", "reads", "result", "__weakref__")

    def __init__(self):
        self.segments, self.reads, self.result = [], [], None


def _value(a, whole):
    v = a.get() if whole else a.reshape(-1)[0].item()
    return (tuple(v.reshape(-1).tolist()), v) if whole else (v, v)


class GraphedFunction:
    """`fn(arrays)` (a list of device arrays or None) run as CUDA graphs on array module
    `xp`: plainly on the first call, captured on the second, replayed after (see the module
    docstring). The arrays must keep their shapes and dtypes from call to call (the plan's).

    Attributes:
        disabled: why this function runs plainly for good (a capture failed), or None.
        counts: {"plain", "captures", "replays", "misses"}: how its calls ran.

    Args:
        xp: the array module (cupy).
        fn: the function to run, ``fn(arrays) -> result``.
        name: a label ('forward', 'backward') used in messages.

    Example::

        # not run: CUDA graphs need a GPU (CuPy)
        import cupy
        op = mx.executor.CachedOp(sym.tanh(sym.var('x')), static_alloc=True, static_shape=True)
        x = nd.ones((2, 3), ctx=mx.gpu())
        for _ in range(3):
            op(x)   # run plainly, captured, then replayed
        op.graphs[0].forward_graphs.counts   # plain 1, captures 1, replays 1
    """

    def __init__(self, xp, fn, name):
        self.xp, self.fn, self.name = xp, fn, name
        self.disabled = None
        self.counts = {"plain": 0, "captures": 0, "replays": 0, "misses": 0}
        self._sig = None      # the arrays' signatures at the last call
        self._staged = None   # per array: copied into `_stage` before a launch
        self._stage = {}
        self._chains = []     # most recent first
        self._pool = self._stream = None

    def __call__(self, arrays):
        """``(result, chain)``: what `fn` returns (its arrays are the graphs' when `chain`
        is not None: the caller copies what it hands on) and the chain that made it."""
        if self.disabled is not None:
            self.counts["plain"] += 1
            return self.fn(arrays), None
        sig = [_signature(a) for a in arrays]
        if self._sig is None:  # the first call compiles CuPy's kernels: run it plainly
            self._sig = sig
            self.counts["plain"] += 1
            return self.fn(arrays), None
        if self._staged is None:
            self._staged = [False] * len(arrays)
        moved = [k for k, (a, b) in enumerate(zip(sig, self._sig))
                 if a != b and not self._staged[k]]
        if moved:  # read from where they lay at the capture: copied into a graph's own now
            for k in moved:
                self._staged[k] = True
            self._chains.clear()
        self._sig = sig
        ins = self._inputs(arrays)
        for chain in self._chains[:1]:  # the last call's path is the likeliest
            if self._replay(chain):
                self.counts["replays"] += 1
                return chain.result, chain
            self.counts["misses"] += 1
        return self._capture(ins, arrays)

    @property
    def last_capture(self):
        """(graphs, host reads) of the latest capture: (1, 0) for a plan captured whole;
        None before any.

        Example::

            # not run: CUDA graphs need a GPU (CuPy)
            import cupy
            op = mx.executor.CachedOp(sym.tanh(sym.var('x')), static_alloc=True, static_shape=True)
            x = nd.ones((2, 3), ctx=mx.gpu())
            for _ in range(3):
                op(x)   # run plainly, captured, then replayed
            op.graphs[0].forward_graphs.last_capture   # (1, 0)
        """
        if not self._chains:
            return None
        return len(self._chains[0].segments), len(self._chains[0].reads)

    def _inputs(self, arrays):
        """The arrays the graphs read: the caller's, or for staged ones the graph's own copy
        (refilled here, before any launch)."""
        ins = list(arrays)
        for k, a in enumerate(arrays):
            if a is not None and self._staged[k]:
                buf = self._stage.get(k)
                if buf is None:
                    buf = self._stage[k] = self.xp.empty(a.shape, dtype=a.dtype)
                self.xp.copyto(buf, a)
                ins[k] = buf
        return ins

    def _replay(self, chain):
        stream = self.xp.cuda.get_current_stream()
        for k, g in enumerate(chain.segments):
            g.launch(stream=stream)
            if k < len(chain.reads):
                a, whole, want = chain.reads[k]
                if _value(a, whole)[0] != want:
                    return False
        return True

    def _capture(self, ins, arrays):
        xp = self.xp
        if self._stream is None:
            self._stream = xp.cuda.Stream(non_blocking=True)
            # the graphs' memory: a pool of their own, so that nothing else is ever handed
            # memory a replay writes (the plan's static buffers are the plan's)
            self._pool = xp.cuda.MemoryPool()
        chain = _Chain()
        caller = xp.cuda.get_current_stream()
        capturing = [False]

        def begin():
            self._stream.use()
            self._stream.begin_capture()
            capturing[0] = True

        def end():
            capturing[0] = False
            g = self._stream.end_capture()
            caller.use()
            chain.segments.append(g)
            g.launch(stream=caller)

        def read(a, whole):
            end()
            key, value = _value(a, whole)
            chain.reads.append((a, whole, key))
            begin()
            return value

        try:
            with xp.cuda.using_allocator(self._pool.malloc), read_hook(read):
                begin()
                result = self.fn(ins)
                end()
        except Exception as e:  # the first call ran plainly: what failed is the capture
            if capturing[0]:
                try:
                    self._stream.end_capture()
                except Exception:  # the capture was invalidated; ending it says so again
                    pass
            caller.use()
            self.disabled = f"capture failed: {type(e).__name__}: {e}"
            self._chains.clear()
            self.counts["plain"] += 1
            return self.fn(arrays), None
        chain.result = result
        self._chains.insert(0, chain)
        del self._chains[MAX_CHAINS:]
        self.counts["captures"] += 1
        return result, chain


# ---- a plan's forward and backward --------------------------------------------------------------
class _Lease(list):
    """The saved values of a replayed forward (the graphs' memory) and the chain that made
    them: while one is alive, a forward of the same plan runs plainly (a replay would
    overwrite the values its backward will read)."""

    __slots__ = ("chain", "__weakref__")


class PlanGraphs:
    """A plan's forward, and its backward per way of calling it, run as graphs.

    Args:
        plan: a `gluonlite.executor.plan.Plan` compiled with static alloc for a CuPy module.

    Example::

        # not run: CUDA graphs need a GPU (CuPy)
        import cupy
        from gluonlite.executor.graphs import PlanGraphs
        from gluonlite.executor import compile_plan
        plan = compile_plan(sym.tanh(sym.var('x')), [(2,)], ['float32'], is_train=True,
                            grad_inputs=[True], static_alloc=True, xp=cupy)
        graphs = PlanGraphs(plan)
        args, heads = [cupy.ones(2, 'float32')], [cupy.ones(2, 'float32')]
        outs, saved = graphs.forward(args)
        grads = graphs.backward(saved, heads)
    """

    def __init__(self, plan):
        self.plan = plan
        self.xp = plan.xp
        self.forward_graphs = GraphedFunction(plan.xp, lambda arrays: plan.forward(arrays),
                                              "forward")
        self.backward_graphs = {}
        self._lease = None

    def forward(self, args):
        """`Plan.forward` (without caller outputs), replayed where it can be.

        Args:
            args: the raw input arrays, aligned with the plan's `input_names`.

        Returns:
            (outputs, saved) as `Plan.forward` (copies of a replayed graph's outputs).

        Example::

            # not run: CUDA graphs need a GPU (CuPy)
            import cupy
            op = mx.executor.CachedOp(sym.tanh(sym.var('x')), static_alloc=True, static_shape=True)
            x = nd.ones((2, 3), ctx=mx.gpu())
            for _ in range(3):
                op(x)   # run plainly, captured, then replayed
            outs, saved = op.graphs[0].forward([x._data])   # replayed
        """
        lease = self._lease() if self._lease is not None else None
        if lease is not None:  # a recorded call's backward is still to come: keep its values
            self.forward_graphs.counts["plain"] += 1
            return self.plan.forward(args)
        (outs, saved), chain = self.forward_graphs(list(args))
        if chain is None:
            return outs, saved
        outs = [o.copy() for o in outs]
        if saved is not None:
            saved = _Lease(saved)
            saved.chain = chain
            self._lease = weakref.ref(saved)
        return outs, saved

    def backward(self, saved, heads, dests=None):
        """`Plan.backward`, replayed where `saved` came from a replayed forward.

        Args:
            saved: the `saved` of a forward of these graphs.
            heads: one raw array (or None) per output: the output gradients.
            dests: default None: per input None or an array the gradient may be written to, as in
                `Plan.backward`.

        Returns:
            A list of input gradients (or None), as `Plan.backward`.

        Example::

            # not run: CUDA graphs need a GPU (CuPy)
            import cupy
            op = mx.executor.CachedOp(sym.tanh(sym.var('x')), static_alloc=True, static_shape=True)
            x = nd.ones((2, 3), ctx=mx.gpu()); x.attach_grad()
            for _ in range(3):
                with autograd.record():
                    y = op(x)
                y.backward()   # the backward is replayed too
        """
        if not isinstance(saved, _Lease):
            return self.plan.backward(saved, heads, dests=dests)
        dests = list(dests) if dests is not None and any(d is not None for d in dests) else None
        n = len(heads)
        key = (id(saved.chain), tuple(h is None for h in heads),
               None if dests is None else tuple(d is None for d in dests))
        entry = self.backward_graphs.get(key)
        if entry is None or entry[0]() is None:
            values, plan = list(saved), self.plan

            def fn(arrays, _values=values, _n=n, _with=dests is not None):
                return plan.backward(_values, arrays[:_n], dests=arrays[_n:] if _with else None)
            entry = (weakref.ref(saved.chain), GraphedFunction(self.xp, fn, "backward"))
            self.backward_graphs = {k: v for k, v in self.backward_graphs.items()
                                    if v[0]() is not None}
            self.backward_graphs[key] = entry
        grads, chain = entry[1](list(heads) + (dests or []))
        if chain is None:
            return grads
        out = []
        for j, g in enumerate(grads):
            d = None if dests is None else dests[j]
            if g is None:
                out.append(None)
            elif d is not None and _signature(g) == _signature(d):
                out.append(d)  # the graph wrote the caller's array (it lies where it did)
            else:
                out.append(g.copy())
        return out

    def status(self):
        """{function: its counts and why it runs plainly, if it does}: how the calls ran.

        Example::

            # not run: CUDA graphs need a GPU (CuPy)
            import cupy
            op = mx.executor.CachedOp(sym.tanh(sym.var('x')), static_alloc=True, static_shape=True)
            x = nd.ones((2, 3), ctx=mx.gpu())
            for _ in range(3):
                op(x)   # run plainly, captured, then replayed
            op.graphs[0].status()['forward']   # counts, disabled=None
        """
        out = {"forward": dict(self.forward_graphs.counts,
                               disabled=self.forward_graphs.disabled)}
        for k, (_, gf) in enumerate(self.backward_graphs.values()):
            out[f"backward{k}"] = dict(gf.counts, disabled=gf.disabled)
        return out
