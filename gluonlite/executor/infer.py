"""Shape and dtype inference over a graph: each operator's rule applied until nothing changes.

Rules may fill unknown inputs (a FullyConnected weight from the data and ``num_hidden``), so
a few passes over the nodes settle shapes that flow backwards as well as forwards.

A shape may be partly known, as in MXNet: an unknown dimension is 0 in the legacy shape
semantics (``(0, 3, 32, 32)``: any batch) and -1 under NumPy shape semantics
(`mx.util.is_np_shape`), where 0 is a real size; inside, an unknown dimension is always
`UNK` (-1), shapes given in the legacy semantics are read with their 0s as `UNK`, and
partial shapes handed back are written in the caller's semantics (`export_shape`). Operator
rules see only whole shapes; for a node with partly known inputs the rule runs twice with
every unknown dimension set to a probe value (a different one each run): the dimensions of
its results that agree between the two runs are known, those that follow the probe stay 0. A
rule that rejects the probes (a dimension that must equal another one) runs once more with
the partly known inputs as unknown, and what it infers for them is merged with their known
dimensions.

A rule marked ``partial`` (its `ShapeRule` says so) is given partly known shapes as they are
(-1 for each unknown dimension) and fills what it can itself, as MXNet's shape functions do.

Backwards, as MXNet's rules do: the inputs and output of an elementwise operator (its
`ShapeRule` says ``all_same``, or names ``output_shape_inputs``) merge what each knows,
dimension by dimension; an operator whose rule's ``fills_back(params)`` is true has its
unknown input dimensions that pass through to a known output dimension filled from it
(`_solve_from_outputs`); the others infer nothing backwards but through their rule's own
``back``. A rule's ``whole_inputs`` are read only when fully known.
"""
import ast
import functools

import numpy as np

from ..base import CODE_DTYPES, MXNetError, MXNetValueError, normalize_dtype
from ..symbol.symbol import topo_nodes
from ..util import is_np_shape

__all__ = ["infer_graph", "infer_symbol_shapes", "infer_symbol_types", "var_shape_attr",
           "merge_shapes", "UNK", "import_shape", "export_shape"]

# An unknown dimension inside inference (either semantics' marker is read as it).
UNK = -1

_MAX_PASSES = 8
# Stand-ins for unknown dimensions, one per probing run: divisible by every small factor, so
# that reshapes and splits of an unknown dimension still divide evenly, and small enough
# that the product of a few of them fits in int64.
_PROBES = (720720, 1081080)


def _np_shape():
    return is_np_shape()


def import_shape(shape, np_shape=None):
    """A shape given by a user or a graph, as inference reads it: its unknown dimensions
    (0 in the legacy semantics, -1 under NumPy shape semantics) as `UNK`; None stays None.

    Args:
        shape: a sequence of ints, or None.
        np_shape: default None: the current NumPy-shape setting; False also reads 0 as unknown, True
            reads only -1 so.

    Returns:
        A tuple of ints with `UNK` for unknown dimensions, or None.

    Example::

        from gluonlite.executor.infer import import_shape
        import_shape((0, 3), np_shape=False)   # (-1, 3): -1 is UNK
    """
    if shape is None:
        return None
    shape = tuple(map(int, shape))
    if min(shape, default=1) > 0:  # nothing unknown: either semantics reads it as it is
        return shape
    np_shape = _np_shape() if np_shape is None else np_shape
    return tuple(UNK if d == -1 or (d == 0 and not np_shape) else d for d in shape)


def export_shape(shape, np_shape=None):
    """A partly known shape in the caller's semantics: `UNK` dimensions as 0 (legacy) or -1
    (NumPy shape semantics).

    Args:
        shape: a shape with `UNK` for unknown dimensions, or None.
        np_shape: default None: the current NumPy-shape setting; True: keep -1, False: write 0 for
            unknown.

    Returns:
        A tuple, or None for None.

    Example::

        from gluonlite.executor.infer import export_shape, UNK
        export_shape((UNK, 3), np_shape=False)   # (0, 3)
    """
    if shape is None:
        return None
    np_shape = _np_shape() if np_shape is None else np_shape
    return shape if np_shape else tuple(0 if d == UNK else d for d in shape)


def _known(shape):
    """A shape, or None when unknown (None, or any unknown dimension)."""
    if shape is None:
        return None
    shape = tuple(int(d) for d in shape)
    return None if UNK in shape else shape


def _shape(shape):
    """A shape as a tuple of ints, keeping `UNK` entries (unknown dimensions), or None."""
    return None if shape is None else tuple(int(d) for d in shape)


def _partial(shape):
    """Whether `shape` is partly known: it has unknown (`UNK`) dimensions."""
    return shape is not None and UNK in shape


def merge_shapes(old, new):
    """What two partial views of one shape say together (`UNK` = unknown dimension).

    Returns:
        The merged shape; `old` when `new` is None and the other way round; None when they
        disagree (another number of dimensions, or two different known sizes).

    Example::

        from gluonlite.executor.infer import merge_shapes, UNK
        merge_shapes((UNK, 3), (2, UNK))   # (2, 3)
        merge_shapes((2, 3), (4, 3))       # None: they disagree
    """
    if old is None or new is None:
        return new if old is None else old
    if len(old) != len(new):
        return None
    out = []
    for a, b in zip(old, new):
        if a != UNK and b != UNK and a != b:
            return None
        out.append(b if a == UNK else a)
    return tuple(out)


def var_shape_attr(node):
    """The shape a variable declares in its ``__shape__`` attribute, or None.

    Args:
        node: a variable node of a graph.

    Returns:
        The shape as a tuple (unknown dimensions as `UNK`), or None when the attribute is absent or
        not a literal shape.

    Example::

        from gluonlite.executor.infer import var_shape_attr
        x = sym.var('x', shape=(0, 3))
        var_shape_attr(x.outputs[0][0])   # (-1, 3)
    """
    s = node.attrs.get("__shape__")
    if not s:
        return None
    value = _literal_shape(s)
    return None if value is None else import_shape(value)


@functools.lru_cache(maxsize=4096)
def _literal_shape(text):
    """The tuple of ints a ``__shape__`` attribute spells, or None. Cached: a graph is
    inferred again for every new input shape, and parsing dominated that for decoders
    that grow one step at a time."""
    try:
        value = ast.literal_eval(text)
        return (int(value),) if isinstance(value, int) else tuple(int(d) for d in value)
    except (ValueError, SyntaxError, TypeError):
        return None


def _fill_partial_vars(nodes, shapes):
    """Give a variable whose shape has one unknown dimension after inference the size
    its reshape's output has: shape rules run forward, and a reshape's output does not say
    which input dimension it came from, but with one unknown it does (an RNN layer's first
    weight, flattened into the packed parameters, before its input size is known). Returns
    whether a shape was filled."""
    filled = False
    for n in nodes:
        if n.op is None or not n.op.fast.reshapes or not n.inputs:
            continue
        src, _ = n.inputs[0]
        declared = shapes.get((id(src), 0))
        out = _known(shapes.get((id(n), 0)))
        if src.op is not None or not _partial(declared) or out is None:
            continue
        known = int(np.prod([d for d in declared if d != UNK]))
        size = int(np.prod(out))
        if declared.count(UNK) == 1 and known and size % known == 0:
            shapes[(id(src), 0)] = tuple(size // known if d == UNK else d for d in declared)
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


def _same(old, new):
    if old is None:
        return new
    return old if old == new else None


def _merge_into(values, key, new, merge, node, what, entry):
    """Combine `new` (None: nothing learnt) with what `values` knows of `key` by `merge`;
    True when that changed it. `entry` says which of `node`'s entries `key` is, for the
    message: ("input", the input's source node) or ("output", its index).

    Raises:
        ValueError: `merge` says they disagree; the message names the node and the entry.
    """
    old = values.get(key)
    # (`old is not None` first: numpy compares a dtype equal to None)
    if new is None or (old is not None and new == old):
        return False
    merged = merge(old, new)
    if merged is None:
        if what == "shape":  # named in the caller's semantics (0 or -1 for unknown)
            old, new = export_shape(old), export_shape(new)
        kind, which = entry
        conflict = (f"input {which.name!r} has {what} {old} but the operator needs {new}"
                    if kind == "input" else f"output {which} was inferred as {old} and as {new}")
        raise ValueError(f"infer_{what}: {_where(node)}: {conflict}")
    if old is not None and merged == old:
        return False
    values[key] = merged
    return True


def _run_rules(nodes, values, rule, what, merge=_same):
    """Apply `rule(node, in_values, out_values) -> (in_values, out_values)` to a fixpoint
    (`out_values` are what is known of the outputs so far, None where unknown); a value
    already known is combined with a new one by `merge` (None: they disagree)."""
    for _ in range(_MAX_PASSES):
        changed = False
        # A pass in which every rule saw its inputs whole is final: another would give each
        # rule the same inputs again (a known value never changes; it conflicts instead).
        all_whole = True
        for node in nodes:
            if node.op is None:
                continue
            ins = [values.get((id(s), i)) for s, i in node.inputs]
            if all_whole and any(v is None or (what == "shape" and UNK in v) for v in ins):
                all_whole = False
            n_out = node.num_outputs()
            known_outs = [values.get((id(node), i)) for i in range(n_out)]
            try:
                new_ins, outs = rule(node, list(ins), known_outs)
            except (ValueError, TypeError) as e:
                # Still an MXNetError where the rule raised one (MXNet's tests expect it).
                cls = MXNetValueError if isinstance(e, MXNetError) else ValueError
                raise cls(f"infer_{what}: {_where(node)}: {e}") from None
            for (s, i), new in zip(node.inputs, new_ins):
                if new is not None:
                    changed |= _merge_into(values, (id(s), i), new, merge, node, what,
                                           ("input", s))
            for i, new in enumerate(outs[:n_out]):
                if new is not None:
                    changed |= _merge_into(values, (id(node), i), new, merge, node, what,
                                           ("output", i))
        if not changed or all_whole:
            return


def _shape_rule(node, ins, known_outs):
    """The operator's shape rule on what is known of its inputs and outputs (partly known
    inputs are probed; see the module's docstring)."""
    rule = node.op.shape_rule
    if rule.partial:
        # a rule that reads partly known shapes itself (-1 for an unknown dimension), as
        # MXNet's shape functions do (np.dot's: a's last dimension is b's first)
        return _whole_shape_rule(node, ins, known_outs)
    same = range(len(ins)) if rule.all_same else rule.output_shape_inputs
    if same:
        # every input of an elementwise operator has its output's shape: what each knows of it
        # is known of all, dimension by dimension ((0, 10) + (12, 0): all are (12, 10)), also
        # through the output (a Convolution's weight (64, 0, 7, 7) seen through a cast)
        merged = _merged_all([ins[i] for i in same] + list(known_outs[:1]))
        if merged is not None:
            ins = [merged if i in same else s for i, s in enumerate(ins)]
    # inputs the rule reads only whole (where's condition, as in MXNet) count as unknown
    # while partly known
    ins = [None if i in rule.whole_inputs and _partial(s) else s for i, s in enumerate(ins)]
    part_outs = list(known_outs)
    known_outs = [_known(s) for s in known_outs]
    if not any(_partial(s) for s in ins):
        return _whole_shape_rule(node, ins, known_outs)
    runs = []
    for probe in _PROBES:
        filled = [None if s is None else tuple(probe if d == UNK else d for d in s)
                  for s in ins]
        try:
            runs.append(_whole_shape_rule(node, filled, known_outs))
        except (ValueError, TypeError, IndexError, ZeroDivisionError):
            runs = None
            break
    probed = None
    if runs:
        (ins_a, outs_a), (ins_b, outs_b) = runs
        probed = ([_agreed(a, b) for a, b in zip(ins_a, ins_b)],
                  [_agreed(a, b) for a, b in zip(outs_a, outs_b)])
        fills = rule.fills_back
        solved = _solve_from_outputs(node, ins, part_outs, probed[1]) \
            if fills is not None and fills(node.params) else None
        if solved is not None:
            return [_combined(p, s) for p, s in zip(probed[0], solved)], probed[1]
        if node.op.shape_back is None or all(o is None for o in known_outs):
            return probed
    # The rule needs the unknown dimensions to match something, or the outputs' known shapes
    # can fill them (shape_back): let it infer those inputs whole, then keep what it says
    # only where it fits their known dimensions.
    try:
        whole = _whole_shape_rule(node, [None if _partial(s) else s for s in ins], known_outs)
    except (ValueError, TypeError):
        if probed is None:
            raise
        return probed
    new_ins = [w if w is not None else (s if _partial(s) else None)
               for s, w in zip(ins, whole[0])]
    if probed is None:
        return new_ins, whole[1]
    return ([_combined(p, w) for p, w in zip(probed[0], new_ins)],
            [_combined(p, w) for p, w in zip(probed[1], whole[1])])


def _merged_all(shapes):
    """What all the known `shapes` say of one shape together; None when none is known or
    they disagree (the rule then reports it)."""
    out = None
    for s in shapes:
        if s is None:
            continue
        out = merge_shapes(out, s)
        if out is None:
            return None
    return out


def _probe_outs(node, ins, unknowns, values):
    """The rule's outputs with the unknown dimensions `unknowns` ((input, axis) pairs) set to
    `values` (one each), or None when it rejects them."""
    filled = [None if s is None else list(s) for s in ins]
    for (i, j), v in zip(unknowns, values):
        filled[i][j] = v
    try:
        _, outs = _whole_shape_rule(node, [None if f is None else tuple(f) for f in filled],
                                    [None] * node.num_outputs())
    except (ValueError, TypeError, IndexError, ZeroDivisionError):
        return None
    return outs


def _solve_from_outputs(node, ins, known_outs, probed_outs):
    """Unknown input dimensions that known output dimensions equal, for the operators whose
    MXNet rule infers them backwards (their shape rule's ``fills_back(params)`` says so: a
    FullyConnected's batch, a Concat's or a SliceChannel's other axes, transpose's).

    The rule is probed once with every unknown dimension at one value and once more per
    group of unknowns at another (a group: one unknown, or all those the rule rejects
    apart, that must be equal); an output dimension that only one group moves, and moves
    by as much, passes that group through: it takes the output's known size. Returns the
    inputs with what was solved filled in, or None when nothing was.
    """
    targets = [(k, j, d) for k, (o, p) in enumerate(zip(known_outs, probed_outs))
               if o is not None and p is not None and len(o) == len(p)
               for j, (d, q) in enumerate(zip(o, p)) if d != UNK and q == UNK]
    unknowns = [(i, j) for i, s in enumerate(ins) if s is not None
                for j, d in enumerate(s) if d == UNK]
    if not targets or not unknowns:
        return None
    lo, hi = _PROBES
    base = _probe_outs(node, ins, unknowns, [lo] * len(unknowns))
    if base is None:
        return None
    groups, tied = [], []
    for u in unknowns:
        alone = _probe_outs(node, ins, unknowns, [hi if v == u else lo for v in unknowns])
        if alone is None:
            tied.append(u)
        else:
            groups.append(([u], alone))
    if tied:
        together = _probe_outs(node, ins, unknowns, [hi if v in tied else lo for v in unknowns])
        if together is not None:
            groups.append((tied, together))
    solved = [None if s is None else list(s) for s in ins]
    for k, j, want in targets:
        if base[k] is None:
            continue
        moved = [(g, outs[k][j]) for g, outs in groups
                 if outs[k] is not None and outs[k][j] != base[k][j]]
        if len(moved) != 1 or base[k][j] != lo or moved[0][1] != hi:
            continue  # not one group passed through unchanged
        for i, a in moved[0][0]:
            solved[i][a] = want
    solved = [None if s is None else tuple(s) for s in solved]
    return None if solved == [None if s is None else tuple(s) for s in ins] else solved


def _combined(a, b):
    """Both views of one shape together; `a` where they disagree (the fixpoint reports it)."""
    merged = merge_shapes(a, b)
    return a if merged is None else merged


def _agreed(a, b):
    """The dimensions two probing runs agree on (the others unknown: `UNK`)."""
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else UNK for x, y in zip(a, b))


def _whole_shape_rule(node, ins, known_outs):
    new_ins, outs = node.op.infer_shape(node.params, ins)
    # a rule's result in the semantics on (a creation operator's 0 batch is unknown, legacy)
    new_ins = [import_shape(s) for s in new_ins]
    back = node.op.shape_back
    if back is not None and any(s is None or UNK in s for s in new_ins) and \
            any(o is not None for o in known_outs):
        # Shapes flowing backwards: e.g. a zero state of batch 0 learns its batch size
        # from the FullyConnected that reads it.
        filled = back(node.params, [_known(s) for s in new_ins], known_outs)
        new_ins = [_combined(import_shape(f), s) for f, s in zip(filled, new_ins)]
    return new_ins, [import_shape(s) for s in outs]


def _dtype_rule(node, ins, known_outs):
    new_ins, outs = node.op.infer_dtype(node.params, ins)
    norm = lambda d: None if d is None else np.dtype(d)  # noqa: E731
    return [norm(d) for d in new_ins], [norm(d) for d in outs]


def infer_graph(symbol, known_shapes=None, known_dtypes=None, default_dtype=np.float32,
                partial=False, output_shapes=None, what="both", nodes=None):
    """Shapes and dtypes of every entry of `symbol`'s graph.

    Args:
        symbol: the Symbol.
        known_shapes: {variable name: shape}; variables' ``__shape__`` attributes count too.
            An unknown dimension is 0 (legacy) or -1 (NumPy shape semantics).
        known_dtypes: {variable name: dtype}; unknown variable dtypes become `default_dtype`
            after inference (pass None to leave them unknown).
        partial: return partly known shapes (`UNK` for unknown dimensions) instead of
            None.
        output_shapes: what is known of the outputs' shapes, a list in ``symbol.outputs``
            order (None where unknown), for inference to run back from (a subgraph node's
            rule: its outputs' shapes are known where its inputs' are not).
        what: ``"both"`` (default), or ``"shape"`` or ``"dtype"`` to infer only that (the
            other dict comes back empty): the two never inform each other, and a caller
            that reads one need not pay for the other.
        nodes: the graph's nodes in topological order (`topo_nodes` of ``symbol.outputs``)
            where the caller has them already; default None: found here.

    Returns:
        (shapes, dtypes): dicts keyed by entry ``(id(node), index)``; None where unknown.

    Example::

        from gluonlite.executor import infer_graph
        x = sym.var("x", shape=(0, 3))
        shapes, _ = infer_graph(sym.relu(x), partial=True)   # the relu's shape: (-1, 3)

    Raises:
        ValueError: shapes or dtypes that do not fit, naming the node and where it was made.
    """
    if what not in ("both", "shape", "dtype"):
        raise ValueError(f"infer_graph: what must be 'both', 'shape' or 'dtype', got {what!r}")
    if nodes is None:
        nodes = topo_nodes(symbol.outputs)
    shapes, dtypes = {}, {}
    if what != "dtype":
        shapes = _infer_shapes(symbol, nodes, known_shapes or {}, partial, output_shapes)
    if what == "shape":
        return shapes, dtypes
    known_dtypes = known_dtypes or {}
    for n in nodes:
        if n.op is None:
            d = known_dtypes.get(n.name)
            dtypes[(id(n), 0)] = normalize_dtype(d) if d is not None else _var_dtype_attr(n)
    _run_rules(nodes, dtypes, _dtype_rule, "type")
    if default_dtype is not None and any(
            dtypes.get((id(n), 0)) is None for n in nodes if n.op is None):
        for n in nodes:
            if n.op is None and dtypes.get((id(n), 0)) is None:
                dtypes[(id(n), 0)] = np.dtype(default_dtype)
        _run_rules(nodes, dtypes, _dtype_rule, "type")
    return shapes, dtypes


def _infer_shapes(symbol, nodes, known_shapes, partial, output_shapes):
    """`infer_graph`'s shapes of the graph of `symbol` (its `nodes` in topological order)."""
    shapes = {}
    for n in nodes:
        if n.op is None:
            s = import_shape(known_shapes.get(n.name))
            declared = var_shape_attr(n)
            given = merge_shapes(declared, s) if s is not None else declared
            if given is None:
                # as in MXNet, a shape given for an input replaces a declared one it contradicts
                given = s
            shapes[(id(n), 0)] = given
    for (n, i), s in zip(symbol.outputs, output_shapes or ()):
        if s is not None and n.op is not None:
            shapes[(id(n), i)] = import_shape(s)
    _run_rules(nodes, shapes, _shape_rule, "shape", merge_shapes)
    if _fill_partial_vars(nodes, shapes):
        _run_rules(nodes, shapes, _shape_rule, "shape", merge_shapes)
    if not partial:
        shapes = {k: _known(v) for k, v in shapes.items()}
    return shapes


def _infer_symbol(symbol, known, what):
    """Run inference from the `known` shapes or dtypes (`what`: 'shape' or 'type') and
    return the values of (arguments, outputs, auxiliary states), None where unknown."""
    inputs = symbol.list_inputs()
    unknown = set(known) - set(inputs)
    if unknown:
        raise ValueError(f"infer_{what}: unknown input name(s) {sorted(unknown)}; inputs are "
                         f"{inputs}")
    if what == "shape":
        values, _ = infer_graph(symbol, known, None, None, partial=True, what="shape")
    else:
        _, values = infer_graph(symbol, None, known, None, what="dtype")
    vars_ = {n.name: n for n in topo_nodes(symbol.outputs) if n.op is None}
    args = [values.get((id(vars_[n]), 0)) for n in symbol.list_arguments()]
    aux = [values.get((id(vars_[n]), 0)) for n in symbol.list_auxiliary_states()]
    outs = [values.get((id(n), i)) for n, i in symbol.outputs]
    return args, outs, aux


def infer_symbol_shapes(symbol, known, partial):
    """Symbol.infer_shape / infer_shape_partial (see there).

    Args:
        symbol: the `Symbol` to infer.
        known: {input name: shape} of the known inputs.
        partial: True: return what is known (unknown shapes as () or None); False: (None, None,
            None) unless every shape is known.

    Returns:
        (argument shapes, output shapes, auxiliary shapes), lists of tuples.

    Example::

        from gluonlite.executor import infer_symbol_shapes
        infer_symbol_shapes(sym.tanh(sym.var('x')), {'x': (2, 3)}, False)
        # ([(2, 3)], [(2, 3)], [])
    """
    args, outs, aux = _infer_symbol(symbol, known, "shape")
    if not partial and any(_known(s) is None for s in args + aux + outs):
        return None, None, None
    np_shape = _np_shape()
    # a shape not known at all: () in the legacy semantics, None under NumPy's (MXNet's)
    fill = lambda lst: [(None if np_shape else ()) if s is None  # noqa: E731
                        else export_shape(s, np_shape) for s in lst]
    return fill(args), fill(outs), fill(aux)


def infer_symbol_types(symbol, known, partial=True):
    """Symbol.infer_type / infer_type_partial (see there): numpy types, None where unknown.

    Args:
        symbol: the `Symbol` to infer.
        known: {input name: dtype} of the known inputs.
        partial: default True: return what is known (None where unknown); False: (None, None, None)
            unless every type is known.

    Returns:
        (argument types, output types, auxiliary types), lists of numpy types.

    Example::

        from gluonlite.executor import infer_symbol_types
        infer_symbol_types(sym.tanh(sym.var('x')), {'x': np.float32})
        # ([numpy.float32], [numpy.float32], [])
    """
    args, outs, aux = _infer_symbol(symbol, known, "type")
    if not partial and any(d is None for d in args + aux + outs):
        return None, None, None
    t = lambda lst: [None if d is None else d.type for d in lst]  # noqa: E731
    return t(args), t(outs), t(aux)
