"""A step's gate math on a GPU: the CuPy floor with `fused_gates` (an LSTM or GRU step's
elementwise math as one kernel compiled by ``cupy.fuse``) against the plain CuPy floor (one
kernel per elementwise operation), per cell, batch and mode. Both are checked to compute the
same outputs first; each timed round ends with a device sync. At batch 1 a step is a few
small kernels, so what it costs is launches and Python: the ratio says whether fusing them
pays.

    PYTHONPATH=. python benchmarks/gpu_gates.py [--cells LSTMCell,GRUCell] [--batches 1,32]
        [--modes infer,train] [--seq-len 100] [--hidden-size 512] [--rounds 20]

Needs CuPy and a CUDA device (exits 2 saying which is missing).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

from _timing import interleaved, median  # noqa: E402
from _loop_case import max_rel_error  # noqa: E402
from _tables import markdown_table  # noqa: E402
from gluonlite.bench import floor  # noqa: E402
from gluonlite.context import probe_gpu  # noqa: E402


def _csv(kind):
    return lambda s: [kind(v) for v in s.split(",") if v]


def parse(argv):
    """The command line (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cells", type=_csv(str), default=["LSTMCell", "GRUCell"])
    ap.add_argument("--batches", type=_csv(int), default=[1, 32])
    ap.add_argument("--modes", type=_csv(str), default=["infer", "train"])
    ap.add_argument("--seq-len", type=int, default=100)
    ap.add_argument("--hidden-size", type=int, default=512, help="input size too")
    ap.add_argument("--rounds", type=int, default=20, help="timed rounds per variant")
    ap.add_argument("--warmup", type=int, default=2, help="untimed rounds first")
    a = ap.parse_args(argv)
    bad = [m for m in a.modes if m not in ("infer", "train")]
    if bad:
        ap.error(f"--modes: expected infer and/or train, got {bad}")
    return a


def measure(xp, sync, cell, T, N, H, train, rounds, warmup):
    """Time the plain and the fused-gate floor on `xp` (interleaved, `sync` inside each
    timed call). Returns (ms lists by variant, max relative error of the fused outputs)."""
    rng = np.random.default_rng(0)
    params = {k: xp.asarray(v) for k, v in floor.init_params(cell, H, H, seed=0).items()}
    x = xp.asarray(rng.standard_normal((T, N, H), dtype=np.float32))
    states = [xp.asarray(rng.standard_normal((N, H), dtype=np.float32))
              for _ in range(floor.num_states(cell))]
    floors = {name: floor.FloorRNN(cell, T, N, H, H, fused=True, train=train, xp=xp,
                                   fused_gates=name == "fused gates")
              for name in ("plain", "fused gates")}
    outs = {name: xp.asnumpy(f.forward(x, states, params)) for name, f in floors.items()}
    err = max_rel_error(outs["fused gates"], outs["plain"])

    def call(f):
        def run():
            f.forward(x, states, params)
            if train:
                f.backward()
            sync()
        return run
    return interleaved({k: call(f) for k, f in floors.items()}, rounds, warmup), err


def main(argv=None, xp=None, sync=None):
    """Print the table; `xp` and `sync` default to CuPy and a device sync."""
    a = parse(argv)
    if xp is None:
        xp, why = probe_gpu()
        if xp is None:
            print(f"gpu_gates: needs CuPy and a CUDA device: {why}", file=sys.stderr)
            return 2
        sync = xp.cuda.Device().synchronize
    rows = []
    for cell in a.cells:
        for n in a.batches:
            for mode in a.modes:
                ms, err = measure(xp, sync, cell, a.seq_len, n, a.hidden_size, mode == "train",
                                  a.rounds, a.warmup)
                if err > 1e-4:
                    print(f"gpu_gates: {cell} batch {n} {mode}: the fused gates differ from the "
                          f"plain floor (max relative error {err:.2g})", file=sys.stderr)
                    return 1
                plain, fused = median(ms["plain"]), median(ms["fused gates"])
                rows.append([cell, n, mode, f"{plain:.3f}", f"{fused:.3f}",
                             f"{fused / plain:.2f}", f"{err:.1e}"])
    print(f"seq_len {a.seq_len}, input = hidden = {a.hidden_size}, float32, median ms of "
          f"{a.rounds} interleaved rounds ({a.warmup} warmup), array module "
          f"{getattr(xp, '__name__', xp)} {getattr(xp, '__version__', '')}")
    print()
    print(markdown_table(["cell", "batch", "mode", "plain ms", "fused gates ms",
                          "fused / plain", "max rel err"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
