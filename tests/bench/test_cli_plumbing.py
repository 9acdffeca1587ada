"""The bench loop with a stand-in case runner: JSON lines, resume, Ctrl-C, failures.

These do not need the gluonlite core; the end-to-end tests in test_cli_e2e.py do."""
import json
import signal
import subprocess
import sys

import pytest

from benchutil import cli_env, read_jsonl
from gluonlite.bench import cli, matrix
from gluonlite.bench.recipe import from_data

# processes, files and text only: .ci/run's numpy 1.23 suite leaves it to the numpy 2 one
pytestmark = pytest.mark.numpy_agnostic

STAT_KEYS = {"n", "mean", "std", "median", "min", "max", "unit", "warmup", "peak_alloc_bytes"}


def _recipe(out, **extra):
    data = {"benchmark": ["foreach", "while_loop"],
            "matrix": {"cell": ["RNNCell"], "ctx": ["cpu", "gpu"], "seq_len": [3],
                       "batch_size": [2], "hidden_dim": [4]},
            "rounds": {"warmup": 1, "test": 2}, "output": str(out)}
    data.update(extra)
    return from_data(data, name="tiny")


def _fake(calls, fail_on=None, interrupt_at=None):
    def run_case(case, warmup, test, seed, progress):
        calls.append(case)
        if interrupt_at is not None and len(calls) == interrupt_at:
            raise KeyboardInterrupt
        if fail_on and fail_on(case):
            raise ValueError("while_loop: loop_vars[1] changed shape\nsecond line")
        mean = 1.0 if case.get("hybridize_layer") else 2.0
        progress(warmup + test)
        return dict(n=test, mean=mean, std=0.0, median=mean, min=mean, max=mean, unit="ms",
                    warmup=warmup, peak_alloc_bytes=0)
    return run_case


def test_writes_one_line_per_case_with_schema(tmp_path, capsys):
    out = tmp_path / "res" / "out.jsonl"
    calls = []
    assert cli.run_bench(_recipe(out), run_case=_fake(calls), progress=False) == 0
    recs = read_jsonl(out)
    assert len(recs) == len(calls) == 16
    for r in recs:
        assert set(matrix.KEY_FIELDS) | STAT_KEYS | {"env", "seed", "recipe"} <= set(r)
        assert r["ctx"] == "cpu(0)" and r["recipe"] == "tiny"
    text = capsys.readouterr().out
    assert text.count("Time used: mean = ") == 16
    assert "skipping ctx gpu:" in text
    assert "Benchmarking foreach" in text and "Benchmarking while_loop" in text
    assert "cell: RNNCell  ctx: cpu(0)  length: 3  batch size: 2 dim: 4" in text
    assert "is_train = True, hybridize_cell = False, hybridize_layer = True" in text
    assert "speedup" in text and " 2.000" in text


def test_resume_skips_finished_cases(tmp_path, capsys):
    out = tmp_path / "out.jsonl"
    first = []
    assert cli.run_bench(_recipe(out), run_case=_fake(first, interrupt_at=6),
                         progress=False) == 130
    assert len(read_jsonl(out)) == 5
    again = []
    assert cli.run_bench(_recipe(out), resume=True, run_case=_fake(again), progress=False) == 0
    assert len(again) == 11
    done = {matrix.case_key(c) for c in first[:5]}
    assert not done & {matrix.case_key(c) for c in again}
    recs = read_jsonl(out)
    assert len(recs) == 16 and len({matrix.case_key(r) for r in recs}) == 16
    assert "resuming: 5 of 16 cases already in" in capsys.readouterr().out
    nothing = []
    assert cli.run_bench(_recipe(out), resume=True, run_case=_fake(nothing), progress=False) == 0
    assert nothing == [] and len(read_jsonl(out)) == 16


def test_interrupt_keeps_whole_lines_and_says_so(tmp_path, capsys):
    out = tmp_path / "out.jsonl"
    assert cli.run_bench(_recipe(out), run_case=_fake([], interrupt_at=3),
                         progress=False) == 130
    assert len(read_jsonl(out)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "interrupted after 2 of 16 cases" in err[0]


def test_failed_case_is_one_line_and_others_run(tmp_path, capsys):
    out = tmp_path / "out.jsonl"
    fail = lambda c: c["benchmark"] == "while_loop" and c["hybridize_cell"]  # noqa: E731
    assert cli.run_bench(_recipe(out), run_case=_fake([], fail_on=fail), progress=False) == 1
    assert len(read_jsonl(out)) == 12
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 5 and "4 of 16 cases failed" in err[-1]
    assert "case failed (while_loop RNNCell" in err[0]
    assert "ValueError: while_loop: loop_vars[1] changed shape | second line" in err[0]


def test_floor_baseline_runs_for_real(tmp_path, capsys):
    out = tmp_path / "out.jsonl"
    calls = []
    from gluonlite.bench import runner

    def run_case(case, warmup, test, seed, progress, floors=()):
        if case["impl"] != "gluonlite":
            return runner.run_case(case, warmup, test, seed, progress)
        assert floors == ("floor-step", "floor-fused")  # timed in the case's rounds
        return _fake(calls)(case, warmup, test, seed, progress)
    recipe = _recipe(out, baseline="numpy", format="markdown")
    assert cli.run_bench(recipe, run_case=run_case, progress=False) == 0
    recs = read_jsonl(out)
    floors = [r for r in recs if r["impl"] != "gluonlite"]
    assert len(floors) == 4 and all(r["mean"] > 0 for r in floors)
    assert all(r["peak_alloc_bytes"] >= 0 for r in floors)
    text = capsys.readouterr().out
    assert "| x floor-step (<1 better) | x floor-fused (<1 better) |" in text


def test_sigint_in_a_real_run_exits_130_and_keeps_whole_lines(tmp_path, write_recipe,
                                                             sigint_default):
    # Floor cases come first and need only numpy, so this runs without the core.
    recipe = write_recipe("r.yaml", """
        benchmark: foreach
        matrix: {cell: [LSTMCell], ctx: [cpu], seq_len: [50], batch_size: [16],
                 hidden_dim: [128], is_train: [true]}
        rounds: {warmup: 0, test: 200}
        baseline: numpy
        """)
    out = tmp_path / "out.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "gluonlite.bench", "--recipe", str(recipe),
                             "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=cli_env(), cwd=tmp_path)
    for line in proc.stdout:  # the first case finished: its line is in the file
        if line.startswith("Time used"):
            break
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr and "interrupted" in stderr
    lines = out.read_text().splitlines()
    assert len(lines) >= 1 and all(json.loads(ln)["impl"] for ln in lines)
    assert out.read_text().endswith("\n")
