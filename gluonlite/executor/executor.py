"""`Executor`: a Symbol bound to argument, gradient and auxiliary arrays (``Symbol.bind``)."""
from ..context import current_context
from ..ndarray.ndarray import NDArray, check_grad_req
from ..symbol.symbol import topo_nodes
from .hooks import apply_graph_passes
from .infer import infer_graph
from .plan import compile_plan

__all__ = ["Executor", "simple_bind"]


def _as_dict(what, names, value, allow_missing):
    if value is None:
        return {}
    if isinstance(value, dict):
        # As MXNet, arrays for names the symbol does not have are ignored (one dict can feed
        # several graphs); a needed name that is missing is reported by the caller.
        wanted = set(names)
        return {k: v for k, v in value.items() if k in wanted}
    value = list(value)
    if len(value) != len(names) and not allow_missing:
        raise ValueError(f"bind: {what} has {len(value)} arrays but the symbol has "
                         f"{len(names)} ({names})")
    return dict(zip(names, value))


def grad_reqs(arg_names, grad_req):
    """{argument: grad_req} from one string, a list in `arg_names` order, or a dict (missing
    names get 'null').

    Raises:
        ValueError: a list of the wrong length, an unknown name, or a bad value.
    """
    if isinstance(grad_req, str):
        reqs = {n: grad_req for n in arg_names}
    elif isinstance(grad_req, dict):
        unknown = set(grad_req) - set(arg_names)
        if unknown:
            raise ValueError(f"bind: grad_req has unknown name(s) {sorted(unknown)}; "
                             f"arguments are {arg_names}")
        reqs = {n: grad_req.get(n, "null") for n in arg_names}
    else:
        grad_req = list(grad_req)
        if len(grad_req) != len(arg_names):
            raise ValueError(f"bind: grad_req has {len(grad_req)} entries for "
                             f"{len(arg_names)} arguments ({arg_names})")
        reqs = dict(zip(arg_names, grad_req))
    return {n: check_grad_req(r) for n, r in reqs.items()}


class Executor:
    """Runs a bound Symbol: `forward`, then `backward` for gradients.

    Attributes:
        arg_dict, grad_dict, aux_dict: name -> NDArray.
        arg_arrays, grad_arrays, aux_arrays: the same in `list_arguments` /
            `list_auxiliary_states` order (None where there is no gradient array).
        outputs: the output NDArrays: zeros of the inferred shapes after bind, then written
            by each forward.

    Example::

        exe = y.bind(mx.cpu(), {'x': nd.ones((2, 3)), ...}, args_grad={...})
        exe.forward(is_train=True); exe.backward()
    """

    def __init__(self, symbol, ctx, args, args_grad=None, grad_req="write", aux_states=None):
        self._symbol = apply_graph_passes(symbol)
        self._ctx = ctx or current_context()
        arg_names = symbol.list_arguments()
        aux_names = symbol.list_auxiliary_states()
        self.arg_dict = _as_dict("args", arg_names, args, False)
        missing = [n for n in arg_names if n not in self.arg_dict]
        if missing:
            raise ValueError(f"bind: missing argument(s) {missing}; every argument of "
                             f"{arg_names} needs an array")
        self.aux_dict = _as_dict("aux_states", aux_names, aux_states, False)
        missing = [n for n in aux_names if n not in self.aux_dict]
        if missing:
            raise ValueError(f"bind: missing auxiliary state(s) {missing}")
        for k, v in list(self.arg_dict.items()) + list(self.aux_dict.items()):
            if not isinstance(v, NDArray):
                raise TypeError(f"bind: array for {k!r} must be an NDArray, got {type(v).__name__}")
        self.grad_dict = _as_dict("args_grad", arg_names, args_grad, True)
        for what, arrays in (("array", self.arg_dict), ("array", self.aux_dict),
                             ("gradient array", self.grad_dict)):
            for k, v in arrays.items():
                _check_device(what, k, v, self._ctx)
        reqs = grad_reqs(arg_names, grad_req)
        self._grad_req = {n: (r if n in self.grad_dict else "null") for n, r in reqs.items()}
        self._arg_names, self._aux_names = arg_names, aux_names
        self._input_names = symbol.list_inputs()
        self._plans = {}
        self._shared = {}  # what the plans' loop nodes share (see compile_plan)
        self._saved = None
        self.outputs = self._blank_outputs()

    def _blank_outputs(self):
        """Zero arrays of the outputs' inferred shapes, as MXNet has them right after bind
        (forward writes into them); [] when some output's shape or dtype is not known."""
        ins = {n.name: n for n in topo_nodes(self._symbol.outputs) if n.op is None}
        arrays = {n: a for d in (self.arg_dict, self.aux_dict) for n, a in d.items()}
        try:
            shapes, dtypes = infer_graph(
                self._symbol, {n: arrays[n].shape for n in ins if n in arrays},
                {n: arrays[n]._data.dtype for n in ins if n in arrays})
        except ValueError:
            return []   # forward reports what does not fit, naming the node
        keys = [(id(n), i) for n, i in self._symbol.outputs]
        if any(shapes.get(k) is None or dtypes.get(k) is None for k in keys):
            return []
        return [NDArray(self._ctx.xp.zeros(shapes[k], dtype=dtypes[k]), self._ctx)
                for k in keys]

    @property
    def arg_arrays(self):
        """Argument arrays in `list_arguments()` order."""
        return [self.arg_dict[n] for n in self._arg_names]

    @property
    def grad_arrays(self):
        """Gradient arrays in `list_arguments()` order (None where there is none)."""
        return [self.grad_dict.get(n) for n in self._arg_names]

    @property
    def aux_arrays(self):
        """Auxiliary-state arrays in `list_auxiliary_states()` order."""
        return [self.aux_dict[n] for n in self._aux_names]

    @property
    def plans(self):
        """The compiled plans (`gluonlite.executor.plan.Plan`) this executor has run so far,
        one per input shapes, dtypes and train mode, in the order they were compiled: for
        inspection (each plan's ``steps``, a loop step's ``spec``), never to be modified.

        Example::

            exe.forward(is_train=True)
            print(exe.plans[0].steps[-1].spec)   # a loop node's LoopSpec
        """
        return tuple(self._plans.values())

    def _inputs(self):
        return [self.arg_dict[n] if n in self.arg_dict else self.aux_dict[n]
                for n in self._input_names]

    def _plan(self, is_train):
        ins = self._inputs()
        want = tuple(is_train and self._grad_req.get(n, "null") != "null"
                     for n in self._input_names)
        key = (tuple(x.shape for x in ins), tuple(x._data.dtype for x in ins), is_train, want)
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plans[key] = compile_plan(
                self._symbol, [x.shape for x in ins], [x._data.dtype for x in ins], is_train,
                list(want), static_alloc=False, xp=self._ctx.xp, shared=self._shared)
        return plan

    def forward(self, is_train=False, **kwargs):
        """Run the graph; keyword arrays are copied into the bound arguments first.

        Returns:
            The list of output NDArrays (also in `outputs`).
        """
        for k, v in kwargs.items():
            if k not in self.arg_dict:
                raise ValueError(f"forward: unknown argument {k!r}; arguments are "
                                 f"{self._arg_names}")
            self.arg_dict[k][:] = v
        plan = self._plan(bool(is_train))
        # Like MXNet, `outputs` stay the same NDArrays from call to call (written in place)
        # as long as their shapes and dtypes do not change.
        prev = self.outputs
        reuse = len(prev) == len(plan.out_shapes) and all(
            o.shape == s and o._data.dtype == d
            for o, s, d in zip(prev, plan.out_shapes, plan.out_dtypes))
        outs, saved = plan.forward([x._data for x in self._inputs()],
                                   [o._data for o in prev] if reuse else None)
        self._saved = (plan, saved) if saved is not None else None
        if not reuse:
            self.outputs = [NDArray(o, self._ctx) for o in outs]
        return self.outputs

    def backward(self, out_grads=None, is_train=True):
        """Gradients into `grad_dict` per grad_req ('write' overwrites, 'add' accumulates).

        Args:
            out_grads: gradients of the outputs (NDArray or list, one per output; extra ones
                are ignored, as in MXNet); default ones.

        Raises:
            ValueError: no training forward ran before, or no argument wants a gradient;
                fewer out_grads than outputs, or one of the wrong shape.
        """
        if self._saved is None:
            raise ValueError("backward: call forward(is_train=True) first (with at least one "
                             "argument whose grad_req is not 'null')")
        plan, saved = self._saved
        if out_grads is None:
            ogs = [self._ctx.xp.ones(s, dtype=d) for s, d in zip(plan.out_shapes, plan.out_dtypes)]
        else:
            if isinstance(out_grads, NDArray):
                out_grads = [out_grads]
            # As MXNet, out_grads past the last output are ignored; too few is an error.
            out_grads = list(out_grads)[:len(plan.out_shapes)]
            if len(out_grads) < len(plan.out_shapes):
                raise ValueError(f"backward: got {len(out_grads)} out_grads for "
                                 f"{len(plan.out_shapes)} outputs "
                                 f"({', '.join(self._symbol.list_outputs())})")
            ogs = []
            for name, g, shp in zip(self._symbol.list_outputs(), out_grads, plan.out_shapes):
                if g is not None:
                    # on the executor's device: host values are uploaded once, explicitly
                    g = (g.as_in_context(self._ctx)._data if isinstance(g, NDArray)
                         else self._ctx.xp.asarray(g))
                    if tuple(g.shape) != tuple(shp):
                        raise ValueError(f"backward: out_grad for {name!r} has shape "
                                         f"{tuple(g.shape)}, the output has {tuple(shp)}")
                ogs.append(g)
        # 'write' buffers are handed down: an operator that can writes its gradient there.
        dests = []
        for name in self._input_names:
            buf = self.grad_dict.get(name) if self._grad_req.get(name) == "write" else None
            dests.append(buf._data if buf is not None and buf._data.flags.c_contiguous
                         else None)
        grads = plan.backward(saved, ogs, dests=dests)
        for name, g in zip(self._input_names, grads):
            req = self._grad_req.get(name, "null")
            if req == "null":
                continue
            buf = self.grad_dict[name]._data
            if req == "add":
                if g is not None:
                    buf += g
            elif g is None:
                buf[...] = 0
            elif g is not buf:
                buf[...] = g

    def __repr__(self):
        return f"<Executor of {self._symbol!r}>"


def _check_device(what, name, array, ctx):
    """Raise when `array` lives on another device than the executor's `ctx` (cpu ids are one
    host memory; a gpu is its own)."""
    if not isinstance(array, NDArray):  # a gradient left out
        return
    here = array.context
    if here != ctx and "gpu" in (here.device_type, ctx.device_type):
        raise ValueError(f"bind: {what} for {name!r} is on {here}, the executor on {ctx}; "
                         f"copy it there with as_in_context({ctx})")


def simple_bind(symbol, ctx, grad_req, type_dict, shapes):
    """Symbol.simple_bind: infer every shape from `shapes`, allocate zeros, and bind."""
    ctx = ctx or current_context()
    names = symbol.list_inputs()
    unknown = sorted(set(shapes) - set(names)) + sorted(set(type_dict or {}) - set(names))
    if unknown:
        raise ValueError(f"simple_bind: unknown input name(s) {unknown}; inputs are {names}")
    eshape, edtype = infer_graph(symbol, shapes, type_dict or {})
    vars_ = {n.name: n for n in topo_nodes(symbol.outputs) if n.op is None}
    unknown = [n for n in vars_ if eshape.get((id(vars_[n]), 0)) is None]
    if unknown:
        raise ValueError(f"simple_bind: cannot infer the shape of {unknown}; pass their shapes "
                         "as keyword arguments")

    def alloc(n):
        key = (id(vars_[n]), 0)
        return NDArray(ctx.xp.zeros(eshape[key], dtype=edtype[key]), ctx)

    args = {n: alloc(n) for n in symbol.list_arguments()}
    aux = {n: alloc(n) for n in symbol.list_auxiliary_states()}
    reqs = grad_reqs(symbol.list_arguments(), grad_req)
    grads = {n: alloc(n) for n in args if reqs[n] != "null"}
    return Executor(symbol, ctx, args, grads, reqs, aux)
