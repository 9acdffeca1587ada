"""`mx.kv` (the single-process KVStore) and `gluon.Trainer` over several contexts: the
numbers of MXNet 1.9.1 (tests/fixtures/mxnet/block_features.json, made by
tests/fixtures/make_block_features.py) and closed forms."""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, gluon, nd

FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "mxnet",
                   "block_features.json")
with open(FIX) as _f:
    EXPECTED = json.load(_f)
CTXS = [mx.cpu(0), mx.cpu(1)]


# ---- KVStore -----------------------------------------------------------------------------------
def test_create_types():
    for name in ("local", "device", "local_allreduce_device"):
        kv = mx.kv.create(name)
        assert isinstance(kv, mx.kvstore.KVStore) and kv.type == name
        assert kv.rank == 0 and kv.num_workers == 1 and kv.is_capable("optimizer")
    assert mx.kvstore.create("teststore").type == "teststore"
    for name in ("dist_sync", "dist_async", "dist_device_sync", "nccl", "horovod"):
        with pytest.raises(NotImplementedError, match="distributed"):
            mx.kv.create(name)
    with pytest.raises(ValueError, match="unknown kvstore type 'nope'"):
        mx.kv.create("nope")
    with pytest.raises(TypeError):
        mx.kv.create(3)
    with pytest.raises(NotImplementedError):
        mx.kvstore.KVStoreServer()


def test_init_push_pull_sums_over_devices():
    kv = mx.kv.create("local")
    kv.init(3, nd.ones((2, 3)))
    out = [nd.zeros((2, 3), ctx=c) for c in CTXS]
    kv.pull(3, out=out)
    assert all((o.asnumpy() == 1).all() for o in out)
    kv.push(3, [nd.ones((2, 3), ctx=c) * (i + 1) for i, c in enumerate(CTXS)])
    kv.pull(3, out=out)
    assert all((o.asnumpy() == 3).all() for o in out)  # no updater: the sum is stored
    assert [o.context for o in out] == CTXS
    kv = mx.kv.create("local")  # a store takes int or str keys, not both (as MXNet's)
    kv.init(["a", "b"], [nd.zeros((2,)), nd.zeros((1,))])
    kv.push(["a", "b"], [[nd.ones((2,)), nd.ones((2,))], nd.full((1,), 5)])
    a, b = nd.zeros((2,)), nd.zeros((1,))
    kv.pull(["a", "b"], out=[a, b])
    assert (a.asnumpy() == 2).all() and (b.asnumpy() == 5).all()
    vals = [nd.ones((2,)), nd.full((2,), 2)]
    kv.pushpull("a", vals)  # out=None: written back into the values
    assert all((v.asnumpy() == 3).all() for v in vals)


def test_kvstore_errors():
    kv = mx.kv.create("device")
    kv.init(0, nd.zeros((2,)))
    with pytest.raises(ValueError, match="already initialized"):
        kv.init(0, nd.zeros((2,)))
    with pytest.raises(ValueError, match="has not been initialized"):
        kv.push(9, nd.zeros((2,)))
    with pytest.raises(ValueError, match=r"holds shape \(2,\)"):
        kv.push(0, nd.zeros((3,)))
    with pytest.raises(TypeError, match="NDArrays"):
        kv.push(0, np.zeros(2))
    with pytest.raises(ValueError, match="out must be row_sparse"):
        kv.row_sparse_pull(0, out=nd.zeros((2,)), row_ids=nd.array([0]))
    with pytest.raises(NotImplementedError, match="compression"):
        kv.set_gradient_compression({"type": "2bit", "threshold": 0.5})
    with pytest.raises(ValueError, match="no optimizer"):
        kv.save_optimizer_states("never.states")


def test_set_optimizer_updates_the_stored_value_and_states_round_trip(tmp_path):
    kv = mx.kv.create("local")
    kv.init(0, nd.zeros((3,)))
    kv.set_optimizer(mx.optimizer.create("sgd", learning_rate=0.1, momentum=0.9))
    w = [nd.zeros((3,), ctx=c) for c in CTXS]
    kv.pushpull(0, [nd.ones((3,), ctx=c) for c in CTXS], out=w)
    # mom = -0.1 * 2; w = mom
    assert all(np.allclose(x.asnumpy(), -0.2) for x in w)
    f = str(tmp_path / "kv.states")
    kv.save_optimizer_states(f)
    kv.pushpull(0, [nd.ones((3,)), nd.ones((3,))], out=w)
    after_two = w[0].asnumpy().copy()   # mom = 0.9 * -0.2 - 0.2 = -0.38; w = -0.58
    np.testing.assert_allclose(after_two, -0.58, rtol=1e-6)
    kv.load_optimizer_states(f)          # the momentum goes back to -0.2
    kv.pushpull(0, [nd.ones((3,)), nd.ones((3,))], out=w)
    np.testing.assert_allclose(w[0].asnumpy(), -0.58 - 0.38, rtol=1e-6)


def test_teststore_sums_without_optimizer():
    kv = mx.kv.create("teststore")
    vals = [nd.ones((2,)), nd.full((2,), 3)]
    kv.pushpull(0, vals)
    assert all((v.asnumpy() == 4).all() for v in vals)
    assert not kv.is_capable("optimizer")


# ---- Trainer -----------------------------------------------------------------------------------
def _train(update_on_kvstore, kvstore="device", optimizer="sgd"):
    x = gluon.Parameter("x", shape=(3,), lr_mult=0.5)
    x.initialize(ctx=CTXS, init="zeros")
    opt_params = {"learning_rate": 0.3, "wd": 0.1}
    if optimizer == "sgd":
        opt_params["momentum"] = 0.9
    trainer = gluon.Trainer([x], optimizer, opt_params,
                            kvstore=kvstore, update_on_kvstore=update_on_kvstore)
    got = []
    for _ in range(3):
        with autograd.record():
            ys = [(w * nd.array([1.0, 2.0, 3.0], ctx=w.context) * (i + 1) + w * w).sum()
                  for i, w in enumerate(x.list_data())]
        autograd.backward(ys)
        trainer.step(2)
        got.append([d.asnumpy().tolist() for d in x.list_data()])
    return got, trainer


@pytest.mark.parametrize("update_on_kvstore", [True, False])
def test_trainer_on_two_contexts_matches_mxnet(update_on_kvstore):
    got, trainer = _train(update_on_kvstore)
    want = EXPECTED["trainer"][str(update_on_kvstore)]
    np.testing.assert_allclose(got, want["values"], rtol=1e-5)
    assert trainer._update_on_kvstore is want["update_on_kvstore"]
    assert trainer._kvstore.type == "device"


@pytest.mark.parametrize("update_on_kvstore", [True, False])
def test_adam_on_two_contexts_counts_steps_per_context_as_mxnet(update_on_kvstore):
    got, trainer = _train(update_on_kvstore, optimizer="adam")
    np.testing.assert_allclose(got, EXPECTED["trainer_adam"][str(update_on_kvstore)]["values"],
                               rtol=1e-5)


def test_trainer_local_store_chooses_update_on_kvstore_as_mxnet():
    got, trainer = _train(None, "local")
    np.testing.assert_allclose(got, EXPECTED["trainer_local"]["values"], rtol=1e-5)
    assert trainer._update_on_kvstore is EXPECTED["trainer_local"]["update_on_kvstore"]


def test_single_context_makes_no_store():
    x = gluon.Parameter("x", shape=(2,))
    x.initialize(init="zeros")
    trainer = gluon.Trainer([x], "sgd", {"learning_rate": 1.0})
    with autograd.record():
        y = x.data() + 1
    y.backward()
    trainer.step(1)
    assert trainer._kvstore is None and trainer._update_on_kvstore is None
    assert (x.data().asnumpy() == -1).all()


def test_allreduce_grads_then_update():
    x = gluon.Parameter("x", shape=(4,))
    x.initialize(ctx=CTXS, init="zeros")
    trainer = gluon.Trainer([x], "sgd", {"learning_rate": 1.0}, update_on_kvstore=False)
    with autograd.record():
        ys = [w * i for i, w in enumerate(x.list_data())]
    autograd.backward(ys)
    assert not np.array_equal(x.grad(mx.cpu(0)).asnumpy(), x.grad(mx.cpu(1)).asnumpy())
    trainer.allreduce_grads()
    assert all((g.asnumpy() == 1).all() for g in x.list_grad())  # 0 + 1 on both
    for g in x.list_grad():  # e.g. clipping between the two calls
        g[:] = g * 0.5
    trainer.update(1)
    assert all((d.asnumpy() == -0.5).all() for d in x.list_data())


def test_update_and_allreduce_refused_when_updating_on_kvstore():
    x = gluon.Parameter("x", shape=(2,))
    x.initialize(ctx=CTXS, init="zeros")
    trainer = gluon.Trainer([x], "sgd", {"learning_rate": 1.0}, update_on_kvstore=True)
    for call in (trainer.allreduce_grads, lambda: trainer.update(1)):
        with pytest.raises(ValueError, match="update_on_kvstore=False"):
            call()


def test_store_without_optimizer():
    x = gluon.Parameter("x", shape=(2,))
    x.initialize(ctx=CTXS, init="zeros")
    kv = mx.kv.create("teststore")
    trainer = gluon.Trainer([x], "sgd", {"learning_rate": 1.0, "momentum": 0.5}, kvstore=kv)
    with autograd.record():
        ys = [w + 1 for w in x.list_data()]
    autograd.backward(ys)
    trainer.step(1)
    assert trainer._update_on_kvstore is False
    assert all((d.asnumpy() == -2).all() for d in x.list_data())
    bad = gluon.Trainer([x], "sgd", kvstore=kv, update_on_kvstore=True)
    with pytest.raises(ValueError, match="update_on_kvstore=False"):
        bad._init_kvstore()


def test_loading_parameters_resets_the_store(tmp_path):
    params = gluon.ParameterDict()
    x = params.get("x", shape=(3,))
    params.initialize(ctx=CTXS, init="zeros")
    trainer = gluon.Trainer(params, "sgd", {"learning_rate": 0.1}, kvstore="local")
    f = str(tmp_path / "x.params")
    params.save(f)
    for step in range(2):
        with autograd.record():
            ys = [w + 1 for w in x.list_data()]
        autograd.backward(ys)
        trainer.step(1)
        if step == 0:
            params.load(f)  # back to zeros: the store's copy is stale and is dropped
            assert trainer._kvstore is None and trainer._kv_initialized is False
    assert all(np.allclose(d.asnumpy(), -0.2) for d in x.list_data())


def test_learning_rate_and_states(tmp_path):
    got, trainer = _train(False)
    assert trainer.learning_rate == 0.3
    trainer.set_learning_rate(0.05)
    assert trainer.learning_rate == 0.05 and trainer.optimizer.lr == 0.05
    f = str(tmp_path / "t.states")
    trainer.save_states(f)
    x = trainer._params[0]
    before = [d.asnumpy().copy() for d in x.list_data()]

    def one_step():
        with autograd.record():
            ys = [(w * w).sum() for w in x.list_data()]
        autograd.backward(ys)
        trainer.step(1)
        return [d.asnumpy().copy() for d in x.list_data()]

    first = one_step()
    trainer.set_learning_rate(1.0)
    trainer.load_states(f)  # momentum and learning rate back as saved
    assert trainer.learning_rate == 0.05
    for d, b in zip(x.list_data(), before):
        d[:] = b
    again = one_step()
    np.testing.assert_allclose(again, first, rtol=1e-6)
    assert trainer._updaters[0].states[0] is not trainer._updaters[1].states[0]


def test_compression_and_mixed_contexts_refused():
    x = gluon.Parameter("x", shape=(2,))
    x.initialize(ctx=CTXS)
    with pytest.raises(NotImplementedError, match="compression"):
        gluon.Trainer([x], "sgd", compression_params={"type": "2bit", "threshold": 0.5})
    y = gluon.Parameter("y", shape=(2,))
    y.initialize(ctx=[mx.cpu(0)])
    with pytest.raises(ValueError, match="same contexts"):
        gluon.Trainer([x, y], "sgd")


def test_parameters_of_a_dict_are_taken_in_sorted_name_order():
    params = gluon.ParameterDict()
    params.get("zeros_weight", shape=(1,))
    params.get("ones_weight", shape=(1,))
    params.initialize()
    trainer = gluon.Trainer(params, "sgd")
    assert [p.name for p in trainer._params] == ["ones_weight", "zeros_weight"]


def test_stale_gradient_is_reported_unless_ignored():
    a = gluon.Parameter("a", shape=(2,))
    b = gluon.Parameter("b", shape=(2,))
    for p in (a, b):
        p.initialize(init="zeros", ctx=CTXS)
    trainer = gluon.Trainer([a, b], "sgd", {"learning_rate": 1.0}, update_on_kvstore=False)
    def backward_a():
        with autograd.record():
            ys = [w + 1 for w in a.list_data()]  # b takes no part
        autograd.backward(ys)

    backward_a()
    with pytest.raises(UserWarning, match="Parameter `b` on context cpu\\(0\\)"):
        trainer.step(1)
    backward_a()  # (the failed step consumed a's fresh flag, as MXNet's does)
    trainer.step(1, ignore_stale_grad=True)
    assert all((d.asnumpy() == -2).all() for d in a.list_data())  # summed over 2 contexts
    assert all((d.asnumpy() == 0).all() for d in b.list_data())
    trainer.step(1, ignore_stale_grad=True)  # a is stale now too: nothing moves
    assert all((d.asnumpy() == -2).all() for d in a.list_data())
