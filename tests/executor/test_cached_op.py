"""CachedOp: compiled once per signature, static_alloc/static_shape give the same results as
a plain plan (no stale buffers), and under autograd.record() it is one tape node."""
import numpy as np
import pytest

import gluonlite.executor.cached_op as cached_op_module
from gluonlite import autograd, cpu, nd, sym
from gluonlite.executor import CachedOp


def _mlp():
    x = sym.var("x")
    h = sym.relu(sym.FullyConnected(x, num_hidden=8, name="fc1"))
    h = sym.tanh(sym.FullyConnected(h, num_hidden=8, name="fc2")) * 0.5 + h
    return sym.FullyConnected(h, num_hidden=3, name="fc3")


def _params(rng, n_in=5):
    shapes = {"fc1_weight": (8, n_in), "fc1_bias": (8,), "fc2_weight": (8, 8),
              "fc2_bias": (8,), "fc3_weight": (3, 8), "fc3_bias": (3,)}
    return {k: nd.array(rng.standard_normal(s) * 0.5) for k, s in shapes.items()}


def _args(op, x, params):
    return [x if n == "x" else params[n] for n in op.input_names]


def _imperative(x, p):
    fc = nd.FullyConnected
    h = nd.relu(fc(x, p["fc1_weight"], p["fc1_bias"], num_hidden=8))
    h = nd.tanh(fc(h, p["fc2_weight"], p["fc2_bias"], num_hidden=8)) * 0.5 + h
    return fc(h, p["fc3_weight"], p["fc3_bias"], num_hidden=3)


@pytest.fixture
def count_compiles(monkeypatch):
    calls = []
    real = cached_op_module.compile_plan

    def counting(*a, **k):
        calls.append(a[1])
        return real(*a, **k)
    monkeypatch.setattr(cached_op_module, "compile_plan", counting)
    return calls


def test_compiled_once_per_signature(count_compiles):
    rng = np.random.default_rng(0)
    params = _params(rng)
    op = CachedOp(_mlp())
    for _ in range(3):
        op(*_args(op, nd.array(rng.standard_normal((4, 5))), params))
    assert len(count_compiles) == 1
    op(*_args(op, nd.array(rng.standard_normal((6, 5))), params))  # new batch size
    assert len(count_compiles) == 2
    op(*_args(op, nd.array(rng.standard_normal((4, 5))), params))  # seen before
    assert len(count_compiles) == 2
    with autograd.train_mode():                                    # training plan
        op(*_args(op, nd.array(rng.standard_normal((4, 5))), params))
    assert len(count_compiles) == 3


@pytest.mark.parametrize("flags", [dict(static_alloc=True),
                                   dict(static_alloc=True, static_shape=True)])
def test_static_results_identical_to_plain_over_repeated_calls(flags):
    rng = np.random.default_rng(1)
    params = _params(rng)
    plain, static = CachedOp(_mlp()), CachedOp(_mlp(), **flags)
    kept = []
    for i in range(4):
        x = nd.array(rng.standard_normal((4, 5)))
        want = plain(*_args(plain, x, params))[0].asnumpy()
        got = static(*_args(static, x, params))[0]
        np.testing.assert_array_equal(got.asnumpy(), want)
        np.testing.assert_allclose(want, _imperative(x, params).asnumpy(), rtol=1e-5,
                                   atol=1e-6)
        kept.append((got, want))
    # results handed out earlier are not overwritten by later calls
    for got, want in kept:
        np.testing.assert_array_equal(got.asnumpy(), want)


def test_static_shape_recompiles_for_a_new_shape():
    rng = np.random.default_rng(2)
    params = _params(rng)
    op = CachedOp(_mlp(), static_alloc=True, static_shape=True)
    for n in (4, 7, 4):
        x = nd.array(rng.standard_normal((n, 5)))
        out = op(*_args(op, x, params))[0]
        assert out.shape == (n, 3)
        np.testing.assert_allclose(out.asnumpy(), _imperative(x, params).asnumpy(), rtol=1e-5,
                                   atol=1e-6)


@pytest.mark.parametrize("static_alloc", [False, True])
def test_one_tape_node_and_gradients_flow_around_it(static_alloc):
    rng = np.random.default_rng(3)
    params = _params(rng)
    xv = rng.standard_normal((4, 5))
    op = CachedOp(_mlp(), static_alloc=static_alloc)

    def run(use_op):
        x = nd.array(xv)
        x.attach_grad()
        for p in params.values():
            p.attach_grad()
        with autograd.record():
            z = nd.sigmoid(x) * 2                       # imperative before
            out = op(*_args(op, z, params))[0] if use_op else _imperative(z, params)
            loss = (nd.square(out) + out).sum()         # imperative after
        if use_op:
            node = out._entry[0]
            assert node.label == "CachedOp"
            assert [e[0] for e in node.inputs if e is not None][0] is z._entry[0]
        loss.backward()
        return [x.grad.asnumpy()] + [params[k].grad.asnumpy() for k in sorted(params)]

    want = run(False)
    got = run(True)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_no_gradient_work_for_inputs_that_need_none(count_compiles):
    rng = np.random.default_rng(4)
    params = _params(rng)
    op = CachedOp(_mlp())
    x = nd.array(rng.standard_normal((4, 5)))
    params["fc3_bias"].attach_grad()
    with autograd.record():
        out = op(*_args(op, x, params))[0]
    out.backward()
    assert params["fc3_bias"].grad.asnumpy().tolist() == [4.0, 4.0, 4.0]
    plan = op.plans[0]
    # only fc3's bias wants a gradient: the backward touches the last node only
    assert [st.node.name for st in plan.bwd_steps] == ["fc3"]


def test_bad_calls_name_the_input():
    op = CachedOp(_mlp())
    with pytest.raises(ValueError, match=r"expected 7 inputs \(x, fc1_weight"):
        op(nd.ones((2, 5)))
    args = [nd.ones((2, 5))] * 6 + [np.ones(3)]
    with pytest.raises(TypeError, match="input 'fc3_bias' must be an NDArray"):
        op(*args)


@pytest.mark.parametrize("loop", ["foreach", "while_loop"])
def test_a_hybridized_loop_call_leaves_no_reference_cycles(loop):
    """Steady-state calls free everything by reference counting: nothing waits for the
    garbage collector (which a per-call cycle would make run, and memory wait for it)."""
    import gc
    from gluonlite import gluon
    from gluonlite.bench.models import ForeachRNN, WhileRNN, zero_states
    layer = (ForeachRNN if loop == "foreach" else WhileRNN)(gluon.rnn.LSTMCell(4, input_size=3), 5)
    layer.initialize()
    layer.hybridize(static_alloc=True)
    x = nd.ones((5, 2, 3))
    x.attach_grad()
    states = zero_states(layer, 2, 4)

    def calls():
        layer(x, states)
        with autograd.record():
            out = layer(x, states)
        out.backward()

    calls()
    gc.collect()
    existing = {id(o) for o in gc.get_objects()}  # older objects may die during the call
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        calls()
        gc.collect()
        left = [type(o).__name__ for o in gc.garbage if id(o) not in existing]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert left == [], f"cyclic garbage after a call: {left[:20]}"


def test_plans_lists_each_compiled_plan_once_in_compile_order():
    x = sym.var("x")
    op = CachedOp(sym.tanh(x) * 2)
    assert op.plans == ()
    op(nd.ones((2, 3)))
    op(nd.ones((2, 3)))
    op(nd.ones((4, 3)))
    assert [pl.steps[0].op.name for pl in op.plans] == ["tanh", "tanh"]
    assert [pl.out_shapes for pl in op.plans] == [[(2, 3)], [(4, 3)]]  # compile order
    assert isinstance(op.plans, tuple)
    exe = (sym.tanh(x) * 2).bind(cpu(), {"x": nd.ones((2, 3))})
    assert exe.plans == ()
    exe.forward()
    exe.forward(is_train=True)
    assert [pl.is_train for pl in exe.plans] == [False, True]
