"""The executor interface (local side), sweep expansion and files, and the summary per host
(in process; the Dask side runs end to end in test_dask.py)."""
import pytest

from benchutil import read_jsonl
from gluonlite.bench import summary, tasks
from gluonlite.bench.executors import LocalExecutor, Task
from gluonlite.bench.recipe import from_data
from gluonlite.bench.sweep import expand_runs, run_files, run_sweep


def _square(x, progress=None):
    if progress:
        progress(x)
    if x < 0:
        raise ValueError(f"negative: {x}")
    return x * x


def test_local_executor_runs_in_order_and_keeps_errors():
    seen, calls = [], []
    started = lambda t: (calls.append(t.key), seen.append)[1]  # noqa: E731
    out = list(LocalExecutor().run([Task(k, _square, (k,)) for k in (2, -1, 3)], started))
    assert [o.task.key for o in out] == [2, -1, 3] and calls == [2, -1, 3]
    assert [o.value for o in out] == [4, None, 9] and seen == [2, -1, 3]
    assert isinstance(out[1].error, ValueError) and "negative: -1" in str(out[1].error)
    assert out[0].error is None and out[2].error is None


def _train(**extra):
    return from_data(dict({"kind": "train", "task": "adding"}, **extra), name="sw")


def test_expand_runs_sets_each_combination():
    recipe = _train(sweep={"optimizer.lr": [0.1, 0.01], "model.loop": ["foreach", "unrolled"],
                           "model.hybridize_layer": [False]})
    runs = expand_runs(recipe.data)
    assert [t for t, _ in runs] == [
        "lr=0.1-loop=foreach-hybridize_layer=false", "lr=0.1-loop=unrolled-hybridize_layer=false",
        "lr=0.01-loop=foreach-hybridize_layer=false",
        "lr=0.01-loop=unrolled-hybridize_layer=false"]
    for tag, data in runs:
        lr, loop = tag.split("-")[0][3:], tag.split("-")[1][5:]
        assert data["optimizer"]["lr"] == float(lr) and data["model"]["loop"] == loop
        assert data["model"]["hybridize_layer"] is False and data["sweep"] is None
        assert data["model"]["cell"] == recipe.data["model"]["cell"]  # the rest unchanged
    assert recipe.data["optimizer"]["lr"] == 0.001  # the recipe itself is not changed


def test_expand_runs_uses_full_paths_when_leaves_collide():
    recipe = _train(sweep={"adding.seq_len": [5], "charlm.seq_len": [7, 9]})
    assert [t for t, _ in expand_runs(recipe.data)] == [
        "adding.seq_len=5-charlm.seq_len=7", "adding.seq_len=5-charlm.seq_len=9"]
    assert expand_runs(_train().data)[0][0] == ""


def test_run_files():
    data = _train(output="results/x.jsonl", sweep={"optimizer.lr": [0.1]}).data
    assert run_files(data, "sw", "lr=0.1") == ("results/x/lr=0.1.jsonl", "results/x/lr=0.1.params")
    data = _train(params_file="p/w.params", sweep={"optimizer.lr": [0.1]}).data
    assert run_files(data, "sw", "lr=0.1") == (None, "p/w/lr=0.1.params")
    data = _train(output="results/x.jsonl").data
    assert run_files(data, "sw", "") == ("results/x.jsonl", "results/x.params")


TINY_TRAIN = dict(model={"cell": "RNNCell", "hidden_size": 4},
                  adding={"seq_len": 3, "train_size": 16, "valid_size": 8}, epochs=2,
                  batch_size=8, sweep={"optimizer.lr": [0.01, 0.1]})


def test_local_sweep_writes_each_run_and_resume_skips_finished_ones(tmp_path, capsys):
    recipe = _train(output=str(tmp_path / "sw.jsonl"), **TINY_TRAIN)
    lines = []
    assert run_sweep(recipe, LocalExecutor(), progress=False, emit=lines.append) == 0
    assert len(lines) == 6
    first = tmp_path / "sw" / "lr=0.01.jsonl"
    recs = read_jsonl(first)
    assert [r.get("epoch") for r in recs] == [1, 2, None] and recs[-1]["run"] == "lr=0.01"
    assert (tmp_path / "sw" / "lr=0.1.params").stat().st_size > 0
    first.write_text("".join(first.read_text().splitlines(keepends=True)[:2]))  # cut short
    lines.clear()
    assert run_sweep(recipe, LocalExecutor(), resume=True, progress=False,
                     emit=lines.append) == 0
    assert "resuming: 1 of 2 runs already done" in capsys.readouterr().out
    assert len(lines) == 3 and [r.get("epoch") for r in read_jsonl(first)] == [1, 2, None]


def _failing_at(lr, error):
    """A stand-in for tasks.train_run that raises `error` for the run with learning rate
    `lr` and trains the others."""
    real = tasks.train_run

    def run(cfg, name, progress=None):
        if cfg["optimizer"]["lr"] == lr:
            raise error
        return real(cfg, name, progress)
    return run


def test_a_failed_run_is_reported_and_recorded_and_resume_runs_it_again(tmp_path, capsys,
                                                                          monkeypatch):
    recipe = _train(output=str(tmp_path / "sw.jsonl"), **TINY_TRAIN)
    real = tasks.train_run
    monkeypatch.setattr(tasks, "train_run", _failing_at(0.1, ValueError("diverged")))
    assert run_sweep(recipe, LocalExecutor(), progress=False, emit=[].append) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == ["gluonlite.bench: run failed (lr=0.1): ValueError: diverged",
                   "gluonlite.bench: 1 of 2 runs failed"]
    failed = tmp_path / "sw" / "lr=0.1.jsonl"
    assert read_jsonl(failed) == [{"failed": True, "run": "lr=0.1",
                                   "error": "ValueError: diverged"}]
    assert not (tmp_path / "sw" / "lr=0.1.params").exists()
    assert read_jsonl(tmp_path / "sw" / "lr=0.01.jsonl")[-1]["final"] is True
    monkeypatch.setattr(tasks, "train_run", real)
    assert run_sweep(recipe, LocalExecutor(), resume=True, progress=False,
                     emit=[].append) == 0
    assert "resuming: 1 of 2 runs already done" in capsys.readouterr().out
    assert [r.get("epoch") for r in read_jsonl(failed)] == [1, 2, None]
    assert (tmp_path / "sw" / "lr=0.1.params").stat().st_size > 0


def test_ctrl_c_in_a_sweep_keeps_the_runs_that_finished(tmp_path, capsys, monkeypatch):
    recipe = _train(output=str(tmp_path / "sw.jsonl"), **TINY_TRAIN)
    monkeypatch.setattr(tasks, "train_run", _failing_at(0.1, KeyboardInterrupt()))
    assert run_sweep(recipe, LocalExecutor(), progress=False, emit=[].append) == 130
    assert capsys.readouterr().err.splitlines() == [
        "gluonlite.bench: interrupted after 1 of 2 runs; their files are written, --resume "
        "runs the rest"]
    assert read_jsonl(tmp_path / "sw" / "lr=0.01.jsonl")[-1]["final"] is True
    assert not (tmp_path / "sw" / "lr=0.1.jsonl").exists()


def _rec(host, hyb, mean):
    return {"impl": "gluonlite", "benchmark": "foreach", "cell": "RNNCell", "ctx": "cpu(0)",
            "seq_len": 2, "batch_size": 1, "hidden_dim": 4, "is_train": False,
            "hybridize_cell": False, "hybridize_layer": hyb, "mean": mean, "std": 0.0,
            "env": {"host": host, "cpu": "CPU-" + host}}


def test_summary_groups_by_host_only_when_several_took_part():
    one = [_rec("a", False, 4.0), _rec("a", True, 2.0)]
    assert summary.summarize_by_host(one, "text") == summary.summarize(one, "text")
    two = one + [_rec("b", False, 9.0), _rec("b", True, 3.0)]
    text = summary.summarize_by_host(two, "text")
    assert "host a (CPU-a):" in text and "host b (CPU-b):" in text
    part_b = text.split("host b (CPU-b):\n")[1]
    assert part_b == summary.summarize(two[2:], "text")  # speedups within the host
    assert "3.000" in part_b and "2.000" in text.split("host b")[0]
    csv = summary.summarize_by_host(two, "csv").splitlines()
    assert csv[0].startswith("host,impl,") and len(csv) == 5
    assert [ln.split(",")[0] for ln in csv[1:]] == ["a", "a", "b", "b"]


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_summary_by_host_headings(fmt):
    two = [_rec("a", False, 1.0), _rec("b", False, 1.0)]
    assert summary.summarize_by_host(two, fmt).count("host ") == 2
