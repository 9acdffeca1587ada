"""Results files (JSON lines, one object per finished case) and the environment record.

Each line is written with a single `os.write` on a file opened with O_APPEND, so an
interrupted run leaves only whole lines; `--resume` reads them back and skips their
cases. A line cut short by a hard kill (no newline at the end) is dropped on resume.

Example:
    >>> w = ResultsFile('/tmp/r.jsonl')            # doctest: +SKIP
    >>> w.write({'impl': 'gluonlite', 'mean': 1.0}); w.close()   # doctest: +SKIP
"""
import json
import os
import platform
import socket
import sys

from .matrix import case_key

__all__ = ["ResultsFile", "OutputError", "check_writable", "read_records", "env_record",
           "stats"]

_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                "OPENBLAS_CORETYPE", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS",
                "MKL_ENABLE_INSTRUCTIONS")


class OutputError(OSError):
    """The output file cannot be created or written; the message names the path."""


def check_writable(path):
    """Create path's folder if missing and check that path can be written, without
    creating or changing the file itself.

    Raises:
        OutputError: naming the path and the reason.
    """
    parent = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(parent, exist_ok=True)
    except OSError as e:
        raise OutputError(f"cannot create the folder of {path}: {e.strerror or e}") from None
    if os.path.isdir(path):
        raise OutputError(f"cannot write {path}: it is a folder")
    target = path if os.path.exists(path) else parent
    if not os.access(target, os.W_OK):
        raise OutputError(f"cannot write {path}: permission denied")


def stats(times_ms):
    """Summary statistics of a list of times in ms.

    Returns:
        dict with n, mean, std (population, as the seed's np.std), median, min, max.

    Example:
        >>> stats([1.0, 3.0])['mean']
        2.0
    """
    import numpy as np
    t = np.asarray(times_ms, dtype="float64")
    return {"n": int(t.size), "mean": float(t.mean()), "std": float(t.std()),
            "median": float(np.median(t)), "min": float(t.min()), "max": float(t.max())}


def read_records(path):
    """Read the JSON objects of a results file, skipping lines that do not parse.

    Args:
        path: a JSON lines file.

    Returns:
        (records, bad): the list of dicts and the number of lines skipped.
        A missing file gives ([], 0).
    """
    records, bad = [], 0
    try:
        f = open(path, encoding="utf-8")
    except FileNotFoundError:
        return [], 0
    with f:
        for line in f:
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except ValueError:
                bad += 1
                continue
            if isinstance(rec, dict):
                records.append(rec)
            else:
                bad += 1
    return records, bad


class ResultsFile:
    """An append-only JSON lines file, written and flushed one whole line at a time.

    Opening creates missing parent folders and fails right away (OutputError) if the
    path cannot be written, so a run stops before its first case.

    Args:
        path: the file.
        resume: keep the existing lines (and drop a trailing partial line);
            otherwise the file is truncated.

    Attributes:
        records: the finished records already in the file (resume only); records of
            failed cases (`"failed": true`) are left out, so a resumed run retries them.
        done: set of `case_key`s of those records.

    Raises:
        OutputError: the folder cannot be created or the file opened for writing.
    """

    def __init__(self, path, resume=False):
        self.path = path
        parent = os.path.dirname(os.path.abspath(path))
        try:
            os.makedirs(parent, exist_ok=True)
            if resume:
                self._drop_partial_line()
            flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | (0 if resume else os.O_TRUNC)
            self.fd = os.open(path, flags, 0o644)
        except OSError as e:
            raise OutputError(f"cannot write output file {path}: {e.strerror or e}") from None
        kept = read_records(path)[0] if resume else []
        self.records = [r for r in kept if not r.get("failed")]
        self.done = {case_key(r) for r in self.records}

    def _drop_partial_line(self):
        try:
            with open(self.path, "rb+") as f:
                data = f.read()
                if data and not data.endswith(b"\n"):
                    f.truncate(data.rfind(b"\n") + 1)
        except FileNotFoundError:
            pass

    def write(self, record):
        """Append one record as one line, in a single write, and return it."""
        data = (json.dumps(record, sort_keys=False) + "\n").encode("utf-8")
        view = memoryview(data)
        while view:
            n = os.write(self.fd, view)
            view = view[n:]
        return record

    def close(self):
        """Close the file (idempotent)."""
        if getattr(self, "fd", None) is not None:
            os.close(self.fd)
            self.fd = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _blas_info():
    """BLAS libraries in use: threadpoolctl when importable, else numpy's build config."""
    try:
        from threadpoolctl import threadpool_info
        return [{k: v for k, v in d.items() if k in ("internal_api", "version", "num_threads",
                                                    "architecture", "threading_layer", "prefix")}
                for d in threadpool_info()]
    except Exception:  # threadpoolctl missing or failing: fall back to numpy's config
        pass
    try:
        import numpy as np
        cfg = np.show_config(mode="dicts")["Build Dependencies"]
        return [{"name": cfg["blas"].get("name"), "version": cfg["blas"].get("version"),
                 "config": cfg["blas"].get("openblas configuration")}]
    except Exception:  # older numpy without mode="dicts"
        return []


def _cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def env_record():
    """What the numbers depend on: host, versions, BLAS, thread settings, CPU.

    Returns:
        dict with host (name), gluonlite, numpy, scipy, python, platform, blas (list),
        threads (the thread-related environment variables that are set), cpu, cpu_count.
    """
    import numpy as np
    try:
        import gluonlite
        version = getattr(gluonlite, "__version__", "unknown")
    except Exception as e:  # the record must not fail because the core does
        version = f"unimportable ({type(e).__name__})"
    try:
        import scipy
        scipy_version = scipy.__version__
    except ImportError:
        scipy_version = None
    return {"host": socket.gethostname(), "gluonlite": version, "numpy": np.__version__,
            "scipy": scipy_version,
            "python": sys.version.split()[0], "platform": platform.platform(),
            "blas": _blas_info(),
            "threads": {k: os.environ[k] for k in _THREAD_VARS if k in os.environ},
            "cpu": _cpu_model(), "cpu_count": os.cpu_count()}
