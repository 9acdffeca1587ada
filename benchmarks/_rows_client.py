"""The benchmark side of a rows worker: another framework's rows (MXNet, PyTorch) timed in a
long-lived subprocess under that framework's interpreter, fed JSON lines (the worker side of
the protocol is `_rows_worker.py`).

Example:
    >>> from _rows_client import RowsWorker                           # doctest: +SKIP
    >>> w = RowsWorker('mxnet_rnn_rows.py', '/work/mxvenv/bin/python',
    ...                'GLUONLITE_MXNET_PYTHON', 'MXNet')             # doctest: +SKIP
"""
import _env  # noqa: F401  (one BLAS thread, also for subprocesses: set before numpy loads)
import os

__all__ = ["RowsWorker", "WorkerError", "case_arguments", "mxnet_worker", "collect_rows"]


class WorkerError(RuntimeError):
    """A rows worker could not start, answered an error or died (the message says which,
    with the environment variable that named its interpreter)."""


class RowsWorker:
    """A long-lived worker script (`mxnet_rnn_rows.py`, `torch_rnn_rows.py`) run under
    another framework's interpreter and fed JSON lines (protocol: `_rows_worker.py`).

    Args:
        script: the worker's file name in benchmarks/ (or a path).
        python: path of the interpreter to run it with.
        env_var: the environment variable that named `python` (for messages).
        label: the framework's name in messages ("MXNet", "PyTorch").
        timeout: seconds to wait for any one reply.
        args: command-line arguments for the script (which framework a shared worker
            serves).

    Raises:
        WorkerError: the worker cannot start, answers an error, or dies; the message
            carries the tail of its stderr.

    Example:
        >>> w = RowsWorker('mxnet_rnn_rows.py', '/work/mxvenv/bin/python',
        ...                'GLUONLITE_MXNET_PYTHON', 'MXNet')       # doctest: +SKIP
        >>> w.request(op='hello')['mxnet']                          # doctest: +SKIP
        '1.9.1'
    """

    def __init__(self, script, python, env_var, label, timeout=1800, args=()):
        import subprocess
        import tempfile
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), script)
        self.label, self.env_var = label, env_var
        self.err = tempfile.TemporaryFile(mode="w+")
        self.timeout = timeout
        try:
            self.proc = subprocess.Popen([python, path, *args], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=self.err, text=True,
                                         bufsize=1)
        except OSError as exc:
            self.err.close()
            raise WorkerError(f"{env_var}={python!r}: cannot start it: {exc}") from exc

    def _stderr_tail(self, n=800):
        self.err.seek(0)
        return self.err.read()[-n:]

    def request(self, **msg):
        """Send one request; return the reply dict (ok is True)."""
        import json
        import select
        who = f"{self.label} worker ({self.env_var})"
        try:
            self.proc.stdin.write(json.dumps(msg) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise WorkerError(f"{who} died: {exc}; stderr: {self._stderr_tail()}") from exc
        ready, _, _ = select.select([self.proc.stdout], [], [], self.timeout)
        line = self.proc.stdout.readline() if ready else ""
        if not line:
            raise WorkerError(f"{who} gave no answer to {msg.get('op')!r} "
                              f"(exit code {self.proc.poll()}); stderr: {self._stderr_tail()}")
        reply = json.loads(line)
        if not reply.get("ok"):
            raise WorkerError(f"{who} failed on {msg}: {reply.get('error')}")
        return reply

    def close(self):
        """Ask the worker to quit and wait for it."""
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write('{"op": "quit"}\n')
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=30)
            except Exception:  # noqa: BLE001 - subprocess.TimeoutExpired: end our own child
                self.proc.kill()
        self.err.close()


def mxnet_worker(script, python):
    """(worker, header lines) for a benchmark's MXNet column: a `RowsWorker` running `script`
    under `python` (named by $GLUONLITE_MXNET_PYTHON or --mxnet-python), greeted, and the
    header line naming its MXNet; (None, []) when `python` is empty.

    Raises:
        WorkerError: the worker cannot start or answer.
    """
    if not python:
        return None, []
    worker = RowsWorker(script, python, "GLUONLITE_MXNET_PYTHON", "MXNet")
    hello = worker.request(op="hello")
    return worker, [f"- MXNet {hello['mxnet']} (numpy {hello['numpy']}) via {python}"]


def collect_rows(worker, run):
    """The table rows ``run(rows)`` appends, with `worker` (or None) closed afterwards,
    whatever happens."""
    rows = []
    try:
        run(rows)
    finally:
        if worker is not None:
            worker.close()
    return rows


def case_arguments(ap):
    """Add the options of a benchmark of cases against an MXNet worker to argparse parser
    `ap`: --rounds, --warmup, --cases, --mxnet-python (default $GLUONLITE_MXNET_PYTHON) and
    --clock; returns `ap`."""
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--cases", nargs="+", default=[],
                    help="run only the cases whose name contains one of these")
    ap.add_argument("--mxnet-python", default=os.environ.get("GLUONLITE_MXNET_PYTHON"))
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    return ap

