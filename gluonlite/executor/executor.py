"""`Executor`: a Symbol bound to argument, gradient and auxiliary arrays (``Symbol.bind``)."""
import os
from math import prod

import numpy as np

from ..context import current_context
from ..ndarray.ndarray import NDArray, check_grad_req
from ..ndarray.sparse import zeros as sparse_zeros
from ..ndarray.sparse_grad import store_gradient
from ..ops.sparse.grads import RowSparseRows
from ..ops.random import set_state as set_rng_state, state as rng_state
from ..symbol.storage import (declared_storage_types, gradient_storage_types,
                              infer_storage_types)
from ..symbol.symbol import topo_nodes
from .cse import cse_enabled, eliminate_common_expr
from .hooks import apply_bind_passes, apply_graph_passes, apply_inference_passes
from .infer import infer_graph
from .plan import compile_plan
from .node_values import report_grads, report_ops
from .storage_run import TapedGraph, runs_taped

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

    Args:
        arg_names: the symbol's argument names, in order.
        grad_req: 'write', 'add' or 'null' for all; a list of them in `arg_names` order; or a dict
            {name: req}.

    Returns:
        A dict {argument name: 'write' | 'add' | 'null'}.

    Raises:
        ValueError: a list of the wrong length, or a bad value.

    Example::

        from gluonlite.executor.executor import grad_reqs
        grad_reqs(['x', 'w'], {'x': 'add'})   # {'x': 'add', 'w': 'null'}
    """
    if isinstance(grad_req, str):
        reqs = {n: grad_req for n in arg_names}
    elif isinstance(grad_req, dict):
        # names that are not arguments are ignored, as MXNet ignores them (code written for
        # several symbols passes one dict to each)
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

    An executor that computes no gradient runs its inference forwards through the
    inference passes (`gluonlite.subgraph.fuse`: BatchNorm folded into the convolution
    before it, activations in the product's output pass), as MXNet's CPU builds partition
    such a graph with their MKLDNN backend; ``MXNET_SUBGRAPH_BACKEND`` (``NONE`` included)
    or ``GLUONLITE_INFERENCE_FUSION=0`` leaves the graph as bound.

    Args:
        symbol: the `Symbol` to run; graph passes (and common subexpression elimination when
            enabled) are applied to it first.
        ctx: the `Context` the executor runs on; None: the current context.
        args: the argument arrays: a list of NDArrays in `list_arguments()` order, or a dict {name:
            NDArray} (names the symbol lacks are ignored). Every argument needs one.
        args_grad: default None: no gradients. The gradient arrays, as a list in `list_arguments()`
            order or a dict; a None entry or a missing name means no gradient for that argument.
        grad_req: default 'write': how gradients are stored, 'write', 'add' or 'null'; one string
            for all, a list in argument order, or a dict (missing names get 'null'). An argument
            without a gradient array gets 'null'.
        aux_states: default None: the auxiliary state arrays (a list in `list_auxiliary_states()`
            order, or a dict); every auxiliary state needs one.

    Raises:
        ValueError: an argument or auxiliary state has no array, a list has the wrong length, an
            array is on another device (a gpu) than `ctx`, or `grad_req` is bad.
        TypeError: an argument or auxiliary array is not an NDArray.

    Example::

        x, w = sym.var('x'), sym.var('w'); y = sym.sum(x * w)
        exe = y.bind(mx.cpu(), {'x': nd.ones((2, 3)), 'w': nd.ones((2, 3))},
                     args_grad={'w': nd.zeros((2, 3))})
        exe.forward(is_train=True); exe.backward()   # grad_dict['w']: x, all ones
    """

    def __init__(self, symbol, ctx, args, args_grad=None, grad_req="write", aux_states=None):
        self._symbol = apply_graph_passes(symbol)
        if cse_enabled():
            self._symbol = eliminate_common_expr(self._symbol)
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
        # A None in a list (or dict) of gradient arrays means "no gradient for this one".
        self.grad_dict = {k: v for k, v in _as_dict("args_grad", arg_names, args_grad,
                                                    True).items() if v is not None}
        for what, arrays in (("array", self.arg_dict), ("array", self.aux_dict),
                             ("gradient array", self.grad_dict)):
            for k, v in arrays.items():
                _check_device(what, k, v, self._ctx)
        reqs = grad_reqs(arg_names, grad_req)
        self._grad_req = {n: (r if n in self.grad_dict else "null") for n, r in reqs.items()}
        need_grad = any(r != "null" for r in self._grad_req.values())
        self._symbol = apply_bind_passes(self._symbol, need_grad=need_grad)
        # MXNet's CPU builds partition a graph bound without gradients with their MKLDNN
        # backend unless MXNET_SUBGRAPH_BACKEND names another (or NONE); here such an
        # executor's inference plans run the inference passes, as a hybridized block's do.
        # The graph itself stays as bound, so a monitor still reports every node.
        self._fuse_inference = not need_grad and "MXNET_SUBGRAPH_BACKEND" not in os.environ
        self._inference_symbol = None
        self._arg_names, self._aux_names = arg_names, aux_names
        self._input_names = symbol.list_inputs()
        self._plans = {}
        self._shared = {}  # what the plans' loop nodes share (see compile_plan)
        self._saved = None
        self._inference_ran = self._forward_ran = False
        # a graph that draws random numbers remembers the generator's state before an
        # inference forward, so that a backward after it replays the same draws
        self._draws = any(n.op is not None and n.op.random
                          for n in topo_nodes(symbol.outputs))
        self._rng_before = None
        self._monitor = None
        self.outputs = self._blank_outputs()
        # the outputs' storage types, as MXNet infers them from the bound arrays' (None: all
        # dense); the graph computes dense values, given to the user in that storage
        self._out_stypes = _sparse_output_stypes(symbol, self.arg_dict, self.aux_dict)
        self._dense_outputs = self.outputs
        # bound with sparse arrays, the graph runs node by node on their storage, as MXNet's
        # executor dispatches each node (see storage_run); else through compiled plans
        bound = [*self.arg_dict.values(), *self.aux_dict.values()]
        self._taped = (TapedGraph(self._symbol, self._input_names)
                       if runs_taped(self._symbol, self._ctx, bound, self.grad_dict.values())
                       else None)
        self._tape = None  # the last taped forward: (outputs, leaves)
        self._wanted = [self._grad_req.get(n, "null") != "null" for n in self._input_names]

    def _blank_outputs(self):
        """Zero arrays of the outputs' inferred shapes, as MXNet has them right after bind
        (forward writes into them); [] when some output's shape or dtype is not known."""
        ins = {n.name: n for n in topo_nodes(self._symbol.outputs) if n.op is None}
        arrays = {n: a for d in (self.arg_dict, self.aux_dict) for n, a in d.items()}
        try:
            shapes, dtypes = infer_graph(
                self._symbol, {n: arrays[n].shape for n in ins if n in arrays},
                {n: _dtype(arrays[n]) for n in ins if n in arrays})
        except ValueError:
            return []   # forward reports what does not fit, naming the node
        keys = [(id(n), i) for n, i in self._symbol.outputs]
        if any(shapes.get(k) is None or dtypes.get(k) is None for k in keys):
            return []
        return [NDArray(self._ctx.xp.zeros(shapes[k], dtype=dtypes[k]), self._ctx)
                for k in keys]

    @property
    def output_dict(self):
        """{output name (`list_outputs`): output array}.

        Raises:
            ValueError: two outputs share a name.

        Example::

            x = sym.var('x'); y = sym.tanh(x) * 2
            exe = y.bind(mx.cpu(), {'x': nd.ones((2, 3))}, args_grad={'x': nd.zeros((2, 3))})
            exe.output_dict   # {'_mulscalar0_output': zeros (2, 3) until forward}
        """
        names = self._symbol.list_outputs()
        if len(set(names)) != len(names):
            raise ValueError(f"output_dict: duplicate output names {names}")
        return dict(zip(names, self.outputs))

    @property
    def arg_arrays(self):
        """Argument arrays in `list_arguments()` order.

        Example::

            x = sym.var('x'); y = sym.tanh(x) * 2
            exe = y.bind(mx.cpu(), {'x': nd.ones((2, 3))}, args_grad={'x': nd.zeros((2, 3))})
            exe.arg_arrays[0].shape   # (2, 3): x
        """
        return [self.arg_dict[n] for n in self._arg_names]

    @property
    def grad_arrays(self):
        """Gradient arrays in `list_arguments()` order (None where there is none).

        Example::

            x = sym.var('x'); y = sym.tanh(x) * 2
            exe = y.bind(mx.cpu(), {'x': nd.ones((2, 3))}, args_grad={'x': nd.zeros((2, 3))})
            exe.grad_arrays[0].shape   # (2, 3): x's gradient
        """
        return [self.grad_dict.get(n) for n in self._arg_names]

    @property
    def aux_arrays(self):
        """Auxiliary-state arrays in `list_auxiliary_states()` order.

        Example::

            x = sym.var('x'); y = sym.tanh(x) * 2
            exe = y.bind(mx.cpu(), {'x': nd.ones((2, 3))}, args_grad={'x': nd.zeros((2, 3))})
            exe.aux_arrays   # []: tanh has no auxiliary states
        """
        return [self.aux_dict[n] for n in self._aux_names]

    @property
    def plans(self):
        """The compiled plans (`gluonlite.executor.plan.Plan`) this executor has run so far,
        one per input shapes, dtypes and train mode, in the order they were compiled: for
        inspection (each plan's ``steps``, a loop step's ``spec``), never to be modified.

        Example::

            exe = sym.tanh(sym.var('x')).simple_bind(mx.cpu(), x=(2, 3))
            exe.forward(is_train=True)
            print(exe.plans[0].steps[-1].spec)   # None here; a loop node's LoopSpec
        """
        return tuple(self._plans.values())

    def _inputs(self):
        return [self.arg_dict[n] if n in self.arg_dict else self.aux_dict[n]
                for n in self._input_names]

    def _plan(self, is_train, grads=None):
        ins = self._inputs()
        grads = is_train if grads is None else grads
        want = tuple(grads and self._grad_req.get(n, "null") != "null"
                     for n in self._input_names)
        key = (tuple(x.shape for x in ins), tuple(map(_dtype, ins)), is_train, want)
        plan = self._plans.get(key)
        if plan is None:
            symbol = self._symbol
            if self._fuse_inference and not is_train:
                if self._inference_symbol is None:
                    self._inference_symbol = apply_inference_passes(self._symbol)
                symbol = self._inference_symbol
            plan = self._plans[key] = compile_plan(
                symbol, [x.shape for x in ins], list(map(_dtype, ins)), is_train,
                list(want), static_alloc=False, xp=self._ctx.xp, shared=self._shared)
        return plan

    def forward(self, is_train=False, **kwargs):
        """Run the graph; keyword arrays are copied into the bound arguments first.

        Args:
            is_train: default False: run in training mode (Dropout active, BatchNorm batch
                statistics) and keep what `backward` needs.
            kwargs: {argument name: array}: values copied into the bound arguments first.

        Returns:
            The list of output NDArrays (also in `outputs`).

        Raises:
            ValueError: a keyword names no argument of the symbol.

        Example::

            x = sym.var('x'); y = sym.tanh(x) * 2
            exe = y.bind(mx.cpu(), {'x': nd.ones((2, 3))}, args_grad={'x': nd.zeros((2, 3))})
            outs = exe.forward(is_train=False, x=nd.zeros((2, 3)))
            outs[0]   # zeros: 2 * tanh(0)
        """
        for k, v in kwargs.items():
            if k not in self.arg_dict:
                raise ValueError(f"forward: unknown argument {k!r}; arguments are "
                                 f"{self._arg_names}")
            self.arg_dict[k][:] = v
        if self._taped is not None:
            return self._forward_taped(bool(is_train))
        plan = self._plan(bool(is_train))
        self._rng_before = (rng_state() if self._draws and not is_train else None)
        # Like MXNet, `outputs` stay the same NDArrays from call to call (written in place)
        # as long as their shapes and dtypes do not change.
        sparse = self._out_stypes is not None
        prev = self._dense_outputs if sparse else self.outputs
        reuse = len(prev) == len(plan.out_shapes) and all(
            o.shape == s and o._data.dtype == d
            for o, s, d in zip(prev, plan.out_shapes, plan.out_dtypes))
        ins = self._inputs()
        raw = [x._data if x.__class__ is NDArray else _dense_input(x) for x in ins]
        outs, saved = plan.forward(raw, [o._data for o in prev] if reuse else None)
        for name, x, d in zip(self._input_names, ins, raw):
            if x.__class__ is not NDArray and name in self.aux_dict and x.stype != "default":
                x._assign_dense(d)  # a sparse auxiliary state keeps its storage type
        self._saved = (plan, saved) if saved is not None else None
        self._inference_ran = not is_train
        self._forward_ran = True
        if not reuse:
            prev = [NDArray(o, self._ctx) for o in outs]
            if not sparse:
                self.outputs = prev
        if sparse:
            # a sparse output is made anew from the dense one: its stored rows change per call
            self._dense_outputs = prev
            self.outputs = [o if st == "default" else o.tostype(st)
                            for o, st in zip(prev, self._out_stypes)]
        if self._monitor is not None:
            self._run_monitor(bool(is_train))
        return self.outputs

    def _forward_taped(self, is_train):
        outs, leaves = self._taped.forward(self._inputs(), self._wanted, is_train)
        self._tape = (outs, leaves)
        self._forward_ran = True
        # as the compiled path, dense outputs stay the same NDArrays while their shapes and
        # dtypes do (written in place); a sparse one is new each call (its rows change)
        prev = self.outputs
        reuse = len(prev) == len(outs)
        kept = []
        for i, o in enumerate(outs):
            st = "default" if self._out_stypes is None else self._out_stypes[i]
            if o.stype != st:
                o = o.tostype(st)
            if st == "default" and reuse and prev[i].__class__ is NDArray and \
                    prev[i].shape == o.shape and prev[i]._data.dtype == o._data.dtype:
                prev[i]._data[...] = o._data
                o = prev[i]
            kept.append(o)
        self.outputs = kept
        if self._monitor is not None:
            self._run_monitor(is_train)
        return self.outputs

    def _backward_taped(self, out_grads, is_train):
        if self._tape is None:
            # MXNet runs backward with no forward before it too, on the bound values
            self._forward_taped(False)
        outs, leaves = self._tape
        ogs = None if out_grads is None else self._raw_out_grads(
            out_grads, [o.shape for o in outs], [o.dtype for o in outs])
        if self._monitor is not None:
            self._run_monitor_backward(
                ogs or [self._ctx.xp.ones(o.shape, dtype=o.dtype) for o in outs], is_train)
        for name, g in self._taped.backward(outs, leaves, ogs).items():
            _write_gradient(self.grad_dict[name], g, self._grad_req[name])

    def _raw_out_grads(self, out_grads, shapes, dtypes):
        """`out_grads` (an NDArray or a list, one per output; None entries kept) as raw arrays
        on the executor's device, each checked against its output's shape and cast to its
        dtype. As MXNet, out_grads past the last output are ignored; too few is an error."""
        if isinstance(out_grads, NDArray):
            out_grads = [out_grads]
        out_grads = list(out_grads)[:len(shapes)]
        if len(out_grads) < len(shapes):
            raise ValueError(f"backward: got {len(out_grads)} out_grads for {len(shapes)} "
                             f"outputs ({', '.join(self._symbol.list_outputs())})")
        ogs = []
        for name, g, shp, dtype in zip(self._symbol.list_outputs(), out_grads, shapes, dtypes):
            if g is not None:
                # on the executor's device: host values are uploaded once, explicitly
                g = (g.as_in_context(self._ctx)._data if isinstance(g, NDArray)
                     else self._ctx.xp.asarray(g))
                if tuple(g.shape) != tuple(shp) and g.size == 0 and _size(shp) == 0:
                    g = g.reshape(tuple(shp))  # both empty: MXNet copies nothing
                if tuple(g.shape) != tuple(shp):
                    raise ValueError(f"backward: out_grad for {name!r} has shape "
                                     f"{tuple(g.shape)}, the output has {tuple(shp)}")
                if g.dtype != dtype:
                    # as MXNet copies it into a head-gradient buffer of the output's dtype:
                    # 0.7 reaching an int32 output is 0
                    g = g.astype(dtype)
            ogs.append(g)
        return ogs

    def _save_inference(self):
        """MXNet runs backward after forward(is_train=False) too, on the inference values: run
        that forward again, keeping what the gradient needs (inference mode changes no state,
        so the values are the same)."""
        plan = self._plan(False, grads=True)
        ins = self._inputs()
        raw = [x._data if x.__class__ is NDArray else _dense_input(x) for x in ins]
        if self._rng_before is None:
            _, saved = plan.forward(raw, None)
        else:
            # the draws of that forward again (Dropout mode='always' drops the same units)
            now = rng_state()
            set_rng_state(self._rng_before)
            try:
                _, saved = plan.forward(raw, None)
            finally:
                set_rng_state(now)
        self._saved = (plan, saved) if saved is not None else None

    def backward(self, out_grads=None, is_train=True):
        """Gradients into `grad_dict` per grad_req ('write' overwrites, 'add' accumulates).

        Args:
            out_grads: gradients of the outputs (NDArray or list, one per output; extra ones
                are ignored, as in MXNet); default ones.
            is_train: default True: accepted as in MXNet; the gradients follow the mode of the last
                forward. It is only handed to an installed monitor's callback pass.

        Raises:
            ValueError: fewer out_grads than outputs, or one of the wrong shape.

        Example::

            x = sym.var('x'); y = sym.tanh(x) * 2
            exe = y.bind(mx.cpu(), {'x': nd.ones((2, 3))}, args_grad={'x': nd.zeros((2, 3))})
            exe.forward(is_train=True); exe.backward(nd.ones((2, 3)))
            exe.grad_dict['x']   # 2 * (1 - tanh(1)**2): about 0.84
        """
        if self._taped is not None:
            return self._backward_taped(out_grads, is_train)
        if self._saved is None and (self._inference_ran or not self._forward_ran):
            # MXNet also runs backward with no forward before it, on the bound values
            # (gradients that do not read the forward, as repeat's or tile's, come out right):
            # here those values come from an inference-mode forward, which changes no state
            self._save_inference()
        if self._saved is None:
            # no gradient reaches any argument (stop_gradient, or every grad_req 'null'):
            # as in MXNet, 'write' gradients are zeros and 'add' ones keep their values
            for name, req in self._grad_req.items():
                if req == "write":
                    store_gradient(self.grad_dict[name], None, req)
            return
        plan, saved = self._saved
        # (an output whose shape depends on values has the shape its forward gave it)
        shapes = [o.shape if s is None else s for o, s in zip(self.outputs, plan.out_shapes)]
        if out_grads is None:
            ogs = [self._ctx.xp.ones(s, dtype=d) for s, d in zip(shapes, plan.out_dtypes)]
        else:
            ogs = self._raw_out_grads(out_grads, shapes, [o.dtype for o in self.outputs])
        # 'write' buffers are handed down: an operator that can writes its gradient there.
        dests = []
        for name in self._input_names:
            buf = self.grad_dict.get(name) if self._grad_req.get(name) == "write" else None
            dests.append(buf._data if buf is not None and buf.__class__ is NDArray and
                         buf._data.flags.c_contiguous else None)
        if self._monitor is not None:
            # before the plan's backward, which may write into the gradient buffers
            self._run_monitor_backward(ogs, is_train)
        grads = plan.backward(saved, ogs, dests=dests)
        for name, g in zip(self._input_names, grads):
            req = self._grad_req.get(name, "null")
            if req != "null":
                _write_gradient(self.grad_dict[name], g, req)

    def copy_params_from(self, arg_params, aux_params=None, allow_extra_params=False):
        """Copy values into the bound argument and auxiliary arrays (same shapes; values are
        cast to the bound arrays' dtypes).

        Args:
            arg_params: {name: NDArray or numpy array} for arguments.
            aux_params: {name: array} for auxiliary states, or None.
            allow_extra_params: ignore names the executor does not have instead of raising.

        Raises:
            ValueError: a name that is neither an argument nor an auxiliary state (unless
                `allow_extra_params`), or a value of another shape.

        Example::

            x = sym.var('x'); y = sym.tanh(x) * 2
            exe = y.bind(mx.cpu(), {'x': nd.ones((2, 3))}, args_grad={'x': nd.zeros((2, 3))})
            exe.copy_params_from({'x': nd.zeros((2, 3))})
            exe.forward()[0]   # zeros
        """
        for what, params, targets in (("argument", arg_params, self.arg_dict),
                                      ("auxiliary state", aux_params or {}, self.aux_dict)):
            for name, value in params.items():
                if name not in targets:
                    if allow_extra_params:
                        continue
                    raise ValueError(f"copy_params_from: {name!r} is not an {what} of the "
                                     f"executor; {what}s are {sorted(targets)} (pass "
                                     "allow_extra_params=True to skip unknown names)")
                dst = targets[name]
                if tuple(value.shape) != dst.shape:
                    raise ValueError(f"copy_params_from: {what} {name!r} has shape "
                                     f"{dst.shape}, the value given has {tuple(value.shape)}")
                if isinstance(value, NDArray):
                    value.astype(dst.dtype).copyto(dst)
                else:
                    dst[:] = value

    def reshape(self, partial_shaping=False, allow_up_sizing=False, **kwargs):
        """A new executor for new input shapes, sharing the arrays whose shapes stay.

        Args:
            partial_shaping: allow arguments not named in `kwargs` to change shape (else
                that is an error, as their values would be lost).
            allow_up_sizing: allow an array to grow (else an error: MXNet reuses the old
                memory, so it asks you to bind the bigger executor first).
            **kwargs: {input name: new shape}.

        Returns:
            A new Executor. Arrays that keep their shape are the same NDArrays; an array
            (argument, gradient, auxiliary state or output) that shrinks is a view of the old
            one's first elements, sharing its memory as MXNet's reshaped executor does; one
            that grows is new, the old values first and zeros after.

        Raises:
            ValueError: an unknown name, a shape that does not fit, a growing array without
                `allow_up_sizing`, or an argument changed without `partial_shaping`.

        Example::

            x = sym.var('x'); y = sym.tanh(x) * 2
            exe = y.bind(mx.cpu(), {'x': nd.ones((2, 3))}, args_grad={'x': nd.zeros((2, 3))})
            exe2 = exe.reshape(x=(4, 3), allow_up_sizing=True)
            exe2.arg_dict['x'].shape   # (4, 3)
        """
        names = set(self._input_names)
        unknown = sorted(set(kwargs) - names)
        if unknown:
            raise ValueError(f"reshape: unknown input name(s) {unknown}; inputs are "
                             f"{self._input_names}")
        arg_shapes, _, aux_shapes = self._symbol.infer_shape(**kwargs)
        if arg_shapes is None:  # what the new shapes leave open keeps its current shape
            kept = {n: a.shape for d in (self.arg_dict, self.aux_dict) for n, a in d.items()
                    if n not in kwargs}
            arg_shapes, _, aux_shapes = self._symbol.infer_shape(**kwargs, **kept)
        if arg_shapes is None:
            raise ValueError(f"reshape: the shapes {kwargs} do not determine every shape of "
                             "the graph; give more of them")

        def rebuilt(kind, name, old, shape):
            if old is None or old.shape == tuple(shape):
                return old
            if name not in kwargs and not partial_shaping:
                raise ValueError(f"reshape: the shape of {kind} {name!r}, not given, would "
                                 f"change from {old.shape} to {tuple(shape)}; pass "
                                 "partial_shaping=True to allow it")
            size = int(np.prod(shape))
            if size > int(np.prod(old.shape)) and not allow_up_sizing:
                raise ValueError(f"reshape: {kind} {name!r} would grow from {old.shape} to "
                                 f"{tuple(shape)}; pass allow_up_sizing=True (or bind the "
                                 "bigger shape first and reshape it smaller)")
            if old.stype != "default":
                # a sparse array keeps its storage (its values are a batch's, not kept)
                return sparse_zeros(old.stype, tuple(shape), ctx=old.context, dtype=old.dtype)
            return _shrunk_view(old, shape, self._ctx)

        args = {n: rebuilt("argument", n, self.arg_dict[n], s)
                for n, s in zip(self._arg_names, arg_shapes)}
        grads = {n: rebuilt("gradient", n, self.grad_dict.get(n), s)
                 for n, s in zip(self._arg_names, arg_shapes)}
        aux = {n: rebuilt("auxiliary state", n, self.aux_dict[n], s)
               for n, s in zip(self._aux_names, aux_shapes)}
        exe = Executor(self._symbol, self._ctx, args,
                       {n: g for n, g in grads.items() if g is not None},
                       dict(self._grad_req), aux)
        # the outputs share memory too: the new executor writes into the old one's outputs
        if len(exe.outputs) == len(self.outputs):
            exe.outputs = [o if o.shape == n.shape else _shrunk_view(o, n.shape, self._ctx)
                           if o._data.dtype == n._data.dtype else n
                           for o, n in zip(self.outputs, exe.outputs)]
        exe._monitor = self._monitor  # as MXNet's reshape installs the callback again
        return exe

    def set_monitor_callback(self, callback, monitor_all=False):
        """Call ``callback(name, array)`` after each forward for the output of every operator
        node, named ``<node>_output`` (``<node>_output<i>`` for several), and with
        `monitor_all` for each operator's inputs too, named ``<node>_<argument>``, a variable
        input also under its own name just before (MXNet's graph executor's names and order;
        `mx.monitor.Monitor` installs itself here).

        The values come from a second evaluation of the graph node by node in the forward's
        mode (auxiliary states copied, so nothing moves twice; a random operator draws
        again), made only while a callback is set. After each backward, the gradient each
        operator passes to each input is reported too, named ``<node>_backward_output``
        (``<node>_backward_output<i>`` for several inputs), from the same evaluation.

        Example::

            x = sym.var('x'); y = sym.tanh(x) * 2
            exe = y.bind(mx.cpu(), {'x': nd.ones((2, 3))}, args_grad={'x': nd.zeros((2, 3))})
            exe.set_monitor_callback(lambda n, a: print(n, a.shape))
            exe.forward()   # prints tanh0_output (2, 3) ...
        """
        self._monitor = (callback, bool(monitor_all))

    def _monitor_inputs(self):
        # auxiliary states as copies: the second evaluation must not move them again
        return [self.aux_dict[n].copy() if n in self.aux_dict else self.arg_dict[n]
                for n in self._input_names]

    def _run_monitor(self, is_train):
        callback, monitor_all = self._monitor
        report_ops(self._symbol, self._input_names, self._monitor_inputs(),
                   lambda name, op_name, array: callback(name, array), monitor_all, is_train,
                   name_variables=True)

    def _run_monitor_backward(self, out_grads, is_train):
        callback, _ = self._monitor
        report_grads(self._symbol, self._input_names, self._monitor_inputs(), out_grads,
                     lambda name, op_name, array: callback(name, array), is_train)

    def get_optimized_symbol(self):
        """The graph this executor runs: the bound Symbol after the graph passes and common
        subexpression elimination (see `gluonlite.executor.cse`).

        Example::

            x = sym.var('x'); y = sym.tanh(x) * 2
            exe = y.bind(mx.cpu(), {'x': nd.ones((2, 3))}, args_grad={'x': nd.zeros((2, 3))})
            exe.get_optimized_symbol().list_outputs()   # ['_mulscalar0_output']
        """
        return self._symbol

    def debug_str(self):
        """The bound graph as text, one node per line (see `Symbol.debug_str`), and a last
        line ``Total N MB allocated``: the memory a training forward and backward needs for
        the graph's values, as MXNet reports it (bound arrays not counted).

        Example::

            x = sym.var('x'); y = sym.tanh(x) * 2
            exe = y.bind(mx.cpu(), {'x': nd.ones((2, 3))}, args_grad={'x': nd.zeros((2, 3))})
            exe.debug_str().splitlines()[-1]   # 'Total 0 MB allocated'
        """
        mb = self.memory_bytes() / 2 ** 20
        return f"{self._symbol.debug_str().rstrip()}\nTotal {int(round(mb))} MB allocated\n"

    def memory_bytes(self):
        """Bytes a training forward and backward keeps for the graph's values (not the bound
        arguments, gradients and auxiliary states): values shared by liveness where no
        gradient needs them, plus the outputs and the values the backward reads. Plans a
        static-memory copy of the training plan to count them.

        Example::

            x = sym.var('x'); y = sym.tanh(x) * 2
            exe = y.bind(mx.cpu(), {'x': nd.ones((2, 3))}, args_grad={'x': nd.zeros((2, 3))})
            exe.memory_bytes()   # 48: a (2, 3) float32 value kept, and the output
        """
        ins = self._inputs()
        want = [self._grad_req.get(n, "null") != "null" for n in self._input_names]
        plan = compile_plan(self._symbol, [x.shape for x in ins], list(map(_dtype, ins)),
                            True, want, static_alloc=True, xp=self._ctx.xp)
        kept = (set(plan.out_slots) | set(plan.saved_slots)) - set(range(plan.n_inputs))
        return sum(int(b.nbytes) for b in plan.buffers) + sum(
            prod(plan.slot_shape[s]) * np.dtype(plan.slot_dtype[s]).itemsize for s in kept
            if s in plan.slot_shape)

    def __repr__(self):
        return f"<Executor of {self._symbol!r}>"


def _sparse_output_stypes(symbol, arg_dict, aux_dict):
    """The storage types of `symbol`'s outputs given the bound arrays' (a list), or None
    where every output is dense or the operators cannot say (a dense graph can make a
    sparse output: cast_storage)."""
    known = {n: a.stype for d in (arg_dict, aux_dict) for n, a in d.items()}
    try:
        _, outs, _ = infer_storage_types(symbol, known)
    except ValueError:
        return None  # computed dense as before; storage inference reports it when asked
    return outs if any(st != "default" for st in outs) else None


def _check_device(what, name, array, ctx):
    """Raise when `array` lives on another device than the executor's `ctx` (cpu ids are one
    host memory; a gpu is its own)."""
    if not isinstance(array, NDArray):  # a gradient left out
        return
    here = array.context
    if here != ctx and "gpu" in (here.device_type, ctx.device_type):
        raise ValueError(f"bind: {what} for {name!r} is on {here}, the executor on {ctx}; "
                         f"copy it there with as_in_context({ctx})")


def _shrunk_view(old, shape, ctx):
    """An array of `shape` over `old`'s memory, as MXNet's reshaped executor reuses it: a view
    of old's first elements when it fits (writes show in both), else zeros that start with
    old's values (a grown array)."""
    size = int(np.prod(shape))
    flat = old._data.reshape(-1)
    if size <= old.size:
        return NDArray(flat[:size].reshape(tuple(shape)), ctx)
    grown = ctx.xp.zeros(size, dtype=old._data.dtype)
    grown[:old.size] = flat
    return NDArray(grown.reshape(tuple(shape)), ctx)


def _group_contexts(vars_, ctx, group2ctx):
    """{input name: context} from the ``ctx_group`` attribute of each input and `group2ctx`
    (MXNet's model-parallel placement). Only cpu contexts can be mixed: numpy arrays of any
    cpu(i) are one memory, while arrays on several accelerators would need copies between
    them inside the graph, which the executor does not make."""
    if not group2ctx:
        return {}
    if not isinstance(group2ctx, dict):
        raise TypeError(f"simple_bind: group2ctx must be a dict {{group name: Context}}, got "
                        f"{type(group2ctx).__name__}")
    placed = {}
    for name, node in vars_.items():
        where = group2ctx.get(node.attrs.get("__ctx_group__"))
        if where is None or where == ctx:
            continue
        if where.device_type != "cpu" or ctx.device_type != "cpu":
            raise NotImplementedError(
                f"simple_bind: group2ctx puts {name!r} on {where} while the executor is on "
                f"{ctx}; gluonlite places groups on cpu contexts only (a graph split across "
                "accelerators would need copies between devices inside it)")
        placed[name] = where
    return placed


def simple_bind(symbol, ctx, grad_req, type_dict, shapes, shared_exec=None,
                shared_buffer=None, shared_arg_names=None, group2ctx=None, stype_dict=None):
    """Symbol.simple_bind: infer every shape from `shapes`, allocate zeros, and bind.

    Arrays of the same name, shape and dtype are taken rather than allocated: from
    `shared_exec` (an Executor) for the arguments named in `shared_arg_names` (their
    gradients too) and for every auxiliary state; from `shared_buffer` (a dict, which
    receives the arrays it lacked) for the other arguments.

    Args:
        symbol: the `Symbol` to bind.
        ctx: the `Context` to allocate on and run on; None: the current context.
        grad_req: 'write', 'add' or 'null' (one string, a list in argument order or a dict);
            arguments whose request is 'null' get no gradient array.
        type_dict: {input name: dtype} for the inputs whose dtype is not the default, or None.
        shapes: {input name: shape}: the known input shapes; the others are inferred.
        shared_exec: default None: an `Executor` whose arrays of matching name, shape and dtype are
            reused.
        shared_buffer: default None: a dict {name: NDArray} reused for the arguments not named in
            `shared_arg_names`; it receives the arrays newly allocated for them.
        shared_arg_names: default None: the argument names taken from `shared_exec` (allocated
            anew without one; never from `shared_buffer`).
        group2ctx: default None: {ctx_group name: Context} placing the inputs whose ``ctx_group``
            attribute names a group (cpu contexts only).
        stype_dict: default None: {input name: storage type} in place of what the variables
            declare; an argument of storage type csr is held as a csr array.

    Returns:
        A new bound `Executor`.

    Raises:
        ValueError: a name in `shapes`, `type_dict` or `stype_dict` is not an input, or some
            input's shape cannot be inferred.
        TypeError: `group2ctx` is not a dict.
        NotImplementedError: `group2ctx` places an input on a non-cpu context, or the executor is
            not on cpu while groups are placed elsewhere.

    Example::

        from gluonlite.executor.executor import simple_bind
        exe = simple_bind(sym.tanh(sym.var('x')), mx.cpu(), 'write', None, {'x': (2, 3)})
        exe.arg_dict['x'].shape   # (2, 3), zeros: as y.simple_bind(mx.cpu(), x=(2, 3))
    """
    ctx = ctx or current_context()
    names = symbol.list_inputs()
    unknown = sorted(set(shapes) - set(names)) + sorted(set(type_dict or {}) - set(names)) \
        + sorted(set(stype_dict or {}) - set(names))
    if unknown:
        raise ValueError(f"simple_bind: unknown input name(s) {unknown}; inputs are {names}")
    eshape, edtype = infer_graph(symbol, shapes, type_dict or {})
    vars_ = {n.name: n for n in topo_nodes(symbol.outputs) if n.op is None}
    unknown = [n for n in vars_ if eshape.get((id(vars_[n]), 0)) is None]
    if unknown:
        raise ValueError(f"simple_bind: cannot infer the shape of {unknown}; pass their shapes "
                         "as keyword arguments")

    placed = _group_contexts(vars_, ctx, group2ctx)

    reqs = grad_reqs(symbol.list_arguments(), grad_req)
    # As MXNet's simple_bind, an input declared csr (a sparse batch) is held as csr, so a
    # batch is copied in as its compressed parts and the graph runs on them; the others are
    # dense, parameters declared row_sparse included (their gradients are rows, below).
    stypes = {**declared_storage_types(symbol), **(stype_dict or {})}
    stypes = {n: st for n, st in stypes.items()
              if st == "csr" and n in reqs and placed.get(n, ctx) == ctx}

    def alloc(n, *pools, st="default"):
        key = (id(vars_[n]), 0)
        where = placed.get(n, ctx)
        for pool in pools:
            have = pool.get(n)
            if have is not None and have.shape == tuple(eshape[key]) and \
                    have.dtype == edtype[key] and have.context == where and have.stype == st:
                return have
        if st != "default":
            return sparse_zeros(st, tuple(eshape[key]), ctx=where, dtype=edtype[key])
        return NDArray(where.xp.zeros(eshape[key], dtype=edtype[key]), where)

    # As MXNet: the arguments named in shared_arg_names (a bucketing Module's parameters) are
    # shared_exec's own arrays (new ones without it); the others are taken from shared_buffer
    # when it holds a fitting array, and a new one is put there when it does not.
    shared_names = set(shared_arg_names or ())
    from_exec = shared_exec is not None
    args = {}
    for n in symbol.list_arguments():
        st = stypes.get(n, "default")
        if n in shared_names:
            # a shared argument (a parameter) comes from shared_exec, never from the buffer
            args[n] = alloc(n, *([shared_exec.arg_dict] if from_exec else []), st=st)
        elif shared_buffer is not None:
            args[n] = shared_buffer[n] = alloc(n, shared_buffer, st=st)
        else:
            args[n] = alloc(n, st=st)
    aux = {n: alloc(n, *([shared_exec.aux_dict] if from_exec else []))
           for n in symbol.list_auxiliary_states()}
    grads = {n: alloc(n, *([shared_exec.grad_dict] if from_exec and n in shared_names else []))
             for n in args if reqs[n] != "null"}
    # a gradient MXNet gives as rows (Embedding(sparse_grad=True)'s weight) gets a row_sparse
    # buffer, as MXNet's simple_bind allocates it
    for n, st in gradient_storage_types(symbol).items():
        if st != "default" and n in grads and grads[n].__class__ is NDArray:
            grads[n] = grads[n].tostype(st)
    exe = Executor(symbol, ctx, args, grads, reqs, aux)
    if placed and len(exe.outputs) == len(symbol.outputs):
        # an output lives where its node's group is placed (forward writes into these arrays)
        homes = _group_contexts({str(i): node for i, (node, _) in enumerate(symbol.outputs)},
                                ctx, group2ctx)
        exe.outputs = [NDArray(o._data, homes[str(i)]) if str(i) in homes else o
                       for i, o in enumerate(exe.outputs)]
    return exe


def _dense_input(x):
    """The raw array an executor step reads for NDArray `x`: a sparse array's dense values in a
    writable array (an operator may update an auxiliary state in place; the executor writes
    it back into the sparse array)."""
    if x.stype == "default" or x.context.device_type != "cpu":
        return x._data
    return x._dense()


def _write_gradient(target, g, req):
    """Gradient `g` (a raw dense array, a `RowSparseRows`, or None: none reached the input)
    into gradient buffer NDArray `target` by `req` ('write' or 'add')."""
    if (target.__class__ is not NDArray and target.stype != "default") or \
            g.__class__ is RowSparseRows:
        # a sparse buffer keeps its storage type; a dense one takes the rows
        store_gradient(target, g, req)
        return
    buf = target._data
    if req == "add":
        if g is not None:
            buf += g
    elif g is None:
        buf[...] = 0
    elif g is not buf:   # a plan may have written it in place already
        buf[...] = g


def _dtype(x):
    """NDArray `x`'s numpy dtype, read without making a sparse array's dense values."""
    return x._data.dtype if x.__class__ is NDArray else np.dtype(x.dtype)


def _size(shape):
    n = 1
    for d in shape:
        n *= int(d)
    return n
