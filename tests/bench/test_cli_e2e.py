"""End to end through `python -m gluonlite.bench` on tiny recipes, with the real core.

These need the gluonlite core (gluon.rnn cells, contrib.foreach/while_loop, hybridize)."""
import csv
import io
import json
import os
import re

import pytest

from benchutil import TINY, read_jsonl, run_cli
from gluonlite.bench import matrix

# processes, files and text only: .ci/run's numpy 1.23 suite leaves it to the numpy 2 one
pytestmark = pytest.mark.numpy_agnostic

TIME_LINE = re.compile(r"^Time used: mean = \d+\.\d{3} ms, std = \d+\.\d{3} ms$", re.M)


@pytest.mark.parametrize("bench", ["foreach", "while_loop"])
def test_bench_run_prints_seed_lines_and_writes_json(tmp_path, write_recipe, bench):
    recipe = write_recipe("tiny.yaml", TINY)
    out = tmp_path / "new" / "out.jsonl"
    proc = run_cli("--benchmark", bench, "--recipe", recipe, "--out", out, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    assert len(TIME_LINE.findall(proc.stdout)) == 16
    assert f"Benchmarking {bench}" in proc.stdout
    assert "cell: LSTMCell  ctx: cpu(0)  length: 3  batch size: 2 dim: 4" in proc.stdout
    assert "is_train = False, hybridize_cell = True, hybridize_layer = True" in proc.stdout
    assert "speedup" in proc.stdout
    recs = read_jsonl(out)
    assert len(recs) == 16
    for r in recs:
        assert r["benchmark"] == bench and r["impl"] == "gluonlite"
        for k in ("n", "mean", "std", "median", "min", "max"):
            assert isinstance(r[k], (int, float))
        assert r["n"] == 2 and r["min"] <= r["median"] <= r["max"]
        assert {"gluonlite", "numpy", "python", "blas", "threads", "cpu"} <= set(r["env"])


def test_resume_runs_only_missing_cases(tmp_path, write_recipe):
    recipe = write_recipe("tiny.yaml", TINY.replace("[RNNCell, LSTMCell]", "[LSTMCell]"))
    out = tmp_path / "out.jsonl"
    assert run_cli("--benchmark", "foreach", "--recipe", recipe, "--out", out,
                   cwd=tmp_path).returncode == 0
    lines = out.read_text().splitlines(keepends=True)
    out.write_text("".join(lines[:3]))
    proc = run_cli("--benchmark", "foreach", "--recipe", recipe, "--out", out, "--resume",
                   cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "resuming: 3 of 8 cases already in" in proc.stdout
    assert len(TIME_LINE.findall(proc.stdout)) == 5
    recs = read_jsonl(out)
    assert len(recs) == 8 and len({matrix.case_key(r) for r in recs}) == 8
    proc = run_cli("--benchmark", "foreach", "--recipe", recipe, "--out", out, "--resume",
                   cwd=tmp_path)
    assert proc.returncode == 0 and not TIME_LINE.findall(proc.stdout)
    assert len(read_jsonl(out)) == 8


def test_baseline_numpy_and_csv_summary(tmp_path, write_recipe):
    recipe = write_recipe("tiny.yaml", TINY.replace("[RNNCell, LSTMCell]", "[GRUCell]"))
    proc = run_cli("--benchmark", "while_loop", "--recipe", recipe, "--baseline", "numpy",
                   "--format", "csv", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    # stdout is the CSV alone (`> out.csv` parses); the per-case lines go to stderr
    assert len(TIME_LINE.findall(proc.stderr)) == 8 + 4
    rows = list(csv.reader(io.StringIO(proc.stdout)))
    assert rows[0][-5:] == ["speedup (>1 better)", "x floor-step (<1 better)",
                            "x floor-fused (<1 better)", "noisy", "unreliable"]
    assert len(rows) == 1 + 8 + 4 and all(len(r) == len(rows[0]) for r in rows)
    assert all(float(r[10]) > 0 for r in rows[1:])  # median_ms




def test_profile_and_plot_on_a_run(tmp_path, write_recipe):
    recipe = write_recipe("tiny.yaml", TINY.replace("[RNNCell, LSTMCell]", "[LSTMCell]"))
    out = tmp_path / "res" / "tiny.jsonl"
    proc = run_cli("--benchmark", "while_loop", "--recipe", recipe, "--out", out,
                   "--profile", "--plot", tmp_path / "charts", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    traces = sorted(os.listdir(tmp_path / "res" / "tiny.profile"))
    assert len(traces) == 8 and all(t.startswith("while_loop_LSTMCell_cpu_0_") for t in traces)
    hyb = json.loads((tmp_path / "res" / "tiny.profile" / next(
        t for t in traces if t.endswith("train_hyb=L.json"))).read_text())["traceEvents"]
    summed = {e["name"]: e["args"]["count"] for e in hyb if e.get("cat") == "compiled steps"}
    # warmup 1 + test 2 + one allocation round, 3 steps of 3 sigmoids each
    assert summed["sigmoid"] == 4 * 3 * 3
    imp = json.loads((tmp_path / "res" / "tiny.profile" / next(
        t for t in traces if t.endswith("infer_hyb=-.json"))).read_text())["traceEvents"]
    assert any(e.get("cat") == "operator" and e["name"] == "FullyConnected" for e in imp)
    charts = sorted(os.listdir(tmp_path / "charts"))
    assert charts == ["tiny-speedup.png", "tiny-speedup.svg"]
