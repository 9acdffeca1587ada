"""Shape and dtype inference over a graph: each operator's rule applied until nothing changes.

Rules may fill unknown inputs (a FullyConnected weight from the data and ``num_hidden``), so
a few passes over the nodes settle shapes that flow backwards as well as forwards.
"""
import ast

import numpy as np

from ..base import CODE_DTYPES, normalize_dtype
from ..symbol.symbol import topo_nodes

__all__ = ["infer_graph", "infer_symbol_shapes", "infer_symbol_types", "var_shape_attr"]

_MAX_PASSES = 8


def _known(shape):
    """A shape, or None when unknown (None, or any 0 dimension: Gluon's deferred dims)."""
    if shape is None:
        return None
    shape = tuple(int(d) for d in shape)
    return None if 0 in shape else shape


def var_shape_attr(node):
    """The shape a variable declares in its ``__shape__`` attribute, or None."""
    s = node.attrs.get("__shape__")
    if not s:
        return None
    try:
        return _known(ast.literal_eval(s))
    except (ValueError, SyntaxError):
        return None


def _fill_partial_vars(nodes, shapes):
    """Give a variable still unknown after inference, whose ``__shape__`` has one unknown
    (0) dimension, the size its reshape's output has (MXNet keeps partial shapes; this is
    the one case Gluon needs: an RNN layer's first weight, flattened into the packed
    parameters, before its input size is known). Returns whether a shape was filled."""
    filled = False
    for n in nodes:
        if n.op is None or not n.op.reshapes or not n.inputs:
            continue
        src, _ = n.inputs[0]
        out = shapes.get((id(n), 0))
        if src.op is not None or shapes.get((id(src), 0)) is not None or out is None:
            continue
        try:
            declared = tuple(int(d) for d in ast.literal_eval(src.attrs.get("__shape__", "")))
        except (ValueError, SyntaxError, TypeError):
            continue
        known = int(np.prod([d for d in declared if d]))
        size = int(np.prod(out))
        if declared.count(0) == 1 and known and size % known == 0:
            shapes[(id(src), 0)] = tuple(d or size // known for d in declared)
            filled = True
    return filled


def _var_dtype_attr(node):
    s = node.attrs.get("__dtype__")
    if s is None:
        return None
    try:
        return CODE_DTYPES[int(s)]
    except (ValueError, KeyError):
        return None


def _where(node):
    return f"node {node.name!r} ({node.op.name})" + (f" created at {node.source}"
                                                      if node.source else "")


def _run_rules(nodes, values, rule, what):
    """Apply `rule(node, in_values, out_values) -> (in_values, out_values)` to a fixpoint
    (`out_values` are what is known of the outputs so far, None where unknown)."""
    for _ in range(_MAX_PASSES):
        changed = False
        for node in nodes:
            if node.op is None:
                continue
            ins = [values.get((id(s), i)) for s, i in node.inputs]
            known_outs = [values.get((id(node), i)) for i in range(node.num_outputs())]
            try:
                new_ins, outs = rule(node, list(ins), known_outs)
            except (ValueError, TypeError) as e:
                raise ValueError(f"infer_{what}: {_where(node)}: {e}") from None
            for (s, i), old, new in zip(node.inputs, ins, new_ins):
                if new is None:
                    continue
                if old is None:
                    values[(id(s), i)] = new
                    changed = True
                elif old != new:
                    raise ValueError(f"infer_{what}: {_where(node)}: input {s.name!r} has "
                                     f"{what} {old} but the operator needs {new}")
            for i, new in enumerate(outs[:node.num_outputs()]):
                key = (id(node), i)
                old = values.get(key)
                if new is None:
                    continue
                if old is None:
                    values[key] = new
                    changed = True
                elif old != new:
                    raise ValueError(f"infer_{what}: {_where(node)}: output {i} was inferred "
                                     f"as {old} and as {new}")
        if not changed:
            return


def _shape_rule(node, ins, known_outs):
    ins = [_known(s) for s in ins]
    new_ins, outs = node.op.infer_shape(node.params, ins)
    new_ins = [_known(s) for s in new_ins]
    back = node.op.shape_back
    if back is not None and None in new_ins and any(o is not None for o in known_outs):
        # Shapes flowing backwards: e.g. a zero state of batch 0 learns its batch size
        # from the FullyConnected that reads it.
        new_ins = [_known(s) for s in back(node.params, list(new_ins), known_outs)]
    return new_ins, [_known(s) for s in outs]


def _dtype_rule(node, ins, known_outs):
    new_ins, outs = node.op.infer_dtype(node.params, ins)
    norm = lambda d: None if d is None else np.dtype(d)  # noqa: E731
    return [norm(d) for d in new_ins], [norm(d) for d in outs]


def infer_graph(symbol, known_shapes=None, known_dtypes=None, default_dtype=np.float32):
    """Shapes and dtypes of every entry of `symbol`'s graph.

    Args:
        symbol: the Symbol.
        known_shapes: {variable name: shape}; variables' ``__shape__`` attributes count too.
        known_dtypes: {variable name: dtype}; unknown variable dtypes become `default_dtype`
            after inference (pass None to leave them unknown).

    Returns:
        (shapes, dtypes): dicts keyed by entry ``(id(node), index)``; None where unknown.

    Raises:
        ValueError: shapes or dtypes that do not fit, naming the node and where it was made.
    """
    nodes = topo_nodes(symbol.outputs)
    shapes, dtypes = {}, {}
    known_shapes, known_dtypes = known_shapes or {}, known_dtypes or {}
    for n in nodes:
        if n.op is None:
            s = known_shapes.get(n.name)
            shapes[(id(n), 0)] = _known(s) if s is not None else var_shape_attr(n)
            d = known_dtypes.get(n.name)
            dtypes[(id(n), 0)] = normalize_dtype(d) if d is not None else _var_dtype_attr(n)
    _run_rules(nodes, shapes, _shape_rule, "shape")
    if _fill_partial_vars(nodes, shapes):
        _run_rules(nodes, shapes, _shape_rule, "shape")
    _run_rules(nodes, dtypes, _dtype_rule, "type")
    if default_dtype is not None and any(
            dtypes.get((id(n), 0)) is None for n in nodes if n.op is None):
        for n in nodes:
            if n.op is None and dtypes.get((id(n), 0)) is None:
                dtypes[(id(n), 0)] = np.dtype(default_dtype)
        _run_rules(nodes, dtypes, _dtype_rule, "type")
    return shapes, dtypes


def _infer_symbol(symbol, known, what):
    """Run inference from the `known` shapes or dtypes (`what`: 'shape' or 'type') and
    return the values of (arguments, outputs, auxiliary states), None where unknown."""
    inputs = symbol.list_inputs()
    unknown = set(known) - set(inputs)
    if unknown:
        raise ValueError(f"infer_{what}: unknown input name(s) {sorted(unknown)}; inputs are "
                         f"{inputs}")
    if what == "shape":
        values, _ = infer_graph(symbol, known, None, None)
    else:
        _, values = infer_graph(symbol, None, known, None)
    vars_ = {n.name: n for n in topo_nodes(symbol.outputs) if n.op is None}
    args = [values.get((id(vars_[n]), 0)) for n in symbol.list_arguments()]
    aux = [values.get((id(vars_[n]), 0)) for n in symbol.list_auxiliary_states()]
    outs = [values.get((id(n), i)) for n, i in symbol.outputs]
    return args, outs, aux


def infer_symbol_shapes(symbol, known, partial):
    """Symbol.infer_shape / infer_shape_partial (see there)."""
    args, outs, aux = _infer_symbol(symbol, known, "shape")
    if not partial and any(s is None for s in args + aux + outs):
        return None, None, None
    fill = lambda lst: [() if s is None else s for s in lst]  # noqa: E731
    return fill(args), fill(outs), fill(aux)


def infer_symbol_types(symbol, known, partial=True):
    """Symbol.infer_type / infer_type_partial (see there): numpy types, None where unknown."""
    args, outs, aux = _infer_symbol(symbol, known, "type")
    if not partial and any(d is None for d in args + aux + outs):
        return None, None, None
    t = lambda lst: [None if d is None else d.type for d in lst]  # noqa: E731
    return t(args), t(outs), t(aux)
