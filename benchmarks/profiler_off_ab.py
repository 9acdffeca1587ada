"""What the profiler hooks cost when the profiler is off: an interleaved A/B of a bench
matrix between two source trees (A without the hooks, B with them, off).

Runs `python -m gluonlite.bench --recipe RECIPE` alternately with PYTHONPATH=A and
PYTHONPATH=B (A B, B A, A B, ...), pools each side's rounds per case into A.jsonl and
B.jsonl in OUT, then prints `python -m gluonlite.bench compare A.jsonl B.jsonl` (ratio of
medians and a Mann-Whitney U test per case).

    git archive e3fcded | tar -x -C /tmp/ab_b                    # the hooks (B)
    cp -r /tmp/ab_b /tmp/ab_a && for f in gluonlite/ndarray/invoke.py \\
        gluonlite/executor/plan.py gluonlite/executor/codegen.py; do \\
        git show 8d4d994:$f > /tmp/ab_a/$f; done                  # the same, without (A)
    python3 benchmarks/profiler_off_ab.py /tmp/ab_a /tmp/ab_b --repeats 3 --out /tmp/ab

Example of the recipe it uses by default: LSTMCell, both loops, batch 1 and 16, seq_len
50, hidden 128, inference and training, imperative and hybridized layer, 10 rounds.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

RECIPE = """\
benchmark: [foreach, while_loop]
matrix: {cell: [LSTMCell], ctx: [cpu], seq_len: [50], batch_size: [1, 16], hidden_dim: [128],
         is_train: [false, true], hybridize_cell: [false], hybridize_layer: [false, true]}
rounds: {warmup: 2, test: 10}
"""


def _run(root, recipe, out):
    env = dict(os.environ, PYTHONPATH=root, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    subprocess.run([sys.executable, "-m", "gluonlite.bench", "--recipe", recipe, "--out", out,
                    "--force", "--format", "csv"], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def _pool(runs):
    """One record per case with every run's rounds (stats recomputed)."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from gluonlite.bench.matrix import case_key
    from gluonlite.bench.results import stats
    pooled = {}
    for recs in runs:
        for r in recs:
            pooled.setdefault(case_key(r), (r, []))[1].extend(r["times"])
    out = []
    for first, times in pooled.values():
        rec = dict(first)
        rec.update(stats(times), rounds=f"{len(runs)}x{first['rounds']}")
        out.append(rec)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("a", help="source tree A (without the hooks)")
    p.add_argument("b", help="source tree B (with the hooks, profiler off)")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--out", default=tempfile.mkdtemp(prefix="profiler-ab-"))
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    recipe = os.path.join(args.out, "recipe.yaml")
    with open(recipe, "w", encoding="utf-8") as f:
        f.write(RECIPE)
    runs = {"a": [], "b": []}
    for i in range(args.repeats):
        order = ("a", "b") if i % 2 == 0 else ("b", "a")
        for side in order:
            root = args.a if side == "a" else args.b
            runs[side].append(_run(root, recipe, os.path.join(args.out, f"{side}{i}.jsonl")))
            print(f"run {i} {side} done", file=sys.stderr, flush=True)
    for side in "ab":
        with open(os.path.join(args.out, f"{side.upper()}.jsonl"), "w", encoding="utf-8") as f:
            for rec in _pool(runs[side]):
                f.write(json.dumps(rec) + "\n")
    env = dict(os.environ, PYTHONPATH=args.b)
    subprocess.run([sys.executable, "-m", "gluonlite.bench", "compare",
                    os.path.join(args.out, "A.jsonl"), os.path.join(args.out, "B.jsonl"),
                    "--format", "markdown"], env=env)


if __name__ == "__main__":
    main()
