"""Real uses of MXNet's downstream libraries on synthetic data, one JSON line per case.

Run it twice over one work folder: first under MXNet 1.9.1 (``--mode ref``: each case saves its
parameters and outputs), then under gluonlite's `mxnet` (``--mode cmp``: each case loads MXNet's
parameters, so both compute on the same weights, and saves its outputs). compat/report.py
compares the two. No network, no pretrained files: ``pretrained=False`` and random inputs from
``numpy.random.RandomState``.

usage: python compat/cases.py --mode ref|cmp|time --work DIR [--only PREFIX ...]
                              [--repeat K] [--list]

Each line: {"case", "status": "ok"|"fail", "seconds" (the timed call's wall time, after one
warm-up), "cpu_seconds" (its CPU time in this process: on a shared machine the steadier of the
two, as both frameworks run one thread), "calls" (how many calls the times are the median of),
"error" (the exception's last line)}; outputs go to DIR/<mode>/<case>.npz.

In time mode a call that can be repeated (a forward pass, a gradient, a beam search: the cases
that warm up first) is timed K times (``--repeat``, default 5) and reported as the median, so
that one slow call on a shared machine does not make the ratio. A case whose call runs once by
nature (a training run, a first training step whose outputs are compared) keeps its one call.
A full garbage collection runs before the timed calls, on both sides, so that a collection
the earlier cases' objects are due does not land in this one's timing.
"""
import argparse
import gc
import json
import os
import statistics
import sys
import time
import traceback
import warnings

import numpy as np

warnings.filterwarnings("ignore")
CASES = {}


def case(name):
    def reg(fn):
        CASES[name] = fn
        return fn
    return reg


class Ctx:
    """What a case gets: the work folder, the mode, and helpers for shared parameters."""

    def __init__(self, work, mode, name, repeat=1):
        self.work, self.mode, self.name = work, mode, name
        self.repeat = repeat if mode == "time" else 1
        self.outputs = {}
        self.seconds = self.cpu_seconds = None
        self.calls = 0

    def params_path(self, tag=""):
        os.makedirs(os.path.join(self.work, "params"), exist_ok=True)
        return os.path.join(self.work, "params", f"{self.name}{tag}.params")

    def share(self, net, tag=""):
        """MXNet saves its initialised parameters; gluonlite loads them."""
        path = self.params_path(tag)
        if self.mode == "ref":
            net.save_parameters(path)
        else:
            net.load_parameters(path)

    def timed(self, fn, *args, warmup=True, **kw):
        """fn(*args, **kw), timed: once after a warm-up call (`warmup`), or once with none
        (a call that runs once by nature); in time mode a warmed-up call `repeat` times,
        the medians kept. Returns the first timed call's result."""
        if warmup:
            fn(*args, **kw)
        # a full collection now, on both sides: the cases before this one (one process runs
        # them all) leave objects whose collection would otherwise fall in whichever call
        # their count happens to cross the threshold in (a 3 ms step measured at 180 ms)
        gc.collect()
        walls, cpus, first = [], [], None
        for i in range(self.repeat if warmup else 1):
            t, c = time.perf_counter(), time.process_time()
            out = fn(*args, **kw)
            _sync(out)
            walls.append(time.perf_counter() - t)
            cpus.append(time.process_time() - c)
            if i == 0:
                first = out
        self.seconds, self.cpu_seconds = statistics.median(walls), statistics.median(cpus)
        self.calls = len(walls)
        return first

    def keep(self, **arrays):
        for k, v in arrays.items():
            self.outputs[k] = _np(v)


def _np(v):
    if isinstance(v, (list, tuple)):
        return np.concatenate([_np(x).ravel() for x in v]) if v else np.zeros(0)
    return v.asnumpy() if hasattr(v, "asnumpy") else np.asarray(v)


def _sync(out):
    if isinstance(out, (list, tuple)):
        for o in out:
            _sync(o)
    elif hasattr(out, "wait_to_read"):
        out.wait_to_read()


def _rand(*shape, seed=0, scale=1.0):
    return (np.random.RandomState(seed).uniform(-1, 1, size=shape) * scale).astype("float32")


# ---------------------------------------------------------------------------------- GluonCV

def _cv_forward(ctx, model, shape, hybridize=False, init=None, **kw):
    import mxnet as mx
    from gluoncv import model_zoo
    mx.random.seed(0)
    net = model_zoo.get_model(model, pretrained=False, pretrained_base=False, **kw) \
        if "pretrained_base" in _cv_kwargs(model) else \
        model_zoo.get_model(model, pretrained=False, **kw)
    net.initialize(init or mx.init.Xavier())
    x = mx.nd.array(_rand(*shape))
    net(x)                                   # deferred initialisation
    ctx.share(net)
    if hybridize:
        net.hybridize()
    out = ctx.timed(net, x)
    ctx.keep(**{f"out{i}": o for i, o in enumerate(out if isinstance(out, (list, tuple))
                                                      else [out])})


def _cv_kwargs(model):
    # detection, segmentation and pose models build a backbone: pretrained_base=False
    return ("pretrained_base",) if any(k in model for k in (
        "yolo", "ssd", "rcnn", "deeplab", "pose", "fcn", "psp")) else ()


@case("gluoncv.resnet50_v1b.forward")
def _(ctx):
    _cv_forward(ctx, "resnet50_v1b", (1, 3, 224, 224))


@case("gluoncv.resnet18_v1.seeded_init")
def _(ctx):
    # no shared parameters: each framework initializes from mx.random.seed(3), and MXNet's
    # random numbers make the same weights on both sides
    import mxnet as mx
    from gluoncv import model_zoo
    mx.random.seed(3)
    net = model_zoo.get_model("resnet18_v1", pretrained=False)
    net.initialize(mx.init.Xavier(magnitude=2))
    x = mx.nd.array(_rand(1, 3, 64, 64))
    out = ctx.timed(net, x, warmup=False)
    ctx.keep(out0=out, conv0_weight=net.features[0].weight.data())


@case("gluoncv.resnet18_v1.hybridized")
def _(ctx):
    _cv_forward(ctx, "resnet18_v1", (2, 3, 224, 224), hybridize=True)


@case("gluoncv.mobilenetv3_small.forward")
def _(ctx):
    _cv_forward(ctx, "mobilenetv3_small", (1, 3, 224, 224))


@case("gluoncv.mobilenet1.0.hybridized")
def _(ctx):
    _cv_forward(ctx, "mobilenet1.0", (1, 3, 224, 224), hybridize=True)


@case("gluoncv.yolo3_mobilenet1.0_voc.forward")
def _(ctx):
    import mxnet as mx
    # Xavier leaves every score at sigmoid(0)^2 = 0.25: all ties, whose order is the sort's
    # tie-break, not the model; a wider init gives distinct scores
    _cv_forward(ctx, "yolo3_mobilenet1.0_voc", (1, 3, 320, 320), init=mx.init.Normal(0.05))


@case("gluoncv.ssd_512_mobilenet1.0_voc.forward")
def _(ctx):
    import mxnet as mx
    # GluonCV's SSD has 1-D parameters named like weights: Xavier refuses them
    _cv_forward(ctx, "ssd_512_mobilenet1.0_voc", (1, 3, 256, 256), init=mx.init.Normal(0.05))


@case("gluoncv.faster_rcnn_resnet50_v1b_voc.forward")
def _(ctx):
    _cv_forward(ctx, "faster_rcnn_resnet50_v1b_voc", (1, 3, 320, 320))


@case("gluoncv.deeplab_resnet50_ade.forward")
def _(ctx):
    _cv_forward(ctx, "deeplab_resnet50_ade", (1, 3, 128, 128), aux=False, height=128,
                width=128)


@case("gluoncv.simple_pose_resnet18_v1b.forward")
def _(ctx):
    _cv_forward(ctx, "simple_pose_resnet18_v1b", (1, 3, 256, 192))


@case("gluoncv.resnet18_v1.train_step")
def _(ctx):
    import mxnet as mx
    from gluoncv import model_zoo
    mx.random.seed(0)
    net = model_zoo.get_model("resnet18_v1", pretrained=False, classes=10)
    net.initialize(mx.init.Xavier())
    x = mx.nd.array(_rand(4, 3, 64, 64))
    y = mx.nd.array([1, 3, 5, 7])
    net(x)
    ctx.share(net)
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1,
                                                             "momentum": 0.9})
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()

    def step():
        with mx.autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(4)
        return loss

    losses = [step()]
    losses.append(ctx.timed(step, warmup=False))
    ctx.keep(loss=losses, fc=net.output.weight.data())


@case("gluoncv.ssd.target_generator_train_step")
def _(ctx):
    import mxnet as mx
    from gluoncv import model_zoo
    from gluoncv.loss import SSDMultiBoxLoss
    from gluoncv.model_zoo.ssd.target import SSDTargetGenerator
    mx.random.seed(0)
    net = model_zoo.get_model("ssd_512_mobilenet1.0_voc", pretrained=False,
                              pretrained_base=False)
    net.initialize(mx.init.Normal(0.05))
    x = mx.nd.array(_rand(1, 3, 256, 256))
    with mx.autograd.train_mode():
        _, _, anchors = net(x)
    ctx.share(net)
    gt = mx.nd.array([[[20, 30, 120, 140], [100, 80, 250, 200]]], dtype="float32")
    cls = mx.nd.array([[[3], [7]]], dtype="float32")
    targets = SSDTargetGenerator(iou_thresh=0.5, stds=(0.1, 0.1, 0.2, 0.2))
    loss_fn = SSDMultiBoxLoss()
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.01})

    def step():
        with mx.autograd.record():
            cls_pred, box_pred, anc = net(x)
            cls_t, box_t, _ = targets(anc, cls_pred, gt, cls)
            s, c, b = loss_fn(cls_pred, box_pred, cls_t, box_t)
        mx.autograd.backward(s)
        trainer.step(1)
        return [cls_t, box_t, s[0]]

    out = ctx.timed(step, warmup=False)
    ctx.keep(cls_target=out[0], box_target=out[1], loss=out[2])


@case("gluoncv.yolo3.train_step")
def _(ctx):
    import mxnet as mx
    from gluoncv import model_zoo
    from gluoncv.data.transforms.presets.yolo import YOLO3DefaultTrainTransform
    mx.random.seed(0)
    net = model_zoo.get_model("yolo3_mobilenet1.0_voc", pretrained=False,
                              pretrained_base=False)
    net.initialize(mx.init.Xavier())
    img = mx.nd.array(_rand(320, 320, 3, scale=127.5) + 127.5)
    bbox = np.array([[20, 30, 120, 140, 3], [100, 80, 250, 200, 7]], dtype="float32")
    with mx.autograd.train_mode():
        net(mx.nd.zeros((1, 3, 320, 320)))
    ctx.share(net)
    t = YOLO3DefaultTrainTransform(320, 320, net)
    np.random.seed(0)
    sample = t(img, bbox)
    data = sample[0].expand_dims(0)
    fixed = [s.expand_dims(0) for s in sample[1:6]]
    gt = sample[6].expand_dims(0)
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.001})

    def step():
        with mx.autograd.record():
            losses = net(data, gt, *fixed)
            total = sum(losses)
        total.backward()
        trainer.step(1)
        return losses

    out = ctx.timed(step, warmup=False)
    ctx.keep(losses=out)


@case("gluoncv.resnet18_v1.gradients")
def _(ctx):
    import mxnet as mx
    from gluoncv import model_zoo
    mx.random.seed(0)
    net = model_zoo.get_model("resnet18_v1", pretrained=False, classes=10)
    net.initialize(mx.init.Xavier())
    x = mx.nd.array(_rand(4, 3, 64, 64))
    y = mx.nd.array([1, 3, 5, 7])
    net(x)
    ctx.share(net)
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()

    def grads():
        with mx.autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        return [loss] + [p.grad() for p in net.collect_params().values()
                         if p.grad_req != "null"]

    out = ctx.timed(grads)
    names = [k for k, p in net.collect_params().items() if p.grad_req != "null"]
    # the parameters' own prefixes differ between runs: key by position
    ctx.keep(loss=out[0], **{f"g{i:02d}_{k.split('_', 1)[1]}": g
                            for i, (k, g) in enumerate(zip(names, out[1:]))})


def _no_dropout(block):
    """Dropout masks come from each framework's own generator: switch them off to compare."""
    import mxnet as mx
    if isinstance(block, mx.gluon.nn.Dropout):
        block._rate = 0.0
    for child in block._children.values():
        _no_dropout(child)


@case("gluoncv.mobilenetv3_small.train_step")
def _(ctx):
    import mxnet as mx
    from gluoncv import model_zoo
    mx.random.seed(0)
    net = model_zoo.get_model("mobilenetv3_small", pretrained=False, classes=10)
    _no_dropout(net)
    net.initialize(mx.init.Xavier())
    x = mx.nd.array(_rand(4, 3, 96, 96))
    y = mx.nd.array([0, 2, 4, 6])
    net(x)
    ctx.share(net)
    trainer = mx.gluon.Trainer(net.collect_params(), "nag", {"learning_rate": 0.05,
                                                             "momentum": 0.9, "wd": 1e-4})
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()

    def step():
        with mx.autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(4)
        return loss

    losses = [step()]
    losses.append(ctx.timed(step, warmup=False))
    ctx.keep(loss=losses)


# --------------------------------------------------------------------------------- GluonNLP

def _small_bert():
    import gluonnlp as nlp
    encoder = nlp.model.bert.BERTEncoder(num_layers=2, units=64, hidden_size=128,
                                         max_length=32, num_heads=4, dropout=0.0)
    return nlp.model.bert.BERTModel(encoder, vocab_size=100, token_type_vocab_size=2,
                                    units=64, embed_size=64, use_pooler=True,
                                    use_decoder=True, use_classifier=True)


@case("gluonnlp.bert.forward")
def _(ctx):
    import mxnet as mx
    mx.random.seed(0)
    net = _small_bert()
    net.initialize(mx.init.Normal(0.02))
    rs = np.random.RandomState(0)
    tokens = mx.nd.array(rs.randint(0, 100, (2, 16)))
    types = mx.nd.array(rs.randint(0, 2, (2, 16)))
    valid = mx.nd.array([16, 11])
    masked = mx.nd.array([[1, 4, 6], [2, 3, 9]])
    net(tokens, types, valid, masked)
    ctx.share(net)
    out = ctx.timed(net, tokens, types, valid, masked)
    ctx.keep(seq=out[0], pooled=out[1], nsp=out[2], mlm=out[3])


@case("gluonnlp.bert.hybridized")
def _(ctx):
    import mxnet as mx
    mx.random.seed(0)
    net = _small_bert()
    net.initialize(mx.init.Normal(0.02))
    rs = np.random.RandomState(1)
    tokens = mx.nd.array(rs.randint(0, 100, (2, 16)))
    types = mx.nd.zeros((2, 16))
    valid = mx.nd.array([16, 9])
    masked = mx.nd.array([[0, 5, 7], [1, 2, 8]])
    net(tokens, types, valid, masked)
    ctx.share(net)
    net.hybridize()
    out = ctx.timed(net, tokens, types, valid, masked)
    ctx.keep(seq=out[0], pooled=out[1])


@case("gluonnlp.lstm_lm.forward")
def _(ctx):
    import mxnet as mx
    import gluonnlp as nlp
    mx.random.seed(0)
    net = nlp.model.StandardRNN("lstm", vocab_size=200, embed_size=32, hidden_size=64,
                                num_layers=2, dropout=0.0, tie_weights=False)
    net.initialize(mx.init.Xavier())
    x = mx.nd.array(np.random.RandomState(0).randint(0, 200, (12, 4)))
    state = net.begin_state(batch_size=4, func=mx.nd.zeros)
    net(x, state)
    ctx.share(net)
    out, _ = ctx.timed(net, x, state)
    ctx.keep(logits=out)


@case("gluonnlp.lstm_lm.train_step")
def _(ctx):
    import mxnet as mx
    import gluonnlp as nlp
    mx.random.seed(0)
    net = nlp.model.AWDRNN("lstm", vocab_size=200, embed_size=32, hidden_size=64,
                           num_layers=2, dropout=0, drop_h=0, drop_i=0, drop_e=0,
                           weight_drop=0, tie_weights=True)
    net.initialize(mx.init.Xavier())
    rs = np.random.RandomState(0)
    x = mx.nd.array(rs.randint(0, 200, (12, 4)))
    y = mx.nd.array(rs.randint(0, 200, (12, 4)))
    state = net.begin_state(batch_size=4, func=mx.nd.zeros)
    net(x, state)
    ctx.share(net)
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 1.0})
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()

    def step():
        with mx.autograd.record():
            out, _ = net(x, state)
            loss = loss_fn(out, y).mean()
        loss.backward()
        trainer.allreduce_grads()
        grads = [p.grad() for p in net.collect_params().values() if p.grad_req != "null"]
        nlp.utils.clip_grad_global_norm(net.collect_params().values(), 0.25)
        trainer.update(1)
        return [loss] + grads[:1]

    out = ctx.timed(step, warmup=False)
    ctx.keep(loss=out[0])


@case("gluonnlp.csr_embedding.train_step")
def _(ctx):
    # GluonNLP's word-embedding trainer (scripts/word_embeddings) in small: a hybridized
    # CSREmbeddingModel over 200 000 tokens, each batch row a csr bag of word and subword
    # ids, the weight's row_sparse gradient stepped by GroupAdaGrad (the script's optimizer)
    import mxnet as mx
    import gluonnlp as nlp
    mx.random.seed(0)
    vocab, dim, batch = 200000, 64, 512
    net = nlp.model.train.CSREmbeddingModel({f"t{i}": i for i in range(vocab)}, dim)
    net.initialize(mx.init.Uniform(0.1))
    rs = np.random.RandomState(0)
    cols = np.sort(rs.randint(0, vocab, (batch, 6)), axis=1)
    words = mx.nd.sparse.csr_matrix(
        (np.full(cols.size, 1 / 6, np.float32), cols.ravel(), np.arange(0, cols.size + 1, 6)),
        shape=(batch, vocab))
    target = mx.nd.array(_rand(batch, dim))
    net(words)
    ctx.share(net)
    net.hybridize(static_alloc=True, static_shape=True)
    trainer = mx.gluon.Trainer(net.collect_params(), "groupadagrad", {"learning_rate": 0.1})

    def steps():
        for _ in range(3):
            with mx.autograd.record():
                loss = ((net(words) - target) ** 2).sum()
            loss.backward()
            trainer.step(batch)
        return [loss, net.weight.data()]

    out = ctx.timed(steps, warmup=False)
    ctx.keep(loss=out[0], rows=out[1].asnumpy()[np.unique(cols)[:500]])


def _small_nmt():
    import mxnet as mx
    import gluonnlp as nlp
    from gluonnlp.model.transformer import get_transformer_encoder_decoder
    from gluonnlp.model.translation import NMTModel
    vocab = nlp.Vocab(nlp.data.count_tokens([f"w{i}" for i in range(40)]))
    enc, dec, one_step = get_transformer_encoder_decoder(
        num_layers=2, num_heads=4, units=32, hidden_size=64, dropout=0.0,
        max_src_length=20, max_tgt_length=20)
    model = NMTModel(vocab, vocab, enc, dec, one_step, embed_size=32, share_embed=True,
                     tie_weights=True, embed_initializer=None, prefix="transformer_")
    model.initialize(mx.init.Xavier(magnitude=3.0))
    return model, vocab


@case("gluonnlp.transformer_nmt.train_step")
def _(ctx):
    import mxnet as mx
    import gluonnlp as nlp
    mx.random.seed(0)
    model, vocab = _small_nmt()
    rs = np.random.RandomState(0)
    src = mx.nd.array(rs.randint(4, len(vocab), (3, 10)))
    tgt = mx.nd.array(rs.randint(4, len(vocab), (3, 9)))
    src_len, tgt_len = mx.nd.array([10, 7, 5]), mx.nd.array([9, 6, 8])
    model(src, tgt[:, :-1], src_len, tgt_len - 1)
    ctx.share(model)
    loss_fn = nlp.loss.MaskedSoftmaxCELoss()
    trainer = mx.gluon.Trainer(model.collect_params(), "adam", {"learning_rate": 0.001})

    def step():
        with mx.autograd.record():
            out, _ = model(src, tgt[:, :-1], src_len, tgt_len - 1)
            loss = loss_fn(out, tgt[:, 1:], tgt_len - 1).mean()
        loss.backward()
        trainer.step(1)
        return [loss, out]

    out = ctx.timed(step, warmup=False)
    ctx.keep(loss=out[0], logits=out[1])


@case("gluonnlp.transformer_nmt.beam_search")
def _(ctx):
    import mxnet as mx
    import gluonnlp as nlp
    mx.random.seed(0)
    model, vocab = _small_nmt()
    rs = np.random.RandomState(2)
    src = mx.nd.array(rs.randint(4, len(vocab), (2, 8)))
    src_len = mx.nd.array([8, 6])
    model(src, src[:, :5], src_len, mx.nd.array([5, 5]))
    ctx.share(model)
    # what GluonNLP's machine-translation script's BeamSearchTranslator does
    def log_probs(step_input, states):
        out, states, _ = model.decode_step(step_input, states)
        return mx.nd.log_softmax(out), states

    sampler = nlp.model.BeamSearchSampler(
        beam_size=3, decoder=log_probs, eos_id=vocab[vocab.eos_token],
        scorer=nlp.model.BeamSearchScorer(alpha=0.6, K=5), max_length=12)

    def run():
        enc_out, _ = model.encode(src, valid_length=src_len)
        states = model.decoder.init_state_from_encoder(enc_out, src_len)
        bos = mx.nd.full((2,), vocab[vocab.bos_token])
        return sampler(bos, states)

    samples, scores, lens = ctx.timed(run)
    ctx.keep(samples=samples, scores=scores, lengths=lens)


# --------------------------------------------------------------------------------- GluonTS

def _ts_data():
    import pandas as pd
    from gluonts.dataset.common import ListDataset
    rs = np.random.RandomState(0)
    series = [{"start": pd.Period("2021-01-01 00:00", freq="H"),
               "target": (np.sin(np.arange(120) / 6.0 + k) * 10 + 20
                          + rs.normal(size=120)).astype("float32")} for k in range(8)]
    return ListDataset(series, freq="H")


def _ts_estimator(kind):
    from gluonts.mx.trainer import Trainer
    trainer = Trainer(epochs=2, num_batches_per_epoch=5, learning_rate=1e-3,
                      hybridize=kind == "sff")
    if kind in ("deepar", "deepar_nb"):
        from gluonts.mx.distribution import NegativeBinomialOutput, StudentTOutput
        from gluonts.mx.model.deepar import DeepAREstimator
        # the negative binomial's forecasts draw a gamma rate, then a Poisson count from it
        distr = NegativeBinomialOutput() if kind == "deepar_nb" else StudentTOutput()
        return DeepAREstimator(freq="H", prediction_length=12, context_length=24,
                               num_layers=1, num_cells=16, batch_size=8, trainer=trainer,
                               distr_output=distr)
    from gluonts.mx.model.simple_feedforward import SimpleFeedForwardEstimator
    return SimpleFeedForwardEstimator(prediction_length=12, context_length=24,
                                      num_hidden_dimensions=[16, 16], batch_size=8,
                                      trainer=trainer)


def _ts_train_predict(ctx, kind, predict):
    import mxnet as mx
    mx.random.seed(0)
    np.random.seed(0)
    data = _ts_data()
    est = _ts_estimator(kind)
    if not predict:
        pred = ctx.timed(est.train, data, warmup=False)
        ctx.keep(done=np.ones(1))
        return
    pred = est.train(data)
    np.random.seed(1)
    mx.random.seed(1)
    forecasts = ctx.timed(lambda: list(pred.predict(data, num_samples=20)), warmup=False)
    # both frameworks draw MXNet's random numbers from the same seeds: the initialization,
    # the training run and the sampled forecasts can be compared, not only their shapes
    params = [p.data() for p in pred.prediction_net.collect_params().values()]
    ctx.keep(shape=np.array([f.samples.shape for f in forecasts]),
             trained_params=params, samples=np.stack([f.samples for f in forecasts]))


@case("gluonts.deepar.train")
def _(ctx):
    _ts_train_predict(ctx, "deepar", False)


@case("gluonts.deepar.predict")
def _(ctx):
    _ts_train_predict(ctx, "deepar", True)


@case("gluonts.deepar_nb.predict")
def _(ctx):
    _ts_train_predict(ctx, "deepar_nb", True)


@case("gluonts.simple_feedforward.train")
def _(ctx):
    _ts_train_predict(ctx, "sff", False)


@case("gluonts.simple_feedforward.predict")
def _(ctx):
    _ts_train_predict(ctx, "sff", True)


@case("gluonts.deepar.loss_on_shared_params")
def _(ctx):
    import mxnet as mx
    from gluonts.itertools import Cached
    mx.random.seed(0)
    np.random.seed(0)
    data = _ts_data()
    est = _ts_estimator("deepar")
    transformation = est.create_transformation()
    net = est.create_training_network()
    net.initialize(mx.init.Xavier())
    loader = est.create_training_data_loader(
        Cached(transformation.apply(data, is_train=True)), num_batches_per_epoch=1)
    batch = next(iter(loader))
    inputs = [batch[k] for k in _ts_input_names(net)]
    # the batch comes from numpy's sampler: MXNet's run saves it, gluonlite's loads it
    path = ctx.params_path(".batch")[:-len(".params")] + ".npz"
    if ctx.mode == "ref":
        np.savez(path, *[i.asnumpy() for i in inputs])
    saved = np.load(path)
    inputs = [mx.nd.array(saved[f"arr_{i}"], dtype=saved[f"arr_{i}"].dtype)
              for i in range(len(inputs))]
    net(*inputs)
    ctx.share(net)
    out = ctx.timed(net, *inputs)
    ctx.keep(loss=out[0] if isinstance(out, (list, tuple)) else out)


def _ts_input_names(net):
    import inspect
    sig = inspect.signature(net.hybrid_forward)
    return [p for p in list(sig.parameters)[1:]]


# ---------------------------------------------------------------------------------- Sockeye

def _sockeye_files(work):
    rs = np.random.RandomState(0)
    d = os.path.join(work, "sockeye")
    os.makedirs(d, exist_ok=True)
    words = [f"w{i}" for i in range(30)]
    for split, n in (("train", 200), ("dev", 20)):
        with open(os.path.join(d, f"{split}.src"), "w") as s, \
                open(os.path.join(d, f"{split}.trg"), "w") as t:
            for _ in range(n):
                sent = [words[i] for i in rs.randint(0, 30, rs.randint(3, 9))]
                s.write(" ".join(sent) + "\n")
                t.write(" ".join(reversed(sent)) + "\n")
    return d


def _sockeye(args):
    import runpy
    argv = sys.argv
    sys.argv = args
    try:
        runpy.run_module(args[0], run_name="__main__")
    except SystemExit as e:
        if e.code:
            raise RuntimeError(f"{args[0]} exited with {e.code}")
    finally:
        sys.argv = argv


@case("sockeye.train")
def _(ctx):
    d = _sockeye_files(ctx.work)
    out = os.path.join(d, f"model-{ctx.mode}")
    args = ["sockeye.train", "-s", f"{d}/train.src", "-t", f"{d}/train.trg",
            "-vs", f"{d}/dev.src", "-vt", f"{d}/dev.trg", "-o", out, "--overwrite-output",
            "--encoder", "transformer", "--decoder", "transformer", "--num-layers", "1:1",
            "--transformer-model-size", "32", "--transformer-feed-forward-num-hidden", "64",
            "--transformer-attention-heads", "4", "--num-embed", "32:32",
            "--batch-size", "64", "--batch-type", "sentence", "--max-updates", "20",
            "--checkpoint-interval", "10", "--use-cpu", "--seed", "1", "--quiet",
            "--max-seq-len", "12", "--decode-and-evaluate", "0",
            "--initial-learning-rate", "0.001", "--no-bucketing"]
    ctx.timed(_sockeye, args, warmup=False)
    ctx.keep(done=np.ones(1))


@case("sockeye.translate")
def _(ctx):
    d = _sockeye_files(ctx.work)
    # MXNet's trained model where the reference run left one: both sides then decode the
    # same model (each side's own model decodes to other lengths, which times other work)
    model = os.path.join(d, "model-ref")
    if ctx.mode == "ref" or not os.path.exists(os.path.join(model, "params.best")):
        model = os.path.join(d, f"model-{ctx.mode}")
    if not os.path.exists(os.path.join(model, "params.best")):
        raise RuntimeError("no trained model: sockeye.train failed")
    out = os.path.join(d, f"out-{ctx.mode}.txt")
    args = ["sockeye.translate", "-m", model, "-i", f"{d}/dev.src", "-o", out,
            "--use-cpu", "--beam-size", "3", "--quiet", "--batch-size", "4"]
    ctx.timed(_sockeye, args, warmup=False)
    with open(out) as f:
        lines = f.read().splitlines()
    if len(lines) != 20:
        raise RuntimeError(f"translate wrote {len(lines)} lines for 20 inputs")
    ctx.keep(lines=np.array([len(x.split()) for x in lines]))


# -------------------------------------------------------------------------------------- d2l

@case("d2l.linreg_train")
def _(ctx):
    from d2l import mxnet as d2l
    from mxnet import np as mnp, npx, autograd, gluon, init
    npx.set_np()
    true_w, true_b = mnp.array([2, -3.4]), 4.2
    features, labels = d2l.synthetic_data(true_w, true_b, 200)
    net = gluon.nn.Dense(1)
    net.initialize(init.Normal(sigma=0.01))
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.03})
    loss = gluon.loss.L2Loss()

    def train():
        for _ in range(3):
            with autograd.record():
                lv = loss(net(features), labels)
            lv.backward()
            trainer.step(200)
        return lv

    ctx.timed(train, warmup=False)
    ctx.keep(done=np.ones(1))


@case("d2l.softmax_mlp_step")
def _(ctx):
    from d2l import mxnet as d2l  # noqa: F401
    from mxnet import np as mnp, npx, autograd, gluon, init
    npx.set_np()
    net = gluon.nn.Sequential()
    net.add(gluon.nn.Dense(32, activation="relu"), gluon.nn.Dense(10))
    net.initialize(init.Normal(sigma=0.01))
    x = mnp.array(_rand(16, 20))
    y = mnp.array(np.arange(16) % 10)
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    loss = gluon.loss.SoftmaxCrossEntropyLoss()

    def step():
        with autograd.record():
            lv = loss(net(x), y)
        lv.backward()
        trainer.step(16)
        return lv

    ctx.timed(step, warmup=False)
    ctx.keep(done=np.ones(1))


@case("d2l.lenet_forward")
def _(ctx):
    from d2l import mxnet as d2l  # noqa: F401
    from mxnet import np as mnp, npx, gluon
    npx.set_np()
    net = gluon.nn.Sequential()
    net.add(gluon.nn.Conv2D(6, kernel_size=5, padding=2, activation="sigmoid"),
            gluon.nn.AvgPool2D(pool_size=2, strides=2),
            gluon.nn.Conv2D(16, kernel_size=5, activation="sigmoid"),
            gluon.nn.AvgPool2D(pool_size=2, strides=2),
            gluon.nn.Dense(120, activation="sigmoid"), gluon.nn.Dense(10))
    net.initialize()
    x = mnp.array(_rand(2, 1, 28, 28))
    ctx.timed(net, x)
    ctx.keep(done=np.ones(1))


# ----------------------------------------------------------------------------------- driver

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mode", choices=("ref", "cmp", "time"), required=False,
                    help="ref: save parameters and outputs (MXNet); cmp: load MXNet's "
                         "parameters, save outputs; time: load them, save nothing")
    ap.add_argument("--work")
    ap.add_argument("--only", nargs="*", default=[])
    ap.add_argument("--repeat", type=int, default=5,
                    help="time mode: calls timed per repeatable case, the median kept")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    if args.repeat < 1:
        ap.error(f"--repeat must be at least 1, got {args.repeat}")
    if args.list:
        print("\n".join(CASES))
        return 0
    import mxnet
    provider = "gluonlite" if hasattr(mxnet, "__getattr__") or "gluonlite" in \
        getattr(mxnet, "__doc__", "") else "mxnet"
    outdir = os.path.join(args.work, args.mode)
    if args.mode != "time":
        os.makedirs(outdir, exist_ok=True)
    for name, fn in CASES.items():
        if args.only and not any(name.startswith(p) for p in args.only):
            continue
        ctx = Ctx(args.work, args.mode, name, repeat=args.repeat)
        row = {"case": name, "provider": provider}
        try:
            fn(ctx)
            if args.mode != "time":
                np.savez(os.path.join(outdir, name + ".npz"), **ctx.outputs)
            row.update(status="ok", seconds=ctx.seconds, cpu_seconds=ctx.cpu_seconds,
                       calls=ctx.calls)
        except Exception as e:  # one line per case: the reason, the rest to stderr
            lines = traceback.format_exception_only(type(e), e)
            row.update(status="fail", error=lines[-1].strip()[:300])
            traceback.print_exc(file=sys.stderr)
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
