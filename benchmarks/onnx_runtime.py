"""What a user gains by leaving: the seed matrix's hybridized loop layers, exported with
`mx.onnx.export_block` and run in ONNX Runtime (one thread), beside gluonlite (inference).

    PYTHONPATH=. python benchmarks/onnx_runtime.py [--seq-len 100] [--hidden 512]
        [--batch 1 32] [--rounds 10] [--warmup 2]

Per case (cell {RNN, GRU, LSTM} x loop {foreach, while_loop, fused layer} x batch, the
parameters and inputs of `_loop_case.LoopCase`): the median ms of one forward in gluonlite
(`hybridize(static_alloc=True)`), in ONNX Runtime on the exported file and of the numpy
floor (`gluonlite.test_utils.rnn_floor`, the step floor for the loops, the fused floor for the
layer), timed round by round in turn (`_timing.interleaved`, CPU time of this process);
the ratios gluonlite / ONNX Runtime (> 1: ONNX Runtime is faster) and ONNX Runtime / floor,
and the largest difference of the outputs; each median with its spread (the interquartile
range over the median, in %).

PyTorch's column: where GLUONLITE_TORCH_PYTHON names a python with torch (and numpy), the
same models run in PyTorch in the same run, through the `torch_rnn_rows.py` worker (a
subprocess, one thread: OMP_NUM_THREADS=1 is passed to it) loaded with the case's
parameters and inputs: its cell loop (`torch.nn.LSTMCell` etc. in a Python loop, compiled
by `torch.jit.script`) beside the foreach/while_loop rows and its fused layer (`torch.nn.LSTM`
etc.) beside the fused rows, checked against the numpy floors first; one worker round (its
own CPU time, `torch.no_grad()`) after each of our rounds. `--no-torch` ignores it. Set
OPENBLAS_NUM_THREADS=1 for a like-for-like thread count. Not part of the test suite (it
needs onnxruntime).
"""
import argparse
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _timing import interleaved, median  # noqa: E402
from _loop_case import LoopCase  # noqa: E402
from _tables import markdown_table, print_header  # noqa: E402

# the worker's row beside each of our loops
TORCH_ROW = {"foreach": "pytorch torchscript cell loop",
             "while_loop": "pytorch torchscript cell loop", "fused": "pytorch fused layer"}


def spread(values):
    """The interquartile range of `values` over their median, in %."""
    q1, q3 = np.percentile(values, [25, 75])
    return 100.0 * (q3 - q1) / median(values)


def _torch_worker(a):
    """(the PyTorch RowsWorker or None, the header line saying which)."""
    from rnn_floor import start_workers
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # the worker inherits one thread
    workers = {}
    flags = argparse.Namespace(no_mxnet=True, no_jax=True, no_torch=a.no_torch)
    lines = start_workers(flags, workers)
    return workers.get("PyTorch"), [ln for ln in lines if "PyTorch" in ln]


def _torch_setup(worker, case, tmp):
    """Give the worker the case; check its cell loop against the numpy floors (raises
    RuntimeError on a difference); returns the rows it skipped {name: why}."""
    T, N, n_in, H = case.shape
    case_file, result = os.path.join(tmp, "case.npz"), os.path.join(tmp, "result.npz")
    case.write_inputs(case_file)
    reply = worker.request(op="setup", case=case_file, result=result, cell=case.cell,
                           batch=N, seq_len=T, input_size=n_in, hidden_size=H)
    case.check_result("pytorch eager cell loop", result, 1e-3)
    return reply["skipped"]


def _wrapped(layer, loop):
    """The loop layer as a block of flat inputs (x, *states), as export_block wants."""
    from gluonlite import gluon

    class Net(gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            self.inner = layer

        def hybrid_forward(self, F, x, *states):
            out = self.inner(x, list(states))
            return out[0] if loop == "fused" else out

    net = Net()
    net.hybridize(static_alloc=True)
    return net


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seq-len", type=int, default=100)
    ap.add_argument("--hidden", type=int, default=512)
    ap.add_argument("--batch", type=int, nargs="+", default=[1, 32])
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--no-torch", action="store_true", help="ignore GLUONLITE_TORCH_PYTHON")
    a = ap.parse_args(argv)
    worker, torch_lines = _torch_worker(a)
    try:
        return _run(a, argv, worker, torch_lines)
    finally:
        if worker is not None:
            worker.close()


def _run(a, argv, worker, torch_lines):
    import onnxruntime as ort

    import gluonlite as mx
    print_header("onnx_runtime", argv if argv is not None else sys.argv[1:],
                 f"seq_len {a.seq_len}, hidden {a.hidden}, onnxruntime {ort.__version__}, "
                 "inference, CPU time", torch_lines)
    rows = []
    tmp = tempfile.mkdtemp(prefix="onnx_bench_")
    for N in a.batch:
        for cell in ("RNNCell", "GRUCell", "LSTMCell"):
            loops = ("foreach", "while_loop", "fused")
            case = LoopCase(cell, N, a.seq_len, a.hidden, a.hidden,
                            [("hybrid", loop) for loop in loops])
            skipped = _torch_setup(worker, case, tmp) if worker is not None else {}
            for name, why in skipped.items():
                print(f"skipped {name}: {why}", flush=True)
            for loop in loops:
                net = _wrapped(case.layers[("hybrid", loop)], loop)
                args = [case.x] + list(case.layer_states(loop))
                want = net(*args).asnumpy()
                path = os.path.join(tmp, f"{cell}_{loop}_{N}.onnx")
                t0 = time.perf_counter()
                mx.onnx.export_block(net, path, [x.shape for x in args])
                export_s = time.perf_counter() - t0
                opts = ort.SessionOptions()
                opts.intra_op_num_threads = opts.inter_op_num_threads = 1
                sess = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
                feeds = dict(zip([i.name for i in sess.get_inputs()],
                                 [x.asnumpy() for x in args]))
                got = sess.run(None, feeds)[0]

                def run_gl():
                    net(*args).wait_to_read()

                after = None
                if worker is not None:
                    def after():
                        return worker.request(op="round", mode="infer", clock="cpu")["ms"]
                times = interleaved({"gluonlite": run_gl,
                                     "onnxruntime": lambda: sess.run(None, feeds),
                                     "floor": case.floor_call(loop == "fused", False)},
                                    a.rounds, a.warmup, after, clock=time.process_time)
                row = [cell, loop, N]
                for name in ("gluonlite", "onnxruntime", TORCH_ROW[loop], "floor"):
                    v = times.get(name)
                    row.append("-" if not v else f"{median(v):.2f} ±{spread(v):.0f}%")
                g, o = median(times["gluonlite"]), median(times["onnxruntime"])
                f = median(times["floor"])
                t = times.get(TORCH_ROW[loop])
                row += [f"{g / o:.2f}", "-" if not t else f"{median(t) / o:.2f}",
                        "-" if not t else f"{g / median(t):.2f}", f"{o / f:.2f}",
                        f"{float(np.abs(got - want).max()):.1e}", f"{export_s:.2f}",
                        f"{os.path.getsize(path) / 1024:.0f}"]
                rows.append(row)
                print(" | ".join(str(c) for c in rows[-1]), flush=True)
    print()
    print(markdown_table(["cell", "loop", "batch", "gluonlite ms", "onnxruntime ms",
                          "pytorch ms", "numpy floor ms", "gluonlite/ort", "pytorch/ort",
                          "gluonlite/pytorch", "ort/floor", "max diff", "export s",
                          "file KiB"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
