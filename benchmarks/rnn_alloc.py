"""Steady-state allocation of static_alloc layers (issue 8, goal 6), measured with tracemalloc.

    PYTHONPATH=. python benchmarks/rnn_alloc.py [--calls 100] [--cell LSTMCell]
        [--seq-len 50] [--batch 16] [--input-size 256] [--hidden-size 256] [--quick]

Cases: the hybridized (static_alloc=True) ForeachRNN and WhileRNN layers and a
hybridized 3-layer MLP (Dense 128-256-256-10, batch 32), each infer and train (train =
forward under autograd.record() + backward of the outputs' sum), plus floor-step as the
numpy reference. After warm-up calls, `--calls` calls run under tracemalloc keeping only
the last result alive:

- growth: bytes traced after the calls minus before, less the bytes the returned output
  keeps alive (goal 6: no growth beyond the returned outputs);
- peak per call: median over calls of the peak bytes traced during one call above the
  bytes at its start, and that less the output (what a call allocates transiently:
  new buffers, scratch of numpy kernels, Python objects);
- a call is said to allocate new buffers when that transient figure exceeds
  --slack bytes (default 12 KiB: room for a call's Python objects, a few KiB, but less
  than the smallest array of the default case, a (batch, hidden) state of 16 KiB).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _loop_case import LoopCase  # noqa: E402
from _memory import fmt_bytes, traced_growth  # noqa: E402
from _tables import flush_print, markdown_table, print_header  # noqa: E402


def parse_args(argv=None):
    """The command line (see the module doc); --quick sets --calls 30."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=100)
    ap.add_argument("--cell", default="LSTMCell", choices=["RNNCell", "GRUCell", "LSTMCell"])
    ap.add_argument("--seq-len", type=int, default=50)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--input-size", type=int, default=256)
    ap.add_argument("--hidden-size", type=int, default=256)
    ap.add_argument("--mlp-batch", type=int, default=32)
    ap.add_argument("--slack", type=int, default=12288,
                    help="transient bytes per call tolerated before saying 'new buffers'")
    ap.add_argument("--quick", action="store_true", help="--calls 30")
    a = ap.parse_args(argv)
    if a.quick:
        a.calls = 30
    if a.calls < 1:
        ap.error(f"--calls must be >= 1, got {a.calls}")
    return a


def mlp_calls(batch, dims=(128, 256, 256, 10)):
    """(infer, train) zero-arg callables of a hybridized static_alloc MLP."""
    import numpy as np
    from gluonlite import autograd, gluon, nd
    net = gluon.nn.HybridSequential()
    with net.name_scope():
        for i, (n_in, n_out) in enumerate(zip(dims[:-1], dims[1:])):
            net.add(gluon.nn.Dense(n_out, in_units=n_in,
                                   activation="relu" if i < len(dims) - 2 else None))
    net.initialize()
    net.hybridize(static_alloc=True)
    x = nd.array(np.random.default_rng(0).standard_normal((batch, dims[0])).astype("float32"))
    x.attach_grad()

    def infer():
        return net(x)

    def train():
        with autograd.record():
            out = net(x)
        out.backward()
        return out
    return infer, train


def _nbytes(out):
    """Bytes a call allocated for its result, i.e. what the result keeps alive: the whole
    buffer an NDArray's array is a view of (a kept loop's stacked output, which is also
    its carried state, has one row more in front for the starting value); 0 for the
    floor's view of a preallocated buffer."""
    if hasattr(out, "asnumpy"):
        root = out._data
        while root.base is not None:
            root = root.base
        return root.nbytes
    return out.nbytes if out.flags.owndata else 0


def measure(fn, calls, slack):
    """One table row's figures for `fn` (warmed up here with 3 calls)."""
    for _ in range(3):
        fn()
    r = traced_growth(fn, calls)
    out_bytes = _nbytes(r["last"])
    beyond = r["growth"] - out_bytes
    transient = r["peak_per_call"] - out_bytes
    return [fmt_bytes(out_bytes), f"{beyond:+d} B", "no" if beyond <= slack else "YES",
            fmt_bytes(r["peak_per_call"]), f"{transient:+d} B",
            "no" if transient <= slack else "yes", ", ".join(r["top"]) or "-"], beyond, transient


def main(argv=None):
    """Run the cases and print one Markdown table."""
    a = parse_args(argv)
    T, N, I, H = a.seq_len, a.batch, a.input_size, a.hidden_size
    print_header("rnn_alloc", argv, f"- {a.cell} layers: seq_len {T}, batch {N}, input {I}, "
                 f"hidden {H}; MLP batch {a.mlp_batch}; {a.calls} calls under tracemalloc; "
                 f"slack {a.slack} B")
    case = LoopCase(a.cell, N, T, I, H, [("hybrid", "foreach"), ("hybrid", "while_loop")])
    try:
        case.check()
    except RuntimeError as exc:
        print(f"ABORT: {exc}", file=sys.stderr)
        return 1
    mlp_infer, mlp_train = mlp_calls(a.mlp_batch)
    cases = []
    for mode in ("infer", "train"):
        train = mode == "train"
        for loop in ("foreach", "while_loop"):
            cases.append((f"{a.cell} {loop} (static_alloc)", mode,
                          case.layer_call(("hybrid", loop), train)))
        cases.append(("MLP 128-256-256-10 (static_alloc)", mode, mlp_train if train else mlp_infer))
        cases.append((f"{a.cell} floor-step (numpy reference)", mode,
                      case.floor_call(False, train)))
    rows, verdict = [], []
    for name, mode, fn in cases:
        row, beyond, transient = measure(fn, a.calls, a.slack)
        rows.append([name, mode] + row)
        if "floor" not in name:
            verdict.append((beyond, transient, f"{name} {mode}"))
    flush_print(markdown_table(
        ["case", "mode", "output", f"growth over {a.calls} calls beyond output", "grows?",
         "peak per call", "peak per call beyond output", "new buffers per call?",
         "top growing sites"], rows))
    flush_print("")
    grows = [v for v in verdict if v[0] > a.slack]
    fresh = [v for v in verdict if v[1] > a.slack]
    worst = max(verdict, key=lambda v: v[0])
    flush_print(f"- goal 6 (no growth beyond the returned outputs over {a.calls} calls): "
                f"{'met' if not grows else 'NOT met'}; largest growth {worst[0]:+d} B ({worst[2]})")
    worst = max(verdict, key=lambda v: v[1])
    flush_print(f"- transient allocation per call beyond the output: "
                f"{len(fresh)}/{len(verdict)} cases above {a.slack} B; largest {worst[1]:+d} B "
                f"({worst[2]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
