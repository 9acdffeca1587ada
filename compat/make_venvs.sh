#!/usr/bin/env bash
# Build DIR/mx (MXNet 1.9.1) and DIR/gl (gluonlite + the mxnet companion), both on numpy
# 1.23.5, with GluonCV 0.10.5.post0, GluonNLP 0.10.0, GluonTS 0.16.3, Sockeye 2.3.24 and d2l
# 1.0.3 (docs/guide/mxnet-import.md explains each pin).   usage: compat/make_venvs.sh DIR
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DIR=$1
mkdir -p "$DIR"
C=$DIR/constraints.txt
printf 'numpy==1.23.5\nscipy<1.12\n' > "$C"
K=$DIR/keep-companion.txt
printf 'mxnet==1.9.1+gluonlite.0.1.0\n' > "$K"
python3 -m venv "$DIR/mx"
python3 -m venv "$DIR/gl"
"$DIR/mx/bin/pip" install -q -c "$C" mxnet==1.9.1
"$DIR/gl/bin/pip" install -q -c "$C" -c "$K" -e "$ROOT" "$ROOT/mxnet-companion"
# GluonCV and GluonTS install plainly next to the companion (it satisfies their mxnet pins)
"$DIR/gl/bin/pip" install -q -c "$C" -c "$K" gluoncv==0.10.5.post0 'gluonts[mxnet]==0.16.3'
"$DIR/mx/bin/pip" install -q -c "$C" --no-deps gluoncv==0.10.5.post0 gluonts==0.16.3
for V in mx gl; do
  P="$DIR/$V/bin/pip"
  X=(-c "$C"); [ $V = gl ] && X+=(-c "$K")
  # sockeye pins mxnet==1.8.0.post0 and d2l pins jupyter/numpy/pandas: without their deps
  $P install -q "${X[@]}" --no-deps sockeye==2.3.24 d2l==1.0.3
  $P install -q "${X[@]}" sacrebleu==1.4.14 tqdm requests matplotlib portalocker Pillow yacs \
      'pandas<3' pyyaml autocfg opencv-python-headless==4.10.0.84 'pydantic<3' toolz \
      typing-extensions cython packaging ipython matplotlib-inline wheel scipy pytest \
      pytest-timeout pytest-xdist flaky
  $P install -q "${X[@]}" --no-deps --no-build-isolation gluonnlp==0.10.0
done
"$DIR/gl/bin/python" -c 'import mxnet, gluonlite; assert mxnet.gluon is gluonlite.gluon'
echo "made $DIR/mx and $DIR/gl"
