"""softmax and log_softmax in oneDNN's arithmetic (`gluonlite/ops/onednn_softmax.py`: MXNet
1.9.1's numbers bit for bit) against numpy's exp and division (and log), the rule before, on
the shapes models meet.

    PYTHONPATH=. python benchmarks/onednn_softmax.py [--rounds 9] [--scale 1]

Three variants, interleaved in every round: numpy's exp and division (``numpy``); oneDNN's
arithmetic at every size (``exact``); and as shipped, oneDNN's arithmetic up to
`onednn_softmax.EXACT_ENTRIES` entries a call and numpy's above (``default``).

- Operator rows: `nd.softmax` over the last axis, forward alone and forward with the
  gradient (autograd), on a batch of logits and on BERT-base's attention scores at batch
  1 and 32 (12 heads, sequence 128); `nd.log_softmax` on the batch of logits.
- A model row: BERT-base's encoder (`_bench_models.py`'s ``bert_base``) hybridized, one
  inference call at batch 1, to show the share a model pays.

One process, one BLAS thread (`_timing`); medians of CPU time (ms a call) and each
variant's ratio to numpy's with its range over the rounds. `--scale` shrinks the batches
and the model (the tests run it tiny).
"""
import argparse
import contextlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _timing import interleaved_variants, median  # noqa: E402  (first: one BLAS thread)

import numpy as np  # noqa: E402

import gluonlite as mx  # noqa: E402
from gluonlite.ops import onednn_softmax  # noqa: E402

# (label, shape)
CASES = [("a batch of logits", (32, 1000)),
         ("BERT-base attention, batch 1", (12, 128, 128)),
         ("BERT-base attention, batch 32", (384, 128, 128))]


VARIANTS = {"numpy": (False, None), "exact": (True, None),
            "default": (True, onednn_softmax.EXACT_ENTRIES)}


@contextlib.contextmanager
def variant(name):
    """Put variant `name` of VARIANTS in place: (ENABLED, EXACT_ENTRIES)."""
    saved = onednn_softmax.ENABLED, onednn_softmax.EXACT_ENTRIES
    onednn_softmax.ENABLED, onednn_softmax.EXACT_ENTRIES = VARIANTS[name]
    try:
        yield
    finally:
        onednn_softmax.ENABLED, onednn_softmax.EXACT_ENTRIES = saved


def _time(call, rounds):
    return interleaved_variants(call, variant, VARIANTS, rounds)


def _cells(res):
    """numpy's median, then each other variant's median, ratio to numpy's and range."""
    cells = [f"{median(res['numpy']):.2f}"]
    for name in ("exact", "default"):
        ratios = [a / b for a, b in zip(res[name], res["numpy"])]
        cells += [f"{median(res[name]):.2f}", f"{median(res[name]) / median(res['numpy']):.2f}",
                  f"{min(ratios):.2f}-{max(ratios):.2f}"]
    return cells


def _shape(shape, scale):
    return (max(1, round(shape[0] * scale)),) + shape[1:]


def _softmax_call(x, head, grad, op="softmax"):
    f = getattr(mx.nd, op)

    def call():
        if not grad:
            f(x).wait_to_read()
            return
        with mx.autograd.record():
            y = f(x)
        y.backward(head)
        x.grad.wait_to_read()
    return call


def _bert_call(scale):
    import _bench_models as bm
    saved = bm.LAYERS
    bm.LAYERS = max(1, round(bm.LAYERS * min(scale, 1.0)))
    try:
        mx.random.seed(0)
        net, _ = bm.build(mx, "bert_base", 1)
    finally:
        bm.LAYERS = saved
    net.hybridize(static_alloc=True, static_shape=True)
    (shape, _), = bm.input_specs("bert_base", 1)[0]
    inputs = [mx.nd.array(np.random.default_rng(1).standard_normal(shape).astype(np.float32))]

    def call():
        net(*inputs).wait_to_read()
    call()
    return call


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--scale", type=float, default=1.0)
    a = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    print("| case | numpy (ms) | exact (ms) | / numpy | range | default (ms) | / numpy "
          "| range |")
    print("|---|---:|---:|---:|---|---:|---:|---|")
    for label, shape in CASES:
        shape = _shape(shape, a.scale)
        x = mx.nd.array(rng.standard_normal(shape).astype(np.float32) * 3)
        head = mx.nd.array(rng.standard_normal(shape).astype(np.float32))
        x.attach_grad()
        # log_softmax on the logits alone (a loss, a beam search step); attention is softmax
        for op in ("softmax", "log_softmax") if label == CASES[0][0] else ("softmax",):
            for grad in (False, True):
                res = _time(_softmax_call(x, head, grad, op), a.rounds)
                what = "forward and gradient" if grad else "forward"
                print("| " + " | ".join([f"{op} {what}, {label} {shape}"] + _cells(res))
                      + " |", flush=True)
    res = _time(_bert_call(a.scale), a.rounds)
    print("| " + " | ".join(["BERT-base encoder inference, batch 1, hybridized"]
                            + _cells(res)) + " |")


if __name__ == "__main__":
    main()
