"""gluon.contrib.estimator's event handlers: stopping, validation frequency, MXNet's log lines,
checkpoint files (names, max_checkpoints, save_best, resume giving the weights of an
uninterrupted run), early stopping, and the errors for bad arguments."""
import io
import logging
import os
import re
import warnings

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import gluon
from gluonlite.gluon.contrib.estimator import (BatchEnd, CheckpointHandler,
                                               EarlyStoppingHandler, EpochEnd, Estimator,
                                               LoggingHandler, StoppingHandler,
                                               ValidationHandler)

RNG = np.random.RandomState(3)
X = RNG.randn(8, 2).astype(np.float32)
Y = RNG.randn(8, 1).astype(np.float32)


def _loader(batch_size=2):
    """8 samples, so 4 batches an epoch by default."""
    return gluon.data.DataLoader(gluon.data.ArrayDataset(mx.nd.array(X), mx.nd.array(Y)),
                                 batch_size=batch_size)


def _net(hybrid=False):
    net = gluon.nn.HybridSequential() if hybrid else gluon.nn.Sequential()
    net.add(gluon.nn.Dense(1, in_units=2))
    net.initialize(mx.init.Constant(0.2))
    if hybrid:
        net.hybridize()
    return net


def _estimator(net=None, **kwargs):
    net = net or _net()
    trainer = gluon.Trainer(net.collect_params(), 'sgd',
                            {'learning_rate': 0.05, 'momentum': 0.9})
    return Estimator(net, gluon.loss.L2Loss(), trainer=trainer, context=mx.cpu(), **kwargs)


def _weights(est):
    return [p.data().asnumpy().copy() for p in est.net.collect_params().values()]


def _log_lines(est):
    stream = io.StringIO()
    est.logger.addHandler(logging.StreamHandler(stream))
    return stream


# ---- stopping -------------------------------------------------------------------------------
class _StopAt(BatchEnd, EpochEnd):
    def __init__(self, batch=None, epoch=None):
        self.batch, self.epoch, self.batches, self.epochs = batch, epoch, 0, 0

    def batch_end(self, estimator, *args, **kwargs):
        self.batches += 1
        return self.batches == self.batch

    def epoch_end(self, estimator, *args, **kwargs):
        self.epochs += 1
        return self.epochs == self.epoch


def test_batch_end_true_ends_the_epoch_and_epoch_end_true_ends_training():
    est = _estimator()
    stop = _StopAt(batch=3)
    est.fit(_loader(), epochs=3, event_handlers=[stop])
    # the first epoch ends after its third batch; the next two run whole
    assert (stop.batches, stop.epochs) == (3 + 4 + 4, 3)
    stop = _StopAt(epoch=2)
    est.fit(_loader(), epochs=5, event_handlers=[stop])
    assert (stop.batches, stop.epochs) == (8, 2)


def test_stopping_handler_counts_epochs_or_batches():
    est = _estimator()
    handler = StoppingHandler(max_batch=6)
    est.max_epoch, est.max_batch = None, 6
    handler.train_begin(est)
    assert [handler.batch_end(est) for _ in range(6)] == [False] * 5 + [True]
    handler = StoppingHandler()
    est.max_epoch, est.max_batch = 2, None
    handler.train_begin(est)
    assert [handler.epoch_end(est) for _ in range(2)] == [False, True]


# ---- validation -----------------------------------------------------------------------------
def test_validation_handler_runs_every_epoch_period_and_batch_period():
    calls = []
    est = _estimator()
    val = ValidationHandler(_loader(), lambda **kw: calls.append(sorted(kw)), epoch_period=2,
                            batch_period=3)
    est.fit(_loader(), epochs=4, event_handlers=[val])
    # batches 3, 6, 9, 12, 15 and epochs 2, 4
    assert len(calls) == 7
    assert calls[0] == ['batch_axis', 'event_handlers', 'val_data']


def test_validation_passes_its_handlers_to_evaluate():
    class Seen(EpochEnd):
        count = 0

        def epoch_end(self, estimator, *args, **kwargs):
            Seen.count += 1

    est = _estimator()
    val = ValidationHandler(_loader(), est.evaluate, event_handlers=[Seen()])
    est.fit(_loader(), epochs=3, event_handlers=[val])
    assert Seen.count == 3


def test_validation_handler_arguments_are_checked():
    with pytest.raises(ValueError, match="ValidationHandler: eval_fn must be callable"):
        ValidationHandler(_loader(), eval_fn=None)
    with pytest.raises(ValueError, match="ValidationHandler: batch_period must be None or a "
                                         "non-negative int, got 1.5"):
        ValidationHandler(_loader(), print, batch_period=1.5)


# ---- logging --------------------------------------------------------------------------------
T = r"\d+\.\d{3}s"


def test_logging_handler_writes_mxnets_lines():
    est = _estimator(train_metrics=mx.metric.MSE())
    stream = _log_lines(est)
    logger = LoggingHandler(log_interval=3, metrics=est.train_metrics)
    est.fit(_loader(), val_data=_loader(4), epochs=2, event_handlers=[logger])
    lines = stream.getvalue().splitlines()
    m = r"training mse: \d+\.\d{4}"
    v = r"validation mse: \d+\.\d{4}"
    expected = [
        r"Training begin: using optimizer SGD with current learning rate 0\.0500 ",
        r"Train for 2 epochs\.",
        r"\[Epoch 0\] Begin, current learning rate: 0\.0500",
        rf"\[Epoch 0\]\[Batch 0\]\[Samples 2\] time/interval: {T} {m}",
        rf"\[Epoch 0\]\[Batch 3\]\[Samples 8\] time/interval: {T} {m}",
        r"Validation Begin",
        rf"\[Epoch 0\] Finished in {T}, {v}",
        rf"\[Epoch 0\] Finished in {T}, {m}",
        r"\[Epoch 1\] Begin, current learning rate: 0\.0500",
        rf"\[Epoch 1\]\[Batch 0\]\[Samples 10\] time/interval: {T} {m}",
        rf"\[Epoch 1\]\[Batch 3\]\[Samples 16\] time/interval: {T} {m}",
        r"Validation Begin",
        rf"\[Epoch 0\] Finished in {T}, {v}",
        rf"\[Epoch 1\] Finished in {T}, {m}",
        rf"Train finished using total \d+s with 2 epochs\. {m}",
    ]
    assert len(lines) == len(expected), lines
    for line, pattern in zip(lines, expected):
        assert re.fullmatch(pattern, line), (line, pattern)
    assert logger.current_epoch == 2 and logger.batch_index == 0


def test_logging_by_batches_and_the_default_epoch_interval():
    est = _estimator()
    stream = _log_lines(est)
    est.fit(_loader(), batches=5)
    lines = stream.getvalue().splitlines()
    assert lines[1] == "Train for 5 batches."
    assert sum(line.startswith("[Epoch 1] Finished") for line in lines) == 1
    assert not any("[Batch" in line for line in lines)
    assert re.fullmatch(r"Train finished using total \d+s with 2 epochs\. "
                        r"training l2loss: \d+\.\d{4}", lines[-1])


def test_estimator_logger_writes_to_stdout(capsys):
    est = _estimator()
    est.fit(_loader(), batches=1)
    assert "Train for 1 batches." in capsys.readouterr().out


def test_logging_handler_rejects_a_bad_interval():
    for bad in (0, 'batch', 2.0):
        with pytest.raises(ValueError, match="LoggingHandler: log_interval must be 'epoch' or "
                                             "a positive int, got"):
            LoggingHandler(log_interval=bad)
    with pytest.raises(ValueError, match="LoggingHandler: metrics must be an EvalMetric"):
        LoggingHandler(metrics='acc')


# ---- checkpoints ----------------------------------------------------------------------------
def _files(folder):
    return sorted(os.listdir(folder))


def test_checkpoint_file_names_by_epoch(tmp_path):
    est = _estimator()
    stream = _log_lines(est)
    ckpt = CheckpointHandler(str(tmp_path), model_prefix='lin', max_checkpoints=2)
    est.fit(_loader(), epochs=3, event_handlers=[ckpt])
    # B counts the batches trained when the epoch ends; the oldest checkpoint is removed
    assert _files(tmp_path) == ['lin-epoch1batch8.params', 'lin-epoch1batch8.states',
                                'lin-epoch2batch12.params', 'lin-epoch2batch12.states']
    assert (ckpt.current_epoch, ckpt.current_batch) == (3, 12)
    assert "Model architecture(symbol file) is not saved" in stream.getvalue()
    loaded = _net()
    loaded.load_parameters(str(tmp_path / 'lin-epoch2batch12.params'))
    for got, want in zip(_weights(_estimator(loaded)), _weights(est)):
        np.testing.assert_array_equal(got, want)


def test_checkpoint_file_names_by_batch_and_the_symbol(tmp_path):
    est = _estimator(_net(hybrid=True))
    ckpt = CheckpointHandler(str(tmp_path), model_prefix='h', epoch_period=None,
                             batch_period=3, max_checkpoints=10)
    est.fit(_loader(), batches=10, event_handlers=[ckpt])
    # B is the index of the batch just trained
    assert _files(tmp_path) == ['h-epoch0batch2.params', 'h-epoch0batch2.states',
                                'h-epoch1batch5.params', 'h-epoch1batch5.states',
                                'h-epoch2batch8.params', 'h-epoch2batch8.states',
                                'h-symbol.json']
    sym = mx.sym.load(str(tmp_path / 'h-symbol.json'))
    assert sym.list_arguments()[0] == 'data'


def test_checkpoint_save_best_keeps_the_best_epoch(tmp_path):
    values = [0.3, 0.5, 0.4, 0.45]
    metric = Scripted(values)
    est = _estimator(train_metrics=[metric, mx.metric.MSE()])
    stream = _log_lines(est)
    ckpt = CheckpointHandler(str(tmp_path), monitor=metric, save_best=True, mode='max',
                             verbose=1, max_checkpoints=10)
    est.fit(_loader(), epochs=4, event_handlers=[ckpt])
    with open(tmp_path / 'model-best.params', 'rb') as f, \
            open(tmp_path / 'model-epoch1batch8.params', 'rb') as g:
        assert f.read() == g.read()
    assert ckpt.best == 0.5
    log = stream.getvalue()
    assert "[Epoch 1] CheckpointHandler: training scripted improved from 0.30000 to 0.50000, " \
           f"updating best model at {tmp_path} with prefix: model-best" in log
    assert "[Epoch 3] CheckpointHandler: training scripted did not improve from 0.50000, " \
           "skipping updating best model" in log
    assert f"[Epoch 2] CheckpointHandler: trained total 12 batches, saving model at " \
           f"{tmp_path} with prefix: model-epoch2batch12" in log


def test_checkpoint_save_best_mode_min_and_auto(tmp_path):
    est = _estimator()
    with pytest.warns(UserWarning, match="the less operator will be used to decide whether "
                                         "training l2loss has improved"):
        ckpt = CheckpointHandler(str(tmp_path), monitor=est.train_metrics[0], save_best=True)
    assert ckpt.monitor_op(1, 2) and ckpt.best == np.inf
    acc = mx.metric.Accuracy()
    with pytest.warns(UserWarning, match="the greater operator will be used"):
        ckpt = CheckpointHandler(str(tmp_path), monitor=acc, save_best=True)
    assert ckpt.monitor_op(2, 1)
    with pytest.warns(RuntimeWarning, match="CheckpointHandler: mode 'up' is unknown"), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        CheckpointHandler(str(tmp_path), monitor=acc, save_best=True, mode='up')


def test_resume_from_checkpoint_gives_the_weights_of_an_uninterrupted_run(tmp_path):
    straight = _estimator()
    straight.fit(_loader(), epochs=5)

    first = _estimator()
    first.fit(_loader(), epochs=2,
              event_handlers=[CheckpointHandler(str(tmp_path), max_checkpoints=1)])
    assert _files(tmp_path) == ['model-epoch1batch8.params', 'model-epoch1batch8.states']

    resumed = _estimator()  # a fresh net and trainer: everything comes from the files
    stream = _log_lines(resumed)
    ckpt = CheckpointHandler(str(tmp_path), max_checkpoints=2, resume_from_checkpoint=True)
    resumed.fit(_loader(), epochs=5, event_handlers=[ckpt])
    assert resumed.max_epoch == 3
    assert (ckpt.trained_epoch, ckpt.trained_batch) == (1, 8)
    assert "CheckpointHandler: Checkpoint resumed from epoch 1 batch 8, continue to train " \
           "for 3 epochs" in stream.getvalue()
    # the file found counts toward max_checkpoints
    assert _files(tmp_path) == ['model-epoch3batch16.params', 'model-epoch3batch16.states',
                                'model-epoch4batch20.params', 'model-epoch4batch20.states']
    for got, want in zip(_weights(resumed), _weights(straight)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_resume_by_batches(tmp_path):
    straight = _estimator()
    straight.fit(_loader(), batches=7)
    first = _estimator()
    first.fit(_loader(), batches=4, event_handlers=[
        CheckpointHandler(str(tmp_path), epoch_period=None, batch_period=2)])
    assert _files(tmp_path)[-2:] == ['model-epoch0batch3.params', 'model-epoch0batch3.states']
    resumed = _estimator()
    ckpt = CheckpointHandler(str(tmp_path), epoch_period=None, batch_period=1,
                             resume_from_checkpoint=True)
    resumed.fit(_loader(), batches=7, event_handlers=[ckpt])
    assert resumed.max_batch == 3
    assert 'model-epoch1batch6.params' in _files(tmp_path)
    for got, want in zip(_weights(resumed), _weights(straight)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_resume_with_no_checkpoint_trains_from_scratch(tmp_path):
    est = _estimator()
    stream = _log_lines(est)
    est.fit(_loader(), epochs=1, event_handlers=[
        CheckpointHandler(str(tmp_path), resume_from_checkpoint=True)])
    assert "CheckpointHandler: No checkpoint found, training from scratch for 1 epochs" \
        in stream.getvalue()
    assert _files(tmp_path) == ['model-epoch0batch4.params', 'model-epoch0batch4.states']


def test_resume_errors(tmp_path):
    est = _estimator()
    est.fit(_loader(), epochs=2, event_handlers=[CheckpointHandler(str(tmp_path))])
    with pytest.raises(ValueError, match="CheckpointHandler: the checkpoint model-epoch1batch8 "
                                         ".* already reached epochs=2"):
        est.fit(_loader(), epochs=2, event_handlers=[
            CheckpointHandler(str(tmp_path), resume_from_checkpoint=True)])
    for kind in (ValueError, AssertionError):
        with pytest.raises(kind, match="fit was given epochs=, so set epoch_period and "
                                       "batch_period=None"):
            est.fit(_loader(), epochs=3, event_handlers=[
                CheckpointHandler(str(tmp_path), batch_period=2, resume_from_checkpoint=True)])
    with pytest.raises(ValueError, match="fit was given batches=, so set batch_period"):
        est.fit(_loader(), batches=3, event_handlers=[
            CheckpointHandler(str(tmp_path), resume_from_checkpoint=True)])


def test_checkpoint_handler_arguments_are_checked(tmp_path):
    with pytest.raises(ValueError, match="CheckpointHandler: save_best=True needs monitor"):
        CheckpointHandler(str(tmp_path), save_best=True)
    with pytest.raises(ValueError, match="CheckpointHandler: max_checkpoints must be a "
                                         "positive int, got 0"):
        CheckpointHandler(str(tmp_path), max_checkpoints=0)
    with pytest.raises(ValueError, match="CheckpointHandler: epoch_period must be None or a "
                                         "non-negative int, got 'epoch'"):
        CheckpointHandler(str(tmp_path), epoch_period='epoch')
    CheckpointHandler(str(tmp_path / 'new' / 'dir'))
    assert os.path.isdir(tmp_path / 'new' / 'dir')


# ---- early stopping -------------------------------------------------------------------------
class Scripted(mx.metric.EvalMetric):
    """A metric whose value at the end of epoch e is values[e] (it advances on each reset,
    which the MetricHandler does at every epoch begin)."""

    def __init__(self, values, name='scripted'):
        self.values, self.resets = values, -1
        super().__init__(name)

    def reset(self):
        self.resets += 1

    def update(self, labels, preds):
        pass

    def get(self):
        return self.name, float(self.values[self.resets - 1]) if self.resets else float('nan')


def _early(values, epochs=10, **kwargs):
    metric = Scripted(values)
    est = _estimator(train_metrics=metric)
    stream = _log_lines(est)
    handler = EarlyStoppingHandler(monitor=metric, **kwargs)
    stop = _StopAt()
    est.fit(_loader(), epochs=epochs, event_handlers=[handler, stop])
    return handler, stop.epochs, stream.getvalue()


def test_early_stopping_waits_patience_epochs():
    handler, epochs, log = _early([0.5, 0.4, 0.45, 0.3, 0.35, 0.36, 0.1], patience=2,
                                  mode='min')
    assert (epochs, handler.stopped_epoch, handler.best) == (6, 5, 0.3)
    assert "[Epoch 5] EarlyStoppingHandler: early stopping due to training scripted not " \
           "improving" in log


def test_early_stopping_min_delta_baseline_and_max():
    # 0.4 beats 0.5 by 0.1 > 0.06; 0.45 and 0.42 do not beat 0.4 by 0.06
    handler, epochs, _ = _early([0.5, 0.4, 0.45, 0.42, 0.1], patience=2, mode='min',
                                min_delta=0.06)
    assert (epochs, handler.stopped_epoch) == (4, 3)
    handler, epochs, _ = _early([0.5, 0.6, 0.55], patience=0, mode='max', baseline=0.55)
    assert (epochs, handler.stopped_epoch) == (1, 0)
    handler, epochs, log = _early([0.5, 0.6, 0.7], epochs=3, patience=0, mode='max')
    assert (epochs, handler.stopped_epoch, handler.stop_training) == (3, 0, False)
    assert "early stopping" not in log


def test_early_stopping_auto_mode_and_errors():
    with pytest.warns(UserWarning, match="EarlyStoppingHandler: the greater operator will be "
                                         "used to decide whether accuracy has improved"):
        EarlyStoppingHandler(monitor=mx.metric.Accuracy())
    with pytest.warns(UserWarning, match="the less operator will be used"):
        handler = EarlyStoppingHandler(monitor=mx.metric.MSE())
    assert handler.monitor_op(1, 2)
    with pytest.raises(ValueError, match="EarlyStoppingHandler: monitor must be one of the "
                                         "metrics.*got 'acc'"):
        EarlyStoppingHandler(monitor='acc')
    with pytest.raises(ValueError, match="EarlyStoppingHandler: monitor must be a single "
                                         "metric, got a CompositeEvalMetric"):
        EarlyStoppingHandler(monitor=mx.metric.CompositeEvalMetric([mx.metric.MSE()]))
    est = _estimator()
    with pytest.raises(ValueError, match="event handler EarlyStoppingHandler refers to metric "
                                         "'mae'"):
        est.fit(_loader(), epochs=1,
                event_handlers=[EarlyStoppingHandler(monitor=mx.metric.MAE(), mode='min')])
