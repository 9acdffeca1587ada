"""benchmarks/gpu_gates.py: its table on tests/fakecupy.py (the plumbing; the timings
mean something on a GPU only), and its exit where there is no GPU."""
import importlib.util
import os
import subprocess
import sys

import pytest

import fakecupy
from gluonlite.context import probe_gpu

# processes, files and text only: .ci/run's numpy 1.23 suite leaves it to the numpy 2 one
pytestmark = pytest.mark.numpy_agnostic

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "benchmarks", "gpu_gates.py")


def _load():
    spec = importlib.util.spec_from_file_location("gpu_gates", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_table_has_a_row_per_cell_batch_and_mode(capsys):
    fakecupy.reset_stats()
    syncs = []
    rc = _load().main(["--seq-len", "3", "--hidden-size", "4", "--batches", "1,2",
                       "--rounds", "2", "--warmup", "0"], xp=fakecupy.MODULE,
                      sync=lambda: syncs.append(1))
    assert rc == 0
    rows = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("| ")]
    assert rows[0].startswith("| cell | batch | mode | plain ms | fused gates ms")
    assert [r.split(" | ")[:3] for r in rows[1:]] == [
        [f"| {c}", str(n), m] for c in ("LSTMCell", "GRUCell") for n in (1, 2)
        for m in ("infer", "train")]
    assert len(syncs) == 8 * 2 * 2  # every timed call of both variants waits for the device


def test_without_a_gpu_it_exits_2_saying_what_is_missing():
    if probe_gpu()[0] is not None:
        pytest.skip("a GPU is here: the script runs for real")
    env = dict(os.environ, PYTHONPATH=ROOT)
    p = subprocess.run([sys.executable, SCRIPT, "--rounds", "1"], capture_output=True,
                       text=True, env=env, timeout=120)
    assert p.returncode == 2, p.stderr
    assert p.stderr.startswith("gpu_gates: needs CuPy and a CUDA device: ")
