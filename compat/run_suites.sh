#!/usr/bin/env bash
# The downstream libraries' own unit tests, at their releases, on MXNet 1.9.1 and here.
# usage: compat/run_suites.sh MX_VENV GL_VENV WORK [SUITE ...]
#   SUITE: gluonts (test/mx of the gluonts 0.16.3 sdist), gluonnlp (tests/unittest at tag
#   v0.10.0 of dmlc/gluon-nlp), gluoncv (tests/unittests of dmlc/gluon-cv's last master, the
#   source of the 0.10.5.post0 wheel), sockeye (test/unit at tag 2.3.24 of awslabs/sockeye).
#   DeprecationWarnings are ignored and other warnings stay warnings, on both sides
#   (GluonNLP's pytest.ini makes every warning an error, and MXNet itself trips numpy 1.23's
#   np.bool deprecation). WORK/src/<suite> must hold those trees (compat/README.md says how
#   to fetch them). Needs pytest-timeout and pytest-xdist in both venvs: one xdist worker runs
#   the tests, so a test that crashes the interpreter (MXNet segfaults in one of GluonNLP's)
#   counts as failed and the run goes on; --tb=line, as pytest's source display itself
#   crashes on one of GluonNLP's failures under MXNet. No network: tests that download fail
#   on both sides alike.
set -uo pipefail
MX=$1; GL=$2; WORK=$3; shift 3
SUITES=${*:-gluonts gluonnlp gluoncv sockeye}
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MXNET_HOME=$WORK/mxnet_home
for S in $SUITES; do
  case $S in
    # GluonTS marks tests flaky(retries=N), pytest-retry's form; the flaky plugin GluonNLP's
    # suite needs fails those at setup, so it is off for GluonTS (each such test runs once)
    gluonts)  DIR=$WORK/src/gluonts/test/mx; ROOTDIR=$WORK/src/gluonts; MARK="not gpu"
              EXTRA=(-p no:flaky) ;;
    gluonnlp) DIR=$WORK/src/gluon-nlp/tests/unittest; ROOTDIR=$WORK/src/gluon-nlp
              MARK="not gpu and not remote_required and not integration"; EXTRA=() ;;
    gluoncv)  DIR=$WORK/src/gluon-cv/tests/unittests; ROOTDIR=$WORK/src/gluon-cv; MARK="not gpu"
              EXTRA=() ;;
    sockeye)  DIR=$WORK/src/sockeye/test/unit; ROOTDIR=$WORK/src/sockeye; MARK="not gpu"
              EXTRA=() ;;
    *) echo "unknown suite $S" >&2; exit 2 ;;
  esac
  for P in mx gl; do
    V=$MX; [ $P = gl ] && V=$GL
    (cd "$ROOTDIR" && timeout 3000 "$V/bin/python" -m pytest "$DIR" -q -p no:cacheprovider \
        --timeout 300 -m "$MARK" -o "filterwarnings=ignore::DeprecationWarning" "${EXTRA[@]}" \
        -n 1 --max-worker-restart 1000 --continue-on-collection-errors --tb=line --junitxml="$WORK/$S-$P.xml" > "$WORK/$S-$P.log" 2>&1)
    echo "$S on $P: $(tail -1 "$WORK/$S-$P.log")"
  done
done
