"""float32 GELU from float32 ufuncs (`gluonlite/ops/normal_cdf.py`) against the erf formula it
replaced (``0.5 * x * (1 + erf(x / sqrt 2))``, scipy's erf), on BERT-base's shapes.

    PYTHONPATH=. python benchmarks/gelu_float32.py [--rounds 9] [--batches 1 32] [--scale 1]

- Operator rows: GELU's forward, a block at a time as the fast path runs it (`gelu_fast`),
  on BERT's feed-forward activations (batch x 128 tokens, 3072 wide), drawn from N(0, 1) and
  from N(0, 9). scipy's erf costs more where |x / sqrt 2| > 1 (its erfc branch: an exp and a
  longer rational), normal_cdf the same everywhere.
- Model rows: BERT-base's encoder (`_bench_models`, 12 layers, sequence 128) inferring,
  hybridized with static_alloc/static_shape (GELU fused into its Dense layer). The same
  network runs both variants: the erf formula is swapped in for `normal_cdf.gelu_float32`
  between calls.

Variants are interleaved in every round, in one process, one BLAS thread (`_timing`); CPU
ms medians, new / old with its range over the rounds, and the largest difference of the
model's outputs over the largest output. `--scale` shrinks the operator arrays' rows and the
model's batch to a fraction (the tests run it tiny).
"""
import argparse
import contextlib
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _timing import interleaved_ab  # noqa: E402  (first: one BLAS thread)
from _tables import ab_cells  # noqa: E402
import _bench_models  # noqa: E402

import numpy as np  # noqa: E402
from scipy.special import erf  # noqa: E402

import gluonlite as mx  # noqa: E402
from gluonlite.ops import gelu_fast, normal_cdf  # noqa: E402

_SQRT2 = math.sqrt(2.0)


def erf_formula(xp, x, out=None, scratch=None):
    """The float32 rule before normal_cdf, with gelu_float32's signature: ``0.5 * x * (1 +
    erf(x / sqrt 2))``, scipy's erf on float32 data."""
    out = np.empty_like(x) if out is None else out
    t = scratch[0] if scratch is not None else np.empty_like(x)
    np.divide(x, _SQRT2, out=t)
    erf(t, out=t)
    np.add(1, t, out=t)
    np.multiply(0.5, x, out=out)
    np.multiply(out, t, out=out)
    return out


@contextlib.contextmanager
def variant(new):
    """normal_cdf's GELU (new=True) or the erf formula in its place."""
    saved = normal_cdf.gelu_float32
    if not new:
        normal_cdf.gelu_float32 = erf_formula
    try:
        yield
    finally:
        normal_cdf.gelu_float32 = saved


def _time(call, rounds):
    """{'new': [CPU ms per round], 'old': [...]} of `call` under each variant, interleaved
    (the first round untimed)."""
    return interleaved_ab(call, variant, rounds)


def _row(what, res, difference="-"):
    return "| " + " | ".join([what] + ab_cells(res["new"], res["old"]) + [difference]) + " |"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--batches", type=int, nargs="+", default=[1, 32])
    ap.add_argument("--scale", type=float, default=1.0)
    a = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    print("| case | erf formula ms | normal_cdf ms | new / old | range | output difference |")
    print("|---|---:|---:|---:|---|---:|")
    for batch in a.batches:
        rows = max(1, round(batch * 128 * a.scale))
        for sigma in (1, 3):
            x = rng.standard_normal((rows, _bench_models.FFN)).astype(np.float32) * sigma
            out = np.empty_like(x)
            res = _time(lambda: gelu_fast.forward(x, out=out), a.rounds)
            print(_row(f"GELU forward, batch {batch} ({rows} x 3072), x ~ N(0, {sigma ** 2})",
                       res), flush=True)
    for batch in a.batches:
        nb = max(1, round(batch * a.scale))
        mx.random.seed(0)
        net, _ = _bench_models.build(mx, "bert_base", nb)
        net.hybridize(static_alloc=True, static_shape=True)
        data = mx.nd.array(rng.standard_normal((nb, _bench_models.SEQ, _bench_models.WIDTH)),
                           dtype="float32")
        outs = {}
        for new in (True, False):
            with variant(new):
                outs[new] = net(data).asnumpy()
        diff = np.abs(outs[True] - outs[False]).max() / np.abs(outs[False]).max()
        res = _time(lambda: net(data).wait_to_read(), a.rounds)
        print(_row(f"BERT-base inference, batch {nb}", res, f"{diff:.1e}"), flush=True)


if __name__ == "__main__":
    main()
