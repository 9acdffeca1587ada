"""Compare the case runs of MXNet 1.9.1 and gluonlite: one line per case.

usage: python3 compat/report.py WORK REF.jsonl CMP.jsonl

Prints, per case: the status on MXNet and here, the largest absolute difference of each saved
output (both ran on MXNet's parameters), and the time ratio gluonlite / MXNet of the timed
call. Then the counts per library.
"""
import collections
import json
import os
import sys

import numpy as np


def _load(path):
    rows = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                row = json.loads(line)
                rows[row["case"]] = row
    return rows


def _diff(work, name):
    ref, cmp = (os.path.join(work, m, name + ".npz") for m in ("ref", "cmp"))
    if not (os.path.exists(ref) and os.path.exists(cmp)):
        return ""
    a, b = np.load(ref), np.load(cmp)
    parts = []
    for k in a.files:
        if k not in b.files:
            parts.append(f"{k}: missing")
        elif a[k].shape != b[k].shape:
            parts.append(f"{k}: shape {a[k].shape} vs {b[k].shape}")
        else:
            x, y = a[k].astype("float64"), b[k].astype("float64")
            d = float(np.max(np.abs(x - y))) if x.size else 0.0
            scale = float(np.max(np.abs(x))) if x.size else 0.0
            parts.append(f"{k} {d:.1e}" + (f" (|ref| {scale:.1e})" if scale > 10 else ""))
    return "; ".join(parts)


def main(work, ref_path, cmp_path):
    ref, cmp = _load(ref_path), _load(cmp_path)
    counts = collections.defaultdict(lambda: [0, 0, 0])
    print(f"{'case':46s} {'MXNet':6s} {'here':6s} {'ratio':>7s}  max |diff| (same parameters)")
    for name in ref.keys() | cmp.keys():
        pass
    for name in list(ref) + [n for n in cmp if n not in ref]:
        r, c = ref.get(name, {}), cmp.get(name, {})
        lib = name.split(".")[0]
        counts[lib][0] += 1
        counts[lib][1] += r.get("status") == "ok"
        counts[lib][2] += c.get("status") == "ok"
        ratio = ""
        if r.get("status") == c.get("status") == "ok" and r.get("seconds"):
            ratio = f"{c['seconds'] / r['seconds']:.2f}x"
        note = _diff(work, name) if c.get("status") == "ok" else c.get("error", "not run")
        print(f"{name:46s} {r.get('status', '-'):6s} {c.get('status', '-'):6s} {ratio:>7s}  "
              f"{note}")
    print()
    for lib, (n, on_mx, here) in counts.items():
        print(f"{lib}: {on_mx}/{n} on MXNet 1.9.1, {here}/{n} here")
    total = [sum(v[i] for v in counts.values()) for i in range(3)]
    print(f"all: {total[1]}/{total[0]} on MXNet 1.9.1, {total[2]}/{total[0]} here")


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
