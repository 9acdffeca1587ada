"""Thread scaling on the CPU (issue 44): the same RNN and CNN rows at several BLAS thread
counts, gluonlite beside PyTorch.

    PYTHONPATH=. python benchmarks/gpu/thread_rows.py --out rows.jsonl [--threads 1,4,16]
        [--torch-python PYTHON] [--batch 32] [--seq-len 100] [--hidden 512] [--rounds 5]
        [--warmup 1] [--deadline EPOCH_SECONDS]

gluonlite computes on numpy, so BLAS (OpenBLAS' threads) is its only parallel part: these
rows show how far that carries. For each thread count this script runs itself once for
gluonlite and once under --torch-python (default: $GLUONLITE_TORCH_PYTHON, else this Python)
for PyTorch, each with ``OMP_NUM_THREADS``/``OPENBLAS_NUM_THREADS``/``MKL_NUM_THREADS`` set
(and ``torch.set_num_threads``) before the libraries load. Rows, inference and training
(forward, then the backward of the outputs' sum):

- RNN: an LSTM over (T, N, H) sequences: gluonlite's hybridized ``foreach`` loop layer and
  its ``gluon.rnn.LSTM`` (the fused ``RNN`` operator); PyTorch's ``nn.LSTM`` and its eager
  ``nn.LSTMCell`` loop;
- CNN: conv 3x3 (3 -> 32) relu, conv 3x3 stride 2 (32 -> 64) relu, global average pool,
  dense (64 -> 10) on (N, 3, 32, 32) images, hybridized in gluonlite, the same layers in
  PyTorch.

One JSON object per row (with the thread count), appended to --out. A side whose Python
lacks its library is a row skipped with the reason.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def _csv(kind):
    return lambda s: [kind(v) for v in s.split(",") if v]


def parse(argv):
    """The command line (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--threads", type=_csv(int), default=[1, 4, 16])
    ap.add_argument("--torch-python", default=os.environ.get("GLUONLITE_TORCH_PYTHON",
                                                             sys.executable))
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--seq-len", type=int, default=100)
    ap.add_argument("--hidden", type=int, default=512)
    ap.add_argument("--image", type=int, default=32, help="CNN input height = width")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--deadline", type=float, default=None)
    ap.add_argument("--child", choices=["gluonlite", "pytorch"], default=None,
                    help=argparse.SUPPRESS)
    return ap.parse_args(argv)


def _time(calls, rounds, warmup):
    names = list(calls)
    for _ in range(warmup):
        for k in names:
            calls[k]()
    times = {k: [] for k in names}
    for r in range(rounds):
        for k in names[r % len(names):] + names[:r % len(names)]:
            t0 = time.perf_counter()
            calls[k]()
            times[k].append((time.perf_counter() - t0) * 1e3)
    return times


def _gluonlite_rows(a):
    sys.path.insert(0, ROOT)
    import numpy as np
    import gluonlite as mx
    from gluonlite import autograd, gluon, nd
    from gluonlite.bench.models import ForeachRNN, zero_states
    T, N, H = a.seq_len, a.batch, a.hidden
    mx.random.seed(0)
    rng = np.random.default_rng(0)
    x = nd.array(rng.normal(size=(T, N, H)).astype(np.float32))
    loop = ForeachRNN(gluon.rnn.LSTMCell(H, input_size=H), T)
    loop.initialize()
    loop.hybridize(static_alloc=True, static_shape=True)
    states = zero_states(loop, N, H)
    layer = gluon.rnn.LSTM(H, input_size=H)
    layer.initialize()
    layer.hybridize(static_alloc=True, static_shape=True)
    lstates = layer.begin_state(N)
    cnn = gluon.nn.HybridSequential()
    cnn.add(gluon.nn.Conv2D(32, 3, padding=1, in_channels=3, activation="relu"),
            gluon.nn.Conv2D(64, 3, strides=2, padding=1, in_channels=32, activation="relu"),
            gluon.nn.GlobalAvgPool2D(), gluon.nn.Dense(10, in_units=64))
    cnn.initialize(mx.init.Xavier())
    cnn.hybridize(static_alloc=True, static_shape=True)
    img = nd.array(rng.normal(size=(N, 3, a.image, a.image)).astype(np.float32))

    def call(f, train):
        def run():
            if train:
                with autograd.record():
                    y = f()
                y.backward()
            else:
                f()
            nd.waitall()
        return run
    rows = []
    for mode in ("infer", "train"):
        train = mode == "train"
        calls = {("RNN", "foreach loop layer"): call(lambda: loop(x, states), train),
                 ("RNN", "gluon.rnn.LSTM"): call(lambda: layer(x, lstates)[0], train),
                 ("CNN", "hybridized convnet"): call(lambda: cnn(img), train)}
        for (row, impl), ts in _time(calls, a.rounds, a.warmup).items():
            rows.append({"row": row, "impl": "gluonlite", "variant": impl, "mode": mode,
                         "median": statistics.median(ts), "times": ts})
    return rows


def _pytorch_rows(a):
    import torch
    torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
    torch.manual_seed(0)
    T, N, H = a.seq_len, a.batch, a.hidden
    x = torch.randn(T, N, H)
    h0, c0 = torch.zeros(1, N, H), torch.zeros(1, N, H)
    layer = torch.nn.LSTM(H, H)
    cell = torch.nn.LSTMCell(H, H)

    def loop():
        h, c, outs = h0[0], c0[0], []
        for t in range(T):
            h, c = cell(x[t], (h, c))
            outs.append(h)
        return torch.stack(outs)
    cnn = torch.nn.Sequential(torch.nn.Conv2d(3, 32, 3, padding=1), torch.nn.ReLU(),
                              torch.nn.Conv2d(32, 64, 3, stride=2, padding=1), torch.nn.ReLU(),
                              torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
                              torch.nn.Linear(64, 10))
    img = torch.randn(N, 3, a.image, a.image)

    def call(f, train, params):
        def run():
            for p in params:
                p.grad = None
            with torch.set_grad_enabled(train):
                y = f()
                if train:
                    y.sum().backward()
        return run
    rows = []
    for mode in ("infer", "train"):
        train = mode == "train"
        calls = {("RNN", "eager LSTMCell loop"): call(loop, train, list(cell.parameters())),
                 ("RNN", "nn.LSTM"): call(lambda: layer(x, (h0, c0))[0], train,
                                          list(layer.parameters())),
                 ("CNN", "convnet"): call(lambda: cnn(img), train, list(cnn.parameters()))}
        for (row, impl), ts in _time(calls, a.rounds, a.warmup).items():
            rows.append({"row": row, "impl": "pytorch", "variant": impl, "mode": mode,
                         "median": statistics.median(ts), "times": ts,
                         "torch": torch.__version__})
    return rows


def _child(a):
    rows = _gluonlite_rows(a) if a.child == "gluonlite" else _pytorch_rows(a)
    print(json.dumps(rows))
    return 0


def main(argv=None):
    """Run the children per thread count and append their rows to --out."""
    argv = sys.argv[1:] if argv is None else argv
    a = parse(argv)
    if a.child:
        return _child(a)
    sides = [("gluonlite", sys.executable), ("pytorch", a.torch_python)]
    with open(a.out, "a", encoding="utf-8") as out:
        for n in a.threads:
            env = dict(os.environ, **{v: str(n) for v in THREAD_VARS})
            env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
            for side, python in sides:
                key = {"threads": n, "impl": side, "batch": a.batch, "seq_len": a.seq_len,
                       "hidden": a.hidden, "cpu_count": os.cpu_count()}
                if a.deadline is not None and time.time() > a.deadline:
                    rows, why = [], "out of time"
                else:
                    p = subprocess.run([python, os.path.abspath(__file__), *argv, "--child",
                                        side], capture_output=True, text=True, env=env,
                                       timeout=900)
                    lines = p.stdout.strip().splitlines()
                    why = None if p.returncode == 0 and lines else \
                        (p.stderr.strip().splitlines() or ["no output"])[-1]
                    rows = json.loads(lines[-1]) if why is None else []
                if why is not None:
                    rows = [{"row": "RNN", "mode": "both", "skipped": why}]
                for r in rows:
                    out.write(json.dumps(dict(key, **r)) + "\n")
                out.flush()
                print(f"threads {n} {side}: " + ", ".join(
                    f"{r['row']} {r.get('variant', '')} {r.get('mode')} "
                    + (f"{r['median']:.1f} ms" if "median" in r else f"skipped ({why})")
                    for r in rows), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
