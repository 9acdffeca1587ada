"""RNN kernels at the BLAS bound (issue 29): each layer's time over its matrix products alone.

    PYTHONPATH=. python benchmarks/rnn_bound.py [--quick] [--rounds 7] [--warmup 1]
        [--cells RNNCell,GRUCell,LSTMCell] [--batches 1,32] [--modes infer,train]
        [--seq-len 100] [--input-size 512] [--hidden-size 512]
        [--layers hybrid:fused,hybrid:foreach,hybrid:while_loop] [--no-torch]
        [--clock cpu|wall] [--json FILE]

For every cell x batch x mode (infer = one forward; train = forward under autograd.record()
plus the backward of the outputs' sum into parameters, inputs and initial states), in one
process and interleaved round by round (benchmarks/_timing.py): the gluonlite layers (the
one-layer `gluon.rnn` layer on the fused RNN operator, and the hybridized foreach/while_loop
layers of rnn_floor.py, static_alloc), the numpy floor ("floor-fused", gluonlite.bench.floor)
and "products": the same matrix products as the layer and nothing else, in numpy, in two
weight layouts (the weights as stored, read through transposed views; and copies laid out
(in, gates) for the forward's products, read straight, the backward's reading the stored
weights), the faster of which is the bound (the copies are made outside the timing); and
two floors built on the transposed layout's products. The "gate floor" adds, after each
forward step's product, the transcendental calls any numpy form of the cell's gates makes
(one exp over all an LSTM's gates and one tanh of its cell state; one exp over a GRU's reset
and update gates and one tanh of its new gate; a tanh RNN's tanh). The "call floor" adds
every elementwise call of the fewest a numpy step makes (`STEP_CALLS`: numpy does one pass
per call, and a product cannot add into its output), forward and, in training, in each
reverse step, each on arrays of the step's size. No numpy form of the layer goes below
either: where one is above the target, the target lines say so. The products of one
direction of one layer, G = gates * hidden:

    infer: X (T*N, I) @ Wx.T -> (T*N, G); per step h (N, H) @ Wh.T -> (N, G)
    train: infer's, then per reverse step dG_t (N, G) @ Wh -> (N, H); after the loop
           dWx = dG.T @ X, dWh = dG.T @ H_prev, dX = dG @ Wx

The table gives, per case, the bound's median ms and each row's median ratio to it, the
ratio taken within each round (so drift on the machine cancels) with its interquartile range
in brackets. Before timing, every layer's outputs and gradients are checked against the
floors (exit status 1 if they differ).

If GLUONLITE_TORCH_PYTHON names a python with torch (and numpy), benchmarks/torch_rnn_rows.py
runs under it (one long-lived subprocess, one thread) and times PyTorch's fused layer
(`torch.nn.LSTM`, `GRU`, `RNN` with tanh) on the case's own inputs and parameters after our
variants in each round; its cell loop is checked against the floors first.

`--clock cpu` (the default) times each call by its process's CPU time, so that time spent
waiting for a core on a loaded machine does not count; `--clock wall` by wall time.
`--quick`: 3 rounds after 1 warmup at seq_len 20, input = hidden = 128.
BLAS and OpenMP run one thread unless OPENBLAS_NUM_THREADS etc. are set (_env.py).
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _rows_client import WorkerError  # noqa: E402
from _tables import flush_print, markdown_table, print_header  # noqa: E402
from _timing import interleaved, median  # noqa: E402
from rnn_floor import (add_case_arguments, check_layers, start_workers,  # noqa: E402
                       time_cases)

import numpy as np  # noqa: E402

LAYERS = "hybrid:fused,hybrid:foreach,hybrid:while_loop"
GATES = {"RNNCell": 1, "GRUCell": 3, "LSTMCell": 4}
TORCH_ROW = "pytorch fused layer"
GATE_FLOOR = "gate floor (products + exp/tanh)"
CALL_FLOOR = "call floor (products + fewest calls)"
# The elementwise calls of one step that no numpy form of a cell goes below, each as
# (ufunc, columns in units of H), for the forward step and the reverse step. Forward: a
# product cannot add into its output, so its sum with the step's input projection is a call;
# a sigmoid is exp, 1 + e and a divide (0.5 * tanh(x / 2) + 0.5 makes as many calls, and
# numpy's tanh costs more than its exp). An LSTM takes its tanh gate from the same exp as
# 2 * sigmoid(2g) - 1 (one subtract; a tanh call of its own is a call too), multiplies
# [i, f] by [g, c] in one call (the state laid out beside the g gate) and adds the halves,
# then tanh(c) and o * tanh(c). A GRU (MXNet's form): n = tanh(x_n + r * h_n) and
# h = n + z * (h_prev - n). Reverse, from factors of the forward's outputs taken for the
# whole sequence beforehand: the state's gradient dy + dh; an LSTM's dc += dh * o * (1 -
# tanh(c)^2), then one broadcast multiply of dc by [i', f', g', f] (three gate gradients
# and the next dc) and o's gradient; a GRU's every gate gradient and its dh_prev term in
# one broadcast multiply of dh, and the sum with the product's dh. The per-gate bias of a
# GRU's h_n and the passes over the whole sequence are left out: a lower bound.
STEP_CALLS = {
    1: ([(np.add, 1), (np.tanh, 1)],
        [(np.add, 1), (np.multiply, 1)]),
    3: ([(np.add, 2), (np.exp, 2), (np.add, 2), (np.divide, 2),
         (np.multiply, 1), (np.add, 1), (np.tanh, 1),
         (np.subtract, 1), (np.multiply, 1), (np.add, 1)],
        [(np.add, 1), (np.multiply, 5), (np.add, 1)]),
    4: ([(np.add, 4), (np.exp, 4), (np.add, 4), (np.divide, 4), (np.subtract, 1),
         (np.multiply, 2), (np.add, 1), (np.tanh, 1), (np.multiply, 1)],
        [(np.add, 1), (np.multiply, 1), (np.add, 1), (np.multiply, 4), (np.multiply, 1)]),
}
TRANSCENDENTAL = (np.exp, np.tanh)


def parse_args(argv=None):
    """The command line (see the module doc)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_case_arguments(ap, LAYERS)
    ap.add_argument("--seq-len", type=int, default=None, help="default 100 (--quick: 20)")
    ap.add_argument("--input-size", type=int, default=None, help="default 512 (--quick: 128)")
    ap.add_argument("--hidden-size", type=int, default=None, help="default 512 (--quick: 128)")
    ap.add_argument("--rounds", type=int, default=7, help="timed rounds per case")
    ap.add_argument("--quick", action="store_true",
                    help="3 rounds, 1 warmup, seq_len 20, input = hidden = 128")
    ap.add_argument("--no-torch", action="store_true", help="ignore GLUONLITE_TORCH_PYTHON")
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                    help="time by the process's CPU time (default) or by wall clock")
    a = ap.parse_args(argv)
    small = a.quick
    if small:
        a.rounds, a.warmup = 3, 1
    a.seq_len = a.seq_len or (20 if small else 100)
    a.input_size = a.input_size or (128 if small else 512)
    a.hidden_size = a.hidden_size or (128 if small else 512)
    bad = [m for m in a.modes if m not in ("infer", "train")]
    if bad:
        ap.error(f"--modes: expected infer and/or train, got {bad}")
    bad = [c for c in a.cells if c not in GATES]
    if bad:
        ap.error(f"--cells: expected some of {list(GATES)}, got {bad}")
    check_layers(ap, a)
    a.no_mxnet = a.no_jax = True
    return a


class Products:
    """The matrix products of one recurrent layer direction, alone, on preallocated buffers.

    Args:
        gates: 1 (rnn), 3 (gru) or 4 (lstm).
        T, N, I, H: sequence length, batch, input and hidden size.
        layout: 'stored' (weights (G, in) read through .T views, as the layer keeps them)
            or 'transposed' (copies laid out (in, G) for the forward products; the
            backward's products read the stored weights, their faster layout).
        seed: seed of the random operands.
        floor: None (the products alone); 'gate': also, after each forward step's product,
            the step's transcendental calls of `STEP_CALLS`; 'calls': also every call of
            `STEP_CALLS`, forward and after each reverse step's product. Each call runs
            over all the step's columns it covers (the numpy floors of the gate math).

    Example:
        >>> Products(4, 5, 2, 3, 4, 'stored').call(True)()  # doctest: +SKIP
    """

    def __init__(self, gates, T, N, ni, H, layout, seed=1, floor=None):
        rng = np.random.default_rng(seed)
        G = gates * H

        def r(*shape):
            return (rng.standard_normal(shape) * 0.1).astype(np.float32)
        self.shape = (T, N, ni, H, G)
        self.x, self.hs, self.dG = r(T * N, ni), r(T + 1, N, H), r(T, N, G)
        wx, wh = r(G, ni), r(G, H)
        self.wx, self.wh = wx, wh  # the backward's products read them as stored, (G, in)
        if layout == "stored":
            self.wxT, self.whT = wx.T, wh.T
        elif layout == "transposed":
            self.wxT, self.whT = np.ascontiguousarray(wx.T), np.ascontiguousarray(wh.T)
        else:
            raise ValueError(f"Products: layout must be 'stored' or 'transposed', got {layout!r}")
        self.g, self.step = np.empty((T * N, G), np.float32), np.empty((N, G), np.float32)
        self.dh = np.empty((N, H), np.float32)
        self.dwx, self.dwh = np.empty((G, ni), np.float32), np.empty((G, H), np.float32)
        self.dx = np.empty((T * N, ni), np.float32)
        if floor not in (None, "gate", "calls"):
            raise ValueError(f"Products: floor must be None, 'gate' or 'calls', got {floor!r}")
        forward, reverse = STEP_CALLS[gates] if floor else ([], [])
        if floor == "gate":
            forward, reverse = [c for c in forward if c[0] in TRANSCENDENTAL], []
        # Every call writes one scratch and a binary one reads ones (a divide's denominator
        # among them): the working set of an in-place kernel, with no NaN or inf.
        width = max([k for _, k in forward + reverse], default=0) * H
        scratch, ones = np.empty((N, width), np.float32), np.ones((N, width), np.float32)
        grads = r(N, width)  # a reverse step's gradients stand in for its operands

        def call(f, source, k):
            cols = k * H
            args = (source[:, :cols],) + ((ones[:, :cols],) if f.nin == 2 else ())
            return f, args, scratch[:, :cols]
        self.calls = [call(f, self.step, k) for f, k in forward]
        self.back_calls = [call(f, grads, k) for f, k in reverse]

    def forward(self):
        """The input projection of every step, then one recurrent product per step (and the
        step's floor calls, when asked for)."""
        T = self.shape[0]
        dot, hs, whT, step, calls = np.dot, self.hs, self.whT, self.step, self.calls
        dot(self.x, self.wxT, out=self.g)
        with np.errstate(over="ignore"):
            for t in range(T):
                dot(hs[t], whT, out=step)
                for f, args, out in calls:
                    f(*args, out=out)

    def backward(self):
        """One product per reverse step (and the step's floor calls, when asked for), then
        the weight and data gradients."""
        T, N, _, H, G = self.shape
        dot, dG, wh, dh, calls = np.dot, self.dG, self.wh, self.dh, self.back_calls
        for t in range(T - 1, -1, -1):
            dot(dG[t], wh, out=dh)
            for f, args, out in calls:
                f(*args, out=out)
        g2 = dG.reshape(T * N, G)
        dot(g2.T, self.x, out=self.dwx)
        dot(g2.T, self.hs[:T].reshape(T * N, H), out=self.dwh)
        dot(g2, self.wx, out=self.dx)

    def call(self, train):
        """A zero-arg callable: the forward's products (and the backward's when train)."""
        if not train:
            return self.forward

        def both():
            self.forward()
            self.backward()
        return both


def run_case(case, mode, rounds, warmup, workers, clock="cpu"):
    """Interleaved timings of one (cell, batch, mode): {variant: [ms per round]}."""
    train = mode == "train"
    T, N, ni, H = case.shape
    variants = {f"gluonlite {kind} {loop}": case.layer_call((kind, loop), train)
                for kind, loop in case.layers}
    variants["floor-fused"] = case.floor_call(True, train)
    for layout in ("stored", "transposed"):
        variants[f"products ({layout})"] = Products(GATES[case.cell], T, N, ni, H,
                                                    layout).call(train)
    for name, floor in ((GATE_FLOOR, "gate"), (CALL_FLOOR, "calls")):
        variants[name] = Products(GATES[case.cell], T, N, ni, H, "transposed",
                                  floor=floor).call(train)

    def after():
        ms = {}
        for w in workers:
            ms.update(w.request(op="round", mode=mode, names=[TORCH_ROW],
                                 clock=clock)["ms"])
        return ms
    return interleaved(variants, rounds, warmup, after if workers else None,
                       time.process_time if clock == "cpu" else time.perf_counter)


def _quartiles(values):
    if len(values) < 2:
        return values[0], values[0]
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], q[2]


def summarize(times):
    """(bound name, bound median ms, {row: (median ratio, q1, q3)}) from one case's timings;
    the ratio of a row is taken to the faster products layout within each round."""
    bound = min(("products (stored)", "products (transposed)"), key=lambda n: median(times[n]))
    ratios = {}
    for name, ms in times.items():
        if name.startswith("products") or name.startswith("pytorch") and name != TORCH_ROW:
            continue
        r = [a / b for a, b in zip(ms, times[bound])]
        ratios[name] = (median(r),) + _quartiles(r)
    return bound, median(times[bound]), ratios


def table(results, rows):
    """Markdown table: one line per case, one column per row name (ratio [q1-q3])."""
    header = ["case", "products ms (layout)"] + [n.replace("gluonlite ", "") for n in rows]
    lines = []
    for (cell, batch, mode), (bound, ms, ratios) in results.items():
        line = [f"{cell[:-4]} b{batch} {mode}", f"{ms:.1f} ({bound[10:-1]})"]
        for n in rows:
            if n in ratios:
                m, lo, hi = ratios[n]
                line.append(f"{m:.2f} [{lo:.2f}-{hi:.2f}]")
            else:
                line.append("-")
        lines.append(line)
    return markdown_table(header, lines)


def goal_lines(results):
    """The issue's targets on the gluonlite rows (<= 1.10 at batch 32, <= 1.20 at batch 1),
    each miss with what is left of it, against the floors: where a floor is above the
    target no numpy form of the layer reaches it (the gate floor: numpy's exp and tanh; the
    call floor: its fewest calls a step); otherwise the part above the call floor is the
    layer's own."""
    items = []
    for (cell, batch, mode), (_, _, ratios) in results.items():
        limit = 1.10 if batch >= 32 else 1.20
        floors = [(label, ratios[name][0]) for label, name in
                  (("gate floor", GATE_FLOOR), ("call floor", CALL_FLOOR)) if name in ratios]
        for n, (m, _, _) in ratios.items():
            if n.startswith("gluonlite"):
                items.append((m, limit, floors, f"{cell} b{batch} {mode} {n[10:]}"))
    if not items:
        return ["- targets: not measured"]
    miss = [i for i in items if i[0] > i[1]]
    lines = [f"- targets (layer / products <= 1.10 at batch >= 32, <= 1.20 at batch 1): "
             f"{len(items) - len(miss)}/{len(items)} cases within"]
    for m, lim, floors, name in miss:
        line = f"  - over: {name} {m:.2f} (target {lim:.2f})"
        if floors:
            line += "; " + ", ".join(f"{label} {v:.2f}" for label, v in floors)
            above = [label for label, v in floors if round(v, 2) > lim]  # as printed
            if above:
                line += f" ({above[0]} above the target: no numpy form reaches it)"
            else:
                line += f", so {m - floors[-1][1]:.2f} of the products' time is the layer's own"
        lines.append(line)
    return lines


def main(argv=None):
    """Run the benchmark; print the header, the table and the target lines.

    Returns the exit status: 0; 1 when gluonlite, PyTorch's loop and the floor disagree;
    2 when PyTorch's worker fails (its message on stderr).
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


def _run(a, argv, workers):
    extra = start_workers(a, workers)
    print_header("rnn_bound", argv, f"- seq_len {a.seq_len}, input {a.input_size}, hidden "
                 f"{a.hidden_size}, float32; {a.rounds} timed rounds after {a.warmup} warmup "
                 f"(+1 check call); {a.clock} clock; median ratio to the products "
                 "[interquartile range]", extra)
    results, rows = {}, []

    def record(cell, batch, mode, times):
        results[(cell, batch, mode)] = summary = summarize(times)
        rows.extend(n for n in summary[2] if n not in rows)
        flush_print(table({(cell, batch, mode): summary}, list(summary[2])).splitlines()[-1])
    if time_cases(a, workers, "floors", run_case, record):
        return 1
    flush_print("")
    flush_print(table(results, rows))
    flush_print("")
    flush_print("\n".join(goal_lines(results)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
