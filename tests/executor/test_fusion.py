"""Elementwise fusion on a device (`gluonlite.subgraph.fusion`, `_fused_elementwise`): which
operators join, that a fused graph computes the plain graph's values and gradients, that
loop bodies are fused, and that the fused node's device path equals its plain rules."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, gluon, nd, sym
from gluonlite.bench.models import ForeachRNN, WhileRNN, zero_states
from gluonlite.executor import compile_plan
from gluonlite.ops import get
from gluonlite.ops.fast import device_kernels
from gluonlite.ops.fused import Program
from gluonlite.ops.registry import RunCtx
from gluonlite.subgraph import fuse_elementwise
from gluonlite.symbol.symbol import topo_nodes


def _ops(symbol):
    return [n.op.name for n in topo_nodes(symbol.outputs) if n.op is not None]


def test_same_shape_elementwise_neighbours_become_one_node():
    x, w, c = sym.var("x"), sym.var("w"), sym.var("c")
    g = sym.FullyConnected(x, w, num_hidden=8, no_bias=True)
    i, f, z, o = sym.SliceChannel(g, num_outputs=4)
    c2 = sym.sigmoid(f) * c + sym.sigmoid(i) * sym.tanh(z)
    h = sym.sigmoid(o) * sym.tanh(c2)
    y = sym.Group([h, c2, sym.sum(h)])
    fused = fuse_elementwise(y, {"x": (3, 5), "w": (8, 5), "c": (3, 2)},
                             {"x": "float32", "w": "float32", "c": "float32"})
    assert _ops(fused).count("_fused_elementwise") == 1
    assert set(_ops(fused)) == {"FullyConnected", "SliceChannel", "_fused_elementwise", "sum"}
    assert fused.list_inputs() == y.list_inputs()
    node = next(n for n in topo_nodes(fused.outputs) if n.op and n.op.name == "_fused_elementwise")
    assert len(node.params.program.outs) == 2  # h (read by sum and the output) and c2
    # another shape in the chain (a broadcast bias) or integer data stays out
    b = sym.var("b")
    z2 = sym.tanh(sym.broadcast_add(sym.tanh(x), b))
    fused = fuse_elementwise(z2, {"x": (3, 5), "b": (1, 5)}, {"x": "float32", "b": "float32"})
    assert "_fused_elementwise" not in _ops(fused)
    fused = fuse_elementwise(sym.relu(sym.negative(x)), {"x": (3,)}, {"x": "int32"})
    assert "_fused_elementwise" not in _ops(fused)


def _program():
    """v2 = x * y; v3 = tanh(v2); v4 = 1 - sigmoid(y) (ones_like - ...); outs (v3, v5)."""
    ops = {n: get(n) for n in ("elemwise_mul", "tanh", "sigmoid", "ones_like", "elemwise_sub")}
    p = {n: op.parse({})[0] for n, op in ops.items()}
    steps = [(ops["elemwise_mul"], p["elemwise_mul"], (0, 1)), (ops["tanh"], p["tanh"], (2,)),
             (ops["sigmoid"], p["sigmoid"], (1,)), (ops["ones_like"], p["ones_like"], (4,)),
             (ops["elemwise_sub"], p["elemwise_sub"], (5, 4))]
    return Program(2, steps, (3, 6), "test")


@pytest.mark.parametrize("heads", [(True, True), (True, False), (False, True)])
def test_the_fused_node_device_path_is_its_plain_rules(device, heads):
    op = get("_fused_elementwise")
    p = op.parse({"num_args": 2})[0]
    p["program"] = _program()
    rng = np.random.default_rng(0)
    xs = [device.asarray(rng.normal(size=(3, 4))) for _ in range(2)]
    rc = RunCtx(True, device)
    plain = op.kernel(p, rc, *xs)
    fast = op.fast.device.kernel(p, rc, *xs)
    for a, b in zip(plain, fast):
        np.testing.assert_allclose(device.asnumpy(b), device.asnumpy(a), rtol=1e-12)
    gys = [device.asarray(rng.normal(size=(3, 4))) if h else None for h in heads]
    want = op.vjp(p, rc, xs, list(plain), gys, [True, True])
    got = op.fast.device.vjp(p, rc, xs, list(fast), gys, [True, True])
    for a, b in zip(want, got):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(device.asnumpy(b), device.asnumpy(a), rtol=1e-12)
    assert not hasattr(device, "stats") or device.stats["fused"] == 2  # one kernel each way


def test_a_program_names_what_is_wrong():
    tanh, p = get("tanh"), get("tanh").parse({})[0]
    with pytest.raises(ValueError, match="step 0 \\(tanh\\) reads \\(3,\\)"):
        Program(1, [(tanh, p, (3,))], (1,))
    with pytest.raises(ValueError, match="no elementwise form"):
        Program(1, [(get("sum"), get("sum").parse({})[0], (0,))], (1,))


def test_plans_on_a_device_fuse_and_on_the_host_do_not(device):
    x = sym.var("x")
    y = sym.tanh(sym.sigmoid(x) * 2 + x)
    host = compile_plan(y, [(2, 3)], ["float32"], static_alloc=True)
    dev = compile_plan(y, [(2, 3)], ["float32"], static_alloc=True, xp=device)
    assert "_fused_elementwise" not in [st.op.name for st in host.steps]
    assert [st.op.name for st in dev.steps] == ["_fused_elementwise"]
    with device_kernels(False):
        off = compile_plan(y, [(2, 3)], ["float32"], static_alloc=True, xp=device)
    assert "_fused_elementwise" not in [st.op.name for st in off.steps]


@pytest.mark.parametrize("cell", [gluon.rnn.LSTMCell, gluon.rnn.GRUCell, gluon.rnn.RNNCell])
@pytest.mark.parametrize("loop", [ForeachRNN, WhileRNN])
def test_hybridized_loops_fuse_their_bodies_and_match_the_host(device, cell, loop):
    fake = hasattr(device, "stats")
    res = {}
    for ctx in (mx.cpu(), mx.gpu()):
        mx.random.seed(0)
        layer = loop(cell(6, input_size=5), 4)
        layer.initialize(ctx=ctx)
        layer.hybridize(static_alloc=True)
        x = nd.array(np.random.default_rng(1).normal(size=(4, 3, 5)), ctx=ctx)
        x.attach_grad()
        if fake:
            device.stats["fused"] = 0
        with autograd.record():
            y = layer(x, zero_states(layer, 3, 6, ctx))
        y.backward()
        res[str(ctx)] = [y.asnumpy(), x.grad.asnumpy()] + [
            p.grad().asnumpy() for p in layer.collect_params().values()]
    for a, b in zip(res["cpu(0)"], res["gpu(0)"]):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-5)
    # the gate math of every step, forward and back, in fused kernels
    assert not fake or device.stats["fused"] >= 2 * 4
