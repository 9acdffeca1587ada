"""Every `mxnet` module and name that MXNet's downstream libraries import resolves here.

downstream_imports.txt lists what GluonCV, GluonNLP, GluonTS, Sockeye, d2l, AutoGluon and
InsightFace import from `mxnet` (and MXNet 1.9.1 has), as compat/scan_imports.py found it in
their sources. Each is resolved under `gluonlite` (the module the companion's `mxnet` is).
"""
import importlib
import os

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


def _entries():
    out = []
    with open(os.path.join(HERE, "downstream_imports.txt")) as f:
        for line in f:
            line = line.split("#")[0].strip()
            if line:
                kind, path = line.split()
                out.append((kind, path))
    return out


def _resolve(kind, path):
    name = "gluonlite" + path[len("mxnet"):]
    if kind == "module":
        return importlib.import_module(name)
    module, _, attr = name.rpartition(".")
    return getattr(importlib.import_module(module), attr)


# mxnet.__file__ and __version__ belong to the companion's own module (test_companion.py)
ENTRIES = [e for e in _entries() if e[1] not in ("mxnet.__file__", "mxnet.__version__")]


def test_the_list_covers_the_names_the_issue_found():
    paths = {p for _, p in ENTRIES}
    for p in ("mxnet.gluon.data.dataloader._MultiWorkerIter", "mxnet.gluon.loss._reshape_like",
              "mxnet.gluon.utils._get_repo_file_url", "mxnet.registry",
              "mxnet.gluon.block._flatten", "mxnet.metric.ndarray",
              "mxnet.gluon.nn.activations.Activation"):
        assert p in paths


@pytest.mark.parametrize("kind, path", ENTRIES, ids=[p for _, p in ENTRIES])
def test_resolves(kind, path):
    assert _resolve(kind, path) is not None
