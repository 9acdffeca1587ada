"""Module.init_optimizer / update / fit / score: the optimizer sees the symbol's lr/wd
multipliers and parameter names as in MXNet, and fit trains (a stand-in iterator and
metric, so the test depends only on the Module)."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd
from gluonlite.io import DataBatch, DataDesc


class _Iter:
    """The DataIter interface Module.fit reads: provide_data/label, reset, iteration."""

    def __init__(self, x, y, batch_size):
        self.x, self.y, self.bs = x, y, batch_size
        self.provide_data = [DataDesc("data", (batch_size,) + x.shape[1:])]
        self.provide_label = [DataDesc("label", (batch_size,) + y.shape[1:])]
        self.resets = 0

    def reset(self):
        self.resets += 1

    def __iter__(self):
        for i in range(0, len(self.x), self.bs):
            yield DataBatch([nd.array(self.x[i:i + self.bs])], [nd.array(self.y[i:i + self.bs])])


def _regression():
    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, (20, 3))
    y = x @ np.array([[1.0], [-2.0], [0.5]])
    data, label = mx.sym.var("data"), mx.sym.var("label")
    out = mx.sym.FullyConnected(data, num_hidden=1, name="fc")
    loss = mx.sym.mean(mx.sym.square(out - label), axis=1)
    return x, y, loss


def test_init_optimizer_reads_multipliers_and_names():
    data = mx.sym.Variable("data")
    bias = mx.sym.Variable("fc1_bias", lr_mult=1.0)
    fc1 = mx.sym.FullyConnected(data=data, bias=bias, name="fc1", num_hidden=10, lr_mult=0)
    fc2 = mx.sym.FullyConnected(data=fc1, name="fc2", num_hidden=10, wd_mult=0.5)
    mod = mx.mod.Module(symbol=fc2, label_names=None)
    mod.bind(data_shapes=[("data", (5, 10))])
    mod.init_params(initializer=mx.init.Uniform(1.0))
    mod.init_optimizer(optimizer_params={"learning_rate": 1.0})
    assert mod._optimizer.lr_mult == {"fc1_bias": 1.0, "fc1_weight": 0.0}
    assert mod._optimizer.wd_mult == {"fc2_bias": 0.5, "fc2_weight": 0.5, "fc1_bias": 0.0}
    assert mod._optimizer.rescale_grad == pytest.approx(1 / 5)
    before = mod.get_params()[0]
    mod.forward(DataBatch([nd.ones((5, 10))], None), is_train=True)
    mod.backward(mod.get_outputs())
    mod.update()
    after = mod.get_params()[0]
    np.testing.assert_array_equal(before["fc1_weight"].asnumpy(), after["fc1_weight"].asnumpy())
    assert not np.allclose(before["fc2_weight"].asnumpy(), after["fc2_weight"].asnumpy())


def test_fit_trains_and_score_evaluates():
    x, y, loss = _regression()
    it = _Iter(x, y, 5)
    mod = mx.mod.Module(loss, data_names=("data",), label_names=("label",))
    seen = []
    mod.fit(it, num_epoch=30, optimizer="adam", optimizer_params={"learning_rate": 0.05},
            eval_metric=mx.metric.Loss(), initializer=mx.init.Xavier(),
            epoch_end_callback=lambda epoch, sym, arg, aux: seen.append(epoch))
    assert seen == list(range(30)) and it.resets == 30
    assert mod.score(it, mx.metric.Loss())[0][1] < 0.05


def test_update_before_init_optimizer_and_fit_without_epochs_are_refused():
    x, y, loss = _regression()
    mod = mx.mod.Module(loss, data_names=("data",), label_names=("label",))
    with pytest.raises(ValueError, match="num_epoch must be given"):
        mod.fit(_Iter(x, y, 5))
    mod.bind(data_shapes=[("data", (5, 3))], label_shapes=[("label", (5, 1))])
    mod.init_params()
    with pytest.raises(ValueError, match="call init_optimizer"):
        mod.update()


def test_checkpoint_round_trip_with_optimizer_states(tmp_path):
    x, y, loss = _regression()
    it = _Iter(x, y, 5)
    mod = mx.mod.Module(loss, data_names=("data",), label_names=("label",))
    # (momentum only: as in MXNet, the update counts Adam's bias correction reads are not
    # part of a Module's optimizer states file)
    sgd = {"learning_rate": 0.1, "momentum": 0.9}
    mod.fit(it, num_epoch=2, optimizer="sgd", optimizer_params=sgd, eval_metric=mx.metric.Loss())
    prefix = str(tmp_path / "m")
    mod.save_checkpoint(prefix, 2, save_optimizer_states=True)
    back = mx.mod.Module.load(prefix, 2, load_optimizer_states=True, data_names=("data",),
                              label_names=("label",))
    back.bind(data_shapes=it.provide_data, label_shapes=it.provide_label)
    back.init_optimizer(optimizer="sgd", optimizer_params=sgd)
    for a, b in zip(mod.get_params()[0].values(), back.get_params()[0].values()):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    batch = next(iter(it))
    for m in (mod, back):  # the same next step: same moments and update counts
        m.forward_backward(batch)
        m.update()
    for a, b in zip(mod.get_params()[0].values(), back.get_params()[0].values()):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6)
