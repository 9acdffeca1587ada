"""Float32 sums accumulated in float64 and rounded once (`gluonlite/ops/accumulate.py`, the
numbers MXNet's compensated reducer gives) against numpy's own float32 sum, the rule before;
and MXNet 1.9.1's `nd.sum` on the same shapes when its Python is given.

    PYTHONPATH=. python benchmarks/wide_sums.py [--rounds 9] [--scale 1] \
        [--mxnet-python /path/to/mxnet-venv/bin/python]

- Operator rows: `nd.sum` over an axis or all of them, on normal float32 data of shapes a
  model meets (a loss over a batch, a row of logits, a feature map).
- A model row: a training step of an MLP (784-512-10, batch 256) whose loss is
  SoftmaxCrossEntropyLoss (a mean over the batch), to show what a step pays.

Variants are interleaved in every round, in one process, one BLAS thread (`_timing`);
medians of CPU time (microseconds a call in the operator rows, ms in the model row), new /
old with its range over the rounds. MXNet's column is its median over the
same number of rounds in a subprocess (NaiveEngine, one thread) run after them, and the
last column is gluonlite's new rule over it. `--scale` shrinks the arrays (the tests run it
tiny).
"""
import argparse
import contextlib
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _timing import interleaved_ab, median  # noqa: E402  (first: one BLAS thread)
from _tables import ab_cells  # noqa: E402

import numpy as np  # noqa: E402

import gluonlite as mx  # noqa: E402
from gluonlite.ops import accumulate  # noqa: E402

# (label, shape, axis)
CASES = [("loss over a batch", (4096,), None),
         ("rows of logits", (256, 1000), 1),
         ("columns of a batch", (1024, 512), 0),
         ("a feature map", (32, 64, 56 * 56), (0, 2)),
         ("every entry", (32, 512, 128), None)]

_MXNET_WORKER = r"""
import json, sys, time
import numpy as np
import mxnet as mx
cases, rounds = json.loads(sys.argv[1]), int(sys.argv[2])
out = []
for shape, axis in cases:
    axis = tuple(axis) if isinstance(axis, list) else axis
    x = mx.nd.array(np.random.default_rng(0).standard_normal(shape).astype(np.float32))
    mx.nd.sum(x, axis=axis).wait_to_read()
    ts = []
    for _ in range(rounds):
        t = time.process_time()
        mx.nd.sum(x, axis=axis).wait_to_read()
        ts.append((time.process_time() - t) * 1e3)
    out.append(sorted(ts)[len(ts) // 2] * 1e3)
print(json.dumps(out))
"""


@contextlib.contextmanager
def variant(new):
    """The wide sums (new=True), or numpy's own float32 sum in their place."""
    saved = dict(accumulate.WIDER)
    if not new:
        accumulate.WIDER.clear()
    try:
        yield
    finally:
        accumulate.WIDER.update(saved)


def _time(call, rounds):
    return interleaved_ab(call, variant, rounds)


def _shape(shape, scale):
    return (max(1, round(shape[0] * scale)),) + shape[1:]


def _mxnet_medians(python, cases, rounds):
    """MXNet's median CPU microseconds a call per case, or None where no MXNet Python was
    given or it failed (the reason goes to stderr)."""
    if not python:
        return [None] * len(cases)
    env = dict(os.environ, MXNET_ENGINE_TYPE="NaiveEngine", OMP_NUM_THREADS="1")
    proc = subprocess.run([python, "-c", _MXNET_WORKER, json.dumps(cases), str(rounds)],
                          capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        print(f"MXNet's worker failed: {proc.stderr.strip().splitlines()[-1:]}",
              file=sys.stderr)
        return [None] * len(cases)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _mlp_step(batch):
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(512, activation="relu"), mx.gluon.nn.Dense(10))
    net.initialize(mx.init.Xavier())
    net.hybridize(static_alloc=True, static_shape=True)
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.01})
    rng = np.random.default_rng(1)
    x = mx.nd.array(rng.standard_normal((batch, 784)).astype(np.float32))
    y = mx.nd.array(rng.integers(0, 10, batch))

    def step():
        with mx.autograd.record():
            loss = loss_fn(net(x), y).mean()
        loss.backward()
        trainer.step(batch)
        loss.wait_to_read()
    return step


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--mxnet-python", default=os.environ.get("GLUONLITE_MXNET_PYTHON"),
                    help="a Python with MXNet 1.9.1 installed, for its column")
    a = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    shapes = [(_shape(s, a.scale), ax) for _, s, ax in CASES]
    theirs = _mxnet_medians(a.mxnet_python, shapes, a.rounds)
    print("| case | numpy's float32 sum | wide sum | new / old | range | MXNet "
          "| new / MXNet |")
    print("|---|---:|---:|---:|---|---:|---:|")
    for (label, _, _), (shape, axis), mxnet_us in zip(CASES, shapes, theirs):
        x = mx.nd.array(rng.standard_normal(shape).astype(np.float32))
        # calls per timed unit: about 10 ms of them, at most 1000 (fewer when scaled down)
        reps = max(1, round(min(1000, 1e7 // x.size) * min(a.scale, 1.0)))

        def calls():
            for _ in range(reps):
                mx.nd.sum(x, axis=axis).wait_to_read()
        res = {k: [1e3 * ms / reps for ms in v] for k, v in _time(calls, a.rounds).items()}
        peer = ["-", "-"] if mxnet_us is None else [
            f"{mxnet_us:.1f}", f"{median(res['new']) / mxnet_us:.3f}"]
        print("| " + " | ".join([f"sum, {label} {shape} axis={axis}"] + ab_cells(
            res["new"], res["old"]) + peer) + " |", flush=True)
    batch = max(1, round(256 * a.scale))
    res = _time(_mlp_step(batch), a.rounds)
    print("| " + " | ".join([f"MLP training step, batch {batch} (ms)"] +
                            ab_cells(res["new"], res["old"]) + ["-", "-"]) + " |")


if __name__ == "__main__":
    main()
