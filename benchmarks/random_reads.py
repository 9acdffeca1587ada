"""How MXNet's parallel random stream (`gluonlite/ops/mxnet_rng.py`) is read, against the read
it replaced, on draws a seeded program makes: a draw of N values is split over up to 1024
twisters, so a sampler that reads ahead pays a Python step per twister.

    PYTHONPATH=. python benchmarks/random_reads.py [--rounds 15] [--scale 1]

- new: each twister writes its words straight into the sampler's block (`_Twister.into`,
  `_Twisters.rows`), and the words read ahead and not used go back as views of that block
  (`unread`).
- old: each twister's words as an array of their own, stacked into the block (a second
  copy), and the words handed back copied.

Both give the same draws (checked before timing). Cases: draws that read their twisters this
way, those over fewer than 64 runs or of long runs (a draw over 64 runs or more of a few
hundred words each, and the rejection samplers' steps, read the stream's read-ahead rows
instead, which neither variant changes): `nd.random.normal` of 3000 values (47 twisters) and
of 2**20 (1024 twisters of 1024 values), a gamma draw with a shape per value as GluonTS's
Student-t forecasts make one (3000 values over 47 twisters), such a forecast step's draws
after a seed (the seed, the normal, the gamma), and `nd.random.uniform` of 2**20 values (its
read is the same in both: the control row).

Variants are interleaved in every round, in one process, one BLAS thread (`_timing`); CPU
ms medians of each round's `--reps` draws, new / old with its range over the rounds.
`--scale` shrinks every draw to a fraction (the tests run it tiny).
"""
import argparse
import contextlib
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _timing import interleaved_ab  # noqa: E402  (first: one BLAS thread)

import numpy as np  # noqa: E402

import gluonlite as mx  # noqa: E402
from gluonlite.ops import mxnet_rng  # noqa: E402


def stacked_rows(self, twisters, width):
    """The block read before `_Twisters.rows`: one array per twister, stacked."""
    return np.stack([tw.words(width) for tw in twisters])


def copying_unread(self, w):
    """The hand-back before views were kept: the words copied."""
    if len(w):
        self.drawn -= len(w)
        self._back = np.concatenate([w, self._back]) if len(self._back) else w.copy()


@contextlib.contextmanager
def variant(new):
    """The stream read as the library reads it (new=True) or as it read before."""
    saved = mxnet_rng._Twisters.rows, mxnet_rng._Twister.unread
    if not new:
        mxnet_rng._Twisters.rows = stacked_rows
        mxnet_rng._Twister.unread = copying_unread
    try:
        yield
    finally:
        mxnet_rng._Twisters.rows, mxnet_rng._Twister.unread = saved


def cases(scale):
    """[(name, draw)]: each draw a zero-argument callable returning its values (numpy)."""
    def n(v):
        return max(1, round(v * scale))
    rs = np.random.RandomState(0)
    # Student-t degrees of freedom 2 + softplus: gamma shapes of 1 and more, one per value
    shapes = mx.nd.array(1 + np.log1p(np.exp(rs.standard_normal(n(3000)))), dtype="float32")
    scales = mx.nd.ones(shapes.shape)

    def forecast_step():
        mx.random.seed(1)
        z = mx.nd.random.normal(shape=(n(3000),))
        g = mx.nd.random.gamma(shapes, scales)
        return np.concatenate([z.asnumpy(), g.asnumpy()])
    return [
        (f"normal, {n(3000)} values", lambda: mx.nd.random.normal(shape=(n(3000),)).asnumpy()),
        (f"normal, {n(1 << 20)} values",
         lambda: mx.nd.random.normal(shape=(n(1 << 20),)).asnumpy()),
        (f"gamma, a shape per value, {n(3000)} values",
         lambda: mx.nd.random.gamma(shapes, scales).asnumpy()),
        ("a forecast step after a seed (seed, normal, gamma)", forecast_step),
        (f"uniform, {n(1 << 20)} values (control)",
         lambda: mx.nd.random.uniform(shape=(n(1 << 20),)).asnumpy()),
    ]


def same_draws(draw):
    """True when both variants draw the same values from the same seed."""
    got = []
    for new in (True, False):
        mx.random.seed(5)
        with variant(new):
            got.append(draw())
    return np.array_equal(got[0], got[1])


def _time(draw, rounds, reps):
    def calls():
        for _ in range(reps):
            draw()
    return interleaved_ab(calls, variant, rounds)


def _cells(new, old):
    ratios = [a / b for a, b in zip(new, old)]
    mn, mo = statistics.median(new), statistics.median(old)
    return [f"{mo:.3g}", f"{mn:.3g}", f"{mn / mo:.2f}", f"{min(ratios):.2f}-{max(ratios):.2f}"]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--reps", type=int, default=5, help="draws per timed round")
    ap.add_argument("--scale", type=float, default=1.0)
    a = ap.parse_args(argv)
    print(f"| case | old ms ({a.reps} draws) | new ms | new / old | range | same draws |")
    print("|---|---:|---:|---:|---|---|")
    for name, draw in cases(a.scale):
        same = same_draws(draw)
        res = _time(draw, a.rounds, a.reps)
        print("| " + " | ".join([name] + _cells(res["new"], res["old"])
                                + ["yes" if same else "NO"]) + " |", flush=True)


if __name__ == "__main__":
    main()
