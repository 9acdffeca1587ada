#!/usr/bin/env bash
# Issue 44's GPU run, in one command that ends within BUDGET seconds (default 540: one
# 10-minute device call, leaving the machine's start inside a 15-minute lease):
#
#   1. the GPU suite: GLUONLITE_TEST_GPU=1 pytest -m gpu (a missing GPU fails it);
#   2. the seed matrix on the GPU (seed_rows.py: gluonlite's RNN layer and foreach /
#      while_loop loops, hybridized static, plain / fused / graphs / fused+graphs,
#      interleaved) beside PyTorch (torch_rows.py: cuDNN's nn.LSTM/GRU/RNN, the eager cell
#      loop, the CUDA-graphed cell loop): sequence 100, hidden 512, batch 1 and 32,
#      inference and training;
#   3. thread scaling on the CPU (thread_rows.py: RNN and CNN rows at 1, 4 and 16 threads,
#      gluonlite and PyTorch);
#   4. report.py: DIR/report.md from the rows.
#
# Run from the repository root:
#   bash benchmarks/gpu/run_gpu.sh                 # on the GPU machine: DIR=$OUT/gpu44
#   QUICK=1 THREADS=1,2 TORCH_PY=/work/venvs/gpu-torch/bin/python bash benchmarks/gpu/run_gpu.sh
#                                                  # a CPU check with tiny sizes
# Settings (environment): DIR (results folder), PY (python with gluonlite's needs and CuPy),
# TORCH_PY (python with torch; default PY), THREADS (default 1,4,16), QUICK (1: tiny sizes,
# GPU rows run on the CPU or are skipped with their reason), BUDGET (seconds).
set -u
cd "$(dirname "$0")/../.."
START=$(date +%s)
BUDGET=${BUDGET:-540}
PY=${PY:-python3}
TORCH_PY=${TORCH_PY:-$PY}
THREADS=${THREADS:-1,4,16}
DIR=${DIR:-${OUT:-results}/gpu44}
mkdir -p "$DIR"
rm -f "$DIR"/seed_rows.jsonl "$DIR"/torch_rows.jsonl "$DIR"/thread_rows.jsonl
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
deadline() { echo $((START + $1)); }   # seconds after the start
left() { echo $((START + BUDGET - $(date +%s))); }

if [ "${QUICK:-0}" = 1 ]; then
  SIZES=(--seq-len 5 --hidden 16)
  ROUNDS=(--rounds 2 --warmup 1)
  TSIZES=(--batch 4 --seq-len 5 --hidden 16 --image 8 --rounds 2 --warmup 1)
else
  SIZES=(--seq-len 100 --hidden 512)
  ROUNDS=(--rounds 10 --warmup 3)
  TSIZES=(--rounds 3 --warmup 1)
fi

{
  echo "started $(date -u +%FT%TZ) on $(hostname)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -2
  $PY -c "import numpy, sys; print('python', sys.version.split()[0], 'numpy', numpy.__version__)"
  $PY -c "import cupy; print('cupy', cupy.__version__, 'cuda', cupy.cuda.runtime.runtimeGetVersion())" 2>&1 | tail -1
  $TORCH_PY -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())" 2>&1 | tail -1
  git log --oneline -1 2>/dev/null
} > "$DIR/env.txt"
cat "$DIR/env.txt"

echo "== 1. GPU suite (at most 150 s)"
WHY=$($PY -c "from gluonlite.context import gpu_missing; print(gpu_missing() or '')" 2>&1 | tail -1)
if [ -n "$WHY" ]; then
  echo "= skipped: no GPU here: $WHY" > "$DIR/gpu_tests.log"
else
  XDIST=()
  $PY -c "import xdist" 2>/dev/null && XDIST=(-n 8)
  GLUONLITE_TEST_GPU=1 timeout 150 $PY -m pytest -m gpu -q -p no:cacheprovider "${XDIST[@]}" \
    tests > "$DIR/gpu_tests.log" 2>&1
fi
echo "pytest: $(tail -1 "$DIR/gpu_tests.log")"

echo "== 2a. seed matrix, gluonlite (until $((BUDGET * 55 / 100)) s)"
timeout $(( $(left) > 30 ? $(left) - 30 : 1 )) $PY benchmarks/gpu/seed_rows.py \
  --out "$DIR/seed_rows.jsonl" "${SIZES[@]}" "${ROUNDS[@]}" \
  --deadline "$(deadline $((BUDGET * 55 / 100)))"
echo "seed_rows exit $?"

echo "== 2b. seed matrix, PyTorch"
DEV=cuda
$TORCH_PY -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null || DEV=cpu
timeout $(( $(left) > 30 ? $(left) - 30 : 1 )) $TORCH_PY benchmarks/gpu/torch_rows.py \
  --out "$DIR/torch_rows.jsonl" --device $DEV "${SIZES[@]}" "${ROUNDS[@]}"
echo "torch_rows ($DEV) exit $?"

echo "== 3. thread scaling ($THREADS threads)"
timeout $(( $(left) > 15 ? $(left) - 15 : 1 )) $PY benchmarks/gpu/thread_rows.py \
  --out "$DIR/thread_rows.jsonl" --threads "$THREADS" --torch-python "$TORCH_PY" \
  "${TSIZES[@]}" --deadline "$(deadline $((BUDGET - 60)))"
echo "thread_rows exit $?"

echo "== 4. report ($(( $(date +%s) - START )) s so far)"
$PY benchmarks/gpu/report.py "$DIR" > /dev/null && cat "$DIR/report.md"
echo "done in $(( $(date +%s) - START )) s; results in $DIR"
