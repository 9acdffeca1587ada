"""The bench on a gpu context, run on tests/fakecupy.py: every timed round waits for the
device, the floor runs in the device's array module, and `ctx: [cpu, gpu]` gives rows (and
floor ratios) for both."""
import pytest

from benchutil import read_jsonl
from gluonlite.bench import cli, runner, summary
from gluonlite.bench.recipe import from_data

CASE = {"cell": "LSTMCell", "seq_len": 3, "batch_size": 2, "hidden_dim": 4, "is_train": True,
        "ctx": "gpu(0)"}


@pytest.mark.parametrize("impl", ["gluonlite", "floor-step", "floor-fused"])
def test_every_timed_round_on_a_gpu_waits_for_the_device(fake_gpu, impl):
    case = dict(CASE, impl=impl, benchmark="foreach" if impl == "gluonlite" else None,
                hybridize_cell=False, hybridize_layer=True)
    res = runner.run_case(case, warmup=1, test=3)
    assert res["n"] == 3
    # warmup + test rounds, and the one round measuring allocations
    assert fake_gpu.stats["syncs"] == 1 + 3 + 1


def test_a_cpu_and_gpu_matrix_runs_both_with_their_own_floors(fake_gpu, monkeypatch, tmp_path,
                                                               capsys):
    monkeypatch.setattr(runner, "detect_gpus", lambda: (1, None))
    out = tmp_path / "out.jsonl"
    recipe = from_data({"benchmark": ["foreach"],
                        "matrix": {"cell": ["GRUCell"], "ctx": ["cpu", "gpu"], "seq_len": [3],
                                   "batch_size": [2], "hidden_dim": [4], "is_train": [True],
                                   "hybridize_cell": [False], "hybridize_layer": [True]},
                        "rounds": {"warmup": 1, "test": 2}, "baseline": "numpy",
                        "output": str(out)}, name="devices")
    assert cli.run_bench(recipe, progress=False) == 0
    recs = read_jsonl(out)
    assert sorted((r["impl"], r["ctx"]) for r in recs) == sorted(
        (impl, ctx) for ctx in ("cpu(0)", "gpu(0)")
        for impl in ("gluonlite", "floor-step", "floor-fused"))
    header, rows = summary.table_rows(recs)
    ratios = {row[3]: row[-2:] for row in rows if row[0] == "gluonlite"}
    assert all(x for x in ratios["gpu(0)"]) and all(x for x in ratios["cpu(0)"]), ratios
    assert "skipping ctx" not in capsys.readouterr().out


def test_a_gpu_entry_is_skipped_with_one_line_saying_why(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(runner, "detect_gpus", lambda: (0, "CuPy is not installed"))
    recipe = from_data({"benchmark": ["foreach"],
                        "matrix": {"cell": ["RNNCell"], "ctx": ["cpu", "gpu"], "seq_len": [2],
                                   "batch_size": [1], "hidden_dim": [3], "is_train": [False],
                                   "hybridize_cell": [False], "hybridize_layer": [False]},
                        "rounds": {"warmup": 0, "test": 1},
                        "output": str(tmp_path / "o.jsonl")}, name="skip")
    assert cli.run_bench(recipe, progress=False) == 0
    lines = [ln for ln in capsys.readouterr().out.splitlines() if "gpu" in ln]
    assert lines == ["skipping ctx gpu: CuPy is not installed"]
    assert {r["ctx"] for r in read_jsonl(tmp_path / "o.jsonl")} == {"cpu(0)"}
