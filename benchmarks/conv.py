"""The numpy convolution (`nd.Convolution`, `nd.Deconvolution`) against its floor and MXNet.

    PYTHONPATH=. python benchmarks/conv.py [--rounds 3] [--warmup 1] [--batches 1 32]
        [--mxnet-python /work/mxvenv/bin/python] [--no-mxnet]
        [--torch-python /work/torchvenv/bin/python] [--no-torch]

ResNet-like 3x3 layers (stride 1, pad 1, C in = C out): 64 channels at 56x56, 128 at 28x28,
256 at 14x14 and 7x7, batch 1 and 32, forward ("fwd") and forward + backward ("fwd+bwd",
gradients of data, weight and bias), one thread. Per case, interleaved rounds of:

- gluonlite: ``nd.Convolution`` (under ``autograd.record()`` + ``backward`` for fwd+bwd);
- plain: the same call with the numpy fast path (``ops/conv_fast.py``) switched off, so the
  plain kernel of ``ops/conv.py`` (the kernel before the fast path) runs: before and after
  in the same rounds;
- floor: the matrix products alone, on preallocated buffers (forward: W (F, C*9) @
  cols (C*9, N*H*W); fwd+bwd adds gy @ cols.T and W.T @ gy), the BLAS bound of the im2col
  method;

then MXNet 1.9.1's ``nd.Convolution`` (its own process, same rounds, OMP_NUM_THREADS=1) when
``--mxnet-python`` (or $GLUONLITE_MXNET_PYTHON) names a python with mxnet, and PyTorch's
``torch.nn.functional.conv2d`` (its own process, ``torch.set_num_threads(1)``; fwd+bwd is
``backward`` of the same head into data, weight and bias) when ``--torch-python`` (or
$GLUONLITE_TORCH_PYTHON) names a python with torch. The closing rows time one transposed
convolution (``Deconvolution`` / ``conv_transpose2d``, 128 -> 64 channels, 28x28 -> 56x56,
kernel 4, stride 2, pad 1, no bias), forward and forward + backward (floor: its three
products).

The table gives medians (ms) with the spread (max - min over the rounds, in % of the median)
and the ratios gluonlite / floor, gluonlite / MXNet and gluonlite / PyTorch. ``--clock cpu``
(the default) times each call with the process's CPU time (every side runs on one thread,
MXNet with its NaiveEngine in the calling thread), which other jobs on a shared machine
disturb far less than wall time; ``--clock wall`` uses wall time.
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
    return _with_plain({"gluonlite": ours, "floor": floor})


def _with_plain(v):
    """Adds "plain": gluonlite's call on the plain kernel of ops/conv.py (the fast path of
    ops/conv_fast.py switched off), the kernel before it, timed in the same rounds."""
    from gluonlite.ops import conv_fast
    ours = v["gluonlite"]

    def plain():
        conv_fast.ENABLED = False
        try:
            ours()
        finally:
            conv_fast.ENABLED = True
    return dict(v, plain=plain)


def _deconv_variants(kind, n, rng):
    """{name: callable} for gluonlite's Deconvolution and its floor (forward: W.T @ x, one
    product; fwd+bwd adds the data gradient W @ cols(gy) and the weight gradient x @ cols.T)."""
    from gluonlite import autograd, nd
    x = nd.array(rng.standard_normal((n, 128, 28, 28)).astype(np.float32))
    w = nd.array((rng.standard_normal((128, 64, 4, 4)) * 0.05).astype(np.float32))
    head = nd.array(rng.standard_normal((n, 64, 56, 56)).astype(np.float32))
    for a in (x, w):
        a.attach_grad()
    attrs = dict(kernel=(4, 4), stride=(2, 2), pad=(1, 1), num_filter=64)
    ck, npix = 64 * 16, n * 28 * 28
    wt = rng.standard_normal((128, ck)).astype(np.float32)
    xs = rng.standard_normal((128, npix)).astype(np.float32)
    cols = np.empty((ck, npix), np.float32)
    dx = np.empty((128, npix), np.float32)
    dw = np.empty((128, ck), np.float32)

    if kind == "fwd":
        def ours():
            nd.Deconvolution(x, w, **attrs).wait_to_read()

        def floor():
            np.matmul(wt.T, xs, out=cols)
    else:
        def ours():
            with autograd.record():
                y = nd.Deconvolution(x, w, **attrs)
            y.backward(head)
            x.grad.wait_to_read()

        def floor():
            np.matmul(wt.T, xs, out=cols)
            np.matmul(wt, cols, out=dx)
            np.matmul(xs, cols.T, out=dw)
    return _with_plain({"gluonlite": ours, "floor": floor})


_MXNET_CODE = r"""
import json, sys, time
import numpy as np
import mxnet as mx
from mxnet import autograd, nd
kind, n, c, hw, rounds, warmup, clock = json.loads(sys.argv[1])
clock = time.process_time if clock == "cpu" else time.perf_counter
rng = np.random.default_rng(0)
if kind.startswith("deconv"):
    x = nd.array(rng.standard_normal((n, 128, 28, 28)).astype(np.float32))
    w = nd.array((rng.standard_normal((128, 64, 4, 4)) * 0.05).astype(np.float32))
    head = nd.array(rng.standard_normal((n, 64, 56, 56)).astype(np.float32))
    for a in (x, w):
        a.attach_grad()
    attrs = dict(kernel=(4, 4), stride=(2, 2), pad=(1, 1), num_filter=64, no_bias=True)
    if kind == "deconv":
        def f():
            nd.Deconvolution(x, w, **attrs).wait_to_read()
    else:
        def f():
            with autograd.record():
                y = nd.Deconvolution(x, w, **attrs)
            y.backward(head)
            x.grad.wait_to_read()
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


_TORCH_CODE = r"""
import json, sys, time
import numpy as np
import torch
import torch.nn.functional as F
torch.set_num_threads(1)
kind, n, c, hw, rounds, warmup, clock = json.loads(sys.argv[1])
clock = time.process_time if clock == "cpu" else time.perf_counter
rng = np.random.default_rng(0)
t = lambda a, g=False: torch.tensor(a, requires_grad=g)
if kind.startswith("deconv"):
    grad = kind != "deconv"
    x = t(rng.standard_normal((n, 128, 28, 28)).astype(np.float32), grad)
    w = t((rng.standard_normal((128, 64, 4, 4)) * 0.05).astype(np.float32), grad)
    head = t(rng.standard_normal((n, 64, 56, 56)).astype(np.float32))
    run = lambda: F.conv_transpose2d(x, w, stride=2, padding=1)
    ins = (x, w)
else:
    grad = kind != "fwd"
    x = t(rng.standard_normal((n, c, hw, hw)).astype(np.float32), grad)
    w = t((rng.standard_normal((c, c, 3, 3)) * 0.05).astype(np.float32), grad)
    b = t(np.zeros(c, np.float32), grad)
    head = t(rng.standard_normal((n, c, hw, hw)).astype(np.float32))
    run = lambda: F.conv2d(x, w, b, padding=1)
    ins = (x, w, b)
if grad:
    def f():
        for a in ins:
            a.grad = None
        run().backward(head)
else:
    def f():
        with torch.no_grad():
            run()
out = []
for r in range(warmup + rounds):
    t0 = clock()
    f()
    if r >= warmup:
        out.append((clock() - t0) * 1e3)
print(json.dumps(out))
"""


def _side_times(who, code, py, kind, n, c, hw, rounds, warmup, clock):
    """The ms per round of the same case in another framework's process (one thread)."""
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
               MXNET_ENGINE_TYPE="NaiveEngine", MXNET_STORAGE_FALLBACK_LOG_VERBOSE="0")
    args = json.dumps([kind, n, c, hw, rounds, warmup, clock])
    run = subprocess.run([py, "-c", code, args], capture_output=True, text=True, env=env)
    if run.returncode:
        raise RuntimeError(f"{who} side failed: {run.stderr[-2000:]}")
    return json.loads(run.stdout.strip().splitlines()[-1])


def main(argv=None):
    """Run the cases and print the Markdown table; returns 0."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--batches", type=int, nargs="+", default=[1, 32])
    ap.add_argument("--kinds", nargs="+", default=["fwd", "fwd+bwd"])
    ap.add_argument("--mxnet-python", default=os.environ.get("GLUONLITE_MXNET_PYTHON"))
    ap.add_argument("--torch-python", default=os.environ.get("GLUONLITE_TORCH_PYTHON"))
    ap.add_argument("--no-torch", action="store_true")
    ap.add_argument("--no-mxnet", action="store_true")
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    a = ap.parse_args(argv)
    py = None if a.no_mxnet else a.mxnet_python
    tpy = None if a.no_torch else a.torch_python
    print_header("conv", argv, f"- {a.clock} time; rounds {a.rounds} after {a.warmup} warmup, "
                 "interleaved (gluonlite, plain kernel, floor); MXNet, then PyTorch, each in its "
                 f"own process right after each case; MXNet: {py or 'not measured'}; "
                 f"PyTorch: {tpy or 'not measured'}")
    rng = np.random.default_rng(0)
    rows = []
    cases = [(k, n, c, hw) for n in a.batches for k in a.kinds for c, hw in SHAPES]
    cases += [("deconv" if k == "fwd" else "deconv+bwd", n, 128, 28)
              for n in a.batches for k in a.kinds]
    clock = time.process_time if a.clock == "cpu" else time.perf_counter
    for kind, n, c, hw in cases:
        deconv = kind.startswith("deconv")
        v = (_deconv_variants("fwd" if kind == "deconv" else "fwd+bwd", n, rng) if deconv
             else _our_variants(kind, n, c, hw, rng))
        t = interleaved(v, a.rounds, a.warmup, clock=clock)
        side = [_side_times(who, code, p, kind, n, c, hw, a.rounds, a.warmup, a.clock)
                if p else None
                for who, code, p in (("MXNet", _MXNET_CODE, py), ("PyTorch", _TORCH_CODE, tpy))]
        ours, floor, plain = median(t["gluonlite"]), median(t["floor"]), median(t["plain"])
        label = "Deconvolution 128->64, 28->56, k4 s2" if deconv else f"{c}ch {hw}x{hw}"
        row = [label, n, {"deconv": "fwd", "deconv+bwd": "fwd+bwd"}.get(kind, kind),
               _cell(t["plain"]), f"{plain / floor:.2f}",
               _cell(t["gluonlite"]), _cell(t["floor"]), f"{ours / floor:.2f}"]
        for st in side:
            row += [_cell(st), f"{ours / median(st):.2f}"] if st else ["-", "-"]
        rows.append(row)
        print(f"  {rows[-1]}", file=sys.stderr, flush=True)
    print(markdown_table(["layer (3x3, pad 1)", "batch", "pass", "plain ms", "plain / floor",
                          "gluonlite ms",
                          "floor ms", "/ floor", "MXNet ms", "/ MXNet", "PyTorch ms",
                          "/ PyTorch"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
