"""`CachedOp`: the runtime behind ``HybridBlock.hybridize``: a Symbol compiled once per input
signature and called like a function on NDArrays, one node on the autograd tape."""
from .. import autograd_tape
from ..ndarray.ndarray import NDArray
from .graphs import PlanGraphs, can_capture, cuda_graphs_enabled, why_not
from .hooks import apply_graph_passes, apply_inference_passes, apply_training_passes
from .plan import compile_plan
from .storage_run import TapedGraph, call_runs_taped, can_run_taped
from ..symbol.symbol import topo_nodes

__all__ = ["CachedOp", "GraphCall"]


class GraphCall:
    """What a hybridized call leaves on its autograd tape node for `autograd.get_symbol`.

    Attributes:
        subgraph: the Symbol the call ran (its inputs in ``list_inputs()`` order are the tape
            node's inputs, its outputs the node's outputs).
        inline: whether `get_symbol` writes the subgraph's nodes into the history (MXNet's
            inlining of a small graph) or one ``_CachedOp`` node holding the subgraph.

    Example::

        from gluonlite.executor.cached_op import GraphCall
        call = GraphCall(sym.tanh(sym.var('x')), inline=True)
        call.subgraph.list_outputs()   # ['tanh0_output']
    """

    __slots__ = ("subgraph", "inline")

    def __init__(self, subgraph, inline):
        self.subgraph, self.inline = subgraph, inline


class CachedOp:
    """Call a Symbol on NDArrays, compiling it once per (shapes, dtypes, train mode, which
    inputs need gradients).

    Args:
        symbol: the graph; inputs are taken in `symbol.list_inputs()` order.
        static_alloc: preallocate every temporary buffer once and reuse it on every call.
        static_shape: the inputs keep their shapes and dtypes: the last call's plan is
            tried first, before the lookup among the compiled plans (inputs and outputs are
            not bound to fixed buffers). With `static_alloc` too, on a CuPy context, each
            plan is captured into CUDA graphs and replayed (`gluonlite.executor.graphs`;
            ``GLUONLITE_CUDA_GRAPHS=0`` turns it off).
        inline_limit: a graph of at most this many operator nodes, without `static_alloc`,
            shows in `autograd.get_symbol` as its nodes; a larger one as one ``_CachedOp``
            node holding it (MXNet's rule; it changes nothing else here).

    A call given a sparse array, or recorded while some argument's gradient buffer is a large
    row_sparse one, runs the graph node by node on the arrays' storage instead of a plan
    (`gluonlite.executor.storage_run.call_runs_taped`): a csr batch stays csr, and an
    embedding's gradient is the rows it read.

    Example::

        x, w, b = sym.var('x'), sym.var('w'), sym.var('b')
        y = sym.FullyConnected(x, w, b, num_hidden=2)
        op = mx.executor.CachedOp(y, static_alloc=True)
        out, = op(nd.ones((4, 3)), nd.ones((2, 3)), nd.zeros(2))   # (4, 2), all 3
    """

    def __init__(self, symbol, static_alloc=False, static_shape=False, inline_limit=2):
        n_ops = sum(1 for n in topo_nodes(symbol.outputs) if n.op is not None)
        self._history = GraphCall(symbol, not static_alloc and n_ops <= inline_limit)
        self.symbol = apply_graph_passes(symbol)
        self.static_alloc = bool(static_alloc)
        self.static_shape = bool(static_shape)
        self.input_names = self.symbol.list_inputs()
        self._inference_symbol = None  # the graph of inference plans (inference passes)
        self._training_symbol = None  # the graph of plans with gradients (training passes)
        self._plans = {}
        self._graphs = {}  # id(plan): its PlanGraphs, or why it is not captured
        self._shared = {}  # what the plans' loop nodes share (see compile_plan)
        self._last = None
        self._ctx = None
        self._no_grad = (False,) * len(self.input_names)
        self._taped = None  # its TapedGraph once a call runs so; False: the graph cannot
        # whether some operator of the graph can give a gradient as rows (dot, Embedding): only
        # then does a recorded call look for a large row_sparse gradient buffer
        self._rows_grads = any(n.op is not None and n.op.storage is not None and
                               n.op.storage.grad is not None
                               for n in topo_nodes(self.symbol.outputs))

    def _plan_for(self, datas, is_train, want):
        # one plan per context too: a plan holds its array module and static buffers
        key = (tuple([(d.shape, d.dtype) for d in datas]), is_train, want, self._ctx)
        if self.static_shape and self._last is not None and self._last[0] == key:
            return self._last[1]
        plan = self._plans.get(key)
        if plan is None:
            xp = self._xp_of(datas)
            symbol = self.symbol
            if not is_train and not any(want):
                if self._inference_symbol is None:
                    self._inference_symbol = apply_inference_passes(self.symbol)
                symbol = self._inference_symbol
            elif any(want):
                if self._training_symbol is None:
                    self._training_symbol = apply_training_passes(self.symbol)
                symbol = self._training_symbol
            plan = self._plans[key] = compile_plan(
                symbol, [k[0] for k in key[0]], [k[1] for k in key[0]], is_train,
                list(want), self.static_alloc, xp, self._shared)
            self._graphs[id(plan)] = self._capture_decision(plan, xp)
        self._last = (key, plan)
        return plan

    def _capture_decision(self, plan, xp):
        """The plan's `PlanGraphs`, or why it is not captured (decided once, here)."""
        if not (self.static_alloc and self.static_shape):
            return "capture needs static_alloc=True and static_shape=True"
        if not can_capture(xp):
            return "the array module does not capture CUDA graphs (not CuPy)"
        if not cuda_graphs_enabled():
            return "switched off (GLUONLITE_CUDA_GRAPHS=0 or cuda_graphs(False))"
        return why_not(plan) or PlanGraphs(plan)

    @property
    def graphs(self):
        """Per compiled plan (in `plans`' order), its `gluonlite.executor.graphs.PlanGraphs`
        (how its calls ran: ``.status()``) or the reason it is not captured: for inspection.

        Example::

            op = mx.executor.CachedOp(sym.tanh(sym.var('x')), static_alloc=True)
            op(nd.ones((2, 3)))
            op.graphs[0]   # 'capture needs static_alloc=True and static_shape=True'
        """
        return tuple(self._graphs[id(p)] for p in self._plans.values())

    @property
    def plans(self):
        """The compiled plans (`gluonlite.executor.plan.Plan`) this CachedOp has run so far,
        in the order they were compiled: for inspection, never to be modified (see
        `Executor.plans`).

        Example::

            op = mx.executor.CachedOp(sym.tanh(sym.var('x')))
            op(nd.ones((2, 3))); op(nd.ones((4, 3)))
            len(op.plans)   # 2: one per input shape
        """
        return tuple(self._plans.values())

    def _xp_of(self, datas):
        return self._ctx.xp if self._ctx is not None else __import__("numpy")

    def __call__(self, *args):
        """Run on NDArrays aligned with `input_names`; returns a list of NDArrays.

        Raises:
            ValueError: a wrong number of inputs (the names are listed), mixed contexts.
            TypeError: an input that is not an NDArray (named).
        """
        if len(args) != len(self.input_names):
            raise ValueError(f"CachedOp: expected {len(self.input_names)} inputs "
                             f"({', '.join(self.input_names)}), got {len(args)}")
        ctx = args[0]._ctx if args and isinstance(args[0], NDArray) else None
        for name, a in zip(self.input_names, args):
            if not isinstance(a, NDArray):
                raise TypeError(f"CachedOp: input {name!r} must be an NDArray, got "
                                f"{type(a).__name__}")
            if a._ctx is not ctx and a._ctx != ctx:
                raise ValueError(f"CachedOp: input {name!r} is on {a._ctx}, others on {ctx}")
        self._ctx = ctx
        recording = autograd_tape.is_recording()
        if self._taped is not False and call_runs_taped(args, recording and self._rows_grads):
            # sparse storage: each node on its inputs' storage, recorded on the caller's tape
            # (a csr batch stays csr, an embedding's gradient is its rows; see storage_run)
            if self._taped is None:
                self._taped = (TapedGraph(self.symbol, self.input_names)
                               if can_run_taped(self.symbol) else False)
            if self._taped is not False:
                return self._taped.evaluate(list(args))
        datas = [a._data for a in args]
        if recording:
            want = tuple([a._entry is not None for a in args])
        else:
            want = self._no_grad
        plan = self._plan_for(datas, autograd_tape.is_training(), want)
        graphs = self._graphs[id(plan)]
        if graphs.__class__ is PlanGraphs:
            plan = graphs  # its forward and backward, replayed where they can be
        outs, saved = plan.forward(datas)
        results = [NDArray(o, ctx) for o in outs]
        if saved is not None:
            def vjp(gys, need, dests=None, _plan=plan, _saved=saved):
                return _plan.backward(_saved, gys, dests=dests)
            autograd_tape.record_node(list(args), vjp, results, "CachedOp", dests_ok=True,
                                      call=self._history)
        elif autograd_tape.is_recording() and any(a._entry is not None for a in args):
            # outputs of no differentiable path (comparisons) stay in the graph with a zero
            # gradient, so backward() from them works, as for an operator call
            autograd_tape.record_node(list(args), autograd_tape.NoGradient(len(args)), results,
                                      "CachedOp", call=self._history)
        return results

    def __repr__(self):
        return f"<CachedOp {self.symbol!r} static_alloc={self.static_alloc}>"
