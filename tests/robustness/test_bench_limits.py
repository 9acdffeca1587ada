"""A recipe too large for this machine is refused before it starts; ratios to the floor come
from rounds timed together, and ratios of cases timed apart say when they cannot be trusted."""
import pytest

from gluonlite.bench import memory, runner, summary
from gluonlite.bench.recipe import from_data
from probe_cli import run_cli

# processes, files and text only: .ci/run's numpy 1.23 suite leaves it to the numpy 2 one
pytestmark = pytest.mark.numpy_agnostic


def test_a_huge_seq_len_is_refused_before_any_case_starts(tmp_path):
    recipe = tmp_path / "big.yaml"
    recipe.write_text("benchmark: foreach\nmatrix: {cell: [RNNCell], ctx: [cpu], seq_len: "
                      "[100000000], batch_size: [1], hidden_dim: [512]}\n"
                      "rounds: {warmup: 0, test: 1}\n")
    status, out, err = run_cli("--recipe", recipe, "--out", tmp_path / "o.jsonl", cwd=tmp_path)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"gluonlite.bench: error: {recipe}: matrix: "
                                                   "the case foreach RNNCell cpu(0) "
                                                   "T=100000000 N=1 H=512")
    assert "train hyb=-: needs at least 1144.4 GiB" in err  # the largest case: training
    assert "expected a smaller seq_len" in err
    assert not (tmp_path / "o.jsonl").exists()


def test_the_estimate_is_a_lower_bound_that_passes_real_sizes():
    case = {"impl": "gluonlite", "benchmark": "foreach", "cell": "LSTMCell", "ctx": "cpu(0)",
            "seq_len": 100, "batch_size": 32, "hidden_dim": 512, "is_train": True,
            "hybridize_cell": False, "hybridize_layer": False}
    assert memory.case_bytes(case) == 100 * 32 * 512 * (8 + 4 + 4 + 8)
    memory.check_cases([case], available=1 << 30)
    with pytest.raises(memory.MemoryEstimateError, match=r"needs at least 0\.0 GiB .* but "
                                                         r"0\.0 GiB is available"):
        memory.check_cases([case], available=1000)


def test_a_train_recipe_with_a_huge_adding_task_is_refused():
    cfg = from_data({"kind": "train", "task": "adding",
                     "adding": {"seq_len": 10_000_000, "train_size": 100_000}}).data
    with pytest.raises(memory.MemoryEstimateError, match=r"adding: 100500 sequences of seq_len "
                                                         r"10000000 need at least"):
        memory.check_train(cfg, available=16 << 30)


def test_floors_are_timed_in_the_cases_rounds():
    case = {"impl": "gluonlite", "benchmark": "foreach", "cell": "GRUCell", "ctx": "cpu(0)",
            "seq_len": 3, "batch_size": 1, "hidden_dim": 4, "is_train": True,
            "hybridize_cell": False, "hybridize_layer": False}
    res = runner.run_case(case, 1, 4, floors=("floor-step", "floor-fused"))
    assert res["n"] == 4 and sorted(res["interleaved"]) == ["floor-fused", "floor-step"]
    for timing in res["interleaved"].values():
        assert timing["n"] == 4 and len(timing["times"]) == 4 and timing["median"] > 0
    order = []
    steps = [(lambda k=k: order.append(k), None) for k in range(3)]
    runner.time_interleaved(steps, 0, 3)
    assert order == [0, 1, 2, 1, 2, 0, 2, 0, 1]  # every step first in turn


def _rec(median, spread=0.01, hl=False, impl="gluonlite", floor=None):
    r = {"impl": impl, "benchmark": "foreach" if impl == "gluonlite" else None,
         "cell": "LSTMCell", "ctx": "cpu(0)", "seq_len": 3, "batch_size": 1, "hidden_dim": 4,
         "is_train": True, "hybridize_cell": False if impl == "gluonlite" else None,
         "hybridize_layer": hl if impl == "gluonlite" else None, "median": median,
         "q1": median * (1 - spread), "q3": median * (1 + spread)}
    if floor is not None:
        r["interleaved"] = {"floor-step": {"n": 5, "median": floor, "q1": floor * 0.99,
                                           "q3": floor * 1.01}}
    return r


def test_the_floor_ratio_uses_the_floor_timed_with_the_case():
    # the floor case ran minutes before under another load (10.0); in the case's own rounds
    # the floor took 2.0: the ratio is 4 / 2, not 4 / 10
    recs = [_rec(10.0, impl="floor-step"), _rec(8.0, floor=2.0), _rec(4.0, hl=True, floor=2.0)]
    _, rows = summary.table_rows(recs)
    assert rows[2][-2:] == ["2.000", "2.000"]  # speedup 8 / 4, x floor-step 4 / 2
    assert summary.UNRELIABLE not in "".join(rows[2])


def test_a_speedup_is_unreliable_when_the_load_changed_between_its_cases():
    # the floor timed with the imperative case took 2.0, with the hybridized one 3.0
    recs = [_rec(8.0, floor=2.0), _rec(4.0, hl=True, floor=3.0)]
    header, rows = summary.table_rows(recs)
    assert rows[1][-2:] == ["2.000!", "1.333"]
    text = summary.summarize(recs, "text")
    assert summary.legends(text, "text") == [summary.UNRELIABLE_LEGEND]
    csv_text = summary.summarize(recs, "csv")
    assert csv_text.splitlines()[2].endswith(",2.000,1.333,,speedup")
    assert summary.legends(csv_text, "csv") == [summary.UNRELIABLE_LEGEND]


def test_ratios_of_cases_timed_apart_with_wide_spreads_are_unreliable():
    apart = [_rec(1.0, impl="floor-step", spread=0.3), _rec(3.0, spread=0.3),
             _rec(2.0, hl=True, spread=0.01)]
    _, rows = summary.table_rows(apart)
    assert rows[2][-2:] == ["1.500!", "2.000!"]
    tight = [_rec(1.0, impl="floor-step"), _rec(3.0), _rec(2.0, hl=True)]
    _, rows = summary.table_rows(tight)
    assert rows[2][-2:] == ["1.500", "2.000"]
