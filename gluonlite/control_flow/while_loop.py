"""`_while_loop`: run func while cond holds, at most ``max_iterations`` times.

The node holds ``cond`` and ``func`` in ``p['_subgraphs']``. ``cond_input_locs[j]`` /
``func_input_locs[j]`` give the node input feeding input j of cond / func;
``func_var_locs[k]`` the func input that is loop var k. func's outputs are ``step
outputs..., new loop vars...``; the node's outputs are the step outputs stacked with
``max_iterations`` rows (zeros past the last step, as MXNet's), then the final loop vars.

This file is the meaning: a plain kernel (ask cond, run func's plan, stack) and a plain
gradient (func's backward over the saved steps in reverse). A compiled plan runs the
registered lowering instead (`gluonlite.control_flow.lowering`), checked against these.
"""
import numpy as np

from ..context import host_scalar
from ..ops import attrs as A
from . import checks
from .body import Steps, body_plan, infer_body, into_dests, loop_operator

__all__ = ["WhileRoles"]


class WhileRoles:
    """Where each input of a `_while_loop`'s cond and func comes from (the index maps).

    Attributes:
        var_nodes: the node input index of each loop var.
        cond, func: per body input, ('var', k) for loop var k or ('in', node input index).
        summed: the node inputs func reads directly (their gradients are summed over the
            steps), in order.
        sum_index: {func input position: index in `summed`}.
        cond_vars, func_vars: (body input position, loop var k) of each body input that is
            a loop var (what a step refreshes from the current loop vars).
        func_fixed: per func input, whether it is a node input rather than a loop var.

    Args:
        p: the `_while_loop` node's params (its ``cond_input_locs``, ``func_input_locs``,
            ``func_var_locs``).

    Example::

        from gluonlite.control_flow.while_loop import WhileRoles
        from gluonlite.symbol.symbol import topo_nodes
        i, s, w = sym.var('i'), sym.var('s'), sym.var('w')   # w: read by func, not a loop var
        outs, _ = sym.contrib.while_loop(lambda i, s: i < 3, lambda i, s: (s * w, [i + 1, s + w]),
                                         [i, s], max_iterations=3)
        node = [n for n in topo_nodes(outs.outputs) if n.op and n.op.name == '_while_loop'][0]
        WhileRoles(node.params).func   # [('var', 1), ('in', 2), ('var', 0)]
    """

    def __init__(self, p):
        self.var_nodes = [p.func_input_locs[j] for j in p.func_var_locs]
        var_of_pos = {j: k for k, j in enumerate(p.func_var_locs)}
        self.cond = [("var", self.var_nodes.index(i)) if i in self.var_nodes else ("in", i)
                     for i in p.cond_input_locs]
        self.func = [("var", var_of_pos[j]) if j in var_of_pos else ("in", i)
                     for j, i in enumerate(p.func_input_locs)]
        self.summed = sorted({i for kind, i in self.func if kind == "in"})
        self.sum_index = {j: self.summed.index(i) for j, (kind, i) in enumerate(self.func)
                          if kind == "in"}
        self.cond_vars = [(j, k) for j, (kind, k) in enumerate(self.cond) if kind == "var"]
        self.func_vars = [(j, k) for j, (kind, k) in enumerate(self.func) if kind == "var"]
        self.func_fixed = [kind == "in" for kind, _ in self.func]

    def node_input(self, role):
        """The node input index a role reads.

        Args:
            role: ('var', k) or ('in', node input index).

        Returns:
            The node input index (an int).

        Example::

            from gluonlite.control_flow.while_loop import WhileRoles
            from gluonlite.symbol.symbol import topo_nodes
            i, s, w = sym.var('i'), sym.var('s'), sym.var('w')   # w: read by func, not a loop var
            outs, _ = sym.contrib.while_loop(lambda i, s: i < 3,
                                             lambda i, s: (s * w, [i + 1, s + w]),
                                             [i, s], max_iterations=3)
            node = [n for n in topo_nodes(outs.outputs) if n.op and n.op.name == '_while_loop'][0]
            roles = WhileRoles(node.params)
            roles.node_input(('in', 2)), roles.node_input(('var', 1))   # (2, 1)
        """
        kind, i = role
        return self.var_nodes[i] if kind == "var" else i


def by_role(roles, var_values, node_values):
    """Per body input, its value: loop var k's from `var_values`, a node input's from
    `node_values` (roles as `WhileRoles.cond` and `.func` give them).

    Args:
        roles: per body input, ('var', k) or ('in', node input index).
        var_values: the current loop vars' values.
        node_values: the node's inputs.

    Returns:
        A list of values, one per body input.

    Example::

        from gluonlite.control_flow.while_loop import by_role
        by_role([('var', 1), ('in', 2), ('var', 0)], ['i', 's'], ['n0', 'n1', 'n2'])
        # ['s', 'n2', 'i']
    """
    return [var_values[r[1]] if r[0] == "var" else node_values[r[1]] for r in roles]


def _known_or(a, b):
    return b if a is None else a


def _check_pred(shape):
    if shape is not None and int(np.prod(shape)) != 1:
        raise ValueError(f"while_loop: cond must return a scalar (one element, e.g. shape "
                         f"(1,)), got shape {tuple(shape)}")


def _while_shape(p, ins):
    roles = WhileRoles(p)
    cur = [ins[i] for i in roles.var_nodes]
    c_in, c_out = infer_body("while_loop", "cond", p["_subgraphs"][0],
                             in_shapes=by_role(roles.cond, cur, ins))
    _check_pred(c_out[0])
    f_in, f_out = infer_body("while_loop", "func", p["_subgraphs"][1],
                             in_shapes=by_role(roles.func, cur, ins))
    new_ins = list(ins)
    for body_roles, b_in in ((roles.cond, c_in), (roles.func, f_in)):
        for r, s in zip(body_roles, b_in):
            new_ins[roles.node_input(r)] = _known_or(new_ins[roles.node_input(r)], s)
    n_out = p.num_out_data
    outs = [None if s is None else (p.max_iterations,) + tuple(s) for s in f_out[:n_out]]
    for k, idx in enumerate(roles.var_nodes):
        before, after = ins[idx], f_out[n_out + k]
        checks.check_loop_var("while_loop", k, (before, None), (after, None), 0)
        outs.append(_known_or(after, before))
    return new_ins, outs


def _while_dtype(p, ins):
    roles = WhileRoles(p)
    cur = [ins[i] for i in roles.var_nodes]
    f_in, f_out = infer_body("while_loop", "func", p["_subgraphs"][1],
                             in_dtypes=by_role(roles.func, cur, ins))
    new_ins = list(ins)
    for r, d in zip(roles.func, f_in):
        new_ins[roles.node_input(r)] = _known_or(new_ins[roles.node_input(r)], d)
    for k, idx in enumerate(roles.var_nodes):
        checks.check_loop_var("while_loop", k, (None, ins[idx]),
                              (None, f_out[p.num_out_data + k]), 0)
    return new_ins, list(f_out)


def _plan(body, args, rc, keep):
    return body_plan(body, [a.shape for a in args], [a.dtype for a in args], rc.is_train,
                     keep, rc.xp)


def _while_loop(p, rc, *xs):
    """_while_loop: run func while cond holds, at most max_iterations times; stacked step
    outputs have max_iterations rows, zeros past the last step."""
    roles, n_out, xp = WhileRoles(p), p.num_out_data, rc.xp
    cond, func = p["_subgraphs"]
    cur = [xs[i] for i in roles.var_nodes]
    rows, plans, kept = [], [], [] if rc.need_grad else None
    for _ in range(p.max_iterations):
        c_args = by_role(roles.cond, cur, xs)
        (c,), _ = _plan(cond, c_args, rc, False).forward(c_args)
        _check_pred(c.shape)
        if not host_scalar(c):
            break
        f_args = by_role(roles.func, cur, xs)
        plans.append(_plan(func, f_args, rc, rc.need_grad))
        outs, saved = plans[-1].forward(f_args)
        rows.append(outs[:n_out])
        cur = outs[n_out:]
        if kept is not None:
            kept.append(saved)
    plan = _plan(func, by_role(roles.func, cur, xs), rc, False)  # the output shapes
    stacked = [xp.zeros((p.max_iterations,) + tuple(s), dtype=d)
               for s, d in zip(plan.out_shapes[:n_out], plan.out_dtypes[:n_out])]
    for t, outs in enumerate(rows):
        for j in range(n_out):
            stacked[j][t] = outs[j]
    return (*stacked, *[v.copy() for v in cur], Steps(plans, kept, len(rows)))


def _while_vjp(p, rc, xs, ys, gys, need, dests=None):
    steps = ys[-1]
    if steps.saved is None:  # the forward kept nothing: run it again, keeping the steps
        steps = _while_loop(p, rc._replace(need_grad=True), *xs)[-1]
    roles, n_out = WhileRoles(p), p.num_out_data
    acc = [None] * len(xs)

    def add(i, g):
        if g is not None:
            acc[i] = g.copy() if acc[i] is None else acc[i] + g

    carry = list(gys[n_out:n_out + len(roles.var_nodes)])  # loop vars' gradients after a step
    for t in range(steps.n - 1, -1, -1):
        # a backward may add into the heads it is given: give it copies
        heads = [None if g is None else g[t].copy() for g in gys[:n_out]] + carry
        g = steps.plans[t].backward(steps.saved[t], heads)
        carry = [g[j] for j in p.func_var_locs]
        for j, (kind, i) in enumerate(roles.func):
            if kind == "in":  # the same input at every step: its gradients add up
                add(i, g[j])
    for k, i in enumerate(roles.var_nodes):
        if xs[i].dtype.kind == "f":
            add(i, carry[k])
    return into_dests(rc.xp, acc, dests)


loop_operator("_while_loop", _while_loop, _while_vjp, _while_shape, _while_dtype,
              {"num_args": A.Int(), "num_outputs": A.Int(), "num_out_data": A.Int(0),
               "max_iterations": A.Int(), "cond_input_locs": A.IntList(),
               "func_input_locs": A.IntList(), "func_var_locs": A.IntList()},
              2, _while_loop.__doc__)
