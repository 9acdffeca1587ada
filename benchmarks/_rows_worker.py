"""The serving side of a rows worker: a script run under another framework's interpreter
(mxnet_rnn_rows.py, torch_rnn_rows.py) that answers JSON requests from rnn_floor.py.

Standard library only: the interpreter running a worker has neither gluonlite nor, maybe,
our numpy. The protocol is one JSON object per line each way; a request names an `op`,
the reply carries "ok" and either the op's fields or "error". The parent side is
`_rows_client.RowsWorker`.

Example (a worker script's main)::

    if __name__ == "__main__":
        sys.exit(serve(Worker, ("hello", "setup", "round"), "torch"))
"""
import gc
import itertools
import json
import os
import sys
import time


def protocol_stdout():
    """A private copy of stdout for the JSON replies; fd 1 then points at stderr, so that
    whatever the framework prints cannot corrupt the protocol."""
    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out


_ROUNDS = itertools.count()


def time_round(calls, mode, clock="wall"):
    """{name: ms} of one call of each `calls[name][mode]`. As gluonlite's rows
    (_timing.interleaved), the cyclic collector runs between rounds, not inside a call, and
    each round of this process starts with the next variant (the first call after a
    collection runs slower); `clock` 'cpu' times the process's CPU time (every thread's)
    instead of wall time."""
    timer = time.process_time if clock == "cpu" else time.perf_counter
    ms = {}
    names = list(calls)
    k = next(_ROUNDS) % max(len(names), 1)
    gc.collect()
    for name in names[k:] + names[:k]:
        modes = calls[name]
        gc.disable()
        try:
            t0 = timer()
            modes[mode]()
            ms[name] = (timer() - t0) * 1e3
        finally:
            gc.enable()
    return ms


def serve(make_worker, ops, framework):
    """Answer requests on stdin until {"op": "quit"} or the end of input.

    Args:
        make_worker: a zero-arg callable making the object whose methods answer `ops`
            (each takes the request dict and returns a dict of reply fields).
        ops: the op names served.
        framework: the module the worker needs, named in the reply when it cannot start.

    Returns:
        The exit status: 0, or 1 when the worker cannot be made (reported as a reply).
    """
    out = protocol_stdout()
    try:
        worker = make_worker()
    except Exception as exc:  # noqa: BLE001 - reported to the parent, which decides
        out.write(json.dumps({"ok": False, "error": f"cannot import {framework}: {exc!r}"})
                  + "\n")
        return 1
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            msg = json.loads(line)
            op = msg.get("op")
            if op == "quit":
                break
            if op not in ops:
                raise ValueError(f"unknown op {op!r}")
            reply = {"ok": True, **getattr(worker, op)(msg)}
        except Exception as exc:  # noqa: BLE001 - the parent shows the message
            reply = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
        out.write(json.dumps(reply) + "\n")
    return 0


class CaseWorker:
    """A worker holding one case's call at a time, built by ``make_call(mxnet, msg)`` from the
    setup request and timed on request (the ops "hello", "setup", "round").

    Example (a worker script's main)::

        sys.exit(serve(lambda: CaseWorker(make_call), CaseWorker.OPS, "mxnet"))
    """

    OPS = ("hello", "setup", "round")

    def __init__(self, make_call):
        import mxnet
        self.mx = mxnet
        self.make_call = make_call
        self.calls = {}

    def hello(self, _msg):
        import numpy
        return {"mxnet": self.mx.__version__, "numpy": numpy.__version__}

    def setup(self, msg):
        call = self.make_call(self.mx, msg)
        call()  # the first call allocates and warms up
        self.calls = {"mxnet": {"run": call}}
        return {"names": ["mxnet"]}

    def round(self, msg):
        return {"ms": time_round(self.calls, "run", msg.get("clock", "wall"))}

