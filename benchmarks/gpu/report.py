"""The report of one `run_gpu.sh` run: the GPU suite's count, the seed matrix beside
PyTorch (cuDNN's rows), what fusion and capture each bought, the thread-scaling table.

    python benchmarks/gpu/report.py DIR       # reads DIR/*.jsonl and DIR/gpu_tests.log,
                                              # writes DIR/report.md (and prints it)

Every figure is a median of interleaved rounds (ms); ratios are ratios of medians. A row
that did not run says why.
"""
import json
import os
import re
import statistics
import sys

LAYERS = ("rnn", "foreach", "while_loop")
VARIANTS = ("plain", "fused", "graphs", "fused+graphs")


def _rows(path):
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def _ms(r):
    if r is None:
        return "-"
    if "median" not in r:
        return f"skipped: {r.get('skipped')}"
    return f"{r['median']:.2f}"


def _ratio(a, b):
    if a is None or b is None or "median" not in a or "median" not in b:
        return "-"
    return f"{a['median'] / b['median']:.2f}"


def suite_section(log):
    """The GPU suite's closing line."""
    if not os.path.exists(log):
        return "GPU suite: not run (no gpu_tests.log)."
    text = open(log, encoding="utf-8", errors="replace").read()
    found = re.findall(r"^=*\s*(.*(?:passed|failed|error|skipped|no tests ran).*?)\s*=*$",
                       text, re.M)
    return "GPU suite (`GLUONLITE_TEST_GPU=1 pytest -m gpu`): " + (
        found[-1] if found else "no closing line; see gpu_tests.log")


def matrix_section(glite, torch):
    """The seed matrix table, and what fusion and capture bought."""
    by = {(r["impl"], r["layer"], r["variant"], r["cell"], r["batch"], r["mode"]): r
          for r in glite + torch}
    cases = sorted({(r["cell"], r["batch"], r["mode"]) for r in glite + torch},
                   key=lambda c: (c[0], c[1], c[2] != "infer"))
    device = next((r["ctx"] for r in glite if "median" in r), "-")
    header = ["cell", "batch", "mode"]
    header += [f"{lay} {v}" for lay in LAYERS for v in ("plain", "fused+graphs")]
    header += ["cuDNN layer", "torch eager loop", "torch graphed loop",
               "rnn f+g / cuDNN", "foreach f+g / eager loop"]
    rows = []
    for cell, n, mode in cases:
        g = {(lay, v): by.get(("gluonlite", lay, v, cell, n, mode)) for lay in LAYERS
             for v in VARIANTS}
        cudnn = by.get(("pytorch", "cudnn layer", "cudnn layer", cell, n, mode)) or \
            by.get(("pytorch", "fused layer", "fused layer", cell, n, mode))
        eager = by.get(("pytorch", "eager cell loop", "eager cell loop", cell, n, mode))
        graphed = by.get(("pytorch", "graphed cell loop", "graphed cell loop", cell, n, mode))
        rows.append([cell, n, mode] + [_ms(g[(lay, v)]) for lay in LAYERS
                                       for v in ("plain", "fused+graphs")]
                    + [_ms(cudnn), _ms(eager), _ms(graphed),
                       _ratio(g[("rnn", "fused+graphs")], cudnn),
                       _ratio(g[("foreach", "fused+graphs")], eager)])
    bought = []
    for lay in LAYERS:
        for v in VARIANTS[1:]:
            sp = [by[k0]["median"] / by[k1]["median"]
                  for k0 in by if k0[0] == "gluonlite" and k0[1] == lay and k0[2] == "plain"
                  for k1 in [("gluonlite", lay, v) + k0[3:]]
                  if k1 in by and "median" in by[k0] and "median" in by[k1]]
            bought.append([lay, v, f"{statistics.median(sp):.2f}" if sp else "-",
                           f"{min(sp):.2f} - {max(sp):.2f}" if sp else "-", len(sp)])
    errs = [r.get("max_rel_err", 0) for r in glite if "median" in r]
    return "\n\n".join([
        f"Seed matrix on {device}: median ms per call "
        f"(sequence {glite[0]['seq_len'] if glite else '-'}, "
        f"hidden {glite[0]['hidden'] if glite else '-'}); gluonlite layers hybridized with "
        "static_alloc and static_shape; f+g = device kernels and CUDA graphs on.",
        _table(header, rows),
        "What each bought: plain median / variant median, per layer, over the cases "
        "(median, range, count).",
        _table(["layer", "variant", "speedup", "range", "cases"], bought),
        f"Largest relative difference of any variant from plain: "
        f"{max(errs) if errs else float('nan'):.2g}."])


def thread_section(rows):
    """Thread scaling: ms per call at each thread count."""
    if not rows:
        return "Thread scaling: not run."
    counts = sorted({r["threads"] for r in rows})
    by = {}
    for r in rows:
        if "median" in r:
            by.setdefault((r["row"], r["impl"], r["variant"], r["mode"]), {})[r["threads"]] = \
                r["median"]
    skipped = sorted({f"{r['impl']} at {r['threads']} threads: {r['skipped']}"
                      for r in rows if "skipped" in r})
    table = []
    for (row, impl, variant, mode), t in sorted(by.items()):
        first, last = t.get(counts[0]), t.get(counts[-1])
        table.append([row, impl, variant, mode] + [f"{t[c]:.1f}" if c in t else "-"
                                                   for c in counts]
                     + [f"{first / last:.2f}" if first and last else "-"])
    r0 = rows[0]
    text = [f"Thread scaling on the CPU ({r0.get('cpu_count')} cores): median ms per call, "
            f"batch {r0['batch']}, sequence {r0['seq_len']}, hidden {r0['hidden']}.",
            _table(["row", "impl", "what", "mode"] + [f"{c} thr" for c in counts]
                   + [f"{counts[0]} / {counts[-1]} thr"], table)]
    if skipped:
        text.append("Skipped: " + "; ".join(skipped))
    return "\n\n".join(text)


def main(argv=None):
    """Write DIR/report.md; returns 0 (2 without DIR)."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or not os.path.isdir(argv[0]):
        print("usage: report.py DIR (the folder run_gpu.sh wrote)", file=sys.stderr)
        return 2
    d = argv[0]
    text = "\n\n".join([
        "# GPU run (issue 44)",
        suite_section(os.path.join(d, "gpu_tests.log")),
        matrix_section(_rows(os.path.join(d, "seed_rows.jsonl")),
                       _rows(os.path.join(d, "torch_rows.jsonl"))),
        thread_section(_rows(os.path.join(d, "thread_rows.jsonl")))]) + "\n"
    tmp = os.path.join(d, "report.md.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, os.path.join(d, "report.md"))
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
