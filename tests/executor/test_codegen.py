"""Generated plan code (gluonlite.executor.codegen): readable source that names its nodes,
tracebacks that point at the failing step, outputs a caller skips, and backward variants
that agree with each other."""
import linecache
import traceback

import numpy as np
import pytest

from gluonlite import nd, sym
from gluonlite.executor import compile_plan
from gluonlite.executor.plan import StepView


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


@pytest.mark.parametrize("static", [False, True])
def test_a_skipped_output_is_not_written_and_the_others_are(static):
    rng = np.random.RandomState(0)
    args = _inputs(rng)
    plan = compile_plan(_mlp(), [a.shape for a in args], ["float64"] * 3, static_alloc=static)
    full, _ = plan.forward(args)
    act, total = np.full((2, 4), 7.0), np.full((1,), 7.0)
    plan.forward_fn(True, False, skip=[1])(args, [act, total], None)
    np.testing.assert_allclose(act, full[0])
    assert (total == 7.0).all()
    # The sum node feeds only the skipped output: it is not in the generated step.
    key = ("forward", True, False, frozenset({1}), ())
    assert "'total'" not in plan._sources[key]


def test_random_steps_run_even_when_their_output_is_skipped():
    x = sym.var("x")
    s = sym.Group([x * 2, sym.random.uniform(shape=(3,), name="draw")])
    plan = compile_plan(s, [(3,)], ["float32"])
    src_key = ("forward", True, False, frozenset({1}), ())
    plan.forward_fn(True, False, skip=[1])
    assert "'draw'" in plan._sources[src_key]


def test_backward_from_a_step_view_equals_backward_from_saved_values():
    rng = np.random.RandomState(1)
    args = _inputs(rng)
    plan = compile_plan(_mlp(), [a.shape for a in args], ["float64"] * 3, is_train=True,
                        grad_inputs=[True] * 3, static_alloc=True)
    heads = [rng.randn(2, 4), rng.randn(1)]
    _, saved = plan.forward(args)
    plain = plan.backward(saved, heads)
    stacks = plan.new_saved_stacks(3)
    plan.forward(args, outs=[np.empty((2, 4)), np.empty(1)], save_to=(stacks, 2))
    viewed = plan.backward(StepView(stacks, 2, args), heads)
    for a, b in zip(plain, viewed):
        np.testing.assert_allclose(b, a, rtol=1e-12)
    # and both equal autograd's
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
