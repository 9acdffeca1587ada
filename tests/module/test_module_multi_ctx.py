"""`Module` over several contexts: the batch split by work load, outputs and input gradients
per context or merged, gradients summed through the kvstore (with and without update on
kvstore), `fit`/`score`/`predict` giving the numbers of one context. MXNet-made
expectations: tests/fixtures/mxnet/module_multi_ctx.json (made by
tests/fixtures/make_module_multi_ctx.py)."""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd
from gluonlite.module.executor_group import split_input_slice

FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "mxnet",
                   "module_multi_ctx.json")
with open(FIX) as _f:
    EXP = json.load(_f)
X = np.array(EXP["x"], dtype="float32")
Y = np.array(EXP["y"], dtype="float32")
TWO = [mx.cpu(0), mx.cpu(1)]


def _net():
    data = mx.sym.var("data")
    h = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=6, name="fc1"),
                          act_type="tanh", name="act1")
    return mx.sym.SoftmaxOutput(mx.sym.FullyConnected(h, num_hidden=3, name="fc2"),
                                name="softmax")


def _args():
    return {k: nd.array(v) for k, v in EXP["args"].items()}


def _close(got, want):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)


def test_split_input_slice_cuts_by_work_load_as_mxnet():
    assert split_input_slice(6, [1, 2]) == [slice(0, 2), slice(2, 6)]
    assert split_input_slice(5, [1, 1]) == [slice(0, 2), slice(2, 5)]
    assert split_input_slice(10, [1, 1, 1]) == [slice(0, 3), slice(3, 6), slice(6, 10)]
    with pytest.raises(ValueError, match=r"split_input_slice: a batch of 1 cut for work loads "
                                         r"\[1, 1\] leaves a context no sample"):
        split_input_slice(1, [1, 1])


def _bound(context, **kw):
    mod = mx.mod.Module(_net(), context=context, **kw)
    mod.bind(data_shapes=[("data", (6, 5))], label_shapes=[("softmax_label", (6,))],
             inputs_need_grad=True)
    mod.set_params(_args(), {})
    mod.forward(mx.io.DataBatch([nd.array(X[:6])], [nd.array(Y[:6])]), is_train=True)
    mod.backward()
    return mod


def test_outputs_and_input_grads_per_context_and_merged_are_mxnets():
    mod = _bound(TWO, work_load_list=[1, 2])
    per = mod.get_outputs(merge_multi_context=False)
    assert [[a.shape for a in o] for o in per] == [[(2, 3), (4, 3)]]
    assert [[a.context for a in o] for o in per] == [TWO]
    for got, want in zip(per[0], EXP["outputs_per_ctx"][0]):
        _close(got.asnumpy(), want)
    merged = mod.get_outputs()
    assert len(merged) == 1 and merged[0].shape == (6, 3)
    _close(merged[0].asnumpy(), EXP["outputs"][0])
    grads = mod.get_input_grads(merge_multi_context=False)
    assert [[g.shape for g in gs] for gs in grads] == [[(2, 5), (4, 5)]]
    for got, want in zip(grads[0], EXP["input_grads_per_ctx"][0]):
        _close(got.asnumpy(), want)
    _close(mod.get_input_grads()[0].asnumpy(), EXP["input_grads"][0])


def test_one_context_gives_the_same_outputs_and_input_grads_as_two():
    one, two = _bound([mx.cpu(0)]), _bound(TWO, work_load_list=[1, 2])
    _close(two.get_outputs()[0].asnumpy(), one.get_outputs()[0].asnumpy())
    _close(two.get_input_grads()[0].asnumpy(), one.get_input_grads()[0].asnumpy())
    # one context, unmerged: MXNet's list of one array per output
    assert [len(o) for o in one.get_outputs(merge_multi_context=False)] == [1]


def _fit(context, **kw):
    it = mx.io.NDArrayIter(X, Y, batch_size=6, label_name="softmax_label")
    mod = mx.mod.Module(_net(), context=context, **kw)
    mod.fit(it, num_epoch=2, arg_params=_args(), optimizer="sgd",
            optimizer_params={"learning_rate": 0.3, "momentum": 0.9, "wd": 0.01},
            eval_metric="acc")
    return mod, it


@pytest.mark.parametrize("update_on_kvstore", ["1", "0"])
def test_fit_score_predict_over_two_contexts_give_mxnets_and_one_contexts_numbers(
        update_on_kvstore, monkeypatch):
    monkeypatch.setenv("MXNET_UPDATE_ON_KVSTORE", update_on_kvstore)
    exp = EXP[f"fit_update_on_kvstore_{update_on_kvstore}"]
    mod, it = _fit(TWO, work_load_list=[1, 2])
    assert mod._update_on_kvstore == (update_on_kvstore == "1")
    assert mod._kvstore is not None and mod._kvstore.type == "local"
    arg, _ = mod.get_params()
    for name, want in exp["params"].items():
        _close(arg[name].asnumpy(), want)
    score = dict(mod.score(it, ["acc", "ce"]))
    for name, want in exp["score"]:
        assert score[name] == pytest.approx(want, rel=1e-5)
    _close(mod.predict(it).asnumpy(), exp["predict"])
    # every context keeps the same parameters
    for name in arg:
        copies = mod._exec.arrays_of(name)
        _close(copies[1].asnumpy(), copies[0].asnumpy())
    one, _ = _fit([mx.cpu(0)])
    assert one._kvstore is None
    for name, value in one.get_params()[0].items():
        _close(arg[name].asnumpy(), value.asnumpy())


def test_a_batch_of_another_size_rebinds_and_splits_again():
    mod = _bound(TWO)
    mod.forward(mx.io.DataBatch([nd.array(X[:4])], [nd.array(Y[:4])]), is_train=False)
    assert [a.shape for a in mod.get_outputs(merge_multi_context=False)[0]] == [(2, 3), (2, 3)]
    one = _bound([mx.cpu(0)])
    one.forward(mx.io.DataBatch([nd.array(X[:4])], [nd.array(Y[:4])]), is_train=False)
    _close(mod.get_outputs()[0].asnumpy(), one.get_outputs()[0].asnumpy())


def test_bucketing_module_over_two_contexts_matches_one_context():
    def sym_gen(key):
        return _net(), ("data",), ("softmax_label",)

    def batch(lo, hi):
        return mx.io.DataBatch(
            [nd.array(X[lo:hi])], [nd.array(Y[lo:hi])], bucket_key=hi - lo,
            provide_data=[mx.io.DataDesc("data", (hi - lo, 5))],
            provide_label=[mx.io.DataDesc("softmax_label", (hi - lo,))])

    results = []
    for context in ([mx.cpu(0)], TWO):
        mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=6, context=context)
        mod.bind(data_shapes=[("data", (6, 5))], label_shapes=[("softmax_label", (6,))])
        mod.init_params(arg_params=_args())
        mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.3,
                                                              "momentum": 0.9})
        for lo, hi in ((0, 6), (6, 10), (10, 16), (16, 20)):
            mod.forward_backward(batch(lo, hi))
            mod.update()
        results.append(mod.get_params()[0])
    for name, value in results[0].items():
        _close(results[1][name].asnumpy(), value.asnumpy())


@pytest.mark.parametrize("update_on_kvstore", ["1", "0"])
def test_a_checkpoint_with_optimizer_states_resumes_training_over_two_contexts(
        update_on_kvstore, monkeypatch, tmp_path):
    monkeypatch.setenv("MXNET_UPDATE_ON_KVSTORE", update_on_kvstore)
    opt_params = {"learning_rate": 0.3, "momentum": 0.9}
    it = mx.io.NDArrayIter(X, Y, batch_size=6, label_name="softmax_label")
    straight = mx.mod.Module(_net(), context=TWO)
    straight.fit(it, num_epoch=2, arg_params=_args(), optimizer="sgd",
                 optimizer_params=opt_params)
    first = mx.mod.Module(_net(), context=TWO)
    first.fit(it, num_epoch=1, arg_params=_args(), optimizer="sgd",
              optimizer_params=opt_params)
    prefix = str(tmp_path / "net")
    first.save_checkpoint(prefix, 1, save_optimizer_states=True)
    resumed = mx.mod.Module.load(prefix, 1, load_optimizer_states=True, context=TWO)
    resumed.fit(it, num_epoch=2, begin_epoch=1, optimizer="sgd", optimizer_params=opt_params)
    want = straight.get_params()[0]
    for name, value in resumed.get_params()[0].items():
        _close(value.asnumpy(), want[name].asnumpy())


def _grouped_sum():
    with mx.AttrScope(ctx_group="dev1"):
        a = mx.sym.var("a") * 2
    with mx.AttrScope(ctx_group="dev2"):
        return a + mx.sym.var("b")


@pytest.mark.parametrize("context,group2ctxs,grad_ctxs", [
    ([mx.cpu(0)], {"dev1": mx.cpu(1), "dev2": mx.cpu(2)}, [mx.cpu(1), mx.cpu(2)]),
    (TWO, [{"dev1": mx.cpu(2), "dev2": mx.cpu(3)}, {"dev1": mx.cpu(4), "dev2": mx.cpu(5)}],
     [mx.cpu(2), mx.cpu(3)]),
    (TWO, {"dev1": mx.cpu(2), "dev2": [mx.cpu(3), mx.cpu(4)]}, [mx.cpu(2), mx.cpu(3)]),
])
def test_group2ctxs_places_each_groups_arrays_and_changes_no_number(context, group2ctxs,
                                                                    grad_ctxs):
    grads = []
    for g2c in (group2ctxs, None):
        mod = mx.mod.Module(_grouped_sum(), data_names=["a", "b"], label_names=None,
                            context=context, group2ctxs=g2c)
        mod.bind(data_shapes=[("a", (4, 5)), ("b", (4, 5))], inputs_need_grad=True)
        mod.init_params()
        mod.forward(mx.io.DataBatch([nd.ones((4, 5)), nd.ones((4, 5))]), is_train=True)
        mod.backward([nd.ones((4, 5))])
        grads.append(mod.get_input_grads())
        _close(mod.get_outputs()[0].asnumpy(), np.full((4, 5), 3.0))
    assert [g.context for g in grads[0]] == grad_ctxs
    for got, want in zip(*grads):
        _close(got.asnumpy(), want.asnumpy())
    _close(grads[0][0].asnumpy(), np.full((4, 5), 2.0))


def test_group2ctxs_of_the_wrong_length_is_refused():
    with pytest.raises(ValueError, match=r"Module: group2ctxs has 1 dicts for 2 contexts"):
        mx.mod.Module(_grouped_sum(), data_names=["a", "b"], label_names=None, context=TWO,
                      group2ctxs=[{"dev1": mx.cpu(2)}])
    with pytest.raises(ValueError, match=r"Module: group2ctxs\['dev2'\] lists 3 Contexts for "
                                         r"2 contexts"):
        mx.mod.Module(_grouped_sum(), data_names=["a", "b"], label_names=None, context=TWO,
                      group2ctxs={"dev2": [mx.cpu(1), mx.cpu(2), mx.cpu(3)]})
