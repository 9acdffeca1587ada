"""benchmarks/gpu/: the seed rows' variants on fake_gpu (the plumbing and the checks; timings
mean something on a GPU only), and the report made from rows."""
import importlib.util
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _load(name):
    spec = importlib.util.spec_from_file_location(
        name, os.path.join(ROOT, "benchmarks", "gpu", f"{name}.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_seed_rows_time_every_variant_and_check_them_against_plain(fake_gpu, tmp_path):
    out = tmp_path / "seed_rows.jsonl"
    assert _load("seed_rows").main(["--out", str(out), "--seq-len", "3", "--hidden", "4",
                                    "--rounds", "1", "--warmup", "0", "--cells", "LSTM,GRU",
                                    "--batches", "2", "--modes", "train"]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert {(r["cell"], r["layer"], r["variant"]) for r in rows} == {
        (c, lay, v) for c in ("LSTM", "GRU") for lay in ("foreach", "while_loop", "rnn")
        for v in ("plain", "fused", "graphs", "fused+graphs")}
    assert all(r["max_rel_err"] < 1e-5 and r["median"] > 0 and r["ctx"] == "gpu(0)"
               for r in rows)
    assert fake_gpu.stats["graph_launches"] > 0 and fake_gpu.stats["fused"] > 0


def test_the_report_has_the_suite_the_matrix_and_the_threads(tmp_path):
    def row(**kw):
        return json.dumps(dict(kw, seq_len=3, hidden=4, ctx="gpu(0)", times=[kw["median"]]))
    lines = [row(impl="gluonlite", layer=lay, variant=v, cell="LSTM", batch=1, mode="train",
                 median=m, max_rel_err=1e-7)
             for lay in ("rnn", "foreach", "while_loop")
             for v, m in (("plain", 8.0), ("fused", 4.0), ("graphs", 2.0), ("fused+graphs", 1.0))]
    (tmp_path / "seed_rows.jsonl").write_text("\n".join(lines) + "\n")
    (tmp_path / "torch_rows.jsonl").write_text("\n".join([
        row(impl="pytorch", layer="cudnn layer", variant="cudnn layer", cell="LSTM", batch=1,
            mode="train", median=0.5),
        row(impl="pytorch", layer="eager cell loop", variant="eager cell loop", cell="LSTM",
            batch=1, mode="train", median=2.0),
        json.dumps({"impl": "pytorch", "layer": "graphed cell loop", "cell": "LSTM",
                    "variant": "graphed cell loop", "batch": 1, "mode": "train",
                    "skipped": "CUDA graphs need a CUDA device"})]) + "\n")
    (tmp_path / "thread_rows.jsonl").write_text("\n".join(
        json.dumps({"threads": t, "impl": "gluonlite", "row": "RNN", "variant": "loop",
                    "mode": "train", "median": 10.0 / t, "batch": 4, "seq_len": 3,
                    "hidden": 4, "cpu_count": 2}) for t in (1, 2)) + "\n")
    (tmp_path / "gpu_tests.log").write_text("....\n1333 passed, 37 skipped in 40.0s\n")
    assert _load("report").main([str(tmp_path)]) == 0
    text = (tmp_path / "report.md").read_text()
    assert "1333 passed, 37 skipped" in text
    assert "| LSTM | 1 | train | 8.00 | 1.00 | 8.00 | 1.00 | 8.00 | 1.00 | 0.50 | 2.00 | " \
           "skipped: CUDA graphs need a CUDA device | 2.00 | 0.50 |" in text
    assert "| foreach | fused+graphs | 8.00 | 8.00 - 8.00 | 1 |" in text
    assert "| RNN | gluonlite | loop | train | 10.0 | 5.0 | 2.00 |" in text


def test_the_report_needs_its_folder(tmp_path, capsys):
    assert _load("report").main([str(tmp_path / "missing")]) == 2
    assert "usage: report.py DIR" in capsys.readouterr().err
