"""Flat scaling in seq_len (issue 8, goal 5): per-step time, first call, JSON size, saved memory.

    PYTHONPATH=. python benchmarks/rnn_scaling.py [--quick] [--seq-lens 10,100,1000]
        [--cell LSTMCell] [--batch 1] [--input-size 512] [--hidden-size 512]
        [--modes infer,train] [--rounds 5] [--warmup 1] [--steps-per-unit 0]

For each seq_len, on the hybridized (static_alloc=True) ForeachRNN and WhileRNN layers:

- per-step time: median ms per call / seq_len, infer and train (train = forward under
  autograd.record() + backward of the outputs' sum), interleaved round by round with
  floor-step and floor-fused; and the ratio to the per-step time at seq_len 100 (or the
  first seq_len if 100 is not run). With --steps-per-unit S, a timed unit is
  ceil(S / seq_len) calls of one variant back to back (as timeit's `number`), so that a
  short sequence is timed in the steady state of repeated calls rather than right after
  the other variants have replaced the cache's contents;
- first call: the first (trace + compile + run) infer call of a fresh layer, the first
  train call after it, and those minus a steady call of the same kind (the compile cost);
- exported JSON size: bytes of `layer.export(...)`'s -symbol.json;
- memory saved for backward: bytes traced by tracemalloc after a recorded forward (and a
  gc.collect(), which empties CPython's free lists) minus before it (the outputs
  included; the graph is compiled already), against the arrays
  the floor keeps for its backward (outputs included), in bytes and bytes per step.

Layers are checked against the floor (outputs and gradients) before timing.
"""
import argparse
import gc
import os
import sys
import tempfile
import time
import tracemalloc

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import (check_rounds_and_modes, flush_print, fmt_bytes, interleaved,
                     LoopCase, markdown_table, median, print_header)  # noqa: E402

LOOPS = ("foreach", "while_loop")
# What FloorRNN keeps between forward and backward (the rest is scratch or gradients).
FLOOR_SAVED = ("hs", "gi", "gh", "acts", "c", "tc")


def parse_args(argv=None):
    """The command line (see the module doc); --quick sets rounds 3, warmup 1."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seq-lens", type=lambda s: [int(v) for v in s.split(",") if v],
                    default=[10, 100, 1000])
    ap.add_argument("--cell", default="LSTMCell", choices=["RNNCell", "GRUCell", "LSTMCell"])
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--input-size", type=int, default=512)
    ap.add_argument("--hidden-size", type=int, default=512)
    ap.add_argument("--modes", type=lambda s: [v for v in s.split(",") if v],
                    default=["infer", "train"])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--steps-per-unit", type=int, default=0,
                    help="time ceil(S / seq_len) calls back to back per unit (0: one call)")
    ap.add_argument("--quick", action="store_true", help="--rounds 3 --warmup 1")
    a = ap.parse_args(argv)
    check_rounds_and_modes(ap, a)
    if a.steps_per_unit < 0:
        ap.error(f"--steps-per-unit must be >= 0, got {a.steps_per_unit}")
    return a


def calls_per_unit(steps_per_unit, seq_len):
    """How many calls one timed unit makes: ceil(steps_per_unit / seq_len), at least 1."""
    return max(1, -(-steps_per_unit // seq_len))


def repeated(fn, k):
    """A zero-arg callable running fn k times."""
    if k == 1:
        return fn

    def unit():
        for _ in range(k):
            fn()
    return unit


def _timed(fn):
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1e3


def first_calls(case):
    """{loop: (first infer ms, first train ms)} of fresh hybridized layers."""
    return {loop: (_timed(case.layer_call(("hybrid", loop), False)),
                   _timed(case.layer_call(("hybrid", loop), True))) for loop in LOOPS}


def json_sizes(case):
    """{loop: bytes of the exported -symbol.json}."""
    sizes = {}
    with tempfile.TemporaryDirectory() as tmp:
        for loop in LOOPS:
            sym_file, _ = case.layers[("hybrid", loop)].export(os.path.join(tmp, loop))
            sizes[loop] = os.path.getsize(sym_file)
    return sizes


def held_for_backward(case, loop, repeats=1):
    """Bytes traced after a recorded forward minus before it (median of `repeats`)."""
    from gluonlite import autograd
    layer, states = case.layers[("hybrid", loop)], case.layer_states(loop)
    gc.collect()
    tracemalloc.start()
    try:
        held = []
        for _ in range(repeats + 1):  # the first one primes lazily made caches
            before = tracemalloc.get_traced_memory()[0]
            with autograd.record():
                out = layer(case.x, states)
            # A collection empties CPython's free lists (freed tuples stay allocated there,
            # up to 2000 of a size), which tracemalloc would count as held.
            gc.collect()
            held.append(tracemalloc.get_traced_memory()[0] - before)
            out.backward()
            del out
            gc.collect()
        return int(median(held[1:]))
    finally:
        tracemalloc.stop()


def floor_saved(case):
    """Bytes of the arrays a train-mode FloorRNN (step) keeps for its backward."""
    f = case.floors[(False, True)]
    return sum(getattr(f, k).nbytes for k in FLOOR_SAVED if hasattr(f, k))


def main(argv=None):
    """Run the measurements and print four Markdown tables."""
    a = parse_args(argv)
    N, I, H = a.batch, a.input_size, a.hidden_size
    unit = ("one call per timed unit" if not a.steps_per_unit else
            f"ceil({a.steps_per_unit} / seq_len) calls back to back per timed unit")
    print_header("rnn_scaling", argv, f"- {a.cell}, batch {N}, input {I}, hidden {H}, float32; "
                 f"hybridize(static_alloc=True); {a.rounds} timed rounds after {a.warmup} "
                 f"warmup; {unit}; medians")
    per_step, first, sizes, memory = {}, {}, {}, {}
    for T in a.seq_lens:
        case = LoopCase(a.cell, N, T, I, H, [("hybrid", loop) for loop in LOOPS])
        first[T] = first_calls(case)
        try:
            case.check()
        except RuntimeError as exc:
            print(f"ABORT: {exc}", file=sys.stderr)
            return 1
        sizes[T] = json_sizes(case)
        for mode in a.modes:
            train = mode == "train"
            variants = {loop: case.layer_call(("hybrid", loop), train) for loop in LOOPS}
            variants["floor-step"] = case.floor_call(False, train)
            variants["floor-fused"] = case.floor_call(True, train)
            k = calls_per_unit(a.steps_per_unit, T)
            times = interleaved({name: repeated(fn, k) for name, fn in variants.items()},
                                a.rounds, a.warmup)
            per_step[(T, mode)] = {name: median(v) / (k * T) for name, v in times.items()}
        memory[T] = {loop: held_for_backward(case, loop) for loop in LOOPS}
        memory[T]["floor"] = floor_saved(case)
        flush_print(f"done seq_len {T}")
        del case
    flush_print("")
    ref_T = 100 if 100 in a.seq_lens else a.seq_lens[0]
    rows = []
    for mode in a.modes:
        for T in a.seq_lens:
            ps, ref = per_step[(T, mode)], per_step[(ref_T, mode)]
            rows.append([mode, T] + [f"{ps[k]:.3f} ({ps[k] / ref[k]:.2f})"
                                     for k in (*LOOPS, "floor-step", "floor-fused")]
                        + [f"{ps[loop] / ps[floor]:.2f}"
                           for floor in ("floor-step", "floor-fused") for loop in LOOPS])
    flush_print(markdown_table(
        ["mode", "seq_len", "foreach ms/step (/ T=%d)" % ref_T,
         "while_loop ms/step (/ T=%d)" % ref_T, "floor-step ms/step (/ T=%d)" % ref_T,
         "floor-fused ms/step (/ T=%d)" % ref_T, "foreach / floor-step",
         "while_loop / floor-step", "foreach / floor-fused", "while_loop / floor-fused"],
        rows))
    flush_print("")
    rows = []
    for T in a.seq_lens:
        steady = {(loop, m): per_step[(T, m)][loop] * T for loop in LOOPS for m in a.modes}
        row = [T]
        for loop in LOOPS:
            fi, ft = first[T][loop]
            ci = fi - steady.get((loop, "infer"), float("nan"))
            ct = ft - steady.get((loop, "train"), float("nan"))
            row += [f"{fi:.0f} ({ci:.0f})", f"{ft:.0f} ({ct:.0f})", sizes[T][loop]]
        rows.append(row)
    flush_print(markdown_table(
        ["seq_len", "foreach first infer ms (- steady)", "foreach first train ms (- steady)",
         "foreach JSON bytes", "while_loop first infer ms (- steady)",
         "while_loop first train ms (- steady)", "while_loop JSON bytes"], rows))
    flush_print("")
    rows = []
    for T in a.seq_lens:
        m = memory[T]
        rows.append([T] + [f"{fmt_bytes(m[k])} ({m[k] / T:.0f} B/step)" for k in (*LOOPS, "floor")]
                    + [f"{m[loop] / m['floor']:.2f}" for loop in LOOPS])
    flush_print(markdown_table(
        ["seq_len", "foreach held for backward", "while_loop held for backward",
         "floor saved (outputs included)", "foreach / floor", "while_loop / floor"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
