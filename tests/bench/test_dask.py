"""`--executor dask`: the same cases and summary as a local run on a 2-worker LocalCluster,
train sweeps, a worker dying mid-case, resume after Ctrl-C, an unreachable scheduler and
the missing extra. Each test starts its own small cluster in a subprocess (seconds), but
those on a cluster's resources, which run in process."""
import copy
import logging
import os
import signal
import socket
import time
import warnings

import distributed
import pytest

import benchutil
from benchutil import read_jsonl, run_cli, run_cli_with
from gluonlite.bench import matrix
from gluonlite.bench.executors import DaskExecutor, ExecutorError, Task

# processes, files and text only: .ci/run's numpy 1.23 suite leaves it to the numpy 2 one
pytestmark = pytest.mark.numpy_agnostic

# foreach only, hybridize_cell false: 8 cases
TINY = "benchmark: [foreach]\n" + benchutil.TINY.replace("  hidden_dim: [4]\n",
                                                         "  hidden_dim: [4]\n"
                                                         "  hybridize_cell: [false]\n")
DASK = ("--executor", "dask", "--workers", "2")


def _summary(stdout):
    """The CSV summary's lines (header first)."""
    lines = stdout.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("impl,"))
    return lines[start:]


def _keys(records):
    return [matrix.case_key(r) for r in records]


def test_dask_run_gives_the_local_case_set_and_summary_columns(tmp_path, write_recipe):
    recipe = write_recipe("tiny.yaml", TINY + "baseline: numpy\nformat: csv\n")
    local, remote = tmp_path / "local.jsonl", tmp_path / "dask.jsonl"
    p_local = run_cli("--recipe", recipe, "--out", local, cwd=tmp_path)
    p_dask = run_cli("--recipe", recipe, "--out", remote, *DASK, cwd=tmp_path)
    assert p_local.returncode == 0, p_local.stderr[-2000:]
    assert p_dask.returncode == 0, p_dask.stderr[-2000:]
    recs_local, recs_dask = read_jsonl(local), read_jsonl(remote)
    assert len(recs_local) == 16 and sorted(_keys(recs_dask)) == sorted(_keys(recs_local))
    sum_local, sum_dask = _summary(p_local.stdout), _summary(p_dask.stdout)
    assert sum_dask[0] == sum_local[0] and sum_local[0].endswith(
        "x floor-step (<1 better),x floor-fused (<1 better),noisy,unreliable")
    # same rows in the same (matrix) order: the first ten columns name the case
    assert [r.split(",")[:10] for r in sum_dask] == [r.split(",")[:10] for r in sum_local]
    host = socket.gethostname()
    for r in recs_dask:
        assert r["env"]["host"] == host and r["n"] == 2 and "failed" not in r
        assert r["env"]["threads"].get("OPENBLAS_NUM_THREADS") == "1"
    assert len(p_dask.stderr.split("Time used: mean = ")) == 17  # CSV: stdout is the table
    assert "Traceback" not in p_dask.stderr


SWEEP = """
kind: train
task: adding
model: {cell: RNNCell, loop: foreach, hidden_size: 8}
adding: {seq_len: 4, train_size: 64, valid_size: 16}
epochs: 2
batch_size: 16
sweep:
  optimizer.lr: [0.01, 0.05]
"""


def test_train_sweep_on_dask_writes_each_run_once_and_matches_local(tmp_path, write_recipe):
    from gluonlite import nd
    recipe = write_recipe("sweep.yaml", SWEEP)
    proc = run_cli("--recipe", recipe, "--out", tmp_path / "d" / "sweep.jsonl", *DASK,
                   cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    local = run_cli("--recipe", recipe, "--out", tmp_path / "l" / "sweep.jsonl", cwd=tmp_path)
    assert local.returncode == 0, local.stderr[-2000:]
    assert sorted(p.name for p in (tmp_path / "d" / "sweep").iterdir()) == [
        "lr=0.01.jsonl", "lr=0.01.params", "lr=0.05.jsonl", "lr=0.05.params"]
    for tag in ("lr=0.01", "lr=0.05"):
        recs = read_jsonl(tmp_path / "d" / "sweep" / f"{tag}.jsonl")
        assert [r.get("epoch") for r in recs] == [1, 2, None]
        final = recs[-1]
        assert final["final"] is True and final["run"] == tag and final["env"]["host"]
        assert all(r["run"] == tag for r in recs)
        params = nd.load(final["params_file"])
        assert params and all(v.size for v in params.values())
        same = read_jsonl(tmp_path / "l" / "sweep" / f"{tag}.jsonl")
        for a, b in zip(recs[:2], same[:2]):  # the same run, wherever it ran
            assert abs(a["valid_mse"] - b["valid_mse"]) <= 1e-5 * abs(b["valid_mse"])
    lr1, lr5 = (read_jsonl(tmp_path / "d" / "sweep" / f"lr={x}.jsonl")[0]["train_loss"]
                for x in ("0.01", "0.05"))
    assert lr1 != lr5  # each run got its own learning rate
    assert "Sweep: 2 runs (adding, judged by valid_mse)" in proc.stdout


def test_a_worker_dying_mid_case_loses_only_that_case(tmp_path, write_recipe):
    recipe = write_recipe("tiny.yaml", TINY)
    out = tmp_path / "out.jsonl"
    proc = run_cli_with("dask_cases:crash_case", "--recipe", recipe, "--out", out, *DASK,
                        cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr[-2000:]
    recs = read_jsonl(out)
    failed = [r for r in recs if r.get("failed")]
    assert len(recs) == 8 and len(failed) == 1 and len(set(_keys(recs))) == 8
    assert failed[0]["cell"] == "LSTMCell" and failed[0]["hybridize_layer"] is True
    assert failed[0]["is_train"] is True and "KilledWorker" in failed[0]["error"]
    assert all(r["mean"] > 0 for r in recs if not r.get("failed"))
    err = proc.stderr.strip().splitlines()
    assert "1 of 8 cases failed" in err[-1]
    assert sum("case failed (foreach LSTMCell" in ln for ln in err) == 1
    # --resume runs the failed case again (here with the real case: it passes)
    proc = run_cli("--recipe", recipe, "--out", out, "--resume", *DASK, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "resuming: 7 of 8 cases already in" in proc.stdout
    done = [r for r in read_jsonl(out) if not r.get("failed")]
    assert sorted(_keys(done)) == sorted(set(_keys(recs)))


def test_a_case_whose_worker_died_once_is_retried(tmp_path, write_recipe):
    recipe = write_recipe("tiny.yaml", TINY)
    out = tmp_path / "out.jsonl"
    proc = run_cli_with("dask_cases:crash_once_case", "--recipe", recipe, "--out", out, *DASK,
                        cwd=tmp_path, env={"GLUONLITE_TEST_MARKS": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (tmp_path / "crashed").exists()  # the worker did die once
    recs = read_jsonl(out)
    assert len(recs) == 8 and not any(r.get("failed") for r in recs)


def test_ctrl_c_leaves_a_file_that_resume_completes(tmp_path, write_recipe, sigint_default):
    # timings may share the host here, so the other worker goes on past the stuck case
    recipe = write_recipe("tiny.yaml", TINY + "executor: {share_host: true}\n")
    out = tmp_path / "out.jsonl"
    proc = run_cli_with("dask_cases:stuck_case", "--recipe", recipe, "--out", out, *DASK,
                        cwd=tmp_path, popen=True)
    try:
        deadline = time.monotonic() + 90
        while not (out.exists() and out.read_text()):  # a case is done; one never will be
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C reaches the driver and its workers
        proc.wait(timeout=60)
    finally:
        proc.kill()
    stderr = (tmp_path / "stderr.txt").read_text()
    assert proc.returncode == 130, stderr[-2000:]
    assert "Traceback" not in stderr, stderr[-2000:]
    kept = len(read_jsonl(out))
    assert 1 <= kept <= 7
    assert f"interrupted after {kept} of 8 cases; {kept} finished cases are in" in stderr
    proc = run_cli("--recipe", recipe, "--out", out, "--resume", *DASK, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert f"resuming: {kept} of 8 cases already in" in proc.stdout
    recs = read_jsonl(out)
    assert len(recs) == 8 and len(set(_keys(recs))) == 8


def test_a_scheduler_that_does_not_answer_fails_fast_in_one_line(tmp_path, write_recipe):
    recipe = write_recipe("tiny.yaml", TINY)
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{s.getsockname()[1]}"
    proc = run_cli("--recipe", recipe, "--scheduler", address, cwd=tmp_path, timeout=30)
    assert proc.returncode == 2
    err = proc.stderr.strip().splitlines()
    assert len(err) == 1 and f"no Dask scheduler answers at {address} within 5 s" in err[0]


def test_without_the_dask_extra_the_executor_names_it(tmp_path, write_recipe):
    shadow = tmp_path / "shadow" / "distributed"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('no distributed here')\n")
    recipe = write_recipe("tiny.yaml", TINY)
    proc = run_cli("--recipe", recipe, *DASK, cwd=tmp_path, path_first=tmp_path / "shadow")
    assert proc.returncode == 2
    err = proc.stderr.strip().splitlines()
    assert err == ["gluonlite.bench: error: --executor dask needs the dask extra (pip install "
                   "'gluonlite[dask]'); distributed does not import: no distributed here"]



def _square(x, progress=None):
    return x * x


def test_a_cluster_without_bench_or_gpu_resources_is_named_in_one_line():
    """In process (threads): a user-started cluster whose workers advertise no resources
    runs plain tasks, refuses timing tasks unless share_host, and offers no GPUs."""
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=":0", silence_logs=logging.CRITICAL) as c:
        address = c.scheduler_address
        with DaskExecutor(address) as ex:
            assert ex.gpus() == (0, f"no worker at {address} advertises a gpu resource")
            assert [o.value for o in ex.run([Task("a", _square, (3,))])] == [9]
            with pytest.raises(ExecutorError) as info:
                list(ex.run([Task("a", _square, (3,), timing=True)]))
            assert str(info.value) == (
                f"no worker at {address} advertises the bench resource: start one worker "
                "per host with --resources \"bench=1\" (or set executor.share_host: true to "
                "let timings share hosts)")
        with DaskExecutor(address, share_host=True) as ex:
            assert [o.value for o in ex.run([Task("a", _square, (4,), timing=True)])] == [16]


def test_an_embedded_cluster_starts_quietly_when_port_8787_is_taken():
    """Another cluster on the host holds Dask's default HTTP port: the run prints nothing
    about it (the user asked for no dashboard)."""
    holder = socket.socket()
    try:
        holder.bind(("0.0.0.0", 8787))
        holder.listen()
    except OSError:  # taken already, as the test wants
        pass
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with DaskExecutor(workers=1) as ex:
                assert ex.workers == 1
    finally:
        holder.close()
    assert not [w for w in caught if "8787" in str(w.message)], caught


def _worker_name(i, progress=None):
    return distributed.get_worker().name


def test_timing_and_gpu_tasks_go_only_to_workers_with_their_resources():
    """In process (threads): workers 0 (no resources), 1 (bench=1), 2 (bench=1, gpu=2)."""
    with distributed.LocalCluster(n_workers=0, threads_per_worker=1, processes=False,
                                  dashboard_address=":0", silence_logs=logging.CRITICAL) as c:
        for resources in ({}, {"bench": 1}, {"bench": 1, "gpu": 2}):
            (name, spec), = c.new_worker_spec().items()
            spec = copy.deepcopy(spec)
            spec["options"]["resources"] = resources
            c.worker_spec[name] = spec
        c.scale(3)
        c.wait_for_workers(3)
        with DaskExecutor(c.scheduler_address) as ex:
            assert ex.gpus() == (2, None) and ex.workers == 3
            tasks = ([Task(("cpu", i), _worker_name, (i,), timing=True) for i in range(6)]
                     + [Task(("gpu", i), _worker_name, (i,), timing=True, gpu=2)
                        for i in range(6)])
            ran = {o.task.key: o.value for o in ex.run(tasks)}
    assert len(ran) == 12
    assert {w for (kind, _), w in ran.items() if kind == "cpu"} <= {1, 2}
    assert {w for (kind, _), w in ran.items() if kind == "gpu"} == {2}
