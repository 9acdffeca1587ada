"""gluon.data: Dataset views (filter/shard/take/sample/transform_first), samplers, and the
DataLoader in-process, on worker threads and on worker processes: same batches, errors that
name the sample index, and no worker process left behind after an error or a Ctrl-C."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import gluon
from gluonlite.gluon.data.dataloader import DataLoaderWorkerError


def _children(pid):
    # the direct children of `pid`, from /proc (Linux)
    kids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                kids.append(int(entry))
    return kids


class _Squares(gluon.data.Dataset):
    def __len__(self):
        return 11

    def __getitem__(self, i):
        return np.full((2,), i * i, dtype=np.float32), i


class _Failing(_Squares):
    def __getitem__(self, i):
        if i == 7:
            raise KeyError("no sample seven")
        return super().__getitem__(i)


def test_dataset_views():
    ds = gluon.data.SimpleDataset(list(range(10)))
    assert list(ds.filter(lambda x: x % 3 == 0)) == [0, 3, 6, 9]
    assert [len(ds.shard(4, i)) for i in range(4)] == [3, 3, 2, 2]
    assert list(ds.shard(4, 1)) == [3, 4, 5]
    assert list(ds.take(3)) == [0, 1, 2] and len(ds.take(None)) == 10
    assert list(ds.sample([9, 0])) == [9, 0]
    assert list(ds.transform(lambda x: x * 2, lazy=False))[:3] == [0, 2, 4]
    pairs = gluon.data.ArrayDataset(np.arange(3), np.arange(3) * 10)
    assert pairs.transform_first(lambda x: x + 1)[2] == (3, 20)
    with pytest.raises(ValueError, match=r"shard: index must be in \[0, 4\), got 4"):
        ds.shard(4, 4)
    from gluonlite.gluon.contrib.data import IntervalSampler
    assert list(IntervalSampler(7, 3)) == [0, 3, 6, 1, 4, 2, 5]
    assert list(IntervalSampler(7, 3, rollover=False)) == [0, 3, 6]


@pytest.mark.parametrize("kw", [{}, {"num_workers": 2}, {"num_workers": 2, "thread_pool": True},
                                {"num_workers": 3, "prefetch": 0}])
def test_workers_give_the_same_batches(kw):
    want = [(np.array([[i * i] * 2 for i in b], np.float32), b)
            for b in ([0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10])]
    loader = gluon.data.DataLoader(_Squares(), batch_size=4, **kw)
    for _ in range(2):  # a second epoch reuses the workers
        got = [(x.asnumpy(), y.asnumpy().tolist()) for x, y in loader]
        assert len(got) == 3
        for (gx, gy), (wx, wy) in zip(got, want):
            np.testing.assert_array_equal(gx, wx)
            assert gy == wy


def test_last_batch_modes_and_pin_memory():
    ds = gluon.data.ArrayDataset(np.arange(10.0))
    sizes = [len(b) for b in gluon.data.DataLoader(ds, 4, last_batch="discard")]
    assert sizes == [4, 4]
    roll = gluon.data.DataLoader(ds, 4, last_batch="rollover")
    assert [b.asnumpy().tolist() for b in roll][-1] == [4, 5, 6, 7]
    assert [b.asnumpy().tolist() for b in roll][0] == [8, 9, 0, 1]
    batch = next(iter(gluon.data.DataLoader(ds, 4, pin_memory=True)))
    assert batch.context == mx.context.cpu_pinned(0)


@pytest.mark.parametrize("thread_pool", [False, True])
def test_worker_error_names_the_sample_and_stops_the_workers(thread_pool):
    before = set(_children(os.getpid()))
    loader = gluon.data.DataLoader(_Failing(), batch_size=2, num_workers=2,
                                   thread_pool=thread_pool)
    with pytest.raises(DataLoaderWorkerError, match="sample index 7 failed with KeyError: "
                                                    "'no sample seven'"):
        list(loader)
    if not thread_pool:
        assert set(_children(os.getpid())) <= before
    # a later epoch starts fresh workers and meets the same error
    with pytest.raises(DataLoaderWorkerError, match="sample index 7"):
        list(loader)


def test_dropped_loader_and_early_break_leave_no_process():
    before = set(_children(os.getpid()))
    loader = gluon.data.DataLoader(_Squares(), batch_size=2, num_workers=3)
    for _ in loader:
        break
    assert len(next(iter(loader))) == 2
    del loader
    deadline = time.time() + 10
    while set(_children(os.getpid())) - before and time.time() < deadline:
        time.sleep(0.05)
    assert set(_children(os.getpid())) <= before


def test_ctrl_c_leaves_no_worker_behind(tmp_path, sigint_default):
    script = tmp_path / "slow.py"
    script.write_text(textwrap.dedent("""
        import os, sys, time
        import numpy as np
        from gluonlite import gluon

        class Slow(gluon.data.Dataset):
            def __len__(self):
                return 1000
            def __getitem__(self, i):
                time.sleep(0.05)
                return np.zeros(2, np.float32)

        loader = gluon.data.DataLoader(Slow(), batch_size=2, num_workers=2)
        print(os.getpid(), flush=True)
        try:
            for batch in loader:
                print("batch", flush=True)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
    """))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True,
                            env=env)
    try:
        pid = int(proc.stdout.readline())
        assert proc.stdout.readline().strip() == "batch"
        workers = _children(pid)
        assert len(workers) == 2
        proc.send_signal(signal.SIGINT)
        out = proc.communicate(timeout=30)[0]
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "interrupted" in out
    for w in workers:
        assert not os.path.exists(f"/proc/{w}") or open(f"/proc/{w}/stat").read().split()[2] \
            == "Z"


def test_dataloader_argument_errors():
    with pytest.raises(ValueError, match="batch_size must be given"):
        gluon.data.DataLoader(_Squares())
    with pytest.raises(ValueError, match="timeout must be positive"):
        gluon.data.DataLoader(_Squares(), 2, timeout=0)
    with pytest.raises(ValueError, match="shuffle must not be set when a sampler is given"):
        gluon.data.DataLoader(_Squares(), 2, shuffle=True,
                              sampler=gluon.data.SequentialSampler(3))


class _Stuck(_Squares):
    def __getitem__(self, i):
        time.sleep(3 if i == 2 else 0)
        return super().__getitem__(i)


def test_timeout_names_the_worker_and_stops_the_workers():
    before = set(_children(os.getpid()))
    loader = gluon.data.DataLoader(_Stuck(), batch_size=2, num_workers=2, timeout=0.5)
    with pytest.raises(RuntimeError, match=r"worker 1 gave no batch within timeout=0.5s"):
        list(loader)
    assert set(_children(os.getpid())) <= before


def test_two_iterators_of_one_loader_do_not_mix_batches():
    loader = gluon.data.DataLoader(_Squares(), batch_size=3, num_workers=2)
    pairs = [(a[1].asnumpy().tolist(), b[1].asnumpy().tolist()) for a, b in zip(loader, loader)]
    assert pairs == [([0, 1, 2], [0, 1, 2]), ([3, 4, 5], [3, 4, 5]), ([6, 7, 8], [6, 7, 8]),
                     ([9, 10], [9, 10])]
    assert [b[1].asnumpy().tolist() for b in loader][-1] == [9, 10]


class _Draws(gluon.data.Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return np.array([mx.nd.random.uniform(shape=(1,)).asnumpy()[0],
                         mx.np.random.uniform(size=(1,)).asnumpy()[0], np.random.rand()])


def test_worker_processes_draw_different_random_numbers():
    # each worker reseeds every stream (MXNet's parallel and single ones, numpy's global):
    # a fork would otherwise hand each the same draws
    mx.random.seed(1)
    loader = gluon.data.DataLoader(_Draws(), batch_size=1, num_workers=4)
    draws = np.concatenate([b.asnumpy() for b in loader])
    assert draws.shape == (8, 3)
    for column in draws.T:
        assert len(set(column.tolist())) == 8
    mx.random.seed(-3)  # a negative seed too (MXNet takes it modulo 2**32)
    assert len(list(gluon.data.DataLoader(_Draws(), batch_size=4, num_workers=2))) == 2


def _mxnet_d2l_gaps():
    # made by real MXNet 1.9.1: tests/fixtures/make_d2l_gaps.py
    import json
    path = os.path.join(os.path.dirname(__file__), "..", "fixtures", "d2l_gaps_mxnet.json")
    with open(path) as f:
        return json.load(f)


def test_random_sampler_order_follows_numpy_seed_as_mxnet():
    ref = _mxnet_d2l_gaps()
    np.random.seed(0)
    mx.random.seed(3)   # MXNet's own seed does not choose the order
    assert list(gluon.data.RandomSampler(10)) == ref["sampler_seed0_len10"]
    np.random.seed(1)
    loader = gluon.data.DataLoader(gluon.data.ArrayDataset(np.arange(7)), batch_size=3,
                                   shuffle=True)
    assert [b.asnumpy().tolist() for b in loader] == ref["loader_seed1_len7_bs3"]
