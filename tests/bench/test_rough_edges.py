"""The rough edges of issue 28, each pinned: --force/--resume on an existing file, lines
that are not results, settings checked on --resume, the commit in the env record, a full
disk mid-run, an output path through a file, `rounds: auto`, a scheduler address where
something else answers, and no traceback for an unexpected error."""
import errno
import os
import socket
import subprocess
import threading
import time

import pytest

from benchutil import read_jsonl
from gluonlite.bench import cli, results, runner
from gluonlite.bench.executors import DaskExecutor, ExecutorError, _probe

# processes, files and text only: .ci/run's numpy 1.23 suite leaves it to the numpy 2 one
pytestmark = pytest.mark.numpy_agnostic

RECIPE = """
benchmark: [foreach]
matrix: {cell: [RNNCell], ctx: [cpu], seq_len: [3], batch_size: [2], hidden_dim: [4],
         is_train: [false], hybridize_cell: [false]}
rounds: {warmup: 1, test: 3}
"""


def _fake(calls=None):
    def run_case(case, warmup, test, seed, progress):
        if calls is not None:
            calls.append(case)
        times = [2.0, 2.1, 1.9] if not case["hybridize_layer"] else [1.0, 1.1, 0.9]
        out = results.stats(times)
        out.update(unit="ms", warmup=warmup, rounds=test, peak_alloc_bytes=0)
        return out
    return run_case


def _main(capsys, *args, run_case=None):
    status = cli.main([str(a) for a in args], run_case=run_case or _fake())
    out, err = capsys.readouterr()
    return status, out, err


def test_an_existing_output_needs_resume_or_force(tmp_path, write_recipe, capsys):
    recipe, out = write_recipe("r.yaml", RECIPE), tmp_path / "out.jsonl"
    assert _main(capsys, "--recipe", recipe, "--out", out)[0] == 0
    first = out.read_text()
    status, _, err = _main(capsys, "--recipe", recipe, "--out", out)
    assert status == 2 and out.read_text() == first
    assert err.strip().splitlines() == [
        f"gluonlite.bench: error: the output file {out} exists ({len(first)} bytes): give "
        "--resume to add to it, --force to overwrite it, or another --out"]
    calls = []
    assert _main(capsys, "--recipe", recipe, "--out", out, "--force",
                 run_case=_fake(calls))[0] == 0
    assert len(calls) == 2 and len(read_jsonl(out)) == 2
    status, _, err = _main(capsys, "--recipe", recipe, "--out", out, "--force", "--resume")
    assert status == 2 and "not allowed with argument" in err


def test_lines_that_are_not_results_are_moved_out_with_a_warning(tmp_path, write_recipe,
                                                                  capsys):
    recipe, out = write_recipe("r.yaml", RECIPE), tmp_path / "out.jsonl"
    assert _main(capsys, "--recipe", recipe, "--out", out)[0] == 0
    good = out.read_text().splitlines()
    out.write_text(good[0] + "\nnot json at all\n[1, 2]\n" + good[1] + "\n")
    calls = []
    status, _, err = _main(capsys, "--recipe", recipe, "--out", out, "--resume",
                           run_case=_fake(calls))
    assert status == 0 and calls == []
    assert (f"gluonlite.bench: warning: {out} line 2: not JSON; moved it to {out}.rejected"
            in err)
    assert (f"gluonlite.bench: warning: {out} line 3: a JSON list, not an object; moved it "
            f"to {out}.rejected" in err)
    assert out.read_text().splitlines() == good
    assert (tmp_path / "out.jsonl.rejected").read_text() == "not json at all\n[1, 2]\n"


def test_resume_refuses_results_made_with_other_settings(tmp_path, write_recipe, capsys):
    recipe, out = write_recipe("r.yaml", RECIPE), tmp_path / "out.jsonl"
    assert _main(capsys, "--recipe", recipe, "--out", out, "--test_rounds", "5")[0] == 0
    status, _, err = _main(capsys, "--recipe", recipe, "--out", out, "--resume")
    assert status == 2
    assert err.strip().splitlines() == [
        f"gluonlite.bench: error: --resume: {out} holds results made with warmup 1, test 5, "
        "seed 0; this run asks for warmup 1, test 3, seed 0: run with the same settings, or "
        "give --force to start the file anew"]
    assert _main(capsys, "--recipe", recipe, "--out", out, "--resume", "--test_rounds", "5",
                 )[0] == 0


def test_each_result_records_the_commit(tmp_path, write_recipe, capsys):
    recipe, out = write_recipe("r.yaml", RECIPE), tmp_path / "out.jsonl"
    assert _main(capsys, "--recipe", recipe, "--out", out)[0] == 0
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    head = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()
    for rec in read_jsonl(out):
        assert rec["env"]["commit"] in (head, head + "-dirty")


class _FullDisk:
    """os.write that writes part of the second line, then fails as a full disk does."""

    def __init__(self):
        self.calls = 0

    def __call__(self, fd, data):
        self.calls += 1
        if self.calls == 1:
            return os.write(fd, data)
        os.write(fd, bytes(data[:10]))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_full_disk_leaves_whole_lines_and_says_so_in_one_line(tmp_path, write_recipe, capsys,
                                                                 monkeypatch):
    path = tmp_path / "r.jsonl"
    with results.ResultsFile(str(path), writer=_FullDisk()) as w:
        w.write({"a": 1})
        with pytest.raises(results.OutputError) as info:
            w.write({"b": 2, "pad": "x" * 100})
    assert str(info.value) == f"cannot write to {path}: No space left on device"
    assert path.read_text() == '{"a": 1}\n'

    real = results.ResultsFile
    monkeypatch.setattr(results, "ResultsFile",
                        lambda p, resume=False, **kw: real(p, resume, writer=_FullDisk(), **kw))
    recipe, out = write_recipe("r.yaml", RECIPE), tmp_path / "out.jsonl"
    status, _, err = _main(capsys, "--recipe", recipe, "--out", out)
    assert status == 2 and "Traceback" not in err
    assert err.strip().splitlines()[-1] == (
        f"gluonlite.bench: error: cannot write to {out}: No space left on device")
    assert len(read_jsonl(out)) == 1


def test_an_output_path_through_a_file_says_not_a_directory(tmp_path, write_recipe, capsys):
    (tmp_path / "hostname").write_text("box\n")
    bad = tmp_path / "hostname" / "x.jsonl"
    status, _, err = _main(capsys, "--recipe", write_recipe("r.yaml", RECIPE), "--out", bad)
    assert status == 2
    assert err.strip() == (f"gluonlite.bench: error: cannot write {bad}: "
                           f"{tmp_path / 'hostname'} is not a directory")


def test_an_unexpected_error_is_one_line_without_traceback(tmp_path, write_recipe, capsys,
                                                           monkeypatch):
    from gluonlite.bench import matrix

    def broken(*a, **k):
        raise KeyError("boom")
    monkeypatch.setattr(matrix, "expand", broken)
    status, _, err = _main(capsys, "--recipe", write_recipe("r.yaml", RECIPE))
    assert status == 1 and "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gluonlite.bench: internal error: KeyError: "
                                                   "'boom' [at ")


def test_auto_rounds_fill_the_budget():
    clock = {"n": 0}

    def step():
        clock["n"] += 1
        time.sleep(0.004)
    times = runner.time_rounds(step, 2, "auto:0.05")
    assert runner.AUTO_MIN_ROUNDS <= len(times) and clock["n"] == len(times) + 2
    assert 50.0 <= sum(times) < 50.0 + 3 * max(times)  # stops at the first round past 50 ms
    slow = runner.time_rounds(lambda: time.sleep(0.02), 0, "auto:0.001")
    assert len(slow) == runner.AUTO_MIN_ROUNDS  # at least that many, whatever the budget
    with pytest.raises(ValueError, match="test must be"):
        runner.time_rounds(step, 0, "auto:zero")


def test_auto_rounds_from_the_recipe_reach_the_case(tmp_path, write_recipe, capsys):
    recipe = write_recipe("r.yaml", RECIPE.replace("test: 3", "test: auto, budget_s: 0.5"))
    out = tmp_path / "out.jsonl"
    assert _main(capsys, "--recipe", recipe, "--out", out)[0] == 0
    assert {r["rounds"] for r in read_jsonl(out)} == {"auto:0.5"}
    assert _main(capsys, "--recipe", recipe, "--out", out, "--resume", "--test_rounds",
                 "auto")[0] == 0  # the same budget: nothing to do
    assert _main(capsys, "--recipe", recipe, "--out", out, "--resume", "--test_rounds",
                 "3")[0] == 2  # fixed rounds are another setting


def _serve(handler):
    """A loopback listener running handler(conn) per connection; returns (address, stop)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    conns = []

    def loop():
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            conns.append(conn)
            threading.Thread(target=handler, args=(conn,), daemon=True).start()
    threading.Thread(target=loop, daemon=True).start()

    def stop():
        srv.close()
        for c in conns:
            c.close()
    return f"tcp://127.0.0.1:{srv.getsockname()[1]}", stop


def _silent(conn):
    pass


def _http(conn):  # answers a request as an HTTP server (a Dask dashboard) does
    try:
        conn.recv(1024)
        conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
    except OSError:
        pass


def _greets_wrong(conn):  # speaks first, but not Dask's frame header
    conn.sendall(b"SSH-2.0-OpenSSH_9.6\r\n")


def _hangs_up(conn):
    conn.close()


@pytest.mark.parametrize("handler, why", [
    (_silent, "something listens there, but sent no Dask greeting"),
    (_http, "something listens there, but sent no Dask greeting"),
    (_greets_wrong, "something answers there, but not as a Dask scheduler: it sent "
                    "b'SSH-2.0-OpenSSH_'"),
    (_hangs_up, "something listens there, but closed the connection"),
])
def test_a_scheduler_address_where_something_else_answers_is_named(handler, why):
    address, stop = _serve(handler)
    try:  # the probe alone, with a short wait (the full 5 s are timed below)
        with pytest.raises(ExecutorError) as info:
            _probe(address, timeout=0.5)
    finally:
        stop()
    assert str(info.value) == f"no Dask scheduler answers at {address} within 5 s ({why})"


def test_a_silent_listener_fails_the_executor_within_5_s():
    address, stop = _serve(_silent)
    try:
        tick = time.monotonic()
        with pytest.raises(ExecutorError, match="sent no Dask greeting"):
            DaskExecutor(address)
        assert time.monotonic() - tick <= 5.0
    finally:
        stop()


def test_the_cli_reports_a_wrong_scheduler_in_one_line(write_recipe, capsys):
    address, stop = _serve(_http)
    try:
        status, _, err = _main(capsys, "--recipe", write_recipe("r.yaml", RECIPE),
                               "--scheduler", address)
    finally:
        stop()
    assert status == 2 and err.strip().splitlines() == [
        f"gluonlite.bench: error: no Dask scheduler answers at {address} within 5 s "
        "(something listens there, but sent no Dask greeting)"]
