"""Helpers for the bench tests: run the CLI in a subprocess or in this process, read JSON
lines."""
import contextlib
import io
import json
import os
import subprocess
import sys

# a bench recipe of 8 cases per benchmark that run in milliseconds
TINY = """
matrix:
  cell: [RNNCell, LSTMCell]
  ctx: [cpu]
  seq_len: [3]
  batch_size: [2]
  hidden_dim: [4]
rounds: {warmup: 1, test: 2}
"""
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# A bound for one CLI run, not a timing: a Dask run starting a cluster whose worker dies
# twice took up to 125 s on a 2-core machine shared by a dozen jobs. A real hang still fails.
CLI_TIMEOUT_S = 300


def cli_env():
    env = dict(os.environ)
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("GLUONLITE_BENCH_TRACEBACK", None)
    # Tiny GEMMs gain nothing from BLAS threads, and busy-waiting BLAS threads on a
    # loaded CI machine can slow the floor cases down a hundredfold.
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


def run_cli(*args, cwd=None, timeout=CLI_TIMEOUT_S, path_first=None):
    """Run `python -m gluonlite.bench ARGS`; return the CompletedProcess (text).
    `path_first`: a folder put before everything else on PYTHONPATH."""
    env = cli_env()
    if path_first:
        env["PYTHONPATH"] = str(path_first) + os.pathsep + env["PYTHONPATH"]
    return subprocess.run([sys.executable, "-m", "gluonlite.bench", *map(str, args)],
                          cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


def run_cli_here(*args, cwd=None):
    """Run the CLI's `main` in this process as `python -m gluonlite.bench ARGS` would run it
    (its working folder `cwd`, its stdout and stderr captured, argparse's exit caught);
    return a CompletedProcess (text) as `run_cli` does.

    For the checks of what `main` answers (an exit status, one line naming a mistake), where a
    subprocess would cost an interpreter start and gluonlite's import per case;
    `python -m gluonlite.bench` itself only adds ``sys.exit(main())``, which the tests that run
    it in a subprocess cover."""
    from gluonlite.bench.cli import main
    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    traceback = os.environ.pop("GLUONLITE_BENCH_TRACEBACK", None)
    try:
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main([str(a) for a in args])
            except SystemExit as e:  # argparse's --help and its usage errors
                code = e.code if isinstance(e.code, int) else int(e.code is not None)
    finally:
        os.chdir(here)
        if traceback is not None:
            os.environ["GLUONLITE_BENCH_TRACEBACK"] = traceback
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def run_cli_with(run_case, *args, cwd=None, timeout=CLI_TIMEOUT_S, env=None, popen=False):
    """Run the CLI with a stand-in for runner.run_case, `run_case` named as
    'module:function' of a module in tests/bench (workers import it from there).
    popen=True: start it in a process group of its own (as a shell starts a job, so a test
    can signal the group as a terminal's Ctrl-C does) and return the Popen, its stdout and
    stderr going to the files cwd/stdout.txt and cwd/stderr.txt (a pipe could be held open
    by its workers)."""
    module, func = run_case.split(":")
    code = (f"import sys, {module}; from gluonlite.bench.cli import main; "
            f"sys.exit(main(sys.argv[1:], run_case={module}.{func}))")
    env = dict(cli_env(), **(env or {}))
    env["PYTHONPATH"] = os.path.join(REPO, "tests", "bench") + os.pathsep + env["PYTHONPATH"]
    cmd = [sys.executable, "-c", code, *map(str, args)]
    if popen:
        with open(os.path.join(cwd, "stdout.txt"), "w") as out, \
                open(os.path.join(cwd, "stderr.txt"), "w") as err:
            return subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=err,
                                    process_group=0)
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)
