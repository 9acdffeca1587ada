"""Train recipes: data generation (numpy only) and tiny end-to-end runs (need the core)."""
import json
import math

import numpy as np

from benchutil import read_jsonl, run_cli
from gluonlite.bench import train


def test_adding_problem():
    x, y = train.adding_problem(64, 10, np.random.default_rng(0))
    assert x.shape == (10, 64, 2) and y.shape == (64, 1) and x.dtype == np.float32
    marks = x[:, :, 1]
    assert np.all(marks.sum(axis=0) == 2)
    assert np.all(marks[:5].sum(axis=0) == 1)  # one mark in each half
    np.testing.assert_allclose((x[:, :, 0] * marks).sum(axis=0), y[:, 0], rtol=1e-6)


def test_stdlib_text_and_windows():
    text = train.stdlib_text(5000)
    assert 1000 < len(text) <= 5000 and "def " in text + "import"
    ids = train.encode_text(text)
    assert ids.max() <= len(train.VOCAB) and ids.min() >= 0
    x, y = train.char_windows(ids, 16)
    assert x.shape == y.shape and x.shape[0] == 16
    np.testing.assert_array_equal(x[1:, 0], y[:-1, 0])
    assert x[0, 1] == ids[16]


def _final(proc):
    lines = [json.loads(ln) for ln in proc.stdout.splitlines() if ln.startswith("{")]
    assert lines and lines[-1]["final"] is True
    return lines[:-1], lines[-1]


def test_tiny_adding_recipe_loss_falls(tmp_path, write_recipe):
    recipe = write_recipe("t.yaml", """
        kind: train
        task: adding
        model: {cell: LSTMCell, loop: foreach, hidden_size: 16}
        adding: {seq_len: 6, train_size: 256, valid_size: 64}
        optimizer: {name: adam, lr: 0.02}
        epochs: 4
        batch_size: 32
        output: results/t.jsonl
        """)
    proc = run_cli("--recipe", recipe, cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    epochs, final = _final(proc)
    assert [e["epoch"] for e in epochs] == [1, 2, 3, 4]
    assert epochs[-1]["train_loss"] < epochs[0]["train_loss"]
    assert final["metric"] == "valid_mse" and final["value"] == epochs[-1]["valid_mse"]
    assert (tmp_path / "results" / "t.params").stat().st_size > 0
    assert read_jsonl(tmp_path / "results" / "t.jsonl")[-1] == final


def test_tiny_charlm_recipe_runs(tmp_path, write_recipe):
    recipe = write_recipe("c.yaml", """
        kind: train
        task: charlm
        model: {cell: GRUCell, loop: while_loop, hidden_size: 16, embed_size: 8}
        charlm: {seq_len: 8, max_bytes: 4000, max_batches: 6}
        optimizer: {name: adam, lr: 0.02}
        epochs: 3
        batch_size: 16
        output: out/c.jsonl
        target: 100
        """)
    proc = run_cli("--recipe", recipe, cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    epochs, final = _final(proc)
    assert epochs[-1]["train_loss"] < epochs[0]["train_loss"]
    assert final["metric"] == "valid_bpc" and math.isfinite(final["value"])
    assert final["passed"] is True
