"""`python -m gluonlite.bench report|compare`: read finished (or partial) results files.

    python -m gluonlite.bench report FILE.jsonl [--format text|markdown|csv|html] [--plot DIR]
    python -m gluonlite.bench compare A.jsonl B.jsonl [--fail-slower 1.10] [--alpha 0.05]

`report` re-renders a results file without running anything: the summary table of a
bench file (as at the end of a run), or the epochs of a train file. `compare` matches
the cases of two bench files and gives, per case, the ratio B/A of the medians, the
p-value of a two-sided Mann-Whitney U test on the two cases' rounds (scipy.stats), and a
verdict: `slower` or `faster` when p < alpha, else `within noise`. Settings, machines and
commits that differ between the files are named in the header. `--fail-slower X` exits 1
when a case is significantly slower by a ratio of X or more (as `asv continuous` or
pytest-benchmark's `--benchmark-compare-fail` do in CI).

Lines that are not results (not JSON, or a JSON object that is not a result: a missing case
key, a null median) are skipped, each named on stderr with its line number and what is
wrong (the file is not changed). Exit status: 0 done; 1 compare found a case slower than
--fail-slower; 2 bad flags, a missing file or one with no results, no case in common.

Example:
    python -m gluonlite.bench compare results/main.jsonl results/branch.jsonl --fail-slower 1.1
"""
import argparse
import json
import math
import os
import sys
import traceback

from . import summary
from .matrix import case_key, case_label
from .plot import PlotError, plot_records, require_matplotlib
from .results import OutputError, error_line, read_records, record_problem, spread
from .summary import render_table as _render

__all__ = ["main", "compare_records", "describe_runs", "COMPARE_FIELDS"]

PROG = "gluonlite.bench"
COMPARE_FIELDS = ("case", "a_median_ms", "b_median_ms", "ratio_b_over_a", "p_value", "verdict")
_MIN_ROUNDS = 3  # fewer rounds than this cannot make a Mann-Whitney p-value below 0.05


class _Usage(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise _Usage(f"{message} (see {self.prog} --help)")


def _parsers():
    report = _Parser(prog=f"python -m {PROG} report",
                     description="Re-render a results file (bench or train) without running.")
    report.add_argument("file", metavar="FILE.jsonl")
    report.add_argument("--format", choices=["text", "markdown", "csv", "html"], default="text")
    report.add_argument("--plot", metavar="DIR", help="also draw its charts (PNG, SVG) in DIR")
    compare = _Parser(prog=f"python -m {PROG} compare",
                      description="Compare two bench results files case by case (B against A).")
    compare.add_argument("a", metavar="A.jsonl")
    compare.add_argument("b", metavar="B.jsonl")
    compare.add_argument("--format", choices=["text", "markdown", "csv"], default="text")
    compare.add_argument("--alpha", type=float, default=0.05,
                         help="significance level of the rank test (0.05)")
    compare.add_argument("--fail-slower", type=float, metavar="RATIO",
                         help="exit 1 if a case is significantly slower by RATIO or more")
    return {"report": report, "compare": compare}


_SHOW_BAD = 20  # bad lines named one by one; past this, counted


def _train_problem(rec):
    if "epoch" in rec or rec.get("final") is True or rec.get("failed") is True:
        return None
    return "not a train record: no epoch, final or failed"


def _load(path, bench_only=False):
    """Records of a results file (bench or train); names each line that is not a result
    on stderr; _Usage when there is none."""
    if not os.path.exists(path):
        raise _Usage(f"no results file at {path}")
    if os.path.isdir(path):
        raise _Usage(f"{path} is a folder, expected a JSON lines results file")
    try:
        train = not bench_only and _is_train(read_records(path)[0])
        bad = []
        records, _ = read_records(path, bad, _train_problem if train else record_problem)
    except OutputError as e:
        raise _Usage(str(e)) from None
    for number, _, why in bad[:_SHOW_BAD]:
        print(f"{PROG}: warning: {path} line {number}: {why}; skipped", file=sys.stderr)
    if len(bad) > _SHOW_BAD:
        print(f"{PROG}: warning: {len(bad) - _SHOW_BAD} more lines of {path} are not results; "
              "skipped", file=sys.stderr)
    if not records:
        why = f" ({len(bad)} line(s), none a result)" if bad else " (it is empty)"
        raise _Usage(f"{path} holds no results{why}")
    return records


def _is_train(records):
    return any("epoch" in r or r.get("final") is True for r in records)


def _train_table(records, fmt):
    """The epochs of a train results file as a table (one table per sweep run)."""
    epochs = [r for r in records if "epoch" in r]
    keys = []
    for r in epochs:
        keys += [k for k in r if k not in keys and not isinstance(r[k], (dict, list))]
    header = keys
    rows = [[_cell(r.get(k)) for k in keys] for r in epochs]
    finals = [r for r in records if r.get("final") is True]
    tail = [f"final: {r.get('metric')} = {_cell(r.get('value'))} (target {r.get('target')}, "
            f"passed {r.get('passed')})" + (f" run {r['run']}" if r.get("run") else "")
            for r in finals]
    return _render(header, rows, fmt), tail


def _cell(v):
    if isinstance(v, float):
        return f"{v:.6g}"
    return "" if v is None else str(v)


def _report(args):
    records = _load(args.file)
    if args.plot:
        require_matplotlib()
    err = sys.stderr if args.format in ("csv", "html") else sys.stdout
    if _is_train(records):
        table, tail = _train_table(records, args.format)
        print(table)
        for line in tail:
            print(line, file=err)
    else:
        bench = records
        failed = sum(1 for r in bench if r.get("failed"))
        print(f"{args.file}: {len(bench) - failed} results"
              + (f", {failed} failed" if failed else "") + describe_runs({"": records}),
              file=err)
        print(f"{summary.TITLE}", file=err)
        err.flush()
        text = summary.summarize_by_host(bench, args.format)
        print(text, flush=True)
        for legend in summary.legends(text, args.format):
            print(legend, file=err)
    if args.plot:
        for path in plot_records(records, args.plot,
                                 os.path.splitext(os.path.basename(args.file))[0]):
            print(f"chart: {path}", file=sys.stderr)
    return 0


def _run_facts(records):
    """What a file's results were made with: settings and machine, each as a set."""
    facts = {}

    def add(name, value):  # a value a file made by hand may hold in any JSON type
        facts.setdefault(name, set()).add(value if isinstance(value, (str, int, float,
                                                                      type(None)))
                                          else json.dumps(value))
    for r in records:
        if r.get("failed") or "epoch" in r:
            continue
        env = r.get("env") if isinstance(r.get("env"), dict) else {}
        if r.get("impl", "gluonlite") == "gluonlite" or "warmup" in r:
            add("rounds", f"warmup {r.get('warmup')}, test {r.get('rounds', r.get('n'))}")
        add("seed", r.get("seed"))
        add("host", env.get("host"))
        add("cpu", f"{env.get('cpu')} x{env.get('cpu_count')}")
        commit = env.get("commit") if isinstance(env.get("commit"), str) else "unknown"
        add("commit", commit[:12] + ("-dirty" if commit.endswith("-dirty") else ""))
        add("gluonlite", env.get("gluonlite"))
        add("numpy", env.get("numpy"))
        add("python", env.get("python"))
        threads = env.get("threads") if isinstance(env.get("threads"), dict) else {}
        add("threads", ", ".join(f"{k}={v}" for k, v in sorted(threads.items())) or "unset")
    return facts


def _show(values):
    return " | ".join(sorted(str(v) for v in values))


def describe_runs(files):
    """Header text naming the settings and machine of each file, and what differs.

    Args:
        files: {label: records}; one label -> a one-line summary; two -> lines naming
            each fact that differs between them.

    Example::

        from gluonlite.bench.report import describe_runs
        env = {'host': 'box', 'cpu': 'x86', 'cpu_count': 4, 'commit': 'abc'}
        a = [{'seed': 0, 'warmup': 1, 'rounds': 5, 'env': env}]
        b = [dict(a[0], env=dict(env, commit='def'))]
        print(describe_runs({'A': a}))
        # ; host box; cpu x86 x4; commit abc; rounds warmup 1, test 5
        print(describe_runs({'A': a, 'B': b}))   #   differs: commit: A abc; B def
    """
    facts = {label: _run_facts(recs) for label, recs in files.items()}
    if len(files) == 1:
        (f,) = facts.values()
        keys = ("host", "cpu", "commit", "rounds")
        return "".join(f"; {k} {_show(f[k])}" for k in keys if k in f)
    (la, fa), (lb, fb) = facts.items()
    lines = []
    for key in ("host", "cpu", "commit", "gluonlite", "numpy", "python", "threads", "rounds",
                "seed"):
        va, vb = fa.get(key, set()), fb.get(key, set())
        if va != vb:
            lines.append(f"  differs: {key}: A {_show(va)}; B {_show(vb)}")
        for label, v in ((la, va), (lb, vb)):
            if len(v) > 1:
                lines.append(f"  mixed within {label}: {key}: {_show(v)}")
    return "\n".join(lines)


def _case_name(r):
    return case_label(r)


def compare_records(a, b, alpha=0.05):
    """Match the cases of two runs and compare their medians and rounds.

    Args:
        a: the first run's result records (failed ones are ignored): the baseline.
        b: the second run's result records (failed ones are ignored).
        alpha: significance level of the two-sided Mann-Whitney U test.

    Returns:
        (rows, only_a, only_b): rows are dicts with case (label), key, a, b (medians, ms),
        ratio (b / a), p (None when a case has fewer than 3 rounds kept: then the
        interquartile ranges decide), verdict ('faster', 'slower', 'within noise');
        only_a and only_b are the labels of unmatched cases.

    Example:
        >>> r = {'impl': 'floor-step', 'cell': 'RNNCell', 'seq_len': 2, 'batch_size': 1,
        ...      'hidden_dim': 4, 'is_train': False}
        >>> rows, _, _ = compare_records([dict(r, median=1.0, times=[1.0, 1.01, 0.99] * 3)],
        ...                              [dict(r, median=2.0, times=[2.0, 2.02, 1.98] * 3)])
        >>> rows[0]['verdict'], round(rows[0]['ratio'], 2)
        ('slower', 2.0)
    """
    # scipy.stats takes seconds to import and only `compare` needs it: not at the top,
    # where every `python -m gluonlite.bench` run would pay for it
    from scipy.stats import mannwhitneyu
    index_b = {case_key(r): r for r in b if not r.get("failed")}
    rows, seen = [], set()
    only_a = []
    for ra in a:
        if ra.get("failed"):
            continue
        key = case_key(ra)
        rb = index_b.get(key)
        if rb is None:
            only_a.append(_case_name(ra))
            continue
        seen.add(key)
        (ma, la, ha), (mb, lb, hb) = spread(ra), spread(rb)
        ratio = mb / ma if ma else math.inf
        ta, tb = ra.get("times") or [], rb.get("times") or []
        p = None
        if len(ta) >= _MIN_ROUNDS and len(tb) >= _MIN_ROUNDS:
            p = float(mannwhitneyu(ta, tb, alternative="two-sided").pvalue)
            differs = p < alpha
        else:
            differs = hb < la or lb > ha  # interquartile ranges apart
        verdict = "within noise" if not differs or ratio == 1 else (
            "slower" if ratio > 1 else "faster")
        rows.append({"case": _case_name(ra), "key": key, "a": ma, "b": mb, "ratio": ratio,
                     "p": p, "verdict": verdict})
    only_b = [_case_name(r) for r in b if not r.get("failed") and case_key(r) not in seen
              and case_key(r) in index_b and r is index_b[case_key(r)]]
    return rows, only_a, only_b


def _floor_drift(rows):
    """A line on how far the numpy floor cases moved between the runs, or ''.

    The floors run the same hand-written numpy code whatever gluonlite's commit, so their
    B/A is the machine's own drift between the runs (load, clocks): a case of gluonlite
    that moved no more than that has not shown a change of the code. The rank test cannot
    see it: rounds of one run share that run's conditions.
    """
    ratios = [r["ratio"] for r in rows if not r["case"].startswith(("foreach", "while_loop"))
              and 0 < r["ratio"] < math.inf]
    if not ratios:
        return ""
    geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
    moved = sum(1 for r in rows if r["verdict"] != "within noise"
                and not r["case"].startswith(("foreach", "while_loop")))
    return (f"control: the {len(ratios)} numpy floor cases (code that does not change) have "
            f"B/A {min(ratios):.3f}..{max(ratios):.3f} (geometric mean {geo:.3f}; {moved} "
            "marked faster or slower): differences within that range may be the machine, "
            "not the code")


def _compare(args):
    if not 0 < args.alpha < 1:
        raise _Usage(f"--alpha: expected a number in (0, 1), got {args.alpha}")
    if args.fail_slower is not None and not args.fail_slower > 0:
        raise _Usage(f"--fail-slower: expected a ratio > 0, got {args.fail_slower}")
    for path in (args.a, args.b):
        if os.path.isfile(path) and _is_train(read_records(path)[0]):
            raise _Usage(f"compare: expected two bench results files, got the train file "
                         f"{path}")
    a, b = _load(args.a, bench_only=True), _load(args.b, bench_only=True)
    rows, only_a, only_b = compare_records(a, b, args.alpha)
    if not rows:
        raise _Usage(f"compare: {args.a} and {args.b} have no case in common")
    err = sys.stderr if args.format in ("csv", "html") else sys.stdout
    print(f"A: {args.a}\nB: {args.b}", file=err)
    diff = describe_runs({"A": a, "B": b})
    print(diff if diff else "  same settings, machine and commit", file=err)
    print(f"ratio = B median / A median (<1: B faster); verdict by a two-sided Mann-Whitney U "
          f"test on the rounds at alpha {args.alpha:g}", file=err)
    err.flush()
    control = _floor_drift(rows)
    if control:
        print(control, file=err)
    header = ["case", "A median ms", "B median ms", "B/A", "p", "verdict"]
    table = [[r["case"], f"{r['a']:.4f}", f"{r['b']:.4f}", f"{r['ratio']:.3f}",
              "" if r["p"] is None else f"{r['p']:.3g}", r["verdict"]] for r in rows]
    if args.format == "csv":
        header = list(COMPARE_FIELDS)
    print(_render(header, table, args.format), flush=True)
    counts = {v: sum(1 for r in rows if r["verdict"] == v)
              for v in ("faster", "slower", "within noise")}
    finite = [r["ratio"] for r in rows if 0 < r["ratio"] < math.inf]
    geo = math.exp(sum(map(math.log, finite)) / len(finite)) if finite else float("nan")
    print(f"{len(rows)} cases: {counts['faster']} faster, {counts['slower']} slower, "
          f"{counts['within noise']} within noise; geometric mean of B/A {geo:.3f}", file=err)
    for label, names in (("A", only_a), ("B", only_b)):
        if names:
            print(f"only in {label}: {len(names)} cases (e.g. {names[0]})", file=err)
    if args.fail_slower is not None:
        bad = [r for r in rows if r["verdict"] == "slower" and r["ratio"] >= args.fail_slower]
        if bad:
            for r in bad:
                print(f"{PROG}: slower: {r['case']}: B/A {r['ratio']:.3f} >= "
                      f"{args.fail_slower:g}", file=sys.stderr)
            return 1
    return 0


def main(argv):
    r"""Run `report` or `compare` (argv[0]); returns the exit status.

    Args:
        argv: the command line after the program name: ``['report', FILE, ...]`` or ``['compare', A,
            B, ...]``.

    Returns:
        The exit status: 0, 1 for an internal error (or a broken pipe), 2 for a usage, plot or
        output error, 130 when interrupted.

    Example::

        from gluonlite.bench.report import main
        import json
        rec = dict(impl='gluonlite', benchmark='foreach', cell='RNNCell', ctx='cpu(0)', seq_len=2,
                   batch_size=1, hidden_dim=4, is_train=False, hybridize_cell=False,
                   hybridize_layer=False, median=2.0, q1=1.9, q3=2.2, mean=2.0, std=0.1, rounds=3,
                   seed=0, env={'host': 'box', 'cpu': 'x86'})
        with open('r.jsonl', 'w') as f:
            f.write(json.dumps(rec) + '\n')
        status = main(['report', 'r.jsonl', '--format', 'csv'])   # the summary of the file
        print(status)   # 0
    """
    try:
        try:
            args = _parsers()[argv[0]].parse_args(argv[1:])
            return _report(args) if argv[0] == "report" else _compare(args)
        except (_Usage, PlotError, OutputError) as e:
            print(f"{PROG} {argv[0]}: error: {e}", file=sys.stderr)
            return 2
        except Exception as e:  # one line for the user; the variable shows the traceback
            if os.environ.get("GLUONLITE_BENCH_TRACEBACK"):
                traceback.print_exc()
            print(f"{PROG} {argv[0]}: internal error: {error_line(e)}", file=sys.stderr)
            return 1
    except KeyboardInterrupt:
        print(f"{PROG} {argv[0]}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
