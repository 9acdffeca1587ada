"""The cost of a hybridized graph's first call at a new input shape: a decoder run one step
longer at each call, as beam search runs it, builds one compiled plan per step.

    PYTHONPATH=. python benchmarks/plan_build.py [--steps 30] [--models 5] [--layers 2]
        [--units 64]

The model: a token embedding, `--layers` of benchmarks/models.py's BERT layers
(`_bench_models.encoder`: self-attention through batch_dot and softmax, LayerNorm, a GELU
feed-forward; `--units` wide, 4 heads) and a log_softmax over 100 words, hybridized with
static_alloc, at batch 4. For each of `--models` fresh copies, every step length
2..`--steps` + 1 is called twice: the first call builds that length's plan, the second runs
it. The table gives, per model, the medians over the steps (ms of CPU time, one thread) of
the first call, the second and their difference (the plan's build), and the first /
second; the last row their medians over the models.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _timing import median  # noqa: E402  (first: one BLAS thread)
from _tables import markdown_table  # noqa: E402
from _bench_models import encoder  # noqa: E402

import gluonlite as mx  # noqa: E402
from gluonlite.gluon import HybridBlock, nn  # noqa: E402


class _Decoder(HybridBlock):
    """Token embedding, `_bench_models.encoder`'s transformer layers, a log_softmax over the
    vocabulary."""

    def __init__(self, layers, units, vocab=100, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.emb = nn.Embedding(vocab, units)
            self.layers = encoder(mx, layers, units, 4, 4 * units, prefix="layers_")
            self.out = nn.Dense(vocab, flatten=False, in_units=units)

    def hybrid_forward(self, F, tokens):
        return F.log_softmax(self.out(self.layers(self.emb(tokens))), axis=-1)


def _model_row(a, k):
    net = _Decoder(a.layers, a.units)
    net.initialize()
    net.hybridize(static_alloc=True)
    net(mx.nd.ones((4, 1))).wait_to_read()   # deferred initialization, the first plan
    first, again = [], []
    for t in range(2, a.steps + 2):
        x = mx.nd.ones((4, t))
        for times in (first, again):
            s = time.process_time()
            net(x).wait_to_read()
            times.append(1e3 * (time.process_time() - s))
    f, g = median(first), median(again)
    return [f"model {k + 1}", f"{f:.2f}", f"{g:.2f}", f"{f - g:.2f}", f"{f / g:.2f}"]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--models", type=int, default=5)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--units", type=int, default=64)
    a = ap.parse_args(argv)
    for name in ("steps", "models", "layers"):
        if getattr(a, name) < 1:
            ap.error(f"--{name} must be at least 1, got {getattr(a, name)}")
    if a.units < 4 or a.units % 4:
        ap.error(f"--units must be a positive multiple of 4 (the heads), got {a.units}")
    rows = [_model_row(a, k) for k in range(a.models)]
    cols = list(zip(*[[float(c) for c in r[1:]] for r in rows]))
    rows.append(["median"] + [f"{median(c):.2f}" for c in cols])
    print(markdown_table(["", "new shape (ms)", "same shape again (ms)", "plan build (ms)",
                          "new / again"], rows))


if __name__ == "__main__":
    main()
