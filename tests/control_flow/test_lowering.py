"""The loops' lowering against their plain kernels (issue 27): every registered lowering runs
a case here with `loop_optimizations` on and off (same outputs and gradients), the plain
kernels run alone, and what the compiler keeps of a lowering (a frozen decision, the runtime
on the plan step) is where the design says."""
import inspect

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import sym
from gluonlite.control_flow.body import loop_optimizations
from gluonlite.executor import compile_plan
from gluonlite.executor.lowering import lowering_of
from gluonlite.ops.fast import Fast
from gluonlite.ops.registry import Operator, Traits
from gluonlite.symbol.symbol import topo_nodes
from harness import check_optimized_equals_plain, loop_steps

N, H = 2, 3


def _foreach():
    def body(x, states):
        h = sym.tanh(sym.FullyConnected(x, sym.var("w"), sym.var("b"), num_hidden=H) +
                     states[0] * states[1])
        return [h, h * 2], [h, states[0]]
    outs, last = sym.contrib.foreach(body, sym.var("d"), [sym.var("h0"), sym.var("h1")])
    return sym.Group(outs + last), {"d": (4, N, 5), "h0": (N, H), "h1": (N, H),
                                    "w": (H, 5), "b": (H,)}


def _while_loop():
    def func(i, h):
        h = sym.tanh(h * sym.var("w") + 0.5)
        return h, [i + 1, h]
    outs, last = sym.contrib.while_loop(lambda i, h: (i < sym.var("n")).sum() > 0, func,
                                        [sym.var("i0"), sym.var("h0")], max_iterations=5)
    return sym.Group([outs, last[1]]), {"i0": (1,), "h0": (N, H), "w": (N, H), "n": (1,)}


def _cond():
    x, a = sym.var("x"), sym.var("a")
    out = sym.contrib.cond(sym.sum(x) > 0, lambda: [x * a, sym.tanh(a)], lambda: [x - a, a * 2])
    return sym.Group(out), {"x": (N, H), "a": (N, H)}


CASES = {"_foreach": _foreach, "_while_loop": _while_loop, "_cond": _cond}


def _args(shapes, seed):
    rng = np.random.RandomState(seed)
    args = {k: rng.randn(*s) for k, s in shapes.items()}
    if "i0" in args:
        args["i0"], args["n"] = np.zeros(1), np.array([3.0])
    return args


def test_every_loop_operator_has_a_lowering_and_a_case_here():
    assert {n for n in ("_foreach", "_while_loop", "_cond") if lowering_of(n)} == set(CASES)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_lowering_equals_the_plain_kernel(name, seed):
    s, shapes = CASES[name]()
    _, _, exe = check_optimized_equals_plain(s, _args(shapes, seed), 1e-10, 1e-12,
                                             infer_after=True)
    steps = loop_steps(exe, name)  # its training and inference plans
    assert steps and all(st.spec is not None and st.kernel is not mx.ops.get(name).kernel
                         for st in steps)


@pytest.mark.parametrize("name", sorted(CASES))
def test_with_the_lowerings_off_the_plan_runs_the_plain_kernel(name):
    s, shapes = CASES[name]()
    names = s.list_inputs()
    with loop_optimizations(False):
        assert lowering_of(name) is None
        plan = compile_plan(s, [shapes[n] for n in names], ["float64"] * len(names))
    step, = [st for st in plan.steps if st.op.name == name]
    assert (step.spec, step.runtime, step.rc) == (None, None, None)
    assert step.kernel is mx.ops.get(name).kernel and step.vjp is mx.ops.get(name).vjp


def test_a_decision_is_frozen_and_the_runtime_is_on_the_step():
    s, shapes = _foreach()
    names = s.list_inputs()
    plan = compile_plan(s, [shapes[n] for n in names], ["float64"] * len(names),
                        is_train=True, grad_inputs=[True] * len(names))
    step, = [st for st in plan.steps if st.op.name == "_foreach"]
    with pytest.raises(AttributeError, match="frozen"):
        step.spec.hoist = None
    assert "hoist 1 projection" in repr(step.spec)
    assert step.rc.spec is step.spec and step.rc.runtime is step.runtime
    assert not hasattr(step.spec, "plans") and not hasattr(step.spec, "buffers")


def test_the_plain_gradient_runs_the_forward_again_when_it_kept_nothing():
    """A plain kernel told that no gradient follows keeps no steps; its vjp then runs the
    loop again, keeping them, and gives the gradients it would have given."""
    s, shapes = _foreach()
    args = _args(shapes, 3)
    op = mx.ops.get("_foreach")
    node = next(n for n in topo_nodes(s.outputs) if n.op is op)
    xs = [args[src.name] for src, _ in node.inputs]
    rc = mx.ops.RunCtx(True, np, need_grad=False)
    ys = op.kernel(node.params, rc, *xs)
    assert ys[-1].saved is None
    gys = [np.ones_like(y) for y in ys[:-1]]
    again = op.vjp(node.params, rc, xs, list(ys), gys, [True] * len(xs))
    kept = op.kernel(node.params, rc._replace(need_grad=True), *xs)
    want = op.vjp(node.params, rc, xs, list(kept), gys, [True] * len(xs))
    for a, b in zip(again, want):
        np.testing.assert_array_equal(a, b)


def test_an_operator_is_its_groups_and_holds_no_loop_concern():
    names = set(inspect.signature(Operator.__init__).parameters) - {"self"}
    assert names == {"name", "signature", "rules", "traits", "fast", "storage", "doc"}
    assert {"stateful", "shape_from_values"} <= set(Traits.__slots__)
    assert not {"prepare", "decide", "lowering"} & set(Fast.__slots__)
    assert all(mx.ops.get(n).stateful for n in ("_foreach", "_while_loop", "_cond", "RNN"))
