"""Tracing a user function into a loop or branch body (a Symbol of its own).

A body is what the user's function built while it ran: the nodes created during the call.
Everything it reaches that was built before (an outer computation it closes over) is cut at
the boundary and fed in as an input of the loop node, and every variable it reads (a
parameter, an outer input) becomes a node input too. The body Symbol then only holds fresh
variable nodes for those inputs, so it can be serialized and compiled on its own; the node
keeps, per body input, which outer entry feeds it (``('outer', entry)``) or which loop
placeholder it is (``('ph', k)``).
"""
from ..symbol.symbol import Node, Symbol, single_entry, topo_nodes, var
from ..ops import registry
from ..symbol.naming import new_name

__all__ = ["make_placeholders", "capture_body", "Body"]


def make_placeholders(fname, argname, symbols):
    """Fresh variables standing for loop inputs inside a body, named ``{name}-{index}`` as
    MXNet names them (made unique when the same symbol is passed twice).

    Args:
        fname: the operator's name, for messages ('foreach', 'while_loop').
        argname: the argument the symbols came from ('data', 'init_states'); not used in the names.
        symbols: the Symbols passed as loop inputs (one output each).

    Returns:
        A list of variable Symbols, one per input.

    Example::

        from gluonlite.control_flow.tracing import make_placeholders
        ph = make_placeholders('foreach', 'data', [sym.var('d'), sym.var('d')])
        [p.name for p in ph]   # ['d-0', 'd-0_1']
    """
    out, used = [], set()
    for k, s in enumerate(symbols):
        node, idx = s.outputs[0]
        base = f"{node.name}-{idx}"
        name, n = base, 1
        while name in used:
            name, n = f"{base}_{n}", n + 1
        used.add(name)
        out.append(var(name))
    return out


class Body:
    """A traced body.

    Attributes:
        symbol: the body Symbol (its own variables only).
        keys: per body input (``symbol.list_inputs()`` order), ``('ph', k)`` for placeholder
            k or ``('outer', (node, index))`` for an outer entry fed through the loop node.

    Example::

        from gluonlite.control_flow import tracing
        from gluonlite.symbol.symbol import record_new_nodes
        ph = tracing.make_placeholders('foreach', 'data', [sym.var('d')])
        with record_new_nodes() as created:
            y = sym.tanh(ph[0]) * sym.var('w')   # what the user's body function builds
        body = tracing.capture_body('foreach', [y], ph, created)   # a Body
        body.keys   # [('ph', 0), ('outer', (<Node w (var)>, 0))]
    """

    def __init__(self, symbol, keys):
        self.symbol, self.keys = symbol, keys


def capture_body(fname, heads, placeholders, created, what="body"):
    """Cut the nodes `heads` reach into a standalone body.

    Args:
        fname: 'foreach', 'while_loop' or 'cond' (for messages).
        heads: output Symbols of the user's function (each one output).
        placeholders: the placeholder Symbols (from `make_placeholders`).
        created: nodes created while the function ran (from
            `gluonlite.symbol.symbol.record_new_nodes`).
        what: default 'body': the function's name, for messages ('func', 'then_func').

    Returns:
        A `Body`.

    Raises:
        TypeError: a head is not a single-output Symbol.
        ValueError: two different variables of the same name reach the body.

    Example::

        from gluonlite.control_flow import tracing
        from gluonlite.symbol.symbol import record_new_nodes
        ph = tracing.make_placeholders('foreach', 'data', [sym.var('d')])
        with record_new_nodes() as created:
            y = sym.tanh(ph[0]) * sym.var('w')   # what the user's body function builds
        body = tracing.capture_body('foreach', [y], ph, created)
        body.symbol.list_inputs()   # ['d-0', 'w']: w is read from outside
    """
    ph_index = {id(p.outputs[0][0]): k for k, p in enumerate(placeholders)}
    inside = {id(n) for n in created}
    head_entries = [single_entry(fname, f"{what} output {j}", h) for j, h in enumerate(heads)]
    copies, cut_vars, keys_by_node = {}, {}, {}

    def boundary_var(entry, key, name, attrs):
        """The body variable standing for an outer entry (one per entry)."""
        k = (id(entry[0]), entry[1]) if key[0] == "outer" else key
        v = cut_vars.get(k)
        if v is None:
            v = Node(None, name, attrs, source=entry[0].source)
            cut_vars[k] = v
            keys_by_node[id(v)] = key
        return (v, 0)

    def map_entry(entry):
        node, idx = entry
        if id(node) in ph_index:
            return boundary_var(entry, ("ph", ph_index[id(node)]), node.name, {})
        if node.op is None:
            return boundary_var(entry, ("outer", entry), node.name, node.attrs)
        if id(node) not in inside:
            names = node.op.output_names(node.params)
            return boundary_var(entry, ("outer", entry), f"{node.name}_{names[idx]}", {})
        return (copies[id(node)], idx)

    for node in topo_nodes(head_entries):
        if node.op is None or id(node) not in inside or id(node) in ph_index:
            continue
        copies[id(node)] = Node(node.op, node.name, node.attrs, node.params,
                                [map_entry(e) for e in node.inputs], node.source)
    ident = registry.get("_copy")
    out, seen = [], set()
    for e in head_entries:
        m = map_entry(e)
        key = (id(m[0]), m[1])
        if m[0].op is None or key in seen:
            # a body output that is one of its inputs (or repeats an output) gets its own
            # copy, so each output has its own buffer, as MXNet's layout expects
            m = (Node(ident, new_name(None, "identity"), {}, ident.parse({})[0], [m], ""), 0)
        seen.add((id(m[0]), m[1]))
        out.append(m)
    sym = Symbol(out)
    var_nodes = [n for n in topo_nodes(out) if n.op is None]
    names = {}
    for n in var_nodes:
        other = names.setdefault(n.name, n)
        if other is not n:
            raise ValueError(f"{fname}: two different inputs of the {what} are both named "
                             f"{n.name!r}; give the variables distinct names")
    return Body(sym, [keys_by_node[id(n)] for n in var_nodes])
