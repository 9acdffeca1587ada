"""mx.callback: what each callback logs and writes (MXNet 1.9.1's formats)."""
import logging
from collections import namedtuple

import pytest

import gluonlite as mx

Param = namedtuple("Param", ["epoch", "nbatch", "eval_metric", "locals"])


def _metric(value):
    m = mx.metric.Loss()
    m.update(None, [mx.nd.array([value])])
    return m


def test_speedometer_logs_speed_and_resets_the_metric(caplog):
    speed = mx.callback.Speedometer(batch_size=8, frequent=2)
    metric = _metric(3.0)
    with caplog.at_level(logging.INFO):
        for n in range(5):
            speed(Param(0, n, metric, None))
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2
    assert lines[0].startswith("Epoch[0] Batch [0-2]\tSpeed: ") and "\tloss=3.000000" in lines[0]
    assert lines[1].endswith("samples/sec\tloss=nan")  # reset after the first log


def test_log_callbacks(caplog):
    with caplog.at_level(logging.INFO):
        mx.callback.log_train_metric(2)(Param(1, 4, _metric(0.5), None))
        mx.callback.LogValidationMetricsCallback()(Param(2, 0, _metric(0.25), None))
        mx.callback.ProgressBar(total=4, length=8)(Param(0, 1, None, None))
    lines = [r.getMessage() for r in caplog.records]
    assert lines == ["Iter[1] Batch[4] Train-loss=0.500000",
                     "Epoch[2] Validation-loss=0.250000", "[==------] 25%\r"]


def test_do_checkpoint_writes_symbol_and_params(tmp_path):
    data = mx.sym.var("data")
    net = mx.sym.FullyConnected(data, num_hidden=2, name="fc")
    args = {"fc_weight": mx.nd.ones((2, 3)), "fc_bias": mx.nd.zeros((2,))}
    aux = {"bn_moving_mean": mx.nd.ones((2,))}
    cb = mx.callback.do_checkpoint(str(tmp_path / "net"), period=2)
    cb(0, net, args, aux)
    assert not (tmp_path / "net-0001.params").exists()
    cb(1, net, args, aux)
    saved = mx.nd.load(str(tmp_path / "net-0002.params"))
    assert sorted(saved) == ["arg:fc_bias", "arg:fc_weight", "aux:bn_moving_mean"]
    assert mx.sym.load(str(tmp_path / "net-symbol.json")).list_arguments() == \
        net.list_arguments()


def test_module_checkpoint_calls_the_module():
    calls = []

    class FakeModule:
        def save_checkpoint(self, prefix, epoch, save_optimizer_states):
            calls.append((prefix, epoch, save_optimizer_states))

    cb = mx.callback.module_checkpoint(FakeModule(), "m", period=3, save_optimizer_states=True)
    for epoch in range(6):
        cb(epoch)
    assert calls == [("m", 3, True), ("m", 6, True)]


@pytest.mark.parametrize("period", [0, -2])
def test_periods_below_one_mean_every_epoch(period, tmp_path):
    cb = mx.callback.do_checkpoint(str(tmp_path / "p"), period=period)
    cb(0, None, {"w": mx.nd.ones((1,))}, {})
    assert (tmp_path / "p-0001.params").exists()
