"""gluon.contrib.estimator.Estimator: `fit` and `evaluate` against a numpy SGD loop written
out by hand (closed form for a linear model with L2Loss), the default metrics and handlers,
handler order, the batch processor, and the errors for bad arguments."""
import warnings

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import gluon
from gluonlite.gluon.contrib.estimator import (BatchEnd, BatchProcessor, CheckpointHandler,
                                               EpochEnd, Estimator, LoggingHandler,
                                               MetricHandler)

LR = 0.1
RNG = np.random.RandomState(7)
X = RNG.randn(6, 2).astype(np.float32)
Y = RNG.randn(6, 1).astype(np.float32)
W0 = np.array([[0.3, -0.2]], np.float32)
B0 = np.array([0.1], np.float32)


def _loader(batch_size=4):
    return gluon.data.DataLoader(gluon.data.ArrayDataset(mx.nd.array(X), mx.nd.array(Y)),
                                 batch_size=batch_size)


def _estimator(ctx=None, **kwargs):
    ctx = ctx or mx.cpu()
    net = gluon.nn.Dense(1, in_units=2)
    net.initialize(ctx=ctx)
    net.weight.set_data(mx.nd.array(W0, ctx=ctx))
    net.bias.set_data(mx.nd.array(B0, ctx=ctx))
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': LR})
    return Estimator(net, gluon.loss.L2Loss(), trainer=trainer, context=ctx, **kwargs)


def _numpy_sgd(n_batches, batch_size=4):
    """The same training in numpy: L2Loss = 0.5 (pred - y)^2 per sample; backward of the
    batch's losses sums their gradients; Trainer.step(n) divides by the batch size n."""
    w, b = W0.astype(np.float64), B0.astype(np.float64)
    starts = list(range(0, len(X), batch_size))
    losses = []
    for k in range(n_batches):
        if k % len(starts) == 0:
            losses = []
        s = starts[k % len(starts)]
        x, y = X[s:s + batch_size], Y[s:s + batch_size]
        err = x @ w.T + b - y
        losses.extend(0.5 * err[:, 0] ** 2)
        w = w - LR * (err.T @ x) / len(x)
        b = b - LR * err.sum(0) / len(x)
    return w, b, np.mean(losses)


def test_fit_by_epochs_matches_a_hand_written_sgd_loop():
    est = _estimator()
    est.fit(_loader(), epochs=3)
    w, b, last_epoch_loss = _numpy_sgd(6)
    np.testing.assert_allclose(est.net.weight.data().asnumpy(), w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(est.net.bias.data().asnumpy(), b, rtol=1e-5, atol=1e-6)
    name, value = est.train_metrics[0].get()
    assert name == 'training l2loss'
    assert value == pytest.approx(last_epoch_loss, rel=1e-5)


def test_fit_on_each_context_with_validation_and_checkpoints(ctx, tmp_path):
    est = _estimator(ctx)
    ckpt = CheckpointHandler(str(tmp_path), max_checkpoints=1)
    est.fit(_loader(), val_data=_loader(batch_size=3), epochs=2, event_handlers=[ckpt])
    w, b, _ = _numpy_sgd(4)
    np.testing.assert_allclose(est.net.weight.data(ctx).asnumpy(), w, rtol=1e-5, atol=1e-6)
    err = X @ w.T + b - Y
    assert est.val_metrics[0].get()[1] == pytest.approx(np.mean(0.5 * err ** 2), rel=1e-5)
    restored = gluon.nn.Dense(1, in_units=2)
    restored.load_parameters(str(tmp_path / 'model-epoch1batch4.params'), ctx=mx.cpu())
    np.testing.assert_allclose(restored.weight.data().asnumpy(), w, rtol=1e-5, atol=1e-6)


def test_fit_by_batches_stops_inside_an_epoch():
    est = _estimator()
    est.fit(_loader(), batches=3)
    w, b, _ = _numpy_sgd(3)
    np.testing.assert_allclose(est.net.weight.data().asnumpy(), w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(est.net.bias.data().asnumpy(), b, rtol=1e-5, atol=1e-6)
    assert est.max_batch == 3 and est.max_epoch is None


def test_evaluate_fills_the_validation_metrics():
    est = _estimator()
    est.evaluate(_loader(batch_size=5))
    err = X @ W0.T + B0 - Y
    name, value = est.val_metrics[0].get()
    assert name == 'validation l2loss'
    assert value == pytest.approx(np.mean(0.5 * err ** 2), rel=1e-5)


def test_fit_with_val_data_validates_after_the_last_epoch():
    est = _estimator()
    est.fit(_loader(), val_data=_loader(batch_size=3), epochs=2)
    w, b, _ = _numpy_sgd(4)
    err = X @ w.T + b - Y
    assert est.val_metrics[0].get()[1] == pytest.approx(np.mean(0.5 * err ** 2), rel=1e-5)


def test_default_metrics_follow_the_loss():
    net = gluon.nn.Dense(3, in_units=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = Estimator(net, gluon.loss.SoftmaxCrossEntropyLoss())
    assert [m.name for m in est.train_metrics] == ['training accuracy',
                                                   'training softmaxcrossentropyloss']
    assert [m.name for m in est.val_metrics] == ['validation accuracy',
                                                 'validation softmaxcrossentropyloss']
    assert isinstance(est.train_metrics[0], mx.metric.Accuracy)
    assert isinstance(est.train_metrics[1], mx.metric.Loss)
    assert est.val_metrics[0] is not est.train_metrics[0]


def test_given_metrics_are_prefixed_once_and_copied_for_validation():
    mse = mx.metric.MSE()
    _estimator(train_metrics=mse)
    est = _estimator(train_metrics=[mse])
    assert mse.name == 'training mse'
    assert [m.name for m in est.val_metrics] == ['validation mse']
    own_val = mx.metric.MAE()
    est = _estimator(train_metrics=mx.metric.MSE(), val_metrics=own_val)
    assert est.val_metrics == [own_val] and own_val.name == 'validation mae'


def test_estimator_initializes_an_uninitialized_net_and_warns_otherwise():
    net = gluon.nn.Dense(2, in_units=3)
    with pytest.warns(UserWarning, match='No trainer specified'):
        est = Estimator(net, gluon.loss.L2Loss(), initializer=mx.init.Constant(0.5))
    assert (net.weight.data().asnumpy() == 0.5).all()
    assert est.trainer.learning_rate == pytest.approx(0.001)
    with pytest.warns(UserWarning, match='Network already fully initialized'):
        Estimator(net, gluon.loss.L2Loss(), initializer=mx.init.Constant(1.0),
                  trainer=est.trainer)
    assert (net.weight.data().asnumpy() == 0.5).all()


def test_a_partly_initialized_net_keeps_its_initialized_layers():
    # fine-tuning: a trained body and a new output layer
    body = gluon.nn.Dense(3, in_units=2)
    body.initialize(mx.init.Constant(0.25))
    net = gluon.nn.Sequential()
    net.add(body, gluon.nn.Dense(1, in_units=3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Estimator(net, gluon.loss.L2Loss(), initializer=mx.init.Constant(0.5),
                  context=mx.cpu())
    assert (body.weight.data().asnumpy() == 0.25).all()
    assert (net[1].weight.data().asnumpy() == 0.5).all()


class _Recorder(BatchEnd, EpochEnd):
    """Records the weight seen at each batch end, and the events."""

    def __init__(self, priority):
        self.priority = priority
        self.weights = []
        self.events = []

    def batch_end(self, estimator, *args, **kwargs):
        self.weights.append(estimator.net.weight.data().asnumpy().copy())
        self.events.append(('batch', sorted(kwargs)))

    def epoch_end(self, estimator, *args, **kwargs):
        self.events.append(('epoch',))


def test_handlers_run_in_priority_order_around_the_update():
    est = _estimator()
    before, after = _Recorder(priority=-3000), _Recorder(priority=0)
    est.fit(_loader(), batches=1, event_handlers=[after, before])
    w1, _, _ = _numpy_sgd(1)
    np.testing.assert_allclose(before.weights[0], W0)
    np.testing.assert_allclose(after.weights[0], w1, rtol=1e-5)
    assert after.events == [('batch', ['batch', 'label', 'loss', 'pred']), ('epoch',)]


def test_a_given_metric_handler_replaces_the_default_one():
    est = _estimator(train_metrics=[mx.metric.MSE(), mx.metric.Loss()])
    only_mse = MetricHandler(metrics=est.train_metrics[:1])
    est.fit(_loader(), epochs=1, event_handlers=[only_mse])
    assert not np.isnan(est.train_metrics[0].get()[1])
    assert np.isnan(est.train_metrics[1].get()[1])


def test_a_custom_batch_processor_is_used():
    class Halved(BatchProcessor):
        calls = 0

        def fit_batch(self, estimator, train_batch, batch_axis=0):
            Halved.calls += 1
            data, label = train_batch
            return super().fit_batch(estimator, (data, label), batch_axis)

    est = _estimator(batch_processor=Halved())
    est.fit(_loader(), epochs=2)
    assert Halved.calls == 4
    w, _, _ = _numpy_sgd(4)
    np.testing.assert_allclose(est.net.weight.data().asnumpy(), w, rtol=1e-5, atol=1e-6)


def test_batch_axis_reaches_the_batch_processor_in_fit_and_validation():
    seen = []

    class Recording(BatchProcessor):
        def fit_batch(self, estimator, train_batch, batch_axis=0):
            seen.append(('fit', batch_axis))
            return super().fit_batch(estimator, train_batch, batch_axis)

        def evaluate_batch(self, estimator, val_batch, batch_axis=0):
            seen.append(('evaluate', batch_axis))
            return super().evaluate_batch(estimator, val_batch, batch_axis)

    est = _estimator(batch_processor=Recording())
    # one context: splitting along axis 1 leaves the batch whole, so training is unchanged
    est.fit(_loader(), val_data=_loader(batch_size=6), epochs=1, batch_axis=1)
    assert seen == [('fit', 1), ('fit', 1), ('evaluate', 1)]
    w, _, _ = _numpy_sgd(2)
    np.testing.assert_allclose(est.net.weight.data().asnumpy(), w, rtol=1e-5, atol=1e-6)


# ---- errors -------------------------------------------------------------------------------
@pytest.mark.filterwarnings("ignore:No trainer specified")
def test_bad_constructor_arguments_name_the_argument():
    net = gluon.nn.Dense(1, in_units=2)
    loss = gluon.loss.L2Loss()
    with pytest.raises(ValueError, match="Estimator: loss must be a gluon.loss.Loss, got 'mse'"):
        Estimator(net, 'mse')
    with pytest.raises(ValueError, match="Estimator: val_loss must be a gluon.loss.Loss"):
        Estimator(net, loss, val_loss='l1')
    with pytest.raises(ValueError, match="Estimator: train_metrics must be an EvalMetric or "
                                         "a list of EvalMetric.*got 'acc'"):
        Estimator(net, loss, train_metrics='acc')
    with pytest.raises(ValueError, match="Estimator: val_metrics must be"):
        Estimator(net, loss, val_metrics=[mx.metric.MSE(), 'mae'])
    with pytest.raises(ValueError, match="Estimator: trainer must be a gluon.Trainer, "
                                         "got 'sgd'"):
        Estimator(net, loss, trainer='sgd')
    with pytest.raises(ValueError, match="Estimator: context must be a Context or a list of "
                                         "Context.*got 'cpu'"):
        Estimator(net, loss, context='cpu')
    with pytest.raises(ValueError, match="Estimator: batch_processor must have fit_batch"):
        Estimator(net, loss, batch_processor=object())


def test_an_unavailable_gpu_is_a_value_error_and_an_assertion_error():
    net = gluon.nn.Dense(1, in_units=2)
    for kind in (ValueError, AssertionError):
        with pytest.raises(kind, match=r"Estimator: context gpu\(100\) is not available"):
            Estimator(net, gluon.loss.L2Loss(), context=[mx.cpu(), mx.gpu(100)])


def test_bad_fit_and_evaluate_arguments_name_the_argument():
    est = _estimator()
    loader = _loader()
    it = mx.io.NDArrayIter(X, Y, batch_size=2)
    with pytest.raises(ValueError, match="Estimator.fit: train_data must be a "
                                         "gluon.data.DataLoader, got NDArrayIter"):
        est.fit(it, epochs=1)
    with pytest.raises(ValueError, match="Estimator.fit: val_data must be a gluon.data"):
        est.fit(loader, val_data=[mx.nd.ones((2, 2))], epochs=1)
    with pytest.raises(ValueError, match="Estimator.evaluate: val_data must be a gluon.data"):
        est.evaluate(it)
    with pytest.raises(ValueError, match="give exactly one of epochs and batches.*"
                                         "epochs=None, batches=None"):
        est.fit(loader)
    with pytest.raises(ValueError, match="epochs=2, batches=3"):
        est.fit(loader, epochs=2, batches=3)
    with pytest.raises(ValueError, match="Estimator.fit: epochs must be a non-negative int "
                                         "or None, got -1"):
        est.fit(loader, epochs=-1)
    with pytest.raises(ValueError, match="Estimator.fit: batches must be .* got 2.5"):
        est.fit(loader, batches=2.5)
    with pytest.raises(ValueError, match="event_handlers must be an EventHandler or a list of "
                                         "EventHandler, got 'log' in the list"):
        est.fit(loader, epochs=1, event_handlers=['log'])
    empty = gluon.data.DataLoader(gluon.data.ArrayDataset([], []), batch_size=2)
    with pytest.raises(ValueError, match="Estimator.fit: train_data yielded no batch"):
        est.fit(empty, batches=2)


def test_a_handler_on_a_metric_the_estimator_does_not_update_is_refused():
    est = _estimator()
    stray = LoggingHandler(metrics=[mx.metric.RMSE('val acc')])
    with pytest.raises(ValueError, match="event handler LoggingHandler refers to metric "
                                         "'val acc'"):
        est.fit(_loader(), epochs=1, event_handlers=[stray])
    with pytest.raises(ValueError, match="refers to metric 'training l2loss'"):
        est.evaluate(_loader(), event_handlers=[LoggingHandler(metrics=est.train_metrics)])
    # the estimator's own metrics are fine
    est.fit(_loader(), epochs=1, event_handlers=[LoggingHandler(metrics=est.train_metrics)])
