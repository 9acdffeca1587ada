"""float32 exp and log as the C library computes them (`gluonlite/ops/libm32.py`: MXNet 1.9.1's
numbers bit for bit) against the correctly rounded value through float64, the rule before,
and numpy's own float32 ufuncs for scale.

    PYTHONPATH=. python benchmarks/libm32.py [--rounds 9] [--scale 1]

Rows: `nd.exp` and `nd.log` of a million float32 entries (exp over [-20, 20], log over
(0, 10)), and `nd.random.normal` of a million values (its float32 logarithm is `logf`).
Variants interleaved in every round, one process, one BLAS thread (`_timing`); medians of
CPU time (ms a call), the C library's / the correctly rounded with its range over the
rounds. `--scale` shrinks the arrays (the tests run it tiny).
"""
import argparse
import contextlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _timing import interleaved_variants, median  # noqa: E402  (first: one BLAS thread)

import numpy as np  # noqa: E402

import gluonlite as mx  # noqa: E402
from gluonlite.ops import libm32  # noqa: E402


@contextlib.contextmanager
def variant(name):
    """'libm' (as shipped), 'rounded' (the correctly rounded value: libm32 without its C
    library), or 'numpy' (numpy's float32 ufuncs in libm32's place)."""
    saved = libm32._checked, libm32.expf, libm32.logf
    try:
        if name != "libm":
            libm32._checked = lambda fname: None
        if name == "numpy":
            libm32.expf = lambda x: np.exp(np.asarray(x, np.float32))
            libm32.logf = lambda x: np.log(np.asarray(x, np.float32))
        yield
    finally:
        libm32._checked, libm32.expf, libm32.logf = saved


def _calls(n):
    rng = np.random.default_rng(0)
    xe = mx.nd.array(rng.uniform(-20, 20, n).astype(np.float32))
    xl = mx.nd.array(rng.uniform(0, 10, n).astype(np.float32))

    def normal():
        mx.random.seed(0)
        mx.nd.random.normal(0, 1, shape=(n,)).wait_to_read()
    return [("nd.exp", lambda: mx.nd.exp(xe).wait_to_read()),
            ("nd.log", lambda: mx.nd.log(xl).wait_to_read()),
            ("nd.random.normal", normal)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--scale", type=float, default=1.0)
    a = ap.parse_args(argv)
    n = max(1, round((1 << 20) * a.scale))
    print("| case | numpy float32 (ms) | correctly rounded (ms) | C library (ms) "
          "| C library / rounded | range |")
    print("|---|---:|---:|---:|---:|---|")
    for label, call in _calls(n):
        res = interleaved_variants(call, variant, ("numpy", "rounded", "libm"), a.rounds)
        ratios = [x / y for x, y in zip(res["libm"], res["rounded"])]
        print(f"| {label}, {n} values | {median(res['numpy']):.2f} | "
              f"{median(res['rounded']):.2f} | {median(res['libm']):.2f} | "
              f"{median(res['libm']) / median(res['rounded']):.2f} | "
              f"{min(ratios):.2f}-{max(ratios):.2f} |", flush=True)


if __name__ == "__main__":
    main()
