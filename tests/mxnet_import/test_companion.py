"""The `mxnet` import name provided by mxnet-companion/ (see docs/guide/mxnet-import.md).

The companion's package is imported from its source folder in a child interpreter (the
installed layout is the same folder copied into site-packages; compat/check_install.sh tests
the pip flow in real venvs), so this process keeps no `mxnet` module.
"""
import json
import os
import shutil
import subprocess
import sys
import textwrap
import tomllib

import pytest

import gluonlite
from gluonlite import mxnet_alias

# processes, files and text only: .ci/run's numpy 1.23 suite leaves it to the numpy 2 one
pytestmark = pytest.mark.numpy_agnostic

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMPANION = os.path.join(ROOT, "mxnet-companion")


def _run(code, *path):
    """Run `code` in a child python with `path` (then the repository) first on sys.path;
    any warning is an error (pytest configurations such as GluonNLP's make it one)."""
    boot = f"import sys; sys.path[:0] = {list(path) + [ROOT]!r}\n"
    return subprocess.run([sys.executable, "-W", "error", "-c", boot + textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)


def test_mxnet_is_gluonlite_with_mxnet_version():
    r = _run("""
        import json, mxnet, gluonlite
        import mxnet.gluon.nn as nn
        import gluonlite.gluon.nn as gnn
        from mxnet.ndarray.contrib import adamw_update   # a module with a __getattr__
        import mxnet.ndarray.contrib
        from mxnet.gluon.model_zoo import vision
        from mxnet.gluon.data.dataloader import DataLoader
        import gluonlite.gluon.data.dataloader as gdl
        x = mxnet.nd.ones((2, 3))
        errors = []
        for stmt in ("import mxnet._ffi", "import mxnet.gluon.no_such_module",
                     "mxnet.no_such_name"):
            try:
                exec(stmt)
            except (ImportError, AttributeError) as e:
                errors.append(type(e).__name__ + ": " + str(e))
        print(json.dumps({
            "version": mxnet.__version__, "gl_version": gluonlite.__version__,
            "nn_same": nn is gnn, "nd_same": mxnet.nd is gluonlite.nd,
            "gluon_same": mxnet.gluon is gluonlite.gluon,
            "vision": vision.__name__, "loader_same": DataLoader is gdl.DataLoader,
            "isinstance": isinstance(x, gluonlite.nd.NDArray),
            "spec_kept": nn.__spec__.name,
            "in_modules": sys.modules["mxnet.gluon.nn"] is gnn,
            "dir_has_gluon": "gluon" in dir(mxnet), "errors": errors,
            "contrib_same": mxnet.ndarray.contrib is gluonlite.ndarray.contrib,
        }))
    """, COMPANION)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert got["version"] == "1.9.1" == mxnet_alias.MXNET_API_VERSION
    assert got["gl_version"] == gluonlite.__version__ != "1.9.1"
    assert got["nn_same"] and got["nd_same"] and got["gluon_same"] and got["loader_same"]
    assert got["isinstance"] and got["in_modules"] and got["dir_has_gluon"]
    assert got["contrib_same"]
    assert got["vision"] == "gluonlite.gluon.model_zoo.vision"
    assert got["spec_kept"] == "gluonlite.gluon.nn"
    # a module MXNet has and gluonlite lacks, a typo, a missing attribute
    ffi, typo, attr = got["errors"]
    assert ffi.startswith("ModuleNotFoundError: No module named 'mxnet._ffi': MXNet 1.9.1 has it")
    assert "does not implement it" in ffi
    assert "neither MXNet 1.9.1 nor gluonlite" in typo
    assert attr.startswith("AttributeError: module 'mxnet' (gluonlite") and "no_such_name" in attr


def _fake_engine(folder):
    with open(os.path.join(folder, "libmxnet.so"), "wb") as f:
        f.write(b"\x7fELF not really")


def test_refuses_in_one_line_when_apache_mxnet_is_installed_too(tmp_path):
    # 1: Apache MXNet installed over the companion (its engine in the same folder);
    # 2: Apache MXNet in another folder of sys.path, behind the companion.
    site = tmp_path / "site"
    shutil.copytree(os.path.join(COMPANION, "mxnet"), site / "mxnet")
    _fake_engine(site / "mxnet")
    other = tmp_path / "other"
    (other / "mxnet").mkdir(parents=True)
    _fake_engine(other / "mxnet")
    r = _run(f"""
        for first in ({str(site)!r}, {COMPANION!r}):
            sys.path[:0] = [first, {str(other)!r}]
            sys.modules.pop("mxnet", None)
            try:
                import mxnet
            except ImportError as e:
                print(str(e))
            else:
                print("imported")
            del sys.path[:2]
    """)
    assert r.returncode == 0, r.stderr
    same, elsewhere = r.stdout.strip().split("\n")
    for line in (same, elsewhere):
        assert line.startswith("two providers of the `mxnet` import name are installed: "
                               "Apache MXNet (")
        assert "gluonlite's companion mxnet 1.9.1+gluonlite" in line
    assert str(site / "mxnet" / "libmxnet.so") in same
    assert str(other / "mxnet" / "libmxnet.so") in elsewhere


def test_companion_metadata_matches_gluonlite():
    with open(os.path.join(COMPANION, "pyproject.toml"), "rb") as f:
        project = tomllib.load(f)["project"]
    assert project["name"] == "mxnet"
    assert project["version"] == mxnet_alias.COMPANION_VERSION
    assert project["dependencies"] == [f"gluonlite=={gluonlite.__version__}"]


@pytest.mark.parametrize("requirement, accepted", [
    ("mxnet>=1.4,<2", True),          # gluoncv's check, d2l's era
    ("mxnet~=1.7", True),             # gluonts[mxnet]
    ("mxnet", True),
    ("mxnet==1.9.1", True),           # a public pin matches any local label
    ("mxnet==1.8.0.post0", False),    # sockeye: install it with --no-deps (see the guide)
    ("mxnet>=2", False),
])
def test_pip_sees_the_companion_as_mxnet_1_9_1(requirement, accepted):
    from packaging.requirements import Requirement
    req = Requirement(requirement)
    assert req.specifier.contains(mxnet_alias.COMPANION_VERSION) is accepted
