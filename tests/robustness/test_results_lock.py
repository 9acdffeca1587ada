"""One writer per results file: two runs started together, a --resume while the first still
writes, and a run killed mid-way (its lock goes with it)."""
import json
import os
import signal
import time

import pytest

from gluonlite.bench import matrix
from gluonlite.bench.results import FileLock, OutputError, ResultsFile
from probe_cli import run_cli, start_cli

# processes, files and text only: .ci/run's numpy 1.23 suite leaves it to the numpy 2 one
pytestmark = pytest.mark.numpy_agnostic

SLOW = "bench_standins:slow_case"


def _lines(path):
    return [json.loads(ln) for ln in path.read_text().splitlines()]


def _wait_for_lock(out, proc, limit=120):
    lock = out.parent / (out.name + ".lock")
    deadline = time.monotonic() + limit
    while not (lock.exists() and lock.read_text()):
        assert proc.poll() is None and time.monotonic() < deadline, "the first run never locked"
        time.sleep(0.05)
    return json.loads(lock.read_text())


def test_a_second_lock_on_a_file_names_the_first_holder(tmp_path):
    path = str(tmp_path / "r.jsonl")
    first = FileLock(path).acquire()
    try:
        with pytest.raises(OutputError, match=rf"{path} is being written by another run \(pid "
                                              rf"{os.getpid()} on .* since .*; lock {path}.lock\)"):
            FileLock(path).acquire()
        with pytest.raises(OutputError, match="being written by another run"):
            ResultsFile(path, resume=True)
    finally:
        first.release()
    assert not os.path.exists(path + ".lock")
    with ResultsFile(path) as w:  # free again
        w.write({"a": 1})


def test_must_be_new_is_checked_under_the_lock(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"a": 1}\n')
    with pytest.raises(OutputError, match=r"exists \(9 bytes\): give --resume"):
        ResultsFile(str(path), must_be_new=True)
    assert path.read_text() == '{"a": 1}\n' and not (tmp_path / "r.jsonl.lock").exists()


def _gate(tmp_path, after=0):
    gate = tmp_path / "gate"
    return gate, {"GLUONLITE_TEST_GATE": str(gate), "GLUONLITE_TEST_GATE_AFTER": str(after)}


def test_two_runs_started_together_write_each_case_once(tmp_path, tiny_recipe):
    # the one that takes the lock waits at the gate before its first case, so the other
    # meets it with the file still empty: the "file exists" check alone let both through
    out = tmp_path / "out.jsonl"
    gate, env = _gate(tmp_path)
    procs = [start_cli("--recipe", tiny_recipe, "--out", out, cwd=tmp_path, run_case=SLOW,
                       env=env) for _ in range(2)]
    try:
        deadline = time.monotonic() + 120
        while all(p.poll() is None for p in procs):
            assert time.monotonic() < deadline, "neither run stopped"
            time.sleep(0.05)
        gate.touch()
        results = [(p.wait(timeout=180), p.communicate()[1]) for p in procs]
    finally:
        for p in procs:
            p.kill()
    assert sorted(status for status, _ in results) == [0, 2], results
    loser = next(err for status, err in results if status == 2)
    assert loser.count("\n") == 1 and "is being written by another run (pid" in loser, loser
    recs = _lines(out)
    assert len(recs) == 8 and len({matrix.case_key(r) for r in recs}) == 8


def test_resume_while_the_first_run_writes_is_refused(tmp_path, tiny_recipe):
    out = tmp_path / "out.jsonl"
    gate, env = _gate(tmp_path, after=3)
    first = start_cli("--recipe", tiny_recipe, "--out", out, cwd=tmp_path, run_case=SLOW,
                      env=env)
    try:
        holder = _wait_for_lock(out, first)
        for extra in (["--resume"], ["--force"]):  # a fresh run: the test above
            status, _, err = run_cli("--recipe", tiny_recipe, "--out", out, *extra,
                                     cwd=tmp_path, run_case=SLOW)
            assert status == 2, err
            assert err.strip() == (
                f"gluonlite.bench: error: {out} is being written by another run (pid "
                f"{holder['pid']} on {holder['host']} since {holder['since']}; lock "
                f"{out}.lock): wait for it to finish, or give another --out")
        gate.touch()
        assert first.wait(timeout=180) == 0
    finally:
        first.kill()
    recs = _lines(out)
    assert len(recs) == 8 and len({matrix.case_key(r) for r in recs}) == 8
    assert not (tmp_path / "out.jsonl.lock").exists()


def test_a_killed_run_leaves_no_lock_behind(tmp_path, tiny_recipe):
    out = tmp_path / "out.jsonl"
    _, env = _gate(tmp_path, after=2)  # never opened: the run stops after two cases
    first = start_cli("--recipe", tiny_recipe, "--out", out, cwd=tmp_path, run_case=SLOW,
                      env=env)
    try:
        _wait_for_lock(out, first)
        deadline = time.monotonic() + 120
        while len(out.read_text().splitlines()) < 2:  # two cases are written
            assert first.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=30)
    finally:
        first.kill()
    kept = len(_lines(out))
    assert kept == 2 and (tmp_path / "out.jsonl.lock").exists()  # left, but not held
    status, out_text, err = run_cli("--recipe", tiny_recipe, "--out", out, "--resume",
                                    cwd=tmp_path, run_case=SLOW)
    assert status == 0, err
    assert "resuming: 2 of 8 cases already in" in out_text
    recs = _lines(out)
    assert len(recs) == 8 and len({matrix.case_key(r) for r in recs}) == 8


def test_a_file_system_without_locks_is_written_unguarded(tmp_path, monkeypatch):
    from gluonlite.bench import results

    def no_locks(fd, op):  # fault injection: flock on NFS without lockd
        raise OSError(37, "No locks available")
    monkeypatch.setattr(results.fcntl, "flock", no_locks)
    path = tmp_path / "r.jsonl"
    with ResultsFile(str(path)) as w:
        w.write({"a": 1})
    assert path.read_text() == '{"a": 1}\n'
