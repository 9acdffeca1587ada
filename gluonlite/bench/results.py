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
import traceback

from .matrix import case_key

__all__ = ["ResultsFile", "OutputError", "check_writable", "read_records", "env_record",
           "stats", "spread", "error_line"]

_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                "OPENBLAS_CORETYPE", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS",
                "MKL_ENABLE_INSTRUCTIONS")


class OutputError(OSError):
    """The output file cannot be created or written; the message names the path."""


def _make_parent(path):
    """Create the folder of `path`; OutputError naming the part of the path that is a
    file (makedirs says only "File exists" for /etc/hostname/x.jsonl)."""
    parent = os.path.dirname(os.path.abspath(path))
    probe = parent
    while probe and not os.path.exists(probe):
        up = os.path.dirname(probe)
        if up == probe:
            break
        probe = up
    if os.path.exists(probe) and not os.path.isdir(probe):
        raise OutputError(f"cannot write {path}: {probe} is not a directory")
    try:
        os.makedirs(parent, exist_ok=True)
    except OSError as e:
        raise OutputError(f"cannot create the folder of {path}: {e.strerror or e}") from None
    return parent


def check_writable(path):
    """Create path's folder if missing and check that path can be written, without
    creating or changing the file itself.

    Raises:
        OutputError: naming the path and the reason.
    """
    parent = _make_parent(path)
    if os.path.isdir(path):
        raise OutputError(f"cannot write {path}: it is a folder")
    target = path if os.path.exists(path) else parent
    if not os.access(target, os.W_OK):
        raise OutputError(f"cannot write {path}: permission denied")


def stats(times_ms):
    """Summary statistics of a list of times in ms, with the rounds themselves.

    Returns:
        dict with n, mean, std (population, as the seed's np.std), median, q1, q3 (the
        quartiles, numpy's linear interpolation), min, max, and times (every round, in
        the order run, rounded to 1 ns).

    Example:
        >>> s = stats([1.0, 3.0, 2.0])
        >>> s['mean'], s['median'], s['q1'], s['q3'], s['times']
        (2.0, 2.0, 1.5, 2.5, [1.0, 3.0, 2.0])
    """
    import numpy as np
    t = np.asarray(times_ms, dtype="float64")
    if t.size == 0:
        raise ValueError("stats: expected at least one time, got an empty list")
    q1, med, q3 = np.percentile(t, [25, 50, 75])
    return {"n": int(t.size), "mean": float(t.mean()), "std": float(t.std()),
            "median": float(med), "q1": float(q1), "q3": float(q3),
            "min": float(t.min()), "max": float(t.max()),
            "times": [round(float(x), 6) for x in t]}


def spread(record):
    """(median, low, high) of a result record: the median and its interquartile range.

    Records without quartiles (written before they existed) use their rounds when kept,
    else min and max, so an old file still renders (with a wider, safer spread).

    Example:
        >>> spread({'median': 2.0, 'min': 1.0, 'max': 4.0})
        (2.0, 1.0, 4.0)
    """
    med = record.get("median", record.get("mean"))
    if record.get("q1") is not None and record.get("q3") is not None:
        return med, record["q1"], record["q3"]
    times = record.get("times")
    if times:
        import numpy as np
        q1, q3 = np.percentile(np.asarray(times, dtype="float64"), [25, 75])
        return med, float(q1), float(q3)
    return med, record.get("min", med), record.get("max", med)


def read_records(path, bad_lines=None):
    """Read the JSON objects of a results file, skipping lines that do not parse.

    Args:
        path: a JSON lines file.
        bad_lines: optional list; (line number, text) of each skipped line is appended.

    Returns:
        (records, bad): the list of dicts and the number of lines skipped.
        A missing file gives ([], 0).

    Raises:
        OutputError: the file exists but cannot be read (a folder, no permission).
    """
    records, bad = [], 0
    try:
        f = open(path, encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return [], 0
    except OSError as e:
        raise OutputError(f"cannot read {path}: {e.strerror or e}") from None
    with f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except ValueError:
                rec = None
            if isinstance(rec, dict):
                records.append(rec)
            else:
                bad += 1
                if bad_lines is not None:
                    bad_lines.append((number, line))
    return records, bad


def rejected_path(path):
    """Where `ResultsFile(resume=True)` moves the lines of `path` that are not records."""
    return path + ".rejected"


class ResultsFile:
    """An append-only JSON lines file, written and flushed one whole line at a time.

    Opening creates missing parent folders and fails right away (OutputError) if the
    path cannot be written, so a run stops before its first case. A write that fails
    (a full disk) truncates the file back to its last whole line and raises OutputError.

    Args:
        path: the file.
        resume: keep the existing lines (and drop a trailing partial line); lines that
            are not JSON records are moved to `rejected_path(path)` and listed in
            `rejected`. Otherwise the file is truncated.
        writer: the function that writes bytes to the descriptor (os.write; tests pass
            one that fails).

    Attributes:
        records: the finished records already in the file (resume only); records of
            failed cases (`"failed": true`) are left out, so a resumed run retries them.
        done: set of `case_key`s of those records.
        rejected: line numbers of the lines moved out on resume.

    Raises:
        OutputError: the folder cannot be created or the file opened for writing.
    """

    def __init__(self, path, resume=False, writer=os.write):
        self.path, self._os_write, self.rejected = path, writer, []
        _make_parent(path)
        kept = []
        try:
            if resume:
                self._drop_partial_line()
                bad = []
                kept = read_records(path, bad)[0]
                if bad:
                    self._move_out(bad, kept)
            flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | (0 if resume else os.O_TRUNC)
            self.fd = os.open(path, flags, 0o644)
        except OSError as e:
            raise OutputError(f"cannot write output file {path}: {e.strerror or e}") from None
        self.records = [r for r in kept if not r.get("failed")]
        self.done = {case_key(r) for r in self.records}

    def _move_out(self, bad, kept):
        """Append the unreadable lines to the .rejected file, then replace the results
        file by its records alone (atomically: a crash leaves the old or the new one)."""
        from ..base import write_atomically
        with open(rejected_path(self.path), "a", encoding="utf-8") as f:
            f.writelines(line if line.endswith("\n") else line + "\n" for _, line in bad)
        write_atomically(self.path, "".join(json.dumps(r) + "\n" for r in kept).encode())
        self.rejected = [n for n, _ in bad]

    def _drop_partial_line(self):
        try:
            with open(self.path, "rb+") as f:
                data = f.read()
                if data and not data.endswith(b"\n"):
                    f.truncate(data.rfind(b"\n") + 1)
        except FileNotFoundError:
            pass

    def write(self, record):
        """Append one record as one line, in a single write, and return it.

        Raises:
            OutputError: the write failed (e.g. no space left); the file keeps only its
                whole lines.
        """
        data = (json.dumps(record, sort_keys=False) + "\n").encode("utf-8")
        view = memoryview(data)
        start = os.lseek(self.fd, 0, os.SEEK_END)
        try:
            while view:
                n = self._os_write(self.fd, view)
                view = view[n:]
        except OSError as e:
            try:
                os.ftruncate(self.fd, start)
            except OSError:
                pass
            raise OutputError(f"cannot write to {self.path}: {e.strerror or e}") from None
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


def git_commit():
    """The commit of the gluonlite source in use, with `-dirty` when its tracked files
    differ from it; None outside a git checkout or without git (within 5 s).

    Example:
        >>> git_commit()            # doctest: +SKIP
        'f0b57d4c...-dirty'
    """
    import subprocess
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

    def git(*args):
        return subprocess.run(["git", "-C", root, *args], capture_output=True, text=True,
                              timeout=5, check=True).stdout.strip()
    try:
        commit = git("rev-parse", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no", "--", "gluonlite")
    except (OSError, subprocess.SubprocessError):
        return None
    return commit + ("-dirty" if dirty else "") if commit else None


def env_record():
    """What the numbers depend on: host, versions, BLAS, thread settings, CPU.

    Returns:
        dict with host (name), gluonlite, commit (see `git_commit`), numpy, scipy, python,
        platform, blas (list), threads (the thread-related environment variables that are
        set), cpu, cpu_count.
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
    return {"host": socket.gethostname(), "gluonlite": version, "commit": git_commit(),
            "numpy": np.__version__,
            "scipy": scipy_version,
            "python": sys.version.split()[0], "platform": platform.platform(),
            "blas": _blas_info(),
            "threads": {k: os.environ[k] for k in _THREAD_VARS if k in os.environ},
            "cpu": _cpu_model(), "cpu_count": os.cpu_count()}


def _short(filename):
    """A source path relative to the folder holding the gluonlite package, if inside it."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    full = os.path.abspath(filename)
    return os.path.relpath(full, root) if full.startswith(root + os.sep) else filename


def error_line(exc):
    """`Type: message [file:line]` on one line, for a case that raised (the ``error`` of its
    results record, and what the CLI prints).

    Example: ``error_line(ValueError("bad"))`` is ``'ValueError: bad'`` (no traceback yet).
    """
    text = " | ".join(s.strip() for s in str(exc).splitlines() if s.strip())
    tb = traceback.extract_tb(exc.__traceback__)
    where = f" [at {_short(tb[-1].filename)}:{tb[-1].lineno}]" if tb else ""
    return f"{type(exc).__name__}: {text}{where}"
