"""Write benchmarks/README.md, the current benchmark report, from the result files kept here.

usage: python3 benchmarks/make_report.py [--check]

Each `benchmarks/data/*.json` is one benchmark's latest recorded run: what it measures, the
command that makes it, the run's conditions, one sentence on what it shows, and its tables
(header, column alignment, rows, caption). A benchmark CLI result file (`.jsonl`, as
`python -m gluonlite.bench --out` writes it) named by a data file's `"jsonl"` key is read
raw: its table is computed here from the timed rounds (medians, interquartile ranges,
ratios of medians). To update a section, rerun its command, put the new numbers (or the new
`.jsonl`) in its data file and run this script again. `--check` exits 1 when README.md
differs from what the data files give, without writing it.
"""
import argparse
import glob
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
README = os.path.join(HERE, "README.md")

INTRO = """# Benchmarks: the current report

This file is written by `python3 benchmarks/make_report.py` from the result files in
`benchmarks/data/` (do not edit it by hand). Each section names what the benchmark
measures, the command that reruns it, the conditions of the run the numbers come from, and
its table. Numbers were taken on this project's machine class: 2 cores (AMD EPYC), numpy with
OpenBLAS on one thread, often shared with other jobs. Times are medians over interleaved
rounds; a spread is the interquartile range (`q1..q3`), `±` the relative spread, or
`[smallest-largest]` of the rounds, as each table says; ratios are ratios of medians taken
in one run. Compare ratios, not absolute times: absolute times move by 10-30% between runs
on a shared machine. How each number moved over time is in `CHANGES.md`; the benchmark CLI
itself is described in `docs/BENCH.md`.
"""


def _md_table(header, align, rows):
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join("---:" if a == "right" else "---" for a in align) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return out


def _quartiles(times):
    q = statistics.quantiles(times, n=4, method="inclusive")
    return q[0], statistics.median(times), q[2]


def bench_cli_table(path):
    """The hybridized layer (cell and layer hybridized) of a benchmark CLI result file, per
    cell, batch and mode: its median ms with the interquartile range, the speedup over the
    imperative layer and the ratio to the fused numpy floor of the same context."""
    records = []
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line:
                records.append(json.loads(line))

    def key(r):
        return (r["cell"], r["batch_size"], "train" if r["is_train"] else "infer")

    floors = {key(r): r for r in records if r["impl"] == "floor-fused"}
    rows = []
    for r in records:
        if r["impl"] != "gluonlite" or not (r["hybridize_cell"] and r["hybridize_layer"]):
            continue
        imperative = next(x for x in records if x["impl"] == "gluonlite"
                          and key(x) == key(r) and x["benchmark"] == r["benchmark"]
                          and not x["hybridize_cell"] and not x["hybridize_layer"])
        q1, med, q3 = _quartiles(r["times"])
        floor = statistics.median(floors[key(r)]["times"])
        rows.append([r["cell"], r["benchmark"], r["batch_size"], key(r)[2],
                     "%.2f (%.2f..%.2f)" % (med, q1, q3),
                     "%.2f" % (statistics.median(imperative["times"]) / med),
                     "%.2f" % (med / floor)])
    rows.sort(key=lambda x: (x[0], x[2], x[3], x[1]))
    header = ["cell", "loop", "batch", "mode", "hybridized ms (q1..q3)",
              "speedup over imperative", "x floor-fused"]
    env = records[0]["env"]
    facts = "%d results; %s x%s; numpy %s; rounds %s after %s warmup" % (
        len(records), env.get("cpu", "?"), env.get("cpu_count", "?"), env.get("numpy", "?"),
        records[0].get("rounds"), records[0].get("warmup"))
    return header, ["left", "left", "right", "left", "right", "right", "right"], rows, facts


def section(data):
    out = ["## " + data["title"], "",
           "`%s`. %s" % (data["script"], data["measures"]), "",
           "```bash", data["command"], "```", "",
           "Run: " + data["run"], "", data["reading"], ""]
    for table in data.get("tables", []):
        out += ["**%s**" % table["caption"], ""]
        out += _md_table(table["header"], table["align"], table["rows"]) + [""]
        if table.get("note"):
            out += [table["note"], ""]
    if data.get("jsonl"):
        header, align, rows, facts = bench_cli_table(data["jsonl"])
        out += ["**%s** (computed from `%s`: %s)" % (data.get("jsonl_caption", "Results"),
                                                     data["jsonl"], facts), ""]
        out += _md_table(header, align, rows) + [""]
    return out


def render():
    """The report's text, from every `benchmarks/data/*.json` in name order."""
    lines = [INTRO]
    files = sorted(glob.glob(os.path.join(HERE, "data", "*.json")))
    datas = []
    for path in files:
        with open(path, encoding="utf-8") as f:
            datas.append(json.load(f))
    lines += ["| benchmark | script | shows |", "|---|---|---|"]
    for data in datas:
        lines.append("| %s | `%s` | %s |" % (data["title"], data["script"],
                                             data["reading"].split(". ")[0].rstrip(".") + "."))
    lines.append("")
    for data in datas:
        lines += section(data)
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true",
                    help="exit 1 if README.md is not what the data files give")
    args = ap.parse_args(argv)
    text = render()
    if args.check:
        with open(README, encoding="utf-8") as f:
            same = f.read() == text
        print("benchmarks/README.md is %s" % ("current" if same else "stale: rerun the script"))
        return 0 if same else 1
    tmp = README + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, README)  # never a half-written report
    print("wrote %s (%d lines)" % (os.path.relpath(README, ROOT), text.count("\n")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
