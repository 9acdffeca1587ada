"""`python -m gluonlite.bench`: run the control-flow RNN benchmark or a YAML recipe;
`python -m gluonlite.bench report|compare ...` reads results files (see report.py).

Exit status: 0 done; 1 some case failed (each failure is one line on stderr), or an
unexpected error (one line; GLUONLITE_BENCH_TRACEBACK=1 shows the traceback);
2 bad flags or recipe, a case too large for this machine's memory, an output file that
exists (without --resume or --force), that another run is writing, or that cannot be
written (also mid-run: a full disk), charts without matplotlib, or an executor that cannot
start (one line on stderr, before any work); 130 interrupted (finished cases are kept).

Cases run here one after another (`--executor local`, the default) or on a Dask
distributed cluster (`--executor dask`, see executors.py); either way this process
prints and writes every result (driver.py: plan, run, record, report).

Example:
    python -m gluonlite.bench --benchmark while_loop --warmup_rounds 2 --test_rounds 5
    python -m gluonlite.bench --recipe recipes/quick.yaml --out results/quick.jsonl
    python -m gluonlite.bench --recipe recipes/quick.yaml --executor dask
"""
import argparse
import os
import sys
import traceback

from . import memory
from .driver import PROG, UsageError, run_bench
from .executors import ExecutorError, make_executor
from .plot import PlotError, plot_file
from .recipe import RecipeError, from_data, load_recipe, recipe_kind
from .report import main as report_main
from .results import FileLock, OutputError, error_line
from .sweep import run_sweep
from .train import run_train

__all__ = ["main", "build_parser", "run_bench", "UsageError"]

_BENCH_ONLY = ("benchmark", "warmup_rounds", "test_rounds", "format", "baseline", "profile")


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        raise UsageError(f"{message} (see --help)")


def _count(minimum):
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer >= {minimum}, got {text!r}")
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected an integer >= {minimum}, got {value}")
        return value
    return parse


def _rounds(text):
    if text == "auto":
        return text
    return _count(1)(text)


def build_parser():
    """The argument parser of the CLI (flags of docs/BENCH.md).

    Example::

        from gluonlite.bench.cli import build_parser
        args = build_parser().parse_args(['--benchmark', 'foreach', '--test_rounds', '1'])
        print(args.benchmark, args.test_rounds)   # foreach 1
    """
    p = _Parser(prog="python -m gluonlite.bench",
                description="Benchmark foreach and while_loop on RNN tasks, or run a YAML "
                            "recipe (kind: bench or train). Flags override the recipe.")
    p.add_argument("--benchmark", choices=["foreach", "while_loop"],
                   help="which loop layer to time (required unless the recipe sets it)")
    p.add_argument("--warmup_rounds", type=_count(0), help="untimed rounds per case (20)")
    p.add_argument("--test_rounds", type=_rounds, metavar="N|auto",
                   help="timed rounds per case (100), or auto: as many as fit in the "
                        "recipe's rounds.budget_s (1 s) per case")
    p.add_argument("--recipe", metavar="FILE.yaml", help="a recipe from recipes/")
    p.add_argument("--out", metavar="FILE.jsonl",
                   help="write one JSON line per finished case (train: per epoch)")
    keep = p.add_mutually_exclusive_group()
    keep.add_argument("--resume", action="store_true",
                      help="keep the --out file and skip the cases already in it (their "
                           "rounds and seed must match this run's)")
    keep.add_argument("--force", action="store_true",
                      help="overwrite the --out file if it exists (without --resume or "
                           "--force an existing output file is an error)")
    p.add_argument("--format", choices=["text", "markdown", "csv", "html"],
                   help="format of the summary table (text); with csv, stdout gets only "
                        "the CSV and everything else goes to stderr")
    p.add_argument("--plot", metavar="DIR",
                   help="also draw the results' charts (PNG and SVG) into DIR (needs the "
                        "plot extra: pip install 'gluonlite[plot]')")
    p.add_argument("--profile", action="store_true",
                   help="bench: write a Chrome trace (mx.profiler) of each case's timed "
                        "rounds beside the output file, as NAME.profile/CASE.json")
    p.add_argument("--baseline", choices=["numpy"],
                   help="also time the hand-written numpy floor and show ratios to it")
    p.add_argument("--executor", choices=["local", "dask"],
                   help="run cases here (local, the default) or on Dask distributed")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="a running Dask scheduler, e.g. tcp://HOST:8786 (implies --executor "
                        "dask; without it dask starts a LocalCluster)")
    p.add_argument("--workers", type=_count(1),
                   help="worker processes of the LocalCluster (default: the CPU count)")
    return p


def _overrides(args):
    o = {}
    if args.benchmark:
        o["benchmark"] = [args.benchmark]
    rounds = {k: v for k, v in (("warmup", args.warmup_rounds), ("test", args.test_rounds))
              if v is not None}
    if rounds:
        o["rounds"] = rounds
    for key in ("format", "baseline"):
        if getattr(args, key):
            o[key] = getattr(args, key)
    if args.out:
        o["output"] = args.out
    if args.scheduler and args.executor == "local":
        raise UsageError("--scheduler needs --executor dask (or no --executor)")
    ex = {k: v for k, v in (("kind", args.executor or ("dask" if args.scheduler else None)),
                            ("address", args.scheduler), ("workers", args.workers))
          if v is not None}
    if ex:
        o["executor"] = ex
    return o


def _resolve(args):
    """Validated Recipe from --recipe and the flags; raises RecipeError/UsageError."""
    overrides = _overrides(args)
    if args.recipe:
        if recipe_kind(args.recipe) == "train":
            given = [f"--{k}" for k in _BENCH_ONLY if getattr(args, k) not in (None, False)]
            if given:
                raise UsageError(f"{', '.join(given)} cannot be used with the train recipe "
                                 f"{args.recipe}")
            return load_recipe(args.recipe, {k: v for k, v in overrides.items()
                                             if k in ("output", "executor")})
        return load_recipe(args.recipe, overrides)
    if not args.benchmark:
        raise UsageError("the following arguments are required: --benchmark "
                         "(or give --recipe FILE.yaml)")
    return from_data({}, overrides)


def _train(recipe):
    try:
        run_train(recipe, emit=lambda line: print(line, flush=True))
    except (KeyboardInterrupt, OutputError):
        raise
    except Exception as e:  # report in one line; GLUONLITE_BENCH_TRACEBACK=1 for the rest
        if os.environ.get("GLUONLITE_BENCH_TRACEBACK"):
            traceback.print_exc()
        print(f"{PROG}: training failed ({recipe.file}): {error_line(e)}", file=sys.stderr)
        return 1
    return 0


def _check_output(path, args):
    """Before any work (a Dask cluster starts slowly): OutputError when another run writes
    `path`; UsageError when it exists and holds something, unless --resume or --force says
    what to do with it. The results file checks both again under its lock."""
    if not path:
        return
    FileLock(path).check_free()
    if args.resume or args.force:
        return
    try:
        size = os.path.getsize(path)
    except OSError:
        return  # missing (or unreadable: opening it for writing will say so)
    if size and os.path.isfile(path):
        raise UsageError(f"the output file {path} exists ({size} bytes): give --resume to "
                         "add to it, --force to overwrite it, or another --out")


def _run(recipe, args, run_case):
    """Run a validated recipe on the executor it names; returns the exit status."""
    data = recipe.data
    _check_output(data["output"], args)
    local = data["executor"]["kind"] == "local" or not data["executor"]["address"]
    if recipe.kind == "train" and local:
        try:
            memory.check_train(data)
        except memory.MemoryEstimateError as e:
            raise UsageError(f"{recipe.file}: {e}") from None
    if recipe.kind == "train" and data["executor"]["kind"] == "local" and not (
            data["sweep"] or args.resume):
        status = _train(recipe)
        if status == 0 and args.plot and data["output"]:
            for path in plot_file(data["output"], args.plot):
                print(f"chart: {path}", file=sys.stderr)
        return status  # one run, metrics printed and written as epochs end
    if args.resume and recipe.kind == "bench" and not data["output"]:
        raise UsageError("--resume needs --out FILE.jsonl (or a recipe with `output`)")
    with make_executor(data["executor"]) as executor:
        if recipe.kind == "train":
            return run_sweep(recipe, executor, resume=args.resume,
                             emit=lambda line: print(line, flush=True))
        return run_bench(recipe, resume=args.resume, run_case=run_case, executor=executor,
                         profile=args.profile, plot=args.plot, force=args.force)


def main(argv=None, run_case=None):
    r"""Entry point; returns the exit status (see the module docstring).

    Args:
        argv: the arguments (default: sys.argv[1:]).
        run_case: a stand-in for runner.run_case, for tests only.

    Example::

        from gluonlite.bench.cli import main
        import json
        rec = dict(impl='gluonlite', benchmark='foreach', cell='RNNCell', ctx='cpu(0)', seq_len=2,
                   batch_size=1, hidden_dim=4, is_train=False, hybridize_cell=False,
                   hybridize_layer=False, median=2.0, q1=1.9, q3=2.2, mean=2.0, std=0.1, rounds=3,
                   seed=0, env={'host': 'box', 'cpu': 'x86'})
        with open('r.jsonl', 'w') as f:
            f.write(json.dumps(rec) + '\n')
        print(main(['report', 'r.jsonl']))   # 0, after the summary table of r.jsonl
        print(main(['--benchmark', 'scan']))   # 2: a bad flag, named on stderr
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in ("report", "compare"):
        return report_main(argv)
    try:
        try:
            args = build_parser().parse_args(argv)
            if args.resume and not args.out and not args.recipe:
                raise UsageError("--resume needs --out FILE.jsonl (or a recipe with `output`)")
            recipe = _resolve(args)
        except (RecipeError, UsageError) as e:
            print(f"{PROG}: error: {e}", file=sys.stderr)
            return 2
        try:
            return _run(recipe, args, run_case)
        except (OutputError, UsageError, ExecutorError, PlotError) as e:
            print(f"{PROG}: error: {e}", file=sys.stderr)
            return 2
        except Exception as e:  # no traceback reaches a user; the variable shows it
            if os.environ.get("GLUONLITE_BENCH_TRACEBACK"):
                traceback.print_exc()
            print(f"{PROG}: internal error: {error_line(e)} (GLUONLITE_BENCH_TRACEBACK=1 "
                  "shows the traceback)", file=sys.stderr)
            return 1
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. piped into `head`: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so the flush at exit does not fail again
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
