"""Running a bound graph on sparse storage, as MXNet's graph executor does: node by node, each
operator computing on its inputs' storage types.

A compiled plan computes on dense values. For a graph over sparse data that is the wrong
trade: a CSR batch of a million features becomes a dense array of batch x 10^6 values, and
the gradient of ``dot(csr, w)`` to the weight a dense array of the weight's size, where MXNet
touches only the features the batch holds. So an executor bound with a sparse argument (or
a large sparse gradient buffer: `runs_taped`) runs its graph here instead: each node through
the imperative call (`gluonlite.ndarray.invoke.run_plan`, whose one storage dispatcher picks
the operator's sparse kernel, or its dense one as MXNet's storage fallback does), recorded
by autograd when the executor computes gradients; its backward walks that tape, whose sparse
gradient rules give ``dot(csr, w)``'s and ``Embedding``'s weights their rows
(`RowSparseRows`). A hybridized block's call does the same on the caller's own tape when it
is given a sparse array or trains a large row_sparse gradient (`call_runs_taped`).

The graph's nodes run as the compiled plan would run them: the same operators, attributes
and modes; auxiliary states (BatchNorm's moving statistics) are updated in place.

Example::

    from gluonlite.executor.storage_run import TapedGraph
    x, w = sym.var('x', stype='csr'), sym.var('w')
    graph = TapedGraph(sym.dot(x, w), ['x', 'w'])
    csr = nd.array([[0, 2], [0, 0]]).tostype('csr')
    outs, leaves = graph.forward([csr, nd.ones((2, 3))], [False, True], is_train=True)
    grads = graph.backward(outs, leaves, None)
    grads['w'].indices        # array([1]): the one feature the batch holds
"""
from math import prod
from operator import attrgetter

from .. import autograd
from ..autograd_tape import Leaf, raw_head_grad, run_backward
from ..ndarray.invoke import CallPlan, run_plan
from ..ops.registry import Params
from ..symbol.symbol import topo_nodes
from .infer import infer_graph

__all__ = ["TapedGraph", "runs_taped", "can_run_taped", "call_runs_taped",
           "TAPED_GRADIENT_ELEMENTS"]


# A sparse gradient buffer alone (the arguments dense) makes the graph run taped from this
# many elements of the buffer's dense shape: below it, the compiled plan's dense gradient
# (zeroed, filled, then cut to its rows) costs less than running every node as an imperative
# call. Measured on an unrolled 35-step LSTM language model: a 1000 x 32 embedding ran 2.5x
# slower taped, a 10000 x 200 one even, MXNet's matrix factorization example (71569 x 128)
# 2x faster.
TAPED_GRADIENT_ELEMENTS = 2 ** 21


def runs_taped(symbol, ctx, inputs, grads=()):
    """Whether an executor of `symbol` on `ctx` runs its graph node by node on sparse
    storage: on a cpu, when some bound input (argument or auxiliary state) is sparse, or a
    sparse gradient buffer is large (`TAPED_GRADIENT_ELEMENTS`), and every value the graph
    reads is one an imperative call returns (no hidden output of a node is read).

    Args:
        symbol: the executor's graph.
        ctx: the executor's Context.
        inputs: the bound argument and auxiliary-state NDArrays (an iterable).
        grads: the bound gradient buffers (an iterable).

    Returns:
        bool.

    Example::

        from gluonlite.executor.storage_run import runs_taped
        y = sym.dot(sym.var('x', stype='csr'), sym.var('w'))
        runs_taped(y, mx.cpu(), [nd.ones((2, 2)).tostype('csr')])   # True
    """
    if ctx.device_type != "cpu":
        return False
    if not any(a.stype != "default" for a in inputs) and not any(map(_large_rows, grads)):
        return False
    return can_run_taped(symbol)


def can_run_taped(symbol):
    """Whether every value graph `symbol` reads is one an imperative call returns (no node
    reads a hidden output of another), so that `TapedGraph` can run it.

    Example::

        from gluonlite.executor.storage_run import can_run_taped
        can_run_taped(sym.tanh(sym.var('x')))   # True
    """
    nodes = topo_nodes(symbol.outputs)
    entries = [e for n in nodes if n.op is not None for e in n.inputs] + list(symbol.outputs)
    return all(src.op is None or i < src.num_visible() for src, i in entries)


_SPARSE = attrgetter("_sparse")


def _large_rows(grad):
    return grad.stype != "default" and prod(grad.shape) >= TAPED_GRADIENT_ELEMENTS


def call_runs_taped(args, recording):
    """Whether a hybridized call on NDArrays `args` (its inputs and parameters) runs its
    graph node by node rather than through a compiled plan: on a cpu, when some argument
    is sparse (a csr batch), or, while autograd records, when some argument's gradient
    buffer is row_sparse and large (`TAPED_GRADIENT_ELEMENTS`: an embedding with
    ``sparse_grad=True``), whose rows the imperative calls give where a plan's gradient
    is dense.

    Args:
        args: the call's NDArrays.
        recording: whether autograd records the call.

    Returns:
        bool.

    Example::

        from gluonlite.executor.storage_run import call_runs_taped
        call_runs_taped([nd.ones((2, 2)).tostype('csr')], recording=False)   # True
    """
    # every hybridized call asks this: the usual all-dense call costs a few attribute reads
    # per argument
    if not args or any(map(_SPARSE, args)):
        return bool(args) and args[0]._ctx.device_type == "cpu"
    if recording:
        for a in args:
            e = a._entry
            if e is not None:
                g = getattr(e[0], "grad", None)   # a Leaf's buffer; an operator's node has none
                if g is not None and g._sparse and _large_rows(g):
                    return args[0]._ctx.device_type == "cpu"
    return False


class TapedGraph:
    """A graph run node by node through the imperative calls (see the module's docstring).

    Args:
        symbol: the graph (a `Symbol`).
        input_names: the names of its inputs (variables), in the order `forward` takes them.

    Example::

        from gluonlite.executor.storage_run import TapedGraph
        graph = TapedGraph(sym.tanh(sym.var('x')), ['x'])
        outs, _ = graph.forward([nd.zeros((2,))], [False], is_train=False)
        outs[0]   # zeros
    """

    def __init__(self, symbol, input_names):
        self._symbol = symbol
        self._names = list(input_names)
        self._order = topo_nodes(symbol.outputs)
        self._calls = {}   # id(node) -> CallPlan, made at the first forward
        self._shapes = None

    def _call(self, node, by_name):
        plan = self._calls.get(id(node))
        if plan is None:
            params = node.params
            if not node.inputs and 0 in tuple(params.get("shape") or ()):
                # a creation node whose shape leaves a size to inference (Gluon's begin
                # state): the compiled plan gives it the inferred shape, and so does this
                if self._shapes is None:
                    self._shapes, _ = infer_graph(
                        self._symbol, {k: v.shape for k, v in by_name.items()}, what="shape")
                params = Params(params, shape=self._shapes[(id(node), 0)])
            plan = self._calls[id(node)] = CallPlan(node.op, params)
        return plan

    def forward(self, inputs, wanted, is_train):
        """Evaluate the graph on `inputs`.

        Args:
            inputs: NDArrays (any storage) aligned with the input names.
            wanted: per input, whether its gradient is wanted; when any is, the evaluation
                is recorded for `backward`.
            is_train: the operators' mode (Dropout active, BatchNorm's batch statistics).

        Returns:
            ``(outputs, leaves)``: the output NDArrays, in the storage the operators give,
            and {input name: its tape entry} for the inputs whose gradient is wanted.

        Example::

            from gluonlite.executor.storage_run import TapedGraph
            graph = TapedGraph(sym.var('x') * 2, ['x'])
            outs, leaves = graph.forward([nd.ones((2,))], [True], is_train=True)
            sorted(leaves)   # ['x']
        """
        leaves = {}
        # Each wanted input gets a tape entry of its own for this evaluation only; the bound
        # array keeps whatever autograd entry it had (the user's arrays are not marked).
        restore = []
        for name, x, want in zip(self._names, inputs, wanted):
            if want:
                restore.append((x, x._entry))
                leaves[name] = Leaf(None, "write")
                x._entry = (leaves[name], 0)
        mode = (autograd.record(train_mode=is_train) if leaves
                else autograd.pause(train_mode=is_train))
        try:
            with mode:
                outs = self.evaluate(inputs)
        finally:
            for x, entry in restore:
                x._entry = entry
        return outs, leaves

    def evaluate(self, inputs):
        """The graph's outputs on `inputs` (NDArrays aligned with the input names), each node
        an imperative call in the caller's autograd state: recorded on the caller's tape
        when it records, to the inputs' own tape entries (a hybridized block run so).

        Example::

            from gluonlite.executor.storage_run import TapedGraph
            graph = TapedGraph(sym.var('x') * 2, ['x'])
            x = nd.ones((2,)); x.attach_grad()
            with mx.autograd.record():
                y, = graph.evaluate([x])
            y.backward()
            x.grad   # [2. 2.]
        """
        by_name = dict(zip(self._names, inputs))
        values = {}
        for node in self._order:
            if node.op is None:
                values[(id(node), 0)] = by_name[node.name]
                continue
            ins = [values[(id(src), i)] for src, i in node.inputs]
            outs = run_plan(self._call(node, by_name), ins)
            for i, y in enumerate(outs):
                values[(id(node), i)] = y
        # an output that is an input is a copy of it, as the compiled plan gives it (writing
        # into the output must not change the input)
        return [values[(id(node), i)] if node.op is not None else values[(id(node), i)].copy()
                for node, i in self._symbol.outputs]

    def backward(self, outputs, leaves, out_grads):
        """The gradients of a recorded `forward`.

        Args:
            outputs: the outputs `forward` returned.
            leaves: the leaves it returned.
            out_grads: one raw array per output (None: that output passes no gradient),
                or None: ones for every output, as the compiled plan takes them. An output
                layer (SoftmaxOutput, MakeLoss) ignores its own.

        Returns:
            {input name: raw gradient}: a dense array, a `RowSparseRows` (the rows a sparse
            rule gives), or None where no gradient reached the input. The tape is kept, so
            a second backward of the same forward gives the same gradients.

        Example::

            from gluonlite.executor.storage_run import TapedGraph
            graph = TapedGraph(sym.var('x') * 2, ['x'])
            outs, leaves = graph.forward([nd.ones((2,))], [True], is_train=True)
            graph.backward(outs, leaves, None)['x']   # array([2., 2.], dtype=float32)
        """
        ones = out_grads is None
        heads, direct = [], {}
        for k, ((node, _), o) in enumerate(zip(self._symbol.outputs, outputs)):
            g = None if ones else out_grads[k]
            if not ones and g is None:
                # no gradient from this output; an output layer's node still runs (its
                # gradient ignores the head), so it is a head of zeros
                g = o._ctx.xp.zeros(o.shape, dtype=o.dtype) if node.op is not None else None
                if g is None:
                    continue
            if node.op is None:
                # an output that is an input itself passes its head gradient straight to it
                if node.name in leaves:
                    hg = raw_head_grad(o, g)
                    direct[node.name] = hg if node.name not in direct else \
                        direct[node.name] + hg
            elif o._entry is not None:   # else no wanted input reaches it (a constant)
                heads.append((o, g))
        totals = run_backward([o for o, _ in heads], [g for _, g in heads], True) \
            if heads else {}
        grads = {}
        for name, leaf in leaves.items():
            g = totals.get(id(leaf), (None, None))[1]
            extra = direct.get(name)
            grads[name] = extra if g is None else g if extra is None else g + extra
        return grads
