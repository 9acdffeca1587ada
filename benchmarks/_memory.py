"""Memory of repeated calls under tracemalloc: what stays after them and the peak of one
call, and bytes written for people.

Example:
    >>> from _memory import traced_growth, fmt_bytes              # doctest: +SKIP
    >>> fmt_bytes(traced_growth(f, calls=10)["growth"])           # doctest: +SKIP
    '0 B'
"""
import _env  # noqa: F401  (one BLAS thread, also for subprocesses: set before numpy loads)
import gc
import statistics
import tracemalloc

__all__ = ["traced_growth", "fmt_bytes"]


def _own_filtered(snapshot):
    """A snapshot without the allocations of tracemalloc itself and of this module."""
    return snapshot.filter_traces([tracemalloc.Filter(False, tracemalloc.__file__),
                                   tracemalloc.Filter(False, __file__)])


def traced_growth(fn, calls):
    """Run `fn` `calls` times under tracemalloc; measure what stays and the per-call peak.

    Only the last call's return value is kept alive (as a caller that overwrites its
    variable would), so growth beyond that value means the calls accumulate memory.

    Args:
        fn: zero-arg callable (warmed up already: its first-call compile is not counted).
        calls: number of calls.

    Returns:
        dict: growth (bytes traced after the calls minus before, last output included),
        peak_per_call (median over calls of the peak bytes during one call above the
        bytes at its start), peak_max, top (the 3 allocation sites that grew most, as
        'file:line +bytes' strings).
    """
    gc.collect()
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start(8)
    try:
        out = fn()  # one call under tracing, so lazily made caches are in `before`
        del out
        gc.collect()
        snap0 = _own_filtered(tracemalloc.take_snapshot())
        before = tracemalloc.get_traced_memory()[0]
        peaks, out = [], None
        for _ in range(calls):
            out = None  # drop the previous result first, as `out = fn()` in a loop does
            base = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            out = fn()
            peaks.append(tracemalloc.get_traced_memory()[1] - base)
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
        snap1 = _own_filtered(tracemalloc.take_snapshot())
        top = [f"{s.traceback[0].filename.rsplit('/', 2)[-1]}:{s.traceback[0].lineno} "
               f"+{s.size_diff}" for s in snap1.compare_to(snap0, "lineno")[:3] if s.size_diff > 0]
        return {"growth": after - before, "peak_per_call": int(statistics.median(peaks)),
                "peak_max": int(max(peaks)), "top": top, "last": out}
    finally:
        if started:
            tracemalloc.stop()


def fmt_bytes(n):
    """Human-readable bytes: 1536 -> '1.5 KiB'."""
    n = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"  # pragma: no cover
