"""Fixtures shared by every test folder: the contexts a test runs on.

A test that takes the `ctx` fixture runs once per context:

- ``cpu``: always;
- ``gpu``: `gluonlite.gpu(0)` on CuPy, where CuPy imports and sees a CUDA device; elsewhere it
  is skipped with the reason (what is missing). With ``GLUONLITE_TEST_GPU=1`` in the
  environment a missing GPU fails the test instead, so a run meant for a GPU cannot pass
  by skipping;
- ``fake_gpu``: `gluonlite.gpu(0)` backed by `fakecupy` (CuPy's names on numpy, arrays that
  refuse implicit host copies): the gpu code paths on every machine.

A test that sends Ctrl-C (SIGINT) to a process it starts takes the `sigint_default` fixture:
the suite may run from a shell that ignores SIGINT (a background job), and a child starts
with the signals its parent ignores still ignored.

``pytest -m gpu`` selects every real-GPU case (the ``gpu`` params and tests marked
``@pytest.mark.gpu``); ``-m fake_gpu`` the fake ones.
"""
import functools
import os
import signal

import pytest

import fakecupy
from gluonlite import context as _context


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs CuPy and a CUDA device (skipped elsewhere, "
                                       "with the reason)")
    config.addinivalue_line("markers", "fake_gpu: runs the gpu context on tests/fakecupy.py")
    config.addinivalue_line("markers", "numpy_agnostic: checks processes, files or text, "
                                       "nothing numpy computes (.ci/run runs it on numpy 2 only)")


@functools.cache
def _gpu_reason():
    return _context.probe_gpu()[1]  # an import attempt: once per session


def _need_gpu():
    reason = _gpu_reason()
    if reason is None:
        return
    if os.environ.get("GLUONLITE_TEST_GPU") == "1":
        pytest.fail(f"GLUONLITE_TEST_GPU=1 but {reason}")
    pytest.skip(reason)


def pytest_runtest_setup(item):
    if item.get_closest_marker("gpu") is not None:
        _need_gpu()


@pytest.fixture
def fake_gpu(monkeypatch):
    """Make `gluonlite.gpu(0)` compute on `fakecupy.MODULE` for this test; returns the
    module (its counters zeroed)."""
    monkeypatch.setattr(_context, "_cupy", lambda: fakecupy.MODULE)
    monkeypatch.setattr(_context, "_USED_GPUS", set())  # what synchronize() waits for
    fakecupy.reset_stats()
    return fakecupy.MODULE


@pytest.fixture(params=[
    pytest.param("cpu"),
    pytest.param("gpu", marks=pytest.mark.gpu),
    pytest.param("fake_gpu", marks=pytest.mark.fake_gpu),
])
def ctx(request):
    """The context to run on: cpu(0), gpu(0) on CuPy, or gpu(0) on fakecupy (see the
    module docstring)."""
    if request.param == "cpu":
        return _context.cpu(0)
    if request.param == "fake_gpu":
        request.getfixturevalue("fake_gpu")
    return _context.gpu(0)


@pytest.fixture(params=[
    pytest.param("gpu", marks=pytest.mark.gpu),
    pytest.param("fake_gpu", marks=pytest.mark.fake_gpu),
])
def device(request):
    """The array module of gpu(0) for tests of device-only paths (fused kernels, CUDA graph
    capture): CuPy on a GPU, or `fakecupy` (its counters zeroed) everywhere. Checks of the
    fake's own counters (``xp.stats``) are the fake's; the rest runs on both."""
    if request.param == "fake_gpu":
        return request.getfixturevalue("fake_gpu")
    _need_gpu()
    return _context.gpu(0).xp


@pytest.fixture
def on_ctx(ctx):
    """`ctx` made the default context for the whole test: arrays and parameters made
    without a ctx= live there. Returns the context."""
    with ctx:
        yield ctx


@pytest.fixture
def sigint_default():
    """SIGINT handled by Python (KeyboardInterrupt) in this process while the test runs, so
    that the processes it starts begin with SIGINT at its default (exec resets a handled
    signal, but keeps an ignored one ignored), whatever the shell that started pytest did."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
