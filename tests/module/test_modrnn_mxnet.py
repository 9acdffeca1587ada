"""mx.rnn and mx.mod against MXNet 1.9.1's numbers (tests/fixtures/modrnn_mxnet.json, made by
tests/fixtures/make_modrnn.py): the bucketing language model's perplexities, Module.fit /
score / predict, FusedRNNCell's packed layout and unpack_weights, BucketSentenceIter's
batches."""
import importlib.util
import json
import os
import random

import numpy as np
import pytest

import gluonlite as mx

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "..", "fixtures", "modrnn_mxnet.json")) as _f:
    WANT = json.load(_f)


def _example():
    path = os.path.join(HERE, "..", "..", "examples", "bucketing_lm.py")
    spec = importlib.util.spec_from_file_location("bucketing_lm_example", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_bucketing_language_model_perplexities_match_mxnet(tmp_path):
    ex = _example()
    text = str(tmp_path / "corpus.txt")
    ex.make_corpus(text)
    ppl = ex.run(mx, text, epochs=2, prefix=str(tmp_path / "lm"))
    np.testing.assert_allclose(ppl, WANT["bucketing_lm"]["perplexities"], rtol=1e-5)
    # do_checkpoint wrote each epoch's parameters, loadable by mx.model
    sym, args, aux = mx.model.load_checkpoint(str(tmp_path / "lm"), 2)
    assert "pred_weight" in args and "lstm_l1_h2h_weight" in args and aux == {}
    assert "softmax_label" in sym.list_arguments()


def test_module_fit_score_predict_match_mxnet():
    w = WANT["module_fit"]
    x, y = np.array(w["x"], np.float32), np.array(w["y"], np.float32)
    it = mx.io.NDArrayIter(x, y, batch_size=8, shuffle=False)
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc")
    net = mx.sym.SoftmaxOutput(net, name="softmax")
    mod = mx.mod.Module(net, context=mx.cpu())
    mod.fit(it, num_epoch=3, optimizer="sgd",
            optimizer_params={"learning_rate": 0.3, "momentum": 0.9, "wd": 0.01},
            arg_params={"fc_weight": mx.nd.array(w["w"]), "fc_bias": mx.nd.zeros((2,))},
            eval_metric="acc")
    args, _ = mod.get_params()
    np.testing.assert_allclose(args["fc_weight"].asnumpy(), w["fc_weight"], rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(args["fc_bias"].asnumpy(), w["fc_bias"], rtol=1e-5, atol=1e-6)
    score = mod.score(it, ["acc", "ce"])
    assert [n for n, _ in score] == [n for n, _ in w["score"]]
    np.testing.assert_allclose([v for _, v in score], [v for _, v in w["score"]], rtol=1e-5)
    pred = mod.predict(it)
    assert list(pred.shape) == w["pred_shape"]
    np.testing.assert_allclose(pred.asnumpy().sum(), w["pred_sum"], rtol=1e-5)


@pytest.mark.parametrize("key", ["lstm_0", "lstm_1", "gru_0", "gru_1", "rnn_relu_0",
                                 "rnn_relu_1"])
def test_fused_cell_matches_mxnet_and_unfuses(key):
    w = WANT["fused"][key]
    mode, bi = key.rsplit("_", 1)
    cell = mx.rnn.FusedRNNCell(3, num_layers=2, mode=mode, bidirectional=bi == "1",
                               prefix="f_")
    outs, _ = cell.unroll(4, mx.sym.var("data"), layout="NTC", merge_outputs=True)
    p = mx.nd.array(w["p"])
    y = outs.eval(data=mx.nd.array(w["x"]), f_parameters=p)[0]
    np.testing.assert_allclose(y.asnumpy(), w["y"], rtol=1e-4, atol=1e-5)
    unpacked = cell.unpack_weights({"f_parameters": p})
    assert sorted(unpacked) == sorted(w["unpacked"])
    for k, v in w["unpacked"].items():
        np.testing.assert_array_equal(unpacked[k].asnumpy(), np.array(v, np.float32))
    # the unfused stack with the packed-per-cell weights computes the same
    stack = cell.unfuse()
    souts, _ = stack.unroll(4, mx.sym.var("data"), layout="NTC", merge_outputs=True)
    y2 = souts.eval(data=mx.nd.array(w["x"]), **stack.pack_weights(unpacked))[0]
    np.testing.assert_allclose(y2.asnumpy(), w["y"], rtol=1e-4, atol=1e-5)
    back = cell.pack_weights(unpacked)["f_parameters"]
    np.testing.assert_array_equal(back.asnumpy(), p.asnumpy())


@pytest.mark.parametrize("layout", ["NT", "TN"])
def test_bucket_sentence_iter_matches_mxnet(layout):
    w = WANT["bucket_iter"]
    random.seed(5)
    np.random.seed(5)
    it = mx.rnn.BucketSentenceIter(w["sentences"], 4, buckets=[3, 5, 8], invalid_label=0,
                                   layout=layout)
    got = list(it)
    want = w["batches"][layout]
    assert [b.bucket_key for b in got] == [b["key"] for b in want]
    for g, e in zip(got, want):
        np.testing.assert_array_equal(g.data[0].asnumpy(), e["data"])
        np.testing.assert_array_equal(g.label[0].asnumpy(), e["label"])
        d = g.provide_data[0]
        assert [d.name, list(d.shape), d.layout] == e["provide_data"]


def test_sequential_module_and_python_loss_module_match_mxnet():
    w = WANT["sequential"]
    x, y = np.array(w["x"], np.float32), np.array(w["y"], np.float32)
    it = mx.io.NDArrayIter(x, y, batch_size=6, shuffle=False)
    m1 = mx.mod.Module(mx.sym.Activation(mx.sym.FullyConnected(
        mx.sym.var("data"), num_hidden=6, name="fc1"), act_type="tanh"), label_names=None)
    m2 = mx.mod.Module(mx.sym.SoftmaxOutput(mx.sym.FullyConnected(
        mx.sym.var("data"), num_hidden=2, name="fc2"), name="softmax"))
    seq = mx.mod.SequentialModule().add(m1).add(m2, take_labels=True, auto_wiring=True)
    seq.fit(it, num_epoch=2, optimizer="sgd", optimizer_params={"learning_rate": 0.5},
            arg_params={"fc1_weight": mx.nd.array(w["w1"]), "fc1_bias": mx.nd.zeros((6,)),
                        "fc2_weight": mx.nd.array(w["w2"]), "fc2_bias": mx.nd.zeros((2,))})
    args, _ = seq.get_params()
    assert sorted(args) == sorted(w["seq"])
    for k, v in w["seq"].items():
        np.testing.assert_allclose(args[k].asnumpy(), v, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(seq.score(it, "acc")[0][1], w["seq_score"][0][1])

    it = mx.io.NDArrayIter(x, y, batch_size=6, shuffle=False, label_name="lin_label")
    m = mx.mod.Module(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=1, name="reg"),
                      label_names=None)
    loss = mx.mod.PythonLossModule(label_names=("lin_label",),
                                   grad_func=lambda s, lab: s - lab.reshape(s.shape))
    seq = mx.mod.SequentialModule().add(m).add(loss, take_labels=True, auto_wiring=True)
    seq.fit(it, num_epoch=2, optimizer="sgd", optimizer_params={"learning_rate": 0.1},
            eval_metric="mse",
            arg_params={"reg_weight": mx.nd.array(w["wr"]), "reg_bias": mx.nd.zeros((1,))})
    args, _ = seq.get_params()
    for k, v in w["pyloss"].items():
        np.testing.assert_allclose(args[k].asnumpy(), v, rtol=1e-5, atol=1e-6)


def _cell(key):
    kw = dict(input_shape=(2, 3, 5, 4), num_hidden=2, i2h_kernel=(3, 3), i2h_pad=(1, 1))
    if key == "convrnn":
        return mx.rnn.ConvRNNCell(prefix="c_", **kw)
    if key == "convlstm":
        return mx.rnn.ConvLSTMCell(prefix="c_", **kw)
    if key == "convgru":
        return mx.rnn.ConvGRUCell(prefix="c_", activation="tanh", **kw)
    if key == "residual_bi":
        return mx.rnn.ResidualCell(mx.rnn.BidirectionalCell(
            mx.rnn.GRUCell(3, prefix="l_"), mx.rnn.LSTMCell(3, prefix="r_")))
    cell = mx.rnn.SequentialRNNCell()
    cell.add(mx.rnn.RNNCell(3, activation="relu", prefix="a_"))
    cell.add(mx.rnn.ResidualCell(mx.rnn.RNNCell(3, prefix="b_")))
    return cell


@pytest.mark.parametrize("key", ["convrnn", "convlstm", "convgru", "residual_bi",
                                 "stack_relu"])
def test_cells_unrolled_match_mxnet(key):
    w = WANT["cells"][key]
    outs, states = _cell(key).unroll(3, [mx.sym.var("x%d" % t) for t in range(3)],
                                     merge_outputs=False)
    flat = [x for st in states for x in (st if isinstance(st, list) else [st])]
    net = mx.sym.Group(list(outs) + flat)
    assert sorted(net.list_arguments()) == sorted(w["feed"])
    res = net.eval(**{k: mx.nd.array(v) for k, v in w["feed"].items()})
    assert len(res) == len(w["outputs"])
    for got, want in zip(res, w["outputs"]):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-4, atol=1e-5)
