"""benchmarks/rnn_bound.py (issue 29) runs end to end in a tiny mode: one table line per
case with every row's ratio to the products, the target lines, the JSON of raw timings; and
its products-alone workload does the products it names. No timing is asserted."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks"


def _calls(calls):
    return [(f.__name__, out.shape[1]) for f, _, out in calls]


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
                               "gate floor (products + exp/tanh)",
                               "call floor (products + fewest calls)"} <= set(raw[0]["ms"])
    assert [c.strip() for c in rows[0].split("|")[-3:-1]] == [
        "gate floor (products + exp/tanh)", "call floor (products + fewest calls)"]
    # every missed target says how far each floor is from it
    over = [line for line in p.stdout.splitlines() if line.startswith("  - over:")]
    assert over and all("gate floor" in line and "call floor" in line for line in over)


def test_products_alone_compute_the_layer_products(bench_module):
    Products = bench_module("rnn_bound").Products
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


def test_gate_floor_makes_the_transcendental_calls_of_each_cell(bench_module):
    Products = bench_module("rnn_bound").Products
    H = 5
    for gates, want in [(1, [("tanh", H)]), (3, [("exp", 2 * H), ("tanh", H)]),
                        (4, [("exp", 4 * H), ("tanh", H)])]:
        P = Products(gates, 3, 2, 6, H, "transposed", floor="gate")
        assert _calls(P.calls) == want and P.back_calls == []
        P.call(False)()
        f, (a,), out = P.calls[-1]  # the step's last call computed its function
        assert np.shares_memory(a, P.step)  # of the step's product
        np.testing.assert_allclose(out, f(a), rtol=1e-6)
        assert Products(gates, 3, 2, 6, H, "transposed").calls == []


def test_call_floor_makes_the_fewest_calls_of_a_step_forward_and_reverse(bench_module):
    Products = bench_module("rnn_bound").Products
    H = 5
    want = {  # (forward, reverse) calls of one step
        1: ([("add", H), ("tanh", H)], [("add", H), ("multiply", H)]),
        3: ([("add", 2 * H), ("exp", 2 * H), ("add", 2 * H), ("divide", 2 * H),
             ("multiply", H), ("add", H), ("tanh", H), ("subtract", H), ("multiply", H),
             ("add", H)],
            [("add", H), ("multiply", 5 * H), ("add", H)]),
        4: ([("add", 4 * H), ("exp", 4 * H), ("add", 4 * H), ("divide", 4 * H),
             ("subtract", H), ("multiply", 2 * H), ("add", H), ("tanh", H),
             ("multiply", H)],
            [("add", H), ("multiply", H), ("add", H), ("multiply", 4 * H),
             ("multiply", H)]),
    }
    for gates, (forward, reverse) in want.items():
        P = Products(gates, 3, 2, 6, H, "transposed", floor="calls")
        assert (_calls(P.calls), _calls(P.back_calls)) == (forward, reverse)
        # the gate floor is the call floor's transcendental calls
        gate = Products(gates, 3, 2, 6, H, "transposed", floor="gate")
        assert _calls(gate.calls) == [c for c in forward if c[0] in ("exp", "tanh")]
        for mode, calls in ((False, P.calls), (True, P.back_calls)):
            P.call(mode)()
            f, args, out = calls[-1]  # the last call of a step computed its function
            np.testing.assert_allclose(out, f(*args), rtol=1e-6)
    with pytest.raises(ValueError, match="floor must be"):
        Products(4, 3, 2, 6, H, "transposed", floor="gates")


def test_target_lines_say_which_floor_stops_a_case(bench_module):
    rnn_bound = bench_module("rnn_bound")
    CALL_FLOOR, GATE_FLOOR, goal_lines = (rnn_bound.CALL_FLOOR, rnn_bound.GATE_FLOOR,
                                          rnn_bound.goal_lines)

    def case(layer, gate, calls):
        return ("products (transposed)", 1.0,
                {"gluonlite hybrid fused": (layer, layer, layer), GATE_FLOOR: (gate, 0, 0),
                 CALL_FLOOR: (calls, 0, 0)})
    lines = goal_lines({("LSTMCell", 32, "infer"): case(1.20, 1.12, 1.16),
                        ("GRUCell", 32, "infer"): case(1.25, 1.1004, 1.21),
                        ("RNNCell", 1, "train"): case(1.30, 1.02, 1.08),
                        ("RNNCell", 32, "train"): case(1.05, 1.01, 1.02)})
    assert lines[0].endswith("1/4 cases within")
    assert lines[1] == ("  - over: LSTMCell b32 infer hybrid fused 1.20 (target 1.10); gate floor "
                        "1.12, call floor 1.16 (gate floor above the target: no numpy form "
                        "reaches it)")
    # a floor printed equal to the target is not above it
    assert lines[2].endswith("call floor 1.21 (call floor above the target: no numpy form "
                             "reaches it)")
    assert lines[3].endswith("call floor 1.08, so 0.22 of the products' time is the layer's own")
    assert len(lines) == 4
