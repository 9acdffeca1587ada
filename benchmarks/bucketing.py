"""Bucketing (one bound Module per sequence length, `mx.mod.BucketingModule`) against one
hybridized Gluon model whose LSTM runs in a `foreach` loop over the padded batch.

    PYTHONPATH=. python benchmarks/bucketing.py [--sentences 640] [--hidden 64]

Same data for both: sentences of 5-40 words (vocabulary 50), batch 32, an LSTM language
model (embed 32, hidden 64). Bucketing pads each batch to its bucket (10/20/30/40) and
binds, then compiles, each bucket once; the foreach model pads every batch to 40 and
compiles once. Reported: the first epoch (with the compiles), a later epoch, and the time
per padded token.
"""
import argparse
import os
import random
import time

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

import gluonlite as mx  # noqa: E402
from gluonlite import autograd, gluon  # noqa: E402

VOCAB, EMBED, BATCH, BUCKETS = 50, 32, 32, [10, 20, 30, 40]


def make_sentences(n, seed=0):
    rng = np.random.RandomState(seed)
    return [list(rng.randint(1, VOCAB, rng.randint(5, 41))) for _ in range(n)]


def bucketing(sentences, hidden, epochs):
    """Seconds per epoch of BucketingModule.fit (SGD)."""
    random.seed(0)
    np.random.seed(0)
    it = mx.rnn.BucketSentenceIter(sentences, BATCH, buckets=BUCKETS, invalid_label=0)
    cell = mx.rnn.LSTMCell(hidden, prefix="lstm_")

    def sym_gen(seq_len):
        embed = mx.sym.Embedding(mx.sym.var("data"), input_dim=VOCAB, output_dim=EMBED,
                                 name="embed")
        cell.reset()
        outs, _ = cell.unroll(seq_len, embed, merge_outputs=True)
        pred = mx.sym.FullyConnected(mx.sym.Reshape(outs, shape=(-1, hidden)),
                                     num_hidden=VOCAB, name="pred")
        label = mx.sym.Reshape(mx.sym.var("softmax_label"), shape=(-1,))
        out = mx.sym.SoftmaxOutput(pred, label, ignore_label=0, use_ignore=True,
                                   name="softmax")
        return out, ("data",), ("softmax_label",)

    mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=it.default_bucket_key)
    times, tokens = [], 0
    for epoch in range(epochs):
        tic = time.perf_counter()
        mod.fit(it, num_epoch=epoch + 1, begin_epoch=epoch,
                eval_metric=mx.metric.Perplexity(0), optimizer_params={"learning_rate": 0.1})
        times.append(time.perf_counter() - tic)
    tokens = sum(len(b) * k for b, k in zip(it.data, it.buckets)) // BATCH * BATCH
    return times, tokens


class ForeachLM(gluon.HybridBlock):
    """Embedding -> LSTMCell stepped by `contrib.foreach` (time major) -> Dense."""

    def __init__(self, hidden, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.embed = gluon.nn.Embedding(VOCAB, EMBED)
            self.cell = gluon.rnn.LSTMCell(hidden, input_size=EMBED)
            self.out = gluon.nn.Dense(VOCAB, flatten=False, in_units=hidden)

    def hybrid_forward(self, F, x, h, c):
        def step(data, states):
            return self.cell(data, states)
        outs, _ = F.contrib.foreach(step, self.embed(x), [h, c])
        return self.out(outs)


def foreach_model(sentences, hidden, epochs):
    """Seconds per epoch of a hybridized foreach model over batches padded to 40."""
    net = ForeachLM(hidden)
    net.initialize(mx.init.Uniform(0.01))
    net.hybridize(static_alloc=True, static_shape=True)
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    n_batches = len(sentences) // BATCH
    data = np.zeros((len(sentences), max(BUCKETS)), np.float32)
    for i, s in enumerate(sentences):
        data[i, :len(s)] = s
    label = np.zeros_like(data)
    label[:, :-1] = data[:, 1:]
    h = mx.nd.zeros((BATCH, hidden))
    times = []
    for _ in range(epochs):
        tic = time.perf_counter()
        for b in range(n_batches):
            x = mx.nd.array(data[b * BATCH:(b + 1) * BATCH].T)
            y = mx.nd.array(label[b * BATCH:(b + 1) * BATCH].T)
            with autograd.record():
                loss = loss_fn(net(x, h, h), y, (y != 0).expand_dims(-1))
            loss.backward()
            trainer.step(BATCH)
        mx.nd.waitall()
        times.append(time.perf_counter() - tic)
    return times, n_batches * BATCH * max(BUCKETS)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sentences", type=int, default=640)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--epochs", type=int, default=3)
    args = ap.parse_args()
    sents = make_sentences(args.sentences)
    rows = [("bucketing (BucketingModule)", *bucketing(sents, args.hidden, args.epochs)),
            ("foreach (hybridized Gluon)", *foreach_model(sents, args.hidden, args.epochs))]
    print(f"{len(sents)} sentences, batch {BATCH}, hidden {args.hidden}, buckets {BUCKETS}")
    print("| model | epoch 1 s (compiles) | later epoch s | padded tokens | µs/padded token |")
    print("|---|---:|---:|---:|---:|")
    for name, times, tokens in rows:
        later = min(times[1:]) if len(times) > 1 else times[0]
        print(f"| {name} | {times[0]:.2f} | {later:.2f} | {tokens} | "
              f"{later / tokens * 1e6:.1f} |")


if __name__ == "__main__":
    main()
