"""Results files (JSON lines, one object per finished case) and the environment record.

Each line is written with a single `os.write` on a file opened with O_APPEND, so an
interrupted run leaves only whole lines; `--resume` reads them back and skips their
cases. A line cut short by a hard kill (no newline at the end) is dropped on resume.

A results file has one writer at a time: `ResultsFile` holds an exclusive lock (flock) on
``FILE.lock`` from before it reads or truncates the file until it is closed, and a second
run fails at once with an error naming the run that holds it (pid, host, start time). The
kernel drops the lock of a process that dies, so a crash leaves no stale lock.

Example:
    >>> w = ResultsFile('/tmp/r.jsonl')            # doctest: +SKIP
    >>> w.write({'impl': 'gluonlite', 'mean': 1.0}); w.close()   # doctest: +SKIP
"""
import datetime
import json
import os
import platform
import socket
import subprocess
import sys
import traceback

import numpy as np
import scipy

from .. import __version__
from ..base import write_atomically
from .matrix import case_key

try:
    import fcntl
except ImportError:  # no flock (Windows): runs are not kept apart there
    fcntl = None

__all__ = ["ResultsFile", "OutputError", "FileLock", "check_writable", "read_records",
           "record_problem", "env_record", "stats", "spread", "error_line"]

_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                "OPENBLAS_CORETYPE", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS",
                "MKL_ENABLE_INSTRUCTIONS")


class OutputError(OSError):
    """The output file cannot be created or written; the message names the path.

    Example::

        from gluonlite.bench.results import OutputError, check_writable
        import os
        os.mkdir('folder')
        try:
            check_writable('folder')
        except OutputError as err:
            print(err)  # cannot write folder: it is a folder
    """


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

    Args:
        path: the file to be written.

    Raises:
        OutputError: naming the path and the reason.

    Example::

        from gluonlite.bench.results import check_writable
        import os
        check_writable('out/r.jsonl')  # creates out/, not the file
        print(os.path.isdir('out'), os.path.exists('out/r.jsonl'))  # True False
    """
    parent = _make_parent(path)
    if os.path.isdir(path):
        raise OutputError(f"cannot write {path}: it is a folder")
    target = path if os.path.exists(path) else parent
    if not os.access(target, os.W_OK):
        raise OutputError(f"cannot write {path}: permission denied")


def stats(times_ms):
    """Summary statistics of a list of times in ms, with the rounds themselves.

    Args:
        times_ms: the round times, in ms (a non-empty list of floats).

    Returns:
        dict with n, mean, std (population, as the seed's np.std), median, q1, q3 (the
        quartiles, numpy's linear interpolation), min, max, and times (every round, in
        the order run, rounded to 1 ns).

    Raises:
        ValueError: `times_ms` is empty.

    Example:
        >>> s = stats([1.0, 3.0, 2.0])
        >>> s['mean'], s['median'], s['q1'], s['q3'], s['times']
        (2.0, 2.0, 1.5, 2.5, [1.0, 3.0, 2.0])
    """
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

    Args:
        record: a result record.

    Returns:
        A tuple of three floats, ms.

    Example:
        >>> spread({'median': 2.0, 'min': 1.0, 'max': 4.0})
        (2.0, 1.0, 4.0)
    """
    med = record.get("median", record.get("mean"))
    if record.get("q1") is not None and record.get("q3") is not None:
        return med, record["q1"], record["q3"]
    times = record.get("times")
    if times:
        q1, q3 = np.percentile(np.asarray(times, dtype="float64"), [25, 75])
        return med, float(q1), float(q3)
    return med, record.get("min", med), record.get("max", med)


def read_records(path, bad_lines=None, check=None):
    r"""Read the JSON objects of a results file, skipping lines that do not parse.

    Args:
        path: a JSON lines file.
        bad_lines: optional list; (line number, text, reason) of each skipped line is
            appended.
        check: optional function record -> problem or None (e.g. `record_problem`); an
            object with a problem is skipped as a bad line too.

    Returns:
        (records, bad): the list of dicts and the number of lines skipped.
        A missing file gives ([], 0).

    Raises:
        OutputError: the file exists but cannot be read (a folder, no permission).

    Example::

        from gluonlite.bench.results import read_records
        with open('r.jsonl', 'w') as f:
            f.write('{"seq_len": 2, "median": 1.5}\nnot json\n')
        bad = []
        print(read_records('r.jsonl', bad))  # ([{'seq_len': 2, 'median': 1.5}], 1)
        print(bad[0][0], bad[0][2])  # 2 not JSON
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
            problem = _line_problem(line, check)
            if isinstance(problem, dict):
                records.append(problem)
                continue
            bad += 1
            if bad_lines is not None:
                bad_lines.append((number, line, problem))
    return records, bad


def _line_problem(line, check):
    """The record of one line, or why it is not one (a str)."""
    try:
        rec = json.loads(line)
    except ValueError:
        return "not JSON"
    except RecursionError:
        return "JSON nested too deeply"
    if not isinstance(rec, dict):
        return f"a JSON {type(rec).__name__}, not an object"
    problem = check(rec) if check else None
    return problem if problem else rec


class FileLock:
    """An exclusive lock on ``PATH.lock`` that says who holds it.

    `acquire` never waits: when another process holds the lock it raises OutputError naming
    that process (the pid, host and start time it wrote into the lock file). `release`
    removes the lock file while still holding the lock, so a process that opened the old
    file finds it gone and tries again on a new one.

    Args:
        path: the file to lock; the lock file is ``PATH.lock``.

    Example:
        >>> lock = FileLock('/tmp/r.jsonl').acquire()     # doctest: +SKIP
        >>> lock.release()                                 # doctest: +SKIP
    """

    def __init__(self, path):
        self.target, self.path, self.fd = path, path + ".lock", None

    def acquire(self):
        """Take the lock (a no-op where the system has no flock); returns self.

        Raises:
            OutputError: another process holds it, or the lock file cannot be made.

        Example::

            from gluonlite.bench.results import FileLock
            import os
            lock = FileLock('r.jsonl').acquire()
            print(os.path.exists('r.jsonl.lock'))  # True
            lock.release()
        """
        if fcntl is None:
            return self
        while self.fd is None:
            fd = self._open()
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _holder(fd)
                os.close(fd)
                raise self._held(holder) from None
            except OSError:  # a file system without locks: go on unguarded
                os.close(fd)
                return self
            if _same_file(fd, self.path):
                self.fd = fd
            else:  # its last holder removed it between our open and our lock
                os.close(fd)
        since = datetime.datetime.now().isoformat(timespec="seconds")
        os.ftruncate(self.fd, 0)
        os.write(self.fd, json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                                      "since": since}).encode())
        return self

    def _held(self, holder):
        return OutputError(f"{self.target} is being written by another run ({holder}; lock "
                           f"{self.path}): wait for it to finish, or give another --out")

    def check_free(self):
        """Raise, as `acquire` does, when another process holds the lock; take nothing.

        Raises:
            OutputError: naming the holder.

        Example::

            from gluonlite.bench.results import FileLock
            FileLock('r.jsonl').check_free()  # no lock file: nothing raised
        """
        if fcntl is None:
            return
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except OSError:
            return  # no lock file: nobody holds it
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            raise self._held(_holder(fd)) from None
        except OSError:
            pass
        finally:
            os.close(fd)

    def _open(self):
        try:
            return os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise OutputError(f"cannot create the lock file {self.path}: "
                              f"{e.strerror or e}") from None

    def release(self):
        """Remove the lock file and drop the lock (idempotent).

        Example::

            from gluonlite.bench.results import FileLock
            import os
            lock = FileLock('r.jsonl').acquire()
            lock.release()
            lock.release()  # idempotent
            print(os.path.exists('r.jsonl.lock'))  # False
        """
        if self.fd is None:
            return
        try:
            os.unlink(self.path)
        except OSError:
            pass
        os.close(self.fd)
        self.fd = None


def _same_file(fd, path):
    try:
        return os.fstat(fd).st_ino == os.stat(path).st_ino
    except OSError:
        return False


def _holder(fd):
    """'pid N on HOST since TIME' from a lock file, or what is known."""
    try:
        info = json.loads(os.pread(fd, 4096, 0) or b"{}")
        return f"pid {info['pid']} on {info['host']} since {info['since']}"
    except (OSError, ValueError, KeyError, TypeError):
        return "a process that has not yet written its pid"


_SIZES = ("seq_len", "batch_size", "hidden_dim")


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _is_time(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v < float("inf")


def record_problem(rec):
    """What keeps a JSON object from being a bench result (or a failed case), or None.

    A result names its case (impl, cell, ctx, the sizes as integers >= 1, is_train; and
    for gluonlite the benchmark and hybridize flags) and its time (a median or mean >= 0,
    quartiles and rounds numbers when present). Records without `impl` (older files) count
    as gluonlite's.

    Args:
        rec: the parsed JSON value of one line.

    Returns:
        A str saying what is wrong, or None for a valid record.

    Example:
        >>> record_problem({'impl': 'floor-step', 'cell': 'RNNCell', 'ctx': 'cpu(0)',
        ...                 'seq_len': 2, 'batch_size': 1, 'hidden_dim': 4,
        ...                 'is_train': False, 'median': None})
        'median is None, expected a time in ms'
    """
    if not isinstance(rec, dict):
        return f"expected a JSON object, got {type(rec).__name__}"
    missing = [k for k in ("cell", "ctx") + _SIZES + ("is_train",) if k not in rec]
    impl = rec.get("impl", "gluonlite")
    if impl == "gluonlite":
        missing += [k for k in ("benchmark", "hybridize_cell", "hybridize_layer")
                    if k not in rec]
    if missing:
        return f"not a bench result: no {', '.join(missing)}"
    bad = [k for k in _SIZES if not (_is_int(rec[k]) and rec[k] >= 1)]
    bad += [k for k in ("impl", "cell", "ctx") if not isinstance(rec.get(k, impl), str)]
    bad += ["is_train"] if not isinstance(rec["is_train"], bool) else []
    if impl == "gluonlite":
        bad += ["benchmark"] if not isinstance(rec["benchmark"], str) else []
        bad += [k for k in ("hybridize_cell", "hybridize_layer") if not isinstance(rec[k], bool)]
    bad += [k for k in ("seed", "warmup") if k in rec and rec[k] is not None
            and not _is_int(rec[k])]
    bad += ["env"] if "env" in rec and not isinstance(rec["env"], (dict, type(None))) else []
    if bad:
        return f"{bad[0]} is {rec.get(bad[0])!r}, not a valid value"
    if rec.get("failed") is True:
        return None
    time_key = "median" if "median" in rec else "mean"
    if not _is_time(rec.get(time_key)):
        return f"{time_key} is {rec.get(time_key)!r}, expected a time in ms"
    for k in ("q1", "q3", "min", "max"):
        if rec.get(k) is not None and not _is_time(rec[k]):
            return f"{k} is {rec[k]!r}, expected a time in ms"
    times = rec.get("times")
    if times is not None and not (isinstance(times, list) and all(map(_is_time, times))):
        return "times is not a list of times in ms"
    inter = rec.get("interleaved")
    if inter is not None and not (isinstance(inter, dict) and all(
            isinstance(v, dict) and _is_time(v.get("median")) for v in inter.values())):
        return "interleaved is not a map of floor impls to their timings"
    return None


def rejected_path(path):
    """Where `ResultsFile(resume=True)` moves the lines of `path` that are not records.

    Example::

        from gluonlite.bench.results import rejected_path
        print(rejected_path('out/r.jsonl'))  # out/r.jsonl.rejected
    """
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
        must_be_new: refuse a file that exists and holds something (checked under the
            lock, so two runs started together cannot both pass it).
        check: with resume, a function record -> problem or None (`record_problem`): the
            objects it finds a problem with are moved out as the unreadable lines are.

    Attributes:
        records: the finished records already in the file (resume only); records of
            failed cases (`"failed": true`) are left out, so a resumed run retries them.
        done: set of `case_key`s of those records.
        rejected: (line number, reason) of each line moved out on resume.

    Raises:
        OutputError: the folder cannot be created or the file opened for writing; another
            run writes the file (see `FileLock`); with `must_be_new`, the file holds lines.

    Example::

        from gluonlite.bench.results import ResultsFile
        with ResultsFile('r.jsonl') as out:
            out.write({'impl': 'gluonlite', 'seq_len': 2, 'median': 1.5})
        with ResultsFile('r.jsonl', resume=True) as out:
            print(len(out.records), len(out.done))  # 1 1
    """

    def __init__(self, path, resume=False, writer=os.write, must_be_new=False, check=None):
        self.path, self._os_write, self.rejected, self.fd = path, writer, [], None
        _make_parent(path)
        self._lock = FileLock(path).acquire()
        try:
            kept = self._open(resume, must_be_new, check)
        except BaseException:
            self._lock.release()
            raise
        self.records = [r for r in kept if not r.get("failed")]
        self.done = {case_key(r) for r in self.records}

    def _open(self, resume, must_be_new, check):
        """Open the file under the lock; returns the records kept (resume)."""
        path, kept = self.path, []
        try:
            size = os.path.getsize(path) if os.path.isfile(path) else 0
            if must_be_new and size:
                raise OutputError(f"the output file {path} exists ({size} bytes): give --resume "
                                  "to add to it, --force to overwrite it, or another --out")
            if resume:
                self._drop_partial_line()
                bad = []
                kept = read_records(path, bad, check)[0]
                if bad:
                    self._move_out(bad, kept)
            flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | (0 if resume else os.O_TRUNC)
            self.fd = os.open(path, flags, 0o644)
        except OutputError:
            raise
        except OSError as e:
            raise OutputError(f"cannot write output file {path}: {e.strerror or e}") from None
        return kept

    def _move_out(self, bad, kept):
        """Append the unreadable lines to the .rejected file, then replace the results
        file by its records alone (atomically: a crash leaves the old or the new one)."""
        with open(rejected_path(self.path), "a", encoding="utf-8") as f:
            f.writelines(line if line.endswith("\n") else line + "\n" for _, line, _ in bad)
        write_atomically(self.path, "".join(json.dumps(r) + "\n" for r in kept).encode())
        self.rejected = [(n, why) for n, _, why in bad]

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

        Args:
            record: the record (a JSON-serialisable dict).

        Returns:
            `record`.

        Raises:
            OutputError: the write failed (e.g. no space left); the file keeps only its
                whole lines.

        Example::

            from gluonlite.bench.results import ResultsFile
            with ResultsFile('r.jsonl') as out:
                out.write({'seq_len': 2, 'median': 1.5})
            print(open('r.jsonl').read())  # {"seq_len": 2, "median": 1.5}
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
        """Close the file and release its lock (idempotent).

        Example::

            from gluonlite.bench.results import ResultsFile
            import os
            out = ResultsFile('r.jsonl')
            out.close()
            print(out.fd, os.path.exists('r.jsonl.lock'))  # None False
        """
        if getattr(self, "fd", None) is not None:
            os.close(self.fd)
            self.fd = None
        if getattr(self, "_lock", None) is not None:
            self._lock.release()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _blas_info():
    """BLAS libraries in use: threadpoolctl when importable, else numpy's build config."""
    try:  # optional: a better account of the BLAS threads where it is installed
        from threadpoolctl import threadpool_info
        return [{k: v for k, v in d.items() if k in ("internal_api", "version", "num_threads",
                                                    "architecture", "threading_layer", "prefix")}
                for d in threadpool_info()]
    except Exception:  # threadpoolctl missing or failing: fall back to numpy's config
        pass
    try:
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

    Example::

        # not run: it asks git for the source's commit, in a subprocess
        from gluonlite.bench.results import env_record
        env = env_record()
        print(sorted(env)[:4])  # ['blas', 'commit', 'cpu', 'cpu_count']
    """
    return {"host": socket.gethostname(), "gluonlite": __version__, "commit": git_commit(),
            "numpy": np.__version__,
            "scipy": scipy.__version__,
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
    r"""`Type: message [file:line]` on one line, for a case that raised (the ``error`` of its
    results record, and what the CLI prints).

    Args:
        exc: the exception.

    Returns:
        A str.

    Example::

        from gluonlite.bench.results import error_line
        print(error_line(ValueError("bad\nvalue")))  # ValueError: bad | value
    """
    text = " | ".join(s.strip() for s in str(exc).splitlines() if s.strip())
    tb = traceback.extract_tb(exc.__traceback__)
    where = f" [at {_short(tb[-1].filename)}:{tb[-1].lineno}]" if tb else ""
    return f"{type(exc).__name__}: {text}{where}"
