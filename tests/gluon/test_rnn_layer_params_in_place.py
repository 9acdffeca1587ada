"""gluon.rnn layers read their parameters where they lie (`_rnn_unpacked`, and the compiled
graph's pass `gluonlite.executor.rnn_params`): every call sees the parameters' current
values (after a Trainer step, set_data, re-initialization, cast), gradients land in each
parameter's grad as grad_req says, the exported graph stays MXNet's, and the pass leaves
alone the graphs it must not rewrite. The reference is always the plain operators:
``RNN`` of ``_rnn_param_concat`` of the flattened parameters."""
import json

import numpy as np
import pytest

from gluonlite import autograd, gluon, nd, sym
from gluonlite.executor import unpack_rnn_params
from gluonlite.gluon import rnn

CASES = [(rnn.LSTM, {"num_layers": 2, "bidirectional": True}),
         (rnn.GRU, {"layout": "NTC"}),
         (rnn.RNN, {"activation": "tanh"})]
FLAGS = [None, {}, {"static_alloc": True}]


def _layer(cls, hybridize, **kw):
    layer = cls(5, input_size=3, **kw)
    layer.initialize()
    for p in layer.collect_params().values():
        p.set_data(nd.random.uniform(-0.6, 0.6, shape=p.shape))
    if hybridize is not None:
        layer.hybridize(**hybridize)
    return layer


def _reference(layer, x, states):
    """The layer's output and new states computed by RNN on the packed parameters."""
    params = layer.collect_params()
    packed = nd.concat(*[params[layer.prefix + n].data().reshape(-1)
                         for n in layer._packed_names], dim=0)
    if layer._layout == "NTC":
        x = nd.swapaxes(x, 0, 1)
    out = nd.RNN(x, packed, *states, state_size=5, num_layers=layer._num_layers,
                 bidirectional=layer._dir == 2, mode=layer._mode, state_outputs=True)
    y = out[0] if layer._layout == "TNC" else nd.swapaxes(out[0], 0, 1)
    return [y.asnumpy()] + [s.asnumpy() for s in out[1:]]


def _inputs(layer, dtype="float32"):
    shape = (4, 2, 3) if layer._layout == "TNC" else (2, 4, 3)
    x = nd.random.uniform(-1, 1, shape=shape, dtype=dtype)
    states = [nd.random.uniform(-1, 1, shape=i["shape"], dtype=dtype)
              for i in layer.state_info(2)]
    return x, states


def _check(layer, x, states, rtol=1e-5):
    out, new = layer(x, [s.copy() for s in states])
    for got, want in zip([out] + list(new), _reference(layer, x, states)):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("flags", FLAGS)
@pytest.mark.parametrize("cls,kw", CASES)
def test_every_call_sees_the_parameters_current_values(cls, kw, flags):
    layer = _layer(cls, flags, **kw)
    x, states = _inputs(layer)
    _check(layer, x, states)
    # a rate at which tanh stays off its flat ends: there a step barely moves the outputs
    trainer = gluon.Trainer(layer.collect_params(), "sgd", {"learning_rate": 0.1})
    for _ in range(2):  # a step updates the parameters in place: the next call reads them
        with autograd.record():
            out, _ = layer(x, [s.copy() for s in states])
        out.backward()
        before = _reference(layer, x, states)[0]
        trainer.step(1)
        assert not np.allclose(_reference(layer, x, states)[0], before)
        _check(layer, x, states)
    first = layer.collect_params()[layer.prefix + layer._packed_names[0]]
    first.set_data(nd.random.uniform(-0.6, 0.6, shape=first.shape))
    _check(layer, x, states)
    layer.initialize(force_reinit=True)  # new arrays for every parameter
    _check(layer, x, states)
    layer.cast("float64")
    _check(layer, *_inputs(layer, "float64"), rtol=1e-12)


@pytest.mark.parametrize("flags", FLAGS)
def test_gradients_follow_grad_req(flags):
    layer = _layer(rnn.LSTM, flags, num_layers=2)
    x, states = _inputs(layer)
    params = layer.collect_params()
    names = [layer.prefix + n for n in layer._packed_names]

    def grads():
        for s in states:
            s.attach_grad()
        with autograd.record():
            out, _ = layer(x, states)
        out.backward()
        return {n: params[n].grad().asnumpy().copy() for n in names
                if params[n].grad_req != "null"}
    once = grads()
    # the packed parameters' gradient from the plain operators, cut into the parameters'
    packed = nd.concat(*[params[n].data().reshape(-1) for n in names], dim=0)
    packed.attach_grad()
    with autograd.record():
        ref = nd.RNN(x, packed, *states, state_size=5, num_layers=2, mode="lstm")
    ref.backward()
    flat = packed.grad.asnumpy()
    for n in names:
        size = params[n].data().size
        np.testing.assert_allclose(once[n].reshape(-1), flat[:size], rtol=1e-5, atol=1e-6)
        flat = flat[size:]
    for p in params.values():
        p.grad_req = "add"
    params[names[0]].grad_req = "null"
    for p in params.values():
        p.zero_grad()
    grads()
    twice = grads()
    assert names[0] not in twice
    for n in names[1:]:
        np.testing.assert_allclose(twice[n], 2 * once[n], rtol=1e-5, atol=1e-6)


def test_compiled_graph_reads_the_parts_and_exports_mxnets_graph(tmp_path):
    layer = _layer(rnn.LSTM, {"static_alloc": True}, num_layers=2, bidirectional=True)
    x, states = _inputs(layer)
    with autograd.record():
        out, _ = layer(x, states)
    out.backward()
    op = next(iter(layer._cached_ops.values()))[0]
    ran = {st.op.name for plan in op.plans for st in plan.steps}
    assert "_rnn_unpacked" in ran and not ran & {"RNN", "_rnn_param_concat", "Reshape"}
    graph = layer._cached_graph[1]
    assert op.symbol.list_inputs() == graph.list_inputs()  # the caller's order
    sym_file, _ = layer.export(str(tmp_path / "lstm"))
    with open(sym_file) as f:
        ops = {n["op"] for n in json.load(f)["nodes"]}
    assert {"RNN", "_rnn_param_concat"} <= ops and "_rnn_unpacked" not in ops


def test_stacked_layers_each_run_once():
    """Two LSTM layers in a row: the second's rewritten node reads the first's rewritten
    node, so neither the old RNN nor its packing stays in the compiled graph (they did,
    the first layer packing its parameters on every call, before `substitute` read
    replacements through itself)."""
    net = gluon.nn.HybridSequential()
    net.add(rnn.LSTM(4, input_size=3), rnn.LSTM(5, input_size=4))
    net.initialize()
    ops = _ops(unpack_rnn_params(net(sym.var("data"))))
    assert ops.count("_rnn_unpacked") == 2
    assert "RNN" not in ops and "_rnn_param_concat" not in ops
    x = nd.array(np.random.default_rng(0).standard_normal((5, 2, 3)))
    want = net(x).asnumpy()
    net.hybridize(static_alloc=True)
    np.testing.assert_allclose(net(x).asnumpy(), want, rtol=1e-6, atol=1e-7)


def _ops(s):
    return [n["op"] for n in json.loads(s.tojson())["nodes"] if n["op"] != "null"]


def _graph(split, also_packed=False, use_sequence_length=False):
    """RNN(data, _rnn_param_concat(a, b), h) with the packed GRU vector split at `split`."""
    parts = [sym.var("a"), sym.var("b")]
    packed = sym._rnn_param_concat(*parts, dim=0)
    lengths = {"sequence_length": sym.var("n")} if use_sequence_length else {}
    y = sym.RNN(sym.var("data"), packed, sym.var("h"), state_size=4, num_layers=1,
                mode="gru", use_sequence_length=use_sequence_length, **lengths)
    return sym.Group([y, packed]) if also_packed else y


@pytest.mark.parametrize("split", [3 * 4 * 3, 7])  # at an entry's end, inside an entry
def test_pass_reads_parts_that_split_the_vector_anywhere(split):
    size = 3 * 4 * (3 + 4 + 2)
    rng = np.random.default_rng(0)
    vals = {"data": rng.uniform(-1, 1, (5, 2, 3)), "a": rng.uniform(-1, 1, (split,)),
            "b": rng.uniform(-1, 1, (size - split,)), "h": rng.uniform(-1, 1, (1, 2, 4))}
    head = rng.uniform(-1, 1, (5, 2, 4))
    y = _graph(split)
    assert _ops(unpack_rnn_params(y)) == ["_rnn_unpacked"]
    args = {k: nd.array(v, dtype="float64") for k, v in vals.items()}
    grads = {k: nd.zeros(v.shape, dtype="float64") for k, v in vals.items()}
    exe = y.bind(args=args, args_grad=grads)
    got = exe.forward(is_train=True)[0].asnumpy()
    exe.backward([nd.array(head, dtype="float64")])
    xs = {k: nd.array(v, dtype="float64") for k, v in vals.items()}
    for v in xs.values():
        v.attach_grad()
    with autograd.record():
        want = nd.RNN(xs["data"], nd.concat(xs["a"], xs["b"], dim=0), xs["h"],
                      state_size=4, num_layers=1, mode="gru")
    want.backward(nd.array(head, dtype="float64"))
    np.testing.assert_allclose(got, want.asnumpy(), rtol=1e-12)
    for k in vals:
        np.testing.assert_allclose(grads[k].asnumpy(), xs[k].grad.asnumpy(), rtol=1e-10,
                                   atol=1e-12, err_msg=k)


def test_pass_leaves_graphs_it_must_not_rewrite():
    shared = _graph(10, also_packed=True)  # the packed vector is an output too
    assert unpack_rnn_params(shared) is shared
    lengths = _graph(10, use_sequence_length=True)
    assert unpack_rnn_params(lengths) is lengths
    w = sym.var("w")
    flat = sym.reshape(w, shape=(-1,))  # a reshape read twice stays, the RNN still unpacks
    y = sym.RNN(sym.var("data"), sym._rnn_param_concat(flat, sym.var("b"), dim=0),
                sym.var("h"), state_size=4, num_layers=1, mode="gru")
    both = sym.Group([y, flat * 2])
    ops = _ops(unpack_rnn_params(both))
    assert "_rnn_unpacked" in ops and "Reshape" in ops and "_rnn_param_concat" not in ops
    plain = sym.tanh(sym.var("x"))
    assert unpack_rnn_params(plain) is plain
    wide = sym.RNN(sym.var("data"), sym._rnn_param_concat(sym.var("w"), sym.var("b"), dim=1),
                   sym.var("h"), state_size=4, num_layers=1, mode="gru")
    assert unpack_rnn_params(wide) is wide  # another axis would interleave the parts


def test_unpacked_attribute_errors():
    x, w, h = nd.ones((5, 2, 3)), nd.zeros((3 * 4 * 9,)), nd.zeros((1, 2, 4))
    with pytest.raises(ValueError, match=r"_rnn_unpacked: attribute use_sequence_length must "
                       r"be False \(use RNN for sequences of several lengths\)"):
        nd._rnn_unpacked(x, w, h, state_size=4, num_layers=1, mode="gru",
                         use_sequence_length=True)
    with pytest.raises(ValueError, match=r"_rnn_unpacked: attribute num_args must count data, "
                       r"at least one parameter part and the state\(s\): >= 4 for "
                       r"mode='lstm', got 3"):
        nd._rnn_unpacked(x, w, h, state_size=4, num_layers=1, mode="lstm")


@pytest.mark.parametrize("name", ["RNN", "_rnn_unpacked"])
def test_a_backward_without_the_kept_run_runs_the_forward_again(name):
    from gluonlite import ops
    op = ops.get(name)
    rng = np.random.default_rng(1)
    parts = [rng.uniform(-1, 1, s) for s in [(16, 3), (16, 4), (16,), (16,)]]
    x, h, c = (rng.uniform(-1, 1, s) for s in [(3, 2, 3), (1, 2, 4), (1, 2, 4)])
    params = [np.concatenate([a.reshape(-1) for a in parts])] if name == "RNN" else parts
    attrs = {"state_size": 4, "num_layers": 1, "mode": "lstm", "state_outputs": True}
    if name == "_rnn_unpacked":
        attrs["num_args"] = 7
    p = op.parse(attrs)[0]
    rc = ops.RunCtx(True, np, True)
    xs = [x] + params + [h, c]
    ys = op.kernel(p, rc, *xs)
    head = [rng.uniform(-1, 1, ys[0].shape), None, None]
    kept = op.vjp(p, rc, xs, list(ys), head, [True] * len(xs))
    again = op.vjp(p, rc, xs, list(ys[:3]), head, [True] * len(xs))  # no hidden output
    for a, b in zip(kept, again):
        np.testing.assert_allclose(a, b, rtol=1e-12)


@pytest.mark.parametrize("mode", ["rnn_tanh", "rnn_relu"])
def test_rnn_backward_per_step_and_whole_sequence_agree(mode, monkeypatch):
    """Small steps take the activation's derivative for the whole sequence first, large ones
    step by step: both give the same gradients (also with rows past their length)."""
    from gluonlite.ops import rnn_fused as ops_rnn
    rng = np.random.default_rng(2)
    x = nd.array(rng.uniform(-1, 1, (4, 3, 2)), dtype="float64")
    params = nd.array(rng.uniform(-1, 1, (2 * 5 * (2 + 5 + 2),)), dtype="float64")
    h = nd.array(rng.uniform(-1, 1, (2, 3, 5)), dtype="float64")
    lengths = nd.array([4, 2, 3], dtype="float64")

    def grads():
        for a in (x, params, h):
            a.attach_grad()
        with autograd.record():
            y = nd.RNN(x, params, h, lengths, state_size=5, num_layers=1, mode=mode,
                       bidirectional=True, use_sequence_length=True)
        y.backward(nd.array(rng.uniform(-1, 1, y.shape), dtype="float64"))
        return [a.grad.asnumpy() for a in (x, params, h)]
    rng_state = rng.bit_generator.state
    whole = grads()
    monkeypatch.setattr(ops_rnn, "_WHOLE_SEQUENCE_MAX", 0)
    rng.bit_generator.state = rng_state
    for a, b in zip(grads(), whole):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_an_imperative_layer_under_autograd_records_the_parts():
    """The graph pass's twin on the autograd tape: an imperative layer emits RNN of the packed
    parameters (MXNet's graph), and the call autograd records is `_rnn_unpacked` of the
    parameters themselves, whose gradients land in each parameter's grad buffer; outputs and
    gradients equal the hybridized layer's."""
    from gluonlite.symbol.symbol import topo_nodes
    layer = rnn.GRU(5, input_size=3, num_layers=2, bidirectional=True, dtype="float64")
    layer.initialize()
    x, states = _inputs(layer, "float64")
    params = layer.collect_params()
    buffers = {k: p.grad()._data for k, p in params.items()}

    def run():
        with autograd.record():
            out, new = layer(x, states)
            loss = out.sum() + new[0].sum()
        loss.backward()
        return out, new, loss, {k: p.grad().asnumpy().copy() for k, p in params.items()}
    out, new, loss, grads = run()
    ops = {n.op.name for n in topo_nodes(autograd.get_symbol(loss).outputs) if n.op is not None}
    assert "_rnn_unpacked" in ops and not ops & {"RNN", "_rnn_param_concat", "Reshape"}
    assert all(params[k].grad()._data is b for k, b in buffers.items())  # written in place
    layer.hybridize()
    h_out, h_new, _, h_grads = run()
    np.testing.assert_allclose(h_out.asnumpy(), out.asnumpy(), rtol=1e-12)
    np.testing.assert_allclose(h_new[0].asnumpy(), new[0].asnumpy(), rtol=1e-12)
    for k in grads:
        np.testing.assert_allclose(h_grads[k], grads[k], rtol=1e-10, atol=1e-12, err_msg=k)


def test_a_layer_called_with_and_without_states_alternately():
    """Whether the states come back is the call's argument, not the block's state: one
    hybridized layer called with, without and again with states gives (output, states),
    the output alone, and (output, states), each equal to the imperative call."""
    layer = _layer(rnn.LSTM, None)
    x, states = _inputs(layer)
    want_with, want_without = layer(x, states), layer(x)
    layer.hybridize()
    for _ in range(2):
        out, new = layer(x, states)
        np.testing.assert_allclose(out.asnumpy(), want_with[0].asnumpy(), rtol=1e-6)
        np.testing.assert_allclose(new[1].asnumpy(), want_with[1][1].asnumpy(), rtol=1e-6)
        alone = layer(x)
        np.testing.assert_allclose(alone.asnumpy(), want_without.asnumpy(), rtol=1e-6)
