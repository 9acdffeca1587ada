"""Training sweeps: one run per combination of a train recipe's `sweep:` lists.

A recipe such as

    sweep:
      optimizer.lr: [0.01, 0.003]
      model.loop: [foreach, while_loop]

gives four runs, each the recipe with those values set, tagged `lr=0.01-loop=foreach`
and so on. Each run is one executor task; the driver writes every file when a run's
result comes back: its metrics (JSON lines: the epochs, then the final record with the
run's tag, params file and host environment) in the folder named by the recipe's
`output` without its extension, and its parameters next to them (`TAG.params`, written
atomically). A run counts as done once its metrics file ends with the final record, so
`--resume` skips exactly the runs that finished.

Example:
    >>> from gluonlite.bench.recipe import from_data
    >>> r = from_data({'kind': 'train', 'task': 'adding',
    ...                'sweep': {'optimizer.lr': [0.1, 0.01]}})
    >>> [tag for tag, _ in expand_runs(r.data)]
    ['lr=0.1', 'lr=0.01']
"""
import copy
import itertools
import json
import os
import sys

from tqdm import tqdm

from ..base import write_atomically
from . import tasks
from .executors import Task
from .results import ResultsFile, check_writable, read_records
from .train import params_path

__all__ = ["expand_runs", "run_files", "run_sweep"]

PROG = "gluonlite.bench"


def _text(value):
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def expand_runs(data):
    """The runs of a validated train recipe's data.

    Args:
        data: the validated train recipe data (its ``sweep``, if any).

    Returns:
        list of (tag, run_data): one per combination of the sweep in the order of its keys
        (the last key varies fastest); without a sweep, one run tagged ''.

    Example::

        from gluonlite.bench.sweep import expand_runs
        from gluonlite.bench.recipe import from_data
        sweep = {'optimizer.lr': [0.1, 0.01], 'model.hidden_size': [8]}
        recipe = from_data({'kind': 'train', 'task': 'adding', 'sweep': sweep})
        print([tag for tag, run in expand_runs(recipe.data)])
        # ['lr=0.1-hidden_size=8', 'lr=0.01-hidden_size=8']
    """
    sweep = data.get("sweep") or {}
    names = list(sweep)
    leaves = [n.rsplit(".", 1)[-1] for n in names]
    shown = leaves if len(set(leaves)) == len(leaves) else names
    runs = []
    for values in itertools.product(*(sweep[n] for n in names)):
        run = copy.deepcopy(data)
        run["sweep"] = None
        for name, value in zip(names, values):
            *parents, last = name.split(".")
            node = run
            for part in parents:
                node = node[part]
            node[last] = value
        runs.append(("-".join(f"{s}={_text(v)}" for s, v in zip(shown, values)), run))
    return runs


def run_files(data, name, tag):
    """(metrics file or None, params file) of one run of a train recipe.

    Args:
        data: the run's validated train recipe data (its ``output`` and ``params_file``).
        name: the recipe's name.
        tag: the run's tag from `expand_runs` ('' without a sweep).

    Returns:
        A tuple (str or None, str).

    Example::

        from gluonlite.bench.sweep import run_files
        from gluonlite.bench.recipe import from_data
        sweep = {'optimizer.lr': [0.1, 0.01], 'model.hidden_size': [8]}
        recipe = from_data({'kind': 'train', 'task': 'adding', 'sweep': sweep})
        print(run_files(dict(recipe.data, output='out/a.jsonl'), 'a', 'lr=0.1'))
        # ('out/a/lr=0.1.jsonl', 'out/a/lr=0.1.params'): one metrics and params file per run
    """
    if not tag:
        return data["output"], params_path(data, name)
    folder = os.path.splitext(data["output"] or os.path.join("results", name))[0]
    metrics = os.path.join(folder, f"{tag}.jsonl") if data["output"] else None
    params = (os.path.join(os.path.splitext(data["params_file"])[0], f"{tag}.params")
              if data["params_file"] else os.path.join(folder, f"{tag}.params"))
    return metrics, params


def _finished(metrics, params):
    records = read_records(metrics)[0] if metrics else []
    return bool(records) and records[-1].get("final") is True and os.path.isfile(params)


def _write_run(metrics, params, tag, value, emit):
    """Write one finished run's files: parameters first, the final record last."""
    final = dict(value["final"], run=tag, params_file=params, env=value["env"])
    os.makedirs(os.path.dirname(os.path.abspath(params)), exist_ok=True)
    write_atomically(params, value["params"])
    lines = [dict(r, run=tag) if tag else r for r in value["records"]] + [final]
    if metrics:
        with ResultsFile(metrics) as writer:
            for record in lines:
                writer.write(record)
    for record in lines:
        emit(json.dumps(record))
    return final


def _record_failure(outcome, files, name):
    """One line on stderr, and a record of the failure that --resume runs again."""
    tag = outcome.task.key
    error = f"{type(outcome.error).__name__}: {outcome.error}"
    print(f"{PROG}: run failed ({tag or name}): {error}", file=sys.stderr)
    if files[0]:
        with ResultsFile(files[0]) as writer:
            writer.write({"failed": True, "run": tag, "error": error})


def _print_sweep(recipe, runs, finals):
    """The sweep's closing table: each run's judged metric, in the sweep's order."""
    order = {tag: i for i, (tag, _) in enumerate(runs)}
    finals = sorted(finals, key=lambda f: order[f["run"]])
    print(f"Sweep: {len(finals)} runs ({recipe.data['task']}, judged by "
          f"{finals[0]['metric'] if finals else 'its metric'})")
    for final in finals:
        passed = "" if final["passed"] is None else ("  passed" if final["passed"]
                                                     else "  not passed")
        print(f"  {final['run']}: {final['value']:.6g}{passed}  [{final['env']['host']}]")


def run_sweep(recipe, executor, resume=False, progress=True, emit=print):
    """Run every run of a train recipe on `executor` and write their files.

    Args:
        recipe: a validated train `Recipe` (with or without `sweep`).
        executor: from `executors.make_executor`.
        resume: skip runs whose metrics file already ends with its final record.
        progress: show a tqdm bar over runs on stderr.
        emit: called with each JSON line written (stdout by default).

    Returns:
        exit status: 0, 1 if a run failed, 130 if interrupted.

    Raises:
        OutputError: a run's files cannot be written (before any run starts).

    Example::

        # not run: trains a model per run (seconds) and asks git for the commit, in a subprocess
        from gluonlite.bench.executors import LocalExecutor
        from gluonlite.bench.recipe import from_data
        from gluonlite.bench.sweep import run_sweep
        recipe = from_data({'kind': 'train', 'task': 'adding', 'epochs': 1, 'output': 'out/s.jsonl',
                            'adding': {'seq_len': 2, 'train_size': 4, 'valid_size': 2},
                            'sweep': {'optimizer.lr': [0.1, 0.01]}})
        status = run_sweep(recipe, LocalExecutor(), progress=False, emit=lambda line: None)
        # prints "Sweep: 2 runs (adding, judged by valid_mse)" and a line per run; writes
        # out/s/lr=0.1.jsonl, out/s/lr=0.1.params, out/s/lr=0.01.jsonl and out/s/lr=0.01.params
        print(status)   # 0
    """
    runs = expand_runs(recipe.data)
    files = {tag: run_files(recipe.data, recipe.name, tag) for tag, _ in runs}
    for metrics, params in files.values():
        for path in filter(None, (metrics, params)):
            check_writable(path)
    todo = [(tag, run) for tag, run in runs if not (resume and _finished(*files[tag]))]
    if len(todo) < len(runs):
        print(f"resuming: {len(runs) - len(todo)} of {len(runs)} runs already done", flush=True)
    task_list = [Task(tag, tasks.train_run, (run, recipe.name), label="train-run")
                 for tag, run in todo]
    bar = tqdm(total=len(task_list), unit="run", file=sys.stderr, disable=not progress,
               dynamic_ncols=True)
    finals, failed = [], 0
    try:
        for outcome in executor.run(task_list):
            if outcome.error is not None:
                failed += 1
                _record_failure(outcome, files[outcome.task.key], recipe.name)
            else:
                finals.append(_write_run(*files[outcome.task.key], outcome.task.key,
                                         outcome.value, emit))
            bar.update(1)
            busy = executor.busy()
            if busy is not None:
                bar.set_postfix_str(f"{busy}/{executor.workers} workers busy")
    except KeyboardInterrupt:
        bar.close()
        print(f"{PROG}: interrupted after {len(finals)} of {len(todo)} runs; their files "
              "are written, --resume runs the rest", file=sys.stderr)
        return 130
    bar.close()
    if len(runs) > 1:
        _print_sweep(recipe, runs, finals)
    if failed:
        print(f"{PROG}: {failed} of {len(todo)} runs failed", file=sys.stderr)
    return 1 if failed else 0
