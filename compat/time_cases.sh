#!/usr/bin/env bash
# Time ratios gluonlite / MXNet 1.9.1 of the cases, from interleaved rounds: each round runs
# every case on MXNet, then on gluonlite (both on MXNet's saved parameters; run_cases.sh first).
# Prints each case's median ratio and its spread (min-max over the rounds), of CPU time (one
# thread each: steady on a shared machine) and of wall time. Within a round a repeatable case's
# time is the median of REPEAT calls (default 5; cases.py --repeat).
# usage: [REPEAT=K] compat/time_cases.sh MX_VENV GL_VENV WORK ROUNDS [PREFIX ...]
set -euo pipefail
MX=$1; GL=$2; WORK=$3; ROUNDS=$4; shift 4
HERE="$(cd "$(dirname "$0")" && pwd)"
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MXNET_ENGINE_TYPE=NaiveEngine
ARGS=(--repeat "${REPEAT:-5}"); [ $# -gt 0 ] && ARGS+=(--only "$@")
# gluonlite's bytecode written now: where PYTHONDONTWRITEBYTECODE is set, an editable install
# would otherwise compile every module it imports from source in every process, and a case
# that imports one lazily would count that against gluonlite
"$GL/bin/python" -m compileall -q "$("$GL/bin/python" -c \
    'import os, gluonlite; print(os.path.dirname(gluonlite.__file__))')" > /dev/null
for r in $(seq 1 "$ROUNDS"); do
  "$MX/bin/python" "$HERE/cases.py" --mode time --work "$WORK" "${ARGS[@]}" \
      > "$WORK/time-mx-$r.jsonl" 2>/dev/null
  "$GL/bin/python" "$HERE/cases.py" --mode time --work "$WORK" "${ARGS[@]}" \
      > "$WORK/time-gl-$r.jsonl" 2>/dev/null
done
python3 - "$WORK" "$ROUNDS" <<'PY'
import json, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
def load(p):
    return {r["case"]: r for r in map(json.loads, (l for l in open(p) if l.startswith("{")))}
ratios = {}
for i in range(1, rounds + 1):
    mx, gl = load(f"{work}/time-mx-{i}.jsonl"), load(f"{work}/time-gl-{i}.jsonl")
    for c in mx:
        if mx[c]["status"] != "ok" or gl.get(c, {}).get("status") != "ok":
            continue
        for key in ("cpu_seconds", "seconds"):
            if mx[c].get(key) and gl[c].get(key) is not None:
                ratios.setdefault(c, {}).setdefault(key, []).append(gl[c][key] / mx[c][key])
print(f"{'case':46s} {'CPU':>7s} {'spread':>10s} {'wall':>7s} {'spread':>10s}   "
      f"({rounds} interleaved rounds, gluonlite / MXNet)")
for c, by in ratios.items():
    cols = []
    for key in ("cpu_seconds", "seconds"):
        rs = by.get(key)
        cols.append(f"{statistics.median(rs):6.2f}x {min(rs):4.2f}-{max(rs):4.2f}" if rs
                    else f"{'-':>7s} {'':>10s}")
    print(f"{c:46s} {cols[0]} {cols[1]}")
PY
