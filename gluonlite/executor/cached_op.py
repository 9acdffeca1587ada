"""`CachedOp`: the runtime behind ``HybridBlock.hybridize``: a Symbol compiled once per input
signature and called like a function on NDArrays, one node on the autograd tape."""
from .. import autograd
from ..ndarray.ndarray import NDArray
from .hooks import apply_graph_passes
from .plan import compile_plan

__all__ = ["CachedOp"]


class CachedOp:
    """Call a Symbol on NDArrays, compiling it once per (shapes, dtypes, train mode, which
    inputs need gradients).

    Args:
        symbol: the graph; inputs are taken in `symbol.list_inputs()` order.
        static_alloc: preallocate every temporary buffer once and reuse it on every call.
        static_shape: also keep the input/output signature fixed: the plan of the first call
            is checked first, without building a signature key.

    Example::

        op = CachedOp(y, static_alloc=True)
        out, = op(x, w, b)
    """

    def __init__(self, symbol, static_alloc=False, static_shape=False):
        self.symbol = apply_graph_passes(symbol)
        self.static_alloc = bool(static_alloc)
        self.static_shape = bool(static_shape)
        self.input_names = self.symbol.list_inputs()
        self._plans = {}
        self._last = None

    def _plan_for(self, args, is_train, want):
        shapes = tuple(a._data.shape for a in args)
        dtypes = tuple(a._data.dtype for a in args)
        if self.static_shape and self._last is not None:
            key, plan = self._last
            if key == (shapes, dtypes, is_train, want):
                return plan
        key = (shapes, dtypes, is_train, want)
        plan = self._plans.get(key)
        if plan is None:
            xp = args[0]._ctx.xp if args else __import__("numpy")
            plan = self._plans[key] = compile_plan(self.symbol, list(shapes), list(dtypes),
                                                   is_train, list(want), self.static_alloc, xp)
        self._last = (key, plan)
        return plan

    def __call__(self, *args):
        """Run on NDArrays aligned with `input_names`; returns a list of NDArrays.

        Raises:
            ValueError: a wrong number of inputs (the names are listed), mixed contexts.
        """
        if len(args) != len(self.input_names):
            raise ValueError(f"CachedOp: expected {len(self.input_names)} inputs "
                             f"({', '.join(self.input_names)}), got {len(args)}")
        ctx = args[0]._ctx if args else None
        for name, a in zip(self.input_names, args):
            if not isinstance(a, NDArray):
                raise TypeError(f"CachedOp: input {name!r} must be an NDArray, got "
                                f"{type(a).__name__}")
            if a._ctx != ctx:
                raise ValueError(f"CachedOp: input {name!r} is on {a._ctx}, others on {ctx}")
        recording = autograd.is_recording()
        want = tuple(recording and a._entry is not None for a in args)
        plan = self._plan_for(args, autograd.is_training(), want)
        outs, saved = plan.forward([a._data for a in args])
        results = [NDArray(o, ctx) for o in outs]
        if saved is not None:
            def vjp(gys, need, _plan=plan, _saved=saved):
                return _plan.backward(_saved, gys)
            autograd.record_node(list(args), vjp, results, "CachedOp")
        return results

    def __repr__(self):
        return f"<CachedOp {self.symbol!r} static_alloc={self.static_alloc}>"
