"""Generated plan code (gluonlite.executor.codegen): readable source that names its nodes,
tracebacks that point at the failing step, outputs a caller skips, and backward variants
that agree with each other."""
import linecache
import traceback

import numpy as np
import pytest

from gluonlite import nd, sym
from gluonlite.control_flow.lowering.codegen import reverse_pass_function, step_loop
from gluonlite.control_flow.lowering.runtime import saved_stacks
from gluonlite.control_flow.lowering.deferred import LoopBody
from gluonlite.executor import compile_plan


def _mlp():
    x, w, b = sym.var("x"), sym.var("w"), sym.var("b")
    h = sym.FullyConnected(x, w, b, num_hidden=4, name="fc")
    return sym.Group([sym.tanh(h, name="act"), sym.sum(h, name="total")])


def _inputs(rng):
    return [rng.randn(2, 3), rng.randn(4, 3), rng.randn(4)]


def test_source_is_one_line_per_step_naming_its_node():
    plan = compile_plan(_mlp(), [(2, 3), (4, 3), (4,)], ["float64"] * 3, static_alloc=True)
    src = plan.source
    compile(src, "<check>", "exec")  # valid Python
    for name in ("'fc'", "'act'", "'total'"):
        assert sum(name in line for line in src.splitlines()) == 1, src


def test_a_failing_step_shows_its_line_in_the_traceback():
    x = sym.var("x")
    s = sym.Reshape(sym.exp(x, name="grow"), shape=(2, 3), name="bad_reshape")
    plan = compile_plan(sym.take(s, sym.var("i"), mode="raise", name="pick"),
                        [(6,), (1,)], ["float64", "float64"])
    with pytest.raises(ValueError) as info:
        plan.forward([np.ones(6), np.array([5.0])])
    frames = [f for f in traceback.extract_tb(info.tb) if f.filename.startswith("<gluonlite plan")]
    assert frames, "the generated forward is not in the traceback"
    line = linecache.getline(frames[-1].filename, frames[-1].lineno)
    assert "'pick'" in line and "take" in line


def test_plans_at_new_shapes_share_code_and_keep_their_tracebacks():
    rng = np.random.RandomState(1)
    plans = []
    for batch in (2, 3, 5):  # a decoder's growing length: one plan per shape, one source
        args = [rng.randn(batch, 3), rng.randn(4, 3), rng.randn(4)]
        plan = compile_plan(_mlp(), [a.shape for a in args], ["float64"] * 3)
        out, _ = plan.forward(args)
        h = args[0] @ args[1].T + args[2]
        np.testing.assert_allclose(out[0], np.tanh(h))
        np.testing.assert_allclose(out[1], h.sum(keepdims=True).reshape(out[1].shape))
        plans.append(plan)
    assert plans[0].source == plans[2].source
    del plans[:2]  # the shared code's source outlives the plans that made it
    x = sym.var("x")
    bad = sym.take(sym.exp(x, name="grow"), sym.var("i"), mode="raise", name="pick")
    for n in (6, 7):
        plan = compile_plan(bad, [(n,), (1,)], ["float64", "float64"])
        with pytest.raises(ValueError) as info:
            plan.forward([np.ones(n), np.array([9.0])])
        frame = [f for f in traceback.extract_tb(info.tb)
                 if f.filename.startswith("<gluonlite plan")][-1]
        assert "'pick'" in linecache.getline(frame.filename, frame.lineno)


@pytest.mark.parametrize("static", [False, True])
def test_a_skipped_output_is_not_written_and_the_others_are(static):
    rng = np.random.RandomState(0)
    args = _inputs(rng)
    plan = compile_plan(_mlp(), [a.shape for a in args], ["float64"] * 3, static_alloc=static)
    full, _ = plan.forward(args)
    act, total = np.full((2, 4), 7.0), np.full((1,), 7.0)
    plan.forward_fn(True, skip=[1])(args, [act, total])
    np.testing.assert_allclose(act, full[0])
    assert (total == 7.0).all()
    # The sum node feeds only the skipped output: it is not in the generated step.
    key = ("forward", True, frozenset({1}))
    assert "'total'" not in plan.sources[key]


def test_random_steps_run_even_when_their_output_is_skipped():
    x = sym.var("x")
    s = sym.Group([x * 2, sym.random.uniform(shape=(3,), name="draw")])
    plan = compile_plan(s, [(3,)], ["float32"])
    src_key = ("forward", True, frozenset({1}))
    plan.forward_fn(True, skip=[1])
    assert "'draw'" in plan.sources[src_key]
    with pytest.raises(TypeError):  # read-only
        plan.sources[src_key] = ""


def test_generated_backward_equals_autograd():
    """(The backward from a loop's rows of saved stacks is checked against this plain one
    in the step-loop test below.)"""
    rng = np.random.RandomState(1)
    args = _inputs(rng)
    plan = compile_plan(_mlp(), [a.shape for a in args], ["float64"] * 3, is_train=True,
                        grad_inputs=[True] * 3, static_alloc=True)
    heads = [rng.randn(2, 4), rng.randn(1)]
    _, saved = plan.forward(args)
    plain = plan.backward(saved, heads)
    xs = [nd.array(a, dtype="float64") for a in args]
    for x in xs:
        x.attach_grad()
    from gluonlite import autograd
    with autograd.record():
        h = nd.FullyConnected(*xs, num_hidden=4)
        outs = [nd.tanh(h), nd.sum(h)]
    autograd.backward(outs, [nd.array(g, dtype="float64") for g in heads])
    for x, g in zip(xs, plain):
        np.testing.assert_allclose(g, x.grad.asnumpy(), rtol=1e-10)


def _step_body():
    """h' = tanh(x * w + h): outputs (the step output, the new state)."""
    x, h, w = sym.var("x"), sym.var("h"), sym.var("w")
    new = sym.tanh(x * w + h, name="act")
    return sym.Group([new, new * 1])


@pytest.mark.parametrize("stacked", [False, True])
def test_a_generated_step_loop_and_its_reverse_equal_the_plan_run_step_by_step(stacked):
    """`step_loop` runs the steps in one function and `reverse_pass_function` their backward;
    both agree with calling `forward`/`backward` once per step, and the loop may run in
    pieces (start, stop) as a while_loop's cond requires."""
    rng = np.random.RandomState(4)
    T, shape = 5, (2, 3)
    xs, h0, w = rng.randn(T, *shape), rng.randn(*shape), rng.randn(*shape)
    plan = compile_plan(_step_body(), [shape] * 3, ["float64"] * 3, is_train=True,
                        grad_inputs=[True] * 3, static_alloc=True)
    # step by step
    h, saved_steps, ref_outs = h0, [], []
    for t in range(T):
        (y, h), s = plan.forward([xs[t], h, w])
        ref_outs.append(y.copy())
        saved_steps.append(s)
    heads = rng.randn(T, *shape)
    ref_g, carry, g_w = np.zeros_like(xs), rng.randn(*shape), 0
    carry0 = carry.copy()
    for t in range(T - 1, -1, -1):
        gx, gh, gw = plan.backward(saved_steps[t], [heads[t], carry])
        ref_g[t], carry, g_w = gx, gh, g_w + gw
    # generated: the stacked outputs and the carried state, rows of one stack each (or of
    # a list: any column indexable by step)
    out_stack, state_stack = np.empty((T,) + shape), np.empty((T,) + shape)
    outs = [out_stack, list(state_stack)]
    stacks = saved_stacks(plan, T) if stacked else None
    rows = [stacks[s] for s in plan.saved_ops] if stacked else None
    saved = None if stacked else []
    run = step_loop(plan, stacked, not stacked, (), (), [0], [(1, 1)])
    args = [None, h0, w]
    run(args, [xs], outs, rows, saved, 0, 2)
    run([None, state_stack[1], w], [list(xs)], outs, rows, saved, 2, T)
    np.testing.assert_allclose(out_stack, np.array(ref_outs), rtol=1e-12)
    # one loop around the body's steps, inlined (the 'act' step is a line of it, not a call)
    src = plan.sources[("loop", stacked, not stacked, frozenset(), (), (0,), ((1, 1),))]
    assert src.count("for step in range") == 1 and "'act'" in src
    if stacked:  # x and h are columns (an array, a list), w is the same at every step
        entering = [h0] + list(state_stack[:T - 1])
        steps = ([xs, entering, w], [stacks[s] for s in plan.saved_ops])
    else:
        steps = saved
    g_x = np.zeros_like(xs)
    reverse = reverse_pass_function(LoopBody(plan), None,
                                    (False, False, True) if stacked else None, 1, [1], [0],
                                    {2: 0})
    (g_h,), (g_w_sum,) = reverse(steps, [list(heads)], [carry0], [g_x], None, T - 1)
    np.testing.assert_allclose(g_x, ref_g, rtol=1e-12)
    np.testing.assert_allclose(g_h, carry, rtol=1e-12)
    np.testing.assert_allclose(g_w_sum, g_w, rtol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_scalar_and_binary_steps_call_their_ufunc_with_the_output_by_position(dtype):
    # The scalar (bound once in the data's dtype) and the output go by position, and no
    # `casting` is passed where inputs and output share a dtype: each is paid per call.
    x, y = sym.var("x"), sym.var("y")
    out = sym.elemwise_add(3 - x * 2, y, name="total")
    plan = compile_plan(out, [(2, 3), (2, 3)], [dtype] * 2, static_alloc=True)
    lines = [ln for ln in plan.source.splitlines() if "#" in ln]
    steps = [ln for ln in lines if "_scalar" in ln or "'total'" in ln]
    assert len(steps) == 3, plan.source
    for ln in steps:
        call = ln.split("#")[0]
        assert call.strip().startswith("u") and "out=" not in call and "casting" not in call, ln
    assert "K" in steps[0] and "K" in steps[1]  # the scalars, bound in the namespace
    rng = np.random.RandomState(0)
    a, b = rng.randn(2, 3).astype(dtype), rng.randn(2, 3).astype(dtype)
    (got,), _ = plan.forward([a, b])
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_allclose(got, 3 - a * 2 + b, rtol=1e-6)
