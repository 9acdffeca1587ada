"""The functions an executor runs: one bench case, one training run.

Each returns plain data (numbers, dicts, bytes) and writes no file, so it can run on a
Dask worker while the driver writes every result; each carries the environment record
of the process that ran it.

Example:
    >>> out = train_run({...}, 'sweep')           # doctest: +SKIP
    >>> sorted(out)                               # doctest: +SKIP
    ['env', 'final', 'params', 'records']
"""
import functools
import os
import tempfile

from gluonlite import profiler

from .results import env_record
from .train import fit

__all__ = ["host_env", "measure", "train_run"]


@functools.lru_cache(maxsize=None)
def _env():
    return env_record()


def host_env():
    """The environment record of this process (computed once per process).

    Example::

        # not run: the first call asks git for the source's commit, in a subprocess
        from gluonlite.bench.tasks import host_env
        env = host_env()   # computed once per process, a fresh copy each call
        print(env['host'] == host_env()['host'], env is host_env())   # True False
    """
    return dict(_env())


def measure(run_case, case, warmup, test, seed, profile=False, floors=(), progress=None):
    """Time one bench case with `run_case` (runner.run_case or a test's stand-in).

    Args:
        profile: run the case under `gluonlite.profiler` (operators and compiled plan
            steps) and return its Chrome trace as `trace` (a JSON str) for the driver
            to write.
        floors: floor impls to time interleaved with the case (passed to run_case as
            `floors=` only when there are some).
        run_case: ``run_case(case, warmup, test, seed, progress[, floors=])`` -> dict.
        case: the case dict (a row of the matrix: impl, benchmark, cell, ctx, sizes, flags).
        warmup: untimed rounds.
        test: timed rounds: an int or 'auto:SECONDS'.
        seed: the random seed of the case's inputs.
        progress: default None: callable(rounds_done) for a progress bar.

    Returns:
        dict: run_case's result plus `env` (this host's environment record).

    Example::

        # not run: its environment record asks git for the commit, in a subprocess
        from gluonlite.bench.tasks import measure
        fake = lambda case, warmup, test, seed, progress: {'mean': 1.0, 'n': test}
        print(sorted(measure(fake, {}, 0, 1, seed=0)))   # ['env', 'mean', 'n']
    """
    extra = {"floors": tuple(floors)} if floors else {}
    if not profile:
        return dict(run_case(case, warmup, test, seed, progress, **extra), env=host_env())
    with profiler.capture() as trace:
        result = run_case(case, warmup, test, seed, progress, **extra)
    return dict(result, env=host_env(), trace=trace.json())


def train_run(cfg, name, progress=None):
    """Train one run of a train recipe (a point of its sweep) and return everything the
    driver writes.

    Args:
        cfg: the run's validated recipe data.
        name: the recipe's name.
        progress: unused (a run reports when it ends).

    Returns:
        dict: records (the per-epoch dicts), final (the final record without
        params_file), params (the parameters file's bytes, as save_parameters writes
        them), env.

    Example::

        # not run: trains a model (seconds) and asks git for the commit, in a subprocess
        from gluonlite.bench.recipe import from_data
        from gluonlite.bench.tasks import train_run
        cfg = from_data({'kind': 'train', 'task': 'adding', 'epochs': 1,
                         'adding': {'seq_len': 2, 'train_size': 4, 'valid_size': 2}}).data
        print(sorted(train_run(cfg, 'tiny')))   # ['env', 'final', 'params', 'records']
    """
    records = []
    net, final = fit(cfg, name, records.append, progress=False)
    with tempfile.TemporaryDirectory(prefix="gluonlite-run-") as tmp:
        path = os.path.join(tmp, "run.params")
        net.save_parameters(path)
        with open(path, "rb") as f:
            params = f.read()
    return {"records": records, "final": final, "params": params, "env": host_env()}
