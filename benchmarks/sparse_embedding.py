"""One embedding training step over a large vocabulary: dense versus row_sparse gradients,
gluonlite beside MXNet 1.9.1.

    PYTHONPATH=. OPENBLAS_NUM_THREADS=1 python benchmarks/sparse_embedding.py
        [--vocab 1000000] [--dim 64] [--batch 100] [--rounds 5] [--warmup 1]
        [--mxnet-python /work/mxvenv/bin/python] [--no-mxnet]

The step: ``nd.Embedding`` of `batch` distinct random indices into a (vocab, dim) float32
weight under ``autograd.record()``, ``backward`` of the sum of squares, then
``nd.sgd_update(w, w.grad, out=w, lr=0.1, wd=1e-4)``:

- dense: ``sparse_grad=False``, a dense gradient buffer: the gradient is vocab x dim and the
  update touches every row;
- row_sparse: ``sparse_grad=True`` with ``w.attach_grad(stype='row_sparse')``: the gradient
  holds the batch's rows only and the update is lazy (those rows only);
- SparseEmbedding + Trainer: ``gluon.contrib.nn.SparseEmbedding`` trained by a
  ``gluon.Trainer`` (SGD, same lr and wd): the whole weight in the kvstore, each forward
  pulling the batch's rows (``row_sparse_data``), the step pushing the row_sparse gradient;
- hybridized Embedding + Trainer: ``gluon.nn.Embedding(sparse_grad=True)`` in a block
  hybridized with ``static_alloc=True``, trained by the same Trainer (lazy SGD).

Per variant: the median time (ms) of a step with the spread (max - min, % of the median);
the bytes the gradient stores; for gluonlite the peak of memory allocated during one step
(tracemalloc, which numpy reports to), for MXNet (whose allocations tracemalloc does not see)
the growth of the process's peak RSS over all its steps (weight and gradient buffer already
allocated; its memory pool keeps what the first step takes). MXNet runs in its own process
(OMP_NUM_THREADS=1, NaiveEngine) right after gluonlite, on the same weight and indices and
the same number of steps; "same weights" checks that both end with the same updated rows.
"""
import argparse
import json
import os
import subprocess
import sys
import time
import tracemalloc

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _memory import fmt_bytes  # noqa: E402
from _tables import markdown_table, print_header  # noqa: E402
from _timing import median  # noqa: E402

import numpy as np  # noqa: E402


def _spread(v):
    m = median(v)
    return 100.0 * (max(v) - min(v)) / m if m else 0.0


def _cell(v):
    return f"{median(v):.2f} ±{_spread(v):.0f}%"


def _indices(vocab, batch):
    return np.sort(np.random.default_rng(0).choice(vocab, batch, replace=False)).astype(
        np.float32)


def _gluonlite_case(sparse, vocab, dim, idx):
    from gluonlite import autograd, nd
    if sparse in ("gluon", "hybrid"):
        return _gluon_case(vocab, dim, idx, sparse == "hybrid")
    w = nd.array(np.random.default_rng(1).uniform(-0.1, 0.1, (vocab, dim)).astype(np.float32))
    w.attach_grad(stype="row_sparse" if sparse else "default")
    x = nd.array(idx)

    def step():
        with autograd.record():
            y = nd.Embedding(x, w, input_dim=vocab, output_dim=dim, sparse_grad=sparse)
            loss = (y * y).sum()
        loss.backward()
        nd.sgd_update(w, w.grad, out=w, lr=0.1, wd=1e-4)
    return w, step


def _gluon_case(vocab, dim, idx, hybrid):
    """gluon.contrib.nn.SparseEmbedding with a Trainer (SGD): the weight lives in the
    Trainer's kvstore, each forward pulls the batch's rows; `hybrid`: nn.Embedding with
    sparse_grad=True, hybridized, with the same Trainer."""
    import gluonlite as mx
    from gluonlite import autograd, gluon, nd
    if hybrid:
        emb = gluon.nn.Embedding(vocab, dim, sparse_grad=True)
    else:
        emb = gluon.contrib.nn.SparseEmbedding(vocab, dim)
    w0 = np.random.default_rng(1).uniform(-0.1, 0.1, (vocab, dim)).astype(np.float32)
    emb.initialize(mx.init.Constant(0))
    emb.weight.set_data(nd.array(w0))
    if hybrid:
        emb.hybridize(static_alloc=True)
    trainer = gluon.Trainer(emb.collect_params(), "sgd", {"learning_rate": 0.1, "wd": 1e-4})
    x = nd.array(idx)

    def step():
        with autograd.record():
            loss = (emb(x) ** 2).sum()
        loss.backward()
        trainer.step(1)

    class _W:  # what _ours reads back: the rows and the gradient
        @staticmethod
        def asnumpy():
            return (emb.weight.data() if hybrid else emb.weight.row_sparse_data(x)).asnumpy()
        grad = property(lambda self: emb.weight.grad())
    return _W(), step


def _grad_bytes(g):
    if g.stype == "default":
        return g.asnumpy().nbytes
    return g.data.asnumpy().nbytes + g.indices.asnumpy().nbytes


def _ours(sparse, vocab, dim, idx, rounds, warmup, clock):
    w, step = _gluonlite_case(sparse, vocab, dim, idx)
    times = []
    for r in range(warmup + rounds):
        t0 = clock()
        step()
        if r >= warmup:
            times.append((clock() - t0) * 1e3)
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    step()
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    rows = w.asnumpy()[idx.astype(np.int64)[:3]]
    return times, peak, _grad_bytes(w.grad), rows


_MXNET_CODE = r"""
import json, resource, sys, time
import numpy as np
import mxnet as mx
from mxnet import autograd, nd
sparse, vocab, dim, idx, rounds, warmup, clock = json.loads(sys.argv[1])
clock = time.process_time if clock == "cpu" else time.perf_counter
w0 = np.random.default_rng(1).uniform(-0.1, 0.1, (vocab, dim)).astype(np.float32)
x = nd.array(np.array(idx, np.float32))
if sparse in ("gluon", "hybrid"):
    from mxnet import gluon
    if sparse == "hybrid":
        emb = gluon.nn.Embedding(vocab, dim, sparse_grad=True)
        emb.initialize(mx.init.Constant(0))
        emb.weight.set_data(nd.array(w0))
        emb.hybridize(static_alloc=True)
    else:
        emb = gluon.contrib.nn.SparseEmbedding(vocab, dim)
        emb.initialize(mx.init.Constant(0))
        emb.weight.set_data(nd.array(w0).tostype("row_sparse"))
    trainer = gluon.Trainer(emb.collect_params(), "sgd", {"learning_rate": 0.1, "wd": 1e-4})
    def step():
        with autograd.record():
            loss = (emb(x) ** 2).sum()
        loss.backward()
        trainer.step(1)
        mx.nd.waitall()
    class W:
        def asnumpy(self):
            if sparse == "hybrid":
                return emb.weight.data().asnumpy()
            return emb.weight.row_sparse_data(x).asnumpy()
        grad = property(lambda self: emb.weight.grad())
    w = W()
else:
    w = nd.array(w0)
    w.attach_grad(stype="row_sparse" if sparse else "default")
    def step():
        with autograd.record():
            y = nd.Embedding(x, w, input_dim=vocab, output_dim=dim, sparse_grad=bool(sparse))
            loss = (y * y).sum()
        loss.backward()
        nd.sgd_update(w, w.grad, out=w, lr=0.1, wd=1e-4)
        w.wait_to_read()
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
step()
out = []
for r in range(warmup + rounds):
    t0 = clock()
    step()
    if r >= warmup:
        out.append((clock() - t0) * 1e3)
rss = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss0) * 1024
g = w.grad
gb = g.asnumpy().nbytes if g.stype == "default" else (g.data.asnumpy().nbytes
                                                      + g.indices.asnumpy().nbytes)
rows = w.asnumpy()[np.array(idx, np.int64)[:3]].tolist()
print(json.dumps([out, rss, gb, rows]))
"""


def _mxnet(py, sparse, vocab, dim, idx, rounds, warmup, clock):
    env = dict(os.environ, OMP_NUM_THREADS="1", MXNET_ENGINE_TYPE="NaiveEngine",
               MXNET_STORAGE_FALLBACK_LOG_VERBOSE="0")
    args = json.dumps([sparse, vocab, dim, idx.tolist(), rounds, warmup, clock])
    run = subprocess.run([py, "-c", _MXNET_CODE, args], capture_output=True, text=True,
                         env=env)
    if run.returncode:
        raise RuntimeError(f"MXNet side failed: {run.stderr[-2000:]}")
    return json.loads(run.stdout.strip().splitlines()[-1])


def main(argv=None):
    """Run both variants and print the Markdown table; returns 0."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vocab", type=int, default=1_000_000)
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--batch", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--mxnet-python", default=os.environ.get("GLUONLITE_MXNET_PYTHON",
                                                            "/work/mxvenv/bin/python"))
    ap.add_argument("--no-mxnet", action="store_true")
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    a = ap.parse_args(argv)
    py = None if a.no_mxnet or not os.path.exists(a.mxnet_python) else a.mxnet_python
    print_header("sparse_embedding", argv,
                 f"- {a.clock} time; vocab {a.vocab}, dim {a.dim}, batch {a.batch}; rounds "
                 f"{a.rounds} after {a.warmup} warmup; MXNet: {py or 'not measured'}")
    clock = time.process_time if a.clock == "cpu" else time.perf_counter
    idx = _indices(a.vocab, a.batch)
    rows, results = [], {}
    for sparse in (False, True, "gluon", "hybrid"):
        t, peak, gbytes, ours_rows = _ours(sparse, a.vocab, a.dim, idx, a.rounds, a.warmup,
                                           clock)
        mx_res = _mxnet(py, sparse, a.vocab, a.dim, idx, a.rounds, a.warmup, a.clock) \
            if py else None
        # both sides ran warmup + rounds + 1 steps: the updated rows must agree
        same = "-" if mx_res is None else (
            "yes" if np.allclose(ours_rows, mx_res[3], rtol=1e-4, atol=1e-6) else "NO")
        name = {False: "dense", True: "row_sparse", "gluon": "SparseEmbedding + Trainer",
                "hybrid": "hybridized Embedding + Trainer"}[sparse]
        results[name] = (median(t), peak, gbytes, mx_res)
        rows.append([name, _cell(t), _cell(mx_res[0]) if mx_res else "-",
                     f"{median(t) / median(mx_res[0]):.2f}" if mx_res else "-",
                     fmt_bytes(gbytes), fmt_bytes(mx_res[2]) if mx_res else "-",
                     fmt_bytes(peak), fmt_bytes(mx_res[1]) if mx_res else "-", same])
        print(f"  {rows[-1]}", file=sys.stderr, flush=True)
    print(markdown_table(["gradient", "gluonlite ms", "MXNet ms", "gluonlite / MXNet",
                          "grad stored (gluonlite)", "grad stored (MXNet)",
                          "peak alloc per step (gluonlite)", "RSS growth (MXNet)",
                          "same weights"], rows))
    d, s = results["dense"], results["row_sparse"]
    print(f"\nrow_sparse / dense, gluonlite: time {s[0] / d[0]:.4f}, peak memory "
          f"{s[1] / max(d[1], 1):.5f}")
    if d[3] and s[3]:
        print(f"row_sparse / dense, MXNet: time {median(s[3][0]) / median(d[3][0]):.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
