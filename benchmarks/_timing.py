"""Timing benchmark variants against each other: interleaved rounds (each round starts with
the next variant), medians, and the --quick/--modes options the loop scripts share.

Example:
    >>> from _timing import interleaved, median                     # doctest: +SKIP
    >>> times = interleaved({"a": f, "b": g}, rounds=5, warmup=1)   # doctest: +SKIP
    >>> {k: median(v) for k, v in times.items()}                    # doctest: +SKIP
"""
import _env  # noqa: F401  (one BLAS thread, also for subprocesses: set before numpy loads)
import gc
import statistics
import time

__all__ = ["median", "interleaved", "interleaved_ab", "check_rounds_and_modes"]


def median(values):
    """Median of a non-empty sequence of numbers."""
    return statistics.median(values)


def interleaved(variants, rounds, warmup=1, after_round=None, clock=None):
    """Time zero-arg callables round by round (A B C, B C A, C A B, ...), in ms.

    Args:
        variants: dict name -> callable; each call is one timed unit.
        rounds: timed rounds (>= 1).
        warmup: untimed rounds first.
        after_round: optional callable run after our variants in each round, returning
            {name: ms} measured elsewhere (MXNet's subprocess); merged into the result.
        clock: the timer (default `time.perf_counter`, wall time; `time.process_time`
            counts this process's CPU time only, steadier on a machine others load).

    Returns:
        dict name -> list of ms, one per timed round.

    Raises:
        ValueError: rounds < 1.
    """
    if rounds < 1:
        raise ValueError(f"interleaved: rounds must be >= 1, got {rounds}")
    clock = clock or time.perf_counter
    names = list(variants)
    out = {name: [] for name in names}
    for r in range(warmup + rounds):
        # As timeit does, the cyclic garbage collector is off while a call is timed and
        # runs between rounds: garbage one variant leaves (the imperative layers' tapes)
        # is not billed to whichever later call happens to trip the collector.
        gc.collect()
        # The first call after a collection runs slower than the same call later in the
        # round: each round starts with the next variant, so none pays that every round.
        k = r % len(names)
        for name in names[k:] + names[:k]:
            fn = variants[name]
            gc.disable()
            try:
                t0 = clock()
                fn()
                dt = (clock() - t0) * 1e3
            finally:
                gc.enable()
            if r >= warmup:
                out[name].append(dt)
        if after_round is not None:
            for name, ms in after_round().items():
                if r >= warmup:
                    out.setdefault(name, []).append(ms)
    return out


def interleaved_variants(call, variant, keys, rounds):
    """CPU ms of `call` under each variant of the code, interleaved.

    Args:
        call: a zero-arg callable, one timed unit.
        variant: ``variant(key)``, a context manager that puts variant `key` of the code in
            place for the duration of a call.
        keys: the variants' keys.
        rounds: timed rounds (>= 1), after one untimed.

    Returns:
        dict: {key: [ms per round]}, process CPU time.
    """
    def under(key):
        def run():
            with variant(key):
                call()
        return run
    return interleaved({key: under(key) for key in keys}, rounds, clock=time.process_time)


def interleaved_ab(call, variant, rounds):
    """CPU ms of `call` under a new and an old variant of the code, interleaved.

    Args:
        call: a zero-arg callable, one timed unit.
        variant: ``variant(new)``, a context manager that puts the new (True) or the old
            (False) code in place for the duration of a call.
        rounds: timed rounds (>= 1), after one untimed.

    Returns:
        dict: {'new': [ms per round], 'old': [...]}, process CPU time.
    """
    res = interleaved_variants(call, variant, (True, False), rounds)
    return {"new": res[True], "old": res[False]}


def check_rounds_and_modes(ap, a):
    """Apply --quick (3 rounds after 1 warmup) and check --modes (infer and/or train)."""
    if a.quick:
        a.rounds, a.warmup = 3, 1
    bad = [m for m in a.modes if m not in ("infer", "train")]
    if bad:
        ap.error(f"--modes: expected infer and/or train, got {bad}")
