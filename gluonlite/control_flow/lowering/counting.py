"""Counted while loops: the trip count known before the first step.

Most while loops in models count: ``cond`` compares a counter loop var with a constant and
``func`` steps the counter by a constant (the seed benchmark's ``i < length`` with
``i + 1``). Their counter values, and so the number of steps, follow from the counter's
value at entry. A `Counter` computes them once per call, in the counter's dtype (a running
sum adds as the steps would, and cond's own comparison kernel runs over all the values), and
the loop then runs exactly that many steps: no cond evaluation per step, and the counter is
fed from the precomputed values instead of being incremented by the body (the increment
drops out of the step when nothing else in the step reads it). Results are the plain loop's,
bit for bit (tested with `loop_optimizations(False)`).
"""
import numpy as np

from ...context import host_scalar
from ...ops import registry
from ...ops.scatter import run_start
from ..body import body_vars

__all__ = ["Counter", "find_counter", "gathered_rows", "gather"]

_COMPARISONS = ("_lesser_scalar", "_lesser_equal_scalar", "_greater_scalar",
                "_greater_equal_scalar", "_not_equal_scalar", "_equal_scalar")
# How a step moves the counter, as the sign of the scalar in a running sum.
_STEPS = {"_plus_scalar": 1, "_minus_scalar": -1}


class Counter:
    """A while_loop's counter: loop var `k`, tested by `cond` and stepped by `step`.

    Attributes:
        k: the loop var index of the counter.
        cond: (operator, params) of the comparison that is cond's output.
        step: (sign, scalar): the counter's new value is ``i + sign * scalar``.

    Example::

        from gluonlite.symbol.symbol import topo_nodes
        from gluonlite.control_flow.lowering.counting import find_counter
        i, s = sym.var('i'), sym.var('s')
        out, _ = sym.contrib.while_loop(lambda i, s: i < 3, lambda i, s: (s * 2, [i + 1, s + 1]),
                                        [i, s], max_iterations=5)
        node = [n for n in topo_nodes(out.outputs) if n.op and n.op.name == '_while_loop'][0]
        counter = find_counter(node.params)
        counter.k, counter.step   # (0, (1, 1.0)): loop var 0, stepped by +1
    """

    def __init__(self, k, cond, step):
        self.k, self.cond, self.step = k, cond, step

    def values(self, rc, i0, max_iterations):
        """The counter's values at the start of each step, and the number of steps.

        Args:
            rc: the RunCtx.
            i0: the counter's value at entry (one element).
            max_iterations: the loop's bound.

        Returns:
            (values, n): values has max_iterations + 1 rows of i0's shape (row t is the
            counter before step t; row n after the last step), and n the number of steps.

        Example::

            from gluonlite.symbol.symbol import topo_nodes
            from gluonlite.control_flow.lowering.counting import find_counter
            i, s = sym.var('i'), sym.var('s')
            out, _ = sym.contrib.while_loop(lambda i, s: i < 3,
                                            lambda i, s: (s * 2, [i + 1, s + 1]),
                                            [i, s], max_iterations=5)
            node = [n for n in topo_nodes(out.outputs) if n.op and n.op.name == '_while_loop'][0]
            from gluonlite.ops.registry import RunCtx
            values, n = find_counter(node.params).values(RunCtx(False, np),
                                                         np.zeros(1, 'float32'), 5)
            n   # 3 steps: i = 0, 1, 2 pass i < 3
        """
        xp, dtype = rc.xp, i0.dtype
        sign, scalar = self.step
        incr = dtype.type(scalar) if dtype.kind != "f" else np.asarray(scalar, dtype)
        terms = xp.empty((max_iterations + 1,) + i0.shape, dtype=dtype)
        terms[0] = i0
        terms[1:] = incr if sign > 0 else -incr
        # A running sum adds in the counter's dtype one step at a time, as the steps would.
        values = xp.add.accumulate(terms, axis=0, dtype=dtype)
        if max_iterations == 0:
            return values, 0
        op, p = self.cond
        going = op.kernel(p, rc, values[:max_iterations]).reshape(max_iterations, -1)[:, 0]
        stop = going == 0
        # the first step cond refuses (or max_iterations), found on the device: one read of
        # one number, where nonzero's data-dependent size would read on the host itself
        first = xp.where(stop.any(), stop.argmax(), max_iterations)
        return values, int(host_scalar(first))


def find_counter(p):
    """The `Counter` of a `_while_loop` node's params, or None when its cond is not a
    comparison of one counter loop var with a constant that func steps by a constant (the
    decisions, `decisions`, ask once per compiled plan).

    Args:
        p: the loop node's params (its `Params`, with the bodies in ``_subgraphs``).

    Returns:
        A `Counter`, or None.

    Example::

        from gluonlite.ops.registry import RunCtx
        from gluonlite.symbol.symbol import topo_nodes
        from gluonlite.control_flow.lowering.counting import find_counter
        i0, h0 = sym.var('i0'), sym.var('h0')
        outs, _ = sym.contrib.while_loop(lambda i, h: i < 10, lambda i, h: (h, [i + 1, h * 2]),
                                         [i0, h0], max_iterations=20)
        loop_node = [n for n in topo_nodes(outs.outputs) if n.op and n.op.name == '_while_loop'][0]
        rc = RunCtx(False, np)
        find_counter(loop_node.params).values(rc, np.zeros(1, "float32"), 20)[1]   # 10
    """
    cond, func = p["_subgraphs"]
    (c_node, c_out), = cond.outputs if len(cond.outputs) == 1 else [(None, 0)]
    if c_node is None or c_node.op is None or c_node.op.name not in _COMPARISONS or \
            c_node.inputs[0][0].op is not None or len(body_vars(cond)) != 1:
        return None
    var_nodes = [p.func_input_locs[j] for j in p.func_var_locs]
    node_input = p.cond_input_locs[0]
    if node_input not in var_nodes:
        return None
    k = var_nodes.index(node_input)
    f_vars = body_vars(func)
    counter_var = f_vars[p.func_var_locs[k]]
    new, i = func.outputs[p.num_out_data + k]
    if new.op is None or new.op.name not in _STEPS or i != 0 or \
            new.inputs[0][0] is not counter_var:
        return None
    return Counter(k, (registry.get(c_node.op.name), c_node.params),
                   (_STEPS[new.op.name], new.params.scalar))


def gathered_rows(p, body, counter):
    """The rows a counted loop's func picks by its counter: for each
    ``squeeze(take(D, i, axis=0), axis=0)`` in func's plan (`body`, its `LoopBody`) where
    `i` is the counter and `D` is not a loop var, (the squeeze's slot, func input position
    of D, take params). With the counter's values known at entry, the loop gathers these
    rows for every step at once and gives them to the steps (`codegen.step_loop`'s
    `given`). Found once per body (kept in `LoopBody.gathered`).

    Args:
        p: the loop node's params (its `Params`, with the bodies in ``_subgraphs``).
        body: func's `LoopBody`; the result is kept in its `gathered`.
        counter: the loop's `Counter` (`find_counter`).

    Returns:
        A list of (slot, func input position, take params).

    Example::

        from gluonlite.symbol.symbol import topo_nodes
        from gluonlite.executor import compile_plan
        from gluonlite.control_flow.lowering.counting import find_counter, gathered_rows
        from gluonlite.control_flow.lowering.deferred import LoopBody
        i, s, D = sym.var('i'), sym.var('s'), sym.var('D')
        row = lambda i: sym.squeeze(sym.take(D, i, axis=0), axis=0)   # row i of D
        out, _ = sym.contrib.while_loop(lambda i, s: i < 3, lambda i, s: (s, [i + 1, s + row(i)]),
                                        [i, s], max_iterations=5)
        node = [n for n in topo_nodes(out.outputs) if n.op and n.op.name == '_while_loop'][0]
        func = node.params['_subgraphs'][1]   # inputs s, i, D
        plan = compile_plan(func, [(2,), (1,), (5, 2)], ['float32'] * 3, static_alloc=True)
        found = gathered_rows(node.params, LoopBody(plan), find_counter(node.params))
        [(slot, d) for slot, d, _ in found]   # [(6, 2)]: func input 2 (D) is read by row
    """
    found, plan = body.gathered, body.plan
    if found is None:
        counter_pos = p.func_var_locs[counter.k]
        var_positions = set(p.func_var_locs)
        made_by = {st.outs[0]: st for st in plan.steps}
        found = []
        for st in plan.steps:
            if st.op.name != "squeeze" or st.p.axis not in (0, (0,)):
                continue
            tk = made_by.get(st.ins[0])
            if tk is None or tk.op.name != "take" or tk.p.axis != 0 or tk.p.mode == "raise":
                continue
            data, idx = tk.ins
            if idx == counter_pos and data < plan.n_inputs and data not in var_positions:
                found.append((st.outs[0], data, tk.p))
        body.gathered = found
    return found


def gather(rc, data, params, counts):
    """take(data, counts, axis=0) over every step's counter at once: row t is what step t's
    ``squeeze(take(data, i_t))`` reads (the same kernel, so the same clipping or wrapping).
    Counters that step by one through rows of `data` (the usual case) give a view, not a
    copy.

    Args:
        rc: the step's `RunCtx` (its array module, mode, spec and runtime).
        data: the array rows are taken from (axis 0).
        params: the params of the body's `take` node (its mode).
        counts: the counter's value at each step, an array.

    Returns:
        A (steps, ...) array: a view of `data` for a run of consecutive counters, else the `take`
        kernel's result.

    Example::

        from gluonlite.ops.registry import RunCtx, get
        from gluonlite.control_flow.lowering.counting import gather
        take = get('take').parse({'axis': '0'})[0]
        gather(RunCtx(False, np), np.arange(10.).reshape(5, 2), take, np.array([1., 2.]))
        # [[2. 3.] [4. 5.]]: rows 1 and 2, a view
    """
    idx = counts.reshape(-1)
    n = idx.size
    # on a device, reading the first counter on the host would sync: gather instead
    if n and rc.xp is np and float(idx[0]).is_integer():
        first = run_start(rc.xp, idx)
        if first is not None and 0 <= first and first + n <= data.shape[0]:
            return data[first:first + n]
    return registry.get("take").kernel(params, rc, data, idx)
