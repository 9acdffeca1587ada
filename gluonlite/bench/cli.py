"""`python -m gluonlite.bench`: run the control-flow RNN benchmark or a YAML recipe;
`python -m gluonlite.bench report|compare ...` reads results files (see report.py).

Exit status: 0 done; 1 some case failed (each failure is one line on stderr), or an
unexpected error (one line; GLUONLITE_BENCH_TRACEBACK=1 shows the traceback);
2 bad flags or recipe, an output file that exists (without --resume or --force) or
cannot be written (also mid-run: a full disk), charts without matplotlib, or an
executor that cannot start (one line on stderr, before any work); 130 interrupted
(finished cases are kept).

Cases run here one after another (`--executor local`, the default) or on a Dask
distributed cluster (`--executor dask`, see executors.py); either way this process
prints and writes every result.

Example:
    python -m gluonlite.bench --benchmark while_loop --warmup_rounds 2 --test_rounds 5
    python -m gluonlite.bench --recipe recipes/quick.yaml --out results/quick.jsonl
    python -m gluonlite.bench --recipe recipes/quick.yaml --executor dask
"""
import argparse
import os
import sys
import traceback

from .executors import ExecutorError, LocalExecutor, Task, make_executor
from .plot import PlotError
from .recipe import RecipeError, from_data, load_recipe, recipe_kind
from .results import OutputError, error_line

__all__ = ["main", "build_parser"]

PROG = "gluonlite.bench"
_RULE = "--------------------------------------"
_BENCH_ONLY = ("benchmark", "warmup_rounds", "test_rounds", "format", "baseline", "profile")


class UsageError(Exception):
    """A bad combination of flags; the message is the one line shown to the user."""


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
    """The argument parser of the CLI (flags of docs/BENCH.md)."""
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


def _say(line, err=False):
    """Print one line without breaking the tqdm bar on stderr."""
    from tqdm import tqdm
    if err or (sys.stdout.isatty() and sys.stderr.isatty()):
        tqdm.write(line, file=sys.stderr if err else sys.stdout)  # clears the bar first
    else:  # stdout goes elsewhere: clearing and redrawing the bar would only add noise
        print(line)
    (sys.stderr if err else sys.stdout).flush()


def _header(case, last, last_bench):
    """The seed's header lines for a case, given the previous case and benchmark."""
    lines = []
    if case["impl"] == "gluonlite":
        if last_bench != case["benchmark"]:
            lines += [_RULE, f"Benchmarking {case['benchmark']}"]
        group = ("cell", "ctx", "seq_len", "batch_size", "hidden_dim")
        if last is None or any(last[k] != case[k] for k in group) or last["impl"] != "gluonlite":
            lines += [_RULE, "cell: %s  ctx: %s  length: %d  batch size: %d dim: %d" % (
                case["cell"], case["ctx"], case["seq_len"], case["batch_size"],
                case["hidden_dim"])]
        lines.append("is_train = %r, hybridize_cell = %r, hybridize_layer = %r" % (
            case["is_train"], case["hybridize_cell"], case["hybridize_layer"]))
    else:
        lines += [_RULE, "numpy %s  cell: %s  length: %d  batch size: %d dim: %d" % (
            case["impl"], case["cell"], case["seq_len"], case["batch_size"], case["hidden_dim"]),
            "is_train = %r" % case["is_train"]]
    return lines


def _gpus_needed(ctx):
    """GPUs a worker needs for a case on ctx: 'gpu(1)' -> 2, 'cpu(0)' -> 0."""
    return int(ctx[4:-1]) + 1 if ctx.startswith("gpu(") else 0


def _settings(record):
    """The settings a result was made with, as checked on --resume."""
    rounds = record.get("rounds", record.get("n"))
    return {"warmup": record.get("warmup"), "test": rounds, "seed": record.get("seed")}


def _check_settings(records, want, out):
    """UsageError when the kept results were made with other rounds or seed than `want`."""
    for r in records:
        have = _settings(r)
        if have != want:
            show = lambda d: ", ".join(f"{k} {v}" for k, v in d.items())  # noqa: E731
            raise UsageError(f"--resume: {out} holds results made with {show(have)}; this "
                             f"run asks for {show(want)}: run with the same settings, or "
                             "give --force to start the file anew")


def run_bench(recipe, resume=False, run_case=None, progress=True, executor=None,
              profile=False, plot=None):
    """Run a bench recipe: print per case, write JSON lines, print the summary.

    Args:
        recipe: a validated bench `Recipe`.
        resume: skip cases already in the output file.
        run_case: `runner.run_case` (replaceable for tests; a Dask run needs it
            importable by module name on the workers).
        progress: show the tqdm bar on stderr.
        executor: where cases run (default: a LocalExecutor). A case that fails there
            is reported on stderr; on an executor with `records_failures` (Dask, where
            a worker may die) it is also written as `{"failed": true, "error": ...}`,
            which `--resume` runs again.
        profile: profile each case's timed rounds (mx.profiler) and write its Chrome
            trace to OUTPUT_STEM.profile/CASE.json (needs an output file).
        plot: a folder for the charts of the results (plot.py), or None.

    Returns:
        exit status (0, 1 if a case failed, 130 if interrupted).

    Raises:
        OutputError: the output file cannot be written (before any case runs, or, for a
            full disk, when a result cannot be written: the file keeps whole lines).
        UsageError: --resume on a file made with other rounds or seed.
    """
    from tqdm import tqdm

    from . import matrix, results, runner, tasks
    run_case = run_case or runner.run_case
    executor = executor or LocalExecutor()
    cfg = recipe.data
    out = cfg["output"]
    # stdout must parse as CSV (or be an HTML table): the rest goes to stderr
    csv_only = cfg["format"] in ("csv", "html")
    say = lambda line: _say(line, err=csv_only)  # noqa: E731
    if profile and not out:
        raise UsageError("--profile needs --out FILE.jsonl (or a recipe with `output`): the "
                         "traces go beside it")
    if plot:
        from .plot import require_matplotlib
        require_matplotlib()
    warmup, test = cfg["rounds"]["warmup"], cfg["rounds"]["test"]
    if test == "auto":
        test = f"auto:{cfg['rounds']['budget_s']:g}"
    writer = results.ResultsFile(out, resume=resume) if out else None
    try:
        if writer and writer.rejected:
            nums = ", ".join(map(str, writer.rejected[:5])) + (
                ", ..." if len(writer.rejected) > 5 else "")
            _say(f"{PROG}: warning: {len(writer.rejected)} line(s) of {out} are not results "
                 f"(line {nums}); moved them to {results.rejected_path(out)}", err=True)
        if writer:
            _check_settings(writer.records, {"warmup": warmup, "test": test,
                                             "seed": cfg["seed"]}, out)
        gpus, why = (0, None)
        if any(c.startswith("gpu") for c in cfg["matrix"]["ctx"]):
            gpus, why = executor.gpus()
        cases, skipped = matrix.expand(cfg, gpus, why)
        for line in skipped:
            say(line)
        done = writer.done if writer else set()
        todo = [c for c in cases if matrix.case_key(c) not in done]
        if len(todo) < len(cases):
            say(f"resuming: {len(cases) - len(todo)} of {len(cases)} cases already in {out}")
        new, failed = [], 0
        shown = {"case": None, "bench": None, "key": None}
        bar = tqdm(total=len(todo), unit="case", file=sys.stderr, disable=not progress,
                   dynamic_ncols=True)
        rounds = None

        def show_header(case):
            for line in _header(case, shown["case"], shown["bench"]):
                say(line)
            shown.update(case=case, bench=case["benchmark"] or shown["bench"],
                         key=matrix.case_key(case))

        def started(task):  # local runs: the header before the case, a bar over its rounds
            nonlocal rounds
            bar.set_description(matrix.case_label(task.args[1]), refresh=False)
            show_header(task.args[1])
            # a bar per case only where someone watches: in logs it is noise
            total = warmup + test if isinstance(test, int) else None
            rounds = tqdm(total=total, unit="round", leave=False, delay=2.0,
                          file=sys.stderr, disable=not (progress and sys.stderr.isatty()))
            return lambda k: rounds.update(k - rounds.n)

        trace_dir = os.path.splitext(out)[0] + ".profile" if profile else None

        task_list = [Task(matrix.case_key(c), tasks.measure, (run_case, c, warmup, test,
                                                               cfg["seed"], profile),
                          timing=True, gpu=_gpus_needed(c["ctx"]), label="bench-case")
                     for c in todo]
        try:
            for outcome in executor.run(task_list, started):
                if rounds is not None:
                    rounds.close()
                    rounds = None
                case = outcome.task.args[1]
                label = matrix.case_label(case)
                if shown["key"] != outcome.task.key:  # a remote case: its header comes now
                    bar.set_description(label, refresh=False)
                    show_header(case)
                busy = executor.busy()
                if busy is not None:
                    bar.set_postfix_str(f"{busy}/{executor.workers} workers busy", refresh=False)
                if outcome.error is not None:  # one case failing must not lose the others
                    e = outcome.error
                    if os.environ.get("GLUONLITE_BENCH_TRACEBACK"):
                        traceback.print_exception(e)
                    _say(f"{PROG}: case failed ({label}): {error_line(e)}", err=True)
                    if writer and executor.records_failures:
                        writer.write(dict(case, failed=True, error=error_line(e),
                                          seed=cfg["seed"], recipe=recipe.name))
                    failed += 1
                    bar.update(1)
                    continue
                res = dict(outcome.value)
                trace = res.pop("trace", None)
                record = dict(case, **res, seed=cfg["seed"], recipe=recipe.name)
                record["env"] = record.pop("env")  # last, as before
                if writer:  # persist before telling the user the case is done
                    writer.write(record)
                if trace is not None:
                    path = _write_trace(trace_dir, case, trace)
                    say(f"profile: {path}")
                new.append(record)
                say("Time used: mean = %.3f ms, std = %.3f ms" % (res["mean"], res["std"]))
                bar.update(1)
        except KeyboardInterrupt:
            if rounds is not None:
                rounds.close()
            bar.close()
            kept = f"; {len(new) + len(done)} finished cases are in {out}" if out else ""
            _say(f"{PROG}: interrupted after {len(new)} of {len(todo)} cases{kept}", err=True)
            return 130
        except BaseException:  # an error line must not land after a half-drawn bar
            if rounds is not None:
                rounds.close()
            bar.close()
            raise
        bar.close()
        by_key = {matrix.case_key(r): r for r in (writer.records if writer else []) + new}
        table = [by_key[k] for k in map(matrix.case_key, cases) if k in by_key]
        _print_summary(table, cfg["format"])
        if plot and table:
            from .plot import plot_records
            for path in plot_records(table, plot, os.path.splitext(os.path.basename(
                    out or recipe.name))[0]):
                say(f"chart: {path}")
        if failed:
            _say(f"{PROG}: {failed} of {len(todo)} cases failed", err=True)
        return 1 if failed else 0
    finally:
        if writer:
            writer.close()


def _print_summary(records, fmt):
    """The summary table on stdout; its title and legend on stderr for CSV and HTML."""
    from . import summary
    text = summary.summarize_by_host(records, fmt)
    if not text:
        return
    err = sys.stderr if fmt in ("csv", "html") else sys.stdout
    print(_RULE, file=err)
    print(f"Summary ({fmt}): {summary.TITLE}", file=err)
    err.flush()
    print(text, flush=True)
    if summary.NOISY in text or (fmt == "csv" and any(
            line.rsplit(",", 1)[-1] for line in text.splitlines()[1:])):
        print(summary.LEGEND, file=err)


def _write_trace(folder, case, trace):
    """Write one case's trace (a JSON str) as FOLDER/LABEL.json; return the path."""
    import re

    from ..base import write_atomically
    from . import matrix
    name = re.sub(r"[^A-Za-z0-9_.=-]+", "_", matrix.case_label(case)).strip("_")
    path = os.path.join(folder, name + ".json")
    try:
        os.makedirs(folder, exist_ok=True)
        write_atomically(path, trace)
    except OSError as e:
        raise OutputError(f"cannot write the trace {path}: {e.strerror or e}") from None
    return path


def _train(recipe):
    from .train import run_train
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
    """UsageError when `path` exists and holds something, unless --resume or --force
    says what to do with it (a run used to overwrite it silently)."""
    if not path or args.resume or args.force:
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
    if recipe.kind == "train" and data["executor"]["kind"] == "local" and not (
            data["sweep"] or args.resume):
        status = _train(recipe)
        if status == 0 and args.plot and data["output"]:
            from .plot import plot_file
            for path in plot_file(data["output"], args.plot):
                print(f"chart: {path}", file=sys.stderr)
        return status  # one run, metrics printed and written as epochs end
    if args.resume and recipe.kind == "bench" and not data["output"]:
        raise UsageError("--resume needs --out FILE.jsonl (or a recipe with `output`)")
    with make_executor(data["executor"]) as executor:
        if recipe.kind == "train":
            from .sweep import run_sweep
            return run_sweep(recipe, executor, resume=args.resume,
                             emit=lambda line: print(line, flush=True))
        return run_bench(recipe, resume=args.resume, run_case=run_case, executor=executor,
                         profile=args.profile, plot=args.plot)


def main(argv=None, run_case=None):
    """Entry point; returns the exit status (see the module docstring).

    Args:
        argv: the arguments (default: sys.argv[1:]).
        run_case: a stand-in for runner.run_case, for tests only.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in ("report", "compare"):
        from .report import main as report_main
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
