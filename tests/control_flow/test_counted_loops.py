"""Counted while loops (gluonlite.control_flow.counting): a loop whose cond compares one
counter loop var with a constant that func steps by a constant runs its trip count without
evaluating cond per step, and gives the plain loop's results exactly."""
import numpy as np
import pytest

from gluonlite import sym
from gluonlite.control_flow.body import loop_optimizations
from gluonlite.control_flow.lowering.counting import find_counter
from gluonlite.symbol.symbol import topo_nodes
from gluonlite.test_utils import check_numeric_gradient
from harness import Spy, check_optimized_equals_plain, loop_steps, run_bound

N, H = 2, 3


def _loop_params(s):
    return next(n for n in topo_nodes(s.outputs)
                if n.op is not None and n.op.name == "_while_loop").params


def _accumulating_loop(cond, step_op, max_iterations, counter_as_output=False,
                       dtype="float32"):
    """h <- tanh(h * w + i) while cond(i); i <- step_op(i); outputs h (and i) per step.
    The counter feeds the body through a cast, so it may be an integer."""
    i0, h0, w = sym.var("i0"), sym.var("h0"), sym.var("w")

    def func(i, h):
        i_f = sym.cast(i, dtype=dtype).reshape((1, 1))
        h = sym.tanh(h * w + sym.broadcast_mul(sym.ones_like(h), i_f))
        outs = [h, i * 1] if counter_as_output else h
        return outs, [step_op(i), h]

    outs, last = sym.contrib.while_loop(cond, func, [i0, h0], max_iterations=max_iterations)
    outs = outs if isinstance(outs, list) else [outs]
    return sym.Group(outs + list(last))


def _args(i0, dtype=np.float32):
    rng = np.random.RandomState(0)
    return {"i0": np.array([i0], dtype=dtype), "h0": rng.randn(N, H).astype(np.float32),
            "w": rng.randn(N, H).astype(np.float32)}


CASES = [
    # (cond, step, i0, max_iterations): normal, cond false at entry, max_iterations first,
    # a float step whose running sum rounds, counting down, <=, !=.
    (lambda i, h: i < 5, lambda i: i + 1, 0.0, 8),
    (lambda i, h: i < 5, lambda i: i + 1, 7.0, 8),
    (lambda i, h: i < 50, lambda i: i + 1, 0.0, 6),
    (lambda i, h: i < 0.7, lambda i: i + 0.1, 0.0, 12),
    (lambda i, h: i > 2, lambda i: i - 1, 6.0, 8),
    (lambda i, h: i <= 4, lambda i: i + 2, 1.0, 8),
    (lambda i, h: i != 3, lambda i: i + 1, 0.0, 8),
]


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("train", [False, True])
def test_a_counted_loop_equals_the_plain_loop_exactly(case, train):
    cond, step, i0, max_it = CASES[case]
    s = _accumulating_loop(cond, step, max_it)
    assert find_counter(_loop_params(s)) is not None
    *_, exe = check_optimized_equals_plain(s, _args(i0), 0, 0, dtype="float32", train=train)
    # the trip count is known at entry: cond's body plan is never compiled, only func's
    step, = loop_steps(exe, "_while_loop")
    assert step.spec.counter is not None and {key[1] for key in step.runtime.plans} == {1}


def test_an_integer_counter_and_a_counter_read_as_an_output():
    s = _accumulating_loop(lambda i, h: i < 4, lambda i: i + 1, 6, counter_as_output=True)
    assert find_counter(_loop_params(s)) is not None
    args = _args(0, dtype=np.int32)
    _, counted, _ = check_optimized_equals_plain(s, args, 0, 0, dtype="float32")
    assert list(counted["output 1"].reshape(-1)) == [0, 1, 2, 3, 0, 0]  # the counter per step


def test_counted_loop_gradients_match_finite_differences():
    s = sym.sum(_accumulating_loop(lambda i, h: i < 3, lambda i: i + 1, 5, dtype="float64")[0]
                * 1.5)
    loc = {k: v.astype(np.float64) for k, v in _args(0.0).items()}
    with loop_optimizations(True):
        check_numeric_gradient(s, loc, grad_nodes=["h0", "w"], numeric_eps=1e-5, rtol=1e-4,
                               atol=1e-6, dtype=np.float64)


@pytest.mark.parametrize("cond, step", [
    (lambda i, h: sym.sum(h) < 5, lambda i: i + 1),       # cond reads a state
    (lambda i, h: i < 5, lambda i: i * 2),                # not a constant step
    (lambda i, h: (i < 5) * (i > -1), lambda i: i + 1),   # more than one comparison
])
def test_loops_that_do_not_count_are_left_alone(cond, step):
    s = _accumulating_loop(cond, step, 6)
    assert find_counter(_loop_params(s)) is None
    check_optimized_equals_plain(s, _args(1.0), 1e-6, 1e-6, dtype="float32")


@pytest.mark.parametrize("mode, steps", [("clip", 4), ("clip", 6), ("wrap", 6)])
@pytest.mark.parametrize("train", [False, True])
def test_rows_picked_by_the_counter_are_gathered_once(mode, steps, train, monkeypatch):
    """``squeeze(take(data, i))`` in a counted loop reads rows gathered for every step at
    entry (one take for the whole loop, none per step); past the data's end they clip or
    wrap as take does."""
    def make():
        data, h0, w = sym.var("data"), sym.var("h0"), sym.var("w")

        def func(i, h):
            x = sym.squeeze(sym.take(data, i, mode=mode), axis=0)
            h = sym.tanh(h * w + x)
            return h, [i + 1, h]

        outs, last = sym.contrib.while_loop(lambda i, h: i < steps, func,
                                            [sym.var("i0"), h0], max_iterations=6)
        return sym.Group((outs if isinstance(outs, list) else [outs]) + [last[1]])
    s = make()
    rng = np.random.RandomState(2)
    args = {"data": rng.randn(4, N, H).astype(np.float32), "i0": np.array([0.0], np.float32),
            "h0": rng.randn(N, H).astype(np.float32), "w": rng.randn(N, H).astype(np.float32)}
    # Values are exact; the data gradient of repeated (clipped, wrapped) rows is summed
    # once after the loop instead of step by step: the same up to rounding.
    plain, counted, _ = check_optimized_equals_plain(s, args, 1e-6, 1e-7, dtype="float32",
                                                     train=train)
    for k in ("output 0", "output 1"):
        np.testing.assert_array_equal(counted[k], plain[k])
    spy = Spy(monkeypatch)
    spy.kernel("take")
    calls = spy.calls["take kernel"]
    s = make()  # plans bind the kernels when they are compiled: new bodies, new plans
    run_bound(s, args, False, dtype="float32", train=train)
    assert len(calls) == steps  # the plain loop: one take per step
    del calls[:]
    run_bound(s, args, True, dtype="float32", train=train)
    # a view of data's rows while the steps stay inside them, else one gather
    assert len(calls) == (steps > len(args["data"]))
