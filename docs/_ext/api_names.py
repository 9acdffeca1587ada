"""The public names of gluonlite's namespaces, and MXNet 1.9.1's names among them.

One definition, read by the API reference generator (`api_pages.py`), the docstring count
(`docs/docstring_coverage.py`) and the tests that keep the docs true.

A namespace is a module users import (`mx.nd`, `mx.gluon.nn`, ...): every module that holds
a name of MXNet 1.9.1's public API (`mxnet-1.9.1-api.txt` beside this file, one
`module.name` a line as `dir()` showed them on MXNet 1.9.1), plus the namespaces gluonlite
adds (`EXTRA_NAMESPACES`). A namespace's public names are its `__all__` where it has one,
else every name of its `dir()` that does not start with `_` and is not a module or an
object defined outside gluonlite (`np`, `os`, `functools.partial` ...); MXNet's names in the
namespace are public whatever they are.
"""
import importlib
import inspect
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
MXNET_API = os.path.join(HERE, "mxnet-1.9.1-api.txt")
EXCLUSIONS = os.path.join(ROOT, "api_exclusions.txt")

# Namespaces of gluonlite beyond the modules that hold MXNet 1.9.1 names: MXNet modules
# its API list leaves out, and gluonlite's own (loops, partitioning, the benchmark CLI).
# A namespace that does not import (another engineer's, not merged yet) is skipped.
EXTRA_NAMESPACES = [
    "engine", "monitor", "image", "contrib.autograd", "contrib.amp", "executor",
    "control_flow", "subgraph", "gluon.contrib.estimator", "gluon.data.sampler",
    "numpy", "numpy_extension", "bench", "gluon.parameter", "gluon.data.dataloader",
    "cpu_memory", "blas_kernel",
]

# MXNet's short names for namespaces (`mx.nd` is `mx.ndarray`).
SHORT = {"ndarray": "nd", "symbol": "sym", "initializer": "init", "module": "mod",
         "kvstore": "kv", "visualization": "viz", "numpy": "np", "numpy_extension": "npx",
         }


def mxnet_names():
    """MXNet 1.9.1's public names as `(namespace, name)` pairs, in the list's order."""
    pairs = []
    with open(MXNET_API, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line:
                namespace, _, name = line.rpartition(".")
                pairs.append((namespace, name))
    return pairs


def exclusions():
    """`{"namespace.name": why}` for MXNet's names gluonlite leaves out on purpose."""
    out = {}
    with open(EXCLUSIONS, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                name, _, why = line.partition("#")
                out[name.strip()] = why.strip()
    return out


def import_namespace(namespace):
    """The module `gluonlite.<namespace>`, or None where it does not import."""
    try:
        return importlib.import_module("gluonlite." + namespace)
    except Exception:  # noqa: BLE001 - a namespace another branch adds may be absent
        return None


def namespaces():
    """Every namespace's name, MXNet's order first, then gluonlite's additions."""
    seen = []
    for namespace, _ in mxnet_names():
        if namespace not in seen:
            seen.append(namespace)
    return seen + [n for n in EXTRA_NAMESPACES if n not in seen]


def _is_gluonlite(obj):
    module = getattr(obj, "__module__", None) or ""
    return module == "gluonlite" or module.startswith("gluonlite.")


def public_names(namespace):
    """The sorted public names of `gluonlite.<namespace>` (see the module docstring)."""
    module = import_namespace(namespace)
    if module is None:
        return []
    mx_names = {n for ns, n in mxnet_names() if ns == namespace}
    if hasattr(module, "__all__"):
        names = set(module.__all__)
    else:
        names = set()
        for name in dir(module):
            if name.startswith("_"):
                continue
            obj = getattr(module, name)
            if inspect.ismodule(obj):
                continue
            if (inspect.isclass(obj) or callable(obj)) and not _is_gluonlite(obj):
                continue
            if not (inspect.isclass(obj) or callable(obj)) and name not in mx_names:
                continue  # module-level values (`np`, constants) unless MXNet lists them
            names.add(name)
    names |= {n for n in mx_names if hasattr(module, n)}
    return sorted(n for n in names if not inspect.ismodule(getattr(module, n, None)))


def display(namespace):
    """`mx.nd.contrib` for `ndarray.contrib`: the name an MXNet user types."""
    head, _, tail = namespace.partition(".")
    return "mx." + SHORT.get(head, head) + ("." + tail if tail else "")


def slug(namespace):
    """The API page's file name (without `.md`) of a namespace."""
    return re.sub(r"[^\w.]", "_", namespace)
