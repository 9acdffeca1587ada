"""Every optimizer against MXNet 1.9.1: weights and states after three Updater steps from
the same inputs (tests/fixtures/optimizer_expectations.json, made by
make_optimizer_expectations.py), plus the optimizer API: create/register, multipliers,
schedulers, Updater state round trips."""
import json
import os
import pickle  # noqa: F401  (only to check get_states does not need it)

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "..", "fixtures", "optimizer_expectations.json")) as f:
    EXPECTED = json.load(f)


def _flat(state):
    if state is None:
        return []
    if isinstance(state, nd.NDArray):
        return [state.asnumpy().astype(np.float64).ravel()]
    return [a for s in state for a in _flat(s)]


@pytest.mark.parametrize("case", EXPECTED["cases"],
                         ids=[f"{c['name']}-{c['dtype']}-{i}"
                              for i, c in enumerate(EXPECTED["cases"])])
def test_three_steps_match_mxnet(case):
    opt = mx.optimizer.create(case["name"], **case["kwargs"])
    upd = mx.optimizer.get_updater(opt)
    w = nd.array(EXPECTED["weight"], dtype=case["dtype"])
    for g in EXPECTED["grads"]:
        upd(0, nd.array(g, dtype=case["dtype"]), w)
    tol = 2e-3 if case["dtype"] == "float16" else 1e-5
    np.testing.assert_allclose(w.asnumpy().astype(np.float64), case["weight"], rtol=tol,
                               atol=tol)
    got = _flat(upd.states[0])
    assert len(got) == len(case["states"])
    for a, b in zip(got, case["states"]):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def test_create_register_and_unknown_names():
    assert isinstance(mx.optimizer.create("SGD", momentum=0.9), mx.optimizer.SGD)

    @mx.optimizer.Optimizer.register
    class HalfStep(mx.optimizer.Optimizer):
        def update(self, index, weight, grad, state):
            weight[:] -= 0.5 * grad

    w = nd.ones((2,))
    mx.optimizer.get_updater(mx.optimizer.create("halfstep"))(0, nd.ones((2,)), w)
    np.testing.assert_allclose(w.asnumpy(), [0.5, 0.5])
    with pytest.raises(ValueError, match="unknown optimizer 'nope'"):
        mx.optimizer.create("nope")
    with pytest.raises(TypeError, match="param_idx2name must be a dict"):
        mx.optimizer.SGD(param_idx2name=[1])


def test_learning_rate_scheduler_and_set_learning_rate():
    class Halving:
        def __init__(self):
            self.base_lr = 1.0

        def __call__(self, num_update):
            return self.base_lr / 2 ** num_update

    opt = mx.optimizer.SGD(lr_scheduler=Halving(), learning_rate=0.8)
    assert opt.learning_rate == 0.8  # learning_rate overrides the scheduler's base_lr
    w = nd.ones((1,))
    upd = mx.optimizer.get_updater(opt)
    upd(0, nd.ones((1,)), w)          # num_update 1: lr 0.4
    np.testing.assert_allclose(w.asnumpy(), [0.6], rtol=1e-6)
    with pytest.raises(UserWarning):
        opt.set_learning_rate(0.1)
    plain = mx.optimizer.SGD(learning_rate=0.3)
    plain.set_learning_rate(0.2)
    assert plain.learning_rate == 0.2


def test_lr_and_wd_multipliers_from_names_and_symbol_attributes():
    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data, name="fc", num_hidden=2, lr_mult=0.5, wd_mult=2.0)
    idx2name = {0: "fc_weight", 1: "fc_bias"}
    opt = mx.optimizer.SGD(learning_rate=1.0, wd=0.1, sym=fc, param_idx2name=idx2name)
    assert opt.lr_mult == {"fc_weight": 0.5, "fc_bias": 0.5}
    assert opt.wd_mult == {"fc_weight": 2.0, "fc_bias": 2.0}
    assert opt._get_lr(0) == 0.5 and opt._get_wd(0) == pytest.approx(0.2)
    bare = mx.optimizer.SGD(wd=0.1, param_idx2name=idx2name)
    assert bare._get_wd(1) == 0.0 and bare._get_wd(0) == pytest.approx(0.1)
    bare.set_lr_mult({1: 3.0})
    assert bare._get_lr(1) == pytest.approx(0.03)


def test_multi_precision_keeps_a_float32_master_copy():
    opt = mx.optimizer.Adam(learning_rate=0.1, multi_precision=True)
    w = nd.array([1.0, 2.0], dtype="float16")
    state = opt.create_state_multi_precision(0, w)
    assert state[0].dtype == np.float32 and state[0].asnumpy().tolist() == [1.0, 2.0]
    opt.update_multi_precision(0, w, nd.array([0.5, -0.5], dtype="float16"), state)
    assert w.dtype == np.float16
    np.testing.assert_allclose(w.asnumpy(), state[0].asnumpy().astype(np.float16))


def test_updater_states_round_trip_without_pickle():
    opt = mx.optimizer.Adam(learning_rate=0.1)
    upd = mx.optimizer.get_updater(opt)
    w, g = nd.array([1.0, -1.0]), nd.array([0.3, 0.2])
    upd(0, g, w)
    upd(1, g, nd.array([2.0, 2.0]))
    blob = upd.get_states(dump_optimizer=True)
    assert b"pickle" not in blob
    fresh = mx.optimizer.get_updater(mx.optimizer.SGD())
    fresh.set_states(blob)
    assert isinstance(fresh.optimizer, mx.optimizer.Adam)
    assert fresh.optimizer._index_update_count == {0: 1, 1: 1}
    for k in (0, 1):
        for a, b in zip(upd.states[k], fresh.states[k]):
            np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    w2 = w.copy()
    upd(0, g, w)
    fresh(0, g, w2)
    np.testing.assert_array_equal(w.asnumpy(), w2.asnumpy())
    with pytest.raises(ValueError):
        fresh.set_states(b"not a states record")


def test_sgld_adds_noise_of_variance_lr():
    mx.random.seed(1)
    opt = mx.optimizer.SGLD(learning_rate=0.01)
    w = nd.zeros((20000,))
    opt.update(0, w, nd.zeros((20000,)), None)
    assert abs(float(w.asnumpy().std()) - 0.1) < 0.005


def test_group_adagrad_dense_gradient_closed_form():
    # history += mean(g**2) per row; w -= lr * g / sqrt(history + eps)
    opt = mx.optimizer.contrib.GroupAdaGrad(learning_rate=0.1, eps=1e-5)
    w = nd.ones((2, 3))
    g = nd.array([[1, 1, 1], [0, 3, 0]])
    state = opt.create_state(0, w)
    opt.update(0, w, g, state)
    np.testing.assert_allclose(state.asnumpy().ravel(), [1, 3], rtol=1e-6)
    expect = 1 - 0.1 * g.asnumpy() / np.sqrt(np.array([[1], [3]]) + 1e-5)
    np.testing.assert_allclose(w.asnumpy(), expect, rtol=1e-6)
