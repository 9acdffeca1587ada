"""`mx.model.FeedForward` (MXNet 1.x's legacy estimator) against MXNet 1.9.1 itself: the
trained parameters and auxiliary states, `predict`, `score` and what the callbacks received,
from tests/fixtures/feedforward_mxnet.json (made by tests/fixtures/make_feedforward.py on
MXNet 1.9.1); then save/load, `create`, bucketing, and the errors for bad input."""
import importlib.util
import json
import logging
import os
import pickle
import warnings

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures")
FIXTURE = os.path.join(FIXTURES, "feedforward_mxnet.json")
_spec = importlib.util.spec_from_file_location("feedforward_cases",
                                               os.path.join(FIXTURES, "feedforward_cases.py"))
CASES = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(CASES)
with open(FIXTURE, encoding="utf-8") as _f:
    REF = json.load(_f)
X, Y, XV, YV = (np.array(REF[k], dtype="float32") for k in ("x", "y", "xv", "yv"))
ARGS = {k: np.array(v, dtype="float32") for k, v in REF["args"].items()}
# MXNet's float32 kernels sum in another order: a few ulps after some 15 updates
TOL = {"rtol": 1e-5, "atol": 2e-6}

pytestmark = pytest.mark.filterwarnings("ignore:mx.model.FeedForward is deprecated")


def mlp(bn=False):
    return CASES.mlp(mx, bn)


def args(bn=False):
    return {k: nd.array(v) for k, v in ARGS.items() if bn or not k.startswith("bn")}


Recorder = CASES.Recorder


def fit(model, data, y=None, **kw):
    rec = Recorder()
    model.fit(data, y, batch_end_callback=rec.batch, epoch_end_callback=rec.epoch,
              eval_end_callback=rec.eval_end, **kw)
    return rec


def same_records(got, want):
    """Callback records equal, the floats in them to float32 rounding."""
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert [g[0], g[1]] == [w[0], w[1]]
        if len(g) == 3:     # a batch or eval record: [epoch, nbatch, [metric name, value]]
            assert g[2][0] == w[2][0] and g[2][1] == pytest.approx(w[2][1], rel=1e-6)
        else:               # an epoch record: [epoch, arg names, aux names, a weight's sum]
            assert g[2:-1] == w[2:-1] and g[-1] == pytest.approx(w[-1], rel=1e-5, abs=1e-5)


def check_case(name, model, rec):
    want = REF[name]
    assert sorted(model.arg_params) == sorted(want["arg_params"])
    assert sorted(model.aux_params) == sorted(want["aux_params"])
    for k, v in want["arg_params"].items():
        np.testing.assert_allclose(model.arg_params[k].asnumpy(), v, err_msg=k, **TOL)
    for k, v in want["aux_params"].items():
        np.testing.assert_allclose(model.aux_params[k].asnumpy(), v, err_msg=k, **TOL)
    same_records(rec.batches, want["batches"])
    same_records(rec.epochs, want["epochs"])
    same_records(rec.evals, want["evals"])


# ---- MXNet's numbers ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def trained():
    """The ``iter`` case: a DataIter without shuffling, SGD with momentum and wd, and an
    eval pair batched (shuffled, rolled over) as numpy training data."""
    np.random.seed(3)
    model = mx.model.FeedForward(mlp(), num_epoch=3, optimizer="sgd", arg_params=args(),
                                 numpy_batch_size=8, learning_rate=0.1, momentum=0.9, wd=0.01)
    rec = fit(model, mx.io.NDArrayIter(X, Y, batch_size=8), eval_data=(XV, YV))
    return model, rec


def test_fit_from_a_data_iter_trains_as_mxnet(trained):
    check_case("iter", *trained)


def test_predict_and_score_are_mxnet_s(trained):
    model, _ = trained
    want = REF["iter"]
    np.testing.assert_allclose(model.predict(XV), want["predict"], **TOL)
    # an iterator's padding is dropped from the outputs; num_batch stops early
    it = mx.io.NDArrayIter(XV, YV, batch_size=5)
    np.testing.assert_allclose(model.predict(it), want["predict_iter"], **TOL)
    short = model.predict(mx.io.NDArrayIter(XV, YV, batch_size=5), num_batch=2)
    assert short.shape == (10, 3)
    np.testing.assert_allclose(short, want["predict_2_batches"], **TOL)
    # MXNet's score counts the padded samples of the last batch too
    assert model.score(mx.io.NDArrayIter(XV, YV, batch_size=5)) == pytest.approx(
        want["score_acc"])
    assert model.score(mx.io.NDArrayIter(XV, YV, batch_size=5), "ce") == pytest.approx(
        want["score_ce"], rel=1e-5)
    # arrays carry no labels into score: they are scored against zeros, as in MXNet
    assert model.score(XV) == pytest.approx(want["score_numpy"])


def test_predict_returns_the_data_and_labels(trained):
    model, _ = trained
    out, data, label = model.predict(XV, return_data=True)
    np.testing.assert_allclose(out, REF["iter"]["predict"], **TOL)
    np.testing.assert_array_equal(data, REF["iter"]["predict_data"])
    np.testing.assert_array_equal(label, REF["iter"]["predict_label"])  # zeros
    out, data, label = model.predict(mx.io.NDArrayIter(XV, YV, batch_size=5),
                                     return_data=True)
    assert out.shape == (12, 3)
    np.testing.assert_array_equal(data, XV)
    np.testing.assert_array_equal(label, YV)


def test_predict_of_a_group_gives_a_list(trained):
    net = mlp()
    group = mx.sym.Group([net, mx.sym.BlockGrad(net.get_internals()["fc1_output"])])
    model = mx.model.FeedForward(group, arg_params=trained[0].arg_params)
    out = model.predict(XV)
    assert isinstance(out, list) and [o.shape for o in out] == [(12, 3), (12, 8)]
    for got, want in zip(out, REF["group"]):
        np.testing.assert_allclose(got, want, **TOL)


def test_fit_on_arrays_shuffles_as_mxnet_and_trains_batchnorm():
    # numpy's global state shuffles the samples at each reset, as MXNet's NDArrayIter does
    np.random.seed(7)
    model = mx.model.FeedForward(mlp(bn=True), num_epoch=3, numpy_batch_size=10,
                                 arg_params=args(bn=True), learning_rate=0.05, momentum=0.9)
    rec = fit(model, X, Y)
    check_case("numpy", model, rec)
    np.testing.assert_allclose(model.predict(XV), REF["numpy"]["predict"], **TOL)


def test_epoch_size_reads_on_across_passes():
    model = mx.model.FeedForward(mlp(), num_epoch=3, epoch_size=3, arg_params=args(),
                                 learning_rate=0.1)
    rec = fit(model, mx.io.NDArrayIter(X, Y, batch_size=8))
    check_case("epoch_size", model, rec)
    assert [b[:2] for b in rec.batches] == [[e, n] for e in range(3) for n in (1, 2, 3)]


def test_trains_on_the_context_given(ctx):
    # the executors run on ctx; the parameters the model keeps stay on the cpu, as in MXNet
    model = mx.model.FeedForward(mlp(), ctx=ctx, num_epoch=3, epoch_size=3, arg_params=args(),
                                 learning_rate=0.1)
    rec = fit(model, mx.io.NDArrayIter(X, Y, batch_size=8))
    check_case("epoch_size", model, rec)
    assert model.arg_params["fc1_weight"].context == mx.cpu(0)
    assert model._pred_exec is None and model.predict(XV).shape == (12, 3)
    assert model._pred_exec.arg_dict["fc1_weight"].context == ctx


@pytest.mark.parametrize("update_on_kvstore", ["1", "0"])
def test_two_contexts_with_work_loads(update_on_kvstore, monkeypatch):
    monkeypatch.setenv("MXNET_UPDATE_ON_KVSTORE", update_on_kvstore)
    model = mx.model.FeedForward(mlp(bn=True), ctx=[mx.cpu(0), mx.cpu(1)], num_epoch=2,
                                 arg_params=args(bn=True), learning_rate=0.1, momentum=0.9,
                                 wd=0.01)
    rec = fit(model, mx.io.NDArrayIter(X, Y, batch_size=9), work_load_list=[1, 2])
    check_case(f"two_ctx_kv{update_on_kvstore}", model, rec)


def test_an_optimizer_instance_is_used_as_given():
    # made without the parameter names, it decays the biases too (as in MXNet)
    adam = mx.optimizer.Adam(learning_rate=0.01, wd=0.01, rescale_grad=1 / 8.0)
    model = mx.model.FeedForward(mlp(), num_epoch=2, optimizer=adam, arg_params=args())
    rec = fit(model, mx.io.NDArrayIter(X, Y, batch_size=8))
    check_case("adam_object", model, rec)
    assert adam.idx2name == {0: "fc1_weight", 1: "fc1_bias", 2: "fc2_weight", 3: "fc2_bias"}


def test_create_makes_and_fits():
    model = mx.model.FeedForward.create(mlp(), mx.io.NDArrayIter(X, Y, batch_size=12),
                                        num_epoch=2, arg_params=args(), learning_rate=0.2)
    assert isinstance(model, mx.model.FeedForward) and model.num_epoch == 2
    for k, v in REF["create"]["arg_params"].items():
        np.testing.assert_allclose(model.arg_params[k].asnumpy(), v, err_msg=k, **TOL)


# ---- the rest of the API ---------------------------------------------------------------------
def test_constructing_one_warns_that_it_is_deprecated():
    with pytest.warns(DeprecationWarning, match=r"mx\.model\.FeedForward is deprecated.*"
                                                r"mx\.mod\.Module") as caught:
        mx.model.FeedForward(mlp())
    assert caught[0].filename == os.path.abspath(__file__)  # the caller's line


def test_save_and_load_round_trip(trained, tmp_path):
    model, _ = trained
    prefix = str(tmp_path / "ff")
    model.save(prefix)  # epoch defaults to num_epoch
    assert sorted(os.listdir(tmp_path)) == ["ff-0003.params", "ff-symbol.json"]
    model.save(prefix, epoch=12)
    assert os.path.exists(prefix + "-0012.params")
    saved = nd.load(prefix + "-0003.params")
    assert sorted(saved) == ["arg:fc1_bias", "arg:fc1_weight", "arg:fc2_bias", "arg:fc2_weight"]
    loaded = mx.model.FeedForward.load(prefix, 3, num_epoch=5, learning_rate=0.1)
    assert loaded.begin_epoch == 3 and loaded.num_epoch == 5
    assert loaded.kwargs == {"learning_rate": 0.1}
    assert loaded.symbol.list_arguments() == model.symbol.list_arguments()
    for k, v in model.arg_params.items():
        np.testing.assert_array_equal(loaded.arg_params[k].asnumpy(), v.asnumpy())
    np.testing.assert_array_equal(loaded.predict(XV), model.predict(XV))
    # a model loaded this way trains on from begin_epoch
    rec = Recorder()
    loaded.fit(mx.io.NDArrayIter(X, Y, batch_size=8), batch_end_callback=rec.batch)
    assert sorted({b[0] for b in rec.batches}) == [3, 4]


def test_save_keeps_auxiliary_states(tmp_path):
    model = mx.model.FeedForward(mlp(bn=True), num_epoch=1, numpy_batch_size=12,
                                 arg_params=args(bn=True), learning_rate=0.1)
    model.fit(X, Y)
    model.save(str(tmp_path / "bn"))
    _, arg, aux = mx.model.load_checkpoint(str(tmp_path / "bn"), 1)
    assert sorted(aux) == ["bn1_moving_mean", "bn1_moving_var"]
    np.testing.assert_array_equal(aux["bn1_moving_var"].asnumpy(),
                                  model.aux_params["bn1_moving_var"].asnumpy())


def test_callbacks_get_batch_end_params():
    model = mx.model.FeedForward(mlp(), num_epoch=2, arg_params=args(), learning_rate=0.1)
    got, evals, epochs = [], [], []
    model.fit(mx.io.NDArrayIter(X, Y, batch_size=12),
              eval_data=mx.io.NDArrayIter(XV, YV, batch_size=12),
              batch_end_callback=[lambda p: got.append(p), lambda p: None],
              eval_batch_end_callback=lambda p: evals.append((p.epoch, p.nbatch)),
              eval_end_callback=None,
              epoch_end_callback=lambda *a: epochs.append(a))
    assert all(isinstance(p, mx.model.BatchEndParam) for p in got)
    assert [(p.epoch, p.nbatch) for p in got] == [(0, 1), (0, 2), (0, 3),
                                                  (1, 1), (1, 2), (1, 3)]
    assert isinstance(got[0].eval_metric, mx.metric.Accuracy)
    # MXNet's callbacks read these from the training loop's locals
    assert isinstance(got[0].locals["data_batch"], mx.io.DataBatch)
    assert isinstance(got[0].locals["executor_manager"], mx.model.DataParallelExecutorManager)
    assert evals == [(0, 0), (1, 0)]  # evaluation batches count from 0
    epoch, symbol, arg_params, aux_params = epochs[-1]
    assert epoch == 1 and symbol is model.symbol and arg_params is model.arg_params
    assert aux_params == {}
    scored = []
    model.score(mx.io.NDArrayIter(XV, YV, batch_size=4), batch_end_callback=scored.append)
    assert [(p.epoch, p.nbatch) for p in scored] == [(0, 0), (0, 1), (0, 2)]


def test_fit_logs_the_epoch_time_and_validation(caplog):
    model = mx.model.FeedForward(mlp(), num_epoch=1, arg_params=args(), learning_rate=0.1)
    logger = logging.getLogger("feedforward_test")
    with caplog.at_level(logging.INFO):
        model.fit(mx.io.NDArrayIter(X, Y, batch_size=12), logger=logger,
                  eval_data=mx.io.NDArrayIter(XV, YV, batch_size=12))
    text = caplog.text
    assert "Start training with [cpu(0)]" in text and "Epoch[0] Time cost=" in text
    assert "Epoch[0] Validation-accuracy=" in text


def test_initializer_fills_what_arg_params_leave_out():
    given = {k: v for k, v in args().items() if k.startswith("fc2")}
    model = mx.model.FeedForward(mlp(), num_epoch=0, arg_params=given,
                                 initializer=mx.init.Constant(0.5))
    model.fit(X, Y)  # no epoch to train: the parameters are only made
    # called with each name, as MXNet calls it: weights get the constant, biases zeros
    assert (model.arg_params["fc1_weight"].asnumpy() == 0.5).all()
    assert (model.arg_params["fc1_bias"].asnumpy() == 0).all()
    np.testing.assert_array_equal(model.arg_params["fc2_weight"].asnumpy(), ARGS["fc2_weight"])
    # the default initializer: Uniform(0.01) weights, zero biases
    model = mx.model.FeedForward(mlp(), num_epoch=0)
    model.fit(X, Y)
    assert np.abs(model.arg_params["fc1_weight"].asnumpy()).max() <= 0.01
    assert (model.arg_params["fc1_bias"].asnumpy() == 0).all()


def test_labels_of_one_column_and_small_data():
    model = mx.model.FeedForward(mlp(), num_epoch=1, arg_params=args(), numpy_batch_size=500,
                                 learning_rate=0.1)
    rec = Recorder()
    model.fit(X, Y.reshape(-1, 1), batch_end_callback=rec.batch)
    assert [b[:2] for b in rec.batches] == [[0, 1]]  # one batch of all 36 samples
    assert model.predict(nd.array(XV)).shape == (12, 3)


def test_allow_extra_params_drops_names_the_symbol_lacks():
    extra = dict(args(), junk=nd.ones(1))
    model = mx.model.FeedForward(mlp(), arg_params=extra, allow_extra_params=True)
    assert sorted(model.arg_params) == sorted(ARGS)[2:]  # the bn ones are not given
    assert model.predict(XV).shape == (12, 3)
    model = mx.model.FeedForward(mlp(), arg_params=extra)
    with pytest.raises(ValueError, match=r"arg_params has \['junk'\], which the symbol does not "
                                         r"take; drop them or pass allow_extra_params=True"):
        model.predict(XV)


def test_pickle_drops_the_inference_executor(trained):
    model, _ = trained
    model.predict(XV)
    copy = pickle.loads(pickle.dumps(model))
    assert copy._pred_exec is None
    np.testing.assert_array_equal(copy.predict(XV), model.predict(XV))


def test_predict_sees_parameters_fit_replaced():
    model = mx.model.FeedForward(mlp(), num_epoch=1, arg_params=args(), learning_rate=0.5)
    before = model.predict(XV)
    model.fit(mx.io.NDArrayIter(X, Y, batch_size=12))
    after = model.predict(XV)
    assert not np.allclose(before, after)
    fresh = mx.model.FeedForward(mlp(), arg_params=model.arg_params)
    np.testing.assert_array_equal(after, fresh.predict(XV))


class _TwoBuckets(mx.io.DataIter):
    """An NDArrayIter whose batches alternate between bucket keys 'a' and 'b'."""

    def __init__(self, batch_size):
        super().__init__(batch_size)
        self.inner = mx.io.NDArrayIter(X, Y, batch_size=batch_size)
        self.default_bucket_key = "a"
        self.count = 0

    @property
    def provide_data(self):
        return self.inner.provide_data

    @property
    def provide_label(self):
        return self.inner.provide_label

    def reset(self):
        self.inner.reset()

    def next(self):
        batch = self.inner.next()
        batch.bucket_key = "ab"[self.count % 2]
        batch.provide_data, batch.provide_label = self.provide_data, self.provide_label
        self.count += 1
        return batch


def test_bucketing_shares_the_parameters_between_buckets():
    keys = []

    def sym_gen(key):
        keys.append(key)
        return mlp()
    model = mx.model.FeedForward(sym_gen, num_epoch=2, arg_params=args(), learning_rate=0.1,
                                 momentum=0.9)
    model.fit(_TwoBuckets(12))
    assert keys == ["a", "b"]  # the default bucket at fit, 'b' at its first batch
    plain = mx.model.FeedForward(mlp(), num_epoch=2, arg_params=args(), learning_rate=0.1,
                                 momentum=0.9)
    plain.fit(mx.io.NDArrayIter(X, Y, batch_size=12))
    for k, v in plain.arg_params.items():
        np.testing.assert_array_equal(model.arg_params[k].asnumpy(), v.asnumpy(), err_msg=k)


def test_monitor_watches_the_training_executors():
    mon = mx.mon.Monitor(1, pattern="fc2_output")
    model = mx.model.FeedForward(mlp(), num_epoch=1, arg_params=args(), learning_rate=0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(mx.io.NDArrayIter(X, Y, batch_size=12), monitor=mon)
    assert mon.step == 3


def test_the_executor_manager_averages_the_contexts_copies():
    net = mlp()
    it = mx.io.NDArrayIter(X, Y, batch_size=6)
    params = [n for n in net.list_arguments() if n not in ("data", "softmax_label")]
    mgr = mx.model.DataParallelExecutorManager(net, [mx.cpu(0), mx.cpu(1)], it,
                                               net.list_arguments(), params, [],
                                               work_load_list=[2, 1])
    assert mgr.slices == [slice(0, 4), slice(4, 6)]
    mgr.set_params(args(), {})
    mgr.param_arrays[0][1][:] = 0  # context 1's fc1_weight
    out = {k: nd.zeros(v.shape) for k, v in args().items()}
    mgr.copy_to(out, {})
    np.testing.assert_allclose(out["fc1_weight"].asnumpy(), ARGS["fc1_weight"] / 2, rtol=1e-6)
    batch = next(it)
    mgr.load_data_batch(batch)
    mgr.forward(is_train=True)
    mgr.backward()
    assert [g.shape for g in mgr.grad_arrays[0]] == [(8, 5), (8, 5)]


# ---- bad input ---------------------------------------------------------------------------------
@pytest.mark.parametrize("call, error, message", [
    (lambda m: m.fit([[1.0] * 5] * 4, [0] * 4), TypeError,
     r"FeedForward\.fit: X must be a DataIter, NDArray or numpy\.ndarray, got list"),
    (lambda m: m.fit(X), ValueError,
     r"FeedForward\.fit: y \(the labels\) must be given when X is an array"),
    (lambda m: m.fit(X, list(Y)), TypeError,
     r"FeedForward\.fit: y must be a numpy\.ndarray or NDArray when X is an array, got list"),
    (lambda m: m.fit(X, Y[:-1]), ValueError,
     r"FeedForward\.fit: X has 36 samples but y has 35 labels; they must be as many"),
    (lambda m: m.fit(X, np.zeros((36, 2))), ValueError,
     r"FeedForward\.fit: y must be 1-D \(or 2-D with one column\), got shape \(36, 2\)"),
    (lambda m: m.fit(X, Y, eval_data=(XV, YV[:3])), ValueError,
     r"fit \(eval_data\): X has 12 samples but y has 3 labels"),
    (lambda m: m.fit(X, Y, eval_data=(None, YV)), ValueError,
     r"FeedForward\.fit: eval_data\[0\] \(the data\) is None"),
    (lambda m: m.fit(X, Y, eval_data=XV), TypeError,
     r"eval_data must be a DataIter or a \(data, label\) pair of arrays, got ndarray"),
    (lambda m: m.fit(mx.io.NDArrayIter(X, Y, batch_size=12),
                     eval_data=mx.io.NDArrayIter(XV, YV, batch_size=4)), ValueError,
     r"a batch of 4 samples reached executors bound for batches of 12; every batch \(the eval "
     r"data's too\) must have the training data's batch size"),
    (lambda m: m.fit(X, Y, kvstore=3), TypeError,
     r"FeedForward\.fit: kvstore must be a KVStore, a str or None, got int"),
    (lambda m: m.fit(X, Y, kvstore="dist_sync"), NotImplementedError,
     r"distributed and NCCL key-value stores are not implemented"),
    (lambda m: m.predict("data.csv"), TypeError,
     r"FeedForward\.predict: X must be a DataIter, NDArray or numpy\.ndarray, got str"),
    (lambda m: m.score(None), TypeError,
     r"FeedForward\.score: X must be a DataIter, NDArray or numpy\.ndarray, got NoneType"),
])
def test_bad_input_is_named(call, error, message):
    model = mx.model.FeedForward(mlp(), num_epoch=1, arg_params=args(), learning_rate=0.1)
    with pytest.raises(error, match=message):
        call(model)


def test_fit_needs_num_epoch():
    model = mx.model.FeedForward(mlp(), arg_params=args())
    with pytest.raises(ValueError, match=r"FeedForward\.fit: num_epoch is None; give "
                                         r"FeedForward\(\.\.\., num_epoch=N\)"):
        model.fit(X, Y)


@pytest.mark.parametrize("kwargs, error, message", [
    ({"symbol": "net.json"}, TypeError,
     r"FeedForward: symbol must be a Symbol or a function of the bucket key returning one, "
     r"got str"),
    ({"ctx": "cpu"}, TypeError,
     r"FeedForward: ctx must be a Context or a non-empty list of Contexts, got 'cpu'"),
    ({"ctx": []}, TypeError, r"ctx must be a Context or a non-empty list of Contexts, got \[\]"),
    ({"arg_params": [1, 2]}, TypeError,
     r"FeedForward: arg_params must be a dict of name to NDArray \(or None\), got list"),
    ({"aux_params": "x"}, TypeError, r"FeedForward: aux_params must be a dict"),
    ({"numpy_batch_size": 0}, ValueError,
     r"FeedForward: numpy_batch_size must be a positive int, got 0"),
    ({"numpy_batch_size": 2.5}, ValueError, r"numpy_batch_size must be a positive int, got 2\.5"),
])
def test_bad_constructor_arguments_are_named(kwargs, error, message):
    kwargs.setdefault("symbol", mlp())
    with pytest.raises(error, match=message):
        mx.model.FeedForward(**kwargs)


def test_repeated_argument_names_are_refused():
    x = mx.sym.var("data")
    a = mx.sym.FullyConnected(x, num_hidden=3, name="fc")
    b = mx.sym.FullyConnected(x, num_hidden=3, name="fc")
    with pytest.raises(ValueError, match=r"the symbol has two arguments named 'fc_weight'.*give "
                                         r"each layer its own name="):
        mx.model.FeedForward(mx.sym.Group([a, b]))


def test_optimizer_settings_that_cannot_work_are_refused():
    model = mx.model.FeedForward(mlp(), num_epoch=1, arg_params=args(), rescale_grad=0.5)
    with pytest.raises(TypeError, match=r"rescale_grad is set by fit \(1/batch_size\); drop it "
                                        r"from the optimizer arguments"):
        model.fit(X, Y)
    model = mx.model.FeedForward(mlp(), num_epoch=1, arg_params=args(), optimizer=3)
    with pytest.raises(TypeError, match=r"optimizer must be a name or an Optimizer, got int"):
        model.fit(X, Y)


def test_parameters_of_the_wrong_shape_are_named():
    given = dict(args(), fc1_weight=nd.ones((8, 4)))
    model = mx.model.FeedForward(mlp(), num_epoch=1, arg_params=given)
    with pytest.raises(ValueError, match=r"FeedForward\.fit: arg_params\['fc1_weight'\] has "
                                         r"shape \(8, 4\) but the symbol needs \(8, 5\)"):
        model.fit(X, Y)


def test_a_model_without_parameters_cannot_predict_or_save(tmp_path):
    model = mx.model.FeedForward(mlp())
    with pytest.raises(ValueError, match=r"FeedForward\.predict: the model has no parameters; "
                                         r"fit it, load it, or give arg_params"):
        model.predict(XV)
    with pytest.raises(ValueError, match=r"FeedForward\.save: give the epoch"):
        model.save(str(tmp_path / "m"))
    with pytest.raises(ValueError, match=r"FeedForward\.save: the model has no parameters"):
        model.save(str(tmp_path / "m"), epoch=1)


def test_work_load_list_must_match_the_contexts():
    model = mx.model.FeedForward(mlp(), ctx=[mx.cpu(0), mx.cpu(1)], num_epoch=1,
                                 arg_params=args())
    with pytest.raises(ValueError, match=r"work_load_list must be a list of one number per "
                                         r"context \(2\), got \[1\]"):
        model.fit(X, Y, work_load_list=[1])
