"""The switch the hot paths read to know whether `gluonlite.profiler` is recording.

It sits below every layer that times something (the imperative invoke, the compiled plans)
and knows nothing of the profiler, which installs its recorder here (`install`). When the
profiler is off, the cost is one attribute read per imperative operator call and per
compiled function call (no timing, no call); plans generated while it is on are separate
functions, with a timer around each step, kept apart from the plain ones.

Example:
    >>> ACTIVE
    False
"""
import contextlib
import time

__all__ = ["ACTIVE", "install", "timed_op", "step_done", "timed_plan", "clock", "custom_code"]

ACTIVE = False
clock = time.perf_counter_ns
_sink = None
# The custom operators whose Python code runs now, innermost last (as MXNet, the operators it
# calls are recorded under its name: "MySigmoid::_zeros")
_custom = []


def install(sink, active):
    """Set the recorder (`op(name, t0, t1)`, `step(name, t0, t1)`, `plan(kind, t0, t1)`,
    `custom(name, t0, t1)`, times in ns of `clock`) and whether recording is on."""
    global _sink, ACTIVE
    _sink, ACTIVE = sink, bool(active and sink is not None)


def timed_op(name, run, *args):
    """`run(*args)` timed as one call of operator `name`."""
    t0 = clock()
    try:
        return run(*args)
    finally:
        if _sink is not None:
            if _custom:
                _sink.custom(f"{_custom[-1]}::{name}", t0, clock())
            else:
                _sink.op(name, t0, clock())


@contextlib.contextmanager
def custom_code(scope):
    """Time the block, the Python code of a custom operator, as ``{scope}::pure_python`` in
    the 'Custom Operator' domain, and the operators it calls as ``{scope}::{operator}``
    (`scope`: the op_type, or ``_backward_{op_type}``). Nothing is recorded when the
    profiler is off.

    Example::

        with custom_code("MySigmoid"):
            op.forward(...)
    """
    if not ACTIVE or _sink is None:
        yield
        return
    _custom.append(scope)
    t0 = clock()
    try:
        yield
    finally:
        _custom.pop()
        if _sink is not None:
            _sink.custom(f"{scope}::pure_python", t0, clock())


def step_done(name, t0):
    """Called by a profiled generated function after each step (started at `t0`)."""
    if _sink is not None:
        _sink.step(name, t0, clock())


def timed_plan(kind, fn):
    """`fn`, a plan's generated function, wrapped to record each call as one `kind` event."""
    def call(*args, **kwargs):
        t0 = clock()
        try:
            return fn(*args, **kwargs)
        finally:
            if _sink is not None:
                _sink.plan(kind, t0, clock())
    call.__dict__.update(fn.__dict__)  # what the maker attached (a reverse pass's layout)
    return call
