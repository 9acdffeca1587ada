"""Loop and branch nodes -> one ONNX node each, the body as a subgraph.

- ``_foreach`` -> ``Scan``: data are scan inputs, states are carried; gluonlite's body gives
  (step outputs, new states), ONNX's (new states, step outputs), so the outputs are reordered.
- ``_while_loop`` -> ``Loop``: cond runs once before the loop (the initial condition) and once
  at the end of each step on the new loop vars (the next condition). Stacked outputs get
  `max_iterations` rows (zeros past the last step), as gluonlite's.
- ``_cond`` -> ``If``: cond runs in the outer graph; then/else become branches.

Bodies read the node's other inputs (parameters, free variables) by their outer names, which
ONNX subgraphs may do, so nothing is copied into the body.
"""
import numpy as np

from ..control_flow.while_loop import WhileRoles
from ._converters import _reg
from ._graph import ExportError


def _to_bool_scalar(g, x):
    return g.node("Cast", [g.node("Reshape", [x, g.ints([])])], to=9)  # 9: BOOL


def _inline(g, body, env_of, shape_of, dtype_of, errors, where):
    """Convert `body` into `g`; its input j reads ONNX name ``env_of(j)``."""
    names = body.list_inputs()
    env = {nm: env_of(j) for j, nm in enumerate(names)}
    shapes = {nm: shape_of(j) for j, nm in enumerate(names)}
    dtypes = {nm: dtype_of(j) for j, nm in enumerate(names)}
    return g.convert(body, env, shapes, dtypes, errors, where)


def _outputs(sub, body, outs, order):
    """Declare `outs[k]` for k in `order` as `sub`'s graph outputs (through fresh Identity
    names, as one tensor may be two outputs or an input)."""
    for k in order:
        node, i = body.outputs[k]
        y = sub.node("Identity", [outs[k]], hint="body_out")
        shape, dtype = sub.info.get((id(node), i), (None, None))
        sub.outputs.append(sub.value_info(y, shape, dtype))


def _failed(outs):
    return any(o is None for o in outs)


@_reg("_foreach")
def _foreach(g, n, ins, errors, where):
    p = n.params
    body = p._subgraphs[0]
    n_d, n_s = len(p.in_data_locs), len(p.in_state_locs)
    sub = g.sub()
    role = {}  # body input position -> (onnx name, shape, dtype)
    declared = []
    for k, loc in enumerate(p.in_state_locs):
        j = n_d + k
        name = g.names.fresh(f"{n.name}_state{k}")
        role[loc] = (name, g.in_shape(n, j), g.in_dtype(n, j))
        declared.append(role[loc])
    for k, loc in enumerate(p.in_data_locs):
        s = g.in_shape(n, k)
        name = g.names.fresh(f"{n.name}_x{k}")
        role[loc] = (name, None if s is None else s[1:], g.in_dtype(n, k))
        declared.append(role[loc])
    for k, loc in enumerate(p.remain_locs):
        j = n_d + n_s + k
        role[loc] = (ins[j], g.in_shape(n, j), g.in_dtype(n, j))
    for name, shape, dtype in declared:
        sub.inputs.append(sub.value_info(name, shape, dtype))
    outs = _inline(sub, body, lambda j: role[j][0], lambda j: role[j][1], lambda j: role[j][2],
                   errors, f"{where}{n.name}/")
    if _failed(outs):
        return None
    n_out = p.num_out_data
    _outputs(sub, body, outs, list(range(n_out, n_out + n_s)) + list(range(n_out)))
    graph = sub.make_graph(f"{n.name}_body")
    res = g.node("Scan", ins[n_d:n_d + n_s] + ins[:n_d], n_out=n_s + n_out, hint=n.name,
                 body=graph, num_scan_inputs=n_d)
    res = res if isinstance(res, list) else [res]
    return res[n_s:] + res[:n_s]


def _pad_rows(g, y, rank, rows):
    """`y` (n, ...) padded with zero rows to (rows, ...)."""
    n = g.node("Slice", [g.node("Shape", [y]), g.ints([0]), g.ints([1])])
    missing = g.node("Sub", [g.ints([rows]), n])
    pads = g.node("Concat", [g.ints([0] * rank), missing, g.ints([0] * (rank - 1))], axis=0)
    return g.node("Pad", [y, pads])


@_reg("_while_loop")
def _while_loop(g, n, ins, errors, where):
    p = n.params
    cond_body, func_body = p._subgraphs[0], p._subgraphs[1]
    roles = WhileRoles(p)
    cur = [ins[i] for i in roles.var_nodes]
    var_shapes = [g.in_shape(n, i) for i in roles.var_nodes]
    var_dtypes = [g.in_dtype(n, i) for i in roles.var_nodes]

    def pick(role_list, var_names, what):
        def f(j):
            kind, i = role_list[j]
            if what == "name":
                return var_names[i] if kind == "var" else ins[i]
            if what == "shape":
                return var_shapes[i] if kind == "var" else g.in_shape(n, i)
            return var_dtypes[i] if kind == "var" else g.in_dtype(n, i)
        return f

    c0 = _inline(g, cond_body, pick(roles.cond, cur, "name"), pick(roles.cond, cur, "shape"),
                 pick(roles.cond, cur, "dtype"), errors, f"{where}{n.name}/cond/")
    sub = g.sub()
    it = g.names.fresh(f"{n.name}_iter")
    cin = g.names.fresh(f"{n.name}_cond_in")
    sub.inputs.append(sub.value_info(it, [], np.int64))
    sub.inputs.append(sub.value_info(cin, [], np.bool_))
    body_vars = []
    for k in range(len(cur)):
        name = g.names.fresh(f"{n.name}_var{k}")
        body_vars.append(name)
        sub.inputs.append(sub.value_info(name, var_shapes[k], var_dtypes[k]))
    f_outs = _inline(sub, func_body, pick(roles.func, body_vars, "name"),
                     pick(roles.func, body_vars, "shape"), pick(roles.func, body_vars, "dtype"),
                     errors, f"{where}{n.name}/func/")
    if _failed(f_outs) or _failed(c0):
        return None
    n_out = p.num_out_data
    new_vars = f_outs[n_out:]
    c1 = _inline(sub, cond_body, pick(roles.cond, new_vars, "name"),
                 pick(roles.cond, new_vars, "shape"), pick(roles.cond, new_vars, "dtype"),
                 errors, f"{where}{n.name}/cond/")
    if _failed(c1):
        return None
    cout = sub.node("Identity", [_to_bool_scalar(sub, c1[0])], hint="cond_out")
    sub.outputs.append(sub.value_info(cout, [], np.bool_))
    _outputs(sub, func_body, f_outs, list(range(n_out, len(f_outs))) + list(range(n_out)))
    graph = sub.make_graph(f"{n.name}_body")
    n_vars = len(cur)
    res = g.node("Loop", [g.const(np.int64(p.max_iterations)), _to_bool_scalar(g, c0[0])] + cur,
                 n_out=n_vars + n_out, hint=n.name, body=graph)
    res = res if isinstance(res, list) else [res]
    stacked = []
    for k, y in enumerate(res[n_vars:]):
        shape = g.shape_of(n, k)
        if shape is None:
            raise ExportError(f"the shape of output {k} is unknown at export (give in_shapes)")
        stacked.append(_pad_rows(g, y, len(shape), p.max_iterations))
    return stacked + res[:n_vars]


@_reg("_cond")
def _cond(g, n, ins, errors, where):
    p = n.params
    cond_body, then_body, else_body = p._subgraphs[:3]

    def inline_into(b, body, locs, what):
        return _inline(b, body, lambda j: ins[locs[j]], lambda j: g.in_shape(n, locs[j]),
                       lambda j: g.in_dtype(n, locs[j]), errors, f"{where}{n.name}/{what}/")

    c = inline_into(g, cond_body, p.cond_input_locs, "cond")
    branches = {}
    for key, body, locs in (("then_branch", then_body, p.then_input_locs),
                            ("else_branch", else_body, p.else_input_locs)):
        sub = g.sub()
        outs = inline_into(sub, body, locs, key[:4])
        if _failed(outs):
            return None
        _outputs(sub, body, outs, range(len(outs)))
        branches[key] = sub.make_graph(f"{n.name}_{key[:4]}")
    if _failed(c):
        return None
    return g.node("If", [_to_bool_scalar(g, c[0])], n_out=int(p.num_outputs), hint=n.name,
                  **branches)
