"""`mx.monitor.Monitor` (`mx.mon`) installed on a `Module` (one and two contexts): what
`toc` collects (names, order, `sort`, `pattern`, `interval`, `monitor_all`, a `stat_func`
returning several arrays) and the lines `toc_print` logs, against MXNet 1.9.1
(tests/fixtures/mxnet/monitor.json, made by tests/fixtures/make_monitor.py). The gradients
MXNet reports for inputs that get none (the data of the first layer, the label) are whatever
its buffers held; gluonlite reports zeros there, so only their names are compared."""
import json
import logging
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd

FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "mxnet",
                   "monitor.json")
with open(FIX) as _f:
    EXP = json.load(_f)
X = np.array(EXP["x"], dtype="float32")
Y = np.array(EXP["y"], dtype="float32")


def _net():
    data = mx.sym.var("data")
    h = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=3, name="fc1"),
                          act_type="relu", name="relu1")
    return mx.sym.SoftmaxOutput(mx.sym.FullyConnected(h, num_hidden=2, name="fc2"),
                                name="softmax")


def _module(n_ctx):
    mod = mx.mod.Module(_net(), context=[mx.cpu(i) for i in range(n_ctx)])
    mod.bind(data_shapes=[("data", (4, 5))], label_shapes=[("softmax_label", (4,))])
    mod.set_params({k: nd.array(v) for k, v in EXP["args"].items()}, {})
    return mod


def _max_min(x):
    return [nd.max(x), nd.min(x)]


NO_GRADIENT = ("fc1_backward_output0", "softmax_backward_output1")


def _numbers(text):
    return [float(t) for t in text.split("\t") if t]


@pytest.mark.parametrize("case", EXP["cases"], ids=lambda c: f"{c['ctx']}ctx-{c['kw']}")
def test_toc_collects_what_mxnet_collects(case):
    mod = _module(case["ctx"])
    mod.init_optimizer(optimizer_params={"learning_rate": 0.1})
    kw = dict(case["kw"])
    if case.get("stat") == "max_min":
        kw["stat_func"] = _max_min
    mon = mx.mon.Monitor(**kw)
    mod.install_monitor(mon)
    for b, want in enumerate(case["batches"]):
        mon.tic()
        batch = mx.io.DataBatch([nd.array(X[4 * b:4 * b + 4])], [nd.array(Y[4 * b:4 * b + 4])])
        if case.get("train", True):
            mod.forward(batch, is_train=True)
            mod.backward()
            mod.update()
        else:
            mod.forward(batch, is_train=False)
        got = mon.toc()
        assert [(s, n) for s, n, _ in got] == [(s, n) for s, n, _ in want], f"batch {b}"
        for (_, name, text), (_, _, want_text) in zip(got, want):
            assert text.endswith("\t")
            if name in NO_GRADIENT:
                continue
            np.testing.assert_allclose(_numbers(text), _numbers(want_text), rtol=1e-5,
                                       atol=1e-6, err_msg=f"batch {b} {name}")


def test_toc_print_logs_mxnets_lines(caplog):
    mod = _module(1)
    mon = mx.monitor.Monitor(1, pattern="fc1.*|softmax_label", sort=True)
    mod.install_monitor(mon)
    mon.tic()
    mod.forward(mx.io.DataBatch([nd.array(X[:4])], [nd.array(Y[:4])]), is_train=False)
    with caplog.at_level(logging.INFO):
        mon.toc_print()
    got = [r.getMessage() for r in caplog.records]
    assert [g.split()[:3] for g in got] == [w.split()[:3] for w in EXP["toc_print"]]
    for g, w in zip(got, EXP["toc_print"]):
        assert g[:47] == w[:47]  # "Batch: <step:7> <name:30> " as MXNet pads them
        np.testing.assert_allclose(_numbers(g[47:]), _numbers(w[47:]), rtol=1e-5)


def test_nothing_is_collected_between_intervals_or_outside_tic_toc():
    mod = _module(1)
    mon = mx.mon.Monitor(2)
    mod.install_monitor(mon)
    batch = mx.io.DataBatch([nd.array(X[:4])], [nd.array(Y[:4])])
    assert mon.toc() == []  # no tic yet
    mod.forward(batch)
    assert mon.queue == []
    steps = []
    for _ in range(4):
        mon.tic()
        mod.forward(batch)
        steps.append(len(mon.toc()))
    assert steps[1] == steps[3] == 0 and steps[0] == steps[2] > 0


def test_auxiliary_states_are_listed_by_toc():
    data = mx.sym.var("data")
    out = mx.sym.BatchNorm(mx.sym.FullyConnected(data, num_hidden=3, name="fc"), name="bn")
    mod = mx.mod.Module(out, label_names=None)
    mod.bind(data_shapes=[("data", (4, 5))], for_training=False)
    mod.init_params(mx.init.One())
    mon = mx.mon.Monitor(1, pattern="bn_moving.*", sort=True)
    mod.install_monitor(mon)
    mon.tic()
    mod.forward(mx.io.DataBatch([nd.ones((4, 5))]))
    # moving_mean starts at 0, moving_var at 1: their root mean squares
    assert [(n, _numbers(t)) for _, n, t in mon.toc()] == [("bn_moving_mean", [0.0]),
                                                           ("bn_moving_var", [1.0])]


def test_bad_arguments_are_refused_by_name():
    with pytest.raises(ValueError, match=r"Monitor: interval must be a positive int, got 0"):
        mx.mon.Monitor(0)
    with pytest.raises(TypeError, match=r"Monitor: stat_func must be callable"):
        mx.mon.Monitor(1, stat_func="norm")
    mod = _module(1)
    mon = mx.mon.Monitor(1, stat_func=lambda x: 3.0, pattern="data")
    mod.install_monitor(mon)
    mon.tic()
    mod.forward(mx.io.DataBatch([nd.array(X[:4])], [nd.array(Y[:4])]))
    with pytest.raises(TypeError, match=r"Monitor: stat_func must return an NDArray or a list "
                                        r"of them; for 'data' it returned float"):
        mon.toc()


def test_the_monitor_moves_no_statistic_twice_and_watches_loop_graphs():
    d = mx.sym.var("data")
    ex = mx.sym.BatchNorm(d, name="bn").simple_bind(mx.cpu(), data=(4, 3))
    ex.arg_dict["data"][:] = nd.arange(12).reshape((4, 3))
    seen = {}
    ex.set_monitor_callback(lambda n, a: seen.__setitem__(n, a.asnumpy()))
    ex.forward(is_train=True)
    ex.backward(nd.ones((4, 3)))
    # one training step moves the moving mean once: 0.9 * 0 + 0.1 * the batch mean
    np.testing.assert_allclose(ex.aux_dict["bn_moving_mean"].asnumpy(), [0.45, 0.55, 0.65],
                               rtol=1e-6)
    np.testing.assert_allclose(seen["bn_output"], ex.outputs[0].asnumpy(), rtol=1e-6)

    def step(x, states):
        s = states[0] + x * 2
        return s, [s]

    outs, _ = mx.sym.contrib.foreach(step, mx.sym.var("data"), [mx.sym.var("init")])
    y = mx.sym.FullyConnected(outs, num_hidden=2, name="fc", flatten=False)
    ex = y.simple_bind(mx.cpu(), data=(3, 2, 4), init=(2, 4))
    ex.arg_dict["data"][:] = 1
    ex.arg_dict["fc_weight"][:] = 0.5
    seen = {}
    ex.set_monitor_callback(lambda n, a: seen.__setitem__(n, a.asnumpy()))
    ex.forward(is_train=True)
    ex.backward(nd.ones((3, 2, 2)))
    np.testing.assert_allclose(seen["fc_output"], ex.outputs[0].asnumpy(), rtol=1e-6)
    # d(sum of fc)/d(fc weight): the sum over rows of the loop's outputs 2, 4, 6
    np.testing.assert_allclose(seen["fc_backward_output1"], np.full((2, 4), 24.0))


def test_a_callback_on_the_executor_survives_a_batch_of_a_new_shape():
    # as MXNet's Module, whose reshaped executors keep the callback
    data = mx.sym.var("data")
    net = mx.sym.Convolution(data, kernel=(1, 1), num_filter=1, name="conv")
    mod = mx.mod.Module(net, label_names=None)
    mod.bind(data_shapes=[("data", (1, 3, 4, 4))], for_training=False)
    mod.init_params()
    seen = []
    mod._exec_group.execs[0].set_monitor_callback(lambda n, a: seen.append(n), monitor_all=True)
    mod.forward(mx.io.DataBatch([nd.ones((1, 3, 4, 6))]), is_train=False)
    assert seen == ["data", "conv_data", "conv_weight", "conv_weight", "conv_bias", "conv_bias",
                    "conv_output"]
