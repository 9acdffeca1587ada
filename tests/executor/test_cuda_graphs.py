"""CUDA graph capture of static plans (`gluonlite.executor.graphs`), on tests/fakecupy.py:
its stream capture records what runs on the capturing stream, fills the arrays a capture
made with garbage (nothing runs during a capture on a GPU) and refuses host reads and
default-pool allocations meanwhile; a graph launch runs the recording again. So these
tests check the logic (capture once, replay, invalidation, host reads, the switch) and the
values; on a GPU (``-m gpu``) the same tests run on CuPy's real capture (the fake's own
counters are checked on the fake only)."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, gluon, nd, sym
from gluonlite.bench.models import ForeachRNN, WhileRNN, zero_states
from gluonlite.executor import CachedOp
from gluonlite.executor.graphs import GraphedFunction, cuda_graphs


def _net(ctx, static_shape=True):
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(5, activation="tanh", in_units=4), gluon.nn.Dense(3, in_units=5))
    net.initialize(mx.init.Xavier(), ctx=ctx)
    net.hybridize(static_alloc=True, static_shape=static_shape)
    return net


def _graphs(block):
    return [g for op in block.cached_ops for g in op.graphs]


def _data(seed, shape=(2, 4)):
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


def test_a_static_plan_is_captured_once_then_replayed(device):
    fake = hasattr(device, "stats")
    mx.random.seed(0)
    ref = _net(mx.cpu())
    mx.random.seed(0)
    net = _net(mx.gpu())
    x = nd.array(_data(0), ctx=mx.gpu())
    outs = []
    for call in range(4):
        before = dict(device.stats) if fake else None
        outs.append(net(x))
        if fake:
            launched = device.stats["graph_launches"] - before["graph_launches"]
            assert launched == (0 if call == 0 else 1), f"call {call}"
            if call >= 2:  # a replay is one launch and the copy out, nothing per operator
                assert device.stats["calls"] - before["calls"] <= 3
    assert not fake or device.stats["captures"] == 1
    want = ref(nd.array(_data(0))).asnumpy()
    for y in outs:  # the first one too: a replay never writes an array a caller holds
        np.testing.assert_allclose(y.asnumpy(), want, rtol=1e-5, atol=1e-6)
    status = _graphs(net)[0].status()["forward"]
    assert status["captures"] == 1 and status["replays"] == 2 and status["disabled"] is None


def test_inputs_that_move_are_copied_in_and_new_shapes_are_new_captures(device):
    mx.random.seed(0)
    net = _net(mx.gpu())
    mx.random.seed(0)
    ref = _net(mx.cpu())
    for call in range(5):  # a new input array every call, at a new address
        x = _data(call)
        y = net(nd.array(x, ctx=mx.gpu()))
        np.testing.assert_allclose(y.asnumpy(), ref(nd.array(x)).asnumpy(), rtol=1e-5,
                                   atol=1e-6)
    fwd = _graphs(net)[0].forward_graphs
    # the capture is made once the input is seen to move, and the input copied in after
    assert fwd.counts["replays"] >= 2 and fwd.counts["captures"] <= 2
    x3 = _data(9, (3, 4))
    y = net(nd.array(x3, ctx=mx.gpu()))  # another shape: another plan, captured on its own
    np.testing.assert_allclose(y.asnumpy(), ref(nd.array(x3)).asnumpy(), rtol=1e-5, atol=1e-6)
    assert len(_graphs(net)) == 2


def test_training_replays_forward_and_backward_with_the_plain_gradients(device):
    grads = {}
    for ctx in (mx.cpu(), mx.gpu()):
        mx.random.seed(0)
        net = _net(ctx)
        x = nd.array(_data(1), ctx=ctx)
        got = []
        for _ in range(4):
            with autograd.record():
                loss = (net(x) ** 2).sum()
            loss.backward()
            got += [p.grad().asnumpy().copy() for p in net.collect_params().values()]
        grads[str(ctx)] = got
    for a, b in zip(grads["cpu(0)"], grads["gpu(0)"]):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
    status = _graphs(net)[0].status()
    assert status["forward"]["replays"] >= 2 and status["backward0"]["replays"] >= 1


def test_a_forward_whose_backward_is_pending_runs_plainly(device):
    mx.random.seed(0)
    net = _net(mx.gpu())
    xs = [nd.array(_data(k), ctx=mx.gpu()) for k in range(2)]
    for _ in range(2):  # warm up and capture
        with autograd.record():
            net(xs[0]).sum().backward()
    w = net.collect_params()
    with autograd.record():  # two forwards, then both backwards
        l0 = (net(xs[0]) ** 2).sum()
        l1 = (net(xs[1]) ** 2).sum()
    autograd.backward([l0, l1])
    got = [p.grad().asnumpy().copy() for p in w.values()]
    mx.random.seed(0)
    ref = _net(mx.cpu())
    with autograd.record():
        r = (ref(nd.array(_data(0))) ** 2).sum() + (ref(nd.array(_data(1))) ** 2).sum()
    r.backward()
    for g, p in zip(got, ref.collect_params().values()):
        np.testing.assert_allclose(g, p.grad().asnumpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("cell", [gluon.rnn.LSTMCell, gluon.rnn.GRUCell])
@pytest.mark.parametrize("loop", [ForeachRNN, WhileRNN])
def test_loops_captured_with_their_steps_match_the_plain_layer(device, cell, loop):
    res = {}
    for ctx in (mx.cpu(), mx.gpu()):
        mx.random.seed(0)
        layer = loop(cell(6, input_size=5), 4)
        layer.initialize(ctx=ctx)
        layer.hybridize(static_alloc=True, static_shape=True)
        x = nd.array(_data(2, (4, 3, 5)), ctx=ctx)
        states = zero_states(layer, 3, 6, ctx)
        x.attach_grad()
        got = []
        for _ in range(3):
            with autograd.record():
                y = layer(x, states)
            y.backward()
            got += [y.asnumpy(), x.grad.asnumpy().copy(), layer(x, states).asnumpy()]
        res[str(ctx)] = got
    for a, b in zip(res["cpu(0)"], res["gpu(0)"]):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-5)
    fwd = _graphs(layer)[0].forward_graphs
    assert fwd.counts["replays"] >= 1 and fwd.disabled is None
    # foreach: one graph, every step in it; a counted while_loop: per trip count, the graph
    # before the loop, the trip count read, the loop with all its steps
    assert fwd.last_capture == ((1, 0) if loop is ForeachRNN else (2, 1))


def _while_net(counted):
    """y = h after while_loop: counted (i < 3, i + 1) or with a condition on a data value
    (h.sum() < limit): its trip count read before every step."""
    i, h, limit = sym.var("i"), sym.var("h"), sym.var("limit")
    if counted:
        cond = lambda i, h: i < 3  # noqa: E731
    else:
        cond = lambda i, h: sym.sum(h) < limit  # noqa: E731
    out, (_, hn) = sym.contrib.while_loop(cond, lambda i, h: (h * 2, [i + 1, h * 2 + 1]),
                                          [i, h], max_iterations=6)
    return sym.Group([out, hn])


@pytest.mark.parametrize("counted", [True, False])
def test_a_while_loop_reading_the_host_is_captured_per_trip_count_or_per_step(device,
                                                                            counted):
    net = _while_net(counted)
    op = CachedOp(net, static_alloc=True, static_shape=True)
    plain = CachedOp(net, static_alloc=True)
    for start, limit in [(0, 10), (0, 10), (0, 10), (1, 10), (1, 10), (0, 100), (0, 10)]:
        args = [nd.array([start], ctx=mx.gpu()), nd.array(np.ones((2,)), ctx=mx.gpu()),
                nd.array([limit], ctx=mx.gpu())]
        names = net.list_inputs()
        by = dict(zip(["i", "h", "limit"], args))
        got = op(*[by[n] for n in names])
        want = plain(*[by[n] for n in names])
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g.asnumpy(), w.asnumpy())
    fwd = op.graphs[0].forward_graphs
    assert fwd.disabled is None and fwd.counts["replays"] >= 2 and fwd.counts["misses"] >= 1
    graphs, reads = fwd.last_capture  # the last call's: 3 steps from i = 0
    if counted:
        assert (graphs, reads) == (2, 1)  # per trip count
    else:
        assert graphs == reads + 1 >= 3  # per step: one graph per body


def test_what_a_replay_would_not_compute_exactly_is_not_captured(device):
    x = sym.var("x")
    op = CachedOp(sym.Dropout(x, p=0.5), static_alloc=True, static_shape=True)
    with autograd.train_mode():
        op(nd.ones((4,), ctx=mx.gpu()))
    assert "random operator Dropout" in op.graphs[0]
    op = CachedOp(sym.tanh(x), static_alloc=True)
    op(nd.ones((4,), ctx=mx.gpu()))
    assert op.graphs[0] == "capture needs static_alloc=True and static_shape=True"
    op = CachedOp(sym.tanh(x), static_alloc=True, static_shape=True)
    op(nd.ones((4,)))
    assert "does not capture" in op.graphs[0]


def test_the_switch_turns_capture_off(device, monkeypatch):
    with cuda_graphs(False):
        net = _net(mx.gpu())
        for _ in range(3):
            net(nd.ones((2, 4), ctx=mx.gpu()))
    assert not hasattr(device, "stats") or device.stats["graph_launches"] == 0
    assert _graphs(net)[0].startswith("switched off")
    import importlib
    import gluonlite.executor.graphs as graphs
    monkeypatch.setenv("GLUONLITE_CUDA_GRAPHS", "0")
    try:
        importlib.reload(graphs)
        assert not graphs.cuda_graphs_enabled()
    finally:
        monkeypatch.delenv("GLUONLITE_CUDA_GRAPHS")
        importlib.reload(graphs)
    assert graphs.cuda_graphs_enabled()


def test_a_capture_that_fails_runs_plainly_and_says_why(device):
    xp = device

    def fn(arrays):
        return arrays[0] * float(arrays[0].sum().get())  # a host read of its own

    f = GraphedFunction(xp, fn, "f")
    a = xp.asarray(np.arange(3.0))
    for _ in range(3):
        out, chain = f([a])
        assert chain is None
        np.testing.assert_array_equal(xp.asnumpy(out), np.arange(3.0) * 3)
    assert f.disabled.startswith("capture failed: ") and f.counts["plain"] == 3
