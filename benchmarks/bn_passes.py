"""BatchNorm's training passes with the mean folded into a per-channel constant
(`gluonlite/ops/bn_fast.py`) against the form it replaced, the mean subtracted first (three
passes for the output, five for the data gradient, written out here as they ran), on
ResNet-50's 53 BatchNorm layers; with ``--relu``, BatchNormWithReLU's kernels (the relu
applied to each block of the output in the cache, its gradient taken in the pass that sums
BatchNorm's) against BatchNorm's followed by Activation's relu and its gradient as two
operators run them.

    PYTHONPATH=. python benchmarks/bn_passes.py [--rounds 7] [--batches 1 32] [--scale 1.0]
        [--relu]

Per batch size, one round runs every layer's forward (statistics and output) and then every
layer's data gradient, each layer as many times as ResNet-50 has it, in one process,
interleaved with the other form on the same arrays. The data are normal with per-channel
means of up to twice their spread, as ResNet's layers have while training (their largest
|mean| / std per layer is 2 at the median, 7 at most), so every channel takes the folded
form. The table gives CPU ms medians, folded / subtracted first and its range over the
rounds. `--scale` shrinks the maps (the tests run it tiny). One thread: run with
OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _tables import ab_cells, markdown_table, print_header  # noqa: E402  (first: one thread)
from _timing import interleaved  # noqa: E402

import numpy as np  # noqa: E402

import gluonlite as mx  # noqa: E402
from gluonlite.ops import bn_fast  # noqa: E402

# ResNet-50 v1's BatchNorm inputs (channels, side) and how many layers have each
RESNET50 = [(64, 112, 1), (64, 56, 6), (256, 56, 4), (128, 28, 8), (512, 28, 5),
            (256, 14, 12), (1024, 14, 7), (512, 7, 6), (2048, 7, 4)]


def subtracted_forward(p, outs, x, gamma, beta, mean, var):
    """The output as bn_fast wrote it before the fold: (x - mean) * k + beta, three passes
    a block at a time."""
    inv = 1.0 / np.sqrt(var + p.eps)
    n, c = x.shape[:2]
    x3, y3 = x.reshape(n, c, -1), outs[0].reshape(n, c, -1)
    m, k, b = (v.reshape(c, 1) for v in (mean, inv * gamma, beta))
    for i, cs in bn_fast._blocks(x3):
        y = y3[i, cs]
        np.subtract(x3[i, cs], m[cs], out=y)
        np.multiply(y, k[cs], out=y)
        np.add(y, b[cs], out=y)
    np.copyto(outs[1], mean, casting="unsafe")
    np.copyto(outs[2], inv, casting="unsafe")


def subtracted_dx(x, gy, mean, vecs):
    """The data gradient as bn_fast wrote it before the fold: gy k1 + (x - mean) k2 + k3,
    five passes a block at a time (`vecs`: k1, k2, k3, each (C, 1))."""
    n, c = x.shape[:2]
    x3, g3 = x.reshape(n, c, -1), gy.reshape(n, c, -1)
    m = mean.reshape(c, 1)
    dx = np.empty(x.shape, dtype=x.dtype)
    dx3 = dx.reshape(n, c, -1)
    blocks = bn_fast._blocks(x3)
    tmp = np.empty(dx3[blocks[0]].size, dtype=x.dtype)
    for i, cs in blocks:
        d = dx3[i, cs]
        t = tmp[:d.size].reshape(d.shape)
        k1, k2, k3 = (v[cs] for v in vecs)
        np.multiply(g3[i, cs], k1, out=d)
        np.subtract(x3[i, cs], m[cs], out=t)
        t *= k2
        d += t
        d += k3
    return dx


def _sums(x, gy):
    """The per-channel sums of gy and gy * x, taken as `bn_fast.vjp` takes them."""
    n, c = x.shape[:2]
    x3, g3 = x.reshape(n, c, -1), gy.reshape(n, c, -1)
    sg, sgx = np.zeros(c), np.zeros(c)
    for index in bn_fast._blocks(x3):
        sg[index[1]] += bn_fast._sums(g3[index])
        sgx[index[1]] += bn_fast._sums(g3[index], x3[index])
    return sg, sgx


def _layers(batch, scale, rng):
    layers = []
    for c, side, count in RESNET50:
        side = max(2, int(round(side * scale)))
        spread = rng.uniform(0.5, 2.0, (1, c, 1, 1))
        means = rng.uniform(-2.0, 2.0, (1, c, 1, 1)) * spread
        x = (rng.standard_normal((batch, c, side, side)) * spread + means).astype(np.float32)
        gy = rng.standard_normal(x.shape).astype(np.float32)
        gamma = rng.uniform(0.5, 1.5, c).astype(np.float32)
        beta = rng.standard_normal(c).astype(np.float32)
        layers.append((x, gy, gamma, beta, count))
    return layers


def _variants(p, layers):
    """{"folded"/"subtracted": (forward round, gradient round)} over `layers`."""
    state = []
    for x, gy, gamma, beta, count in layers:
        c = x.shape[1]
        outs = [np.empty_like(x), np.empty(c, np.float32), np.empty(c, np.float32)]
        mean, var = bn_fast.moments(x)
        bn_fast.normalize_into(p, outs, x, gamma, beta, mean, var)
        # the old gradient's per-channel vectors, from the same sums the new one takes
        inv = outs[2].astype(np.float64)
        sg = gy.sum(axis=(0, 2, 3), dtype=np.float64)
        sgx = np.einsum("ncp,ncp->c", gy.reshape(x.shape[0], c, -1),
                        x.reshape(x.shape[0], c, -1), dtype=np.float64)
        dgamma = (sgx - mean * sg) * inv
        count_ = x.size // c
        k1 = gamma * inv
        vecs = [v.astype(np.float32).reshape(c, 1) for v in
                (k1, -gamma * inv * inv * dgamma / count_, -k1 * sg / count_)]
        state.append((x, gy, gamma, beta, count, outs, vecs))

    def forward(fold):
        def run():
            for x, gy, gamma, beta, count, outs, _ in state:
                for _ in range(count):
                    mean, var = bn_fast.moments(x)
                    (bn_fast.normalize_into if fold else subtracted_forward)(
                        p, outs, x, gamma, beta, mean, var)
        return run

    def gradient(fold):
        def run():
            for x, gy, gamma, beta, count, outs, vecs in state:
                for _ in range(count):
                    if fold:
                        bn_fast.vjp(p, [x, gamma, beta], outs, [gy], True)
                    else:  # the same sums pass as bn_fast.vjp's, then the old dx
                        _sums(x, gy)
                        subtracted_dx(x, gy, outs[1], vecs)
        return run

    return {"forward": (forward(True), forward(False)),
            "gradient": (gradient(True), gradient(False))}


def _relu_variants(p, layers):
    """{"forward"/"gradient": (fused, two operators)} over `layers`: BatchNormWithReLU's
    kernels against BatchNorm's and then Activation's relu (`act_relu`, a pass of its own
    into its own output) and relu's gradient rule (``g * sign(y)``) before BatchNorm's."""
    from gluonlite.ops.elementwise import act_relu
    state = []
    for x, gy, gamma, beta, count in layers:
        c = x.shape[1]
        outs = [np.empty_like(x), np.empty(c, np.float32), np.empty(c, np.float32)]
        state.append((x, gy, gamma, beta, count, outs, np.empty_like(x)))

    def relu_block(block, index):
        act_relu(np, block, out=block)

    def forward(fused):
        def run():
            for x, gy, gamma, beta, count, outs, r in state:
                for _ in range(count):
                    mean, var = bn_fast.moments(x)
                    if fused:
                        bn_fast.normalize_into(p, outs, x, gamma, beta, mean, var,
                                               then=relu_block)
                    else:
                        bn_fast.normalize_into(p, outs, x, gamma, beta, mean, var)
                        act_relu(np, outs[0], out=r)
        return run

    def gradient(fused):
        def run():
            for x, gy, gamma, beta, count, outs, r in state:
                for _ in range(count):
                    if fused:
                        bn_fast.vjp(p, [x, gamma, beta], outs, [gy], True, relu_out=r)
                    else:
                        bn_fast.vjp(p, [x, gamma, beta], outs, [gy * np.sign(r)], True)
        return run

    forward(False)()   # the outputs the gradients read
    return {"forward": (forward(True), forward(False)),
            "gradient": (gradient(True), gradient(False))}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--batches", type=int, nargs="+", default=[1, 32])
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--relu", action="store_true",
                    help="BatchNormWithReLU's kernels against BatchNorm and relu as two")
    a = ap.parse_args(argv)
    what = "BatchNormWithReLU against BatchNorm + relu" if a.relu else \
        "mean folded against subtracted first"
    print_header("bn_passes", argv, f"ResNet-50's BatchNorm layers, {what}, map sides "
                 f"x{a.scale}, {a.rounds} rounds, CPU time")
    p = mx.ops.get("BatchNorm").parse({"fix_gamma": False})[0]
    rng = np.random.default_rng(0)
    rows = []
    for batch in a.batches:
        layers = _layers(batch, a.scale, rng)
        variants = _relu_variants(p, layers) if a.relu else _variants(p, layers)
        for what, (new, old) in variants.items():
            res = interleaved({"new": new, "old": old}, a.rounds, warmup=1,
                              clock=time.process_time)
            rows.append([what, batch] + ab_cells(res["new"], res["old"]))
            print(f"  {rows[-1]}", file=sys.stderr, flush=True)
    names = ("two operators", "fused") if a.relu else ("subtracted first", "folded")
    print(markdown_table(["pass", "batch", f"{names[0]} ms", f"{names[1]} ms",
                          f"{names[1]} / {names[0]}", "range"], rows))


if __name__ == "__main__":
    main()
