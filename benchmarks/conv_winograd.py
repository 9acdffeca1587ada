"""Winograd F(2x2, 3x3) against conv_fast's im2col product, layer by layer (issue 42).

    PYTHONPATH=. python benchmarks/conv_winograd.py [--rounds 5] [--batches 1 32]
        [--layers resnet18 vgg11] [--chunks 262144 1048576]

Per 3x3 stride-1 layer of ResNet-18 and VGG-11 (C -> F channels on an H x W map, pad 1),
interleaved rounds of, in one process on one thread (CPU ms):

- im2col: `conv_fast.forward` with Winograd switched off (the path before it);
- wino: `conv_winograd.forward` (for each `--chunks` size when several are given);
- dx-im2col / dx-wino: the data gradient of the same layer (`conv_fast.backward`, need_w
  False), which at stride 1 is a 3x3 convolution of the output gradient;
- dw-im2col / dw-wino: the weight gradient (need_x False): gy @ columns.T against
  `conv_winograd.weight_grad`;

medians, spreads (max - min over the rounds, % of the median) and the ratio wino / im2col
per round (median and range: below 1, Winograd is faster), and each path's largest error
against a float64 reference over the largest output. The Winograd variants run with the
rule table opened (every layer takes it), so each layer's own ratio decides its rule.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import interleaved, median  # noqa: E402

import numpy as np  # noqa: E402

from gluonlite.ops import conv, conv_fast, conv_winograd  # noqa: E402

# (name, C, F, H): the distinct 3x3 stride-1 layers (first layer of a stage included)
LAYERS = {
    "resnet18": [("r18.64@56", 64, 64, 56), ("r18.128@28", 128, 128, 28),
                 ("r18.256@14", 256, 256, 14), ("r18.512@7", 512, 512, 7)],
    "vgg11": [("vgg.64-128@112", 64, 128, 112), ("vgg.128-256@56", 128, 256, 56),
              ("vgg.256@56", 256, 256, 56), ("vgg.256-512@28", 256, 512, 28),
              ("vgg.512@28", 512, 512, 28), ("vgg.512@14", 512, 512, 14)],
    "narrow": [("c16@56", 16, 16, 56), ("c32@56", 32, 32, 56), ("c32@28", 32, 32, 28),
               ("c3-64@224", 3, 64, 224)],
}


def _geom(h):
    return conv.Geom((3, 3), (1, 1), (1, 1), (1, 1), (1, 1), (h, h))


OPEN = dict(conv_winograd.RULES, min_channels=1, min_filters=1, min_side=1, min_work=1,
            grad_min_side=1)


def _spread(v):
    return 100.0 * (max(v) - min(v)) / median(v)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--batches", type=int, nargs="+", default=[1, 32])
    ap.add_argument("--layers", nargs="+", default=["resnet18", "vgg11"], choices=list(LAYERS))
    ap.add_argument("--chunks", type=int, nargs="+", default=[conv_winograd._CHUNK])
    ap.add_argument("--no-dx", action="store_true", help="forward only")
    a = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    print("| layer | batch | pass | im2col ms | wino ms | wino/im2col (range) | err im2col | "
          "err wino |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for batch in a.batches:
        for family in a.layers:
            for name, c, f, h in LAYERS[family]:
                g = _geom(h)
                x = rng.standard_normal((batch, c, h, h)).astype(np.float32)
                w = (rng.standard_normal((f, c, 3, 3)) / np.sqrt(9 * c)).astype(np.float32)
                gy = rng.standard_normal((batch, f, h, h)).astype(np.float32)

                def plain(x=x, w=w, g=g):
                    conv_winograd.ENABLED = False
                    try:
                        return conv_fast.forward(x, w, 1, g)
                    finally:
                        conv_winograd.ENABLED = True

                def dx(wino, gy=gy, w=w, g=g, shape=x.shape):
                    rules, conv_winograd.RULES = conv_winograd.RULES, OPEN
                    conv_winograd.ENABLED = wino
                    try:
                        return conv_fast.backward(gy, w, 1, g, shape, need_w=False)[0]
                    finally:
                        conv_winograd.ENABLED, conv_winograd.RULES = True, rules

                def dw(wino, gy=gy, x=x, w=w, g=g):
                    rules, conv_winograd.RULES = conv_winograd.RULES, OPEN
                    conv_winograd.ENABLED = wino
                    try:
                        return conv_fast.backward(gy, None, 1, g, x.shape, x=x, need_x=False,
                                                  w_shape=w.shape)[1]
                    finally:
                        conv_winograd.ENABLED, conv_winograd.RULES = True, rules

                variants = {"im2col": plain}
                for ch in a.chunks:
                    def wino(x=x, w=w, g=g, ch=ch):
                        old, conv_winograd._CHUNK = conv_winograd._CHUNK, ch
                        try:
                            return conv_winograd.forward(x, w, g)
                        finally:
                            conv_winograd._CHUNK = old
                    variants[f"wino{ch}" if len(a.chunks) > 1 else "wino"] = wino
                if not a.no_dx:
                    variants["dx-im2col"] = lambda: dx(False)
                    variants["dx-wino"] = lambda: dx(True)
                    variants["dw-im2col"] = lambda: dw(False)
                    variants["dw-wino"] = lambda: dw(True)
                if batch == 1:
                    ref = conv.conv_forward(np, x[:1].astype(np.float64), w.astype(np.float64),
                                            1, g)
                    sc = np.abs(ref).max()
                    errs = [np.abs(v()[:1] - ref).max() / sc for v in (plain, variants[
                        [k for k in variants if k.startswith("wino")][0]])]
                else:
                    errs = [float("nan")] * 2
                t = interleaved(variants, a.rounds, a.warmup, clock=time.process_time)
                pairs = [("fwd", "im2col", k) for k in variants if k.startswith("wino")]
                if not a.no_dx:
                    pairs += [("dx", "dx-im2col", "dx-wino"), ("dw", "dw-im2col", "dw-wino")]
                for kind, base, new in pairs:
                    r = [n_ / b_ for n_, b_ in zip(t[new], t[base])]
                    print(f"| {name} | {batch} | {kind} {new} | {median(t[base]):.2f} "
                          f"±{_spread(t[base]):.0f}% | {median(t[new]):.2f} "
                          f"±{_spread(t[new]):.0f}% | {median(r):.2f} ({min(r):.2f}-"
                          f"{max(r):.2f}) | {errs[0]:.1e} | {errs[1]:.1e} |", flush=True)


if __name__ == "__main__":
    main()
