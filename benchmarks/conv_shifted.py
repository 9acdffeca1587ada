"""Stride-1 convolutions as one product per kernel tap over shifted windows
(`gluonlite.ops.conv_shifted`) against conv_fast's other paths (im2col or Winograd), layer
by layer (issue 42).

    PYTHONPATH=. python benchmarks/conv_shifted.py [--rounds 5] [--batches 1 32]
        [--layers resnet vgg narrow small]

Per 3x3 pad-1 layer (C -> F channels on an H x H map), interleaved rounds in one process on
one thread (CPU ms) of:

- other / shifted: `conv_fast.forward` with `conv_shifted` switched off / forced on;
- dx-other / dx-shifted: the data gradient (`conv_fast.backward`, need_w False), which at
  stride 1 is a convolution of the output gradient (C and F swapped);

medians, spreads (max - min over the rounds, % of the median) and the ratio shifted / other
per round (median and range: below 1, the shifted products are faster), and each path's
largest error against a float64 reference. The shifted variants run with the rule table
opened (every layer takes it), so each layer's own ratio decides the rule.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import interleaved, median  # noqa: E402

import numpy as np  # noqa: E402

from gluonlite.ops import conv, conv_fast, conv_shifted  # noqa: E402

# (name, C, F, H)
LAYERS = {
    "resnet": [("r.64@56", 64, 64, 56), ("r.128@28", 128, 128, 28), ("r.256@14", 256, 256, 14)],
    "vgg": [("vgg.3-64@224", 3, 64, 224), ("vgg.64-128@112", 64, 128, 112),
            ("vgg.128-256@56", 128, 256, 56)],
    "narrow": [("c16@56", 16, 16, 56), ("c32@56", 32, 32, 56), ("c96@28", 96, 96, 28),
               ("c128-64@56", 128, 64, 56)],
    "small": [("c64@14", 64, 64, 14), ("c64@7", 64, 64, 7), ("c8@56", 8, 8, 56)],
}
_OPEN = dict(max_channels=1 << 30, max_channels_narrow=0, narrow_filters=0, min_channels=0,
             min_side=0)


class _Switch:
    """conv_shifted on (its rules opened) or off, for the length of a call."""

    def __init__(self, on):
        self.on = on

    def __enter__(self):
        self.saved = (conv_shifted.ENABLED, dict(conv_shifted.RULES))
        conv_shifted.ENABLED = self.on
        conv_shifted.RULES.update(_OPEN)

    def __exit__(self, *exc):
        conv_shifted.ENABLED = self.saved[0]
        conv_shifted.RULES.clear()
        conv_shifted.RULES.update(self.saved[1])


def _reference(x, w):
    """float64 3x3 pad-1 correlation."""
    n, c, h, _ = x.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    y = np.zeros((n, w.shape[0], h, h))
    for i in range(3):
        for j in range(3):
            y += np.einsum("fc,nchw->nfhw", w[:, :, i, j], xp[:, :, i:i + h, j:j + h])
    return y


def _layer(name, c, f, h, batch, rounds):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, c, h, h)).astype(np.float32)
    w = (rng.standard_normal((f, c, 3, 3)) * 0.1).astype(np.float32)
    gy = rng.standard_normal((batch, f, h, h)).astype(np.float32)
    g = conv.Geom((3, 3), (1, 1), (1, 1), (1, 1), (1, 1), (h, h))

    def fwd(on):
        def run():
            with _Switch(on):
                return conv_fast.forward(x, w, 1, g)
        return run

    def dx(on):
        def run():
            with _Switch(on):
                return conv_fast.backward(gy, w, 1, g, x.shape, need_w=False)[0]
        return run

    variants = {"other": fwd(False), "shifted": fwd(True), "dx-other": dx(False),
                "dx-shifted": dx(True)}
    ref = _reference(x[:2], w)
    errs = {k: float(np.abs(variants[k]()[:2] - ref).max()) for k in ("other", "shifted")}
    times = interleaved(variants, rounds=rounds, warmup=1, clock=time.process_time)
    rows = []
    for base, new in (("other", "shifted"), ("dx-other", "dx-shifted")):
        ratios = [b / a for a, b in zip(times[base], times[new])]
        rows.append((f"{name} b{batch} {'fwd' if base == 'other' else base[:2]}",
                     median(times[base]), _spread(times[base]), median(times[new]),
                     _spread(times[new]), median(ratios), min(ratios), max(ratios)))
    return rows, errs


def _spread(v):
    return 100.0 * (max(v) - min(v)) / median(v)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--batches", type=int, nargs="+", default=[1, 32])
    ap.add_argument("--layers", nargs="+", default=list(LAYERS), choices=list(LAYERS))
    a = ap.parse_args(argv)
    print("| layer | other ms | shifted ms | shifted / other (range) | max error other, shifted |")
    print("|---|---:|---:|---:|---:|")
    for group in a.layers:
        for name, c, f, h in LAYERS[group]:
            for batch in a.batches:
                rows, errs = _layer(name, c, f, h, batch, a.rounds)
                for label, ob, os_, sb, ss, r, lo, hi in rows:
                    print(f"| {label} | {ob:.1f} ±{os_:.0f}% | {sb:.1f} ±{ss:.0f}% | "
                          f"{r:.2f} ({lo:.2f}-{hi:.2f}) | {errs['other']:.1e}, "
                          f"{errs['shifted']:.1e} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
