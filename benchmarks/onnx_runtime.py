"""What a user gains by leaving: the seed matrix's hybridized loop layers, exported with
`mx.onnx.export_block` and run in ONNX Runtime (one thread), beside gluonlite (inference).

    PYTHONPATH=. python benchmarks/onnx_runtime.py [--seq-len 100] [--hidden 512]
        [--batch 1 32] [--rounds 10] [--warmup 2]

Per case (cell {RNN, GRU, LSTM} x loop {foreach, while_loop, fused layer} x batch): the
median ms of one forward in gluonlite (`hybridize(static_alloc=True)`) and in ONNX Runtime
on the exported file, timed round by round in turn (`_common.interleaved`, CPU time of this
process), their ratio (gluonlite / ONNX Runtime: > 1 means ONNX Runtime is faster), and the
largest difference of the outputs. Set OPENBLAS_NUM_THREADS=1 for a like-for-like thread
count. Not part of the test suite (it needs onnxruntime).
"""
import argparse
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _common import interleaved, markdown_table, median, print_header  # noqa: E402


def _case(cell, loop, T, N, H):
    import gluonlite as mx
    from gluonlite import gluon, nd
    from gluonlite.bench.models import CELLS, ForeachRNN, WhileRNN
    rng = np.random.default_rng(0)
    n_states = 2 if cell == "LSTMCell" else 1
    if loop == "fused":
        kind = {"RNNCell": "RNN", "GRUCell": "GRU", "LSTMCell": "LSTM"}[cell]
        inner = getattr(gluon.rnn, kind)(H, input_size=H)
    else:
        inner = (ForeachRNN if loop == "foreach" else WhileRNN)(CELLS[cell](H, input_size=H), T)

    class Net(gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            self.inner = inner

        def hybrid_forward(self, F, x, *states):
            out = self.inner(x, list(states))
            return out[0] if loop == "fused" else out

    net = Net()
    net.initialize(mx.init.Xavier())
    net.hybridize(static_alloc=True)
    shape = (1, N, H) if loop == "fused" else (N, H)
    x = nd.array(rng.standard_normal((T, N, H)).astype(np.float32))
    states = [nd.zeros(shape) for _ in range(n_states)]
    if loop == "while_loop":
        states = [nd.zeros((1,))] + states
    args = [x] + states
    return net, args


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
            for loop in ("foreach", "while_loop", "fused"):
                net, args = _case(cell, loop, a.seq_len, N, a.hidden)
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
                                     "onnxruntime": lambda: sess.run(None, feeds)},
                                    a.rounds, a.warmup, clock=time.process_time)
                g, o = median(times["gluonlite"]), median(times["onnxruntime"])
                rows.append([cell, loop, N, f"{g:.2f}", f"{o:.2f}", f"{g / o:.2f}",
                             f"{float(np.abs(got - want).max()):.1e}", f"{export_s:.2f}",
                             f"{os.path.getsize(path) / 1024:.0f}"])
                print(" | ".join(str(c) for c in rows[-1]), flush=True)
    print()
    print(markdown_table(["cell", "loop", "batch", "gluonlite ms", "onnxruntime ms",
                          "ratio", "max |diff|", "export s", "file KiB"], rows))


if __name__ == "__main__":
    main()
