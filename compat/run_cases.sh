#!/usr/bin/env bash
# Run compat/cases.py under MXNet 1.9.1 (reference: saves parameters and outputs), then under
# gluonlite's `mxnet` (loads MXNet's parameters), one thread each, then compare.
# usage: compat/run_cases.sh MX_VENV GL_VENV WORK [PREFIX ...]
set -euo pipefail
MX=$1; GL=$2; WORK=$3; shift 3
HERE="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$WORK"
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MXNET_ENGINE_TYPE=NaiveEngine
ONLY=(); [ $# -gt 0 ] && ONLY=(--only "$@")
"$MX/bin/python" "$HERE/cases.py" --mode ref --work "$WORK" "${ONLY[@]}" \
    > "$WORK/ref.jsonl" 2> "$WORK/ref.err"
"$GL/bin/python" "$HERE/cases.py" --mode cmp --work "$WORK" "${ONLY[@]}" \
    > "$WORK/cmp.jsonl" 2> "$WORK/cmp.err"
python3 "$HERE/report.py" "$WORK" "$WORK/ref.jsonl" "$WORK/cmp.jsonl" | tee "$WORK/report.txt"
