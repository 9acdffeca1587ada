"""PyTorch's rows of the GPU seed matrix (issue 44): cuDNN's layers and cell loops.

    python benchmarks/gpu/torch_rows.py --out rows.jsonl [--device cuda] [--cells LSTM,GRU,RNN]
        [--batches 1,32] [--modes infer,train] [--seq-len 100] [--hidden 512]
        [--rounds 10] [--warmup 3] [--threads N]

Run by a Python that has torch (it never imports gluonlite). Per cell, batch and mode, timed
interleaved round by round:

- ``cudnn layer``: ``torch.nn.LSTM``/``GRU``/``RNN`` (tanh), one layer (cuDNN on a GPU;
  PyTorch's fused CPU kernels on ``--device cpu``, named ``fused layer`` there);
- ``eager cell loop``: ``torch.nn.LSTMCell``/``GRUCell``/``RNNCell`` in a Python loop over
  the steps, outputs stacked;
- ``graphed cell loop``: the same loop captured as CUDA graphs (inference:
  ``torch.cuda.graph`` of the whole loop, replayed; training:
  ``torch.cuda.make_graphed_callables`` of the loop, forward and backward). Skipped, with
  the reason, without CUDA.

A call is a forward under ``torch.no_grad()`` (inference) or a forward and the backward of the
outputs' sum into the parameters, inputs and states (training; gradients reset to None
first), then ``torch.cuda.synchronize()``. One JSON object per row, appended to --out.
"""
import argparse
import json
import statistics
import sys
import time

import numpy as np


def _csv(kind):
    return lambda s: [kind(v) for v in s.split(",") if v]


def parse(argv):
    """The command line (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--cells", type=_csv(str), default=["LSTM", "GRU", "RNN"])
    ap.add_argument("--batches", type=_csv(int), default=[1, 32])
    ap.add_argument("--modes", type=_csv(str), default=["infer", "train"])
    ap.add_argument("--seq-len", type=int, default=100)
    ap.add_argument("--hidden", type=int, default=512)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--threads", type=int, default=None, help="torch.set_num_threads")
    return ap.parse_args(argv)


def _modules(torch, cell, H, device):
    layer_cls = {"LSTM": torch.nn.LSTM, "GRU": torch.nn.GRU, "RNN": torch.nn.RNN}[cell]
    cell_cls = {"LSTM": torch.nn.LSTMCell, "GRU": torch.nn.GRUCell,
                "RNN": torch.nn.RNNCell}[cell]
    torch.manual_seed(0)
    layer = layer_cls(H, H).to(device)
    lstm = cell == "LSTM"

    class Loop(torch.nn.Module):
        """The cell over the steps: (x (T, N, H), h0[, c0]) -> stacked h."""

        def __init__(self):
            super().__init__()
            self.cell = cell_cls(H, H)

        def forward(self, x, h, c=None):
            outs = []
            for t in range(x.shape[0]):
                if lstm:
                    h, c = self.cell(x[t], (h, c))
                else:
                    h = self.cell(x[t], h)
                outs.append(h)
            return torch.stack(outs)
    return layer, Loop().to(device), lstm


def _graphed_infer(torch, loop, args):
    """The loop's inference captured as one CUDA graph: a call copies the inputs in and
    replays it."""
    static = [a.clone() for a in args]
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.no_grad(), torch.cuda.stream(stream):
        for _ in range(3):
            loop(*static)
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.no_grad(), torch.cuda.graph(graph):
        out = loop(*static)

    def run(*inputs):
        for s, a in zip(static, inputs):
            s.copy_(a)
        graph.replay()
        return out
    return run


def measure(torch, a, cell, N, mode, device):
    """{row name: ms per round} of one case, and the reasons of rows skipped."""
    T, H = a.seq_len, a.hidden
    train = mode == "train"
    layer, loop, lstm = _modules(torch, cell, H, device)
    g = torch.Generator().manual_seed(1)
    x = torch.randn(T, N, H, generator=g).to(device)
    h0 = torch.randn(1, N, H, generator=g).to(device)
    c0 = torch.randn(1, N, H, generator=g).to(device)
    args = [x, h0[0]] + ([c0[0]] if lstm else [])
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    skipped = {}

    def leaves(tensors):
        return [t.detach().requires_grad_(train) for t in tensors]

    def layer_call():
        xs = leaves([x, h0] + ([c0] if lstm else []))
        layer.zero_grad(set_to_none=True)
        with torch.set_grad_enabled(train):
            y = layer(xs[0], (xs[1], xs[2]) if lstm else xs[1])[0]
            if train:
                y.sum().backward()

    def loop_call(fn=loop):
        xs = leaves(args)
        loop.zero_grad(set_to_none=True)
        with torch.set_grad_enabled(train):
            y = fn(*xs)
            if train:
                y.sum().backward()

    layer_name = "cudnn layer" if device == "cuda" else "fused layer"
    calls = {layer_name: layer_call, "eager cell loop": loop_call}
    if device != "cuda":
        skipped["graphed cell loop"] = "CUDA graphs need a CUDA device"
    elif train:
        try:
            graphed = torch.cuda.make_graphed_callables(
                loop, tuple(t.detach().requires_grad_(True) for t in args))
            calls["graphed cell loop"] = lambda: loop_call(graphed)
        except Exception as e:  # an older torch, or a capture it refuses: said in the row
            skipped["graphed cell loop"] = f"{type(e).__name__}: {e}"
    else:
        graphed = _graphed_infer(torch, loop, args)
        calls["graphed cell loop"] = lambda: graphed(*args)

    def timed(fn):
        def run():
            fn()
            sync()
        return run
    runs = {k: timed(v) for k, v in calls.items()}
    names = list(runs)
    for _ in range(a.warmup):
        for k in names:
            runs[k]()
    times = {k: [] for k in names}
    for r in range(a.rounds):
        for k in names[r % len(names):] + names[:r % len(names)]:
            t0 = time.perf_counter()
            runs[k]()
            times[k].append((time.perf_counter() - t0) * 1e3)
    return times, skipped


def main(argv=None):
    """Append the rows to --out; returns the exit status (2: torch or CUDA missing)."""
    a = parse(argv)
    try:
        import torch
    except ImportError as e:
        print(f"torch_rows: needs torch ({e})", file=sys.stderr)
        return 2
    if a.device == "cuda" and not torch.cuda.is_available():
        print("torch_rows: torch sees no CUDA device", file=sys.stderr)
        return 2
    if a.threads:
        torch.set_num_threads(a.threads)
    torch.backends.cudnn.benchmark = False
    with open(a.out, "a", encoding="utf-8") as out:
        for cell in a.cells:
            for N in a.batches:
                for mode in a.modes:
                    times, skipped = measure(torch, a, cell, N, mode, a.device)
                    key = {"impl": "pytorch", "cell": cell, "batch": N, "mode": mode,
                           "seq_len": a.seq_len, "hidden": a.hidden, "ctx": a.device,
                           "torch": torch.__version__, "threads": torch.get_num_threads()}
                    rows = [dict(key, layer=k, variant=k, median=statistics.median(ts),
                                 q1=float(np.percentile(ts, 25)),
                                 q3=float(np.percentile(ts, 75)), times=ts)
                            for k, ts in times.items()]
                    rows += [dict(key, layer=k, variant=k, skipped=why)
                             for k, why in skipped.items()]
                    for r in rows:
                        out.write(json.dumps(r) + "\n")
                    out.flush()
                    print(f"pytorch {cell} batch {N} {mode}: " + ", ".join(
                        f"{r['layer']} " + (f"{r['median']:.2f} ms" if "median" in r else
                                            "skipped") for r in rows), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
