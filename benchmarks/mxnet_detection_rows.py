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
from _rows_worker import serve, time_round  # noqa: E402


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


class Worker:
    """Holds the current case's call and times it on request."""

    def __init__(self):
        import mxnet
        self.mx = mxnet
        self.calls = {}

    def hello(self, _msg):
        import numpy
        return {"mxnet": self.mx.__version__, "numpy": numpy.__version__}

    def setup(self, msg):
        call = make_call(self.mx, msg["case"])
        call()  # the first call allocates and warms up
        self.calls = {"mxnet": {"run": call}}
        return {"names": ["mxnet"]}

    def round(self, msg):
        return {"ms": time_round(self.calls, "run", msg.get("clock", "wall"))}


if __name__ == "__main__":
    sys.exit(serve(Worker, ("hello", "setup", "round"), "mxnet"))
