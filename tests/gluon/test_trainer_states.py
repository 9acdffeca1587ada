"""Trainer.save_states / load_states: training resumed from saved states matches training that
never stopped; the file is MXNet's NDArray-list format (no pickle) and bad files are
rejected before anything changes."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, gluon, nd
from gluonlite.gluon import nn

R = np.random.RandomState(5)
X = R.uniform(-1, 1, (6, 8, 3)).astype(np.float32)   # 6 batches of 8 samples
Y = R.uniform(-1, 1, (6, 8, 2)).astype(np.float32)


def _net():
    mx.random.seed(11)
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(4, activation="tanh", in_units=3))
        net.add(nn.Dense(2, in_units=4))
    net.initialize(mx.init.Uniform(0.5))
    return net


def _train(net, trainer, batches):
    loss_fn = gluon.loss.L2Loss()
    for b in batches:
        with autograd.record():
            loss = loss_fn(net(nd.array(X[b])), nd.array(Y[b]))
        loss.backward()
        trainer.step(X.shape[1])


def _values(net):
    return [p.data().asnumpy() for p in net.collect_params().values()]


@pytest.mark.parametrize("optimizer,params", [
    ("adam", {"learning_rate": 0.05}),
    ("sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01}),
    ("sgd", {"learning_rate": 0.1}),
])
def test_resumed_training_matches_uninterrupted(tmp_path, optimizer, params):
    whole = _net()
    _train(whole, gluon.Trainer(whole.collect_params(), optimizer, params), range(6))

    first = _net()
    trainer = gluon.Trainer(first.collect_params(), optimizer, params)
    _train(first, trainer, range(3))
    first.save_parameters(str(tmp_path / "net.params"))
    trainer.save_states(str(tmp_path / "net.states"))

    resumed = _net()  # fresh parameters and a fresh optimizer (its step counts start at 0)
    resumed.load_parameters(str(tmp_path / "net.params"))
    trainer2 = gluon.Trainer(resumed.collect_params(), optimizer, params)
    trainer2.load_states(str(tmp_path / "net.states"))
    assert trainer2.optimizer.num_update == 3
    _train(resumed, trainer2, range(3, 6))

    for got, want in zip(_values(resumed), _values(whole)):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_states_file_is_an_ndarray_list_with_a_json_record(tmp_path):
    net = _net()
    trainer = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.01})
    _train(net, trainer, range(2))
    fname = str(tmp_path / "t.states")
    trainer.save_states(fname)
    loaded = nd.load(fname)
    assert set(loaded) == {"__trainer_states__"} | {f"{i}:{k}" for i in range(4)
                                                   for k in range(2)}
    import json
    record = json.loads(loaded["__trainer_states__"].asnumpy().tobytes().decode())
    assert record["optimizer"] == "adam"
    assert record["index_update_count"] == {str(i): 2 for i in range(4)}
    assert record["scalars"]["lr"] == 0.01
    params = net.collect_params()
    w = params[sorted(params.keys())[0]]  # a Trainer indexes a ParameterDict by sorted name
    assert loaded["0:0"].shape == w.shape
    assert [n for n in tmp_path.iterdir()] == [tmp_path / "t.states"]  # no temp file left


def test_learning_rate_is_restored(tmp_path):
    net = _net()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    trainer.set_learning_rate(0.025)
    trainer.save_states(str(tmp_path / "s"))
    other = gluon.Trainer(_net().collect_params(), "sgd", {"learning_rate": 0.1})
    other.load_states(str(tmp_path / "s"))
    assert other.learning_rate == 0.025


def _saved(tmp_path, optimizer="adam"):
    net = _net()
    trainer = gluon.Trainer(net.collect_params(), optimizer, {"learning_rate": 0.01})
    _train(net, trainer, range(1))
    fname = str(tmp_path / "t.states")
    trainer.save_states(fname)
    return fname


def test_states_of_another_optimizer_are_rejected(tmp_path):
    fname = _saved(tmp_path, "adam")
    trainer = gluon.Trainer(_net().collect_params(), "sgd", {"learning_rate": 0.1})
    with pytest.raises(ValueError, match="saved for optimizer 'adam' but this Trainer uses 'sgd'"):
        trainer.load_states(fname)


def test_truncated_or_foreign_files_are_rejected_and_change_nothing(tmp_path):
    fname = _saved(tmp_path)
    net = _net()
    trainer = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.01})
    with open(fname, "rb") as f:
        blob = f.read()
    cut = tmp_path / "cut.states"
    cut.write_bytes(blob[:len(blob) // 2])
    with pytest.raises(ValueError, match="cut.states.*truncated"):
        trainer.load_states(str(cut))
    plain = str(tmp_path / "plain.params")
    nd.save(plain, {"0:0": nd.zeros((4, 3))})
    with pytest.raises(ValueError, match="plain.params.*__trainer_states__"):
        trainer.load_states(plain)
    assert all(u.states == {} for u in trainer._updaters)
    assert trainer.optimizer.num_update == 0


def test_state_of_the_wrong_shape_is_rejected(tmp_path):
    fname = _saved(tmp_path)
    net = nn.Dense(5, in_units=3)   # index 0 (sorted names: the bias) is (5,), the file has (4,)
    net.initialize()
    trainer = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.01})
    with pytest.raises(ValueError, match=r"state array '0:0' has shape \(4,\).*\(5,\)"):
        trainer.load_states(fname)
