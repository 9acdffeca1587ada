#!/usr/bin/env bash
# The companion's install flow in a fresh venv, as docs/guide/mxnet-import.md describes it:
# one command installs gluonlite and `mxnet`; every process imports gluonlite as mxnet; pip
# takes it for MXNet 1.9.1 when resolving downstream libraries and never pulls Apache's wheel
# with the constraint file; Apache MXNet's engine beside it is refused in one line.
# usage: compat/check_install.sh [VENV_DIR]      (needs the package registry; ~2 minutes)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
V=${1:-$(mktemp -d)/venv}
C=$(mktemp)
printf 'numpy==1.23.5\nscipy<1.12\nmxnet==1.9.1+gluonlite.0.1.0\n' > "$C"
ok() { echo "ok   $*"; }
fail() { echo "FAIL $*"; exit 1; }

python3 -m venv "$V"
"$V/bin/pip" install -q -c "$C" "$ROOT" "$ROOT/mxnet-companion" 2>&1 | grep -v '^WARNING: Location' || true
"$V/bin/pip" show mxnet | grep -q '^Version: 1.9.1+gluonlite' && ok "pip show mxnet: 1.9.1+gluonlite" \
    || fail "pip show mxnet"

# a new process, from another folder, no PYTHONPATH
(cd / && env -u PYTHONPATH "$V/bin/python" - <<'PY') && ok "import mxnet is gluonlite in a new process" || fail "import"
import mxnet, gluonlite, mxnet.gluon.nn as nn
assert mxnet.__version__ == "1.9.1", mxnet.__version__
assert gluonlite.__version__ != "1.9.1"
assert nn is gluonlite.gluon.nn and mxnet.nd is gluonlite.nd
assert "site-packages" in mxnet.__file__, mxnet.__file__
PY

dry() { "$V/bin/pip" install --dry-run "$@" 2>&1 | grep -v '^WARNING: Location' || true; }
out=$(dry -c "$C" 'gluonts[mxnet]==0.16.3')
echo "$out" | grep -q '^Would install' && ! echo "$out" | grep '^Would install' | grep -q ' mxnet-' \
    && ok "gluonts[mxnet] (mxnet~=1.7) resolves without pulling Apache MXNet" || fail "gluonts: $out"
out=$(dry 'mxnet>=1.4,<2')
echo "$out" | grep -q 'Requirement already satisfied: mxnet' && ok "mxnet>=1.4,<2 already satisfied" \
    || fail "mxnet>=1.4,<2: $out"
out=$(dry -c "$C" sockeye==2.3.24)
echo "$out" | grep -q 'ResolutionImpossible' && ok "sockeye's mxnet==1.8.0.post0 pin refused under the constraint" \
    || fail "sockeye: $out"
out=$(dry sockeye==2.3.24)
echo "$out" | grep -q 'Would install.* mxnet-1.8.0.post0' && ok "without the constraint pip would replace the companion (documented)" \
    || fail "sockeye unconstrained: $out"
out=$(dry --no-deps sockeye==2.3.24)
echo "$out" | grep -q 'Would install sockeye-2.3.24' && ok "sockeye --no-deps keeps the companion" || fail "sockeye --no-deps: $out"

# Apache MXNet's engine written into the same folder (what `pip install mxnet-cu112` leaves)
SITE=$("$V/bin/python" -c 'import os, mxnet; print(os.path.dirname(mxnet.__file__))')
touch "$SITE/libmxnet.so"
set +e
msg=$("$V/bin/python" -c 'import mxnet' 2>&1 | tail -1)
set -e
rm "$SITE/libmxnet.so"
echo "$msg" | grep -q '^ImportError: two providers of the `mxnet` import name are installed: Apache MXNet' \
    && ok "two providers refused in one line: $msg" || fail "two providers: $msg"
echo "install flow: all checks passed ($V)"
