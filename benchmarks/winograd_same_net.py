"""Winograd on and off on the same network instance (benchmarks/models.md, third pass).

    PYTHONPATH=. python benchmarks/winograd_same_net.py --models vgg11_bn resnet50_v1 \
        --modes train --batch 1 --rounds 5

`models.py --ab nowino` builds a second instance of the network for the variant; this
script flips `conv_winograd.ENABLED` between interleaved calls of one instance, so the two
sides share every buffer and plan (a control: a model none of whose layers takes Winograd
at that batch should give 1.00). Prints, per case, the median CPU ms of each side and the
per-round ratio off / on (above 1: Winograd helps), median and range.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import interleaved, median  # noqa: E402

import numpy as np  # noqa: E402

import models as M  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", nargs="+", default=["vgg11_bn", "resnet50_v1"])
    ap.add_argument("--modes", nargs="+", default=["train"])
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args(argv)
    from gluonlite.ops import conv_winograd
    for name in a.models:
        for mode in a.modes:
            xs, label = M._make_inputs(name, a.batch, np.random.default_rng(0))
            call = M._gluonlite_call(name, mode, a.batch, xs, label)[0]

            def side(on):
                def run():
                    conv_winograd.ENABLED = on
                    try:
                        call()
                    finally:
                        conv_winograd.ENABLED = True
                return run
            t = interleaved({"on": side(True), "off": side(False)}, a.rounds, 1,
                            clock=time.process_time)
            r = [b / c for b, c in zip(t["off"], t["on"])]
            print(f"{name} {mode} {a.batch}: on {median(t['on']):.1f} ms, off "
                  f"{median(t['off']):.1f} ms, off/on {median(r):.2f} "
                  f"({min(r):.2f}-{max(r):.2f})", flush=True)


if __name__ == "__main__":
    main()
