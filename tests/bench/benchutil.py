"""Helpers for the bench tests: run the CLI in a subprocess, read JSON lines."""
import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cli_env():
    env = dict(os.environ)
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("GLUONLITE_BENCH_TRACEBACK", None)
    # Tiny GEMMs gain nothing from BLAS threads, and busy-waiting BLAS threads on a
    # loaded CI machine can slow the floor cases down a hundredfold.
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


def run_cli(*args, cwd=None, timeout=120):
    """Run `python -m gluonlite.bench ARGS`; return the CompletedProcess (text)."""
    return subprocess.run([sys.executable, "-m", "gluonlite.bench", *map(str, args)],
                          cwd=cwd, env=cli_env(), capture_output=True, text=True,
                          timeout=timeout)


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]
