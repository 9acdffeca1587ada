"""The numpy convolution (`nd.Convolution`, `nd.Deconvolution`) against its floor and MXNet.

    PYTHONPATH=. python benchmarks/conv.py [--rounds 3] [--warmup 1] [--batches 1 32]
        [--mxnet-python /work/mxvenv/bin/python] [--no-mxnet]

ResNet-like 3x3 layers (stride 1, pad 1, C in = C out): 64 channels at 56x56, 128 at 28x28,
256 at 14x14 and 7x7, batch 1 and 32, forward ("fwd") and forward + backward ("fwd+bwd",
gradients of data, weight and bias), one thread. Per case, interleaved rounds of:

- gluonlite: ``nd.Convolution`` (under ``autograd.record()`` + ``backward`` for fwd+bwd);
- floor: the matrix products alone, on preallocated buffers (forward: W (F, C*9) @
  cols (C*9, N*H*W); fwd+bwd adds gy @ cols.T and W.T @ gy), the BLAS bound of the im2col
  method;

then MXNet 1.9.1's ``nd.Convolution`` (its own process, same rounds, OMP_NUM_THREADS=1) when
``--mxnet-python`` (or $GLUONLITE_MXNET_PYTHON) names a python with mxnet. PyTorch is not
installed here (no wheel index reachable), so there is no torch column. A closing row times
one transposed convolution (``Deconvolution``, 128 -> 64 channels, 28x28 -> 56x56).

The table gives medians (ms) with the spread (max - min over the rounds, in % of the median)
and the ratios gluonlite / floor and gluonlite / MXNet. ``--clock cpu`` (the default) times
each call with the process's CPU time (every side runs on one thread, MXNet with its
NaiveEngine in the calling thread), which other jobs on a shared machine disturb far less
than wall time; ``--clock wall`` uses wall time.
"""
import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import interleaved, median  # noqa: E402
from _tables import markdown_table, print_header  # noqa: E402

import numpy as np  # noqa: E402

SHAPES = [(64, 56), (128, 28), (256, 14), (256, 7)]


def _spread(v):
    m = median(v)
    return 100.0 * (max(v) - min(v)) / m if m else 0.0


def _cell(v):
    return f"{median(v):.2f} ±{_spread(v):.0f}%"


def _our_variants(kind, n, c, hw, rng):
    """{name: callable} for gluonlite and the floor on one case."""
    from gluonlite import autograd, nd
    x = rng.standard_normal((n, c, hw, hw)).astype(np.float32)
    w = (rng.standard_normal((c, c, 3, 3)) * 0.05).astype(np.float32)
    b = np.zeros(c, np.float32)
    X, W, B = nd.array(x), nd.array(w), nd.array(b)
    attrs = dict(kernel=(3, 3), pad=(1, 1), num_filter=c)
    head = nd.array(rng.standard_normal((n, c, hw, hw)).astype(np.float32))
    for a in (X, W, B):
        a.attach_grad()
    ck, npix = c * 9, n * hw * hw
    cols = rng.standard_normal((ck, npix)).astype(np.float32)
    w2 = w.reshape(c, ck)
    y2 = np.empty((c, npix), np.float32)
    gy = rng.standard_normal((c, npix)).astype(np.float32)
    dw = np.empty((c, ck), np.float32)
    dcols = np.empty((ck, npix), np.float32)

    if kind == "fwd":
        def ours():
            nd.Convolution(X, W, B, **attrs).wait_to_read()

        def floor():
            np.matmul(w2, cols, out=y2)
    else:
        def ours():
            with autograd.record():
                y = nd.Convolution(X, W, B, **attrs)
            y.backward(head)
            X.grad.wait_to_read()

        def floor():
            np.matmul(w2, cols, out=y2)
            np.matmul(gy, cols.T, out=dw)
            np.matmul(w2.T, gy, out=dcols)
    return {"gluonlite": ours, "floor": floor}


def _deconv_variants(n, rng):
    from gluonlite import nd
    x = nd.array(rng.standard_normal((n, 128, 28, 28)).astype(np.float32))
    w = nd.array((rng.standard_normal((128, 64, 4, 4)) * 0.05).astype(np.float32))
    ck, npix = 64 * 16, n * 28 * 28
    wt = rng.standard_normal((128, ck)).astype(np.float32)
    xs = rng.standard_normal((128, npix)).astype(np.float32)
    cols = np.empty((ck, npix), np.float32)

    def ours():
        nd.Deconvolution(x, w, kernel=(4, 4), stride=(2, 2), pad=(1, 1),
                         num_filter=64).wait_to_read()

    def floor():
        np.matmul(wt.T, xs, out=cols)
    return {"gluonlite": ours, "floor": floor}


_MXNET_CODE = r"""
import json, sys, time
import numpy as np
import mxnet as mx
from mxnet import autograd, nd
kind, n, c, hw, rounds, warmup, clock = json.loads(sys.argv[1])
clock = time.process_time if clock == "cpu" else time.perf_counter
rng = np.random.default_rng(0)
if kind == "deconv":
    x = nd.array(rng.standard_normal((n, 128, 28, 28)).astype(np.float32))
    w = nd.array((rng.standard_normal((128, 64, 4, 4)) * 0.05).astype(np.float32))
    def f():
        nd.Deconvolution(x, w, kernel=(4, 4), stride=(2, 2), pad=(1, 1), num_filter=64,
                         no_bias=True).wait_to_read()
else:
    X = nd.array(rng.standard_normal((n, c, hw, hw)).astype(np.float32))
    W = nd.array((rng.standard_normal((c, c, 3, 3)) * 0.05).astype(np.float32))
    B = nd.zeros(c)
    head = nd.array(rng.standard_normal((n, c, hw, hw)).astype(np.float32))
    for a in (X, W, B):
        a.attach_grad()
    attrs = dict(kernel=(3, 3), pad=(1, 1), num_filter=c)
    if kind == "fwd":
        def f():
            nd.Convolution(X, W, B, **attrs).wait_to_read()
    else:
        def f():
            with autograd.record():
                y = nd.Convolution(X, W, B, **attrs)
            y.backward(head)
            X.grad.wait_to_read()
out = []
for r in range(warmup + rounds):
    t0 = clock()
    f()
    if r >= warmup:
        out.append((clock() - t0) * 1e3)
print(json.dumps(out))
"""


def _mxnet_times(py, kind, n, c, hw, rounds, warmup, clock):
    env = dict(os.environ, OMP_NUM_THREADS="1", MXNET_ENGINE_TYPE="NaiveEngine",
               MXNET_STORAGE_FALLBACK_LOG_VERBOSE="0")
    args = json.dumps([kind, n, c, hw, rounds, warmup, clock])
    run = subprocess.run([py, "-c", _MXNET_CODE, args], capture_output=True, text=True, env=env)
    if run.returncode:
        raise RuntimeError(f"MXNet side failed: {run.stderr[-2000:]}")
    return json.loads(run.stdout.strip().splitlines()[-1])


def main(argv=None):
    """Run the cases and print the Markdown table; returns 0."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--batches", type=int, nargs="+", default=[1, 32])
    ap.add_argument("--kinds", nargs="+", default=["fwd", "fwd+bwd"])
    ap.add_argument("--mxnet-python", default=os.environ.get("GLUONLITE_MXNET_PYTHON"))
    ap.add_argument("--no-mxnet", action="store_true")
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    a = ap.parse_args(argv)
    py = None if a.no_mxnet else a.mxnet_python
    print_header("conv", argv, f"- {a.clock} time; rounds {a.rounds} after {a.warmup} warmup, "
                 "interleaved "
                 "(gluonlite, floor); MXNet in its own process right after each case; "
                 f"MXNet: {py or 'not measured'}; PyTorch: not installed")
    rng = np.random.default_rng(0)
    rows = []
    cases = [(k, n, c, hw) for n in a.batches for k in a.kinds for c, hw in SHAPES]
    cases += [("deconv", n, 128, 28) for n in a.batches]
    for kind, n, c, hw in cases:
        v = (_deconv_variants(n, rng) if kind == "deconv"
             else _our_variants(kind, n, c, hw, rng))
        clock = time.process_time if a.clock == "cpu" else time.perf_counter
        t = interleaved(v, a.rounds, a.warmup, clock=clock)
        mx_t = _mxnet_times(py, kind, n, c, hw, a.rounds, a.warmup, a.clock) if py else None
        ours, floor = median(t["gluonlite"]), median(t["floor"])
        label = ("Deconvolution 128->64, 28->56, k4 s2" if kind == "deconv"
                 else f"{c}ch {hw}x{hw}")
        rows.append([label, n, kind if kind != "deconv" else "fwd", _cell(t["gluonlite"]),
                     _cell(t["floor"]), f"{ours / floor:.2f}",
                     _cell(mx_t) if mx_t else "-",
                     f"{ours / median(mx_t):.2f}" if mx_t else "-"])
        print(f"  {rows[-1]}", file=sys.stderr, flush=True)
    print(markdown_table(["layer (3x3, pad 1)", "batch", "pass", "gluonlite ms",
                          "floor ms", "/ floor", "MXNet ms", "/ MXNet"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
