"""Loop optimizations (hoisted input projections, gradients of invariant inputs summed once
after the reverse pass) give the same values and gradients as the plain per-step loop."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd, sym, autograd, gluon
from gluonlite.control_flow.body import body_plans, loop_optimizations
from gluonlite.control_flow.lowering.hoisting import foreach_hoist, while_hoist
from gluonlite.executor import compile_plan
from harness import Spy, check_optimized_equals_plain, loop_steps, run_bound
from gluonlite.symbol.symbol import topo_nodes
from gluonlite.test_utils import assert_almost_equal, check_numeric_gradient

T, N, I, H = 4, 3, 5, 6


def _loop_node(s, name):
    return next(n for n in topo_nodes(s.outputs) if n.op is not None and n.op.name == name)


def _same(s, args, **run_args):
    """The optimized loop against the plain one (float32, `run_bound`'s `run_args`);
    returns the optimized run's executor."""
    return check_optimized_equals_plain(s, args, 1e-5, 1e-5, dtype="float32", **run_args)[2]


def _rnn_step(x, h, w_i, b_i, w_h, b_h, flatten=True, no_bias=False):
    i2h = sym.FullyConnected(x, w_i, None if no_bias else b_i, num_hidden=H, flatten=flatten,
                             no_bias=no_bias)
    h2h = sym.FullyConnected(h, w_h, b_h, num_hidden=H)
    return sym.tanh(i2h + h2h)


def _rnn_body(v, no_bias=False):
    """A foreach body: one tanh-RNN step with the weights `v`, its output also the state."""
    def body(x, states):
        h = _rnn_step(x, states[0], v["w_i"], v["b_i"], v["w_h"], v["b_h"], no_bias=no_bias)
        return h, [h]
    return body


def _foreach_rnn():
    """The stacked outputs of a foreach tanh-RNN over `data` from state `h0`."""
    outs, _ = sym.contrib.foreach(_rnn_body(_vars()), sym.var("data"), [sym.var("h0")])
    return outs


def _weights(rng):
    return {"w_i": rng.randn(H, I) * 0.3, "b_i": rng.randn(H) * 0.1,
            "w_h": rng.randn(H, H) * 0.3, "b_h": rng.randn(H) * 0.1}


def _vars():
    return {k: sym.var(k) for k in ("w_i", "b_i", "w_h", "b_h")}


@pytest.mark.parametrize("no_bias", [False, True])
def test_foreach_projection_is_hoisted_and_equal(no_bias):
    outs, last = sym.contrib.foreach(_rnn_body(_vars(), no_bias), sym.var("data"),
                                     [sym.var("h0")])
    s = sym.Group([outs, last[0]])
    hoist = foreach_hoist(_loop_node(s, "_foreach").params, lambda q: None)
    assert hoist is not None and len(hoist.projections) == 1
    rng = np.random.RandomState(0)
    args = {"data": rng.randn(T, N, I), "h0": rng.randn(N, H), **_weights(rng)}
    if no_bias:
        del args["b_i"]
    _same(s, args)
    _same(s, args, train=False)


def test_foreach_data_used_beside_the_projection_and_3d_rows():
    v = _vars()
    data, h0 = sym.var("data"), sym.var("h0")

    def body(x, states):
        # x is (N, 2, I): a flatten=False projection, and x also read directly
        h = sym.tanh(sym.sum(sym.FullyConnected(x, v["w_i"], v["b_i"], num_hidden=H,
                                                flatten=False), axis=1) +
                     sym.FullyConnected(states[0], v["w_h"], v["b_h"], num_hidden=H))
        return sym.broadcast_add(h, sym.sum(x, axis=(1, 2)).reshape((-1, 1))), [h]

    outs, last = sym.contrib.foreach(body, data, [h0])
    s = sym.Group([outs, last[0]])
    assert foreach_hoist(_loop_node(s, "_foreach").params, lambda q: None) is not None
    rng = np.random.RandomState(1)
    _same(s, {"data": rng.randn(T, N, 2, I), "h0": rng.randn(N, H), **_weights(rng)})


def _nested_foreach_rnn():
    """A foreach over sequences whose body runs a foreach tanh-RNN over each one."""
    inner = _rnn_body(_vars())

    def outer(xs, states):
        outs, last = sym.contrib.foreach(inner, xs, states)
        return sym.sum(outs, axis=0), last

    outs, last = sym.contrib.foreach(outer, sym.var("data"), [sym.var("h0")])
    return sym.Group([outs, last[0]])


def test_nested_foreach_hoists_in_the_inner_body():
    rng = np.random.RandomState(2)
    exe = _same(_nested_foreach_rnn(),
                {"data": rng.randn(2, T, N, I), "h0": rng.randn(N, H), **_weights(rng)})
    outer, = loop_steps(exe, "_foreach")
    inner = [st.spec for body in outer.runtime.plans.values() for st in body.plan.steps
             if st.op.name == "_foreach"]
    assert inner and all(sp is not None and sp.hoist is not None for sp in inner)


@pytest.mark.parametrize("compiled_with", [False, True])
def test_a_nested_loop_is_planned_with_its_outer_plans_setting(compiled_with):
    """The outer loop's body plan is compiled on the first run, outside the block the outer
    plan was compiled in: the inner loop still gets the outer plan's setting."""
    s = _nested_foreach_rnn()
    rng = np.random.RandomState(2)
    args = {"data": rng.randn(2, T, N, I), "h0": rng.randn(N, H), **_weights(rng)}
    names = s.list_inputs()
    with loop_optimizations(compiled_with):
        plan = compile_plan(s, [args[n].shape for n in names], ["float64"] * len(names))
    with loop_optimizations(not compiled_with):
        got, _ = plan.forward([args[n] for n in names])
    outer, = [st for st in plan.steps if st.op.name == "_foreach"]
    if compiled_with:  # the lowered loop's body plans lower the inner loop too
        inner_specs = [st.spec for body in outer.runtime.plans.values()
                       for st in body.plan.steps if st.op.name == "_foreach"]
        assert inner_specs and all(sp is not None and sp.hoist is not None
                                   for sp in inner_specs)
    else:  # the plain kernel runs plain body plans, whatever the setting when it runs
        assert outer.spec is None and outer.runtime is None
        body = outer.p["_subgraphs"][0]
        inner_steps = [st for pl in body_plans(body) for st in pl.steps
                       if st.op.name == "_foreach"]
        assert inner_steps and all(st.spec is None for st in inner_steps)
    with loop_optimizations(not compiled_with):
        other = compile_plan(s, [args[n].shape for n in names], ["float64"] * len(names))
        want, _ = other.forward([args[n] for n in names])
    for a, b in zip(want, got):
        assert_almost_equal(b, a, rtol=1e-12, atol=1e-12)


def _while_rnn(start_step=1):
    v = _vars()
    data, h0, i0 = sym.var("data"), sym.var("h0"), sym.var("i0")

    def func(i, h):
        x = sym.squeeze(sym.take(data, i), axis=0)
        h = _rnn_step(x, h, v["w_i"], v["b_i"], v["w_h"], v["b_h"])
        return h, [i + start_step, h]

    outs, (i_end, h_end) = sym.contrib.while_loop(lambda i, h: i < T, func, [i0, h0],
                                                  max_iterations=T + 2)
    return sym.Group([outs[0], h_end])


@pytest.mark.parametrize("i0, step", [(0.0, 1), (1.0, 1), (0.0, 2)])
def test_while_take_projection_is_hoisted_and_equal(i0, step):
    s = _while_rnn(step)
    hoist = while_hoist(_loop_node(s, "_while_loop").params, lambda q: None)
    assert hoist is not None and len(hoist.projections) == 1
    rng = np.random.RandomState(3)
    args = {"data": rng.randn(T, N, I), "h0": rng.randn(N, H), "i0": np.array([i0]),
            **_weights(rng)}
    _same(s, args)


def test_hoisted_while_gradients_match_finite_differences(on_ctx):
    s = sym.sum(_while_rnn()[0] * 1.5)
    rng = np.random.RandomState(4)
    loc = {"data": rng.randn(T, N, I), "h0": rng.randn(N, H), "i0": np.array([0.0]),
           **_weights(rng)}
    with loop_optimizations(True):
        check_numeric_gradient(s, loc, grad_nodes=["data", "h0", "w_i", "b_i", "w_h", "b_h"],
                               numeric_eps=1e-5, rtol=1e-4, atol=1e-6,
                               dtype=np.float64)


def test_deferred_gradients_are_planned_for_invariant_weights():
    """The h2h weight gradient of a foreach body is summed after the loop; its bias is
    folded into the hoisted projection (added once, its gradient one sum)."""
    outs = _foreach_rnn()
    rng = np.random.RandomState(5)
    args = {"data": rng.randn(T, N, I), "h0": rng.randn(N, H), **_weights(rng)}
    exes = []
    run_bound(outs, args, True, dtype="float32", executors=exes)
    node = _loop_node(outs, "_foreach")
    step, = loop_steps(exes[0], "_foreach")
    hoist = step.spec.hoist
    node_inputs = [src.name for src, _ in node.inputs]
    assert [pr.folded for pr in hoist.projections] == [node_inputs.index("b_h")]
    body_inputs = hoist.params["_subgraphs"][0].list_inputs()
    assert "b_h" not in body_inputs and "w_h" in body_inputs
    bodies = [b for key, b in step.runtime.plans.items() if key[0] == id(hoist.loop)]
    assert any(len(b.deferred) == 1 for b in bodies)


def test_the_gate_gradients_are_written_once_for_both_their_uses(monkeypatch):
    """The h2h product's output gradient is also the projection rows' gradient: the reverse
    pass has the tanh gradient rule write it into those rows (its out=), and the deferred
    h2h weight sum reads it there, the same memory (values equal to the plain loop)."""
    outs = _foreach_rnn()
    rng = np.random.RandomState(6)
    args = {"data": rng.randn(T, N, I), "h0": rng.randn(N, H), **_weights(rng)}
    spy = Spy(monkeypatch)
    spy.fast_grad("tanh", 0)
    spy.vjp_sum("FullyConnected", "weight")
    _same(outs, args)
    rows = [kw.get("out") for _, kw in spy.calls["tanh grad 0"][-T:]]
    (_, _, _, _, g), _ = spy.calls["FullyConnected sum of weight"][-1]
    assert g.shape == (T, N, H)
    assert all(r is not None and np.shares_memory(r, g) for r in rows)


@pytest.mark.parametrize("flat", [False, True])
def test_a_rule_writes_a_data_rows_gradient_in_place_only_in_its_shape(flat, monkeypatch):
    """The tanh rule making a scanned row's gradient writes it into the row itself; when the
    row was reshaped before the tanh, its gradient is the rule's result reshaped and is
    copied into the row instead (values equal to the plain loop either way)."""
    data, h0 = sym.var("data"), sym.var("h0")

    def body(x, states):
        y = sym.tanh(sym.reshape(x, shape=(-1,)) if flat else x)
        h = states[0] + (sym.reshape(y, shape=(N, I)) if flat else y)
        return h, [h]

    outs, _ = sym.contrib.foreach(body, data, [h0])
    rng = np.random.RandomState(9)
    spy = Spy(monkeypatch)
    spy.fast_grad("tanh", 0)
    _same(outs, {"data": rng.randn(T, N, I), "h0": rng.randn(N, I)})
    rows = [kw.get("out") for _, kw in spy.calls["tanh grad 0"][-T:]]
    if flat:  # the rule's result is reshaped and copied into the row
        assert rows == [None] * T
    else:  # the rule writes row t of one (T, N, I) gradient
        assert all(r is not None and r.shape == (N, I) for r in rows)
        assert all(np.shares_memory(r, rows[0].base) for r in rows)
        assert rows[0].base.shape == (T, N, I)


def test_split_gates_gradient_is_joined_into_its_row(monkeypatch):
    """Gates split from one product (an LSTM's): SliceChannel's gradient is joined straight
    into the projection row it belongs to (its vjp takes the row as a destination; a vjp that
    returns another array is copied), values equal to the plain loop."""
    v = _vars()
    data, h0 = sym.var("data"), sym.var("h0")

    def body(x, states):
        gates = sym.FullyConnected(x, v["w_i"], v["b_i"], num_hidden=2 * H) + \
            sym.FullyConnected(states[0], v["w_h"], v["b_h"], num_hidden=2 * H)
        a, b = sym.split(gates, num_outputs=2)
        h = sym.tanh(a) * sym.sigmoid(b)
        return h, [h]

    outs, _ = sym.contrib.foreach(body, data, [h0])
    rng = np.random.RandomState(10)
    args = {"data": rng.randn(T, N, I), "h0": rng.randn(N, H),
            "w_i": rng.randn(2 * H, I), "b_i": rng.randn(2 * H),
            "w_h": rng.randn(2 * H, H), "b_h": rng.randn(2 * H)}
    spy = Spy(monkeypatch)
    spy.vjp("SliceChannel")
    _same(outs, args)
    calls = spy.calls["SliceChannel vjp"][-T:]
    assert all(kw.get("dests") is not None and kw["dests"][0] is not None for _, kw in calls)
    dests = [kw["dests"][0] for _, kw in calls]
    assert all(d.shape == (N, 2 * H) and np.shares_memory(d, dests[0].base) for d in dests)


@pytest.mark.parametrize("i0, step", [(0.0, 1), (1.0, 1), (0.0, 2)])
def test_a_while_loops_gate_gradients_are_stacked_once_for_both_sums(i0, step, monkeypatch):
    """In a while_loop the h2h product's output gradient is also, reshaped, the gathered
    projection row's: one stack holds it for both deferred sums (the h2h weight's and the
    projection rows'), written once per step; values equal the plain loop's whether the
    counter visits every row in order or not."""
    outs = _while_rnn(step)
    rng = np.random.RandomState(8)
    args = {"data": rng.randn(T, N, I), "h0": rng.randn(N, H), "i0": np.array([i0]),
            **_weights(rng)}
    spy = Spy(monkeypatch)
    spy.vjp_sum("FullyConnected", "weight")
    spy.vjp_sum("take", "a")
    _same(outs, args)
    (_, _, _, _, g_fc), _ = spy.calls["FullyConnected sum of weight"][-1]
    (_, _, _, _, g_take), _ = spy.calls["take sum of a"][-1]
    assert np.shares_memory(g_fc, g_take)


@pytest.mark.parametrize("loop", ["foreach", "while_loop"])
def test_chained_invariant_products_keep_values_and_gradients_apart(loop):
    """y1 = W1 h, y2 = W2 y1: W2's summed gradient reads the values of y1, W1's the
    gradients of y1; both are kept per step, in separate stacks."""
    w1, b1, w2, b2 = (sym.var(k) for k in ("w1", "b1", "w2", "b2"))
    data, h0 = sym.var("data"), sym.var("h0")

    def step(x, h):
        y1 = sym.FullyConnected(h, w1, b1, num_hidden=H)
        return sym.tanh(sym.FullyConnected(y1, w2, b2, num_hidden=H) + x)

    if loop == "foreach":
        def body(x, states):
            h = step(x, states[0])
            return h, [h]
        outs, last = sym.contrib.foreach(body, data, [h0])
        s, extra = sym.Group([outs, last[0]]), {}
    else:
        def func(i, h):
            h = step(sym.squeeze(sym.take(data, i), axis=0), h)
            return h, [i + 1, h]
        outs, (_, h_end) = sym.contrib.while_loop(lambda i, h: i < T, func,
                                                  [sym.var("i0"), h0], max_iterations=T)
        s, extra = sym.Group([outs[0], h_end]), {"i0": np.array([0.0])}
    rng = np.random.RandomState(9)
    args = {"data": rng.randn(T, N, H), "h0": rng.randn(N, H), "w1": rng.randn(H, H) * 0.3,
            "b1": rng.randn(H) * 0.1, "w2": rng.randn(H, H) * 0.3, "b2": rng.randn(H) * 0.1,
            **extra}
    _same(s, args)


@pytest.mark.parametrize("cell", ["RNNCell", "GRUCell", "LSTMCell"])
@pytest.mark.parametrize("loop", ["foreach", "while_loop"])
def test_hybridized_cell_layers_equal_with_and_without_optimizations(cell, loop, on_ctx):
    from gluonlite.bench.models import ForeachRNN, WhileRNN
    results = []
    for opt in (False, True):
        with loop_optimizations(opt):
            mx.random.seed(11)
            c = getattr(gluon.rnn, cell)(H, input_size=I)
            layer = (ForeachRNN if loop == "foreach" else WhileRNN)(c, T)
            layer.initialize()
            layer.hybridize(static_alloc=True)
            x = nd.array(np.random.RandomState(0).randn(T, N, I))
            x.attach_grad()
            states = [nd.array(np.random.RandomState(k + 1).randn(N, H))
                      for k in range(2 if cell == "LSTMCell" else 1)]
            if loop == "while_loop":
                states = [nd.zeros((1,))] + states
            with autograd.record():
                out = layer(x, states)
                loss = (out * out).sum()
            loss.backward()
            results.append([out.asnumpy(), x.grad.asnumpy()] +
                           [p.grad().asnumpy() for p in layer.collect_params().values()])
    for a, b in zip(*results):
        assert_almost_equal(b, a, rtol=1e-5, atol=1e-6)


def test_hoisted_projection_respects_null_grad_req():
    """A frozen input weight (grad_req 'null') gets no gradient; the others still match."""
    outs = _foreach_rnn()
    rng = np.random.RandomState(6)
    args = {"data": rng.randn(T, N, I), "h0": rng.randn(N, H), **_weights(rng)}
    grads = []
    for opt in (False, True):
        with loop_optimizations(opt):
            exe = outs.bind(mx.cpu(), {k: nd.array(a) for k, a in args.items()},
                            args_grad={k: nd.ones(a.shape) for k, a in args.items()},
                            grad_req={k: ("null" if k == "w_i" else "write") for k in args})
            exe.forward(is_train=True)
            exe.backward(nd.ones((T, N, H)))
            grads.append({k: g.asnumpy() for k, g in exe.grad_dict.items()})
    assert (grads[1]["w_i"] == 1).all()  # untouched
    for k in ("data", "h0", "b_i", "w_h", "b_h"):
        assert_almost_equal(grads[1][k], grads[0][k], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("loop", ["foreach", "while_loop"])
def test_weights_in_the_fast_layout_give_the_same_results(loop, monkeypatch):
    """Loops long and wide enough read their invariant FC weights as transposed-contiguous
    copies (same values), one buffer per loop node, shared by its training and inference
    plans and refilled on every call: results equal the plain loop's, and the weights'
    gradients are unchanged."""
    from gluonlite.bench.models import ForeachRNN, WhileRNN
    from gluonlite.control_flow.lowering import kernels as operators
    laid_out = []
    real = operators.fast_weight_layout

    def spy(*args, **kwargs):
        out = real(*args, **kwargs)
        laid_out.append(list(out.values()))
        return out

    monkeypatch.setattr(operators, "fast_weight_layout", spy)
    steps, rows = 16, 8
    results = []
    for opt in (False, True):
        with loop_optimizations(opt):
            mx.random.seed(3)
            c = gluon.rnn.LSTMCell(H, input_size=I)
            layer = (ForeachRNN if loop == "foreach" else WhileRNN)(c, steps)
            layer.initialize()
            layer.hybridize(static_alloc=True)
            x = nd.array(np.random.RandomState(0).randn(steps, rows, I))
            x.attach_grad()
            states = [nd.array(np.random.RandomState(k + 1).randn(rows, H)) for k in range(2)]
            if loop == "while_loop":
                states = [nd.zeros((1,))] + states
            with autograd.record():
                out = layer(x, states)
            out.backward(nd.array(np.random.RandomState(9).randn(*out.shape)))
            infer = layer(x, states).asnumpy()
            results.append([out.asnumpy(), infer, x.grad.asnumpy()] +
                           [p.grad().asnumpy() for p in layer.collect_params().values()])
            if opt:  # the inference plan's second call refills its copy
                assert_almost_equal(layer(x, states).asnumpy(), infer, rtol=0, atol=0)
    # the h2h weight was laid out (the i2h one is hoisted), in one buffer for both plans
    # (train, inference) over three calls
    laid_out = [copies for copies in laid_out if copies]  # the plain loop's calls lay none
    assert [len(copies) for copies in laid_out] == [1, 1, 1]
    buffers = [copies[0].base for copies in laid_out]
    assert buffers[0] is buffers[1] is buffers[2]
    for a, b in zip(*results):
        assert_almost_equal(b, a, rtol=1e-5, atol=1e-5)


def test_a_plan_keeps_the_setting_it_was_compiled_with():
    """The switch is read when a plan is compiled, never when it runs: an executor whose
    plan was compiled inside loop_optimizations(False) runs its loop plainly outside the
    block (per-step projections, per-step weight gradients), and one compiled outside runs
    it hoisted inside; both give the same values and gradients."""
    outs = _foreach_rnn()
    rng = np.random.RandomState(8)
    args = {"data": rng.randn(T, N, I), "h0": rng.randn(N, H), **_weights(rng)}
    head = nd.array(rng.randn(T, N, H))

    def bind():
        return outs.bind(mx.cpu(), {k: nd.array(v) for k, v in args.items()},
                         args_grad={k: nd.zeros(v.shape) for k, v in args.items()})

    def run(exe):
        out = exe.forward(is_train=True)[0].asnumpy()
        exe.backward(head)
        return [out] + [exe.grad_dict[k].asnumpy() for k in sorted(args)]

    with loop_optimizations(False):
        plain = bind()
        plain.forward(is_train=True)  # compiles the plan
    fast = bind()
    fast.forward(is_train=True)
    with loop_optimizations(False):
        fast_results = run(fast)
    plain_results = run(plain)
    (plain_step,), (fast_step,) = loop_steps(plain, "_foreach"), loop_steps(fast, "_foreach")
    assert plain_step.spec is None and plain_step.runtime is None  # the plain kernel
    assert plain_step.kernel is mx.ops.get("_foreach").kernel
    fast_spec = fast_step.spec
    assert fast_spec.hoist is not None and fast_spec.hoist.loop.defer_sums
    assert fast_step.kernel is not mx.ops.get("_foreach").kernel
    assert all("w_i" not in b.plan.input_names for b in fast_step.runtime.plans.values())
    assert "hoist 1 projection" in repr(fast_spec)
    for a, b in zip(plain_results, fast_results):
        assert_almost_equal(b, a, rtol=1e-5, atol=1e-5)


def _rnn_layer_and_projection(monkeypatch, seed):
    """A hybridized foreach RNN layer, its inputs (x wants a gradient), and a function
    giving the array the last call's hoisted projection (every step's rows) was written
    to."""
    from gluonlite.bench.models import ForeachRNN
    mx.random.seed(seed)
    layer = ForeachRNN(gluon.rnn.RNNCell(H, input_size=I), T)
    layer.initialize()
    layer.hybridize(static_alloc=True)
    x, h0 = nd.array(np.random.RandomState(seed).randn(T, N, I)), [nd.zeros((N, H))]
    x.attach_grad()
    spy = Spy(monkeypatch)
    spy.fast_into("FullyConnected")

    def projection():
        (_, _, (out,), _, _, _), _ = [c for c in spy.calls["FullyConnected into"]
                                      if c[0][2][0].shape[0] == T * N][-1]
        return out if out.base is None else out.base
    return layer, x, h0, projection


def test_a_projection_buffer_is_held_until_its_backward_and_then_reused(monkeypatch):
    """A training call's projections are computed into the loop node's own buffer, which
    its saved state holds: a second call meanwhile gets a fresh array (its results are its
    own), and once the first call's backward has run the buffer serves the next call (the
    same array, not a new one)."""
    layer, x, h0, projection = _rnn_layer_and_projection(monkeypatch, 5)
    x2 = x * 2
    x2.attach_grad()  # the same plan as x's (one that gives data a gradient)
    with autograd.record():
        first = layer(x, h0)
    buffer = projection()
    with autograd.record():
        second = layer(x2, h0)
    assert projection() is not buffer  # held by the first call's saved state
    first.backward()
    g_first = x.grad.asnumpy().copy()
    second.backward()
    with autograd.record():
        again = layer(x, h0)
    assert projection() is buffer  # free again after the backward: reused
    again.backward()
    assert_almost_equal(x.grad.asnumpy(), g_first, rtol=1e-6, atol=1e-7)


def test_a_blocks_training_and_inference_plans_share_one_projection_buffer(monkeypatch):
    """A hybridized block's training and inference plans hoist the projection into the
    loop node's one buffer, not one per plan: an inference call after a training call's
    backward writes the array the training call wrote, and one before that backward (which
    still reads it) gets a fresh array; values and gradients are unchanged."""
    layer, x, h0, projection = _rnn_layer_and_projection(monkeypatch, 6)
    with autograd.record():
        trained = layer(x, h0)
    buffer = projection()
    during = layer(x, h0).asnumpy()  # the inference plan, before the backward
    assert projection() is not buffer
    trained.backward()
    g_first = x.grad.asnumpy().copy()
    after = layer(x, h0).asnumpy()
    assert projection() is buffer  # the training plan's buffer, free again
    with autograd.record():
        again = layer(x, h0)
    assert projection() is buffer
    again.backward()
    for got in (during, after, again.asnumpy()):
        assert_almost_equal(got, trained.asnumpy(), rtol=1e-6, atol=1e-7)
    assert_almost_equal(x.grad.asnumpy(), g_first, rtol=1e-6, atol=1e-7)
