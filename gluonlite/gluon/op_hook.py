"""`HybridBlock.register_op_hook`: report every operator's output (and, with `monitor_all`,
its inputs) of a hybridized block's graph to a callback, as MXNet's CachedOp monitor does.

The compiled plan fuses and reuses buffers, so the values are taken from a second, plain
evaluation of the graph node by node with the registry's kernels (autograd paused), run only
while a hook is registered: the compiled path itself stays untouched.
"""
from .. import autograd

__all__ = ["report_ops"]


# Operators MXNet registers without input names (no FListInputNames): its monitor calls
# their inputs ``input0, input1, ...`` instead of ``data``.
_UNNAMED_INPUTS = frozenset((
    "Activation", "Cast", "Flatten", "Reshape", "SliceChannel", "SwapAxis", "clip",
    "expand_dims", "norm", "slice", "slice_axis", "transpose"))


def _input_names(node):
    if node.op.variadic or node.op.name in _UNNAMED_INPUTS:
        return None
    return node.op.input_names(node.params)


def report_ops(out, input_names, args, callback, monitor_all):
    """Evaluate graph `out` on `args` (NDArrays aligned with `input_names`) node by node,
    calling ``callback(name, op_name, array)`` for each operator output named
    ``<node>_output`` (``<node>_output<i>`` for several) and, with `monitor_all`, each input
    named ``<node>_<argument name>`` (``<node>_input<i>`` when the operator does not name its
    arguments)."""
    from ..ndarray.invoke import invoke
    from ..symbol.symbol import topo_nodes
    values = {}
    by_name = dict(zip(input_names, args))
    ctx = args[0].context if args else None
    with autograd.pause():
        for node in topo_nodes(out.outputs):
            if node.op is None:
                values[(id(node), 0)] = by_name[node.name]
                continue
            ins = [values[(id(src), idx)] for src, idx in node.inputs]
            if monitor_all:
                names = _input_names(node)
                for i, a in enumerate(ins):
                    label = names[i] if names and i < len(names) else f"input{i}"
                    callback(f"{node.name}_{label}", node.op.name, a)
            outs = invoke(node.op, ins, node.attrs, ctx)
            for i, o in enumerate(outs):
                values[(id(node), i)] = o
                label = "output" if len(outs) == 1 else f"output{i}"
                callback(f"{node.name}_{label}", node.op.name, o)
