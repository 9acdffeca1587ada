"""Stand-ins for runner.run_case in the two-process tests: made-up timings, and a gate that
holds a run mid-way (so a test knows a second run meets the first one still writing).

GLUONLITE_TEST_GATE=PATH: cases after the first GLUONLITE_TEST_GATE_AFTER (default 0) wait
until PATH exists (at most 120 s)."""
import os
import time

_calls = []


def slow_case(case, warmup, test, seed=0, progress=None):
    """Waits at the gate (if any), then returns the statistics of a 1 ms case."""
    _calls.append(case)
    gate = os.environ.get("GLUONLITE_TEST_GATE")
    if gate and len(_calls) > int(os.environ.get("GLUONLITE_TEST_GATE_AFTER", "0")):
        deadline = time.monotonic() + 120
        while not os.path.exists(gate) and time.monotonic() < deadline:
            time.sleep(0.05)
    time.sleep(0.05)
    return dict(n=test, mean=1.0, std=0.0, median=1.0, q1=1.0, q3=1.0, min=1.0, max=1.0,
                times=[1.0] * test, unit="ms", warmup=warmup, rounds=test, peak_alloc_bytes=0)
