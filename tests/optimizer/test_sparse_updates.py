"""Optimizer updates with row_sparse gradients against MXNet 1.9.1's numbers
(tests/fixtures/sparse_updates_mxnet.npz, made by tests/fixtures/make_sparse_updates.py):
the update operators' lazy and standard kernels, dense and row_sparse weights, clipping; then
three optimizer steps on gradients touching other rows each step. Plus the closed forms that
make lazy updates what they are (untouched rows stay exactly as they were)."""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd

_FIX = np.load(os.path.join(os.path.dirname(__file__), "..", "fixtures",
                            "sparse_updates_mxnet.npz"))
_OPS = sorted({k.split("/")[0] for k in _FIX.files if k.startswith("c")}, key=lambda c: int(c[1:]))
_OPTS = sorted({k.split("/")[0] for k in _FIX.files if k.startswith("o_")})
SHAPE = (6, 3)


def _as(a, stype):
    x = nd.array(a, dtype="float32")
    return x if stype == "default" else x.tostype(stype)


def _rsp(vals, idx):
    return nd.sparse.row_sparse_array((vals, idx), shape=SHAPE, dtype="float32")


@pytest.mark.parametrize("case", _OPS)
def test_update_operator_matches_mxnet(case):
    meta = json.loads(str(_FIX[f"{case}/attrs"]))
    name, attrs = meta["op"], meta["attrs"]
    n_states = sum(1 for k in _FIX.files if k.startswith(f"{case}/in/state"))
    w = _as(_FIX[f"{case}/in/weight"], meta["w_stype"])
    states = [_as(_FIX[f"{case}/in/state{j}"], meta["s_stype"]) for j in range(n_states)]
    g = _rsp(_FIX[f"{case}/in/grad_values"], _FIX[f"{case}/in/grad_indices"])
    fn = nd.sparse.adagrad_update if name == "_sparse_adagrad_update" else getattr(nd, name)
    fn(w, g, *states, out=w, **attrs)
    assert w.stype == str(_FIX[f"{case}/out/weight_stype"])
    np.testing.assert_allclose(w.asnumpy(), _FIX[f"{case}/out/weight"], rtol=1e-5, atol=1e-6)
    for j, s in enumerate(states):
        np.testing.assert_allclose(s.asnumpy(), _FIX[f"{case}/out/state{j}"], rtol=1e-5,
                                   atol=1e-6)


@pytest.mark.parametrize("case", _OPTS)
def test_optimizer_steps_match_mxnet(case):
    meta = json.loads(str(_FIX[f"{case}/opt"]))
    w_stype = case.rsplit("_", 1)[1] if case.endswith("default") else "row_sparse"
    opt = mx.optimizer.create(meta["name"], rescale_grad=meta["rescale_grad"], **meta["kw"])
    upd = mx.optimizer.get_updater(opt)
    w = _as(_FIX[f"{case}/weight0"], w_stype)
    for t in range(3):
        g = _rsp(_FIX[f"{case}/g{t}_values"], _FIX[f"{case}/g{t}_indices"])
        upd(0, g, w)
        np.testing.assert_allclose(w.asnumpy(), _FIX[f"{case}/w{t}"], rtol=1e-5, atol=1e-6,
                                   err_msg=f"{case} step {t}")


def test_lazy_update_leaves_other_rows_and_states_untouched():
    w0 = np.random.RandomState(0).uniform(-1, 1, SHAPE).astype(np.float32)
    w, mom = nd.array(w0), nd.array(np.full(SHAPE, 0.5, np.float32))
    g = _rsp(np.ones((2, 3), np.float32), np.array([1, 4]))
    nd.sgd_mom_update(w, g, mom, out=w, lr=0.1, momentum=0.9, wd=0.1)
    others = [0, 2, 3, 5]
    np.testing.assert_array_equal(w.asnumpy()[others], w0[others])
    np.testing.assert_array_equal(mom.asnumpy()[others], 0.5)
    # the rows present follow the dense rule: mom = 0.9 mom - lr wd w - lr g; w += mom
    m = 0.9 * 0.5 - 0.1 * 0.1 * w0[[1, 4]] - 0.1
    np.testing.assert_allclose(mom.asnumpy()[[1, 4]], m, rtol=1e-6)
    np.testing.assert_allclose(w.asnumpy()[[1, 4]], w0[[1, 4]] + m, rtol=1e-6)


def test_standard_update_equals_dense_gradient():
    rng = np.random.RandomState(1)
    w0 = rng.uniform(-1, 1, SHAPE).astype(np.float32)
    vals = rng.uniform(-1, 1, (2, 3)).astype(np.float32)
    dense_g = np.zeros(SHAPE, np.float32)
    dense_g[[0, 5]] = vals
    for name, n_states in (("sgd_update", 0), ("sgd_mom_update", 1), ("adam_update", 2)):
        kw = {"lr": 0.1, "wd": 0.05}
        if name == "sgd_mom_update":
            kw["momentum"] = 0.9
        ws = [nd.array(w0), nd.array(w0)]
        sts = [[nd.zeros(SHAPE) for _ in range(n_states)] for _ in range(2)]
        getattr(nd, name)(ws[0], _rsp(vals, np.array([0, 5])), *sts[0], out=ws[0],
                          lazy_update=False, **kw)
        getattr(nd, name)(ws[1], nd.array(dense_g), *sts[1], out=ws[1], **kw)
        np.testing.assert_allclose(ws[0].asnumpy(), ws[1].asnumpy(), rtol=1e-6, atol=1e-7)


def test_row_sparse_state_starts_empty_and_gets_every_row():
    w = nd.ones(SHAPE).tostype("row_sparse")
    opt = mx.optimizer.SGD(learning_rate=0.1, momentum=0.9)
    state = opt.create_state(0, w)
    assert state.stype == "row_sparse" and state.indices.shape == (0,)
    opt.update(0, w, _rsp(np.ones((1, 3), np.float32), np.array([2])), state)
    assert state.indices.shape == (SHAPE[0],)
    expect = np.ones(SHAPE, np.float32)
    expect[2] = 1 - 0.1
    np.testing.assert_allclose(w.asnumpy(), expect, rtol=1e-6)


def test_lazy_update_flag_chooses_state_storage():
    w = nd.ones(SHAPE).tostype("row_sparse")
    assert mx.optimizer.Adam(lazy_update=True).create_state(0, w)[0].stype == "row_sparse"
    assert mx.optimizer.Adam(lazy_update=False).create_state(0, w)[0].stype == "default"


def test_sparse_adagrad_refuses_weight_decay_and_names_storage():
    w, h = nd.ones(SHAPE), nd.zeros(SHAPE)
    g = _rsp(np.ones((1, 3), np.float32), np.array([0]))
    with pytest.raises(ValueError, match="_sparse_adagrad_update.*wd"):
        nd.sparse.adagrad_update(w, g, h, out=w, lr=0.1, wd=0.1)
    with pytest.raises(ValueError, match="'csr'"):
        nd.sparse.adagrad_update(w, g, h.tostype("csr"), out=w, lr=0.1)


def test_csr_weight_falls_back_to_dense_rule_and_keeps_storage():
    rng = np.random.RandomState(2)
    w0, g0 = rng.uniform(0, 1, (3, 4)).astype(np.float32), rng.uniform(0, 1, (3, 4)).astype(
        np.float32)
    w, mom = nd.array(w0).tostype("csr"), nd.zeros((3, 4), stype="csr")
    nd.sgd_mom_update(w, nd.array(g0).tostype("csr"), mom, out=w, lr=0.1, momentum=0.9)
    assert w.stype == "csr" and mom.stype == "csr"
    np.testing.assert_allclose(mom.asnumpy(), -0.1 * g0, rtol=1e-6)
    np.testing.assert_allclose(w.asnumpy(), w0 - 0.1 * g0, rtol=1e-6)


_GROUP = sorted({k.split("/")[0] for k in _FIX.files if k.startswith("g_")})


@pytest.mark.parametrize("case", _GROUP)
def test_group_adagrad_update_matches_mxnet(case):
    meta = json.loads(str(_FIX[f"{case}/attrs"]))
    w = _as(_FIX[f"{case}/in/weight"], meta["w_stype"])
    h = _as(_FIX[f"{case}/in/history"], meta["w_stype"])
    g = _rsp(_FIX[f"{case}/in/grad_values"], _FIX[f"{case}/in/grad_indices"])
    nd.contrib.group_adagrad_update(w, g, h, out=w, **meta["attrs"])
    np.testing.assert_allclose(w.asnumpy(), _FIX[f"{case}/out/weight"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h.asnumpy(), _FIX[f"{case}/out/history"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("w_stype", ["default", "row_sparse"])
def test_group_adagrad_optimizer_matches_mxnet(w_stype):
    key = f"go_{w_stype}"
    opt = mx.optimizer.create("groupadagrad", learning_rate=0.1, rescale_grad=0.5)
    upd = mx.optimizer.get_updater(opt)
    w = _as(_FIX[f"{key}/weight0"], w_stype)
    for t in range(3):
        upd(0, _rsp(_FIX[f"{key}/g{t}_values"], _FIX[f"{key}/g{t}_indices"]), w)
        np.testing.assert_allclose(w.asnumpy(), _FIX[f"{key}/w{t}"], rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="weight decay"):
        mx.optimizer.contrib.GroupAdaGrad(wd=0.1).update(0, w, w, None)


def test_updater_states_round_trip_keeps_row_sparse():
    upd = mx.optimizer.get_updater(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9))
    w = nd.ones((4, 2)).tostype("row_sparse")
    g = nd.sparse.row_sparse_array((np.ones((1, 2)), [1]), shape=(4, 2))
    upd(0, g, w)
    other = mx.optimizer.get_updater(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9))
    other.set_states(upd.get_states())
    mom = other.states[0]
    assert mom.stype == "row_sparse"
    np.testing.assert_allclose(mom.asnumpy()[1], -0.1, rtol=1e-6)
