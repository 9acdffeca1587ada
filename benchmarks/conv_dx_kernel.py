"""The stride-1 data gradient's kernel, per layer: the reversed kernel copied tap by tap
(the path before the change in CHANGES.md) against today's data gradient
(`conv_fast.backward`: `_dx_as_conv`, or col2im where the weight is larger than its columns).

    PYTHONPATH=. python benchmarks/conv_dx_kernel.py [--batches 1 8] [--rounds 9]

The data gradient of a stride-1 convolution is itself a convolution of the output
gradient, with the kernel's channels swapped and its taps reversed. The old path made that
kernel as a (C, F, kh, kw) copy read in reversed runs of the kernel's taps and took every
product as it stood; today's copies it once in channel runs, hands the BLAS a transposed
operand, takes products with few columns the other way round (`conv_fast._product`) and,
on the Winograd path, reverses the kernel transform's columns instead
(`conv_winograd.flipped_kernel`). Both run in one process, interleaved, on the same
arrays; the table gives CPU ms medians and new / old with its range over the rounds. One
thread: run with OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1.
"""
import argparse
import time
from math import prod
from statistics import median

import numpy as np

from gluonlite.ops import conv, conv_fast, conv_winograd

# (C, F, map, kernel): ResNet-18/50's and VGG-11's stride-1 layers whose data gradient is a
# convolution (a 1x1 layer widening the channels more than 2x takes col2im instead)
LAYERS = [(64, 64, 56, 3), (128, 128, 28, 3), (256, 256, 14, 3), (512, 512, 7, 3),
          (128, 256, 56, 3), (256, 512, 28, 3), (512, 512, 28, 3), (512, 512, 14, 3),
          (2048, 512, 7, 1), (1024, 256, 14, 1), (512, 128, 28, 1)]


def old_data_grad(gy, w, g, x_shape):
    """The data gradient as the old path made it (one group, stride 1, symmetric pad)."""
    k = w.shape[2:]
    wt = np.ascontiguousarray(w.swapaxes(0, 1)[(slice(None), slice(None))
                                                + (slice(None, None, -1),) * len(k)])
    pad = tuple(d * (kk - 1) - p for d, kk, p in zip(g.dilate, g.kernel, g.pad))
    gd = conv.Geom(g.kernel, g.stride, g.dilate, pad, pad, x_shape[2:])
    few = conv_fast._FEW_COLUMNS
    conv_fast._FEW_COLUMNS = 0  # every product as it stands
    try:
        if conv_winograd.applies(gy.shape, wt.shape, 1, gd):
            return conv_winograd.forward(gy, wt, gd)
        return conv_fast.forward(gy, wt, 1, gd)
    finally:
        conv_fast._FEW_COLUMNS = few


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batches", type=int, nargs="+", default=[1, 8])
    ap.add_argument("--rounds", type=int, default=9)
    a = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    print("| layer (C <- F @ map, k) | batch | path | old ms | new ms | new / old | range |")
    print("|---|---:|---|---:|---:|---:|---|")
    for n in a.batches:
        for c, f, h, k in LAYERS:
            p = (k - 1) // 2
            g = conv.Geom((k, k), (1, 1), (1, 1), (p, p), (p, p), (h, h))
            x_shape = (n, c, h, h)
            w = rng.standard_normal((f, c, k, k)).astype(np.float32)
            gy = rng.standard_normal((n, f, h, h)).astype(np.float32)
            ref = old_data_grad(gy, w, g, x_shape)

            def today(gy=gy, w=w, g=g, x_shape=x_shape):
                return conv_fast.backward(gy, w, 1, g, x_shape, need_w=False)[0]
            new = today()
            err = np.abs(new - ref).max() / np.abs(ref).max()
            if err > 1e-5:
                raise SystemExit(f"layer {c}<-{f}@{h} k{k}: the two paths differ by {err:.1e}")
            wino = conv_winograd.applies(gy.shape, (c, f, k, k), 1, g)
            times = {"old": [], "new": []}
            for r in range(a.rounds):
                for v in (("old", "new") if r % 2 == 0 else ("new", "old")):
                    t = time.process_time()
                    if v == "old":
                        old_data_grad(gy, w, g, x_shape)
                    else:
                        today()
                    times[v].append(time.process_time() - t)
            ratios = [b / o for b, o in zip(times["new"], times["old"])]
            path = ("col2im" if conv_fast._dx_as_conv(gy, w, 1, g, x_shape) is None else
                    "Winograd" if wino else "1x1" if prod((k, k)) == 1 else "im2col")
            print(f"| {c} <- {f} @ {h}, {k}x{k} | {n} | {path} | {median(times['old']) * 1e3:.2f}"
                  f" | {median(times['new']) * 1e3:.2f} | {median(ratios):.2f} | "
                  f"{min(ratios):.2f}-{max(ratios):.2f} |")


if __name__ == "__main__":
    main()
