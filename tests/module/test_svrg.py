"""mx.contrib.svrg_optimization: the SVRG optimizer's dispatch and SVRGModule training."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd
from gluonlite.contrib.svrg_optimization.svrg_module import SVRGModule
from gluonlite.contrib.svrg_optimization.svrg_optimizer import _SVRGOptimizer


def _linreg(n=200, batch=20, seed=0):
    rng = np.random.RandomState(seed)
    x = rng.randint(1, 5, (n, 2)).astype("float32")
    it = mx.io.NDArrayIter(x, x.dot([1.0, 2.0]), batch_size=batch, label_name="lin_reg_label")
    fc = mx.sym.FullyConnected(mx.sym.var("data"), name="fc1", num_hidden=1)
    net = mx.sym.LinearRegressionOutput(fc, label=mx.sym.var("lin_reg_label"), name="lro")
    return it, net


def test_svrg_optimizer_dispatches_full_slots_to_assignment():
    o = _SVRGOptimizer("sgd", param_idx2name={0: "w", 1: "w_full"}, learning_rate=1.0)
    assert o.default_opt.lr == 1.0
    kv = mx.kv.create("local")
    kv.set_optimizer(o)
    w, full = nd.zeros((3,)), nd.ones((3,))
    kv.init(0, w)
    kv.init(1, full)
    kv.push(0, nd.ones((3,)))
    kv.push(1, nd.array([2, 2, 2]))
    kv.pull(0, w)
    kv.pull(1, full)
    np.testing.assert_allclose(w.asnumpy(), [-1, -1, -1])   # an SGD step
    np.testing.assert_allclose(full.asnumpy(), [2, 2, 2])   # assigned


def test_svrg_module_binds_aux_and_uses_svrg_optimizer():
    it, net = _linreg()
    with pytest.raises(ValueError):
        SVRGModule(net, data_names=["data"], label_names=["lin_reg_label"], update_freq=0)
    mod = SVRGModule(net, data_names=["data"], label_names=["lin_reg_label"], update_freq=2)
    mod.bind(it.provide_data, it.provide_label)
    mod.init_params()
    assert mod.binded and mod._mod_aux.binded
    mod.init_optimizer(kvstore=mx.kv.create("local"), optimizer="sgd")
    assert isinstance(mod._optimizer, _SVRGOptimizer)


def test_update_full_grads_averages_batch_gradients_at_the_snapshot():
    it, net = _linreg(n=40, batch=20)
    mod = SVRGModule(net, data_names=["data"], label_names=["lin_reg_label"], update_freq=1)
    mod.bind(it.provide_data, it.provide_label)
    mod.init_params(initializer=mx.init.One())
    mod.init_optimizer(optimizer="sgd")
    total = 0
    for batch in it:
        mod.forward_backward(batch)
        total = total + mod._grad_copies("fc1_weight")[0].asnumpy()
    mod.update_full_grads(it)
    np.testing.assert_allclose(mod._param_dict[0]["fc1_weight"].asnumpy(), total / 2, rtol=1e-5)
    # at the snapshot the variance-reduced gradient is the full one
    batch = next(iter(it))
    mod.forward_backward(batch)
    mod.update()
    np.testing.assert_allclose(mod._grad_copies("fc1_weight")[0].asnumpy(), total / 2,
                               rtol=1e-5)


def test_svrg_fit_converges_and_keeps_the_snapshot():
    it, net = _linreg()
    mod = SVRGModule(net, data_names=["data"], label_names=["lin_reg_label"], update_freq=2)
    metric = mx.metric.create("mse")
    snaps = []
    mod.fit(it, eval_metric=metric, optimizer="sgd", num_epoch=30,
            optimizer_params=(("learning_rate", 0.025),),
            epoch_end_callback=lambda e, s, a, x: snaps.append(
                mod._mod_aux.get_params()[0]["fc1_weight"].asnumpy().copy()))
    assert metric.get()[1] < 0.05   # from about 60 at the start
    np.testing.assert_allclose(snaps[0], snaps[1])   # one snapshot per update_freq epochs
    assert not np.allclose(snaps[1], snaps[2])
