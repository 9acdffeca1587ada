"""An imperative gluon.rnn layer gives ``RNN`` a packed parameter vector that is never built
(`gluonlite.executor.rnn_params.PackedParams`): the call runs `_rnn_unpacked` on the
parameters where they lie, recorded or not. Nothing is kept between calls, so whatever
changes a parameter (a Trainer step writing in place, set_data, load_parameters, a write
into its data, reset_ctx) shows in the next call's outputs and gradients; a stale packed
vector would give the old numbers silently, so each change is checked against the plain
operators: ``RNN`` of an explicit concatenation of the parameters, whose gradient is cut
back into the parameters'."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, gluon, nd
from gluonlite.executor.rnn_params import PackedParams
from gluonlite.gluon import rnn

FLAGS = [None, {"static_alloc": True}]


def _layer(hybridize, cls=rnn.LSTM, **kw):
    layer = cls(4, input_size=3, num_layers=2, **kw)
    layer.initialize()
    for p in layer.collect_params().values():
        p.set_data(nd.random.uniform(-0.6, 0.6, shape=p.shape))
    if hybridize is not None:
        layer.hybridize(**hybridize)
    return layer


def _inputs(layer, ctx=None):
    ctx = ctx or mx.cpu()
    x = nd.random.uniform(-1, 1, shape=(5, 2, 3), ctx=ctx)
    states = [nd.random.uniform(-1, 1, shape=i["shape"], ctx=ctx) for i in layer.state_info(2)]
    return x, states


def _names(layer):
    return [layer.prefix + n for n in layer._packed_names]


def _reference(layer, x, states, head, lengths=None):
    """(output, gradient of every packed parameter) from RNN of the concatenated values."""
    params = layer.collect_params()
    names = _names(layer)
    packed = nd.concat(*[params[n].data(x.context).reshape(-1) for n in names], dim=0)
    packed.attach_grad()
    extra = {} if lengths is None else {"sequence_length": lengths, "use_sequence_length": True}
    with autograd.record():
        out = nd.RNN(x, packed, *states, state_size=4, num_layers=2, mode=layer._mode,
                     **extra)
    out.backward(head)
    flat, grads = packed.grad.asnumpy(), {}
    for n in names:
        size = params[n].data(x.context).size
        grads[n], flat = flat[:size].reshape(params[n].shape), flat[size:]
    return out.asnumpy(), grads


def _check(layer, x, states, lengths=None):
    """The layer's output (not recorded) and its gradients (recorded) equal the reference."""
    head = nd.random.uniform(-1, 1, shape=(5, 2, 4), ctx=x.context)
    want, want_grads = _reference(layer, x, states, head, lengths)
    args = [states] + ([lengths] if lengths is not None else [])
    np.testing.assert_allclose(layer(x, *args)[0].asnumpy(), want, rtol=1e-5, atol=1e-6)
    with autograd.record():
        out = layer(x, *args)[0]
    out.backward(head)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-6)
    params = layer.collect_params()
    for n, g in want_grads.items():
        np.testing.assert_allclose(params[n].grad(x.context).asnumpy(), g, rtol=1e-4,
                                   atol=1e-6, err_msg=n)
    return want


@pytest.mark.parametrize("flags", FLAGS)
def test_outputs_and_gradients_follow_every_parameter_change(flags, tmp_path):
    layer = _layer(flags)
    x, states = _inputs(layer)
    last = _check(layer, x, states)

    def changed():
        nonlocal last
        now = _check(layer, x, states)
        assert not np.allclose(now, last)  # the change moved the outputs: a real check
        last = now

    trainer = gluon.Trainer(layer.collect_params(), "sgd", {"learning_rate": 0.5})
    trainer.step(1)  # the gradients of the last _check, applied in place
    changed()
    first = layer.collect_params()[_names(layer)[0]]
    first.set_data(nd.random.uniform(-0.6, 0.6, shape=first.shape))
    changed()
    first.data()[:] = nd.random.uniform(-0.6, 0.6, shape=first.shape)  # into its array
    changed()
    other = _layer(None)
    other.save_parameters(str(tmp_path / "other.params"))
    layer.load_parameters(str(tmp_path / "other.params"))
    changed()
    np.testing.assert_allclose(last, other(x, states)[0].asnumpy(), rtol=1e-5, atol=1e-6)
    layer.collect_params().reset_ctx(mx.cpu(1))
    x, states = x.as_in_context(mx.cpu(1)), [s.as_in_context(mx.cpu(1)) for s in states]
    _check(layer, x, states)
    layer.collect_params()[_names(layer)[-1]].set_data(nd.random.uniform(-0.6, 0.6, shape=(16,)))
    changed()


def test_sequence_length_packs_the_vector_recorded():
    """`_rnn_unpacked` takes no sequence lengths: the call packs the parameters with a
    recorded ``_rnn_param_concat``, and their gradients arrive all the same."""
    layer = _layer(None, use_sequence_length=True)
    x, states = _inputs(layer)
    lengths = nd.array([5, 3])
    before = _check(layer, x, states, lengths)
    gluon.Trainer(layer.collect_params(), "sgd", {"learning_rate": 0.5}).step(1)
    assert not np.allclose(_check(layer, x, states, lengths), before)


def test_an_imperative_call_runs_the_parts_without_packing_them():
    layer = _layer(None, cls=rnn.GRU)
    x, states = _inputs(layer)
    mx.profiler.set_config(aggregate_stats=True, profile_imperative=True)
    mx.profiler.set_state("run")
    try:
        layer(x, states)
    finally:
        mx.profiler.set_state("stop")
    ran = mx.profiler.dumps(reset=True)
    assert "_rnn_unpacked" in ran and "_rnn_param_concat" not in ran


def test_packed_params_read_outside_the_call_is_the_concatenation():
    parts = [nd.array([[1, 2], [3, 4]]), nd.array([5, 6, 7])]
    packed = PackedParams(parts)
    assert packed.shape == (7,) and packed.context == parts[0].context
    np.testing.assert_array_equal(packed.asnumpy(), [1, 2, 3, 4, 5, 6, 7])
    np.testing.assert_array_equal(packed.concat().asnumpy(), [1, 2, 3, 4, 5, 6, 7])
    x = nd.random.uniform(-1, 1, shape=(3, 1, 2))
    h = nd.zeros((1, 1, 1))
    w = [nd.random.uniform(-1, 1, shape=s) for s in [(1, 2), (1, 1), (1,), (1,)]]
    lazily = nd.RNN(x, PackedParams(w), h, state_size=1, num_layers=1, mode="rnn_tanh")
    packed = nd.RNN(x, nd.concat(*[a.reshape(-1) for a in w], dim=0), h, state_size=1,
                    num_layers=1, mode="rnn_tanh")
    np.testing.assert_allclose(lazily.asnumpy(), packed.asnumpy(), rtol=1e-6)
