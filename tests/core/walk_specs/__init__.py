"""The registry walk's entries, one module per operator family.

Each module of this package defines `SPECS`, a dict from operator name to one check `C(...)`
or a list of them (see `common.C`). A new operator family adds its own module here; the walk
merges every module's dict and refuses an operator named in two.
"""
import importlib
import pkgutil

from .common import C, Idx, Pos, make  # noqa: F401  (what entries are written with)


def _collect():
    merged, where = {}, {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name == "common":
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        for name, check in module.SPECS.items():
            if name in merged:
                raise ValueError(f"walk_specs: operator {name!r} has entries in both "
                                 f"{where[name]!r} and {info.name!r}; keep one")
            merged[name], where[name] = check, info.name
    return merged


SPECS = _collect()
