"""`report` re-renders a results file, `compare` tells two runs apart with a rank test,
and the charts draw what the files hold (read back from the figures)."""
import csv
import io
import json
import os

import pytest

from gluonlite.bench import cli, plot, report

# processes, files and text only: .ci/run's numpy 1.23 suite leaves it to the numpy 2 one
pytestmark = pytest.mark.numpy_agnostic

CASE = {"impl": "gluonlite", "benchmark": "foreach", "cell": "LSTMCell", "ctx": "cpu(0)",
        "seq_len": 10, "batch_size": 1, "hidden_dim": 8, "is_train": False,
        "hybridize_cell": False, "hybridize_layer": False}


def _rec(times, env=None, **keys):
    from gluonlite.bench.results import stats
    r = dict(CASE, **keys)
    r.update(stats(times), unit="ms", warmup=1, rounds=len(times), seed=0, recipe="t",
             env=dict({"host": "box", "cpu": "cpu A", "cpu_count": 2, "commit": "a" * 40},
                      **(env or {})))
    return r


def _write(path, records, garbage=False):
    lines = [json.dumps(r) for r in records]
    if garbage:
        lines.insert(1, "garbage {")
    path.write_text("\n".join(lines) + "\n")
    return path


def _matrix(scale=1.0, env=None):
    """A small bench file: imperative and hybridized layer, both loops, two batch sizes,
    train and infer, and the floors."""
    out = []
    for batch in (1, 16):
        for mode in (False, True):
            base = 4.0 * batch ** 0.5 * (2 if mode else 1)
            for impl in ("floor-step", "floor-fused"):
                f = 1.0 if impl == "floor-step" else 0.5
                out.append(_rec([base * f * k for k in (0.99, 1.0, 1.01)], env, impl=impl,
                                benchmark=None, batch_size=batch, is_train=mode,
                                hybridize_cell=None, hybridize_layer=None))
            for bench in ("foreach", "while_loop"):
                for hl in (False, True):
                    m = base * (0.5 if hl else 1.0) * (1.2 if bench == "while_loop" else 1.0)
                    m *= scale
                    out.append(_rec([m * k for k in (0.98, 0.99, 1.0, 1.01, 1.02)], env,
                                    benchmark=bench, batch_size=batch, is_train=mode,
                                    hybridize_layer=hl))
    return out


def _run(capsys, *argv):
    status = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_report_renders_a_file_in_every_format(tmp_path, capsys):
    path = _write(tmp_path / "r.jsonl", _matrix(), garbage=True)
    before = path.read_text()
    status, out, err = _run(capsys, "report", path)
    assert status == 0 and "speedup (>1 better)" in out and "median_ms" in out
    assert f"warning: {path} line 2: not JSON; skipped" in err
    assert path.read_text() == before  # report changes nothing
    status, out, err = _run(capsys, "report", path, "--format", "csv")
    rows = list(csv.reader(io.StringIO(out)))
    assert status == 0 and len(rows) == 1 + 24 and rows[0][10] == "median_ms"
    hyb = next(r for r in rows if r[1] == "foreach" and r[5] == "1" and r[7] == "infer"
               and r[9] == "True")
    assert float(hyb[13]) == pytest.approx(2.0, abs=1e-3)  # speedup: 4 / 2
    assert float(hyb[14]) == pytest.approx(0.5, abs=1e-3)  # x floor-step: 2 / 4
    status, out, _ = _run(capsys, "report", path, "--format", "html")
    assert out.startswith("<table>") and out.rstrip().endswith("</table>")
    status, out, _ = _run(capsys, "report", path, "--format", "markdown")
    assert [ln for ln in out.splitlines() if ln.startswith("| ")][0].startswith(
        "| impl | benchmark |")


def test_report_of_a_train_file(tmp_path, capsys):
    recs = [{"epoch": e, "train_loss": 1.0 / e, "train_mse": 2.0 / e, "valid_mse": 2.5 / e,
             "time_s": 1.0} for e in (1, 2, 3)]
    recs.append({"final": True, "metric": "valid_mse", "value": 2.5 / 3, "target": 1.0,
                 "passed": True})
    path = _write(tmp_path / "t.jsonl", recs)
    status, out, err = _run(capsys, "report", path, "--format", "csv")
    rows = list(csv.reader(io.StringIO(out)))
    assert status == 0 and rows[0] == ["epoch", "train_loss", "train_mse", "valid_mse",
                                       "time_s"]
    assert [r[0] for r in rows[1:]] == ["1", "2", "3"]
    assert "final: valid_mse = 0.833333 (target 1.0, passed True)" in err


@pytest.mark.parametrize("argv, message", [
    (["report", "missing.jsonl"], "no results file at missing.jsonl"),
    (["report", "."], ". is a folder"),
    (["report"], "the following arguments are required: FILE.jsonl"),
    (["compare", "a.jsonl"], "the following arguments are required: B.jsonl"),
])
def test_report_and_compare_usage_errors_are_one_line(tmp_path, capsys, monkeypatch, argv,
                                                      message):
    monkeypatch.chdir(tmp_path)
    status, _, err = _run(capsys, *argv)
    assert status == 2 and len(err.strip().splitlines()) == 1 and message in err


def test_compare_finds_the_slower_cases_and_names_what_differs(tmp_path, capsys):
    a = _write(tmp_path / "a.jsonl", _matrix())
    slower = _matrix(env={"host": "other", "commit": "b" * 40})
    for r in slower:
        if r.get("benchmark") == "while_loop" and r["hybridize_layer"]:
            r["times"] = [t * 1.5 for t in r["times"]]
            r["median"], r["q1"], r["q3"] = r["median"] * 1.5, r["q1"] * 1.5, r["q3"] * 1.5
    b = _write(tmp_path / "b.jsonl", slower)
    status, out, err = _run(capsys, "compare", a, b)
    assert status == 0
    assert "differs: host: A box; B other" in out
    assert "differs: commit: A aaaaaaaaaaaa; B bbbbbbbbbbbb" in out
    slow = [ln for ln in out.splitlines() if ln.rstrip().endswith("slower")]
    assert len(slow) == 4 and all("while_loop" in ln and "hyb=L" in ln for ln in slow)
    assert all(" 1.500 " in ln for ln in slow)
    assert "24 cases: 0 faster, 4 slower, 20 within noise" in out
    assert ("control: the 8 numpy floor cases (code that does not change) have B/A "
            "1.000..1.000 (geometric mean 1.000; 0 marked faster or slower)") in out
    status, _, err = _run(capsys, "compare", a, b, "--fail-slower", "1.4")
    assert status == 1 and err.count("slower: while_loop") == 4
    assert _run(capsys, "compare", a, b, "--fail-slower", "1.6")[0] == 0
    status, out, _ = _run(capsys, "compare", a, b, "--format", "csv")
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == list(report.COMPARE_FIELDS) and len(rows) == 25


def test_compare_p_values_come_from_the_rank_test():
    from scipy.stats import mannwhitneyu
    ta, tb = [1.0, 1.1, 0.9, 1.05, 0.95], [1.3, 1.4, 1.2, 1.35, 1.25]
    rows, only_a, only_b = report.compare_records([_rec(ta)], [_rec(tb)])
    assert rows[0]["p"] == pytest.approx(mannwhitneyu(ta, tb, alternative="two-sided").pvalue)
    assert rows[0]["verdict"] == "slower" and not only_a and not only_b
    # overlapping rounds: within noise, whatever the medians say
    rows, _, _ = report.compare_records([_rec([1.0, 1.2, 0.8, 1.1, 0.9])],
                                        [_rec([1.05, 1.25, 0.85, 1.15, 0.95])])
    assert rows[0]["verdict"] == "within noise"
    rows, only_a, only_b = report.compare_records([_rec(ta)], [_rec(tb, cell="GRUCell")])
    assert rows == [] and len(only_a) == 1 and len(only_b) == 1


def _heights(container):
    return [round(bar.get_height(), 6) for bar in container]


def _bar_sets(ax):
    from matplotlib.container import BarContainer
    return [c for c in ax.containers if isinstance(c, BarContainer)]


def test_speedup_and_floor_bars_hold_the_ratios_of_medians():
    fig, series = plot.speedup_figure(_matrix())
    assert sorted(series) == ["foreach hyb=L", "while_loop hyb=L"]
    ax = fig.axes[0]
    groups = [t.get_text() for t in ax.get_xticklabels()]
    assert groups == ["LSTM N=1\ninfer", "LSTM N=1\ntrain", "LSTM N=16\ninfer",
                      "LSTM N=16\ntrain"]
    bars = _bar_sets(ax)
    assert _heights(bars[0]) == [2.0] * 4 and _heights(bars[1]) == [2.0] * 4
    assert "higher is better" in ax.get_ylabel()
    fig, series = plot.floor_figure(_matrix())
    ax = fig.axes[0]
    assert "floor-fused" in ax.get_ylabel() and "lower is better" in ax.get_ylabel()
    # foreach imperative: base / (0.5 base) = 2; while_loop hybridized: 0.6 / 0.5 = 1.2
    named = {c.get_label(): c for c in _bar_sets(ax)}
    assert _heights(named["foreach hyb=-"]) == [2.0] * 4
    assert _heights(named["while_loop hyb=L"]) == [1.2] * 4
    # the spread drawn: error bars from the interquartile ranges, around the bar
    low, high = series["while_loop hyb=L"]["LSTM N=1\ninfer"][1:]
    assert low < 1.2 < high


def test_scaling_and_train_charts():
    recs = [_rec([float(t) * 0.1] * 3, seq_len=t) for t in (10, 30, 100)]
    recs += [_rec([float(t) * 0.05] * 3, seq_len=t, hybridize_layer=True) for t in (10, 30, 100)]
    fig, lines = plot.scaling_figure(recs)
    assert lines[("infer", "LSTMCell foreach hyb=- N=1")] == [(10, 0.1), (30, 0.1), (100, 0.1)]
    ax = fig.axes[0]
    assert sorted(round(y, 6) for line in ax.get_lines() for y in line.get_ydata()) == \
        [0.05] * 3 + [0.1] * 3
    epochs = [{"epoch": e, "train_loss": 1.0 / e, "valid_mse": 0.5 / e} for e in (1, 2, 3)]
    fig, curves = plot.train_figure(epochs)
    assert [ax.get_ylabel() for ax in fig.axes] == ["train_loss (lower is better)",
                                                    "valid_mse (lower is better)"]
    assert list(fig.axes[1].get_lines()[0].get_ydata()) == [0.5, 0.25, 0.5 / 3]


def test_plot_writes_png_and_svg_beside_and_says_what_is_missing(tmp_path, capsys,
                                                                  monkeypatch):
    path = _write(tmp_path / "quick.jsonl", _matrix())
    status, _, err = _run(capsys, "report", path, "--plot", tmp_path / "charts")
    assert status == 0
    names = sorted(os.listdir(tmp_path / "charts"))
    assert names == ["quick-floor.png", "quick-floor.svg", "quick-speedup.png",
                     "quick-speedup.svg"]
    assert (tmp_path / "charts" / "quick-speedup.png").read_bytes()[:4] == b"\x89PNG"
    assert "<svg" in (tmp_path / "charts" / "quick-floor.svg").read_text()[:500]
    assert f"chart: {tmp_path / 'charts' / 'quick-speedup.png'}" in err
    import builtins
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError("No module named 'matplotlib'")
        return real_import(name, *args, **kwargs)
    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    status, _, err = _run(capsys, "report", path, "--plot", tmp_path / "none")
    assert status == 2 and "pip install 'gluonlite[plot]'" in err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "none").exists()
