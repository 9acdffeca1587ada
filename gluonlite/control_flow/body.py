"""Loop and branch bodies: shape/dtype inference through them and their plain plans.

A body is a Symbol; its inputs are addressed by position in ``body.list_inputs()`` (the
index maps of the loop node point there). The loops' plain kernels run a body's plan per
step (`body_plan`); a registered lowering (`gluonlite.control_flow.lowering`) compiles and
keeps its own. This is the loops' machinery, as `gluonlite.ops.registry` is the
operators': the semantics of each loop are in its own file (`foreach.py`,
`while_loop.py`, `cond.py`).
"""
from collections import OrderedDict

import numpy as np

from ..executor.lowering import lowerings, lowerings_enabled
from ..executor.plan import compile_plan
from ..ops import registry
from ..ops.fast import Fast
from ..symbol.symbol import topo_nodes
from ..executor.infer import infer_graph

__all__ = ["body_vars", "infer_body", "wants_grad", "body_plan", "body_plans", "Steps",
           "loop_operator", "into_dests", "loop_optimizations", "loop_optimizations_enabled"]

# The loops' optimizations are their registered lowerings: the switch is the compiler's.
loop_optimizations = lowerings
loop_optimizations_enabled = lowerings_enabled

# id(body Symbol) -> (the Symbol, {key: Plan}), the bodies used last (a plan holds its
# Symbol, so the cache is bounded instead of weak; a Symbol's == builds a node, hence ids)
_PLANS, _MAX_BODIES = OrderedDict(), 256


def body_plan(body, shapes, dtypes, is_train, keep, xp):
    """The plain plan of `body` (a Symbol) for inputs of these shapes and dtypes, compiled
    on first use and kept (for the 256 bodies used last): every floating input wants a
    gradient when `keep`. Loops nested in it run their plain kernels too (the reference is
    plain all the way down); nothing in it is shared between calls but the plan itself.

    Args:
        body: the body's `Symbol`.
        shapes: the input shapes, aligned with the body's `list_inputs()`.
        dtypes: the input dtypes, aligned likewise.
        is_train: compile for training mode.
        keep: whether the floating inputs want gradients.
        xp: the array module (numpy or cupy).

    Returns:
        The cached `gluonlite.executor.plan.Plan`.

    Example::

        from gluonlite.control_flow import body as cf_body
        b = sym.tanh(sym.var('x')) + sym.var('h')   # a loop body
        plan = cf_body.body_plan(b, [(2, 3), (2, 3)], ['float32'] * 2, False, False, np)
        outs, saved = plan.forward([np.ones((2, 3), np.float32)] * 2)   # tanh(1) + 1
    """
    key = (tuple(map(tuple, shapes)), tuple(np.dtype(d) for d in dtypes), bool(is_train),
           bool(keep), xp.__name__)
    held = _PLANS.get(id(body))
    if held is None:
        held = _PLANS[id(body)] = (body, {})
        if len(_PLANS) > _MAX_BODIES:
            _PLANS.popitem(last=False)
    _PLANS.move_to_end(id(body))
    plans = held[1]
    plan = plans.get(key)
    if plan is None:
        if len(plans) > 64:  # many distinct shapes: keep memory bounded
            plans.clear()
        grad = [wants_grad(d) for d in key[1]] if keep else None
        with lowerings(False):
            plan = plans[key] = compile_plan(body, list(key[0]), list(key[1]),
                                             is_train=is_train, grad_inputs=grad, xp=xp)
    return plan


def body_vars(body):
    """The variable nodes of `body`, in `list_inputs()` order.

    Example::

        from gluonlite.control_flow import body as cf_body
        b = sym.tanh(sym.var('x')) + sym.var('h')   # a loop body
        [v.name for v in cf_body.body_vars(b)]   # ['x', 'h']
    """
    return [n for n in topo_nodes(body.outputs) if n.op is None]


def infer_body(fname, which, body, in_shapes=None, in_dtypes=None):
    """Infer a body's shapes (or dtypes) from what is known of its inputs.

    Args:
        fname: the operator's name, for messages ('while_loop').
        which: the body's name, for messages ('func').
        body: the body's `Symbol`.
        in_shapes: default None: per body input (position) its shape, None where unknown.
            Give this or `in_dtypes`.
        in_dtypes: default None: per body input its dtype, None where unknown (read when
            `in_shapes` is None).

    Returns:
        (inputs, outputs): the inferred value per body input and per body output.

    Raises:
        ValueError: the body does not fit its inputs (the message names the body and node).

    Example::

        from gluonlite.control_flow import body as cf_body
        b = sym.tanh(sym.var('x')) + sym.var('h')   # a loop body
        cf_body.infer_body('foreach', 'body', b, [(2, 3), None])
        # ([(2, 3), (2, 3)], [(2, 3)]): h's shape follows from x's
    """
    vars_ = body_vars(body)
    if in_shapes is not None:
        known = {v.name: s for v, s in zip(vars_, in_shapes) if s is not None}
        try:
            values, _ = infer_graph(body, known, None, default_dtype=None, what="shape")
        except ValueError as e:
            raise ValueError(f"{fname}: in {which}: {e}") from None
    else:
        known = {v.name: d for v, d in zip(vars_, in_dtypes) if d is not None}
        try:
            _, values = infer_graph(body, None, known, default_dtype=None, what="dtype")
        except ValueError as e:
            raise ValueError(f"{fname}: in {which}: {e}") from None
    ins = [values.get((id(v), 0)) for v in vars_]
    outs = [values.get((id(n), i)) for n, i in body.outputs]
    return ins, outs


def wants_grad(dtype):
    """Whether a body input of this dtype can take a gradient (floating point only).

    Args:
        dtype: any dtype spelling numpy accepts.

    Returns:
        True for a floating dtype, else False.

    Example::

        from gluonlite.control_flow.body import wants_grad
        wants_grad('float32'), wants_grad('int32')   # (True, False)
    """
    return np.dtype(dtype).kind == "f"


def body_plans(body):
    """The plans `body_plan` compiled for `body` so far (to inspect them).

    Example::

        from gluonlite.control_flow import body as cf_body
        b = sym.tanh(sym.var('x')) + sym.var('h')   # a loop body
        cf_body.body_plan(b, [(2, 3), (2, 3)], ['float32'] * 2, False, False, np)
        len(cf_body.body_plans(b))   # 1
    """
    return list(_PLANS.get(id(body), (None, {}))[1].values())


class Steps:
    """What a loop's plain kernel keeps for its gradient (its opaque stateful output).

    Attributes:
        plans: per executed step, the body plan that ran it.
        saved: per executed step, what `Plan.forward` saved (None when the kernel was told
            no gradient would be asked for: the gradient then runs the loop again).
        n: how many steps ran (for `_cond`: 1 when the then branch ran, else 0).

    Example::

        from gluonlite.control_flow.body import Steps
        steps = Steps(plans=[], saved=[], n=0)   # what a loop that ran no step keeps
    """

    __slots__ = ("plans", "saved", "n")

    def __init__(self, plans, saved, n):
        self.plans, self.saved, self.n = plans, saved, n


def loop_operator(name, kernel, vjp, shape, dtype, attrs, n_subgraphs, doc, writes_dests=True):
    """Register a loop or branch operator: node inputs ``data0...`` (the bodies are in the
    params' ``_subgraphs``, counted in ``num_args``), ``num_outputs`` visible outputs and
    a hidden last one, the kernel's opaque state for its vjp (`Steps`); `writes_dests`: the
    vjp takes `dests` (`into_dests`).

    Args:
        name: the operator's registered name ('_foreach', '_while_loop', '_cond').
        kernel: the forward kernel ``kernel(p, rc, *xs)``.
        vjp: the backward ``vjp(p, rc, xs, ys, gys, need, dests=None)``.
        shape: the shape inference rule.
        dtype: the dtype inference rule.
        attrs: the operator's attribute declarations (parsed into its params).
        n_subgraphs: how many of ``num_args`` are bodies rather than node inputs.
        doc: the operator's docstring.
        writes_dests: default True: the vjp accepts `dests` (`into_dests`).

    Returns:
        The registered operator.

    Example::

        from gluonlite.ops import registry
        registry.get('_foreach').name   # '_foreach', registered by loop_operator
    """
    return registry.register(
        name, inputs=lambda p: [f"data{i}" for i in range(p.num_args - n_subgraphs)],
        outputs=lambda p: p.num_outputs + 1, visible=lambda p: p.num_outputs, attrs=attrs,
        vjp=vjp, shape=shape, dtype=dtype, doc=doc, signature=(),
        same_dtype=(),  # loop inputs mix dtypes (int counters, float states)
        # the plain vjp given a caller's arrays writes into them (`into_dests`)
        fast=Fast(vjp=vjp, writes_dests=True) if writes_dests else None,
        stateful=True)(kernel)


def into_dests(xp, grads, dests):
    """`grads` with each one that has a caller's array in `dests` copied there (the vjp's
    `dests`, `Fast.writes_dests`): that array is then the gradient.

    Args:
        xp: the array module (numpy or cupy).
        grads: the list of gradients (None where none); updated in place.
        dests: None, or per gradient None or the caller's array to copy it into.

    Returns:
        `grads`, with the copied entries replaced by their `dests` arrays.

    Example::

        from gluonlite.control_flow.body import into_dests
        dest = np.zeros(2)
        grads = into_dests(np, [np.ones(2), None], [dest, None])
        grads[0] is dest   # True: the gradient was copied into the caller's array
    """
    if dests is None:
        return grads
    for i, (g, d) in enumerate(zip(grads, dests)):
        if g is not None and d is not None:
            xp.copyto(d, g)
            grads[i] = d
    return grads
