"""`report`, `compare` and `--resume` on files holding lines that are not results: each bad
line is named with what is wrong, nothing is skipped in silence, and no internal error."""
import json

import pytest

from gluonlite.bench import cli, matrix
from gluonlite.bench.results import record_problem, stats

CASE = {"impl": "gluonlite", "benchmark": "foreach", "cell": "LSTMCell", "ctx": "cpu(0)",
        "seq_len": 3, "batch_size": 2, "hidden_dim": 4, "is_train": False,
        "hybridize_cell": False, "hybridize_layer": False}


def _result(median=1.0, **keys):
    r = dict(CASE, **keys)
    r.update(stats([median * 0.99, median, median * 1.01]), warmup=1, rounds=3, seed=0,
             env={"host": "box"})
    return r


def _file(path, *lines):
    path.write_text("".join((ln if isinstance(ln, str) else json.dumps(ln)) + "\n"
                            for ln in lines))
    return path


def _run(capsys, *argv):
    status = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


BAD = [
    ({"hello": "world"}, "not a bench result: no cell, ctx, seq_len, batch_size, hidden_dim, "
                         "is_train, benchmark, hybridize_cell, hybridize_layer"),
    (dict(_result(), median=None), "median is None, expected a time in ms"),
    (dict(_result(), seq_len="3"), "seq_len is '3', not a valid value"),
    (dict(_result(), q3=-1), "q3 is -1, expected a time in ms"),
    ("[1, 2]", "a JSON list, not an object"),
    ("{cut", "not JSON"),
]


@pytest.mark.parametrize("line, why", BAD)
def test_record_problem_says_what_is_wrong(line, why):
    if isinstance(line, dict):
        assert record_problem(line) == why
    assert record_problem(_result()) is None
    assert record_problem(dict(_result(), failed=True, median=None)) is None


def test_report_and_compare_name_each_bad_line(tmp_path, capsys):
    good = [_result(hybridize_layer=hl, median=m) for hl, m in ((False, 2.0), (True, 1.0))]
    a = _file(tmp_path / "a.jsonl", good[0], *[ln for ln, _ in BAD], good[1])
    b = _file(tmp_path / "b.jsonl", *good)
    for argv in (("report", a), ("compare", a, b), ("compare", b, a)):
        status, out, err = _run(capsys, *argv)
        assert status == 0, err
        for k, (_, why) in enumerate(BAD, 2):
            assert f"gluonlite.bench: warning: {a} line {k}: {why}; skipped" in err
        assert "internal error" not in err
    status, out, _ = _run(capsys, "report", a)
    assert out.count("foreach") == 2  # the two results, in the table


@pytest.mark.parametrize("command", ["report", "compare"])
def test_a_file_of_non_results_is_an_error_not_an_empty_table(tmp_path, capsys, command):
    junk = _file(tmp_path / "junk.jsonl", {"a": 1}, {"b": 2})
    good = _file(tmp_path / "good.jsonl", _result())
    argv = (command, junk) if command == "report" else (command, good, junk)
    status, out, err = _run(capsys, *argv)
    assert status == 2 and out == ""
    assert err.strip().splitlines()[-1] == (
        f"gluonlite.bench {command}: error: {junk} holds no results (2 line(s), none a result)")


def test_resume_over_a_line_that_is_not_a_result_names_the_line(tmp_path, capsys):
    recipe = tmp_path / "r.yaml"
    recipe.write_text("benchmark: foreach\nmatrix: {cell: [LSTMCell], ctx: [cpu], seq_len: [3], "
                      "batch_size: [2], hidden_dim: [4], is_train: [false], hybridize_cell: "
                      "[false], hybridize_layer: [false]}\nrounds: {warmup: 1, test: 3}\n")
    out = tmp_path / "out.jsonl"
    _file(out, {"note": "made by hand"}, dict(_result(), median=None))
    calls = []

    def run_case(case, warmup, test, seed, progress):
        calls.append(case)
        return dict(stats([1.0, 1.0, 1.0]), unit="ms", warmup=warmup, rounds=test)
    status = cli.main(["--recipe", str(recipe), "--out", str(out), "--resume"],
                      run_case=run_case)
    err = capsys.readouterr().err
    assert status == 0, err  # not "holds results made with other settings"
    assert f"{out} line 1: not a bench result: no cell" in err
    assert f"{out} line 2: median is None, expected a time in ms; moved it to {out}.rejected" \
        in err
    assert len(calls) == 1
    recs = [json.loads(ln) for ln in out.read_text().splitlines()]
    assert [matrix.case_key(r) for r in recs] == [matrix.case_key(dict(CASE))]
    assert len((tmp_path / "out.jsonl.rejected").read_text().splitlines()) == 2


@pytest.mark.parametrize("edit, why", [
    ({"benchmark": []}, "benchmark is [], not a valid value"),          # found by the fuzzer
    ({"hybridize_layer": "yes"}, "hybridize_layer is 'yes', not a valid value"),
    ({"seed": [1]}, "seed is [1], not a valid value"),
    ({"env": "box"}, "env is 'box', not a valid value"),
])
def test_fields_of_the_wrong_type_are_named(tmp_path, capsys, edit, why):
    path = _file(tmp_path / "a.jsonl", _result(), dict(_result(hybridize_layer=True), **edit))
    status, out, err = _run(capsys, "report", path)
    assert status == 0 and f"{path} line 2: {why}; skipped" in err


def test_odd_environment_records_do_not_break_the_header(tmp_path, capsys):
    a = _file(tmp_path / "a.jsonl", dict(_result(), env={"host": ["x"], "commit": 5,
                                                         "threads": "none"}))
    b = _file(tmp_path / "b.jsonl", _result())
    status, out, err = _run(capsys, "compare", a, b)
    assert status == 0, err
    assert "differs: host" in out
