"""MXNet's random draws, gluonlite against MXNet 1.9.1, one thread: the same draws from the
same seed (gluonlite reproduces MXNet's generators), from one value to a hundred million.

    PYTHONPATH=. python benchmarks/random_draws.py [--rounds 5] [--warmup 1]
        [--cases SUBSTRING ...] [--scale 1] [--mxnet-python /work/venvs/mx/bin/python]
        [--clock cpu|wall]

The cases (`mxnet_random_rows.CASES`): one-value draws (their fixed cost per call), draws of
ten thousand and a million values, Dropout's mask, a gamma draw with a shape per value and
Poisson draws with a rate per value (8192 counts, and a DeepAR forecast step's 800), and the
large draws of
initializing BERT's embedding (23 million normals) and VGG's first Dense layer under
``npx.set_np()`` (103 million uniforms, `mx.np.random`'s single stream). Each round times
gluonlite's call, then the same call in a long-lived MXNet worker
(`mxnet_random_rows.py`, ``OMP_NUM_THREADS=1``, ``MXNET_ENGINE_TYPE=NaiveEngine``); both
seed once at the case's setup and draw on from there.

The table gives medians (ms a draw; a one-value case is timed 200 draws to a call) with the
spread (max - min over the rounds, in % of the median)
and the ratio gluonlite / MXNet; ``--clock cpu`` (the default) times each process's CPU time.
``--scale`` shrinks every draw (the tests run it tiny). Without an MXNet interpreter
(``--mxnet-python`` or $GLUONLITE_MXNET_PYTHON) only gluonlite's column is filled.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("MXNET_ENGINE_TYPE", "NaiveEngine")  # MXNet's calls on one thread
from _timing import interleaved, median  # noqa: E402
from _tables import markdown_table, print_header  # noqa: E402
from _rows_client import case_arguments, collect_rows, mxnet_worker  # noqa: E402
from mxnet_random_rows import CASES, make_call, repeats  # noqa: E402


def _cell(v):
    m = median(v)
    spread = 100.0 * (max(v) - min(v)) / m if m else 0.0
    return f"{m:.3g} ±{spread:.0f}%"


def main(argv=None):
    """Run the cases and print the Markdown table; returns 0."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    case_arguments(ap)
    ap.add_argument("--scale", type=float, default=1.0)
    a = ap.parse_args(argv)
    if a.rounds < 1:
        ap.error(f"--rounds: expected at least 1, got {a.rounds}")
    if a.scale <= 0:
        ap.error(f"--scale: expected a positive fraction, got {a.scale}")
    worker, extra = mxnet_worker("mxnet_random_rows.py", a.mxnet_python)
    print_header("random_draws", argv, f"- {a.clock} time; rounds {a.rounds} after "
                 f"{a.warmup} warmup, interleaved gluonlite / MXNet; scale {a.scale}", extra)
    clock = time.process_time if a.clock == "cpu" else time.perf_counter
    rows = collect_rows(worker, lambda rows: _run(a, worker, clock, rows))
    print(markdown_table(["case", "gluonlite ms", "MXNet ms", "/ MXNet"], rows))
    return 0


def _run(a, worker, clock, rows):
    """Time every selected case, appending one table row each."""
    import gluonlite
    for k, (name, _, _) in enumerate(CASES):
        if a.cases and not any(s in name for s in a.cases):
            continue
        gluonlite.random.seed(0)
        call = make_call(gluonlite, k, a.scale)
        call()  # as the worker's setup: the generators made, the first call warmed up
        after = None
        if worker is not None:
            worker.request(op="setup", case=k, scale=a.scale)

            def after():
                return worker.request(op="round", mode="run", clock=a.clock)["ms"]
        t = interleaved({"gluonlite": call}, a.rounds, a.warmup, after_round=after,
                        clock=clock)
        per = repeats(k)  # ms per draw
        ours = [v / per for v in t["gluonlite"]]
        mx = [v / per for v in t["mxnet"]] if "mxnet" in t else None
        row = [name, _cell(ours)]
        row += [_cell(mx), f"{median(ours) / median(mx):.2f}"] if mx else ["-", "-"]
        rows.append(row)
        print(f"  {row}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())
