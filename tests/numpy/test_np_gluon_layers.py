"""Gluon's own layers under NumPy semantics: deferred initialization, layers that call child
blocks (a Dense or Conv2D with an activation), imperative and hybridized, against the same
layers run in the legacy dialect on the same parameters (d2l's first networks)."""
import numpy as onp
import pytest

import gluonlite as mx
from gluonlite import autograd, gluon, init
from gluonlite.gluon import nn


def _mlp():
    net = nn.Sequential()
    net.add(nn.Dense(8, activation="relu"), nn.Dense(3))
    return net


def _lenet():
    net = nn.Sequential()
    net.add(nn.Conv2D(4, kernel_size=3, padding=1, activation="sigmoid"),
            nn.MaxPool2D(pool_size=2), nn.Dense(5, activation="tanh"), nn.Dense(2))
    return net


def _hybrid_mlp():
    net = nn.HybridSequential()
    net.add(nn.Dense(8, activation="relu"), nn.Dense(3))
    return net


CASES = [(_mlp, (4, 6)), (_lenet, (2, 1, 8, 8)), (_hybrid_mlp, (4, 6))]


def _legacy_reference(make, x, params):
    """The same network in the legacy dialect, on the same parameter values."""
    mx.npx.reset_np()
    try:
        net = make()
        net.initialize()
        net(mx.nd.array(x))  # shapes known
        for p, v in zip(net.collect_params().values(), params):
            p.set_data(mx.nd.array(v))
        xs = mx.nd.array(x)
        xs.attach_grad()
        with autograd.record():
            y = net(xs)
        y.backward()
        return y.asnumpy(), xs.grad.asnumpy()
    finally:
        mx.npx.set_np()


@pytest.mark.parametrize("hybridize", [False, True])
@pytest.mark.parametrize("make, shape", CASES)
def test_layers_with_activations_defer_init_and_match_the_legacy_dialect(make, shape,
                                                                        hybridize):
    x = onp.random.RandomState(0).uniform(-1, 1, size=shape).astype("float32")
    net = make()
    net.initialize(init.Normal(sigma=0.5))
    if hybridize:
        net.hybridize()
    xs = mx.np.array(x)
    xs.attach_grad()
    with autograd.record():
        y = net(xs)  # shapes inferred here: the deferred parameters initialize
    y.backward()
    assert isinstance(y, mx.np.ndarray) and isinstance(xs.grad, mx.np.ndarray)
    params = [p.data().asnumpy() for p in net.collect_params().values()]
    want_y, want_dx = _legacy_reference(make, x, params)
    onp.testing.assert_allclose(y.asnumpy(), want_y, rtol=1e-5, atol=1e-6)
    onp.testing.assert_allclose(xs.grad.asnumpy(), want_dx, rtol=1e-5, atol=1e-6)


def test_a_training_step_moves_the_loss():
    rng = onp.random.RandomState(1)
    x = mx.np.array(rng.uniform(-1, 1, size=(16, 6)).astype("float32"))
    y = mx.np.array(rng.randint(0, 3, size=16))
    net = _mlp()
    net.initialize(init.Normal(sigma=0.1))
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.5})
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    first = None
    for _ in range(20):
        with autograd.record():
            lv = loss(net(x), y)
        lv.backward()
        trainer.step(16)
        first = float(lv.mean()) if first is None else first
    assert isinstance(lv, mx.np.ndarray)
    assert float(lv.mean()) < first


def test_a_user_block_returning_a_legacy_array_is_still_refused():
    class Bad(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return x.as_nd_ndarray()

    with pytest.raises(TypeError, match="must be mxnet.numpy.ndarray"):
        Bad()(mx.np.ones((2,)))


def _mxnet_d2l_gaps():
    # made by real MXNet 1.9.1: tests/fixtures/make_d2l_gaps.py
    import json
    import os
    path = os.path.join(os.path.dirname(__file__), "..", "fixtures", "d2l_gaps_mxnet.json")
    with open(path) as f:
        return json.load(f)


class _Record(init.Initializer):
    """Writes i % 3 and remembers the class of the array it was given."""

    def __init__(self):
        super().__init__()
        self.seen = []

    def _init_weight(self, name, data):
        self.seen.append(type(data))
        data[:] = mx.np.arange(data.size).reshape(data.shape) % 3


def test_custom_initializer_gets_np_array_and_deferred_load_fills_shape(tmp_path):
    ref = _mxnet_d2l_gaps()
    rec = _Record()
    net = nn.Dense(4)
    net.initialize(rec)
    net(mx.np.ones((2, 3)))
    # MXNet: mxnet.numpy.ndarray, so mx.np functions work on it inside _init_weight
    assert [f"mxnet.numpy.{t.__name__}" for t in rec.seen] == ref["np_init_arg_type"]
    assert all(t is mx.np.ndarray for t in rec.seen)
    path = str(tmp_path / "dense.params")
    net.save_parameters(path)
    clone = nn.Dense(4)   # input size unknown (-1 under NumPy shape semantics) until loaded
    clone.load_parameters(path)
    assert list(clone.weight.shape) == ref["np_load_deferred_shape"]
    assert clone.weight.data().asnumpy().tolist() == ref["np_load_deferred_weight"]
