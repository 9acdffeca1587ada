"""mx.mod and mx.rnn behaviour that needs no MXNet numbers: checkpoints and optimizer states
round-trip (training resumed from a checkpoint continues exactly as without it), buckets
compile once, predict drops padding, and the errors promised."""
import warnings

import numpy as np
import pytest

import gluonlite as mx

R = np.random.RandomState(2)
X = R.randn(20, 4).astype(np.float32)
Y = (X[:, 0] > 0).astype(np.float32)


def _net():
    fc = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc")
    return mx.sym.SoftmaxOutput(fc, name="softmax")


def _fit(mod, epochs, begin=0):
    it = mx.io.NDArrayIter(X, Y, batch_size=5, shuffle=False)
    # SGD with momentum: its state is all in the saved states (Adam's step count is not, in
    # MXNet either)
    mod.fit(it, num_epoch=epochs, begin_epoch=begin, optimizer="sgd",
            optimizer_params={"learning_rate": 0.5, "momentum": 0.9},
            initializer=mx.init.Xavier(rnd_type="gaussian"))
    return mod


def test_checkpoint_and_optimizer_states_resume_training_exactly(tmp_path):
    mx.random.seed(0)
    straight = _fit(mx.mod.Module(_net()), 2)
    mx.random.seed(0)
    first = _fit(mx.mod.Module(_net()), 1)
    prefix = str(tmp_path / "m")
    first.save_checkpoint(prefix, 1, save_optimizer_states=True)
    resumed = mx.mod.Module.load(prefix, 1, load_optimizer_states=True)
    _fit(resumed, 2, begin=1)
    a, b = straight.get_params()[0], resumed.get_params()[0]
    for k in a:
        np.testing.assert_allclose(b[k].asnumpy(), a[k].asnumpy(), rtol=1e-6, atol=1e-7)
    # without the optimizer states the momentum restarts, and the result differs
    fresh = mx.mod.Module.load(prefix, 1)
    _fit(fresh, 2, begin=1)
    assert not np.allclose(fresh.get_params()[0]["fc_weight"].asnumpy(),
                           a["fc_weight"].asnumpy())


def test_predict_drops_padding_and_iter_predict_yields_batches():
    mod = mx.mod.Module(_net())
    it = mx.io.NDArrayIter(X[:13], Y[:13], batch_size=5, last_batch_handle="pad")
    mod.bind(it.provide_data, it.provide_label, for_training=False)
    w = R.randn(2, 4).astype(np.float32)
    mod.init_params(arg_params={"fc_weight": mx.nd.array(w), "fc_bias": mx.nd.zeros((2,))})
    out = mod.predict(it)
    logits = X[:13] @ w.T
    want = np.exp(logits - logits.max(1, keepdims=True))
    want /= want.sum(1, keepdims=True)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-6)
    sizes = [outs[0].shape[0] for outs, _, _ in mod.iter_predict(it)]
    assert sizes == [5, 5, 3]


def test_reshape_keeps_parameters():
    mod = mx.mod.Module(_net())
    mod.bind([("data", (5, 4))], [("softmax_label", (5,))])
    mod.init_params()
    before = mod.get_params()[0]["fc_weight"].asnumpy()
    mod.reshape([("data", (3, 4))], [("softmax_label", (3,))])
    assert mod.data_shapes[0].shape == (3, 4)
    np.testing.assert_array_equal(mod.get_params()[0]["fc_weight"].asnumpy(), before)


def _lm_sym_gen(seq_len):
    data = mx.sym.var("data")
    embed = mx.sym.Embedding(data, input_dim=10, output_dim=4, name="embed")
    cell = mx.rnn.GRUCell(5, prefix="gru_")
    outs, _ = cell.unroll(seq_len, embed, merge_outputs=True)
    pred = mx.sym.FullyConnected(mx.sym.Reshape(outs, shape=(-1, 5)), num_hidden=10,
                                 name="pred")
    label = mx.sym.Reshape(mx.sym.var("softmax_label"), shape=(-1,))
    return mx.sym.SoftmaxOutput(pred, label, name="softmax"), ("data",), ("softmax_label",)


def test_bucketing_module_shares_parameters_and_compiles_each_bucket_once():
    rng = np.random.RandomState(0)
    sents = [list(rng.randint(1, 10, rng.randint(2, 7))) for _ in range(60)]
    it = mx.rnn.BucketSentenceIter(sents, 4, buckets=[3, 6], invalid_label=0)
    mod = mx.mod.BucketingModule(_lm_sym_gen, default_bucket_key=it.default_bucket_key)
    mod.fit(it, num_epoch=1, eval_metric=mx.metric.Perplexity(0),
            optimizer_params={"learning_rate": 0.1})
    buckets = mod._buckets
    assert sorted(buckets) == [3, 6]
    # one set of parameter arrays for all buckets
    assert buckets[3]._exec.arg_dict["gru_i2h_weight"] is buckets[6]._exec.arg_dict[
        "gru_i2h_weight"]
    plans = {k: len(m._exec.plans) for k, m in buckets.items()}
    mod.fit(it, num_epoch=2, begin_epoch=1, eval_metric=mx.metric.Perplexity(0),
            optimizer_params={"learning_rate": 0.1})
    assert {k: len(m._exec.plans) for k, m in mod._buckets.items()} == plans
    assert mod._buckets[3] is buckets[3]


def test_rnn_checkpoint_unpacks_per_gate_and_packs_back(tmp_path):
    cell = mx.rnn.LSTMCell(3, prefix="l_")
    outs, _ = cell.unroll(2, mx.sym.var("data"), merge_outputs=True)
    args = {"l_i2h_weight": mx.nd.array(R.randn(12, 4)), "l_i2h_bias": mx.nd.array(R.randn(12)),
            "l_h2h_weight": mx.nd.array(R.randn(12, 3)), "l_h2h_bias": mx.nd.array(R.randn(12))}
    prefix = str(tmp_path / "rnn")
    mx.rnn.do_rnn_checkpoint(cell, prefix)(0, outs, args, {})
    saved, _ = mx.model.load_params(prefix, 1)
    assert "l_i2h_f_weight" in saved and "l_i2h_weight" not in saved
    np.testing.assert_array_equal(saved["l_h2h_o_bias"].asnumpy(),
                                  args["l_h2h_bias"].asnumpy()[9:])
    _, back, _ = mx.rnn.load_rnn_checkpoint(cell, prefix, 1)
    assert sorted(back) == sorted(args)
    for k in args:
        np.testing.assert_array_equal(back[k].asnumpy(), args[k].asnumpy())


def test_encode_sentences_new_vocabulary_skips_invalid_label():
    coded, vocab = mx.rnn.encode_sentences([["a", "b"], ["b", "c"]], invalid_label=1,
                                           start_label=0)
    assert coded == [[0, 2], [2, 3]]
    assert vocab == {"\n": 1, "a": 0, "b": 2, "c": 3}


def test_errors():
    with pytest.raises(ValueError, match="encode_sentences: word 'z' is not in vocab"):
        mx.rnn.encode_sentences([["z"]], vocab={"a": 1})
    with pytest.raises(ValueError, match="BucketSentenceIter: layout must be 'NT'"):
        mx.rnn.BucketSentenceIter([[1, 2]], 1, buckets=[2], layout="NTC")
    with pytest.raises(ValueError, match="FusedRNNCell: mode must be one of"):
        mx.rnn.FusedRNNCell(4, mode="elman")
    with pytest.raises(ValueError, match=r"ZoneoutCell: zoneout_states must be a number in "
                                         r"\[0, 1\), got 1.5"):
        mx.rnn.ZoneoutCell(mx.rnn.RNNCell(4), zoneout_states=1.5)
    with pytest.raises(NotImplementedError, match="BidirectionalCell cannot be stepped"):
        mx.rnn.BidirectionalCell(mx.rnn.RNNCell(2, prefix="a_"),
                                 mx.rnn.RNNCell(2, prefix="b_"))(mx.sym.var("x"), [])
    with pytest.raises(ValueError, match="ConvRNNCell: h2h_kernel must be odd"):
        mx.rnn.ConvRNNCell(input_shape=(1, 3, 8, 8), num_hidden=2, h2h_kernel=(2, 2))
    with pytest.raises(ValueError, match="Module.fit: num_epoch must be given"):
        mx.mod.Module(_net()).fit(mx.io.NDArrayIter(X, Y, batch_size=5))
    with pytest.raises(ValueError, match="BucketingModule: default_bucket_key must be given"):
        mx.mod.BucketingModule(_lm_sym_gen)
    mod = mx.mod.Module(_net())
    mod.bind([("data", (5, 4))], [("softmax_label", (5,))])
    mod.init_params()
    with pytest.raises(ValueError, match=r"Module.update: call init_optimizer\(\) first"):
        mod.update()
    with pytest.raises(NotImplementedError, match="kvstore 'dist_sync': distributed"):
        mod.init_optimizer(kvstore="dist_sync")
    with pytest.raises(ValueError, match="SequentialModule.add: unknown meta key"):
        mx.mod.SequentialModule().add(mod, take_label=True)
    with pytest.raises(ValueError, match="PythonLossModule: one data and one label name"):
        mx.mod.PythonLossModule(data_names=("a", "b"))


def test_prelu_gamma_defaults_to_quarter_as_mxnet():
    net = mx.sym.LeakyReLU(mx.sym.var("data"), act_type="prelu")
    mod = mx.mod.Module(net, label_names=None)
    mod.bind(data_shapes=[("data", (4, 3))])
    mod.init_params()
    (gamma,) = mod.get_params()[0].values()
    np.testing.assert_array_equal(gamma.asnumpy(), np.full((3,), 0.25, np.float32))


def test_bucketing_module_checkpoint_round_trip(tmp_path):
    rng = np.random.RandomState(1)
    sents = [list(rng.randint(1, 10, rng.randint(2, 7))) for _ in range(40)]
    it = mx.rnn.BucketSentenceIter(sents, 4, buckets=[3, 6], invalid_label=0)
    mod = mx.mod.BucketingModule(_lm_sym_gen, default_bucket_key=6)
    mod.fit(it, num_epoch=1, optimizer_params={"learning_rate": 0.1},
            eval_metric=mx.metric.Perplexity(0))
    prefix = str(tmp_path / "b")
    mod.save_checkpoint(prefix, 1)
    assert (tmp_path / "b-3-symbol.json").exists() and (tmp_path / "b.buckets").exists()
    back = mx.mod.BucketingModule.load(prefix, 1, sym_gen=_lm_sym_gen, default_bucket_key=6)
    back.bind(it.provide_data, it.provide_label, for_training=False)
    it.reset()
    for batch in it:      # both buckets, through the loaded symbols and parameters
        mod.forward(batch, is_train=False)
        back.forward(batch, is_train=False)
        np.testing.assert_array_equal(back.get_outputs()[0].asnumpy(),
                                      mod.get_outputs()[0].asnumpy())


def test_bucket_rebound_to_other_batch_size_keeps_sharing_parameters():
    mod = mx.mod.BucketingModule(_lm_sym_gen, default_bucket_key=6)
    mod.bind([mx.io.DataDesc("data", (4, 6))], [mx.io.DataDesc("softmax_label", (4, 6))])
    mod.init_params()
    mod.init_optimizer(optimizer_params={"learning_rate": 0.5})

    def step(n, key):
        batch = mx.io.DataBatch([mx.nd.ones((n, key))], [mx.nd.ones((n, key))],
                                bucket_key=key,
                                provide_data=[mx.io.DataDesc("data", (n, key))],
                                provide_label=[mx.io.DataDesc("softmax_label", (n, key))])
        mod.forward_backward(batch)
        mod.update()
    step(4, 3)
    step(2, 6)          # the default bucket rebinds for batch 2
    step(2, 3)          # and so does bucket 3
    b3, b6 = mod._buckets[3]._exec.arg_dict, mod._buckets[6]._exec.arg_dict
    assert b3["pred_weight"] is b6["pred_weight"]
    with pytest.raises(ValueError, match="change the shapes of parameters"):
        m = mx.mod.Module(_net())
        m.bind([("data", (5, 4))], [("softmax_label", (5,))])
        m.init_params()
        m.reshape([("data", (5, 3))], [("softmax_label", (5,))])


def test_module_takes_back_the_executor_of_shapes_seen_before():
    mod = mx.mod.Module(_net())
    mod.bind([("data", (5, 4))], [("softmax_label", (5,))])
    mod.init_params()
    mod.init_optimizer(optimizer_params={"learning_rate": 0.1})
    big = mx.io.DataBatch([mx.nd.ones((5, 4))], [mx.nd.ones((5,))])
    small = mx.io.DataBatch([mx.nd.ones((2, 4))], [mx.nd.ones((2,))])
    mod.forward_backward(big)
    first = mod._exec
    mod.forward_backward(small)
    mod.update()
    assert mod._exec is not first and mod.data_shapes[0].shape == (2, 4)
    mod.forward(big, is_train=False)
    assert mod._exec is first and mod.data_shapes[0].shape == (5, 4)
    # the update made through the small batch's executor is seen by the big one
    w = mod.get_params()[0]["fc_weight"].asnumpy()
    np.testing.assert_array_equal(first.arg_dict["fc_weight"].asnumpy(), w)


def test_predict_on_a_test_set_without_labels():
    # a module bound with labels (by fit) predicts on an iterator without labels, as MXNet's
    # does; the outputs are those of the labelled iterator, at any batch size
    rng = np.random.RandomState(3)
    x = rng.uniform(-1, 1, (10, 3)).astype("float32")
    y = (np.arange(10) % 2).astype("float32")
    fc = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc")
    mod = mx.mod.Module(mx.sym.SoftmaxOutput(fc, name="softmax"))
    mod.fit(mx.io.NDArrayIter(x, y, batch_size=4), num_epoch=1)
    want = mod.predict(mx.io.NDArrayIter(x, y, batch_size=4)).asnumpy()
    got = mod.predict(mx.io.NDArrayIter(x, batch_size=4)).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-6)
    got3 = mod.predict(mx.io.NDArrayIter(x[:3], batch_size=3)).asnumpy()
    np.testing.assert_allclose(got3, want[:3], rtol=1e-6)


def _embedding_module():
    """sum(Embedding(data)**2) of a 10 x 3 weight declared row_sparse, sparse gradients."""
    w = mx.sym.var("weight", stype="row_sparse", shape=(10, 3))
    emb = mx.sym.Embedding(mx.sym.var("data"), w, input_dim=10, output_dim=3,
                           sparse_grad=True, name="emb")
    mod = mx.mod.Module(mx.sym.MakeLoss(mx.sym.sum(emb * emb)), data_names=["data"],
                        label_names=None)
    mod.bind(data_shapes=[("data", (4,))])
    mod.init_params(initializer=mx.init.Constant(0.5))
    return mod


def test_prepare_calls_sparse_row_id_fn_only_with_a_store_that_updates():
    """MXNet's Module.prepare: `sparse_row_id_fn` is called only when a KVStore updates the
    parameters (MXNet's sparse matrix-factorization and linear-classification examples);
    without one it warns. The losses are MXNet 1.9.1's for this script."""
    mod = _embedding_module()
    mod.init_optimizer(kvstore=mx.kv.create("local"), optimizer="sgd",
                       optimizer_params={"learning_rate": 0.1, "rescale_grad": 1.0})
    asked, losses = [], []
    for ids in ([1, 2, 2, 5], [2, 5, 7, 7], [1, 7, 7, 7]):
        batch = mx.io.DataBatch([mx.nd.array(ids)], [])
        with warnings.catch_warnings():
            warnings.simplefilter("error")   # a weight declared row_sparse: no warning
            mod.prepare(batch, sparse_row_id_fn=lambda b: asked.append(1) or
                        {"weight": b.data[0]})
        mod.forward_backward(batch)
        losses.append(mod.get_outputs()[0].asscalar())
        mod.update()
    assert len(asked) == 3
    np.testing.assert_allclose(losses, [3.0, 2.25, 1.29], rtol=1e-6)
    with pytest.warns(UserWarning, match="emb_weight.stype is not 'row_sparse'"):
        mod2 = mx.mod.Module(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2,
                                                   name="emb"), label_names=None)
        mod2.bind(data_shapes=[("data", (4, 3))], force_rebind=True)
        mod2.init_params()
        mod2.init_optimizer(kvstore=mx.kv.create("local"))
        mod2.prepare(batch, sparse_row_id_fn=lambda b: {"emb_weight": b.data[0]})
    with pytest.raises(ValueError, match="must return a dict"):
        mod.prepare(batch, sparse_row_id_fn=lambda b: [b.data[0]])
    with pytest.raises(ValueError, match="names 'nope', which is not a parameter"):
        mod.prepare(batch, sparse_row_id_fn=lambda b: {"nope": b.data[0]})


def test_prepare_without_a_store_warns_and_calls_nothing():
    mod = _embedding_module()
    mod.init_optimizer(optimizer="sgd")   # one device: no KVStore
    batch = mx.io.DataBatch([mx.nd.array([1, 2, 3, 4])], [])
    asked = []
    with pytest.warns(UserWarning, match="not updated in a KVStore"):
        mod.prepare(batch, sparse_row_id_fn=lambda b: asked.append(1) or {})
    assert asked == []
    mod.prepare(batch)   # nothing asked, nothing said
    group = mod._exec_group
    assert group.param_names == ["weight"]
    assert [a[0].shape for a in group.param_arrays] == [(10, 3)]
    assert [g[0].shape for g in group.grad_arrays] == [(10, 3)]
