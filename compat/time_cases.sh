#!/usr/bin/env bash
# Time ratios gluonlite / MXNet 1.9.1 of the cases, from interleaved rounds: each round runs
# every case on MXNet, then on gluonlite (both on MXNet's saved parameters; run_cases.sh first).
# Prints each case's median ratio and its spread (min-max over the rounds).
# usage: compat/time_cases.sh MX_VENV GL_VENV WORK ROUNDS [PREFIX ...]
set -euo pipefail
MX=$1; GL=$2; WORK=$3; ROUNDS=$4; shift 4
HERE="$(cd "$(dirname "$0")" && pwd)"
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MXNET_ENGINE_TYPE=NaiveEngine
ONLY=(); [ $# -gt 0 ] && ONLY=(--only "$@")
for r in $(seq 1 "$ROUNDS"); do
  "$MX/bin/python" "$HERE/cases.py" --mode time --work "$WORK" "${ONLY[@]}" \
      > "$WORK/time-mx-$r.jsonl" 2>/dev/null
  "$GL/bin/python" "$HERE/cases.py" --mode time --work "$WORK" "${ONLY[@]}" \
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
        if mx[c]["status"] == "ok" and gl.get(c, {}).get("status") == "ok" and mx[c]["seconds"]:
            ratios.setdefault(c, []).append(gl[c]["seconds"] / mx[c]["seconds"])
print(f"{'case':46s} {'median':>7s}  spread ({rounds} interleaved rounds, gluonlite / MXNet)")
for c, rs in ratios.items():
    print(f"{c:46s} {statistics.median(rs):6.2f}x  {min(rs):.2f}-{max(rs):.2f}")
PY
