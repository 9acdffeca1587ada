"""A bucketing LSTM language model written for MXNet 1.x's symbolic API: runs unchanged on
gluonlite (default) or on MXNet (``--mxnet``), and prints each epoch's training perplexity.

    python examples/bucketing_lm.py --text corpus.txt --epochs 2

The pipeline: `mx.rnn.encode_sentences` -> `mx.rnn.BucketSentenceIter` -> per bucket a
`SequentialRNNCell` of `LSTMCell`s unrolled to the bucket's length between `Embedding` and
`FullyConnected` + `SoftmaxOutput` -> `mx.mod.BucketingModule.fit` with `Perplexity`,
`Speedometer` and `do_checkpoint`. Initial parameters come from a seeded NumPy generator so
both libraries start from the same numbers.
"""
import argparse
import logging
import random
import sys

import numpy as np


def make_corpus(path, n_sentences=200, vocab_size=30, seed=0):
    """Write a small text of `n_sentences` lines of 3-12 words drawn from a fixed vocabulary
    with a simple successor structure (so the model has something to learn)."""
    rng = np.random.RandomState(seed)
    words = [f"w{i}" for i in range(vocab_size)]
    lines = []
    for _ in range(n_sentences):
        n = rng.randint(3, 13)
        w = rng.randint(vocab_size)
        sent = []
        for _ in range(n):
            sent.append(words[w])
            w = (w + rng.choice([1, 2, 3])) % vocab_size
        lines.append(" ".join(sent))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def initial_params(shapes, seed=1):
    """Name -> NumPy array, uniform in [-0.1, 0.1] in sorted-name order."""
    rng = np.random.RandomState(seed)
    return {n: rng.uniform(-0.1, 0.1, shapes[n]).astype(np.float32) for n in sorted(shapes)}


def run(mx, text, epochs=2, batch_size=8, buckets=(4, 8, 12), num_hidden=16, num_embed=8,
        num_layers=2, lr=0.1, prefix=None, seed=7):
    """Train and return the training perplexity of each epoch."""
    random.seed(seed)
    np.random.seed(seed)
    with open(text) as f:
        lines = [list(filter(None, line.strip().split(" "))) for line in f]
    sentences, vocab = mx.rnn.encode_sentences(lines, invalid_label=0, start_label=1)
    it = mx.rnn.BucketSentenceIter(sentences, batch_size, buckets=list(buckets),
                                   invalid_label=0)
    stack = mx.rnn.SequentialRNNCell()
    for i in range(num_layers):
        stack.add(mx.rnn.LSTMCell(num_hidden=num_hidden, prefix=f"lstm_l{i}_"))
    n_vocab = len(vocab) + 1

    def sym_gen(seq_len):
        data = mx.sym.Variable("data")
        label = mx.sym.Variable("softmax_label")
        embed = mx.sym.Embedding(data=data, input_dim=n_vocab, output_dim=num_embed,
                                 name="embed")
        stack.reset()
        outputs, _ = stack.unroll(seq_len, inputs=embed, merge_outputs=True)
        pred = mx.sym.Reshape(outputs, shape=(-1, num_hidden))
        pred = mx.sym.FullyConnected(data=pred, num_hidden=n_vocab, name="pred")
        label = mx.sym.Reshape(label, shape=(-1,))
        pred = mx.sym.SoftmaxOutput(data=pred, label=label, name="softmax")
        return pred, ("data",), ("softmax_label",)

    net, _, _ = sym_gen(it.default_bucket_key)
    key = it.default_bucket_key
    shapes, _, _ = net.infer_shape(data=(batch_size, key), softmax_label=(batch_size, key))
    shapes = dict(zip(net.list_arguments(), shapes))
    for name in ("data", "softmax_label"):
        shapes.pop(name)
    arg_params = {k: mx.nd.array(v) for k, v in initial_params(shapes).items()}

    mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=it.default_bucket_key,
                                 context=mx.cpu())
    perplexities = []

    def record(param):
        if param.locals.get("end_of_batch"):
            perplexities.append(param.eval_metric.get_global()[1])

    mod.fit(it, eval_metric=mx.metric.Perplexity(0), optimizer="sgd",
            optimizer_params={"learning_rate": lr, "momentum": 0.9, "wd": 1e-5},
            arg_params=arg_params, num_epoch=epochs,
            batch_end_callback=[mx.callback.Speedometer(batch_size, 10), record],
            epoch_end_callback=mx.callback.do_checkpoint(prefix) if prefix else None)
    return perplexities


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--text", help="a text file, one sentence per line (made when absent)")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--checkpoint", help="checkpoint prefix (do_checkpoint)")
    ap.add_argument("--mxnet", action="store_true", help="run on MXNet instead")
    args = ap.parse_args(argv)
    if args.mxnet:
        import mxnet as mx
    else:
        import gluonlite as mx
    text = args.text
    if text is None:
        text = "bucketing_lm_corpus.txt"
        make_corpus(text)
    logging.basicConfig(level=logging.INFO)
    for epoch, ppl in enumerate(run(mx, text, epochs=args.epochs, prefix=args.checkpoint)):
        print(f"epoch {epoch} train perplexity {ppl:.6f}")


if __name__ == "__main__":
    sys.exit(main())
