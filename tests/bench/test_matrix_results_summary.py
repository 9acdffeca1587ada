"""Case expansion, results files (resume, partial lines), env record, summary tables."""
import json

import pytest

from gluonlite.bench import matrix, results, summary
from gluonlite.bench.recipe import from_data


def _data(**matrix_keys):
    m = dict(cell=["RNNCell"], ctx=["cpu"], seq_len=[3], batch_size=[2], hidden_dim=[4])
    m.update(matrix_keys)
    return from_data({"benchmark": ["foreach", "while_loop"], "matrix": m}).data


def test_expand_is_the_full_product_in_seed_order():
    cases, skipped = matrix.expand(_data(cell=["RNNCell", "GRUCell"], batch_size=[1, 32]))
    assert len(cases) == 2 * 2 * 2 * 2 * 2 * 2 and not skipped
    assert [c["benchmark"] for c in cases[:1]] == ["foreach"]
    first = cases[:8]
    assert [(c["is_train"], c["hybridize_cell"], c["hybridize_layer"]) for c in first] == [
        (t, hc, hl) for t in (True, False) for hc in (False, True) for hl in (False, True)]
    assert all(set(c) == set(matrix.KEY_FIELDS) for c in cases)
    assert len({matrix.case_key(c) for c in cases}) == len(cases)


def test_gpu_without_gpus_is_skipped_with_one_line():
    cases, skipped = matrix.expand(_data(ctx=["cpu", "gpu"]), 0, "CuPy is not installed")
    assert all(c["ctx"] == "cpu(0)" for c in cases)
    assert skipped == ["skipping ctx gpu: CuPy is not installed"]
    cases, skipped = matrix.expand(_data(ctx=["gpu", "gpu(3)"]), 2, None)
    assert sorted({c["ctx"] for c in cases}) == ["gpu(0)", "gpu(1)"]
    assert skipped == ["skipping ctx gpu(3): only 2 GPU(s) visible"]


def test_floor_cases_once_per_size_and_mode():
    data = dict(_data(is_train=[False, True]), baseline="numpy")
    cases, _ = matrix.expand(data)
    floors = [c for c in cases if c["impl"] != "gluonlite"]
    assert [(c["impl"], c["is_train"]) for c in floors] == [
        ("floor-step", False), ("floor-fused", False), ("floor-step", True), ("floor-fused", True)]
    assert cases.index(floors[-1]) < min(i for i, c in enumerate(cases) if c["impl"] == "gluonlite")


def test_results_file_resume_and_partial_line(tmp_path):
    path = tmp_path / "deep" / "er" / "r.jsonl"  # missing folders are created
    with results.ResultsFile(str(path)) as w:
        w.write({"impl": "gluonlite", "cell": "RNNCell", "mean": 1.0})
        w.write({"impl": "floor-step", "cell": "RNNCell", "mean": 0.5})
    with open(path, "a", encoding="utf-8") as f:
        f.write('{"impl": "gluonlite", "cell": "GRU')  # a hard kill mid-line
    with results.ResultsFile(str(path), resume=True) as w:
        assert len(w.records) == 2 and len(w.done) == 2
        w.write({"impl": "gluonlite", "cell": "LSTMCell", "mean": 2.0})
    recs, bad = results.read_records(str(path))
    assert [r["cell"] for r in recs] == ["RNNCell", "RNNCell", "LSTMCell"] and bad == 0
    with results.ResultsFile(str(path)) as w:  # without resume: start over
        assert w.records == []
    assert path.read_text() == ""


def test_unwritable_output_raises_output_error(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(results.OutputError, match="out.jsonl"):
        results.ResultsFile(str(tmp_path / "f" / "out.jsonl"))
    with pytest.raises(results.OutputError, match="folder"):
        results.check_writable(str(tmp_path))


def test_env_record_is_json():
    env = results.env_record()
    assert {"gluonlite", "numpy", "python", "blas", "threads", "cpu", "cpu_count"} <= set(env)
    json.dumps(env)


def test_stats_keep_the_rounds_and_quartiles():
    s = results.stats([1.0, 2.0, 6.0, 3.0])
    assert s == {"n": 4, "mean": 3.0, "std": pytest.approx(1.8708, abs=1e-4), "median": 2.5,
                 "q1": 1.75, "q3": 3.75, "min": 1.0, "max": 6.0, "times": [1.0, 2.0, 6.0, 3.0]}
    with pytest.raises(ValueError, match="at least one"):
        results.stats([])


def test_spread_of_old_records_falls_back_to_rounds_then_min_max():
    assert results.spread({"median": 2.0, "q1": 1.5, "q3": 3.0}) == (2.0, 1.5, 3.0)
    assert results.spread({"median": 2.0, "times": [1, 2, 3, 4, 5]}) == (2.0, 2.0, 4.0)
    assert results.spread({"mean": 2.0, "min": 1.0, "max": 9.0}) == (2.0, 1.0, 9.0)


def _rec(hc, hl, median, impl="gluonlite", ctx="cpu(0)", spread=0.01, mean=None):
    return {"impl": impl, "benchmark": None if impl != "gluonlite" else "foreach",
            "cell": "LSTMCell", "ctx": ctx, "seq_len": 3, "batch_size": 1, "hidden_dim": 4,
            "is_train": True, "hybridize_cell": hc, "hybridize_layer": hl,
            "mean": median if mean is None else mean, "std": 0.1, "median": median,
            "q1": median * (1 - spread), "q3": median * (1 + spread)}


def test_summary_speedup_and_floor_ratio():
    recs = [_rec(None, None, 1.0, "floor-step"), _rec(None, None, 0.5, "floor-fused"),
            _rec(False, False, 8.0), _rec(False, True, 2.0), _rec(False, True, 4.0, ctx="gpu(0)")]
    header, rows = summary.table_rows(recs)
    assert header[-3:] == ["speedup (>1 better)", "x floor-step (<1 better)",
                           "x floor-fused (<1 better)"]
    assert header[10:13] == ["median_ms", "q1_ms", "q3_ms"]
    hyb = rows[3]
    assert hyb[-3:] == ["4.000", "2.000", "4.000"]
    assert rows[4][-2:] == ["", ""]  # no floor ratio for a gpu case
    assert rows[0][-3:] == ["", "", ""]


@pytest.mark.parametrize("fmt", summary.FORMATS)
def test_summary_formats(fmt):
    text = summary.summarize([_rec(False, False, 8.0), _rec(True, True, 2.0)], fmt)
    lines = text.splitlines()
    assert "speedup" in lines[1 if fmt == "html" else 0]
    if fmt == "markdown":
        assert lines[0].startswith("| ") and lines[1].startswith("|---")
    if fmt == "csv":
        # the ratio, then `noisy` and `unreliable`
        assert lines[2].split(",")[-3:] == ["4.000", "", ""]
    if fmt == "html":
        assert lines[0] == "<table>" and lines[-1] == "</table>" and "<th>speedup" in lines[1]
    assert len(lines) == {"csv": 3, "html": 5}.get(fmt, 4)


def test_summary_rejects_unknown_format():
    with pytest.raises(ValueError, match="fmt must be one of"):
        summary.summarize([], "pdf")


def test_ratios_are_of_medians_not_means():
    # the case: one outlier round makes the mean ratio say "faster than the floor"
    recs = [_rec(None, None, 1.0, "floor-fused"), _rec(False, False, 3.0),
            _rec(False, True, 1.37, mean=0.43)]
    _, rows = summary.table_rows(recs)
    assert rows[2][-2:] == ["2.190", "1.370"]


def test_a_ratio_whose_spreads_straddle_one_is_marked_noisy():
    wide = [_rec(None, None, 1.0, "floor-step", spread=0.2), _rec(False, False, 1.1, spread=0.2),
            _rec(False, True, 1.05, spread=0.01)]
    _, rows = summary.table_rows(wide)
    # timed apart, spreads of 20%: the ratios could also be 1.5x apart, so also unreliable
    assert rows[1][-1] == "1.100~!" and rows[2][-2:] == ["1.048~!", "1.050~!"]
    tight = [_rec(None, None, 1.0, "floor-step"), _rec(False, False, 2.0), _rec(False, True, 1.5)]
    _, rows = summary.table_rows(tight)
    assert rows[2][-2:] == ["1.333", "1.500"] and summary.NOISY not in "".join(rows[1])
    header, rows = summary.table_rows(wide, marks=False)  # CSV: numbers, names in `noisy`
    assert header[-2:] == ["noisy", "unreliable"]
    assert rows[2][-4:] == ["1.048", "1.050", "speedup;x floor-step", "speedup;x floor-step"]
