"""Flat scaling in seq_len (issue 8, goal 5): per-step time and its BLAS bound, first call, memory.

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
  the floor keeps for its backward (outputs included), in bytes and bytes per step;
- the BLAS-only bound: the matrix products of a call at every seq_len, each timed alone
  (all seq_lens interleaved in one run, after the layers) in the faster of two
  equivalent forms (`a @ b` or `(b.T @ a.T).T`), back to back so that caches are warm
  (20 calls per timed unit for a step's product, ceil(100 / T) for the others; ms per
  call). F(T): those made once per call whatever its seq_len (any
  loop that hoists the projection makes them: the projection of all T*N rows and, in
  training, the data gradient and both weight gradients). S: those every step makes
  (the recurrent product with the h2h weight and, in training, its transpose in the
  reverse step). A loop doing only these runs a step in B(T) = S + F(T) / T; the table
  gives B(T) over B at the longest seq_len, and how much other work per step
  (elementwise, Python) a loop would have to do for its per-step time at T to be within
  10% of that at the longest seq_len.

Layers are checked against the floor (outputs and gradients) before timing.
"""
import argparse
import gc
import os
import sys
import tempfile
import time
import tracemalloc

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _timing import check_rounds_and_modes, interleaved, median  # noqa: E402
from _loop_case import LoopCase  # noqa: E402
from _memory import fmt_bytes  # noqa: E402
from _tables import flush_print, markdown_table, print_header  # noqa: E402

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


def blas_products(cell, N, T, I, H, train, seed=0):
    """The matrix products of one call with a hoisted input projection, each as a list of
    two equivalent zero-arg callables (`a @ b` and `(b.T @ a.T).T`, into own buffers).

    Returns:
        (once, per_step): dicts {product name: [callable, callable]}. `once`: the
        products of (T*N)-row operands made once per call (projection `x @ W_i.T`; in
        training the data gradient `dg @ W_i` and the weight gradients `dg.T @ x`,
        `dg.T @ h_prev`). `per_step`: the products of one step (`h @ W_h.T`; in training
        also the reverse step's `dg_t @ W_h`).
    """
    from gluonlite.bench import floor
    G = floor.num_gates(cell) * H
    rng = np.random.default_rng(seed)
    M = T * N

    def rand(*shape):
        return rng.standard_normal(shape, dtype=np.float32)

    def forms(a, b):
        out = np.empty((a.shape[0], b.shape[1]), np.float32)
        out_t = np.empty(out.shape[::-1], np.float32)
        return [lambda: np.matmul(a, b, out=out), lambda: np.matmul(b.T, a.T, out=out_t)]

    w_i, w_h, x, h, dg = rand(G, I), rand(G, H), rand(M, I), rand(M, H), rand(M, G)
    once = {"projection": forms(x, w_i.T)}
    per_step = {"h2h": forms(h[:N], w_h.T)}
    if train:
        once["data gradient"] = forms(dg, w_i)
        once["i2h weight gradient"] = forms(dg.T, x)
        once["h2h weight gradient"] = forms(dg.T, h)
        per_step["h2h reverse"] = forms(dg[:N], w_h)
    return once, per_step


def time_products(cell, N, seq_lens, I, H, train, rounds, warmup):
    """Time the products of `blas_products` for every seq_len in one interleaved run.

    Each form is timed as back-to-back calls (caches warm, as in a loop: 20 per unit for a
    step's product, ceil(100 / T) for the others); the faster form's median per call
    counts. A step's products are the same at every seq_len and are timed once.

    Returns:
        ({T: {product: ms}} for the once-per-call products, {product: ms} for a step's).
    """
    forms, repeats = {}, {}  # (T or None for a step's, name, form) -> callable; (T, name) -> n
    for T in seq_lens:
        once, each_step = blas_products(cell, N, T, I, H, train)
        for name, fns in once.items():
            repeats[(T, name)] = calls_per_unit(100, T)
            forms.update({(T, name, j): fn for j, fn in enumerate(fns)})
    for name, fns in each_step.items():
        repeats[(None, name)] = 20
        forms.update({(None, name, j): fn for j, fn in enumerate(fns)})
    times = interleaved({key: repeated(fn, repeats[key[:2]]) for key, fn in forms.items()},
                        rounds, warmup)
    ms = {(T, name): min(median(v) for key, v in times.items() if key[:2] == (T, name)) / n
          for (T, name), n in repeats.items()}
    return ({T: {name: v for (t, name), v in ms.items() if t == T} for T in seq_lens},
            {name: v for (t, name), v in ms.items() if t is None})


def blas_bound(once, each_step, T):
    """The per-step ms of a loop doing nothing but its products: S + F / T."""
    return sum(each_step.values()) + sum(once.values()) / T


def flat_needs(bound_T, bound_base, within=1.1):
    """The per-step ms of other work (the same at every seq_len) a loop must add to its
    products for its per-step time at T to be within `within` of that at the base seq_len:
    (B_T + e) / (B_base + e) <= within gives e >= (B_T - within * B_base) / (within - 1)."""
    return max(0.0, (bound_T - within * bound_base) / (within - 1))


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
    flush_print("")
    base_T = max(a.seq_lens)
    rows = []
    for mode in a.modes:
        once_by_T, each_step = time_products(a.cell, N, a.seq_lens, I, H, mode == "train",
                                             a.rounds, a.warmup)
        bound = {T: blas_bound(once_by_T[T], each_step, T) for T in a.seq_lens}
        loops = {T: per_step[(T, mode)] for T in a.seq_lens}
        for T in a.seq_lens:
            once = once_by_T[T]
            rows.append([mode, T, ", ".join(f"{p} {ms:.2f}" for p, ms in once.items()),
                         ", ".join(f"{p} {ms:.3f}" for p, ms in each_step.items()),
                         f"{bound[T]:.3f}", f"{bound[T] / bound[base_T]:.2f}",
                         f"{flat_needs(bound[T], bound[base_T]):.3f}",
                         *(f"{loops[T][k] / loops[base_T][k]:.2f}"
                           for k in ("foreach", "floor-fused"))])
    flush_print(markdown_table(
        ["mode", "seq_len", "once per call: products ms (F)", "every step: products ms (S)",
         "BLAS-only ms/step (B = S + F/T)", f"B / B at T={base_T}",
         f"other ms/step a loop needs to be within 1.1x of T={base_T}",
         f"foreach ms/step / at T={base_T}", f"floor-fused ms/step / at T={base_T}"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
