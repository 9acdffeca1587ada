"""`nd.contrib.foreach / while_loop / cond`: Python loops and branches over nd operators.

These are the reference semantics of control flow: every step runs ordinary nd operators,
so autograd records them like any other code and gradients reach loop vars, data and every
closed-over array. The graph versions (`gluonlite.control_flow.symbolic`) are tested
against these.
"""
from ..base import unflatten
from ..ndarray.ndarray import NDArray
from . import checks
from .. import ndarray

__all__ = ["foreach", "while_loop", "cond"]


def _is_nd(x):
    return isinstance(x, NDArray)


def _signature(arrays):
    return [(a.shape, a.dtype) for a in arrays]


def _stack_steps(per_step, n_rows=None):
    """Stack step outputs along a new axis 0; pad with zero rows up to `n_rows`."""
    nd = ndarray
    stacked = []
    for j in range(len(per_step[0]) if per_step else 0):
        items = [step[j] for step in per_step]
        s = nd.stack(*items, axis=0) if len(items) > 1 else items[0].expand_dims(0)
        if n_rows is not None and n_rows > len(items):
            pad = nd.zeros((n_rows - len(items),) + items[0].shape, ctx=items[0].context,
                           dtype=items[0].dtype)
            s = nd.concat(s, pad, dim=0)
        stacked.append(s)
    return stacked


def foreach(body, data, init_states):
    """Run `body` on each slice of `data` along axis 0, threading `states` through.

    Reference semantics::

        states, outs = init_states, []
        for t in range(data.shape[0]):
            out, states = body(data[t], states)
            outs.append(out)
        return stack(outs), states

    Args:
        body: ``body(data_slice, states) -> (outputs, new_states)``; `outputs` may be None,
            one NDArray or a (nested) list; `new_states` has the structure of `init_states`.
        data: an NDArray or a list of NDArrays with the same length along axis 0.
        init_states: an NDArray, a (nested) list of NDArrays, or an empty list.

    Returns:
        (stacked_outputs, final_states): outputs stacked along a new axis 0, in the structure
        `body` returned them; states in the structure of `init_states`.

    Raises:
        TypeError: `body` is not callable; data/states/outputs that are not NDArrays.
        ValueError: empty data, data of different lengths, a state or step output whose
            count, shape or dtype changes (the message names it and the step).

    Example::

        data = nd.array([[1, 2], [3, 4], [5, 6]])   # three steps of two values
        outs, s = nd.contrib.foreach(lambda x, s: (x + s[0], [s[0] * 2]), data, [nd.ones(2)])
        # outs: [[2, 3], [5, 6], [9, 10]]; s: [[8, 8]]
    """
    checks.check_callable("foreach", "body", body)
    data_leaves, data_spec = checks.flatten_result("foreach", "data", data, _is_nd, "NDArray")
    if not data_leaves:
        raise ValueError("foreach: data is empty; give an NDArray or a list of NDArrays to "
                         "iterate over")
    n = data_leaves[0].shape[0]
    for i, d in enumerate(data_leaves):
        if d.shape[0] != n:
            raise ValueError(f"foreach: data[{i}] has length {d.shape[0]} along axis 0 but "
                             f"data[0] has {n}; every data array is sliced along axis 0 together")
    if n == 0:
        raise ValueError("foreach: data has length 0 along axis 0; there is nothing to iterate")
    state_leaves, state_spec = checks.flatten_result("foreach", "init_states", init_states,
                                                     _is_nd, "NDArray")
    states, steps, first, out_spec = init_states, [], None, None
    for t in range(n):
        sliced = unflatten([d[t] for d in data_leaves], data_spec)
        res = body(sliced, states)
        if not isinstance(res, (list, tuple)) or len(res) != 2:
            raise TypeError(f"foreach: body must return (outputs, new_states), got "
                            f"{type(res).__name__} at step {t}")
        outs, new_states = res
        out_leaves, spec = checks.flatten_result("foreach", "body's outputs", outs, _is_nd,
                                                 "NDArray")
        new_leaves, new_spec = checks.flatten_result("foreach", "body's new states",
                                                     new_states, _is_nd, "NDArray")
        if len(new_leaves) != len(state_leaves):
            raise ValueError(f"foreach: init_states has {len(state_leaves)} array(s) but body "
                             f"returned {len(new_leaves)} new states at step {t}; body must "
                             "return one new value per state")
        for k, (a, b) in enumerate(zip(state_leaves, new_leaves)):
            checks.check_state(k, (a.shape, a.dtype), (b.shape, b.dtype), t)
        if first is None:
            first, out_spec = _signature(out_leaves), spec
        else:
            checks.check_step_outputs("foreach", first, _signature(out_leaves), t)
        steps.append(out_leaves)
        states = unflatten(new_leaves, state_spec)
    return unflatten(_stack_steps(steps), out_spec), states


def _as_bool(value, fname, what, step):
    """A Python bool from cond's or a branch predicate's return value."""
    if isinstance(value, NDArray):
        if value.size != 1:
            verb = "be" if step is None else "return"
            at = "" if step is None else f" at step {step}"
            raise ValueError(f"{fname}: {what} must {verb} a scalar (one element, e.g. shape "
                             f"(1,)), got shape {value.shape}{at}")
        return bool(value.asscalar())
    try:
        return bool(value)
    except (TypeError, ValueError):
        raise TypeError(f"{fname}: {what} must return a scalar NDArray or a bool, got "
                        f"{type(value).__name__}") from None


def _split_func_result(fname, res, step):
    if not isinstance(res, (list, tuple)) or len(res) != 2:
        raise TypeError(f"{fname}: func must return (step_outputs, new_loop_vars), got "
                        f"{type(res).__name__} at step {step}")
    outs, out_spec = checks.flatten_result(fname, "func's step_outputs", res[0], _is_nd,
                                           "NDArray")
    return outs, out_spec, res[1]


def while_loop(cond, func, loop_vars, max_iterations=None):
    """Run `func` while `cond` holds, at most `max_iterations` times.

    Reference semantics::

        outs, step = [], 0
        while step < max_iterations and cond(*loop_vars):
            step_out, loop_vars = func(*loop_vars)
            outs.append(step_out); step += 1
        return stack(outs) padded with zero rows to max_iterations, loop_vars

    Args:
        cond: ``cond(*loop_vars)`` returning a scalar NDArray (non-zero = continue).
        func: ``func(*loop_vars) -> (step_outputs, new_loop_vars)``; step_outputs None, one
            NDArray or a (nested) list/tuple; new_loop_vars as many
            arrays as loop_vars holds, in any nesting.
        loop_vars: an NDArray or a non-empty (nested) list of NDArrays; cond and func take
            its top-level elements as arguments.
        max_iterations: int >= 1; the stacked outputs have this many rows.

    Returns:
        (outputs, final_loop_vars) in MXNet 1.9.1's structure: `outputs` mirrors func's step
        output (one NDArray stays one NDArray, a list or tuple gives a list, None gives
        ``[]``) and `final_loop_vars` mirrors `loop_vars` (one NDArray stays one NDArray, a
        list or tuple gives a list). Rows of `outputs` past the last executed step are zeros.
        When func never runs, `outputs` is ``[]``, as in MXNet 1.9.1 (a graph's loop, which
        knows its outputs without running, gives max_iterations zero rows).

    Raises:
        TypeError: cond/func not callable; non-NDArray loop vars or results.
        ValueError: missing or bad max_iterations, empty loop_vars, a changing number of
            loop vars or step outputs, a loop var or step output whose shape/dtype changes
            (named with its index and the step), a non-scalar condition.

    Example::

        outs, (i, s) = nd.contrib.while_loop(lambda i, s: i < 5,
                                             lambda i, s: (s, [i + 1, s + i]),
                                             [nd.array([0]), nd.array([1])], max_iterations=10)
        # outs is one NDArray of shape (10, 1): func's step output was one array
    """
    checks.check_callable("while_loop", "cond", cond)
    checks.check_callable("while_loop", "func", func)
    max_iterations = checks.check_max_iterations("while_loop", max_iterations)
    structure = checks.LoopVars("while_loop", loop_vars, _is_nd, "NDArray")
    loop_vars = structure.leaves
    sig_vars = _signature(loop_vars)
    steps, first, step, out_spec = [], None, 0, None
    while step < max_iterations and _as_bool(cond(*structure.args(loop_vars)), "while_loop",
                                             "cond", step):
        outs, out_spec, new = _split_func_result("while_loop",
                                                 func(*structure.args(loop_vars)), step)
        new = structure.new_leaves(new, step)
        for k, ((s0, d0), v) in enumerate(zip(sig_vars, new)):
            checks.check_loop_var("while_loop", k, (s0, d0), (v.shape, v.dtype), step)
        if first is None:
            first = _signature(outs)
        else:
            checks.check_step_outputs("while_loop", first, _signature(outs), step)
        steps.append(outs)
        loop_vars = new
        step += 1
    if not steps:
        # As in MXNet 1.9.1: func never ran, so there is no step output to stack or mirror.
        return [], structure.result(loop_vars)
    stacked = _stack_steps(steps, max_iterations)
    return unflatten(stacked, checks.step_output_spec(out_spec)), structure.result(loop_vars)


def cond(pred, then_func, else_func):
    """Run `then_func()` if `pred` is non-zero, else `else_func()`.

    Only the branch taken runs, so gradients flow only through it (and through whatever it
    closes over).

    Args:
        pred: a scalar NDArray (one element) or a Python bool.
        then_func, else_func: functions of no arguments returning the same structure of
            NDArrays.

    Returns:
        What the branch taken returned.

    Raises:
        TypeError: a branch is not callable.
        ValueError: `pred` has more than one element.

    Example::

        x = nd.array([1, -2, 3])
        y = nd.contrib.cond(x.sum() > 0, lambda: x * 2, lambda: x - 1)   # [2, -4, 6]
    """
    checks.check_callable("cond", "then_func", then_func)
    checks.check_callable("cond", "else_func", else_func)
    taken = _as_bool(pred, "cond", "pred", None) if not callable(pred) else \
        _as_bool(pred(), "cond", "pred", None)
    return then_func() if taken else else_func()
