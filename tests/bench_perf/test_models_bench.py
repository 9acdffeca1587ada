"""benchmarks/models.py (issue 42): the models table runs end to end on its cheapest row,
its floor holds the products the graph has, and `report` re-renders a results file. No
timing is asserted."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.gluon import nn

ROOT = Path(__file__).resolve().parents[2]


def _run(*args):
    env = {k: v for k, v in os.environ.items()
           if k not in ("GLUONLITE_MXNET_PYTHON", "GLUONLITE_TORCH_PYTHON")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, str(ROOT / "benchmarks" / "models.py"), *args],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)


def test_cheapest_row_end_to_end_and_report(tmp_path):
    out = tmp_path / "r.jsonl"
    p = _run("--models", "dcgan_g", "--modes", "infer", "--batches", "1", "--rounds", "1",
             "--warmup", "0", "--no-mxnet", "--no-torch", "--ab", "nofuse",
             "--out", str(out))
    assert p.returncode == 0, p.stderr[-2000:]
    rows = [line for line in p.stdout.splitlines() if line.startswith("| dcgan_g")]
    assert len(rows) == 1 and "| infer | 1 |" in rows[0]
    case = json.loads(out.read_text())
    assert set(case["ms"]) == {"gluonlite", "nofuse", "floor"}
    r = _run("report", str(out))
    assert r.returncode == 0 and "nofuse/gl" in r.stdout and "| dcgan_g | infer | 1 |" in r.stdout
    out.write_text(out.read_text() + "not json\n")
    bad = _run("report", str(out))
    assert bad.returncode == 2 and ":2: not a case" in bad.stderr


def test_a_side_that_cannot_start_is_one_line(tmp_path):
    missing = str(tmp_path / "no-python")
    p = _run("--models", "dcgan_g", "--modes", "infer", "--batches", "1", "--rounds", "1",
             "--mxnet-python", missing, "--no-torch")
    assert p.returncode == 2
    assert "Traceback" not in p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and missing in lines[0] and "--mxnet-python" in lines[0]


@pytest.mark.parametrize("train", [False, True])
def test_floor_holds_the_graphs_products(bench_module, train):
    models = bench_module("models")
    net = nn.HybridSequential()
    net.add(nn.Conv2D(4, 3, padding=1), nn.BatchNorm(), nn.Activation("relu"),
            nn.Conv2D(4, 3, padding=1, groups=4), nn.Dense(5))
    net.initialize()
    x = mx.nd.array(np.ones((2, 3, 6, 6)))
    net.hybridize()
    net(x)
    floor = models._floor_of(net, [x], train, np.random.default_rng(0))
    shapes = [(a.shape, b.shape, reps) for a, b, _, reps in floor.calls]
    per = 3 if train else 1  # the forward product, and in training its two gradients
    assert len(shapes) == 3 * per
    assert ((1, 4, 27), (1, 27, 72), 1) in shapes        # W @ columns, one group
    assert ((4, 1, 9), (4, 9, 72), 1) in shapes          # depthwise: one product per channel
    assert ((2, 144), (144, 5), 1) in shapes             # Dense
    floor.run()
