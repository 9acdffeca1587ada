"""The issue-8 benchmark scripts run end to end in a tiny mode and print their tables.

No timing is asserted: only that each script exits 0 and prints the Markdown tables with
the rows and columns it promises, and that the floor check aborts on a mismatch.
"""
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

# processes, files and text only: .ci/run's numpy 1.23 suite leaves it to the numpy 2 one
pytestmark = pytest.mark.numpy_agnostic

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks"


def _run(script, *args, env_extra=None):
    env = {k: v for k, v in os.environ.items()
           if k not in ("GLUONLITE_MXNET_PYTHON", "GLUONLITE_TORCH_PYTHON")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    env.update(env_extra or {})
    return subprocess.run([sys.executable, str(BENCH / script), *args], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=120)


def _table_rows(stdout):
    return [line for line in stdout.splitlines() if line.startswith("| ")]


TINY = ["--seq-len", "3", "--input-size", "4", "--hidden-size", "5"]


def test_rnn_floor_tiny_prints_one_table_per_cell(tmp_path):
    out_json = tmp_path / "t.json"
    p = _run("rnn_floor.py", *TINY, "--batches", "1,2", "--rounds", "1", "--warmup", "0",
             "--json", str(out_json))
    assert p.returncode == 0, p.stderr
    rows = _table_rows(p.stdout)
    for cell in ("RNNCell", "GRUCell", "LSTMCell"):
        assert any(r.startswith(f"| {cell}: ms") for r in rows), p.stdout
    names = {r.split("|")[1].strip() for r in rows}
    assert {"gluonlite imperative foreach", "gluonlite hybrid while_loop", "floor-step",
            "floor-fused"} <= names
    floor_step = [r for r in rows if r.startswith("| floor-step |")]
    assert len(floor_step) == 3 and all(r.count("(1.00 /") == 4 for r in floor_step)
    assert "BLAS:" in p.stdout and "OPENBLAS_CORETYPE" in p.stdout
    assert "goal 2" in p.stdout and "goal 4" in p.stdout
    assert out_json.stat().st_size > 0


def test_rnn_floor_reports_a_broken_mxnet_python():
    p = _run("rnn_floor.py", *TINY, "--cells", "RNNCell", "--rounds", "1",
             env_extra={"GLUONLITE_MXNET_PYTHON": str(ROOT / "no-such-python")})
    assert p.returncode == 2
    assert "GLUONLITE_MXNET_PYTHON" in p.stderr and "Traceback" not in p.stderr


def test_rnn_floor_reports_a_python_without_torch():
    # The worker starts under the test interpreter and answers that it cannot import torch.
    if importlib.util.find_spec("torch") is not None:
        pytest.skip("this interpreter has torch")
    p = _run("rnn_floor.py", *TINY, "--cells", "RNNCell", "--rounds", "1",
             env_extra={"GLUONLITE_TORCH_PYTHON": sys.executable})
    assert p.returncode == 2, p.stderr
    assert "GLUONLITE_TORCH_PYTHON" in p.stderr and "cannot import torch" in p.stderr
    assert "Traceback" not in p.stderr


def test_rnn_floor_with_torch_rows_checks_and_times_them():
    pytest.importorskip("torch")
    p = _run("rnn_floor.py", *TINY, "--batches", "2", "--rounds", "1", "--warmup", "0",
             env_extra={"GLUONLITE_TORCH_PYTHON": sys.executable})
    assert p.returncode == 0, p.stderr
    assert p.stdout.count("pytorch eager cell loop == floors") == 3
    rows = _table_rows(p.stdout)
    assert sum(r.startswith("| pytorch eager cell loop |") for r in rows) == 3


WORKER_SCRIPT = """
import sys
sys.path.insert(0, {bench!r})
from _rows_worker import serve, time_round

class Worker:
    def __init__(self):
        if {fail!r}:
            raise ImportError("no such framework")
        self.calls = {{"a": {{"infer": lambda: None}}}}

    def hello(self, msg):
        print("stray output goes to stderr")
        return {{"echo": msg["x"]}}

    def round(self, msg):
        return {{"ms": time_round(self.calls, msg["mode"])}}

sys.exit(serve(Worker, ("hello", "round"), "fakework"))
"""


@pytest.mark.parametrize("fail", [False, True])
def test_rows_worker_protocol(tmp_path, fail, bench_module):
    common = bench_module("_rows_client")
    script = tmp_path / "fake_rows.py"
    script.write_text(WORKER_SCRIPT.format(bench=str(BENCH), fail=fail))
    w = common.RowsWorker(str(script), sys.executable, "FAKE_PYTHON", "Fake")
    try:
        if fail:
            with pytest.raises(common.WorkerError, match="FAKE_PYTHON.*cannot import fakework"):
                w.request(op="hello", x=1)
            return
        assert w.request(op="hello", x=[1, 2])["echo"] == [1, 2]
        ms = w.request(op="round", mode="infer")["ms"]
        assert list(ms) == ["a"] and ms["a"] >= 0
        with pytest.raises(common.WorkerError, match="Fake worker.*unknown op 'setup'"):
            w.request(op="setup")
        with pytest.raises(common.WorkerError, match="KeyError"):
            w.request(op="round", mode="train")
    finally:
        w.close()
    assert w.proc.returncode == 0


def test_interleaved_rounds_start_with_each_variant_in_turn(bench_module):
    common = bench_module("_timing")
    calls = []
    variants = {name: (lambda name=name: calls.append(name)) for name in "abc"}
    times = common.interleaved(variants, rounds=4, warmup=1)
    assert list(times) == ["a", "b", "c"] and all(len(v) == 4 for v in times.values())
    rounds = [calls[i:i + 3] for i in range(0, len(calls), 3)]
    assert rounds == [list("abc"), list("bca"), list("cab"), list("abc"), list("bca")]


def test_a_peer_workers_rounds_start_with_each_variant_in_turn(bench_module):
    worker = bench_module("_rows_worker")
    calls = []
    variants = {name: {"infer": (lambda name=name: calls.append(name))} for name in "abc"}
    for _ in range(4):
        ms = worker.time_round(variants, "infer")
        assert sorted(ms) == ["a", "b", "c"]
    starts = [calls[i] for i in range(0, len(calls), 3)]
    assert len(set(starts)) == 3 and starts[3] == starts[0]


def test_rows_worker_that_cannot_start_names_its_variable(bench_module):
    common = bench_module("_rows_client")
    with pytest.raises(common.WorkerError, match="FAKE_PYTHON=.*cannot start"):
        common.RowsWorker("torch_rnn_rows.py", str(ROOT / "no-such-python"), "FAKE_PYTHON",
                          "Fake")


@pytest.mark.parametrize("cell", ["RNNCell", "GRUCell", "LSTMCell"])
def test_loop_case_checks_a_worker_result_file(tmp_path, cell, bench_module):
    import numpy as np
    common = bench_module("_loop_case")
    case = common.LoopCase(cell, 2, 3, 4, 5, [("hybrid", "foreach")])
    case.write_inputs(tmp_path / "case.npz")
    with np.load(tmp_path / "case.npz") as saved:
        assert set(saved) == {"x", "i2h_weight", "i2h_bias", "h2h_weight", "h2h_bias",
                              *(f"state{i}" for i in range(len(case.states_np)))}
        np.testing.assert_array_equal(saved["x"], case.x_np)
    # A result made by the floor itself passes; one perturbed gradient is named.
    step = case.floors[(False, True)]
    result = {"out_infer": case.floor_call(False, False)().copy(),
              "out_train": step.forward(case.x_np, case.states_np, case.params).copy()}
    g = step.backward()
    result["grad_data"] = g["data"].copy()
    result.update({f"grad_state{i}": s.copy() for i, s in enumerate(g["states"])})
    result.update({f"grad_{k}": g[k].copy() for k in case.params})
    np.savez(tmp_path / "ok.npz", **result)
    assert max(case.check_result("other", tmp_path / "ok.npz").values()) < 1e-5
    result["grad_h2h_weight"] = result["grad_h2h_weight"] + 0.1
    np.savez(tmp_path / "bad.npz", **result)
    with pytest.raises(RuntimeError, match="other vs floor-step: grad h2h_weight"):
        case.check_result("other", tmp_path / "bad.npz")


def test_rnn_scaling_tiny_prints_four_tables():
    p = _run("rnn_scaling.py", "--seq-lens", "2,4", "--input-size", "4", "--hidden-size", "5",
             "--rounds", "1", "--warmup", "0")
    assert p.returncode == 0, p.stderr
    rows = _table_rows(p.stdout)
    headers = [r for r in rows if r.startswith("| mode") or r.startswith("| seq_len")]
    assert len(headers) == 4, p.stdout
    assert sum(r.startswith("| infer |") or r.startswith("| train |") for r in rows) == 8
    assert "JSON bytes" in p.stdout and "held for backward" in p.stdout
    bound_rows = [r for r in rows if "projection" in r]
    assert len(bound_rows) == 4 and sum("h2h weight gradient" in r for r in bound_rows) == 2


@pytest.mark.parametrize("cell, gates", [("RNNCell", 1), ("GRUCell", 3), ("LSTMCell", 4)])
def test_rnn_scaling_blas_products_forms_agree(cell, gates, bench_module):
    import numpy as np
    rnn_scaling = bench_module("rnn_scaling")
    N, T, n_in, H = 2, 3, 4, 5
    once, each_step = rnn_scaling.blas_products(cell, N, T, n_in, H, train=True)
    G, M = gates * H, T * N
    shapes = {"projection": (M, G), "data gradient": (M, n_in), "i2h weight gradient": (G, n_in),
              "h2h weight gradient": (G, H), "h2h": (N, G), "h2h reverse": (N, H)}
    assert set(once) | set(each_step) == set(shapes)
    for name, (direct, transposed) in {**once, **each_step}.items():
        a, b = direct(), transposed()
        assert a.shape == shapes[name], name
        np.testing.assert_allclose(a, b.T, rtol=1e-5, atol=1e-5, err_msg=name)
    once, each_step = rnn_scaling.blas_products(cell, N, T, n_in, H, train=False)
    assert list(once) == ["projection"] and list(each_step) == ["h2h"]


def test_rnn_scaling_blas_bound_arithmetic(bench_module):
    rnn_scaling = bench_module("rnn_scaling")
    assert rnn_scaling.blas_bound({"p": 1.0, "q": 2.0}, {"s": 0.5}, 10) == 0.5 + 3.0 / 10
    # (B_T + e) / (B_base + e) == 1.1 exactly at the returned e; no extra work if already flat.
    e = rnn_scaling.flat_needs(0.3, 0.25)
    assert abs((0.3 + e) / (0.25 + e) - 1.1) < 1e-12
    assert rnn_scaling.flat_needs(0.26, 0.25) == 0.0
    once, each_step = rnn_scaling.time_products("LSTMCell", 1, [2, 3], 4, 5, True, 1, 0)
    assert set(once) == {2, 3} and all(len(v) == 4 and min(v.values()) > 0
                                       for v in once.values())
    assert set(each_step) == {"h2h", "h2h reverse"} and min(each_step.values()) > 0


def test_rnn_scaling_times_short_sequences_in_repeated_calls(bench_module):
    rnn_scaling = bench_module("rnn_scaling")
    assert [rnn_scaling.calls_per_unit(1000, t) for t in (10, 100, 300, 1000, 2000)] == \
        [100, 10, 4, 1, 1]
    assert rnn_scaling.calls_per_unit(0, 10) == 1
    calls = []
    rnn_scaling.repeated(lambda: calls.append(1), 3)()
    assert len(calls) == 3
    p = _run("rnn_scaling.py", "--seq-lens", "2,4", "--input-size", "4", "--hidden-size", "5",
             "--rounds", "1", "--warmup", "0", "--modes", "infer", "--steps-per-unit", "8")
    assert p.returncode == 0, p.stderr
    assert "ceil(8 / seq_len) calls back to back" in p.stdout
    p = _run("rnn_scaling.py", "--steps-per-unit", "-1")
    assert p.returncode == 2 and "--steps-per-unit" in p.stderr


def test_rnn_alloc_tiny_prints_table_and_verdict():
    p = _run("rnn_alloc.py", "--seq-len", "3", "--batch", "2", "--input-size", "4",
             "--hidden-size", "5", "--mlp-batch", "2", "--calls", "2")
    assert p.returncode == 0, p.stderr
    rows = _table_rows(p.stdout)
    assert sum("(static_alloc)" in r for r in rows) == 6, p.stdout
    assert "goal 6" in p.stdout


def test_loop_case_check_aborts_on_a_mismatch(bench_module):
    LoopCase = bench_module("_loop_case").LoopCase
    case = LoopCase("GRUCell", 2, 3, 4, 5, [("hybrid", "foreach"), ("hybrid", "while_loop")])
    assert max(case.check().values()) < 1e-4
    case.params["i2h_weight"] = case.params["i2h_weight"] * 1.5
    with pytest.raises(RuntimeError, match="disagree.*hybrid foreach vs floor-step"):
        case.check()


def test_goal_lines_judge_the_reference_cell_and_all_cells_apart(bench_module):
    """Goal 3 is reported over all cells and over the LSTM reference table: an RNN case over
    1.2x floor-fused fails the first and not the second."""
    goal_lines = bench_module("rnn_floor").goal_lines
    medians = {}
    for cell, hybrid in (("RNNCell", 1.3), ("LSTMCell", 1.1)):
        medians[(cell, 1, "infer")] = {"floor-step": 2.0, "floor-fused": 1.0,
                                       "gluonlite hybrid foreach": hybrid,
                                       "gluonlite imperative foreach": 10.0}
    lines = goal_lines(medians)
    all_cells = next(ln for ln in lines if "goal 3" in ln and "all cells" in ln)
    lstm = next(ln for ln in lines if "goal 3" in ln and "reference table" in ln)
    assert "NOT met; 1/2 cases within" in all_cells and "RNNCell b1 infer foreach" in all_cells
    assert ": met; 1/1 cases within" in lstm


def test_screen_count_follows_foreach_to_its_forward_and_gradient():
    """screen_count.py reaches the loop's plain forward and gradient from its registration
    (one file of meaning) and, apart, the lowered path the compiler runs; it leaves shape
    inference out and prints one row per operator with lines and screens that agree."""
    p = _run("screen_count.py", "--op", "_foreach", "--op", "_foreach:lowered", "--op", "tanh",
             "--list")
    assert p.returncode == 0, p.stderr
    rows = {r.split("|")[1].strip(): r for r in _table_rows(p.stdout)}
    assert {"_foreach", "_foreach:lowered", "tanh"} <= set(rows)
    for name in ("_foreach", "_foreach:lowered"):
        _, _, _, defs, lines, screens, files, _ = rows[name].split("|")
        assert int(screens) == -(-int(lines) // 50) and int(defs) > 0
    semantic = rows["_foreach"].split("|")
    assert int(semantic[6]) == 1 and int(semantic[5]) <= 4  # issue 27's bound
    assert int(rows["_foreach:lowered"].split("|")[6]) > 1
    listed = p.stderr
    for name in (" _foreach ", " _foreach_vjp ", " lowered_kernel ", " lowered_vjp ",
                 " reverse_pass_function "):
        assert name in listed, name
    assert " _foreach_shape " not in listed and " infer_graph " not in listed


def test_screen_count_finds_a_lowering_through_its_registry_entry():
    """A ``:lowered`` row starts at what the lowering registry holds for the loop (the
    kernel closure `lowered_kernel` returns, found only that way), not at the names."""
    p = _run("screen_count.py", "--op", "_while_loop:lowered", "--list")
    assert p.returncode == 0, p.stderr
    assert "entry by name" not in p.stderr
    for name in (" lowered_kernel.<locals>.kernel ", " lowered_vjp.<locals>.loop_vjp ",
                 " LoopRuntime ", " plan_while "):
        assert name in p.stderr, name


def test_screen_count_finds_tanh_through_its_registry_entry():
    """tanh's count starts at the functions its registry entry holds (the kernel and the
    gradient `_unary` makes, the gradient lambda of its registration): what a reader of its
    definition reads, in one file, and no statement that merely names 'tanh' (the table of
    examples, the fluent methods, the np aliases) nor a method that shares a name with the
    array API (``x.shape``, ``xp.empty``)."""
    p = _run("screen_count.py", "--op", "tanh", "--list")
    assert p.returncode == 0, p.stderr
    row = _table_rows(p.stdout)[-1].split("|")
    defs, lines, screens, files = (int(v) for v in row[3:7])
    assert files == 1 and screens == -(-lines // 50) and lines < 150
    listed = p.stderr
    for name in (" _unary.<locals>.kernel ", " _unary.<locals>.vjp ", " <statement line ",
                 " <lambda line "):
        assert name in listed, name
    for path in ("examples.py", "fluent.py", "np_aliases.py", "arg_docs.py", "rnn_fused.py"):
        assert path not in listed, path
    assert len(listed.strip().splitlines()) == defs


def test_screen_count_meaning_leaves_the_fast_paths_out():
    """With --meaning, FullyConnected's count reaches its forward and gradient but none of the
    fast paths given at its registration (which the plain count reaches too)."""
    full = _run("screen_count.py", "--op", "FullyConnected", "--list")
    meaning = _run("screen_count.py", "--op", "FullyConnected", "--list", "--meaning")
    assert full.returncode == 0 and meaning.returncode == 0, full.stderr + meaning.stderr
    for name in (" _fc ", " _fc_vjp "):
        assert name in full.stderr and name in meaning.stderr, name
    for name in (" _fc_vjp_into ", " _fc_into ", " _fc_weight_sum "):
        assert name in full.stderr and name not in meaning.stderr, name


def test_call_opcodes_counts_one_call_per_function():
    """call_opcodes.py --list counts the bytecodes of one RNNCell call by function: the
    block's forward and the invoke path are among them, each with a positive count."""
    p = _run("call_opcodes.py", "--list", "RNNCell infer")
    assert p.returncode == 0, p.stderr
    counts = {r.split("|")[1].strip(): int(r.split("|")[2]) for r in _table_rows(p.stdout)[1:]}
    assert counts["gluon/block.py:forward"] > 0 and counts["ndarray/invoke.py:_run_dense"] > 0
    assert all(v > 0 for v in counts.values())


def test_conv_dx_kernel_compares_two_equal_data_gradients(bench_module):
    """benchmarks/conv_dx_kernel.py's baseline (the old reversed-copy path) computes the
    same data gradient as today's `_dx_as_conv`, through both the im2col and 1x1 paths,
    and its table has one row per layer."""
    import numpy as np
    from gluonlite.ops import conv, conv_fast
    mod = bench_module("conv_dx_kernel")
    rng = np.random.default_rng(0)
    for c, f, h, k in [(6, 5, 7, 3), (8, 3, 4, 1)]:
        p = (k - 1) // 2
        g = conv.Geom((k, k), (1, 1), (1, 1), (p, p), (p, p), (h, h))
        w = rng.standard_normal((f, c, k, k))
        gy = rng.standard_normal((2, f, h, h))
        np.testing.assert_allclose(mod.old_data_grad(gy, w, g, (2, c, h, h)),
                                   conv_fast._dx_as_conv(gy, w, 1, g, (2, c, h, h)),
                                   rtol=1e-12, atol=1e-12)
    proc = _run("conv_dx_kernel.py", "--batches", "1", "--rounds", "1")
    assert proc.returncode == 0, proc.stderr
    assert len(_table_rows(proc.stdout)) == 1 + len(mod.LAYERS), proc.stdout


def test_row_blocks_compares_equal_updates_and_prints_every_case(bench_module):
    """benchmarks/row_blocks.py's SGD baseline (the pass order before MXNet's kernel order)
    gives today's numbers where the two orders agree (rescale_grad 1, wd 0), and its table
    has one row per operator and SGD case."""
    import numpy as np
    from gluonlite.ops import optimizer_fast
    from gluonlite.ops.registry import Params
    mod = bench_module("row_blocks")
    p = Params(dict(lr=0.1, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0, momentum=0.9))
    rng = np.random.default_rng(0)
    w, g, m = (rng.standard_normal(40000).astype(np.float32) for _ in range(3))
    w2, m2 = w.copy(), m.copy()
    mod.old_sgd_mom(p, w, w, g, m)
    optimizer_fast.sgd_mom_into(p, w2, w2, g, m2)
    np.testing.assert_array_equal(w, w2)
    np.testing.assert_array_equal(m, m2)
    proc = _run("row_blocks.py", "--rounds", "1", "--scale", "0.002")
    assert proc.returncode == 0, proc.stderr
    assert len(_table_rows(proc.stdout)) == 1 + len(mod.OPERATOR_CASES) + len(mod.SGD_CASES)


def test_gelu_float32_baseline_is_the_erf_formula_and_every_row_prints(bench_module):
    """benchmarks/gelu_float32.py's baseline is the float32 rule normal_cdf replaced, bit for
    bit, and it swaps back; its table has the operator rows (two data spreads) and the model
    row, whose outputs agree."""
    import numpy as np
    from scipy.special import erf
    from gluonlite import nd
    from gluonlite.ops import normal_cdf
    mod = bench_module("gelu_float32")
    x = np.random.default_rng(1).standard_normal(5000).astype(np.float32) * 3
    want = (0.5 * x * (1 + erf(x / np.float32(np.sqrt(2))))).astype(np.float32)
    np.testing.assert_array_equal(mod.erf_formula(np, x), want)
    with mod.variant(False):
        np.testing.assert_array_equal(
            nd.LeakyReLU(nd.array(x), act_type="gelu").asnumpy(), want)
    assert mod.normal_cdf.gelu_float32 is normal_cdf.gelu_float32
    assert not np.array_equal(normal_cdf.gelu_float32(np, x), want)
    proc = _run("gelu_float32.py", "--rounds", "1", "--batches", "1", "--scale", "0.01")
    assert proc.returncode == 0, proc.stderr
    rows = _table_rows(proc.stdout)
    assert len(rows) == 1 + 2 + 1
    assert float(rows[-1].split("|")[-2]) < 1e-5


def test_wide_sums_baseline_is_numpys_float32_sum_and_every_row_prints(bench_module):
    """benchmarks/wide_sums.py's baseline is numpy's own float32 sum, bit for bit, and it
    swaps back; its table has a row per operator case and the model row."""
    import numpy as np
    from gluonlite import nd
    from gluonlite.ops import accumulate
    mod = bench_module("wide_sums")
    x = np.random.default_rng(2).standard_normal((700, 40)).astype(np.float32)
    with mod.variant(False):
        np.testing.assert_array_equal(nd.sum(nd.array(x), axis=0).asnumpy(), x.sum(axis=0))
    assert accumulate.WIDER[np.dtype(np.float32)] == np.float64
    assert not np.array_equal(nd.sum(nd.array(x), axis=0).asnumpy(), x.sum(axis=0))
    proc = _run("wide_sums.py", "--rounds", "1", "--scale", "0.002")
    assert proc.returncode == 0, proc.stderr
    rows = _table_rows(proc.stdout)
    assert len(rows) == 1 + len(mod.CASES) + 1


def test_blas_pools_prints_a_row_per_case_with_both_variants():
    """benchmarks/blas_pools.py runs a model with scipy's BLAS kept serial and not, in one
    process with two BLAS threads, and prints one row per model, mode and batch."""
    proc = _run("blas_pools.py", "--threads", "2", "--rounds", "1", "--models", "dcgan_g",
                "mobilenet0.25", "--batches", "1", "--modes", "infer")
    assert proc.returncode == 0, proc.stderr
    rows = _table_rows(proc.stdout)
    assert rows[0].split(" | ")[:3] == ["| model", "mode", "batch"]
    assert [r.split(" | ")[0] for r in rows[1:]] == ["| dcgan_g", "| mobilenet0.25"]
    assert "2 thread(s)" in proc.stdout


def test_bn_passes_baseline_agrees_and_every_row_prints(bench_module):
    """benchmarks/bn_passes.py's baseline (the mean subtracted first, as bn_fast ran before
    the fold) gives the fast path's output and data gradient to float32 rounding, and its
    table has a forward and a gradient row per batch."""
    import numpy as np
    import gluonlite as mx
    from gluonlite.ops import bn_fast
    mod = bench_module("bn_passes")
    p = mx.ops.get("BatchNorm").parse({"fix_gamma": False})[0]
    rng = np.random.default_rng(0)
    x, gy, gamma, beta, _ = mod._layers(2, 0.1, rng)[2]
    c = x.shape[1]
    mean, var = bn_fast.moments(x)
    new, old = ([np.empty_like(x), np.empty(c, np.float32), np.empty(c, np.float32)]
                for _ in range(2))
    bn_fast.normalize_into(p, new, x, gamma, beta, mean, var)
    mod.subtracted_forward(p, old, x, gamma, beta, mean, var)
    np.testing.assert_allclose(new[0], old[0], rtol=1e-5, atol=1e-5)
    dx = bn_fast.vjp(p, [x, gamma, beta], new, [gy], True)[0]
    inv = new[2].astype(np.float64)
    sg, sgx = mod._sums(x, gy)
    dgamma = (sgx - mean * sg) * inv
    n = x.size // c
    vecs = [v.astype(np.float32).reshape(c, 1) for v in
            (gamma * inv, -gamma * inv * inv * dgamma / n, -gamma * inv * sg / n)]
    np.testing.assert_allclose(dx, mod.subtracted_dx(x, gy, new[1], vecs), rtol=1e-5,
                               atol=1e-5 * np.abs(dx).max())
    for extra in ([], ["--relu"]):
        proc = _run("bn_passes.py", "--rounds", "1", "--batches", "1", "2", "--scale", "0.05",
                    *extra)
        assert proc.returncode == 0, proc.stderr
        rows = _table_rows(proc.stdout)
        assert [r.split(" | ")[:2] for r in rows[1:]] == [
            ["| forward", "1"], ["| gradient", "1"], ["| forward", "2"], ["| gradient", "2"]]
        assert ("fused ms" in rows[0]) == bool(extra)


def test_conv_shifted_rows_and_errors():
    """benchmarks/conv_shifted.py: a forward and a data-gradient row per layer and batch, each
    path within float32 rounding of the float64 reference."""
    proc = _run("conv_shifted.py", "--rounds", "1", "--batches", "1", "--layers", "small")
    assert proc.returncode == 0, proc.stderr
    rows = _table_rows(proc.stdout)[1:]
    assert [r.split(" | ")[0] for r in rows] == [
        f"| {name} b1 {kind}" for name in ("c64@14", "c64@7", "c8@56") for kind in ("fwd", "dx")]
    for r in rows:
        errs = [float(e) for e in r.rstrip(" |").split(" | ")[-1].split(",")]
        assert max(errs) < 1e-4, r


def test_bn_clip_times_mobilenet_v2s_layers_with_the_same_numbers():
    proc = _run("bn_clip.py", "--batch", "1", "--rounds", "1")
    assert proc.returncode == 0, proc.stderr
    assert "36 BatchNorm -> clip layers" in proc.stdout and "1 rounds" in proc.stdout
    assert proc.stdout.rstrip().endswith("largest difference 0"), proc.stdout


def test_lever_ab_times_a_call_time_and_a_compile_time_switch():
    proc = _run("lever_ab.py", "dcgan_g", "1", "infer", "gluonlite.ops.conv_shifted:ENABLED",
                "--rounds", "1")
    assert proc.returncode == 0, proc.stderr
    assert "on / off" in proc.stdout and "1 rounds" in proc.stdout
    proc = _run("lever_ab.py", "dcgan_g", "1", "train", "gluonlite.executor.bn_relu:ENABLED",
                "--compiled", "--rounds", "1")
    assert proc.returncode == 0, proc.stderr
    assert "dcgan_g train batch 1" in proc.stdout
    proc = _run("lever_ab.py", "dcgan_g", "1", "infer", "gluonlite.ops.conv_shifted:NOPE")
    assert proc.returncode == 2 and "has no attribute 'NOPE'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_random_reads_old_read_path_draws_the_same_and_every_row_prints(bench_module):
    """benchmarks/random_reads.py's old read path (stacked words, copied hand-backs) draws what
    the library's draws, and swaps back; its table has a row per case, each with the same
    draws."""
    from gluonlite.ops import mxnet_rng
    mod = bench_module("random_reads")
    rows_before = mxnet_rng._Twisters.rows
    for _, draw in mod.cases(0.02):
        assert mod.same_draws(draw)
    with mod.variant(False):
        assert mxnet_rng._Twisters.rows is mod.stacked_rows
    assert mxnet_rng._Twisters.rows is rows_before
    proc = _run("random_reads.py", "--rounds", "1", "--reps", "1", "--scale", "0.01")
    assert proc.returncode == 0, proc.stderr
    rows = _table_rows(proc.stdout)
    assert len(rows) == 1 + len(mod.cases(0.01))
    assert all(r.rstrip(" |").endswith("yes") for r in rows[1:])


def test_random_draws_prints_a_row_per_case_and_refuses_a_bad_scale(bench_module):
    """benchmarks/random_draws.py times each case's draw (MXNet's column empty without an MXNet
    interpreter); a one-value case makes `REPEAT` draws a call, the others one."""
    mod = bench_module("mxnet_random_rows")
    import gluonlite
    names = [name for name, _, _ in mod.CASES]
    assert [mod.repeats(k) for k in range(len(names))].count(mod.REPEAT) == 3
    gluonlite.random.seed(0)
    out = mod.make_call(gluonlite, names.index("nd.random.poisson, a rate per value, 8192 "
                                               "values"), 0.01)()
    assert out.shape == (82,) and (out.asnumpy() >= 0).all()
    proc = _run("random_draws.py", "--rounds", "1", "--warmup", "0", "--scale", "0.0001")
    assert proc.returncode == 0, proc.stderr
    rows = _table_rows(proc.stdout)
    assert [r.split(" | ")[0][2:] for r in rows[1:]] == names
    assert all(r.rstrip(" |").endswith("- | -") for r in rows[1:])
    bad = _run("random_draws.py", "--scale", "0")
    assert bad.returncode == 2 and "--scale" in bad.stderr and "Traceback" not in bad.stderr


def test_sparse_embedding_tiny_prints_its_four_variants():
    proc = _run("sparse_embedding.py", "--vocab", "2000", "--dim", "4", "--batch", "10",
                "--rounds", "1", "--warmup", "0", "--no-mxnet")
    assert proc.returncode == 0, proc.stderr
    rows = _table_rows(proc.stdout)
    names = [r.split("|")[1].strip() for r in rows[1:]]
    assert names == ["dense", "row_sparse", "SparseEmbedding + Trainer",
                     "hybridized Embedding + Trainer"], rows
    assert "row_sparse / dense, gluonlite: time" in proc.stdout


def test_onednn_softmax_baseline_is_numpys_exp_and_division_and_every_row_prints(bench_module):
    """benchmarks/onednn_softmax.py's baseline is numpy's exp and division, bit for bit, its
    "exact" variant oneDNN's arithmetic beyond EXACT_ENTRIES, and it swaps back; its table
    has a forward and a gradient row per case (log_softmax's too on the batch of logits) and
    the model row."""
    import numpy as np
    from gluonlite import nd
    from gluonlite.ops import onednn_softmax
    mod = bench_module("onednn_softmax")
    x = (np.random.default_rng(2).standard_normal((30, 40)) * 3).astype(np.float32)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    plain = e / e.sum(axis=1, keepdims=True)
    with mod.variant("numpy"):
        np.testing.assert_array_equal(nd.softmax(nd.array(x)).asnumpy(), plain)
    with mod.variant("exact"):
        np.testing.assert_array_equal(nd.softmax(nd.array(np.tile(x, (60, 1)))).asnumpy(),
                                      np.tile(onednn_softmax.softmax(x), (60, 1)))
    assert onednn_softmax.ENABLED and onednn_softmax.EXACT_ENTRIES == 1 << 16
    np.testing.assert_array_equal(nd.softmax(nd.array(x)).asnumpy(), onednn_softmax.softmax(x))
    assert not np.array_equal(onednn_softmax.softmax(x), plain)
    proc = _run("onednn_softmax.py", "--rounds", "1", "--scale", "0.01")
    assert proc.returncode == 0, proc.stderr
    rows = _table_rows(proc.stdout)
    # a forward and a gradient row per case, log_softmax's two on the first, the model row
    assert len(rows) == 1 + 2 * (len(mod.CASES) + 1) + 1
    assert sum("log_softmax" in r for r in rows) == 2


def test_libm32_variants_are_the_rounded_value_and_numpys_and_every_row_prints(bench_module):
    """benchmarks/libm32.py's variants: 'rounded' is the float64 exp rounded once, 'numpy'
    numpy's float32 exp, and it swaps back to the C library's; one row per case."""
    import numpy as np
    from gluonlite import nd
    from gluonlite.ops import libm32
    mod = bench_module("libm32")
    x = np.random.default_rng(3).uniform(-20, 20, 5000).astype(np.float32)
    with mod.variant("rounded"):
        np.testing.assert_array_equal(nd.exp(nd.array(x)).asnumpy(),
                                      np.exp(x.astype(np.float64)).astype(np.float32))
    with mod.variant("numpy"):
        np.testing.assert_array_equal(nd.exp(nd.array(x)).asnumpy(), np.exp(x))
    assert libm32.has_c_library("expf") == bool(libm32._LIBM)
    np.testing.assert_array_equal(nd.exp(nd.array(x)).asnumpy(), libm32.expf(x))
    proc = _run("libm32.py", "--rounds", "1", "--scale", "0.001")
    assert proc.returncode == 0, proc.stderr
    assert len(_table_rows(proc.stdout)) == 1 + 3


def test_plan_build_prints_a_row_per_model_and_refuses_bad_sizes():
    """benchmarks/plan_build.py times a hybridized decoder's calls at new and seen lengths."""
    proc = _run("plan_build.py", "--steps", "2", "--models", "2", "--layers", "1",
                "--units", "8")
    assert proc.returncode == 0, proc.stderr
    rows = _table_rows(proc.stdout)
    assert [r.split(" | ")[0][2:] for r in rows[1:]] == ["model 1", "model 2", "median"]
    assert all(float(c) > 0 for r in rows[1:] for c in r.strip("| ").split(" | ")[1:3])
    for bad in (["--units", "6"], ["--steps", "0"]):
        p = _run("plan_build.py", *bad)
        assert p.returncode == 2 and bad[0] in p.stderr and "Traceback" not in p.stderr
