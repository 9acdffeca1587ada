"""Timing one bench case: warmup + test rounds, each stopped after `nd.waitall()`.

Inference rounds call the layer once; training rounds call it under
`autograd.record()` and then `backward()` on the stacked outputs (the gradient of
their sum). Floor cases time the hand-written floor (`floor.py`) the same way, in numpy on
a cpu ctx and in CuPy on a gpu (the timer then waits for the device). After the
timed rounds one more round runs under tracemalloc to measure the peak of new
allocations during a call (`peak_alloc_bytes`); it is not part of the timings.

With `floors`, a case's rounds are interleaved with rounds of the floors of its size (one
of each per round, the order rotating): a ratio to the floor then compares rounds run
under the same load, not minutes apart (`interleaved` in the result).

Example:
    >>> run_case({'impl': 'floor-step', 'cell': 'GRUCell', 'seq_len': 3, 'batch_size': 1,
    ...           'hidden_dim': 4, 'is_train': True}, warmup=1, test=2)['n']
    2
"""
import time
import tracemalloc

import numpy as np

import gluonlite as mx
from gluonlite import autograd, nd
from gluonlite.context import gpu_missing, num_gpus, synchronize

from . import floor, models
from .results import stats

__all__ = ["run_case", "time_rounds", "time_interleaved", "detect_gpus", "AUTO_MIN_ROUNDS",
           "AUTO_MAX_ROUNDS", "parse_rounds"]

AUTO_MIN_ROUNDS = 5
AUTO_MAX_ROUNDS = 10_000


def parse_rounds(test):
    """The timed-round request of a case: an int, or a budget in seconds for `auto`.

    Args:
        test: an int >= 1, or 'auto:SECONDS' (what the CLI passes for `rounds: auto`).

    Returns:
        (count, budget_s): one of them None.

    Raises:
        ValueError: anything else.

    Example:
        >>> parse_rounds(8), parse_rounds('auto:2.5')
        ((8, None), (None, 2.5))
    """
    if isinstance(test, int) and not isinstance(test, bool) and test >= 1:
        return test, None
    if isinstance(test, str) and test.startswith("auto:"):
        try:
            budget = float(test[5:])
        except ValueError:
            budget = -1.0
        if budget > 0:
            return None, budget
    raise ValueError(f"time_rounds: test must be an integer >= 1 or 'auto:SECONDS', got {test!r}")


def detect_gpus():
    """How many GPUs gluonlite can use, and if none, why.

    Returns:
        (count, reason): reason is None when count > 0.

    Example::

        from gluonlite.bench.runner import detect_gpus
        count, reason = detect_gpus()   # (0, 'CuPy is not installed ...') on a machine without one
        print(count >= 0, (reason is None) == (count > 0))   # True True
    """
    count = num_gpus()  # 0 when CuPy or a device is missing
    return (count, None) if count else (0, gpu_missing() or "no GPU visible to CuPy")


def time_rounds(step, warmup, test, sync=None, progress=None):
    """Time `warmup + test` calls of `step`; return the test rounds' times in ms.

    Args:
        step: a callable doing one round.
        warmup: untimed round count.
        test: timed round count, or 'auto:SECONDS': after the warmup, time rounds until
            their total reaches SECONDS, at least AUTO_MIN_ROUNDS and at most
            AUTO_MAX_ROUNDS of them (as timeit's autorange and torch.utils.benchmark's
            blocked_autorange calibrate to a budget; each round here is one call, so the
            rounds keep their spread).
        sync: called after each step, inside the timer (e.g. nd.waitall).
        progress: optional callable(rounds_done) for a progress bar.

    Example::

        from gluonlite.bench.runner import time_rounds
        calls = []
        times = time_rounds(lambda: calls.append(1), warmup=1, test=3)
        print(len(calls), len(times))   # 4 3: the warmup round is not timed
    """
    count, budget = parse_rounds(test)
    times = []
    r = 0
    while True:
        if count is not None:
            if r >= warmup + count:
                break
        elif r >= warmup + AUTO_MIN_ROUNDS and (
                sum(times[warmup:]) >= budget * 1000.0 or r >= warmup + AUTO_MAX_ROUNDS):
            break
        tick = time.perf_counter()
        step()
        if sync is not None:
            sync()
        times.append((time.perf_counter() - tick) * 1000.0)
        r += 1
        if progress is not None:
            progress(r)
    return times[warmup:]


def _timed(step, sync):
    tick = time.perf_counter()
    step()
    if sync is not None:
        sync()
    return (time.perf_counter() - tick) * 1000.0


def time_interleaved(steps, warmup, test, progress=None):
    """Time `steps` in interleaved rounds: each round runs every step once, starting one
    further along each round, so all see the same load in turn.

    Args:
        steps: list of (step, sync) pairs; the first is the case, whose times decide when
            an 'auto:SECONDS' budget is spent.
        warmup: untimed rounds, as for `time_rounds`.
        test: timed rounds (an int or 'auto:SECONDS'), as for `time_rounds`.
        progress: default None: optional callable(rounds_done) for a progress bar.

    Returns:
        list of lists: per step, the test rounds' times in ms.

    Example:
        >>> a, b = time_interleaved([(lambda: None, None), (lambda: None, None)], 1, 3)
        >>> len(a), len(b)
        (3, 3)
    """
    count, budget = parse_rounds(test)
    times = [[] for _ in steps]
    r = 0
    while True:
        if count is not None:
            if r >= warmup + count:
                break
        elif r >= warmup + AUTO_MIN_ROUNDS and (
                sum(times[0][warmup:]) >= budget * 1000.0 or r >= warmup + AUTO_MAX_ROUNDS):
            break
        for k in range(len(steps)):
            j = (r + k) % len(steps)
            times[j].append(_timed(*steps[j]))
        r += 1
        if progress is not None:
            progress(r)
    return [t[warmup:] for t in times]


def _peak_alloc(step, sync):
    """Peak bytes newly allocated during one call of step (numpy buffers included)."""
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        step()
        if sync is not None:
            sync()
        return max(0, tracemalloc.get_traced_memory()[1] - base)
    finally:
        if not was_tracing:
            tracemalloc.stop()


def _gluonlite_step(case, seed):
    mx.random.seed(seed)
    layer, inputs, states = models.build_benchmark_case(case)
    if case["is_train"]:
        def step():
            with autograd.record():
                res = layer(inputs, states)
            res.backward()
    else:
        def step():
            layer(inputs, states)
    return step, nd.waitall


def _floor_step(case, seed):
    T, N, H = case["seq_len"], case["batch_size"], case["hidden_dim"]
    train = bool(case["is_train"])
    ctx = models.make_ctx(case.get("ctx") or "cpu(0)")  # numpy on a cpu, CuPy on a gpu
    xp = ctx.xp
    f = floor.FloorRNN(case["cell"], T, N, H, H, fused=case["impl"] == "floor-fused", train=train,
                       xp=xp)
    rng = np.random.default_rng(seed)
    params = {k: xp.asarray(v)
              for k, v in floor.init_params(case["cell"], H, H, seed=seed).items()}
    x = xp.asarray(rng.standard_normal((T, N, H), dtype=np.float32))
    states = [xp.asarray(rng.standard_normal((N, H), dtype=np.float32))
              for _ in range(floor.num_states(case["cell"]))]
    if train:
        def step():
            f.forward(x, states, params)
            f.backward()
    else:
        def step():
            f.forward(x, states, params)
    return step, (lambda: synchronize(ctx)) if ctx.device_type == "gpu" else None


def run_case(case, warmup, test, seed=0, progress=None, floors=()):
    """Build and time one case.

    Args:
        case: a dict from `matrix.expand`.
        warmup: untimed rounds.
        test: timed rounds, or 'auto:SECONDS' (see `time_rounds`).
        seed: seeds gluonlite's random streams and numpy's global generator before
            building.
        progress: optional callable(rounds_done).
        floors: floor impls ('floor-step', 'floor-fused') to time in the same rounds as
            the case (`time_interleaved`), at its size.

    Returns:
        dict: n, mean, std, median, q1, q3, min, max, times (every timed round), all in
        ms, and unit, warmup, rounds ('auto:SECONDS' when calibrated), peak_alloc_bytes;
        with floors, `interleaved`: {impl: its n, median, q1, q3, times in those rounds}.

    Raises:
        whatever building or running the case raises (the CLI reports it).

    Example::

        from gluonlite.bench.runner import run_case
        case = {'impl': 'gluonlite', 'benchmark': 'foreach', 'cell': 'RNNCell', 'ctx': 'cpu(0)',
                'seq_len': 2, 'batch_size': 1, 'hidden_dim': 4, 'is_train': False,
                'hybridize_cell': False, 'hybridize_layer': False}
        result = run_case(case, warmup=0, test=1)
        print(result['n'], result['unit'], len(result['times']))   # 1 ms 1
    """
    build = _gluonlite_step if case.get("impl", "gluonlite") == "gluonlite" else _floor_step
    step, sync = build(case, seed)
    if floors:
        others = [_floor_step(dict(case, impl=impl), seed) for impl in floors]
        times, *floor_times = time_interleaved([(step, sync)] + others, warmup, test, progress)
    else:
        times = time_rounds(step, warmup, test, sync, progress)
    result = stats(times)
    result.update(unit="ms", warmup=warmup, rounds=test,
                  peak_alloc_bytes=_peak_alloc(step, sync))
    if floors:
        keep = ("n", "median", "q1", "q3", "times")
        result["interleaved"] = {impl: {k: v for k, v in stats(t).items() if k in keep}
                                 for impl, t in zip(floors, floor_times)}
    return result
