"""A/B of two source trees of gluonlite on the loop and RNN benchmark, interleaved.

    python benchmarks/ab_trees.py --old /path/to/old/tree --new /path/to/new/tree
        [--rounds 4] [--json FILE] [-- rnn_floor.py options]

Each round runs `benchmarks/rnn_floor.py` (of each tree, on that tree's gluonlite) once for
the old tree and once for the new one, in alternating order (old first in even rounds, new
first in odd ones), so drift on a loaded machine hits both alike. A run's figure for a
gluonlite layer is its median time over the floor-fused loop's median in the same run (the
ratio rnn_floor.py reports); the table gives, per case and layer, the median of those
ratios over the rounds for each tree, their spread (min-max), and new / old.

The default rnn_floor.py options: LSTMCell and RNNCell, batches 1 and 32, infer and train,
seq_len 50, input and hidden 64, the hybridized foreach and while_loop layers and the fused
layer imperative and hybridized, 5 timed rounds after 1 warmup, no peer frameworks.

Exit status: 0; 1 when a run fails (its output is printed).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from statistics import median

DEFAULT = ["--cells", "LSTMCell,RNNCell", "--batches", "1,32", "--modes", "infer,train",
           "--seq-len", "50", "--input-size", "64", "--hidden-size", "64",
           "--layers", "hybrid:foreach,hybrid:while_loop,imperative:fused,hybrid:fused",
           "--rounds", "5", "--warmup", "1", "--no-mxnet", "--no-torch", "--no-jax"]


def run_tree(tree, options, out):
    """One rnn_floor.py run on `tree`; {(cell, batch, mode, layer): ratio to floor-fused}.

    Raises:
        RuntimeError: the run failed (with its output).
    """
    env = dict(os.environ, PYTHONPATH=tree)
    cmd = [sys.executable, os.path.join(tree, "benchmarks", "rnn_floor.py"), *options,
           "--json", out]
    done = subprocess.run(cmd, env=env, cwd=tree, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{tree}: rnn_floor.py exited {done.returncode}:\n"
                           f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    with open(out) as f:
        raw = json.load(f)
    ratios = {}
    for case in raw:
        floor = median(case["ms"]["floor-fused"])
        for name, ms in case["ms"].items():
            if name.startswith("gluonlite"):
                key = (case["cell"], case["batch"], case["mode"], name[len("gluonlite "):])
                ratios[key] = median(ms) / floor
    return ratios


def main(argv=None):
    """Run the rounds and print the table (see the module docstring)."""
    argv = sys.argv[1:] if argv is None else argv
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True, help="the old tree (a gluonlite checkout)")
    ap.add_argument("--new", required=True, help="the new tree")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--json", help="also write every run's ratios here")
    a = ap.parse_args(argv)
    options = extra or DEFAULT
    runs = {"old": [], "new": []}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(a.rounds):
            order = ("old", "new") if r % 2 == 0 else ("new", "old")
            for which in order:
                try:
                    runs[which].append(run_tree(getattr(a, which), options,
                                                os.path.join(tmp, f"{which}{r}.json")))
                except RuntimeError as exc:
                    print(exc, file=sys.stderr)
                    return 1
                print(f"round {r + 1}/{a.rounds}: {which} done", file=sys.stderr, flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({k: [{" ".join(map(str, key)): v for key, v in run.items()}
                           for run in runs[k]] for k in runs}, f, indent=1)
    print(f"old: {a.old}\nnew: {a.new}\n{a.rounds} rounds of rnn_floor.py "
          f"{' '.join(options)}\n")
    print("| cell | batch | mode | layer | old: median (min-max) | new: median (min-max) "
          "| new / old |")
    print("|---|---:|---|---|---:|---:|---:|")
    for key in sorted(runs["old"][0]):
        olds = [run[key] for run in runs["old"]]
        news = [run[key] for run in runs["new"] if key in run]
        o, n = median(olds), median(news)
        print(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {o:.3f} ({min(olds):.3f}-"
              f"{max(olds):.3f}) | {n:.3f} ({min(news):.3f}-{max(news):.3f}) | {n / o:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
