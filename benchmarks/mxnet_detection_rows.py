"""MXNet 1.9.1's rows of benchmarks/detection_ops.py: a worker run under an MXNet
interpreter (`$GLUONLITE_MXNET_PYTHON benchmarks/mxnet_detection_rows.py`); it never imports
gluonlite. One JSON object per line each way (protocol: `_rows_worker.py`):

    {"op": "hello"}                 -> {"ok": true, "mxnet": "1.9.1", "numpy": ...}
    {"op": "setup", "case": k}      -> {"ok": true, "names": ["mxnet"]}  (the call ran once)
    {"op": "round", "mode": "run"}  -> {"ok": true, "ms": {"mxnet": ms}}
    {"op": "quit"}                  -> exits

Case k of `_detection_cases.CASES` is built from the same numpy inputs as gluonlite's side;
its call stops the timer after ``nd.waitall()``; a case listing gradient inputs runs
forward under ``autograd.record()`` and ``backward`` of the output's sum.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _detection_cases import CASES, inputs  # noqa: E402
from _rows_worker import CaseWorker, serve  # noqa: E402


def make_call(mx, k):
    """A zero-arg callable running case k once under `mx` (mxnet or gluonlite)."""
    name, path, attrs, grads = CASES[k]
    xs = [mx.nd.array(a, dtype=a.dtype) for a in inputs(name)]
    fn = mx.nd
    for part in path.split("."):
        fn = getattr(fn, part)
    for i in grads:
        xs[i].attach_grad()

    def call():
        if grads:
            with mx.autograd.record():
                out = fn(*xs, **attrs)
            out.backward()
        else:
            out = fn(*xs, **attrs)
        mx.nd.waitall()
        return out
    return call


if __name__ == "__main__":
    sys.exit(serve(lambda: CaseWorker(lambda mx, msg: make_call(mx, msg["case"])),
                   CaseWorker.OPS, "mxnet"))
