"""`_cond`: run the then or the else body, as the pred body decides.

The node holds ``pred``, ``then_func`` and ``else_func`` in ``p['_subgraphs']``;
``cond_input_locs``, ``then_input_locs`` and ``else_input_locs`` give the node input feeding
each input of these bodies. Both branches return the same shapes and dtypes.

This file is the meaning: a plain kernel (pred's plan, then the branch's) and a plain
gradient (the branch's backward). A compiled plan runs the registered lowering
(`gluonlite.control_flow.lowering`: the branches' plans compiled with static alloc and kept
on the plan step), checked against these.
"""
import numpy as np

from ..context import host_scalar
from ..ops import attrs as A
from .body import Steps, body_plan, infer_body, loop_operator

__all__ = ["BRANCH_LOCS", "pred_value"]

BRANCH_LOCS = ("then_input_locs", "else_input_locs")


def _infer_branches(p, ins, what):
    """Infer both branches' shapes or dtypes (`what`): (node inputs filled in, [then outputs,
    else outputs])."""
    new_ins, branch_outs = list(ins), []
    for b, key in enumerate(BRANCH_LOCS):
        locs = p[key]
        b_in, b_out = infer_body("cond", key[:4] + "_func", p["_subgraphs"][1 + b],
                                 **{what: [ins[i] for i in locs]})
        for i, v in zip(locs, b_in):
            new_ins[i] = v if new_ins[i] is None else new_ins[i]
        branch_outs.append(b_out)
    return new_ins, branch_outs


def _cond_shape(p, ins):
    _, pred = infer_body("cond", "pred", p["_subgraphs"][0],
                         in_shapes=[ins[i] for i in p.cond_input_locs])
    if pred[0] is not None and int(np.prod(pred[0])) != 1:
        raise ValueError(f"cond: pred must be a scalar (one element, e.g. shape (1,)), got "
                         f"shape {tuple(pred[0])}")
    new_ins, (then_o, else_o) = _infer_branches(p, ins, "in_shapes")
    for j, (a, b) in enumerate(zip(then_o, else_o)):
        if a is not None and b is not None and tuple(a) != tuple(b):
            raise ValueError(f"cond: output {j} has shape {tuple(a)} in then_func but "
                             f"{tuple(b)} in else_func; both branches must return the same "
                             "shapes")
    return new_ins, [b if a is None else a for a, b in zip(then_o, else_o)]


def _cond_dtype(p, ins):
    new_ins, branch_outs = _infer_branches(p, ins, "in_dtypes")
    for j, (a, b) in enumerate(zip(*branch_outs)):
        if a is not None and b is not None and np.dtype(a) != np.dtype(b):
            raise ValueError(f"cond: output {j} has dtype {np.dtype(a).name} in then_func but "
                             f"{np.dtype(b).name} in else_func")
    return new_ins, [a if a is not None else b for a, b in zip(*branch_outs)]


def pred_value(c):
    """The branch pred's output `c` as a Python bool (it must have one element).

    Example::

        from gluonlite.control_flow.cond import pred_value
        pred_value(np.array([0.5]))   # True; an array of two elements raises ValueError
    """
    if c.size != 1:
        raise ValueError(f"cond: pred must be a scalar (one element), got shape {c.shape}")
    return bool(host_scalar(c))


def _plan(body, args, rc, keep):
    return body_plan(body, [a.shape for a in args], [a.dtype for a in args], rc.is_train,
                     keep, rc.xp)


def _cond(p, rc, *xs):
    """_cond: run the then or the else body, as the pred body decides."""
    c_args = [xs[i] for i in p.cond_input_locs]
    (c,), _ = _plan(p["_subgraphs"][0], c_args, rc, False).forward(c_args)
    taken = pred_value(c)
    args = [xs[i] for i in p[BRANCH_LOCS[0 if taken else 1]]]
    plan = _plan(p["_subgraphs"][1 if taken else 2], args, rc, rc.need_grad)
    outs, saved = plan.forward(args)
    # the outputs are the node's own arrays, never a caller's input
    return (*[o.copy() for o in outs], Steps([plan], [saved] if rc.need_grad else None,
                                             int(taken)))


def _cond_vjp(p, rc, xs, ys, gys, need, dests=None):
    steps = ys[-1]
    if steps.saved is None:  # the forward kept nothing: run it again, keeping the branch
        steps = _cond(p, rc._replace(need_grad=True), *xs)[-1]
    acc = [None] * len(xs)
    heads = list(gys[:p.num_outputs])
    if all(h is None for h in heads):
        return acc
    g = steps.plans[0].backward(steps.saved[0], heads)
    for j, i in enumerate(p[BRANCH_LOCS[0 if steps.n else 1]]):
        if g[j] is not None:
            acc[i] = g[j].copy() if acc[i] is None else acc[i] + g[j]
    return acc


loop_operator("_cond", _cond, _cond_vjp, _cond_shape, _cond_dtype,
              {"num_args": A.Int(), "num_outputs": A.Int(), "cond_input_locs": A.IntList(),
               "then_input_locs": A.IntList(), "else_input_locs": A.IntList()},
              3, _cond.__doc__, writes_dests=False)
