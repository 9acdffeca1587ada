"""Helpers of the probe suite: run the bench CLI in a process of its own."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
TINY = """benchmark: foreach
matrix: {cell: [RNNCell, LSTMCell], ctx: [cpu], seq_len: [3], batch_size: [2],
         hidden_dim: [4], is_train: [false, true], hybridize_cell: [false],
         hybridize_layer: [false, true]}
rounds: {warmup: 1, test: 2}
"""


def cli_env():
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    env["PYTHONPATH"] = os.pathsep.join([HERE, REPO, env.get("PYTHONPATH", "")])
    env.pop("GLUONLITE_BENCH_TRACEBACK", None)
    return env


def start_cli(*args, cwd, run_case=None, env=None, stdout=subprocess.PIPE,
              stderr=subprocess.PIPE):
    """Start `python -m gluonlite.bench ARGS` (with `run_case` 'module:function' standing in
    for runner.run_case, `env` added to the environment); returns the Popen (text)."""
    if run_case:
        module, func = run_case.split(":")
        cmd = [sys.executable, "-c", f"import sys, {module}; from gluonlite.bench.cli import "
               f"main; sys.exit(main(sys.argv[1:], run_case={module}.{func}))"]
    else:
        cmd = [sys.executable, "-m", "gluonlite.bench"]
    return subprocess.Popen(cmd + [str(a) for a in args], cwd=cwd, text=True, stdout=stdout,
                            stderr=stderr, env=dict(cli_env(), **(env or {})))


def run_cli(*args, cwd, run_case=None, env=None, timeout=180):
    """Run the CLI to the end; returns (exit status, stdout, stderr)."""
    proc = start_cli(*args, cwd=cwd, run_case=run_case, env=env)
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err
