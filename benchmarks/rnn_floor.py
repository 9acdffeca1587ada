"""Loops at the numpy floor (issue 8, goal 1): gluonlite's RNN loop layers vs hand-written numpy.

    PYTHONPATH=. python benchmarks/rnn_floor.py [--quick] [--rounds 10] [--warmup 1]
        [--cells RNNCell,GRUCell,LSTMCell] [--batches 1,32] [--modes infer,train]
        [--seq-len 100] [--input-size 512] [--hidden-size 512]
        [--layers imperative:foreach,imperative:while_loop,hybrid:foreach,hybrid:while_loop,
                  imperative:fused,hybrid:fused]
        [--no-mxnet] [--no-torch] [--no-jax] [--clock wall|cpu] [--json FILE]

For every cell x batch x mode (infer = one forward; train = forward under
autograd.record() plus backward of the stacked outputs' sum into parameters, inputs and
initial states), in one process: the gluonlite layers of the seed benchmark (ForeachRNN,
WhileRNN; imperative, and hybridized with static_alloc=True), the one-layer gluon.rnn
layer of the same cell on the fused RNN operator ("fused"), "floor-step" and
"floor-fused" (gluonlite.test_utils.rnn_floor). The variants run interleaved round by round so
drift on the machine hits them alike; the table gives median ms and each variant's ratio
to floor-step and to floor-fused. Before timing, every layer's outputs and gradients are
checked against both floors on the same parameters (copied from the gluon cell); the run
aborts (exit status 1) if they differ.

If GLUONLITE_MXNET_PYTHON names a python with mxnet 1.9.1, benchmarks/mxnet_rnn_rows.py
runs under it as one long-lived subprocess; each round, right after our variants, it times
MXNet's imperative and hybridized foreach/while_loop layers and its fused gluon.rnn layer
on the same case, so its rows sit in the same table, measured interleaved with ours.

Likewise, if GLUONLITE_TORCH_PYTHON names a python with torch (and numpy),
benchmarks/torch_rnn_rows.py times PyTorch's cell loop (`torch.nn.LSTMCell` etc. in a
Python loop, eager and under torch.jit.script) and its fused layer (`torch.nn.LSTM`,
`GRU`, `RNN`) on the case's own inputs and parameters; its eager loop's outputs and
gradients are checked against the floors first (exit status 1 if they differ), and the
fused layer's against the eager loop's.

Likewise, if GLUONLITE_JAX_PYTHON names a python with jax (and numpy),
benchmarks/jax_rnn_rows.py times the cell scanned with `jax.lax.scan` under `jax.jit`
(forward; `jax.value_and_grad` for train), checked against the floors first.

`--clock cpu` times each call by the CPU time of its process (every thread's) instead of
wall time: on a machine other jobs load, waiting for a core then does not count.

BLAS and OpenMP run one thread unless OPENBLAS_NUM_THREADS / OMP_NUM_THREADS /
MKL_NUM_THREADS are set (benchmarks/_env.py); the header prints the BLAS kernel in
use and these variables (and OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE, left as they are).
"""
import argparse
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _timing import check_rounds_and_modes, interleaved, median  # noqa: E402
from _loop_case import LoopCase  # noqa: E402
from _tables import flush_print, markdown_table, print_header  # noqa: E402
from _rows_client import RowsWorker, WorkerError  # noqa: E402

ALL_LAYERS = ("imperative:foreach,imperative:while_loop,hybrid:foreach,hybrid:while_loop,"
              "imperative:fused,hybrid:fused")


def _csv(kind):
    return lambda s: [kind(v) for v in s.split(",") if v]


def add_case_arguments(ap, layers):
    """The loop-case options this script and rnn_bound.py share (cells, batches, modes,
    warmup, layers with default `layers`, tol, json); each adds its own sizes, rounds and
    clock. Read them back with `check_layers`."""
    ap.add_argument("--cells", type=_csv(str), default=["RNNCell", "GRUCell", "LSTMCell"])
    ap.add_argument("--batches", type=_csv(int), default=[1, 32])
    ap.add_argument("--modes", type=_csv(str), default=["infer", "train"])
    ap.add_argument("--warmup", type=int, default=1, help="untimed rounds (after the check)")
    ap.add_argument("--layers", type=_csv(str), default=layers.split(","),
                    help=f"gluonlite layers as kind:loop (default {layers})")
    ap.add_argument("--tol", type=float, default=1e-3,
                    help="relative tolerance of the floor check (float32)")
    ap.add_argument("--json", metavar="FILE", help="also write every timing as JSON")


def check_layers(ap, a):
    """Turn ``a.layers`` into (kind, loop) pairs; an argparse error names a bad item."""
    try:
        a.layers = [tuple(spec.split(":")) for spec in a.layers]
    except ValueError:
        ap.error(f"--layers: expected kind:loop items, got {a.layers}")
    for spec in a.layers:
        if len(spec) != 2 or spec[0] not in ("imperative", "hybrid") \
                or spec[1] not in ("foreach", "while_loop", "fused"):
            ap.error(f"--layers: {':'.join(spec)!r} is not "
                     f"(imperative|hybrid):(foreach|while_loop|fused)")


def parse_args(argv=None):
    """The command line (see the module doc); --quick sets rounds 3 and warmup 1."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_case_arguments(ap, ALL_LAYERS)
    ap.add_argument("--seq-len", type=int, default=100)
    ap.add_argument("--input-size", type=int, default=512)
    ap.add_argument("--hidden-size", type=int, default=512)
    ap.add_argument("--rounds", type=int, default=10, help="timed rounds per case")
    ap.add_argument("--quick", action="store_true", help="--rounds 3 --warmup 1")
    ap.add_argument("--no-mxnet", action="store_true",
                    help="ignore GLUONLITE_MXNET_PYTHON")
    ap.add_argument("--no-torch", action="store_true",
                    help="ignore GLUONLITE_TORCH_PYTHON")
    ap.add_argument("--no-jax", action="store_true",
                    help="ignore GLUONLITE_JAX_PYTHON")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="time by wall clock (default) or by the process's CPU time")
    a = ap.parse_args(argv)
    check_rounds_and_modes(ap, a)
    check_layers(ap, a)
    return a


def run_case(case, mode, rounds, warmup, workers, clock="wall"):
    """Interleaved timings of one (cell, batch, mode): {variant name: [ms per round]}; each
    round ends with one round of every worker in `workers`; `clock` 'wall' or 'cpu'."""
    train = mode == "train"
    variants = {f"gluonlite {kind} {loop}": case.layer_call((kind, loop), train)
                for kind, loop in case.layers}
    variants["floor-step"] = case.floor_call(False, train)
    variants["floor-fused"] = case.floor_call(True, train)

    def after():
        ms = {}
        for w in workers:
            ms.update(w.request(op="round", mode=mode, clock=clock)["ms"])
        return ms
    return interleaved(variants, rounds, warmup, after if workers else None,
                       time.process_time if clock == "cpu" else time.perf_counter)


def cell_table(cell, medians, batches, modes):
    """Markdown table of one cell: rows are variants, columns batch x mode."""
    cols = [(b, m) for m in ("infer", "train") if m in modes for b in batches]
    names = []
    for b, m in cols:
        names += [n for n in medians.get((cell, b, m), {}) if n not in names]
    rows = []
    for n in names:
        row = [n]
        for b, m in cols:
            med = medians.get((cell, b, m), {})
            if n not in med:
                row.append("-")
                continue
            row.append(f"{med[n]:.1f} ({med[n] / med['floor-step']:.2f} / "
                       f"{med[n] / med['floor-fused']:.2f})")
        rows.append(row)
    header = [f"{cell}: ms (x floor-step / x floor-fused)"] + [f"batch {b} {m}" for b, m in cols]
    return markdown_table(header, rows)


def goal_lines(medians):
    """Issue 8 goals 2-4 and issue 17 goal 5 evaluated on the medians: list of
    'goal N: met/not met ...' lines."""
    g2, g3, g3_lstm, g4, g5 = [], [], [], [], []
    for (cell, batch, mode), med in medians.items():
        for kind in ("hybrid", "imperative"):
            fused = med.get(f"gluonlite {kind} fused")
            if fused is not None:
                g5.append((fused / med["floor-fused"], 1.05, f"{cell} b{batch} {mode} {kind}"))
        limit = 1.2 if mode == "infer" else 1.3
        for loop in ("foreach", "while_loop"):
            hyb = med.get(f"gluonlite hybrid {loop}")
            if hyb is None:
                continue
            g2.append((hyb / med["floor-step"], limit, f"{cell} b{batch} {mode} {loop}"))
            g3.append((hyb / med["floor-fused"], 1.2, f"{cell} b{batch} {mode} {loop}"))
            if cell == "LSTMCell":  # the cell of the reference table
                g3_lstm.append(g3[-1])
            imp = med.get(f"gluonlite imperative {loop}")
            if imp is not None and batch == 1:
                g4.append((hyb / imp, 0.5, f"{cell} b1 {mode} {loop}"))
    lines = []
    for goal, what, items in (
            (2, "hybrid <= 1.2x floor-step (infer) / 1.3x (train)", g2),
            (3, "hybrid <= 1.2x floor-fused, all cells", g3),
            (3, "hybrid <= 1.2x floor-fused, LSTMCell: the reference table's four columns",
             g3_lstm),
            (4, "hybrid >= 2x faster than imperative at batch 1 (hybrid/imperative <= 0.5)", g4),
            ("17.5", "fused gluon.rnn layer <= 1.05x floor-fused", g5)):
        if not items:
            lines.append(f"- goal {goal} ({what}): not measured in this run")
            continue
        failing = [i for i in items if i[0] > i[1]]
        worst = max(items, key=lambda i: i[0] / i[1])
        best = min(items, key=lambda i: i[0] / i[1])
        lines.append(f"- goal {goal} ({what}): {'met' if not failing else 'NOT met'}; "
                     f"{len(items) - len(failing)}/{len(items)} cases within; worst "
                     f"{worst[0]:.2f} ({worst[2]}), best {best[0]:.2f} ({best[2]})")
    return lines


def main(argv=None):
    """Run the benchmark; print the header, one table per cell and the goal lines.

    Returns the exit status: 0, 1 when gluonlite, PyTorch's loop and the floor disagree,
    2 when a worker (MXNet's, PyTorch's) fails (its message on stderr).
    """
    workers = {}
    try:
        return _run(parse_args(argv), argv, workers)
    except WorkerError as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 2
    finally:
        for w in workers.values():
            w.close()


# The frameworks whose rows a worker subprocess adds: (label, worker script, environment
# variable naming its python, the flag that ignores it, what that python needs, the
# header's description of the worker's hello reply).
FRAMEWORKS = (
    ("MXNet", "mxnet_rnn_rows.py", "GLUONLITE_MXNET_PYTHON", "no_mxnet", "mxnet 1.9.1",
     lambda h: f"mxnet {h['mxnet']} (numpy {h['numpy']}; features: "
               f"{', '.join(h['features'])})"),
    ("PyTorch", "torch_rnn_rows.py", "GLUONLITE_TORCH_PYTHON", "no_torch", "torch",
     lambda h: f"torch {h['torch']} (numpy {h['numpy']}, {h['threads']} threads)"),
    ("JAX", "jax_rnn_rows.py", "GLUONLITE_JAX_PYTHON", "no_jax", "jax",
     lambda h: f"jax {h['jax']} (numpy {h['numpy']}, backend {h['backend']})"),
)


def start_workers(a, workers):
    """Start the workers the environment names (filling `workers` {label: RowsWorker});
    return the header lines that describe them."""
    extra = []
    for label, script, env_var, ignore, needs, describe in FRAMEWORKS:
        python = None if getattr(a, ignore) else os.environ.get(env_var)
        if not python:
            extra.append(f"- {label} rows: none (set {env_var} to a python with {needs})")
            continue
        w = workers[label] = RowsWorker(script, python, env_var, label)
        extra.append(f"- {label} rows: {describe(w.request(op='hello'))} via {python}")
    return extra


def setup_workers(case, workers, layers, tmp, tol, refs):
    """Give every worker the case; check PyTorch's cell loop and JAX's scan against the
    floors (`refs`: `case.floor_refs()`).

    Raises:
        RuntimeError: PyTorch's or JAX's outputs or gradients differ from the floors'
            (from LoopCase.check_result).
    """
    T, N, I, H = case.shape
    spec = dict(cell=case.cell, batch=N, seq_len=T, input_size=I, hidden_size=H)
    if "MXNet" in workers:
        workers["MXNet"].request(op="setup", layers=[list(k) for k in layers], seed=0, **spec)
    checked = {"PyTorch": "pytorch eager cell loop", "JAX": "jax lax.scan"}
    for label, row in checked.items():
        if label not in workers:
            continue
        case_file, result = os.path.join(tmp, "case.npz"), os.path.join(tmp, "result.npz")
        case.write_inputs(case_file)
        reply = workers[label].request(op="setup", case=case_file, result=result, **spec)
        errors = case.check_result(row, result, tol, refs)
        flush_print(f"checked {case.cell} batch {N}: {row} == floors "
                    f"(worst relative error {max(errors.values()):.1e})")
        for name, why in reply["skipped"].items():
            flush_print(f"skipped {name}: {why}")


class CaseCheckFailed(RuntimeError):
    """A loop case's gluonlite layers disagree with the floors (or a worker's with ours)."""


def checked_cases(a, workers, tmp, floors):
    """Yield ``(cell, batch, case)`` for every cell and batch `a` asks for: each `LoopCase`
    checked against the floors (named `floors` in the line printed) and set up in the peer
    `workers` (their files under `tmp`).

    Raises:
        CaseCheckFailed: a check failed (WorkerError, a worker that broke, passes through).
    """
    for cell in a.cells:
        for batch in a.batches:
            case = LoopCase(cell, batch, a.seq_len, a.input_size, a.hidden_size, a.layers)
            try:
                refs = case.floor_refs()
                errors = case.check(a.tol, refs)
                worst = max(errors.values()) if errors else 0.0
                flush_print(f"checked {cell} batch {batch}: gluonlite == {floors} "
                            f"(worst relative error {worst:.1e})")
                setup_workers(case, workers, a.layers, tmp, a.tol, refs)
            except WorkerError:
                raise
            except RuntimeError as exc:
                raise CaseCheckFailed(str(exc)) from exc
            yield cell, batch, case
            del case


def time_cases(a, workers, floors, run_case, record):
    """Check and time every case `a` asks for (`checked_cases`, its line naming `floors`):
    each mode with ``run_case(case, mode, rounds, warmup, workers, clock) -> {row: [ms]}``,
    each result handed to ``record(cell, batch, mode, times)``; the raw timings go to
    ``a.json`` when given.

    Returns 0, or 1 when a case failed its check (the message on stderr).
    """
    raw = []
    with tempfile.TemporaryDirectory() as tmp:
        try:
            for cell, batch, case in checked_cases(a, workers, tmp, floors):
                for mode in a.modes:
                    times = run_case(case, mode, a.rounds, a.warmup, list(workers.values()),
                                     a.clock)
                    record(cell, batch, mode, times)
                    raw.append({"cell": cell, "batch": batch, "mode": mode,
                                "seq_len": a.seq_len, "input_size": a.input_size,
                                "hidden_size": a.hidden_size, "ms": times})
                del case  # its arrays go before the next case makes its own
        except CaseCheckFailed as exc:
            print(f"ABORT: {exc}", file=sys.stderr)
            return 1
    if a.json:
        from gluonlite.base import write_atomically
        write_atomically(a.json, json.dumps(raw, indent=1))
    return 0


def _run(a, argv, workers):
    extra = start_workers(a, workers)
    T, I, H = a.seq_len, a.input_size, a.hidden_size
    print_header("rnn_floor", argv, f"- seq_len {T}, input {I}, hidden {H}, float32; "
                 f"{a.rounds} timed rounds after {a.warmup} warmup (+1 check call); medians; "
                 f"{a.clock} clock",
                 extra)
    medians = {}

    def record(cell, batch, mode, times):
        medians[(cell, batch, mode)] = {n: median(v) for n, v in times.items()}
    if time_cases(a, workers, "floor-step == floor-fused", run_case, record):
        return 1
    flush_print("")
    for cell in a.cells:
        flush_print(cell_table(cell, medians, a.batches, a.modes))
        flush_print("")
    flush_print("\n".join(goal_lines(medians)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
