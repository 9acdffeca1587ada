"""`_foreach`: run a body over axis 0 of its data inputs, carrying states from step to step.

The node (as MXNet writes it to JSON) holds its body in ``p['_subgraphs'][0]``. Node inputs
are ``data..., states..., remain...``; ``in_data_locs[k]``, ``in_state_locs[k]`` and
``remain_locs[k]`` say which body input (position in ``body.list_inputs()``) each feeds.
Body outputs are ``step outputs..., new states...``: the node's outputs are the step
outputs stacked over the steps (``num_out_data`` of them), then the final states.

This file is the meaning: a plain kernel (run the body's plan at every step, stack) and a
plain gradient (the body's backward over the saved steps in reverse). A compiled plan runs
the registered lowering instead (`gluonlite.control_flow.lowering`), checked against these.

Example::

    def step(x, h):   # step output and new state
        new = sym.tanh(x + h[0])
        return new, [new]
    outs, states = sym.contrib.foreach(step, sym.var("data"), [sym.var("h0")])   # the node
    outs.eval(data=nd.ones((3, 2)), h0=nd.zeros(2))[0].shape   # (3, 2)
"""

from ..ops import attrs as A
from . import checks
from .body import Steps, body_plan, infer_body, into_dests, loop_operator

__all__ = []


def _split(p, xs):
    """The node inputs as (data, states, remain)."""
    n_d, n_s = len(p.in_data_locs), len(p.in_state_locs)
    return xs[:n_d], xs[n_d:n_d + n_s], xs[n_d + n_s:]


def _body_values(p, data, states, remain):
    """Per body input, its value from the data, states and remain lists."""
    vals = [None] * (len(data) + len(states) + len(remain))
    for locs, values in ((p.in_data_locs, data), (p.in_state_locs, states),
                         (p.remain_locs, remain)):
        for loc, v in zip(locs, values):
            vals[loc] = v
    return vals


def _known_or(a, b):
    return b if a is None else a


def _row(x, t):
    """Row t of scanned data (a 1-D array gives shape (1,), as MXNet slices it)."""
    return x[t] if x.ndim > 1 else x[t:t + 1]


def _foreach_shape(p, ins):
    data, states, remain = _split(p, ins)
    row = [None if s is None else (tuple(s[1:]) or (1,)) for s in data]
    b_in, b_out = infer_body("foreach", "body", p["_subgraphs"][0],
                             in_shapes=_body_values(p, row, states, remain))
    n_steps = next((s[0] for s in data if s is not None), None)
    outs = [None if s is None or n_steps is None else (n_steps,) + tuple(s)
            for s in b_out[:p.num_out_data]]
    for k, before in enumerate(states):
        after = b_out[p.num_out_data + k]
        checks.check_state(k, (before, None), (after, None), 0)
        outs.append(_known_or(after, before))
    return _filled(p, ins, b_in), outs


def _foreach_dtype(p, ins):
    data, states, remain = _split(p, ins)
    b_in, b_out = infer_body("foreach", "body", p["_subgraphs"][0],
                             in_dtypes=_body_values(p, data, states, remain))
    for k, before in enumerate(states):
        checks.check_state(k, (None, before), (None, b_out[p.num_out_data + k]), 0)
    return _filled(p, ins, b_in), list(b_out)


def _filled(p, ins, b_in):
    """The node inputs with the states and remain inputs the body inferred filled in."""
    new_ins, n_d = list(ins), len(p.in_data_locs)
    for k, loc in enumerate(list(p.in_state_locs) + list(p.remain_locs)):
        new_ins[n_d + k] = _known_or(new_ins[n_d + k], b_in[loc])
    return new_ins


def _foreach(p, rc, *xs):
    """_foreach: run the body over axis 0 of the data inputs (see the module docstring)."""
    data, states, remain = _split(p, xs)
    n_out, n = p.num_out_data, data[0].shape[0]
    shapes = _body_values(p, [d.shape[1:] or (1,) for d in data], [s.shape for s in states],
                          [r.shape for r in remain])
    dtypes = _body_values(p, *[[x.dtype for x in part] for part in (data, states, remain)])
    plan = body_plan(p["_subgraphs"][0], shapes, dtypes, rc.is_train, rc.need_grad, rc.xp)
    stacked = [rc.xp.empty((n,) + tuple(s), dtype=d)
               for s, d in zip(plan.out_shapes[:n_out], plan.out_dtypes[:n_out])]
    kept = [] if rc.need_grad else None
    for t in range(n):
        outs, saved = plan.forward(_body_values(p, [_row(d, t) for d in data], states, remain))
        for j in range(n_out):
            stacked[j][t] = outs[j]
        states = outs[n_out:]
        if kept is not None:
            kept.append(saved)
    # the final states are the loop's own arrays, never a caller's input
    return (*stacked, *[s.copy() for s in states], Steps([plan] * n, kept, n))


def _foreach_vjp(p, rc, xs, ys, gys, need, dests=None):
    steps = ys[-1]
    if steps.saved is None:  # the forward kept nothing: run it again, keeping the steps
        steps = _foreach(p, rc._replace(need_grad=True), *xs)[-1]
    data, states, remain = _split(p, xs)
    n_out, xp = p.num_out_data, rc.xp
    g_data = [xp.zeros_like(d) if d.dtype.kind == "f" else None for d in data]
    g_remain = [None] * len(remain)
    carry = list(gys[n_out:n_out + len(states)])  # the states' gradients after the step
    for t in range(steps.n - 1, -1, -1):
        # a backward may add into the heads it is given: give it copies
        heads = [None if g is None else g[t].copy() for g in gys[:n_out]] + carry
        g = steps.plans[t].backward(steps.saved[t], heads)
        for gd, loc in zip(g_data, p.in_data_locs):
            if gd is not None and g[loc] is not None:
                _row(gd, t)[...] = g[loc]
        carry = [g[loc] for loc in p.in_state_locs]
        for k, loc in enumerate(p.remain_locs):
            if g[loc] is not None:  # the same input at every step: its gradients add up
                g_remain[k] = g[loc].copy() if g_remain[k] is None else g_remain[k] + g[loc]
    g_states = [None if c is None or s.dtype.kind != "f" else c.copy()
                for c, s in zip(carry, states)]
    return into_dests(xp, g_data + g_states + g_remain, dests)


loop_operator("_foreach", _foreach, _foreach_vjp, _foreach_shape, _foreach_dtype,
              {"num_args": A.Int(), "num_outputs": A.Int(), "num_out_data": A.Int(0),
               "in_data_locs": A.IntList(), "in_state_locs": A.IntList(),
               "remain_locs": A.IntList()}, 1, _foreach.__doc__)
