"""`mx.profiler` as in MXNet 1.9.1: where the time of a program goes.

While the profiler runs (``set_state('run')``), every imperative operator call is timed
(one trace event each, category ``operator``), and compiled plans (hybridized blocks,
bound executors, loop bodies) run a variant generated with a timer around every step:
each call of a plan's forward, backward or loop is one event (category ``compiled``),
and its steps, a loop body's included, are summed per operator (``compiled steps``),
not recorded one by one (a 1000-step loop would otherwise write thousands of events per
call). ``dump()`` writes a Chrome trace (JSON, open it in https://ui.perfetto.dev or
chrome://tracing); ``dumps()`` returns MXNet's aggregate table (or JSON). User objects
(`Domain`, `Task`, `Frame`, `Event`, `Counter`, `Marker`, and `scope`) add their own
events.

Differences from MXNet: no memory, C API or kvstore server profiling (those keys of
`set_config` are accepted and ignored, except ``profile_process='server'``, which raises
NotImplementedError); times are host times after each call (numpy runs synchronously; a
GPU kernel's time shows where the host waits for it). When off, the cost is one flag read
per operator call and per plan call.

Example::

    from gluonlite import profiler
    profiler.set_config(profile_all=True, aggregate_stats=True, filename='prof.json')
    profiler.set_state('run')
    y = nd.dot(nd.ones((4, 4)), nd.ones((4, 4)))
    profiler.set_state('stop')
    'dot' in profiler.dumps()   # True
    profiler.dump()   # writes prof.json and starts afresh
    profiler.set_config(profile_all=False, aggregate_stats=False, filename='profile.json')
"""
import contextlib
import json
import os
import threading
import time
import warnings

from . import _profiling
from .base import MXNetError, py_str, write_atomically

__all__ = ["set_config", "set_state", "state", "pause", "resume", "dump", "dumps",
           "Domain", "Task", "Frame", "Event", "Counter", "Marker", "scope",
           "profiler_set_config", "profiler_set_state", "dump_profile", "set_kvstore_handle",
           "c_str", "c_str_array", "check_call", "py_str", "capture"]

_BOOL_KEYS = ("profile_all", "profile_symbolic", "profile_imperative", "profile_memory",
              "profile_api", "continuous_dump", "aggregate_stats")
_CONFIG_KEYS = _BOOL_KEYS + ("filename", "dump_period", "profile_process")
_SORT = ("total", "avg", "min", "max", "count")
# what each sort_by of `dumps` orders a row [count, total, min, max] by
_SORT_KEY = {"total": lambda r: r[1], "avg": lambda r: r[1] / r[0], "min": lambda r: r[2],
             "max": lambda r: r[3], "count": lambda r: r[0]}
_PID_HOST, _PID_STEPS = 0, 1


def _as_bool(key, value):
    if isinstance(value, str) and value.lower() in ("true", "1", "false", "0"):
        return value.lower() in ("true", "1")
    if isinstance(value, (bool, int)) and value in (0, 1):
        return bool(value)
    raise ValueError(f"profiler.set_config: {key} must be a bool, got {value!r}")


class _Recorder:
    """Events and aggregates of one profiling session (what `dump`/`dumps` read)."""

    def __init__(self):
        self.events = []
        self.agg = {}  # domain -> name -> [count, total_ns, min_ns, max_ns]
        self.lock = threading.Lock()
        self.origin = time.time_ns() - _profiling.clock()  # ns of clock -> epoch ns
        self.imperative = True
        self.symbolic = True

    def _add(self, domain, name, dur):
        row = self.agg.setdefault(domain, {}).get(name)
        if row is None:
            self.agg[domain][name] = [1, dur, dur, dur]
        else:
            row[0] += 1
            row[1] += dur
            row[2] = min(row[2], dur)
            row[3] = max(row[3], dur)

    def complete(self, domain, name, t0, t1, cat=None, args=None):
        """One `X` (complete) event from clock t0 to t1 (ns), aggregated under domain."""
        ev = {"name": name, "cat": cat or domain, "ph": "X", "ts": (t0 + self.origin) / 1e3,
              "dur": (t1 - t0) / 1e3, "pid": _PID_HOST, "tid": threading.get_ident() % 100000}
        if args:
            ev["args"] = args
        with self.lock:
            self.events.append(ev)
            self._add(domain, name, t1 - t0)

    # the hooks of gluonlite._profiling
    def op(self, name, t0, t1):
        if self.imperative:
            self.complete("operator", name, t0, t1)

    def custom(self, name, t0, t1):
        """A custom operator's Python code, or an operator it calls (`_profiling.custom_code`);
        recorded whatever profile_imperative/profile_symbolic say, as MXNet does."""
        self.complete("Custom Operator", name, t0, t1)

    def step(self, name, t0, t1):
        if self.symbolic:
            with self.lock:
                self._add("compiled steps", name, t1 - t0)

    def plan(self, kind, t0, t1):
        if self.symbolic:
            self.complete("compiled", f"plan {kind}", t0, t1)

    def instant(self, domain, name, scope="p", args=None):
        t = _profiling.clock()
        ev = {"name": name, "cat": domain, "ph": "i", "s": scope,
              "ts": (t + self.origin) / 1e3, "pid": _PID_HOST,
              "tid": threading.get_ident() % 100000}
        if args:
            ev["args"] = args
        with self.lock:
            self.events.append(ev)

    def counter(self, domain, name, value):
        t = _profiling.clock()
        with self.lock:
            self.events.append({"name": name, "cat": domain, "ph": "C",
                                "ts": (t + self.origin) / 1e3, "pid": _PID_HOST,
                                "args": {name: value}})
            self._add(domain, name, 0)

    def trace(self):
        """The Chrome trace dict: host events, then one row of summed compiled steps."""
        with self.lock:
            events = list(self.events)
            steps = dict(self.agg.get("compiled steps", {}))
        meta = [{"ph": "M", "name": "process_name", "pid": _PID_HOST,
                 "args": {"name": "host: operators, plans, user events"}},
                {"ph": "M", "name": "process_name", "pid": _PID_STEPS,
                 "args": {"name": "compiled steps, summed per operator (not a timeline)"}}]
        start = min((e["ts"] for e in events), default=0.0)
        summed = []
        for name, (count, total, lo, hi) in sorted(steps.items(), key=lambda kv: -kv[1][1]):
            summed.append({"name": name, "cat": "compiled steps", "ph": "X", "ts": start,
                           "dur": total / 1e3, "pid": _PID_STEPS, "tid": 0,
                           "args": {"count": count, "total_ms": total / 1e6,
                                    "avg_us": total / count / 1e3, "min_us": lo / 1e3,
                                    "max_us": hi / 1e3}})
            start += total / 1e3
        return {"traceEvents": meta + events + summed, "displayTimeUnit": "ms"}

    def json(self):
        """The Chrome trace as a JSON string."""
        return json.dumps(self.trace())


_config = {"filename": "profile.json", "profile_all": False, "profile_symbolic": True,
           "profile_imperative": True, "profile_memory": False, "profile_api": False,
           "continuous_dump": False, "dump_period": 1.0, "aggregate_stats": False,
           "profile_process": "worker"}
_state = {"running": False, "paused": False, "recorder": _Recorder()}


def _apply():
    rec = _state["recorder"]
    rec.imperative = _config["profile_all"] or _config["profile_imperative"]
    rec.symbolic = _config["profile_all"] or _config["profile_symbolic"]
    _profiling.install(rec, _state["running"] and not _state["paused"])


def _check_process(name, profile_process):
    if profile_process == "server":
        raise NotImplementedError(f"profiler.{name}: profile_process='server' profiles a "
                                  "distributed kvstore server, which gluonlite does not have")
    if profile_process != "worker":
        raise ValueError(f"profiler.{name}: profile_process must be 'worker' or 'server', got "
                         f"{profile_process!r}")


def set_config(**kwargs):
    """Configure the profiler (keyword arguments only, as MXNet's).

    Args:
        filename: the trace file `dump` writes ('profile.json').
        profile_all: record everything (imperative and compiled).
        profile_symbolic: record compiled plans (default True).
        profile_imperative: record imperative operator calls (default True).
        profile_memory, profile_api, continuous_dump, dump_period, aggregate_stats:
            accepted for MXNet programs; gluonlite always keeps aggregates and does not
            profile memory or a C API.
        profile_process: 'worker' ('server' raises NotImplementedError).

    Raises:
        ValueError: an unknown key or a value of the wrong kind.

    Example::

        mx.profiler.set_config(profile_all=True, filename='trace.json')
        mx.profiler.set_config(profile_all=False, filename='profile.json')   # the defaults
    """
    for key, value in kwargs.items():
        if key not in _CONFIG_KEYS:
            raise ValueError(f"profiler.set_config: unknown key {key!r}; expected one of "
                             f"{', '.join(_CONFIG_KEYS)}")
        if key in _BOOL_KEYS:
            value = _as_bool(key, value)
        elif key == "filename":
            value = os.fspath(value)
            if not isinstance(value, str) or not value:
                raise ValueError(f"profiler.set_config: filename must be a path, got {value!r}")
        elif key == "dump_period":
            try:
                value = float(value)
            except (TypeError, ValueError):
                raise ValueError(f"profiler.set_config: dump_period must be a number of "
                                 f"seconds, got {value!r}") from None
        elif key == "profile_process":
            _check_process("set_config", value)
        _config[key] = value
    _apply()


def set_state(state="stop", profile_process="worker"):
    """Start ('run') or stop ('stop') recording. Starting anew after a `dump` or a
    ``dumps(reset=True)`` begins a fresh session; a stop keeps what was recorded.

    Args:
        state (str): ``'run'`` to start recording, ``'stop'`` (default) to stop.
        profile_process (str): ``'worker'`` (default), the process whose profiling is changed;
            ``'server'`` (a kvstore server) raises NotImplementedError: there are none.

    Raises:
        ValueError: a state other than 'run' or 'stop'.

    Example::

        mx.profiler.set_state('run')
        nd.ones((2, 2)).sum()
        mx.profiler.set_state('stop')
        'sum' in mx.profiler.dumps(reset=True)   # True
    """
    _check_process("set_state", profile_process)
    if state not in ("run", "stop"):
        raise ValueError(f"profiler.set_state: state must be 'run' or 'stop', got {state!r}")
    _state["running"] = state == "run"
    _state["paused"] = False
    _apply()


def state():
    """'run' while recording (paused or not), else 'stop'.

    Example::

        mx.profiler.state()   # 'stop'
    """
    return "run" if _state["running"] else "stop"


def pause(profile_process="worker"):
    """Stop recording for a while, keeping the session (`resume` goes on).

    Args:
        profile_process (str): ``'worker'`` (default), the process whose profiling is changed;
            ``'server'`` (a kvstore server) raises NotImplementedError: there are none.

    Example::

        mx.profiler.set_state('run')
        mx.profiler.pause()
        nd.ones((2, 2)).sum()   # not recorded
        mx.profiler.resume()
        mx.profiler.set_state('stop')
        'sum' in mx.profiler.dumps(reset=True)   # False
    """
    _check_process("pause", profile_process)
    _state["paused"] = True
    _apply()


def resume(profile_process="worker"):
    """Go on recording after `pause`.

    Args:
        profile_process (str): ``'worker'`` (default), the process whose profiling is changed;
            ``'server'`` (a kvstore server) raises NotImplementedError: there are none.

    Example::

        mx.profiler.set_state('run')
        mx.profiler.pause()
        mx.profiler.resume()
        nd.ones((2, 2)).sum()   # recorded
        mx.profiler.set_state('stop')
        'sum' in mx.profiler.dumps(reset=True)   # True
    """
    _check_process("resume", profile_process)
    _state["paused"] = False
    _apply()


def _reset():
    _state["recorder"] = _Recorder()
    _apply()


def dump(finished=True, profile_process="worker"):
    """Write what was recorded to the configured file as a Chrome trace (JSON).

    Args:
        finished: the session is over: what was recorded is cleared after writing (MXNet
            then drops its profiler; here the next run starts a fresh session).
        profile_process: 'worker'.

    Raises:
        OSError: the file cannot be written (a half-written trace is never left).

    Example::

        mx.profiler.set_config(filename='trace.json')
        mx.profiler.dump()   # writes trace.json (an empty trace here)
        mx.profiler.set_config(profile_all=False, filename='profile.json')   # the defaults
    """
    _check_process("dump", profile_process)
    write_atomically(_config["filename"], _state["recorder"].json())
    if finished:
        _reset()


def dump_profile():
    """Deprecated alias of `dump` (MXNet's name before 1.0).

    Example::

        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter('ignore', DeprecationWarning)
            mx.profiler.dump_profile()   # as dump(): writes profile.json
    """
    warnings.warn("profiler.dump_profile() is deprecated. Please use profiler.dump() instead",
                  DeprecationWarning, stacklevel=2)
    dump(True)


def _fmt_table(agg, sort_by, ascending):
    lines = ["", "Profile Statistics:", "\tNote the difference in units for different entries."]
    key = _SORT_KEY[sort_by]
    for domain in sorted(agg):
        lines += [domain, "=================",
                  f"{'Name':<30}{'Total Count':>11}{'Time (ms)':>17}{'Min Time (ms)':>17}"
                  f"{'Max Time (ms)':>17}{'Avg Time (ms)':>17}",
                  f"{'----':<30}{'-----------':>11}{'---------':>17}{'-------------':>17}"
                  f"{'-------------':>17}{'-------------':>17}"]
        rows = sorted(agg[domain].items(), key=lambda kv: key(kv[1]), reverse=not ascending)
        for name, (count, total, lo, hi) in rows:
            lines.append(f"{name:<30}{count:>11}{total / 1e6:>17.4f}{lo / 1e6:>17.4f}"
                         f"{hi / 1e6:>17.4f}{total / count / 1e6:>17.4f}")
        lines.append("")
    return "\n".join(lines) + "\n"


def dumps(reset=False, format="table", sort_by="total", ascending=False):
    """The aggregate statistics: per domain ('operator' for imperative calls, 'compiled'
    for plan calls, 'compiled steps' for the steps inside them, and user domains), per
    name, the count and the total, min, max and average time in ms.

    Args:
        reset: clear the statistics (and events) after reading them.
        format: 'table' (MXNet's text table) or 'json' ({"Time": {domain: {name:
            {"Count", "Total", "Min", "Max", "Avg"}}}, "Memory": {}, "Unit": {"Time": "ms",
            "Memory": "kB"}}, times in ms, each domain's names in the sort order; no
            memory is profiled).
        sort_by: 'total', 'avg', 'min', 'max' or 'count'.
        ascending: sort order.

    Raises:
        ValueError: an unknown format, sort_by, or a non-bool reset/ascending.

    Example::

        mx.profiler.set_state('run')
        nd.ones((2, 2)).sum()
        mx.profiler.set_state('stop')
        import json
        stats = json.loads(mx.profiler.dumps(format='json', reset=True))
        stats['Time']['operator']['sum']['Count']   # 1
    """
    if format not in ("table", "json"):
        raise ValueError(f"profiler.dumps: format must be 'table' or 'json', got {format!r}")
    if sort_by not in _SORT:
        raise ValueError(f"profiler.dumps: sort_by must be one of {', '.join(_SORT)}, got "
                         f"{sort_by!r}")
    for name, value in (("reset", reset), ("ascending", ascending)):
        if value not in (True, False):
            raise ValueError(f"profiler.dumps: {name} must be True or False, got {value!r}")
    rec = _state["recorder"]
    with rec.lock:
        agg = {d: {n: list(r) for n, r in rows.items()} for d, rows in rec.agg.items()}
    if format == "json":
        # MXNet's layout; gluonlite does not profile memory, so "Memory" has no domains
        key = _SORT_KEY[sort_by]
        text = json.dumps({"Time": {d: {n: {"Count": c, "Total": t / 1e6, "Min": lo / 1e6,
                                            "Max": hi / 1e6, "Avg": t / c / 1e6}
                                        for n, (c, t, lo, hi) in sorted(
                                            rows.items(), key=lambda kv: key(kv[1]),
                                            reverse=not ascending)}
                                    for d, rows in agg.items()},
                           "Memory": {}, "Unit": {"Time": "ms", "Memory": "kB"}}, indent=4)
    else:
        text = _fmt_table(agg, sort_by, ascending)
    if reset:
        _reset()
    return text


class Domain:
    """A named group of user events (`Task`, `Frame`, `Counter`, `Marker`); its name is the
    category of their events and a table of `dumps`.

    Args:
        name (str): the domain's name, non-empty (else ValueError).

    Example::

        d = mx.profiler.Domain('data')
        t = d.new_task('load')
        t.start(); t.stop()
        str(d)   # 'data'
    """

    def __init__(self, name):
        if not isinstance(name, str) or not name:
            raise ValueError(f"profiler.Domain: name must be a non-empty str, got {name!r}")
        self.name = name

    def __str__(self):
        return self.name

    def new_task(self, name):
        """A `Task` in this domain.

        Args:
            name (str): the task's name.

        Example::

            task = mx.profiler.Domain('data').new_task('load')
            task.start(); task.stop()
        """
        return Task(self, name)

    def new_frame(self, name):
        """A `Frame` in this domain.

        Args:
            name (str): the frame's name.

        Example::

            frame = mx.profiler.Domain('train').new_frame('batch')
            with frame:
                pass
        """
        return Frame(self, name)

    def new_counter(self, name, value=None):
        """A `Counter` in this domain, set to `value` if given.

        Args:
            name (str): the counter's name.

        Example::

            c = mx.profiler.Domain('data').new_counter('queued', 5)
            c.value   # 5
        """
        return Counter(self, name, value)

    def new_marker(self, name):
        """A `Marker` in this domain.

        Args:
            name (str): the marker's name.

        Example::

            mx.profiler.Domain('train').new_marker('epoch end').mark()
        """
        return Marker(self, name)


def _domain(cls, domain):
    if not isinstance(domain, Domain):
        raise TypeError(f"profiler.{cls}: domain must be a profiler.Domain, got "
                        f"{type(domain).__name__}")
    return domain


class _Span:
    """A named time span: `start`, then `stop` records it (if the profiler records)."""

    _cat = None

    def __init__(self, name):
        if not isinstance(name, str):
            raise TypeError(f"profiler.{type(self).__name__}: name must be a str, got "
                            f"{type(name).__name__}")
        self.name = name
        self._t0 = None

    def _category(self):
        return self._cat

    def start(self):
        """Start timing."""
        self._t0 = _profiling.clock()

    def stop(self):
        """Stop timing and record the span.

        Raises:
            MXNetError: stop without start.
        """
        if self._t0 is None:
            raise MXNetError(f"profiler.{type(self).__name__} {self.name!r}: stop() without "
                             "start()")
        t0, self._t0 = self._t0, None
        if _profiling.ACTIVE:
            _state["recorder"].complete(self._category(), self.name, t0, _profiling.clock())

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def __str__(self):
        return self.name


class Task(_Span):
    """A span of work in a domain (a function, a phase); tasks may nest.

    Args:
        domain: a `Domain`.
        name: the task's name.

    Example::

        t = mx.profiler.Task(mx.profiler.Domain('train'), 'epoch')
        t.start(); t.stop()
    """

    def __init__(self, domain, name):
        super().__init__(name)
        self.domain = _domain("Task", domain)

    def _category(self):
        return self.domain.name


class Frame(Task):
    """A span that repeats (an iteration, a batch); recorded as a Task is.

    Args:
        domain (Domain): the domain the object belongs to (its name is the category;
            anything else raises TypeError).
        name (str): the frame's name (a non-str raises TypeError).

    Example::

        with mx.profiler.Frame(mx.profiler.Domain('train'), 'batch'):
            pass
    """


class Event(_Span):
    """A span outside any domain (category 'event').

    Args:
        name (str): the event's name (a non-str raises TypeError).

    Example::

        e = mx.profiler.Event('sync')
        e.start(); e.stop()
    """

    _cat = "event"


class Counter:
    """A named value over time (a counter track in the trace viewer).

    Args:
        domain: a `Domain`.
        name: the counter's name.
        value: its first value (int), recorded now if given.

    Example::

        c = mx.profiler.Counter(mx.profiler.Domain('data'), 'queued', 0)
        c += 3
        c.decrement()
        c.value   # 2
    """

    def __init__(self, domain, name, value=None):
        self.domain, self.name, self.value = _domain("Counter", domain), name, 0
        if value is not None:
            self.set_value(value)

    def set_value(self, value):
        """Set the counter to an integer value and record it.

        Args:
            value (int): the new value (a bool or a non-int raises TypeError).

        Example::

            c = mx.profiler.Counter(mx.profiler.Domain('data'), 'queued')
            c.set_value(7)
            c.value   # 7
        """
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"profiler.Counter {self.name!r}: value must be an int, got "
                            f"{type(value).__name__}")
        self.value = value
        if _profiling.ACTIVE:
            _state["recorder"].counter(self.domain.name, self.name, value)

    def increment(self, delta=1):
        """Add `delta` and record the new value.

        Example::

            c = mx.profiler.Counter(mx.profiler.Domain('data'), 'queued', 1)
            c.increment(4)
            c.value   # 5
        """
        self.set_value(self.value + delta)

    def decrement(self, delta=1):
        """Subtract `delta` and record the new value.

        Example::

            c = mx.profiler.Counter(mx.profiler.Domain('data'), 'queued', 5)
            c.decrement()
            c.value   # 4
        """
        self.set_value(self.value - delta)

    def __iadd__(self, delta):
        self.increment(delta)
        return self

    def __isub__(self, delta):
        self.decrement(delta)
        return self

    def __str__(self):
        return self.name


_MARK_SCOPES = {"global": "g", "process": "p", "thread": "t", "task": "t", "marker": "t"}


class Marker:
    """An instant in time (a vertical line in the trace viewer).

    Args:
        domain (Domain): the domain the object belongs to (its name is the category;
            anything else raises TypeError).
        name (str): the marker's name.

    Example::

        mx.profiler.Marker(mx.profiler.Domain('train'), 'epoch end').mark()
    """

    def __init__(self, domain, name):
        self.domain, self.name = _domain("Marker", domain), name

    def mark(self, scope="process"):
        """Record the instant; scope: 'global', 'process', 'thread', 'task' or 'marker'.

        Args:
            scope (str): the marker's reach in the trace, one of ``'global'``, ``'process'``
                (default), ``'thread'``, ``'task'``, ``'marker'``.

        Raises:
            ValueError: another scope.

        Example::

            marker = mx.profiler.Marker(mx.profiler.Domain('train'), 'epoch end')
            marker.mark('thread')
        """
        if scope not in _MARK_SCOPES:
            raise ValueError(f"profiler.Marker.mark: scope must be one of "
                             f"{', '.join(_MARK_SCOPES)}, got {scope!r}")
        if _profiling.ACTIVE:
            _state["recorder"].instant(f"{self.domain.name},instant_marker", self.name,
                                       _MARK_SCOPES[scope])


@contextlib.contextmanager
def scope(name="<unk>:", append_mode=False):
    """Time a block as one event named `name` (category 'scope'), as MXNet 2's
    ``profiler.scope``; with append_mode the name is appended to the enclosing scope's.

    Args:
        name: the event's name (default ``'<unk>:'``).
        append_mode: append `name` to the enclosing scope's name (else it replaces it).

    Yields:
        Nothing; the block's time is recorded when profiling is on.

    Example::

        with mx.profiler.scope('forward:'):
            y = nd.ones((2, 2)) * 2
    """
    outer = getattr(_scope_names, "name", "")
    full = outer + name if append_mode else name
    _scope_names.name = full
    t0 = _profiling.clock()
    try:
        yield
    finally:
        _scope_names.name = outer
        if _profiling.ACTIVE:
            _state["recorder"].complete("scope", full, t0, _profiling.clock())


_scope_names = threading.local()


@contextlib.contextmanager
def capture():
    """Record everything inside the block in a session of its own and yield it: its
    `json()` is the Chrome trace, its `agg` the statistics. The previous session and state
    come back afterwards (the bench CLI's --profile runs each case in one).

    Example::

        with mx.profiler.capture() as session:
            nd.ones((2, 2)).sum()
        session.json()[:15]   # '{"traceEvents":'
    """
    saved = (_state["recorder"], _state["running"], _state["paused"], dict(_config))
    session = _Recorder()
    _state.update(recorder=session, running=True, paused=False)
    _config.update(profile_symbolic=True, profile_imperative=True)
    _apply()
    try:
        yield session
    finally:
        _state["recorder"], _state["running"], _state["paused"] = saved[:3]
        _config.clear()
        _config.update(saved[3])
        _apply()


def profiler_set_config(mode="symbolic", filename="profile.json"):
    """Deprecated form of `set_config`: mode 'symbolic' or 'all'.

    Args:
        mode (str): ``'symbolic'`` (default): profile symbolic executors only; ``'all'``:
            imperative operators too (any other mode raises ValueError).
        filename (str): the trace file `dump` writes (default ``'profile.json'``).

    Example::

        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter('ignore', DeprecationWarning)
            mx.profiler.profiler_set_config(mode='all', filename='trace.json')
        mx.profiler.set_config(profile_all=False, filename='profile.json')   # the defaults
    """
    warnings.warn("profiler.profiler_set_config() is deprecated. Please use "
                  "profiler.set_config() instead", DeprecationWarning, stacklevel=2)
    if mode not in ("symbolic", "all"):
        raise ValueError(f"profiler.profiler_set_config: mode must be 'symbolic' or 'all', "
                         f"got {mode!r}")
    set_config(profile_symbolic=True, profile_imperative=mode == "all",
               profile_all=mode == "all", filename=filename)


def profiler_set_state(state="stop"):
    """Deprecated form of `set_state`.

    Args:
        state (str): ``'run'`` or ``'stop'`` (default), as
            `set_state`'s.

    Example::

        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter('ignore', DeprecationWarning)
            mx.profiler.profiler_set_state('run')
            mx.profiler.profiler_set_state('stop')
        mx.profiler.state()   # 'stop'
    """
    warnings.warn("profiler.profiler_set_state() is deprecated. Please use "
                  "profiler.set_state() instead", DeprecationWarning, stacklevel=2)
    set_state(state)


def set_kvstore_handle(handle):
    """Accepted for MXNet programs: gluonlite has no distributed kvstore server to
    profile, so the handle is kept and not used.

    Args:
        handle: the kvstore handle (kept, never used).

    Example::

        mx.profiler.set_kvstore_handle(None)   # accepted and not used
    """
    global _kvstore_handle
    _kvstore_handle = handle


_kvstore_handle = None


def c_str(string):
    """MXNet's C-string helper, kept for programs that import it from here: `string`
    encoded as UTF-8 bytes.

    Example::

        mx.profiler.c_str('relu')   # b'relu'
    """
    return string.encode("utf-8")


def c_str_array(strings):
    """MXNet's C-string-array helper: a list of UTF-8 bytes.

    Args:
        strings (list of str): the strings to encode.

    Example::

        mx.profiler.c_str_array(['a', 'b'])   # [b'a', b'b']
    """
    return [c_str(s) for s in strings]


def check_call(ret):
    """MXNet's C-call checker: raise MXNetError when `ret` is not 0.

    Example::

        mx.profiler.check_call(0)   # None; a non-zero code raises MXNetError
    """
    if ret != 0:
        raise MXNetError(f"profiler.check_call: a call returned {ret}")
