"""`sym.contrib.foreach / while_loop / cond`: each builds ONE graph node holding its bodies.

The user's functions run once, on placeholder variables, while node creation is traced
(`tracing.capture_body`); the node gets the bodies as subgraphs and the index maps MXNet
writes to JSON (``in_data_locs``, ``cond_input_locs``, ``func_var_locs`` ...), so the graph
and its JSON have the same size whatever the number of iterations.
"""
from ..base import unflatten, structure_str
from ..ops import registry
from ..symbol.symbol import Node, Symbol, record_new_nodes
from ..symbol.naming import AttrScope, new_name, scope_attrs, subgraph_name, user_source
from . import checks
from .tracing import make_placeholders, capture_body

__all__ = ["foreach", "while_loop", "cond"]


def _refuse_np(op, leaves):
    """MXNet 1.9.1's loop operators are legacy operators: numpy symbols (a block under NumPy
    array semantics) are refused, as MXNet refuses them."""
    if any(getattr(x, "_np_symbol", False) for x in leaves):
        raise TypeError(f"Operator `{op}` registered in backend is known as `{op}` in Python. "
                        "This is a legacy operator which can only accept legacy symbols, while "
                        "received an MXNet numpy symbol (MXNet 1.9.1 has no loop operators "
                        "for the NumPy dialect); call as_nd_ndarray() on it first")


def _is_sym(x):
    return isinstance(x, Symbol)


def _entries(fname, argname, symbols):
    out = []
    for i, s in enumerate(symbols):
        if len(s.outputs) != 1:
            raise TypeError(f"{fname}: {argname}[{i}] is a group of {len(s.outputs)} outputs; "
                            "pass one output (index the group)")
        out.append(s.outputs[0])
    return out


def _make_node(op_name, inputs, attrs, subgraphs):
    # As in MXNet, `name` names the bodies; the node itself is named automatically
    # (``_foreach0``, prefixed inside a Gluon block) and carries the AttrScope's attributes.
    op = registry.get(op_name)
    params, strings = op.parse(attrs)
    params["_subgraphs"] = subgraphs
    strings.update(scope_attrs())
    return Node(op, new_name(None, op_name), strings, params, inputs, user_source())


def _body_scope(fname, name, suffix=""):
    """The AttrScope a body is traced in: it registers the body's unique subgraph name
    (``foreach0``, ``my_cond_then1``) and tags the nodes made inside with it."""
    if not isinstance(name, str):
        raise TypeError(f"{fname}: name must be a string, got {type(name).__name__}")
    return AttrScope(__subgraph_name__=subgraph_name(name + suffix))


class _InputUnion:
    """Node inputs shared by several bodies: one slot per distinct key, in first-use order."""

    def __init__(self, placeholder_entries):
        self.slots, self.entries = {}, []
        self.ph_entries = placeholder_entries

    def locs(self, body):
        out = []
        for key in body.keys:
            k = key if key[0] == "ph" else ("outer", id(key[1][0]), key[1][1])
            if k not in self.slots:
                self.slots[k] = len(self.entries)
                self.entries.append(self.ph_entries[key[1]] if key[0] == "ph" else key[1])
            out.append(self.slots[k])
        return out


def foreach(body, data, init_states, name="foreach"):
    """Symbolic `foreach` (see `gluonlite.control_flow.imperative.foreach` for semantics).

    Args:
        body: ``body(data_slice, states) -> (outputs, new_states)`` on Symbols.
        data: a Symbol or a list of Symbols, iterated along axis 0.
        init_states: a Symbol or a (nested) list of Symbols.
        name: the stem of the body's subgraph name (``foreach0``, registered in
            ``AttrScope._subgraph_names``); the node is named ``_foreach0``, ``_foreach1`` ...

    Returns:
        (outputs, states): Symbols in the structures the body returned / `init_states`.

    Raises:
        TypeError: body not callable; non-Symbol data, states or results; a name that is not
            a string.
        ValueError: empty data; body returns a different number of states; a data slice or
            state the body never uses (`checks.UnusedLoopInputError`, also an AssertionError
            as in MXNet).

    Example::

        outs, states = sym.contrib.foreach(lambda x, s: (x + s[0], [s[0] * 2]),
                                           sym.var('data'), [sym.var('s')])
    """
    checks.check_callable("foreach", "body", body)
    data_leaves, data_spec = checks.flatten_result("foreach", "data", data, _is_sym, "Symbol")
    if not data_leaves:
        raise ValueError("foreach: data is empty; give a Symbol or a list of Symbols to "
                         "iterate over")
    state_leaves, state_spec = checks.flatten_result("foreach", "init_states", init_states,
                                                     _is_sym, "Symbol")
    _refuse_np("_foreach", data_leaves + state_leaves)
    data_e = _entries("foreach", "data", data_leaves)
    state_e = _entries("foreach", "init_states", state_leaves)
    with _body_scope("foreach", name):
        phs = make_placeholders("foreach", "data", data_leaves + state_leaves)
        with record_new_nodes() as created:
            res = body(unflatten(phs[:len(data_leaves)], data_spec),
                       unflatten(phs[len(data_leaves):], state_spec))
    if not isinstance(res, (list, tuple)) or len(res) != 2:
        raise TypeError(f"foreach: body must return (outputs, new_states), got "
                        f"{type(res).__name__}")
    outs, out_spec = checks.flatten_result("foreach", "body's outputs", res[0], _is_sym,
                                           "Symbol")
    new_states, new_spec = checks.flatten_result("foreach", "body's new states", res[1],
                                                 _is_sym, "Symbol")
    if len(new_states) != len(state_leaves):
        raise ValueError(f"foreach: init_states has {len(state_leaves)} array(s) but body "
                         f"returned {len(new_states)} new states at step 0; body must return "
                         "one new value per state")
    b = capture_body("foreach", outs + new_states, phs, created)
    pos = {key[1]: j for j, key in enumerate(b.keys) if key[0] == "ph"}
    n_data = len(data_leaves)
    for k in range(len(phs)):
        if k not in pos:
            what = f"data[{k}]" if k < n_data else f"init_states[{k - n_data}]"
            raise checks.UnusedLoopInputError(
                f"foreach: {what} is never used by body; every data array and state must "
                "feed the body (drop it, or use it)")
    remain_locs = [j for j, key in enumerate(b.keys) if key[0] == "outer"]
    inputs = data_e + state_e + [b.keys[j][1] for j in remain_locs]
    attrs = {"num_args": len(inputs) + 1, "num_outputs": len(outs) + len(new_states),
             "num_out_data": len(outs), "in_data_locs": [pos[k] for k in range(n_data)],
             "in_state_locs": [pos[k] for k in range(n_data, len(phs))],
             "remain_locs": remain_locs}
    node = _make_node("_foreach", inputs, attrs, [b.symbol])
    syms = [Symbol([(node, i)]) for i in range(len(outs) + len(new_states))]
    return (unflatten(syms[:len(outs)], out_spec),
            unflatten(syms[len(outs):], state_spec))


def while_loop(cond, func, loop_vars, max_iterations=None, name="while_loop"):
    """Symbolic `while_loop` (see `gluonlite.control_flow.imperative.while_loop`).

    Args:
        cond: ``cond(*loop_vars) -> Symbol`` (a scalar).
        func: ``func(*loop_vars) -> (step_outputs, new_loop_vars)``; step_outputs None,
            one Symbol or a (nested) list/tuple; new_loop_vars as many
            Symbols as loop_vars holds, in any nesting.
        loop_vars: a Symbol or a non-empty (nested) list of Symbols; cond and func take its
            top-level elements as arguments.
        max_iterations: int >= 1; stacked outputs have this leading dimension.
        name: the stem of the bodies' subgraph names (``while_loop_cond0``,
            ``while_loop_func0``); the node is named ``_while_loop0`` ...

    Returns:
        (outputs, final_loop_vars) in the structures the imperative `while_loop` returns
        (MXNet 1.9.1's): `outputs` mirrors func's step output (one Symbol stays one Symbol,
        a list or tuple gives a list, None gives ``[]``), `final_loop_vars` mirrors
        `loop_vars`. Rows of the outputs past the last executed step are zeros.

    Raises:
        TypeError: cond/func not callable; non-Symbol loop vars or results; a name that is
            not a string.
        ValueError: bad max_iterations; empty loop_vars; func returning another number of
            loop vars; a loop var that func never uses.

    Example::

        outs, (i, s) = sym.contrib.while_loop(lambda i, s: i < 5,
                                              lambda i, s: (s, [i + 1, s + i]),
                                              [sym.var('i'), sym.var('s')], max_iterations=10)
        # outs is one Symbol: func's step output was one Symbol
    """
    checks.check_callable("while_loop", "cond", cond)
    checks.check_callable("while_loop", "func", func)
    max_iterations = checks.check_max_iterations("while_loop", max_iterations)
    structure = checks.LoopVars("while_loop", loop_vars, _is_sym, "Symbol")
    _refuse_np("_while_loop", structure.leaves)
    loop_vars = structure.leaves
    var_e = _entries("while_loop", "loop_vars", loop_vars)
    phs = make_placeholders("while_loop", "loop_vars", loop_vars)
    with _body_scope("while_loop", name, "_cond"), record_new_nodes() as created:
        pred = cond(*structure.args(phs))
    if not isinstance(pred, Symbol):
        raise TypeError(f"while_loop: cond must return a Symbol, got {type(pred).__name__}")
    cond_b = capture_body("while_loop", [pred], phs, created, what="cond")
    with _body_scope("while_loop", name, "_func"), record_new_nodes() as created:
        res = func(*structure.args(phs))
    if not isinstance(res, (list, tuple)) or len(res) != 2:
        raise TypeError(f"while_loop: func must return (step_outputs, new_loop_vars), got "
                        f"{type(res).__name__}")
    outs, out_spec = checks.flatten_result("while_loop", "func's step_outputs", res[0],
                                           _is_sym, "Symbol")
    new = structure.new_leaves(res[1], 0)
    func_b = capture_body("while_loop", outs + new, phs, created, what="func")
    union = _InputUnion(var_e)
    cond_locs, func_locs = union.locs(cond_b), union.locs(func_b)
    var_locs = [-1] * len(phs)
    for j, key in enumerate(func_b.keys):
        if key[0] == "ph":
            var_locs[key[1]] = j
    for k, loc in enumerate(var_locs):
        if loc < 0:
            raise ValueError(f"while_loop: loop_vars[{k}] is never used by func; every loop "
                             "var must feed the body (drop it from loop_vars, or use it)")
    attrs = {"num_args": len(union.entries) + 2, "num_outputs": len(outs) + len(new),
             "num_out_data": len(outs), "max_iterations": max_iterations,
             "cond_input_locs": cond_locs, "func_input_locs": func_locs,
             "func_var_locs": var_locs}
    node = _make_node("_while_loop", union.entries, attrs, [cond_b.symbol, func_b.symbol])
    syms = [Symbol([(node, i)]) for i in range(len(outs) + len(new))]
    return (unflatten(syms[:len(outs)], checks.step_output_spec(out_spec)),
            structure.result(syms[len(outs):]))


def cond(pred, then_func, else_func, name="cond"):
    """Symbolic `cond` (see `gluonlite.control_flow.imperative.cond`): one node that runs
    only the branch `pred` selects.

    Args:
        pred: a Symbol with one element (non-zero = then).
        then_func: a function of no arguments, run when `pred` is non-zero.
        else_func: a function of no arguments, run when `pred` is zero; it returns the
            same structure of Symbols as `then_func`.
        name: the stem of the bodies' subgraph names (``cond_pred0``, ``cond_then0``,
            ``cond_else0``); the node is named ``_cond0`` ...

    Returns:
        The structure the branches return, as Symbols.

    Raises:
        TypeError: a branch is not callable; pred is not a Symbol; a name that is not a
            string.
        ValueError: the branches return different structures (shapes are checked when the
            graph's shapes are inferred).

    Example::

        x = sym.var('x')
        y = sym.contrib.cond(x.sum() > 0, lambda: x * 2, lambda: x - 1)
        y.eval(x=nd.array([-1, -2]))[0]   # [-2, -3]: the else branch
    """
    checks.check_callable("cond", "then_func", then_func)
    checks.check_callable("cond", "else_func", else_func)
    if not isinstance(pred, Symbol):
        raise TypeError(f"cond: pred must be a Symbol, got {type(pred).__name__}")
    _refuse_np("_cond", [pred])
    _entries("cond", "pred", [pred])
    with _body_scope("cond", name, "_pred"):
        pred_b = capture_body("cond", [pred], [], [], what="pred")
    branches = []
    for fname, f, suffix in (("then_func", then_func, "_then"),
                             ("else_func", else_func, "_else")):
        with _body_scope("cond", name, suffix), record_new_nodes() as created:
            res = f()
        leaves, spec = checks.flatten_result("cond", f"{fname}'s result", res, _is_sym,
                                             "Symbol")
        if not leaves:
            raise ValueError(f"cond: {fname} returned nothing; it must return a Symbol or a "
                             "list of Symbols")
        branches.append((capture_body("cond", leaves, [], created, what=fname), leaves, spec))
    (then_b, then_l, then_spec), (else_b, _, else_spec) = branches
    if then_spec != else_spec:
        raise ValueError(f"cond: then_func returned {structure_str(then_spec)} but else_func "
                         f"returned {structure_str(else_spec)}; both branches must return the "
                         "same structure")
    union = _InputUnion([])
    attrs = {"cond_input_locs": union.locs(pred_b), "then_input_locs": union.locs(then_b),
             "else_input_locs": union.locs(else_b)}
    attrs.update(num_args=len(union.entries) + 3, num_outputs=len(then_l))
    node = _make_node("_cond", union.entries, attrs,
                      [pred_b.symbol, then_b.symbol, else_b.symbol])
    return unflatten([Symbol([(node, i)]) for i in range(len(then_l))], then_spec)

