"""benchmarks/rnn_bound.py (issue 29) runs end to end in a tiny mode: one table line per
case with every row's ratio to the products, the target lines, the JSON of raw timings; and
its products-alone workload does the products it names. No timing is asserted."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks"


def test_rnn_bound_tiny_prints_the_table_and_the_targets(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "GLUONLITE_TORCH_PYTHON"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    out_json = tmp_path / "t.json"
    p = subprocess.run([sys.executable, str(BENCH / "rnn_bound.py"), "--seq-len", "3",
                        "--input-size", "4", "--hidden-size", "5", "--batches", "1,2",
                        "--rounds", "1", "--warmup", "0", "--json", str(out_json)],
                       capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert p.returncode == 0, p.stderr
    table = p.stdout[p.stdout.index("| case |"):]
    rows = [line for line in table.splitlines() if line.startswith("| ")]
    assert rows[0].split("|")[3:6] == [" hybrid fused ", " hybrid foreach ",
                                       " hybrid while_loop "]
    cases = [r.split("|")[1].strip() for r in rows[1:]]
    assert cases == [f"{c} b{n} {m}" for c in ("RNN", "GRU", "LSTM") for n in (1, 2)
                     for m in ("infer", "train")]
    assert "targets (layer / products <= 1.10" in p.stdout and "cpu clock" in p.stdout
    raw = json.loads(out_json.read_text())
    assert len(raw) == 12 and {"products (stored)", "products (transposed)",
                               "gluonlite hybrid fused", "floor-fused",
                               "gate floor (products + exp/tanh)"} <= set(raw[0]["ms"])
    assert rows[0].split("|")[-2].strip() == "gate floor (products + exp/tanh)"
    # every missed target says how far the gate floor is from it
    over = [line for line in p.stdout.splitlines() if line.startswith("  - over:")]
    assert over and all("gate floor" in line for line in over)


def test_products_alone_compute_the_layer_products():
    sys.path.insert(0, str(BENCH))
    try:
        from rnn_bound import Products
    finally:
        sys.path.remove(str(BENCH))
    for layout in ("stored", "transposed"):
        P = Products(4, 3, 2, 6, 5, layout)
        P.call(True)()
        T, N, ni, H, G = P.shape
        np.testing.assert_allclose(P.g, P.x @ P.wx.T, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(P.step, P.hs[T - 1] @ P.wh.T, rtol=1e-5, atol=1e-6)
        dG = P.dG.reshape(T * N, G)
        np.testing.assert_allclose(P.dh, P.dG[0] @ P.wh, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(P.dwx, dG.T @ P.x, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(P.dwh, dG.T @ P.hs[:T].reshape(T * N, H), rtol=1e-5,
                                   atol=1e-6)
        np.testing.assert_allclose(P.dx, dG @ P.wx, rtol=1e-5, atol=1e-6)


def test_gate_floor_makes_the_transcendental_calls_of_each_cell():
    sys.path.insert(0, str(BENCH))
    try:
        from rnn_bound import Products
    finally:
        sys.path.remove(str(BENCH))
    H = 5
    for gates, want in [(1, [("tanh", H)]), (3, [("exp", 2 * H), ("tanh", H)]),
                        (4, [("exp", 4 * H), ("tanh", H)])]:
        P = Products(gates, 3, 2, 6, H, "transposed", transcendentals=True)
        assert [(f.__name__, a.shape[1]) for f, a, _ in P.calls] == want
        P.call(False)()
        for f, a, out in P.calls:  # each call computed its function of the last product
            np.testing.assert_allclose(out, f(a), rtol=1e-6)
        assert Products(gates, 3, 2, 6, H, "transposed").calls == []
