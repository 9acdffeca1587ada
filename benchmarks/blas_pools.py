"""Models with numpy's and scipy's OpenBLAS both threaded (the libraries' default: one thread
per core), with scipy's kept to one thread inside the depthwise kernels
(`gluonlite.ops.blas_threads.serial`) and without.

    PYTHONPATH=. python benchmarks/blas_pools.py [--threads N] [--rounds 4]
        [--models mobilenet0.25 mobilenetv2_1.0 resnet18_v1] [--batches 1 8]
        [--modes infer train]

Each case is the model hybridized with static_alloc and static_shape (`_bench_models.py`),
one forward (infer) or a training step (forward, loss, backward, `Trainer.step`), run with
`blas_threads.ENABLED` on and off in alternate blocks of calls of one process, each block
after one untimed call. With threads the process's CPU time counts the workers' spinning,
so this script times wall clock: medians, on / off of the medians, and the range of the
per-call ratios. ResNet-18 has no depthwise
layer and is the control.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def _threads(argv):
    """--threads, read before numpy loads OpenBLAS (`_env` would set one thread)."""
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    n = ap.parse_known_args(argv)[0].threads
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, str(n))
    return n


_threads(sys.argv[1:])

from _tables import ab_cells, markdown_table, print_header  # noqa: E402

import numpy as np  # noqa: E402

import _bench_models as bm  # noqa: E402
import gluonlite as mx  # noqa: E402
from gluonlite.ops import blas_threads  # noqa: E402


def _case(name, mode, batch):
    """f(): one inference call or training step of the model on fixed random data."""
    mx.random.seed(0)
    net, loss = bm.build(mx, name, batch)
    [(shape, kind)], (lshape, classes) = bm.input_specs(name, batch)
    rng = np.random.default_rng(0)
    data = rng.integers(0, bm.VOCAB, shape) if kind == "tokens" else rng.standard_normal(shape)
    x = mx.nd.array(data.astype(np.float32))
    label = rng.standard_normal(lshape) if classes is None else rng.integers(0, classes, lshape)
    label = mx.nd.array(label.astype(np.float32))
    net.hybridize(static_alloc=True, static_shape=True)
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd",
                               {"learning_rate": 1e-3, "momentum": 0.9})

    def infer():
        net(x).wait_to_read()

    def train():
        with mx.autograd.record():
            out = loss(net(x), label)
        out.backward()
        trainer.step(batch)
        out.wait_to_read()
    return infer if mode == "infer" else train


def _rounds(f, rounds, block=5):
    """{True: [seconds], False: [seconds]}: f's wall time with `blas_threads` on and off, in
    alternating blocks of `block` calls. Each block starts with one untimed call, since
    the calls with it off leave scipy's workers spinning into the next few milliseconds."""
    res = {True: [], False: []}
    for r in range(rounds):
        for on in (True, False) if r % 2 else (False, True):
            blas_threads.ENABLED = on
            f()
            for _ in range(block):
                t = time.perf_counter()
                f()
                res[on].append(time.perf_counter() - t)
    blas_threads.ENABLED = True
    return res


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                    help="BLAS threads of both libraries (default: one per core)")
    ap.add_argument("--rounds", type=int, default=4, help="blocks of 5 calls per variant")
    ap.add_argument("--models", nargs="+",
                    default=["mobilenet0.25", "mobilenetv2_1.0", "resnet18_v1"])
    ap.add_argument("--batches", nargs="+", type=int, default=[1, 8])
    ap.add_argument("--modes", nargs="+", default=["infer", "train"],
                    choices=["infer", "train"])
    a = ap.parse_args(argv)
    pool = blas_threads.scipy_pool()
    print_header("blas_pools", argv,
                 f"- wall ms; numpy's and scipy's OpenBLAS at {a.threads} thread(s); scipy's "
                 f"own pool {'found' if pool else 'not found (one library: nothing to do)'}")
    rows = []
    for name in a.models:
        for mode in a.modes:
            for batch in a.batches:
                res = _rounds(_case(name, mode, batch), a.rounds)
                ms = [[t * 1e3 for t in res[on]] for on in (True, False)]
                rows.append([name, mode, batch] + ab_cells(*ms))
                print(f"  {' | '.join(str(c) for c in rows[-1])}", flush=True)
    print(markdown_table(["model", "mode", "batch", "off ms", "on ms", "on / off", "range"],
                         rows))


if __name__ == "__main__":
    main()
