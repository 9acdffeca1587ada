"""The value of every operator's output (and inputs) of a graph, for the tools that watch a
graph run: `HybridBlock.register_op_hook` and the executor's monitor callback
(`Executor.set_monitor_callback`, which `mx.monitor.Monitor` installs), as MXNet's CachedOp
and graph executor report them.

The compiled plan fuses and reuses buffers, so the values are taken from a second, plain
evaluation of the graph node by node with the registry's kernels (autograd paused), run only
while a hook or monitor is installed: the compiled path itself stays untouched.
"""
from .. import autograd
from ..ndarray.ndarray import NDArray
from ..ops.registry import Params, RunCtx
from ..symbol.symbol import topo_nodes
from .infer import infer_graph

__all__ = ["report_ops"]


# Operators MXNet registers without input names (no FListInputNames): its monitor calls
# their inputs ``input0, input1, ...`` instead of ``data``.
_UNNAMED_INPUTS = frozenset((
    "Activation", "Cast", "Flatten", "Reshape", "SliceChannel", "SoftmaxActivation",
    "SwapAxis", "clip",
    "expand_dims", "norm", "slice", "slice_axis", "transpose"))


def _input_names(node):
    if node.op.name in _UNNAMED_INPUTS:
        return None
    if node.op.variadic:
        # MXNet names the inputs of its operators taking any number of them arg0, arg1, ...
        return [f"arg{i}" for i in range(len(node.inputs))]
    return node.op.input_names(node.params)


def report_ops(out, input_names, args, callback, monitor_all, is_train=False,
               name_variables=False):
    """Evaluate graph `out` on `args` (NDArrays aligned with `input_names`) node by node,
    calling ``callback(name, op_name, array)`` for each operator output, named as
    `Symbol.list_outputs` names it (``<node>_output``, ``<node>_output<i>`` for several,
    ``<node>_mean`` where the operator names it), and, with `monitor_all`, each input
    named ``<node>_<argument name>`` (``<node>_input<i>`` when the operator does not name its
    arguments, ``<node>_arg<i>`` for one taking any number of inputs, as concat).

    Args:
        is_train: the mode the operators run in (as the watched forward ran). Arrays an
            operator updates in place in training (BatchNorm's moving statistics) must be
            given as copies; a random operator (Dropout) draws again.
        name_variables: with `monitor_all`, an input that is a variable is also reported
            under its own name just before (as MXNet's graph executor does; its op_name is
            ``'null'``).

    Example::

        from gluonlite.executor.node_values import report_ops
        y = sym.tanh(sym.var('x')) * 2
        report_ops(y, ['x'], [nd.ones(2)], lambda name, op, a: print(name, op), False)
        # tanh0_output tanh, then _mulscalar0_output _mul_scalar
    """
    values = {}
    by_name = dict(zip(input_names, args))
    ctx = args[0].context if args else None
    # the parsed attributes of each node (a loop node's body among them) on raw arrays, as
    # the compiled plan runs them
    rc = RunCtx(bool(is_train), ctx.xp if ctx is not None else None)
    shapes = None
    with autograd.pause(train_mode=is_train):
        for node in topo_nodes(out.outputs):
            if node.op is None:
                values[(id(node), 0)] = by_name[node.name]
                continue
            ins = [values[(id(src), idx)] for src, idx in node.inputs]
            params = node.params
            if not node.inputs and 0 in tuple(params.get("shape") or ()):
                # a creation node whose shape leaves a size to inference (Gluon's begin
                # state): the compiled plan writes it into a buffer of the inferred shape
                if shapes is None:
                    shapes, _ = infer_graph(out, {k: v.shape for k, v in by_name.items()},
                                             what="shape")
                params = Params(params, shape=shapes[(id(node), 0)])
            if monitor_all:
                names = _input_names(node)
                for i, (a, (src, _)) in enumerate(zip(ins, node.inputs)):
                    if name_variables and src.op is None:
                        callback(src.name, "null", a)
                    label = names[i] if names and i < len(names) else f"input{i}"
                    callback(f"{node.name}_{label}", node.op.name, a)
            ys = node.op.forward(params, rc, [a._data for a in ins])
            n = node.num_visible()
            for i, y in enumerate(ys):
                o = values[(id(node), i)] = NDArray(y, ctx)
                if i < n:
                    callback(node.output_name(i), node.op.name, o)


def report_grads(out, input_names, args, out_grads, callback, is_train=True):
    """Evaluate graph `out` on `args` node by node, then its gradient from `out_grads` (one
    raw array or None per output) node by node in reverse, calling ``callback(name, op_name,
    array)`` for the gradient each operator node passes to each of its inputs, named
    ``<node>_backward_output`` (``<node>_backward_output<i>`` for several inputs), as MXNet's
    graph executor names its backward nodes' outputs. An input without a gradient (a label,
    a node no gradient reaches) is reported as zeros.

    Args:
        is_train: the mode the forward ran in. Arrays updated in place in training
            (BatchNorm's moving statistics) must be given as copies.
        out: the `Symbol` whose graph is evaluated.
        input_names: the names of `out`'s inputs, aligned with `args`.
        args: the input NDArrays.
        out_grads: one raw array or None per output of `out`.
        callback: ``callback(name, op_name, array)``, called per gradient passed to an input of a
            node (array an NDArray).

    Example::

        from gluonlite.executor.node_values import report_grads
        y = sym.tanh(sym.var('x')) * 2
        report_grads(y, ['x'], [nd.ones(2)], [np.ones(2, np.float32)],
                     lambda name, op, a: print(name))
        # _mulscalar0_backward_output, then tanh0_backward_output
    """
    by_name = dict(zip(input_names, args))
    ctx = args[0].context if args else None
    xp = ctx.xp
    rc = RunCtx(bool(is_train), xp, True)
    order = topo_nodes(out.outputs)
    values = {}
    for node in order:
        if node.op is None:
            values[(id(node), 0)] = by_name[node.name]._data
            continue
        xs = [values[(id(src), k)] for src, k in node.inputs]
        for k, y in enumerate(node.op.forward(node.params, rc, xs)):
            values[(id(node), k)] = y
    grads = {}

    def add(node, k, g):
        slot = grads.setdefault(id(node), {})
        slot[k] = g if k not in slot else slot[k] + g

    for (node, k), g in zip(out.outputs, out_grads):
        if g is not None:
            add(node, k, g)
    for node in reversed(order):
        if node.op is None:
            continue
        got = grads.pop(id(node), None)
        xs = [values[(id(src), k)] for src, k in node.inputs]
        gxs = [None] * len(xs)
        if got is not None and node.op.vjp is not None:
            n_out = node.op.num_outputs(node.params)
            ys = [values[(id(node), k)] for k in range(n_out)]
            gys = [got.get(k) for k in range(n_out)]
            need = [node.op.differentiable(i, node.params) for i in range(len(xs))]
            gxs = list(node.op.vjp(node.params, rc, xs, ys, gys, need))
        for i, ((src, k), x, gx) in enumerate(zip(node.inputs, xs, gxs)):
            label = "backward_output" if len(xs) == 1 else f"backward_output{i}"
            shown = xp.zeros_like(x) if gx is None else gx
            callback(f"{node.name}_{label}", node.op.name, NDArray(shown, ctx))
            if gx is not None:
                add(src, k, gx)
