"""What the tests of the benchmark scripts share: the scripts' modules, loaded from
benchmarks/ (a script imports its siblings by their bare names, so benchmarks/ is on
sys.path while one loads)."""
import importlib
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture
def bench_module():
    """``bench_module(name)`` -> the module ``benchmarks/<name>.py``.

    Example: ``Products = bench_module("rnn_bound").Products``.
    """
    def load(name):
        sys.path.insert(0, str(BENCH))
        try:
            return importlib.import_module(name)
        finally:
            sys.path.remove(str(BENCH))
    return load
