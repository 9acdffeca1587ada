"""The detection operators (box_nms, ROIAlign, PSROIPooling, box_iou, bipartite_matching,
box_decode, MultiBox*, MultiProposal, DeformableConvolution) against MXNet 1.9.1, one thread.

    PYTHONPATH=. python benchmarks/detection_ops.py [--rounds 5] [--warmup 1]
        [--cases SUBSTRING ...] [--mxnet-python /work/venvs/mx/bin/python] [--clock cpu|wall]

The cases (`_detection_cases.py`) are the shapes GluonCV 0.10's Faster R-CNN, SSD-512 and
YOLOv3 give these operators on a 512 x 512 image, and those of SSD's target generator. Per
case, each round times gluonlite's ``nd`` call, then the same call on the same inputs in a
long-lived MXNet worker (`mxnet_detection_rows.py`, ``OMP_NUM_THREADS=1``,
``MXNET_ENGINE_TYPE=NaiveEngine``): interleaved rounds in one run, so both sides see the
same machine load. A case with gradient inputs times forward + backward.

The table gives medians (ms) with the spread (max - min over the rounds, in % of the
median) and the ratio gluonlite / MXNet. ``--clock cpu`` (the default) times each call
with its process's CPU time, which other jobs on a shared machine disturb far less than
wall time; ``--clock wall`` uses wall time. Without an MXNet interpreter (``--mxnet-python``
or $GLUONLITE_MXNET_PYTHON) only gluonlite's column is filled.
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
from _detection_cases import CASES  # noqa: E402
from mxnet_detection_rows import make_call  # noqa: E402


def _spread(v):
    m = median(v)
    return 100.0 * (max(v) - min(v)) / m if m else 0.0


def _cell(v):
    return f"{median(v):.1f} ±{_spread(v):.0f}%"


def main(argv=None):
    """Run the cases and print the Markdown table; returns 0."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    case_arguments(ap)
    a = ap.parse_args(argv)
    if a.rounds < 1:
        ap.error(f"--rounds: expected at least 1, got {a.rounds}")
    worker, extra = mxnet_worker("mxnet_detection_rows.py", a.mxnet_python)
    print_header("detection_ops", argv, f"- {a.clock} time; rounds {a.rounds} after "
                 f"{a.warmup} warmup, interleaved gluonlite / MXNet", extra)
    clock = time.process_time if a.clock == "cpu" else time.perf_counter
    rows = collect_rows(worker, lambda rows: _run(a, worker, clock, rows))
    print(markdown_table(["case", "pass", "gluonlite ms", "MXNet ms", "/ MXNet"], rows))
    return 0


def _run(a, worker, clock, rows):
    """Time every selected case, appending one table row each."""
    import gluonlite
    for k, (name, path, attrs, grads) in enumerate(CASES):
        if a.cases and not any(s in name for s in a.cases):
            continue
        call = make_call(gluonlite, k)
        after = None
        if worker is not None:
            worker.request(op="setup", case=k)

            def after():
                return worker.request(op="round", mode="run", clock=a.clock)["ms"]
        t = interleaved({"gluonlite": call}, a.rounds, a.warmup, after_round=after,
                        clock=clock)
        ours = t["gluonlite"]
        mx = t.get("mxnet")
        row = [name, "fwd+bwd" if grads else "fwd", _cell(ours)]
        row += [_cell(mx), f"{median(ours) / median(mx):.2f}"] if mx else ["-", "-"]
        rows.append(row)
        print(f"  {row}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())
