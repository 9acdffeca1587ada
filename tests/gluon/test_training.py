"""Losses against numpy formulas, optimizers against numpy updates, Trainer and DataLoader."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd, gluon, autograd
from gluonlite.gluon import nn, rnn

R = np.random.RandomState(9)


def test_losses_match_numpy():
    p = R.uniform(-2, 2, (4, 3)).astype(np.float32)
    y = R.uniform(0, 1, (4, 3)).astype(np.float32)
    P, Y = nd.array(p), nd.array(y)
    np.testing.assert_allclose(gluon.loss.L2Loss()(P, Y).asnumpy(),
                               (0.5 * (y - p) ** 2).mean(1), rtol=1e-5)
    np.testing.assert_allclose(gluon.loss.L1Loss(weight=2.0)(P, Y).asnumpy(),
                               (2 * np.abs(y - p)).mean(1), rtol=1e-5)
    bce = -(y * np.log(1 / (1 + np.exp(-p))) + (1 - y) * np.log(1 - 1 / (1 + np.exp(-p))))
    np.testing.assert_allclose(gluon.loss.SigmoidBinaryCrossEntropyLoss()(P, Y).asnumpy(),
                               bce.mean(1), rtol=1e-5)
    prob = 1 / (1 + np.exp(-p))
    np.testing.assert_allclose(
        gluon.loss.SigmoidBCELoss(from_sigmoid=True)(nd.array(prob), Y).asnumpy(),
        bce.mean(1), rtol=1e-4)
    label = np.array([0, 2, 1, 2])
    logp = p - np.log(np.exp(p).sum(1, keepdims=True))
    np.testing.assert_allclose(
        gluon.loss.SoftmaxCrossEntropyLoss()(P, nd.array(label)).asnumpy(),
        -logp[np.arange(4), label], rtol=1e-5)
    dense = np.eye(3)[label].astype(np.float32)
    np.testing.assert_allclose(
        gluon.loss.SoftmaxCrossEntropyLoss(sparse_label=False)(P, nd.array(dense)).asnumpy(),
        -logp[np.arange(4), label], rtol=1e-5)
    sw = nd.array([[1.0], [0.0], [2.0], [1.0]])
    np.testing.assert_allclose(gluon.loss.L2Loss()(P, Y, sw).asnumpy(),
                               (0.5 * (y - p) ** 2).mean(1) * [1, 0, 2, 1], rtol=1e-5)


def _one_param_step(opt, params, steps=3):
    w0 = R.uniform(-1, 1, (3, 2)).astype(np.float32)
    p = gluon.Parameter("w", shape=(3, 2))
    p.initialize(init=mx.init.Constant(w0))
    tr = gluon.Trainer([p], opt, params)
    grads = [R.uniform(-1, 1, (3, 2)).astype(np.float32) for _ in range(steps)]
    for g in grads:
        with autograd.record():
            loss = (p.data() * nd.array(g)).sum()
        loss.backward()
        tr.step(4)
    return w0, grads, p.data().asnumpy()


def test_sgd_momentum_wd_matches_numpy():
    w, grads, got = _one_param_step("sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01})
    mom = np.zeros_like(w)
    for g in grads:
        mom = 0.9 * mom - 0.1 * (g / 4 + 0.01 * w)
        w = w + mom
    np.testing.assert_allclose(got, w, rtol=1e-5, atol=1e-6)


def test_adam_matches_numpy():
    w, grads, got = _one_param_step("adam", {"learning_rate": 0.01})
    m = v = np.zeros_like(w)
    for t, g in enumerate(grads, 1):
        g = g / 4
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        lr = 0.01 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
        w = w - lr * m / (np.sqrt(v) + 1e-8)
    np.testing.assert_allclose(got, w, rtol=1e-5, atol=1e-6)


def test_trainer_rejects_bad_params_and_names():
    with pytest.raises(ValueError):
        gluon.Trainer("x", "sgd")
    with pytest.raises(ValueError, match="unknown optimizer"):
        gluon.Trainer([gluon.Parameter("w", shape=(1,))], "rmsnope")


class SeqModel(gluon.HybridBlock):
    def __init__(self, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.rnn = rnn.GRU(8, layout="NTC")
            self.out = nn.Dense(1, flatten=False)

    def hybrid_forward(self, F, x):
        return self.out(self.rnn(x))


@pytest.mark.parametrize("hybrid", [False, True])
def test_trainer_learns_tiny_sequence_task(hybrid):
    mx.random.seed(0)
    # target: running sum of the inputs so far
    x = R.uniform(-1, 1, (32, 6, 1)).astype(np.float32)
    y = np.cumsum(x, axis=1)
    loader = gluon.data.DataLoader(gluon.data.ArrayDataset(nd.array(x), nd.array(y)),
                                   batch_size=8, shuffle=True)
    net = SeqModel()
    net.initialize(mx.init.Xavier())
    if hybrid:
        net.hybridize(static_alloc=True)
    trainer = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.03})
    loss_fn = gluon.loss.L2Loss()

    def total():
        return float(loss_fn(net(nd.array(x)), nd.array(y)).mean().asscalar())
    before = total()
    for _ in range(15):
        for xb, yb in loader:
            with autograd.record():
                loss = loss_fn(net(xb), yb)
            loss.backward()
            trainer.step(xb.shape[0])
    assert total() < 0.3 * before


def test_dataloader_last_batch_modes():
    data = gluon.data.ArrayDataset(np.arange(10), np.arange(10) * 2)
    assert data[3] == (3, 6)
    keep = [b[0].asnumpy().tolist() for b in gluon.data.DataLoader(data, 4)]
    assert keep == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert len(gluon.data.DataLoader(data, 4, last_batch="discard")) == 2
    roll = gluon.data.DataLoader(data, 4, last_batch="rollover")
    first = [b[0].asnumpy().tolist() for b in roll]
    second = [b[0].asnumpy().tolist() for b in roll]
    assert first == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert second[0] == [8, 9, 0, 1]
    shuffled = np.concatenate([b[0].asnumpy() for b in gluon.data.DataLoader(data, 3,
                                                                             shuffle=True)])
    assert sorted(shuffled.tolist()) == list(range(10))
    with pytest.raises(ValueError, match="last_batch"):
        gluon.data.DataLoader(data, 3, last_batch="bogus")
    with pytest.raises(ValueError, match="same length"):
        gluon.data.ArrayDataset(np.arange(3), np.arange(4))


def test_dense_gradient_matches_finite_differences():
    d = nn.Dense(3, in_units=4, dtype="float64")
    d.initialize(mx.init.Uniform(0.5))
    x = R.uniform(-1, 1, (2, 4))
    w = d.weight.data().asnumpy()
    b = d.bias.data().asnumpy()
    with autograd.record():
        loss = (nd.tanh(d(nd.array(x, dtype="float64"))) ** 2).sum()
    loss.backward()

    def f(w_):
        return (np.tanh(x @ w_.T + b) ** 2).sum()
    num = mx.test_utils.finite_difference(f, [w.copy()], eps=1e-6)[0]
    np.testing.assert_allclose(d.weight.grad().asnumpy(), num, rtol=1e-5, atol=1e-7)
