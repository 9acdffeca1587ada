"""`autograd.get_symbol` on the history of a hybridized block call: the block's operators
written into the history when its graph is within `inline_limit` (and not `static_alloc`),
otherwise one `_CachedOp` node holding the graph, as MXNet 1.9.1 does; the `_CachedOp` form
binds, runs forward and backward, and survives a JSON round trip. MXNet-made expectations:
tests/fixtures/mxnet/get_symbol_cached.json (made by tests/fixtures/make_get_symbol_cached.py).
"""
import json
import os
import re

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, nd
from gluonlite.gluon import nn

FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "mxnet",
                   "get_symbol_cached.json")
with open(FIX) as _f:
    EXPECTED = json.load(_f)


def _net():
    net = nn.HybridSequential(prefix="net_")
    with net.name_scope():
        net.add(nn.Dense(4, activation="relu", in_units=3))
        net.add(nn.Dense(2, in_units=4))
    net.initialize()
    for k, (_, p) in enumerate(sorted(net.collect_params().items())):
        size = int(np.prod(p.shape))
        p.set_data(nd.array(np.sin(np.arange(size) + k).reshape(p.shape) * 0.5))
    return net


def _recorded(net, **kwargs):
    net.hybridize(**kwargs)
    x = nd.array(EXPECTED["x"])
    x.attach_grad()
    with autograd.record():
        y = net(x) * 2
    return x, y, autograd.get_symbol(y)


def _node_numbers_dropped(names):
    # MXNet numbers get_symbol's nodes with one counter for the whole process
    return [re.sub(r"^node_\d+", "node_", n) for n in names]


@pytest.mark.parametrize("case", EXPECTED["cases"], ids=lambda c: str(c["kwargs"]))
def test_the_history_inlines_a_small_graph_and_holds_a_larger_one_as_a_cached_op(case):
    _, y, s = _recorded(_net(), **case["kwargs"])
    nodes = json.loads(s.tojson())["nodes"]
    assert len(nodes) == case["n_nodes"]
    assert [n["op"] for n in nodes if n["op"] != "null"] == case["ops"]
    internals = [n for n in s.get_internals().list_outputs()
                 if not n.startswith(("var", "null"))]
    assert _node_numbers_dropped(internals) == _node_numbers_dropped(case["op_outputs"])
    y.backward()  # the recorded call still differentiates


def test_mxnet_test_inline_counts_two_more_nodes_when_three_dense_layers_are_inlined():
    # MXNet 1.9.1's test_gluon.py::test_inline, whose expectation is len_1 == len_2 + 2
    net = nn.HybridSequential()
    with net.name_scope():
        for _ in range(3):
            net.add(nn.Dense(10))
    net.initialize()
    lens = []
    for limit in (3, 0):
        net.hybridize(inline_limit=limit)
        with autograd.record():
            y = net(nd.zeros((1, 10)))
        lens.append(len(json.loads(autograd.get_symbol(y).tojson())["nodes"]))
        y.backward()
    assert lens == [10, 8]


def _bind_cached_op_symbol(s, net, x):
    exp = EXPECTED["bound"]
    params = {p.name: p.data() for p in net.collect_params().values()}
    names = s.list_arguments()
    assert len(names) == len(exp["order"])
    args = {n: (x if role == "data" else params[role]).copy()
            for n, role in zip(names, exp["order"])}
    grads = {n: nd.zeros_like(a) for n, a in args.items()}
    return s.bind(mx.cpu(), args, args_grad=grads), names, grads


@pytest.mark.parametrize("through_json", [False, True])
def test_the_cached_op_symbol_binds_and_gives_mxnets_forward_and_gradients(through_json):
    exp = EXPECTED["bound"]
    net = _net()
    x, y, s = _recorded(net, inline_limit=0)
    assert s.get_internals()[len(s.list_arguments())].name == "node_0"
    if through_json:  # gluonlite keeps the graph in the JSON (MXNet's JSON loses it)
        s = mx.sym.load_json(s.tojson())
    ex, names, grads = _bind_cached_op_symbol(s, net, x)
    out = ex.forward(is_train=True)[0]
    np.testing.assert_allclose(out.asnumpy(), exp["y"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out.asnumpy(), y.asnumpy(), rtol=1e-6)
    ex.backward(nd.array(exp["head"]))
    for n, role in zip(names, exp["order"]):
        np.testing.assert_allclose(grads[n].asnumpy(), exp["grads"][role], rtol=1e-5,
                                   atol=1e-6, err_msg=role)


def test_the_cached_op_symbol_infers_shapes_from_its_data_input_alone():
    _, _, s = _recorded(_net(), inline_limit=0)
    first = s.list_arguments()[0]
    arg_shapes, out_shapes, _ = s.infer_shape(**{first: (2, 3)})
    assert arg_shapes == [(2, 3), (4, 3), (4,), (2, 4), (2,)]
    assert out_shapes == [(2, 2)]


def test_the_inlined_symbol_gives_the_recorded_value_when_bound():
    net = _net()
    x, y, s = _recorded(net, inline_limit=3)
    ex, _, _ = _bind_cached_op_symbol(s, net, x)
    np.testing.assert_allclose(ex.forward()[0].asnumpy(), y.asnumpy(), rtol=1e-6)


def test_a_hybridized_call_inside_a_larger_recorded_computation_reads_its_inputs():
    # two calls of the same block and an operator between them: each _CachedOp node reads
    # the entry the recorded history gives it
    net = _net()
    net.hybridize(inline_limit=0)
    x = nd.array(EXPECTED["x"])
    x.attach_grad()
    with autograd.record():
        h = net(x)
        y = net(nd.concat(h, h[:, :1], dim=1))
    s = autograd.get_symbol(y)
    ops = [n["op"] for n in json.loads(s.tojson())["nodes"] if n["op"] != "null"]
    assert ops.count("_CachedOp") == 2
    # the second call reads the same parameter arrays: the same five variables
    params = {p.name: p.data() for p in net.collect_params().values()}
    by_role = [x if r == "data" else params[r] for r in EXPECTED["bound"]["order"]]
    assert len(s.list_arguments()) == len(by_role)
    ex = s.bind(mx.cpu(), dict(zip(s.list_arguments(), by_role)))
    np.testing.assert_allclose(ex.forward()[0].asnumpy(), y.asnumpy(), rtol=1e-6)


class _TwoOutputs(mx.gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        return F.relu(x) * 3, F.tanh(x) + 1


@pytest.mark.parametrize("limit", [0, 10])
def test_each_output_of_a_multi_output_call_is_its_own_entry(limit):
    net = _TwoOutputs()
    net.hybridize(inline_limit=limit)
    x = nd.array([[-1.0, 0.5, 2.0]])
    x.attach_grad()
    with autograd.record():
        a, b = net(x)
        y = a * b
    s = autograd.get_symbol(y)
    ops = [n["op"] for n in json.loads(s.tojson())["nodes"] if n["op"] != "null"]
    assert ("_CachedOp" in ops) == (limit == 0)
    xs = x.asnumpy()
    want = np.maximum(xs, 0) * 3 * (np.tanh(xs) + 1)
    ex = s.bind(mx.cpu(), {s.list_arguments()[0]: x})
    np.testing.assert_allclose(ex.forward()[0].asnumpy(), want, rtol=1e-6)
    np.testing.assert_allclose(autograd.get_symbol(b).eval(
        **{s.list_arguments()[0]: x})[0].asnumpy(), np.tanh(xs) + 1, rtol=1e-6)
