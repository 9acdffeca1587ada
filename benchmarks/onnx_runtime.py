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
and the largest difference of the outputs. PyTorch rows: `torch_rnn_rows.py`. Set
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
    a = ap.parse_args(argv)
    import onnxruntime as ort

    import gluonlite as mx
    print_header("benchmarks/onnx_runtime.py", argv if argv is not None else sys.argv[1:],
                 f"seq_len {a.seq_len}, hidden {a.hidden}, onnxruntime {ort.__version__}, "
                 "inference, CPU time")
    rows = []
    tmp = tempfile.mkdtemp(prefix="onnx_bench_")
    for N in a.batch:
        for cell in ("RNNCell", "GRUCell", "LSTMCell"):
            loops = ("foreach", "while_loop", "fused")
            case = LoopCase(cell, N, a.seq_len, a.hidden, a.hidden,
                            [("hybrid", loop) for loop in loops])
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

                times = interleaved({"gluonlite": run_gl,
                                     "onnxruntime": lambda: sess.run(None, feeds),
                                     "floor": case.floor_call(loop == "fused", False)},
                                    a.rounds, a.warmup, clock=time.process_time)
                g, o = median(times["gluonlite"]), median(times["onnxruntime"])
                f = median(times["floor"])
                rows.append([cell, loop, N, f"{g:.2f}", f"{o:.2f}", f"{f:.2f}", f"{g / o:.2f}",
                             f"{o / f:.2f}", f"{float(np.abs(got - want).max()):.1e}",
                             f"{export_s:.2f}", f"{os.path.getsize(path) / 1024:.0f}"])
                print(" | ".join(str(c) for c in rows[-1]), flush=True)
    print()
    print(markdown_table(["cell", "loop", "batch", "gluonlite ms", "onnxruntime ms",
                          "numpy floor ms", "gluonlite/ort", "ort/floor", "max |diff|",
                          "export s", "file KiB"], rows))


if __name__ == "__main__":
    main()
