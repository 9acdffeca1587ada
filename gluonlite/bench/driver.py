"""Running a bench recipe in four steps: plan, run, record, report.

- `plan_bench`: check the flags against the recipe, expand the matrix into cases for the
  GPUs the executor has, and check that the largest case fits in memory, before any work;
- `run_cases`: send the cases to the executor and hand each outcome over as it comes back,
  with the seed's header lines and a progress bar (`Display`);
- `Recorder`: write each result, or failure, as one JSON line as it arrives (the results
  file is locked for this run, see results.py), and its trace beside it;
- `report_bench`: the summary table, the charts and the exit status.

`run_bench` chains them; `python -m gluonlite.bench` (cli.py) calls it.

Example:
    >>> from gluonlite.bench.recipe import from_data
    >>> r = from_data({'benchmark': 'foreach', 'matrix': {'ctx': 'cpu', 'cell': 'RNNCell',
    ...     'seq_len': 2, 'batch_size': 1, 'hidden_dim': 4}, 'rounds': {'warmup': 0,
    ...     'test': 1}})
    >>> run_bench(r, progress=False)                     # doctest: +SKIP
    0
"""
import os
import re
import sys
import traceback
from dataclasses import dataclass

from tqdm import tqdm

from ..base import write_atomically
from . import matrix, memory, results, runner, summary, tasks
from .executors import LocalExecutor, Task
from .plot import plot_records, require_matplotlib
from .results import OutputError, error_line

__all__ = ["run_bench", "plan_bench", "run_cases", "report_bench", "Plan", "Recorder",
           "Display", "UsageError", "PROG", "RULE"]

PROG = "gluonlite.bench"
RULE = "--------------------------------------"


class UsageError(Exception):
    """A bad combination of flags; the message is the one line shown to the user.

    Example::

        from gluonlite.bench import driver
        from gluonlite.bench.executors import LocalExecutor
        from gluonlite.bench.recipe import from_data
        m = {'ctx': 'cpu', 'cell': 'RNNCell', 'seq_len': 2, 'batch_size': 1, 'hidden_dim': 4,
             'is_train': False, 'hybridize_cell': False, 'hybridize_layer': False}
        rounds = {'warmup': 0, 'test': 1}
        recipe = from_data({'benchmark': 'foreach', 'matrix': m, 'rounds': rounds})
        plan = driver.plan_bench(recipe, LocalExecutor())   # one case
        try:
            driver.plan_bench(recipe, LocalExecutor(), profile=True)
        except driver.UsageError as err:
            print(str(err)[:32])   # --profile needs --out FILE.jsonl
    """


def say(line, err=False):
    """Print one line without breaking the tqdm bar on stderr.

    Args:
        line: the text to print.
        err: default False: print on stderr; otherwise on stdout (through tqdm when both are a
            terminal).

    Example::

        from gluonlite.bench import driver
        driver.say('resuming: 3 of 8 cases already in r.jsonl')   # printed on stdout
    """
    if err or (sys.stdout.isatty() and sys.stderr.isatty()):
        tqdm.write(line, file=sys.stderr if err else sys.stdout)  # clears the bar first
    else:  # stdout goes elsewhere: clearing and redrawing the bar would only add noise
        print(line)
    (sys.stderr if err else sys.stdout).flush()


# ---- plan -------------------------------------------------------------------------------
@dataclass
class Plan:
    """What a bench run will do, decided before it starts.

    Attributes:
        recipe: the validated Recipe.
        cases: every case of the matrix that can run here (`matrix.expand`).
        skipped: one line per ctx that cannot run here.
        warmup: the untimed rounds per case (an int).
        test: the timed rounds per case: an int, or 'auto:SECONDS' (rounds until their
            total reaches SECONDS).
        floors: the floor impls timed interleaved with each gluonlite case (a numpy
            baseline), else ().
        profile: write a Chrome trace per case.
        plot: a folder for charts, or None for no charts.

    Example::

        from gluonlite.bench import driver
        from gluonlite.bench.executors import LocalExecutor
        from gluonlite.bench.recipe import from_data
        m = {'ctx': 'cpu', 'cell': 'RNNCell', 'seq_len': 2, 'batch_size': 1, 'hidden_dim': 4,
             'is_train': False, 'hybridize_cell': False, 'hybridize_layer': False}
        rounds = {'warmup': 0, 'test': 1}
        recipe = from_data({'benchmark': 'foreach', 'matrix': m, 'rounds': rounds})
        plan = driver.plan_bench(recipe, LocalExecutor())   # one case
        print(type(plan).__name__, len(plan.cases), plan.warmup, plan.test, plan.floors)
        # Plan 1 0 1 ()
    """

    recipe: object
    cases: list
    skipped: list
    warmup: int
    test: object
    floors: tuple = ()
    profile: bool = False
    plot: object = None

    @property
    def cfg(self):
        """The recipe's settings (a dict, defaults filled in).

        Example::

            from gluonlite.bench import driver
            from gluonlite.bench.executors import LocalExecutor
            from gluonlite.bench.recipe import from_data
            m = {'ctx': 'cpu', 'cell': 'RNNCell', 'seq_len': 2, 'batch_size': 1, 'hidden_dim': 4,
                 'is_train': False, 'hybridize_cell': False, 'hybridize_layer': False}
            rounds = {'warmup': 0, 'test': 1}
            recipe = from_data({'benchmark': 'foreach', 'matrix': m, 'rounds': rounds})
            plan = driver.plan_bench(recipe, LocalExecutor())   # one case
            print(plan.cfg['seed'], plan.cfg['format'])   # 0 text
        """
        return self.recipe.data

    @property
    def out(self):
        """The results file (a path), or None when the run keeps no file.

        Example::

            from gluonlite.bench import driver
            from gluonlite.bench.executors import LocalExecutor
            from gluonlite.bench.recipe import from_data
            m = {'ctx': 'cpu', 'cell': 'RNNCell', 'seq_len': 2, 'batch_size': 1, 'hidden_dim': 4,
                 'is_train': False, 'hybridize_cell': False, 'hybridize_layer': False}
            rounds = {'warmup': 0, 'test': 1}
            recipe = from_data({'benchmark': 'foreach', 'matrix': m, 'rounds': rounds})
            plan = driver.plan_bench(recipe, LocalExecutor())   # one case
            print(plan.out)   # None: the recipe names no output file
        """
        return self.cfg["output"]

    @property
    def to_stderr(self):
        """stdout must parse as CSV (or be one HTML table): everything else goes to stderr.

        Example::

            from gluonlite.bench import driver
            from gluonlite.bench.executors import LocalExecutor
            from gluonlite.bench.recipe import from_data
            m = {'ctx': 'cpu', 'cell': 'RNNCell', 'seq_len': 2, 'batch_size': 1, 'hidden_dim': 4,
                 'is_train': False, 'hybridize_cell': False, 'hybridize_layer': False}
            rounds = {'warmup': 0, 'test': 1}
            recipe = from_data({'benchmark': 'foreach', 'matrix': m, 'rounds': rounds})
            plan = driver.plan_bench(recipe, LocalExecutor())   # one case
            print(plan.to_stderr)   # False: the text format leaves stdout for everything
        """
        return self.cfg["format"] in ("csv", "html")

    def settings(self):
        """The rounds and seed, as `--resume` compares them with a file's.

        Example::

            from gluonlite.bench import driver
            from gluonlite.bench.executors import LocalExecutor
            from gluonlite.bench.recipe import from_data
            m = {'ctx': 'cpu', 'cell': 'RNNCell', 'seq_len': 2, 'batch_size': 1, 'hidden_dim': 4,
                 'is_train': False, 'hybridize_cell': False, 'hybridize_layer': False}
            rounds = {'warmup': 0, 'test': 1}
            recipe = from_data({'benchmark': 'foreach', 'matrix': m, 'rounds': rounds})
            plan = driver.plan_bench(recipe, LocalExecutor())   # one case
            print(plan.settings())   # {'warmup': 0, 'test': 1, 'seed': 0}
        """
        return {"warmup": self.warmup, "test": self.test, "seed": self.cfg["seed"]}

    def task(self, case, run_case):
        """The executor task timing one case.

        Args:
            case: the case dict (a row of the matrix: impl, benchmark, cell, ctx, sizes, flags).
            run_case: the function timing a case (`runner.run_case`, or a stand-in), handed to
                `tasks.measure`.

        Returns:
            A `executors.Task`.

        Example::

            from gluonlite.bench import driver
            from gluonlite.bench.executors import LocalExecutor
            from gluonlite.bench.recipe import from_data
            m = {'ctx': 'cpu', 'cell': 'RNNCell', 'seq_len': 2, 'batch_size': 1, 'hidden_dim': 4,
                 'is_train': False, 'hybridize_cell': False, 'hybridize_layer': False}
            rounds = {'warmup': 0, 'test': 1}
            recipe = from_data({'benchmark': 'foreach', 'matrix': m, 'rounds': rounds})
            plan = driver.plan_bench(recipe, LocalExecutor())   # one case
            from gluonlite.bench import runner
            task = plan.task(plan.cases[0], runner.run_case)
            print(task.fn.__name__, task.timing, task.gpu)   # measure True 0
        """
        floors = self.floors if case["impl"] == "gluonlite" else ()
        args = (run_case, case, self.warmup, self.test, self.cfg["seed"], self.profile, floors)
        return Task(matrix.case_key(case), tasks.measure, args, timing=True,
                    gpu=_gpus_needed(case["ctx"]), label="bench-case")


def _gpus_needed(ctx):
    """GPUs a worker needs for a case on ctx: 'gpu(1)' -> 2, 'cpu(0)' -> 0."""
    return int(ctx[4:-1]) + 1 if ctx.startswith("gpu(") else 0


def plan_bench(recipe, executor, profile=False, plot=None):
    """The cases of a bench recipe on `executor`, checked before any work starts.

    Args:
        recipe: the validated bench `Recipe`.
        executor: the executor the cases will run on (it says which gpus there are).
        profile: default False: write a Chrome trace per case.
        plot: default None: a folder for charts.

    Returns:
        A `Plan`.

    Raises:
        UsageError: --profile without an output file; a case needs more memory than this
            machine has (when the cases run here).
        PlotError: --plot without matplotlib.

    Example::

        from gluonlite.bench import driver
        from gluonlite.bench.executors import LocalExecutor
        from gluonlite.bench.recipe import from_data
        m = {'ctx': 'cpu', 'cell': 'RNNCell', 'seq_len': 2, 'batch_size': 1, 'hidden_dim': 4,
             'is_train': False, 'hybridize_cell': False, 'hybridize_layer': False}
        rounds = {'warmup': 0, 'test': 1}
        recipe = from_data({'benchmark': 'foreach', 'matrix': m, 'rounds': rounds})
        plan = driver.plan_bench(recipe, LocalExecutor())   # one case
        print(plan.cases[0]['ctx'], plan.skipped)   # cpu(0) []
    """
    cfg = recipe.data
    if profile and not cfg["output"]:
        raise UsageError("--profile needs --out FILE.jsonl (or a recipe with `output`): the "
                         "traces go beside it")
    if plot:
        require_matplotlib()
    test = cfg["rounds"]["test"]
    if test == "auto":
        test = f"auto:{cfg['rounds']['budget_s']:g}"
    gpus, why = (0, None)
    if any(c.startswith("gpu") for c in cfg["matrix"]["ctx"]):
        gpus, why = executor.gpus()
    cases, skipped = matrix.expand(cfg, gpus, why)
    if executor.runs_here:
        try:
            memory.check_cases(cases)
        except memory.MemoryEstimateError as e:
            raise UsageError(f"{recipe.file or 'the flags'}: {e}") from None
    floors = matrix.FLOOR_IMPLS if cfg["baseline"] == "numpy" else ()
    return Plan(recipe, cases, skipped, cfg["rounds"]["warmup"], test, floors, profile, plot)


# ---- record -----------------------------------------------------------------------------
def open_results(plan, resume=False, force=True):
    """The locked results file of a run (None without an output file); lines of a resumed
    file that are not results are moved out, each named on stderr.

    Args:
        plan: the run's `Plan` (`plan_bench`).
        resume: default False: keep the results already in the file (their cases are not run again).
        force: default True: start an existing file anew; with both False an existing file is an
            error.

    Returns:
        A locked `results.ResultsFile`, or None.

    Raises:
        OutputError: as `results.ResultsFile` (another run holds the file; it exists and
            neither resume nor force says what to do with it).
        UsageError: --resume on a file made with other rounds or seed.

    Example::

        from gluonlite.bench import driver
        from gluonlite.bench.executors import LocalExecutor
        from gluonlite.bench.recipe import from_data
        m = {'ctx': 'cpu', 'cell': 'RNNCell', 'seq_len': 2, 'batch_size': 1, 'hidden_dim': 4,
             'is_train': False, 'hybridize_cell': False, 'hybridize_layer': False}
        rounds = {'warmup': 0, 'test': 1}
        recipe = from_data({'benchmark': 'foreach', 'matrix': m, 'rounds': rounds})
        plan = driver.plan_bench(recipe, LocalExecutor())   # one case
        import dataclasses
        plan = dataclasses.replace(plan, recipe=from_data(dict(recipe.data, output='r.jsonl')))
        writer = driver.open_results(plan)   # a locked results.ResultsFile
        print(writer.path, writer.records)   # r.jsonl []
        writer.close()
    """
    if not plan.out:
        return None
    writer = results.ResultsFile(plan.out, resume=resume, must_be_new=not (resume or force),
                                 check=results.record_problem)
    try:
        for number, why in writer.rejected[:20]:
            say(f"{PROG}: warning: {plan.out} line {number}: {why}; moved it to "
                f"{results.rejected_path(plan.out)}", err=True)
        if len(writer.rejected) > 20:
            say(f"{PROG}: warning: {len(writer.rejected) - 20} more lines of {plan.out} are not "
                f"results; moved them to {results.rejected_path(plan.out)}", err=True)
        _check_settings(writer.records, plan.settings(), plan.out)
    except BaseException:
        writer.close()
        raise
    return writer


def _check_settings(records, want, out):
    """UsageError when the kept results were made with other rounds or seed than `want`."""
    for r in records:
        have = {"warmup": r.get("warmup"), "test": r.get("rounds", r.get("n")),
                "seed": r.get("seed")}
        if have != want:
            show = lambda d: ", ".join(f"{k} {v}" for k, v in d.items())  # noqa: E731
            raise UsageError(f"--resume: {out} holds results made with {show(have)}; this "
                             f"run asks for {show(want)}: run with the same settings, or "
                             "give --force to start the file anew")


class Recorder:
    """Writes each outcome as it arrives: results and (where a worker may die) failures
    as JSON lines, profiles as trace files; counts what it saw.

    Attributes:
        new: the result records of this run; failed: how many cases failed.

    Args:
        plan: the run's `Plan` (`plan_bench`).
        writer: the open `results.ResultsFile`, or None (nothing written).
        records_failures: also write a record for each failed case.
        display: the run's `Display`.

    Example::

        from gluonlite.bench import driver
        from gluonlite.bench.executors import LocalExecutor
        from gluonlite.bench.recipe import from_data
        m = {'ctx': 'cpu', 'cell': 'RNNCell', 'seq_len': 2, 'batch_size': 1, 'hidden_dim': 4,
             'is_train': False, 'hybridize_cell': False, 'hybridize_layer': False}
        rounds = {'warmup': 0, 'test': 1}
        recipe = from_data({'benchmark': 'foreach', 'matrix': m, 'rounds': rounds})
        plan = driver.plan_bench(recipe, LocalExecutor())   # one case
        display = driver.Display(plan, 1, progress=False)
        recorder = driver.Recorder(plan, None, False, display)   # no results file
        print(recorder.new, recorder.failed)   # [] 0
    """

    def __init__(self, plan, writer, records_failures, display):
        self.plan, self.writer, self.display = plan, writer, display
        self.records_failures = records_failures
        self.new, self.failed = [], 0
        self.trace_dir = os.path.splitext(plan.out)[0] + ".profile" if plan.profile else None

    def failure(self, case, error):
        """Report a case that raised (one line) and keep a trace of it in the file.

        Args:
            case: the case dict (a row of the matrix: impl, benchmark, cell, ctx, sizes, flags).
            error: the exception the case raised.

        Raises:
            OutputError: the failure record cannot be written.

        Example::

            from gluonlite.bench import driver
            from gluonlite.bench.executors import LocalExecutor
            from gluonlite.bench.recipe import from_data
            m = {'ctx': 'cpu', 'cell': 'RNNCell', 'seq_len': 2, 'batch_size': 1, 'hidden_dim': 4,
                 'is_train': False, 'hybridize_cell': False, 'hybridize_layer': False}
            rounds = {'warmup': 0, 'test': 1}
            recipe = from_data({'benchmark': 'foreach', 'matrix': m, 'rounds': rounds})
            plan = driver.plan_bench(recipe, LocalExecutor())   # one case
            recorder = driver.Recorder(plan, None, False, driver.Display(plan, 1, progress=False))
            recorder.failure(plan.cases[0], ValueError('no memory'))   # one line on stderr
            print(recorder.failed)   # 1
        """
        if os.environ.get("GLUONLITE_BENCH_TRACEBACK"):
            traceback.print_exception(error)
        say(f"{PROG}: case failed ({matrix.case_label(case)}): {error_line(error)}", err=True)
        if self.writer and self.records_failures:  # --resume runs it again
            self.writer.write(dict(case, failed=True, error=error_line(error),
                                   seed=self.plan.cfg["seed"], recipe=self.plan.recipe.name))
        self.failed += 1

    def result(self, case, value):
        """Write a finished case's record (before telling the user it is done).

        Args:
            case: the case dict (a row of the matrix: impl, benchmark, cell, ctx, sizes, flags).
            value: what `tasks.measure` returned (times, ``env``, maybe ``trace``).

        Raises:
            OutputError: the record or the trace file cannot be written.

        Example::

            from gluonlite.bench import driver
            from gluonlite.bench.executors import LocalExecutor
            from gluonlite.bench.recipe import from_data
            m = {'ctx': 'cpu', 'cell': 'RNNCell', 'seq_len': 2, 'batch_size': 1, 'hidden_dim': 4,
                 'is_train': False, 'hybridize_cell': False, 'hybridize_layer': False}
            rounds = {'warmup': 0, 'test': 1}
            recipe = from_data({'benchmark': 'foreach', 'matrix': m, 'rounds': rounds})
            plan = driver.plan_bench(recipe, LocalExecutor())   # one case
            recorder = driver.Recorder(plan, None, False, driver.Display(plan, 1, progress=False))
            recorder.result(plan.cases[0], {'mean': 1.5, 'std': 0.1, 'env': {}})
            # Time used: mean = 1.500 ms, std = 0.100 ms
            print(recorder.new[0]['mean'], recorder.new[0]['recipe'])   # 1.5 cli
        """
        res = dict(value)
        trace = res.pop("trace", None)
        record = dict(case, **res, seed=self.plan.cfg["seed"], recipe=self.plan.recipe.name)
        record["env"] = record.pop("env")  # last, as before
        if self.writer:
            self.writer.write(record)
        if trace is not None:
            self.display.say(f"profile: {_write_trace(self.trace_dir, case, trace)}")
        self.new.append(record)
        self.display.say("Time used: mean = %.3f ms, std = %.3f ms" % (res["mean"], res["std"]))


def _write_trace(folder, case, trace):
    """Write one case's trace (a JSON str) as FOLDER/LABEL.json; return the path."""
    name = re.sub(r"[^A-Za-z0-9_.=-]+", "_", matrix.case_label(case)).strip("_")
    path = os.path.join(folder, name + ".json")
    try:
        os.makedirs(folder, exist_ok=True)
        write_atomically(path, trace)
    except OSError as e:
        raise OutputError(f"cannot write the trace {path}: {e.strerror or e}") from None
    return path


# ---- run --------------------------------------------------------------------------------
class Display:
    """What the user sees while cases run: the seed's header lines before each case, its
    `Time used` line after, a bar over the cases (and over the rounds of a long local case
    when a terminal shows it).

    Args:
        plan: the run's `Plan` (`plan_bench`).
        total: the number of cases the bar counts.
        progress: show progress bars on stderr (False: none).

    Example::

        from gluonlite.bench import driver
        from gluonlite.bench.executors import LocalExecutor
        from gluonlite.bench.recipe import from_data
        m = {'ctx': 'cpu', 'cell': 'RNNCell', 'seq_len': 2, 'batch_size': 1, 'hidden_dim': 4,
             'is_train': False, 'hybridize_cell': False, 'hybridize_layer': False}
        rounds = {'warmup': 0, 'test': 1}
        recipe = from_data({'benchmark': 'foreach', 'matrix': m, 'rounds': rounds})
        plan = driver.plan_bench(recipe, LocalExecutor())   # one case
        display = driver.Display(plan, total=1, progress=False)   # no bar
        display.header(plan.cases[0])   # the seed's lines: the benchmark, the sizes, the variant
        display.close()
    """

    def __init__(self, plan, total, progress):
        self.plan, self.progress = plan, progress
        self.shown = {"case": None, "bench": None, "key": None}
        self.bar = tqdm(total=total, unit="case", file=sys.stderr, disable=not progress,
                        dynamic_ncols=True)
        self.rounds = None

    def say(self, line):
        """Print `line` where the plan's format leaves room for it (stderr for csv/html).

        Example::

            from gluonlite.bench import driver
            from gluonlite.bench.executors import LocalExecutor
            from gluonlite.bench.recipe import from_data
            m = {'ctx': 'cpu', 'cell': 'RNNCell', 'seq_len': 2, 'batch_size': 1, 'hidden_dim': 4,
                 'is_train': False, 'hybridize_cell': False, 'hybridize_layer': False}
            rounds = {'warmup': 0, 'test': 1}
            recipe = from_data({'benchmark': 'foreach', 'matrix': m, 'rounds': rounds})
            plan = driver.plan_bench(recipe, LocalExecutor())   # one case
            display = driver.Display(plan, total=1, progress=False)
            display.say('Time used: mean = 1.000 ms')   # stdout: the plan's format is text
            display.close()
        """
        say(line, err=self.plan.to_stderr)

    def header(self, case):
        """Print the seed's header lines for `case` (those that changed since the last).

        Example::

            from gluonlite.bench import driver
            from gluonlite.bench.executors import LocalExecutor
            from gluonlite.bench.recipe import from_data
            m = {'ctx': 'cpu', 'cell': 'RNNCell', 'seq_len': 2, 'batch_size': 1, 'hidden_dim': 4,
                 'is_train': False, 'hybridize_cell': False, 'hybridize_layer': False}
            rounds = {'warmup': 0, 'test': 1}
            recipe = from_data({'benchmark': 'foreach', 'matrix': m, 'rounds': rounds})
            plan = driver.plan_bench(recipe, LocalExecutor())   # one case
            display = driver.Display(plan, total=1, progress=False)
            display.header(plan.cases[0])   # prints Benchmarking foreach, the sizes, the variant
            display.header(plan.cases[0])   # prints only the variant line: the rest is unchanged
            display.close()
        """
        for line in _header(case, self.shown["case"], self.shown["bench"]):
            self.say(line)
        self.shown.update(case=case, bench=case["benchmark"] or self.shown["bench"],
                          key=matrix.case_key(case))

    def started(self, task):
        """A local case starts: its header, and a progress callable over its rounds.

        Args:
            task: the `Task` starting (its second argument is the case).

        Returns:
            A callable ``progress(rounds_done)`` updating the rounds bar.

        Example::

            from gluonlite.bench import driver
            from gluonlite.bench.executors import LocalExecutor
            from gluonlite.bench.recipe import from_data
            m = {'ctx': 'cpu', 'cell': 'RNNCell', 'seq_len': 2, 'batch_size': 1, 'hidden_dim': 4,
                 'is_train': False, 'hybridize_cell': False, 'hybridize_layer': False}
            rounds = {'warmup': 0, 'test': 1}
            recipe = from_data({'benchmark': 'foreach', 'matrix': m, 'rounds': rounds})
            plan = driver.plan_bench(recipe, LocalExecutor())   # one case
            display = driver.Display(plan, total=1, progress=False)
            progress = display.started(plan.task(plan.cases[0], None))   # prints the header
            progress(1)   # one round done
            display.close()
        """
        self.bar.set_description(matrix.case_label(task.args[1]), refresh=False)
        self.header(task.args[1])
        test = self.plan.test
        total = self.plan.warmup + test if isinstance(test, int) else None
        self.rounds = tqdm(total=total, unit="round", leave=False, delay=2.0, file=sys.stderr,
                           disable=not (self.progress and sys.stderr.isatty()))
        return lambda k: self.rounds.update(k - self.rounds.n)

    def arrived(self, outcome, executor):
        """An outcome came back: a remote case's header comes now; returns its case.

        Args:
            outcome: the `Outcome` that came back.
            executor: the executor it came from (its busy workers are shown on the bar).

        Returns:
            The outcome's case dict.

        Example::

            from gluonlite.bench import driver
            from gluonlite.bench.executors import LocalExecutor
            from gluonlite.bench.recipe import from_data
            m = {'ctx': 'cpu', 'cell': 'RNNCell', 'seq_len': 2, 'batch_size': 1, 'hidden_dim': 4,
                 'is_train': False, 'hybridize_cell': False, 'hybridize_layer': False}
            rounds = {'warmup': 0, 'test': 1}
            recipe = from_data({'benchmark': 'foreach', 'matrix': m, 'rounds': rounds})
            plan = driver.plan_bench(recipe, LocalExecutor())   # one case
            from gluonlite.bench.executors import Outcome
            display = driver.Display(plan, total=1, progress=False)
            outcome = Outcome(plan.task(plan.cases[0], None), {'mean': 1.0})
            print(display.arrived(outcome, LocalExecutor())['cell'])   # RNNCell (after its header)
            display.close()
        """
        self._close_rounds()
        case = outcome.task.args[1]
        if self.shown["key"] != outcome.task.key:
            self.bar.set_description(matrix.case_label(case), refresh=False)
            self.header(case)
        busy = executor.busy()
        if busy is not None:
            self.bar.set_postfix_str(f"{busy}/{executor.workers} workers busy", refresh=False)
        return case

    def _close_rounds(self):
        if self.rounds is not None:
            self.rounds.close()
            self.rounds = None

    def close(self):
        """Close the progress bars (the run is over).

        Example::

            from gluonlite.bench import driver
            from gluonlite.bench.executors import LocalExecutor
            from gluonlite.bench.recipe import from_data
            m = {'ctx': 'cpu', 'cell': 'RNNCell', 'seq_len': 2, 'batch_size': 1, 'hidden_dim': 4,
                 'is_train': False, 'hybridize_cell': False, 'hybridize_layer': False}
            rounds = {'warmup': 0, 'test': 1}
            recipe = from_data({'benchmark': 'foreach', 'matrix': m, 'rounds': rounds})
            plan = driver.plan_bench(recipe, LocalExecutor())   # one case
            display = driver.Display(plan, total=1, progress=False)
            display.close()   # the run is over: closes the bars
        """
        self._close_rounds()
        self.bar.close()


def _header(case, last, last_bench):
    """The seed's header lines for a case, given the previous case and benchmark."""
    if case["impl"] != "gluonlite":
        return [RULE, "numpy %s  cell: %s  length: %d  batch size: %d dim: %d" % (
            case["impl"], case["cell"], case["seq_len"], case["batch_size"], case["hidden_dim"]),
            "is_train = %r" % case["is_train"]]
    lines = []
    if last_bench != case["benchmark"]:
        lines += [RULE, f"Benchmarking {case['benchmark']}"]
    group = ("cell", "ctx", "seq_len", "batch_size", "hidden_dim")
    if last is None or any(last[k] != case[k] for k in group) or last["impl"] != "gluonlite":
        lines += [RULE, "cell: %s  ctx: %s  length: %d  batch size: %d dim: %d" % (
            case["cell"], case["ctx"], case["seq_len"], case["batch_size"], case["hidden_dim"])]
    lines.append("is_train = %r, hybridize_cell = %r, hybridize_layer = %r" % (
        case["is_train"], case["hybridize_cell"], case["hybridize_layer"]))
    return lines


def run_cases(plan, todo, executor, run_case, display, recorder):
    """Run `todo` on `executor`, handing each outcome to `recorder` as it arrives (one case
    failing does not stop the others). KeyboardInterrupt passes through.

    Args:
        plan: the run's `Plan` (`plan_bench`).
        todo: the case dicts to run.
        executor: a `LocalExecutor` or `DaskExecutor`.
        run_case: the function timing a case (`runner.run_case`).
        display: the run's `Display`.
        recorder: the run's `Recorder`.

    Example::

        from gluonlite.bench import driver
        from gluonlite.bench.executors import LocalExecutor
        from gluonlite.bench.recipe import from_data
        m = {'ctx': 'cpu', 'cell': 'RNNCell', 'seq_len': 2, 'batch_size': 1, 'hidden_dim': 4,
             'is_train': False, 'hybridize_cell': False, 'hybridize_layer': False}
        rounds = {'warmup': 0, 'test': 1}
        recipe = from_data({'benchmark': 'foreach', 'matrix': m, 'rounds': rounds})
        plan = driver.plan_bench(recipe, LocalExecutor())   # one case
        from gluonlite.bench.executors import Outcome
        class Canned(LocalExecutor):   # a stand-in executor: answers each case, timing nothing
            def run(self, tasks, started=None):
                for t in tasks:
                    yield Outcome(t, {'mean': 1.0, 'std': 0.0, 'median': 1.0, 'q1': 1.0, 'q3': 1.0,
                                      'env': {}})
        display = driver.Display(plan, total=1, progress=False)
        recorder = driver.Recorder(plan, None, False, display)
        driver.run_cases(plan, plan.cases, Canned(), None, display, recorder)
        display.close()
        print(len(recorder.new), recorder.failed)   # 1 0
    """
    task_list = [plan.task(case, run_case) for case in todo]
    for outcome in executor.run(task_list, display.started):
        case = display.arrived(outcome, executor)
        if outcome.error is not None:
            recorder.failure(case, outcome.error)
        else:
            recorder.result(case, outcome.value)
        display.bar.update(1)


# ---- report -----------------------------------------------------------------------------
def report_bench(plan, writer, recorder, ran):
    """The summary of every result of the run's matrix (kept and new), charts, and the
    exit status: 0, or 1 when a case failed.

    Args:
        plan: the run's `Plan` (`plan_bench`).
        writer: the run's `results.ResultsFile` (its kept records count), or None.
        recorder: the run's `Recorder` (its new records and failures).
        ran: how many cases this run ran, for the failure message.

    Returns:
        The exit status, 0 or 1.

    Example::

        from gluonlite.bench import driver
        from gluonlite.bench.executors import LocalExecutor
        from gluonlite.bench.recipe import from_data
        m = {'ctx': 'cpu', 'cell': 'RNNCell', 'seq_len': 2, 'batch_size': 1, 'hidden_dim': 4,
             'is_train': False, 'hybridize_cell': False, 'hybridize_layer': False}
        rounds = {'warmup': 0, 'test': 1}
        recipe = from_data({'benchmark': 'foreach', 'matrix': m, 'rounds': rounds})
        plan = driver.plan_bench(recipe, LocalExecutor())   # one case
        recorder = driver.Recorder(plan, None, False, driver.Display(plan, 1, progress=False))
        recorder.result(plan.cases[0], {'mean': 1.0, 'std': 0.0, 'median': 1.0, 'env': {}})
        status = driver.report_bench(plan, None, recorder, ran=1)   # prints the summary table
        print(status)   # 0: no case failed
    """
    by_key = {matrix.case_key(r): r for r in (writer.records if writer else []) + recorder.new}
    table = [by_key[k] for k in map(matrix.case_key, plan.cases) if k in by_key]
    print_summary(table, plan.cfg["format"])
    if plan.plot and table:
        stem = os.path.splitext(os.path.basename(plan.out or plan.recipe.name))[0]
        for path in plot_records(table, plan.plot, stem):
            say(f"chart: {path}", err=plan.to_stderr)
    if recorder.failed:
        say(f"{PROG}: {recorder.failed} of {ran} cases failed", err=True)
    return 1 if recorder.failed else 0


def print_summary(records, fmt):
    """The summary table on stdout; its title and legend on stderr for CSV and HTML.

    Args:
        records: the result records (dicts, as read from a results file).
        fmt: 'text', 'markdown', 'csv' or 'html'.

    Example::

        from gluonlite.bench import driver
        rec = dict(impl='gluonlite', benchmark='foreach', cell='RNNCell', ctx='cpu(0)', seq_len=2,
                   batch_size=1, hidden_dim=4, is_train=False, hybridize_cell=False,
                   hybridize_layer=False, median=2.0, q1=1.9, q3=2.2)
        driver.print_summary([rec], 'csv')   # the CSV on stdout, its title on stderr
    """
    text = summary.summarize_by_host(records, fmt)
    if not text:
        return
    err = sys.stderr if fmt in ("csv", "html") else sys.stdout
    print(RULE, file=err)
    print(f"Summary ({fmt}): {summary.TITLE}", file=err)
    err.flush()
    print(text, flush=True)
    for legend in summary.legends(text, fmt):
        print(legend, file=err)


# ---- all four ---------------------------------------------------------------------------
def run_bench(recipe, resume=False, run_case=None, progress=True, executor=None,
              profile=False, plot=None, force=True):
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
        force: overwrite an output file that holds lines (else, without resume, that is
            an error).

    Returns:
        exit status (0, 1 if a case failed, 130 if interrupted).

    Raises:
        OutputError: the output file cannot be written (before any case runs, or, for a
            full disk, when a result cannot be written: the file keeps whole lines), or
            another run is writing it.
        UsageError: --resume on a file made with other rounds or seed; a case too large
            for this machine's memory.

    Example::

        from gluonlite.bench import driver
        from gluonlite.bench.executors import LocalExecutor
        from gluonlite.bench.recipe import from_data
        m = {'ctx': 'cpu', 'cell': 'RNNCell', 'seq_len': 2, 'batch_size': 1, 'hidden_dim': 4,
             'is_train': False, 'hybridize_cell': False, 'hybridize_layer': False}
        rounds = {'warmup': 0, 'test': 1}
        recipe = from_data({'benchmark': 'foreach', 'matrix': m, 'rounds': rounds})
        plan = driver.plan_bench(recipe, LocalExecutor())   # one case
        from gluonlite.bench.executors import Outcome
        class Canned(LocalExecutor):   # a stand-in executor: answers each case, timing nothing
            def run(self, tasks, started=None):
                for t in tasks:
                    yield Outcome(t, {'mean': 1.0, 'std': 0.0, 'median': 1.0, 'q1': 1.0, 'q3': 1.0,
                                      'env': {}})
        status = driver.run_bench(recipe, progress=False, executor=Canned())
        print(status)   # 0: the header, Time used and the summary are printed before it
    """
    executor = executor or LocalExecutor()
    plan = plan_bench(recipe, executor, profile, plot)
    writer = open_results(plan, resume, force)
    try:
        return _run_planned(plan, writer, executor, run_case or runner.run_case, progress)
    finally:
        if writer:
            writer.close()


def _run_planned(plan, writer, executor, run_case, progress):
    for line in plan.skipped:
        say(line, err=plan.to_stderr)
    done = writer.done if writer else set()
    todo = [c for c in plan.cases if matrix.case_key(c) not in done]
    if len(todo) < len(plan.cases):
        say(f"resuming: {len(plan.cases) - len(todo)} of {len(plan.cases)} cases already in "
            f"{plan.out}", err=plan.to_stderr)
    display = Display(plan, len(todo), progress)
    recorder = Recorder(plan, writer, executor.records_failures, display)
    try:
        run_cases(plan, todo, executor, run_case, display, recorder)
    except KeyboardInterrupt:
        display.close()
        kept = (f"; {len(recorder.new) + len(done)} finished cases are in {plan.out}"
                if plan.out else "")
        say(f"{PROG}: interrupted after {len(recorder.new)} of {len(todo)} cases{kept}",
            err=True)
        return 130
    finally:  # an error line must not land after a half-drawn bar
        display.close()
    return report_bench(plan, writer, recorder, len(todo))
