"""Dispatch overhead of one imperative operator call on a tiny array, against the bare numpy
call that does the same arithmetic, with and without ``autograd.record()``.

Run from the repository root::

    python benchmarks/dispatch.py [--number 2000] [--repeat 15]

Prints a Markdown table: per-call median times (microseconds) and the ratios to numpy.
Tiny arrays make the kernel time negligible, so the ratio is the price of the Python layer
(argument binding, attribute parsing, shape/dtype checks, NDArray wrapping, taping).
"""
import argparse
import os
import statistics
import sys
import timeit

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from gluonlite import autograd, nd  # noqa: E402


def cases():
    """(label, numpy call, gluonlite call) triples over tiny (2, 2)-ish arrays."""
    a = np.arange(4, dtype=np.float32).reshape(2, 2)
    b = np.ones((2, 2), dtype=np.float32)
    w = np.ones((3, 2), dtype=np.float32)
    bias = np.zeros(3, dtype=np.float32)
    x, y, W, B = nd.array(a), nd.array(b), nd.array(w), nd.array(bias)
    x.attach_grad()  # so that calls under record() leave a tape node
    return [
        ("x + y", lambda: a + b, lambda: x + y),
        ("x * 2", lambda: a * 2, lambda: x * 2),
        ("nd.relu(x)", lambda: np.maximum(a, 0), lambda: nd.relu(x)),
        ("nd.sum(x, axis=0)", lambda: a.sum(axis=0), lambda: nd.sum(x, axis=0)),
        ("nd.dot(x, y)", lambda: a.dot(b), lambda: nd.dot(x, y)),
        ("nd.FullyConnected", lambda: a.dot(w.T) + bias,
         lambda: nd.FullyConnected(x, W, B, num_hidden=3)),
        ("x[0]", lambda: a[0], lambda: x[0]),
    ]


def per_call_us(fn, number, repeat):
    """Median over `repeat` runs of the time of one call, in microseconds."""
    times = timeit.repeat(fn, number=number, repeat=repeat)
    return statistics.median(times) / number * 1e6


def recorded(fn):
    def run():
        with autograd.record():
            return fn()
    return run


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--number", type=int, default=2000, help="calls per timing run")
    ap.add_argument("--repeat", type=int, default=15, help="timing runs (the median is kept)")
    args = ap.parse_args(argv)
    # entering record() costs a context manager per call; measure it and subtract it so the
    # last column is the price of taping the operator, not of the `with` statement
    empty = per_call_us(recorded(lambda: None), args.number, args.repeat)
    rows = []
    for label, np_fn, nd_fn in cases():
        t_np = per_call_us(np_fn, args.number, args.repeat)
        t_nd = per_call_us(nd_fn, args.number, args.repeat)
        t_rec = per_call_us(recorded(nd_fn), args.number, args.repeat) - empty
        rows.append((label, t_np, t_nd, t_nd / t_np, t_rec, t_rec / t_np))
    print(f"median of {args.repeat} x {args.number} calls; record() entry "
          f"({empty:.2f} us) subtracted from the last columns\n")
    print("| call | numpy (us) | nd (us) | nd / numpy | nd+record (us) | record / numpy |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, t_np, t_nd, r_nd, t_rec, r_rec in rows:
        print(f"| `{label}` | {t_np:.2f} | {t_nd:.2f} | {r_nd:.1f}x | {t_rec:.2f} | {r_rec:.1f}x |")


if __name__ == "__main__":
    main()
