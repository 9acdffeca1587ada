"""gluonlite.ops.blas_threads: scipy's own OpenBLAS runs one thread inside `serial()` blocks
(the depthwise kernels), and gets its setting back after the outermost block, nested or from
several threads; off, or without a pool of its own, nothing changes."""
import ctypes
import os
import threading

import numpy as np
import pytest

from gluonlite import blas_kernel, nd
from gluonlite.ops import blas_threads


class FakePool:
    """A stand-in for scipy's OpenBLAS thread functions, recording what is set."""

    def __init__(self, n):
        self.n, self.calls = n, []

    def get(self):
        return self.n

    def put(self, n):
        self.calls.append(n)
        self.n = n


@pytest.fixture
def fake(monkeypatch):
    pool = FakePool(4)
    monkeypatch.setitem(blas_threads._FOUND, "pool", (pool.get, pool.put))
    return pool


def test_one_thread_inside_and_the_setting_back_after(fake):
    with blas_threads.serial():
        assert fake.n == 1
        with blas_threads.serial():     # nested: still one, nothing restored yet
            assert fake.n == 1
        assert fake.n == 1
    assert fake.n == 4 and fake.calls == [1, 4]


def test_restored_after_an_error(fake):
    with pytest.raises(KeyError):
        with blas_threads.serial():
            raise KeyError("x")
    assert fake.n == 4


def test_blocks_in_two_threads_restore_once_the_last_ends(fake):
    inside, release = threading.Barrier(2), threading.Event()

    def worker():
        with blas_threads.serial():
            inside.wait()
            release.wait()

    t = threading.Thread(target=worker)
    t.start()
    with blas_threads.serial():
        inside.wait()
    assert fake.n == 1            # the other thread's block is still open
    release.set()
    t.join()
    assert fake.n == 4


def test_off_changes_nothing(fake, monkeypatch):
    monkeypatch.setattr(blas_threads, "ENABLED", False)
    with blas_threads.serial():
        assert fake.n == 4
    assert fake.calls == []


@pytest.mark.parametrize("stride", [1, 2])
def test_depthwise_convolution_runs_scipys_blas_serially(fake, monkeypatch, stride):
    """A depthwise layer wide enough for the axpy kernel, forward and gradient: the kernels
    run inside a serial block, and the result is the grouped product's."""
    from gluonlite import autograd
    from gluonlite.ops import conv_fast
    seen = []
    real = conv_fast._blas1

    def spy(dtype, run):
        seen.append(fake.n)
        return real(dtype, run)
    monkeypatch.setattr(conv_fast, "_blas1", spy)
    rng = np.random.default_rng(0)
    x = nd.array(rng.standard_normal((1, 4, 48, 48)).astype(np.float32))
    w = nd.array(rng.standard_normal((4, 1, 3, 3)).astype(np.float32))
    x.attach_grad()
    with autograd.record():
        y = nd.Convolution(x, w, kernel=(3, 3), stride=(stride, stride), pad=(1, 1),
                           num_filter=4, num_group=4, no_bias=True)
    y.backward()
    assert seen and all(n == 1 for n in seen)
    assert fake.n == 4
    want = sum(np.pad(x.asnumpy(), ((0, 0), (0, 0), (1, 1), (1, 1)))[
        :, :, i:i + 48:stride, j:j + 48:stride] * w.asnumpy()[None, :, 0, i, j, None, None]
        for i in range(3) for j in range(3))
    np.testing.assert_allclose(y.asnumpy(), want, rtol=1e-5, atol=1e-5)


def _threads_of(path):
    lib = ctypes.CDLL(path)
    for get_name, _ in blas_threads._NAMES:
        get = getattr(lib, get_name, None)
        if get is not None:
            get.restype = ctypes.c_int
            return get()
    raise AssertionError(f"{path}: no openblas_get_num_threads")


def test_the_pool_found_is_scipys_library_not_numpys():
    """Where scipy bundles an OpenBLAS of its own (its wheels do), `scipy_pool` reads and sets
    that library's threads and leaves numpy's alone; where it does not, there is no pool."""
    import scipy
    import scipy.linalg.blas  # noqa: F401
    loaded = blas_kernel.loaded_kernels()          # every OpenBLAS in this process
    root = os.path.dirname(scipy.__file__)
    bundled = [p for p in loaded if p.startswith(root)]   # scipy/... or scipy.libs/...
    others = [p for p in loaded if p not in bundled]
    blas_threads._FOUND.pop("pool", None)
    pool = blas_threads.scipy_pool()
    if not bundled:
        assert pool is None
        return
    get, put = pool
    before, theirs = get(), [_threads_of(p) for p in others]
    assert before == _threads_of(bundled[0]) >= 1
    with blas_threads.serial():
        assert get() == 1 == _threads_of(bundled[0])
        assert [_threads_of(p) for p in others] == theirs
    assert get() == before
