"""gluonlite's rows of the GPU seed matrix (issue 44), before and after fusion and capture.

    PYTHONPATH=. python benchmarks/gpu/seed_rows.py --out rows.jsonl [--ctx gpu]
        [--cells LSTM,GRU,RNN] [--batches 1,32] [--modes infer,train] [--seq-len 100]
        [--hidden 512] [--layers foreach,while_loop,rnn] [--rounds 10] [--warmup 3]
        [--deadline EPOCH_SECONDS]

Per cell, batch and mode, each layer (``foreach``: `ForeachRNN`, ``while_loop``: `WhileRNN`
over the cell, as the seed writes them; ``rnn``: ``gluon.rnn.LSTM``/``GRU``/``RNN``, the
fused ``RNN`` operator) is hybridized with ``static_alloc=True, static_shape=True`` and timed
in four variants, interleaved round by round:

- ``plain``: device kernels off, capture off (what ran before issue 44);
- ``fused``: device kernels on (fused gate kernels, fused elementwise loop bodies);
- ``graphs``: CUDA graph capture on, device kernels off;
- ``fused+graphs``: both (the default).

A call is one forward (inference) or a forward under ``autograd.record()`` and the backward of
the outputs' sum (training), then a device sync. Every variant's outputs (and gradients) are
first checked against ``plain`` (the largest relative difference is in each row). On a
context without a GPU only ``plain`` runs; the other variants are rows skipped with the
reason. One JSON object per row, appended to --out.
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np  # noqa: E402

from _timing import interleaved, median  # noqa: E402
import gluonlite as mx  # noqa: E402
from gluonlite import autograd, gluon, nd  # noqa: E402
from gluonlite.bench.models import ForeachRNN, WhileRNN, zero_states  # noqa: E402
from gluonlite.context import gpu_missing, synchronize  # noqa: E402
from gluonlite.executor.graphs import cuda_graphs  # noqa: E402
from gluonlite.ops.fast import device_kernels  # noqa: E402

VARIANTS = {"plain": (False, False), "fused": (True, False), "graphs": (False, True),
            "fused+graphs": (True, True)}
CELLS = {"LSTM": (gluon.rnn.LSTMCell, gluon.rnn.LSTM), "GRU": (gluon.rnn.GRUCell, gluon.rnn.GRU),
         "RNN": (gluon.rnn.RNNCell, gluon.rnn.RNN)}


def _csv(kind):
    return lambda s: [kind(v) for v in s.split(",") if v]


def parse(argv):
    """The command line (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--ctx", default="gpu", choices=["gpu", "cpu"])
    ap.add_argument("--cells", type=_csv(str), default=["LSTM", "GRU", "RNN"])
    ap.add_argument("--batches", type=_csv(int), default=[1, 32])
    ap.add_argument("--modes", type=_csv(str), default=["infer", "train"])
    ap.add_argument("--layers", type=_csv(str), default=["foreach", "while_loop", "rnn"])
    ap.add_argument("--seq-len", type=int, default=100)
    ap.add_argument("--hidden", type=int, default=512, help="input size too")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--deadline", type=float, default=None,
                    help="epoch seconds after which the remaining cases are skipped")
    a = ap.parse_args(argv)
    for name, got, known in (("--cells", a.cells, CELLS), ("--layers", a.layers,
                                                          ("foreach", "while_loop", "rnn")),
                             ("--modes", a.modes, ("infer", "train"))):
        bad = [g for g in got if g not in known]
        if bad:
            ap.error(f"{name}: unknown {bad}; expected some of {list(known)}")
    return a


def build(layer, cell, T, N, H, ctx):
    """(block, inputs, states) of one layer, hybridized static."""
    cell_cls, layer_cls = CELLS[cell]
    mx.random.seed(0)
    if layer == "rnn":
        kw = {"activation": "tanh"} if cell == "RNN" else {}
        net = layer_cls(H, input_size=H, **kw)
        net.initialize(ctx=ctx)
        states = net.begin_state(N, ctx=ctx)
    else:
        net = (ForeachRNN if layer == "foreach" else WhileRNN)(cell_cls(H, input_size=H), T)
        net.initialize(ctx=ctx)
        states = zero_states(net, N, H, ctx)
    net.hybridize(static_alloc=True, static_shape=True)
    x = nd.array(np.random.default_rng(1).normal(size=(T, N, H)).astype(np.float32), ctx=ctx)
    return net, x, states


def _call(net, x, states, train):
    if train:
        with autograd.record():
            y = net(x, states)
            y = y[0] if isinstance(y, (list, tuple)) else y
        y.backward()
    else:
        y = net(x, states)
        y = y[0] if isinstance(y, (list, tuple)) else y
    return y


def measure(a, cell, N, mode, layer, ctx, variants):
    """Rows of one case: every variant timed, interleaved, checked against the first."""
    train = mode == "train"
    runs, results = {}, {}
    for name in variants:
        fused, graphs = VARIANTS[name]
        net, x, states = build(layer, cell, a.seq_len, N, a.hidden, ctx)

        def run(net=net, x=x, states=states, fused=fused, graphs=graphs):
            with device_kernels(fused), cuda_graphs(graphs):
                y = _call(net, x, states, train)
            synchronize(ctx)
            return y
        for _ in range(2):  # compiled, captured: then the outputs are a replay's
            y = run()
        grads = [p.grad().asnumpy() for p in net.collect_params().values()] if train else []
        results[name] = [y.asnumpy()] + grads
        runs[name] = run
    base = results[variants[0]]
    errs = {n: max(float(np.max(np.abs(g - w)) / (np.max(np.abs(w)) + 1e-30))
                   for g, w in zip(r, base)) for n, r in results.items()}
    times = interleaved(runs, a.rounds, a.warmup)
    return [{"impl": "gluonlite", "layer": layer, "variant": n, "cell": cell, "batch": N,
             "mode": mode, "seq_len": a.seq_len, "hidden": a.hidden, "ctx": str(ctx),
             "median": median(ts), "q1": float(np.percentile(ts, 25)),
             "q3": float(np.percentile(ts, 75)), "times": ts, "max_rel_err": errs[n]}
            for n, ts in times.items()]


def main(argv=None):
    """Append the rows to --out; returns the exit status."""
    a = parse(argv)
    if a.ctx == "gpu" and gpu_missing() is not None:
        ctx, skip_reason = mx.cpu(), None
        print(f"seed_rows: no GPU ({gpu_missing()}): the rows run on cpu(0), plain only",
              file=sys.stderr)
    else:
        ctx = mx.gpu(0) if a.ctx == "gpu" else mx.cpu(0)
    on_device = ctx.device_type == "gpu"
    variants = list(VARIANTS) if on_device else ["plain"]
    skip_reason = None if on_device else "fusion and capture need a GPU (CuPy): not run"
    with open(a.out, "a", encoding="utf-8") as out:
        for cell in a.cells:
            for N in a.batches:
                for mode in a.modes:
                    for layer in a.layers:
                        key = {"impl": "gluonlite", "layer": layer, "cell": cell, "batch": N,
                               "mode": mode, "seq_len": a.seq_len, "hidden": a.hidden,
                               "ctx": str(ctx)}
                        if a.deadline is not None and time.time() > a.deadline:
                            rows = [dict(key, variant=v, skipped="out of time")
                                    for v in VARIANTS]
                        else:
                            rows = measure(a, cell, N, mode, layer, ctx, variants)
                            rows += [dict(key, variant=v, skipped=skip_reason)
                                     for v in VARIANTS if v not in variants]
                        for r in rows:
                            out.write(json.dumps(r) + "\n")
                        out.flush()
                        done = {r["variant"]: r.get("median") for r in rows}
                        print(f"{layer:10s} {cell} batch {N} {mode}: " + ", ".join(
                            f"{v} {'-' if m is None else f'{m:.2f} ms'}"
                            for v, m in done.items()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
