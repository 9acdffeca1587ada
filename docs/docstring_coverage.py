"""Count gluonlite's public names that have no docstring.

usage: PYTHONPATH=. python3 docs/docstring_coverage.py [--list] [--own] [--fail] [--examples]
                                                         [--args] [--under PATH]

The public names are (1) every public name of every namespace (`docs/_ext/api_names.py`:
what the API reference documents), (2) every function and class defined in a public module
(one whose dotted path has no part starting with `_`), and (3) every public method and
property of those classes, each counted once. A name lacks a docstring when
`inspect.getdoc` finds none: a method that overrides a documented one shares its
docstring, as the API reference shows it; a class needs its own (`--own` also asks it of
methods). `--list` prints the names without one; `--fail` exits 1 when there are any;
`--examples` also counts the docstrings that show no example (no ``Example`` section, no
``>>>`` line); `--args` also counts the callables with a parameter their docstring does not
describe (`undescribed_parameters`), and `--under` limits the listing to names defined in files
under a path (``gluonlite/gluon``).
"""
import argparse
import importlib
import inspect
import os
import pkgutil
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "_ext"))
sys.path.insert(0, os.path.dirname(HERE))

import api_names  # noqa: E402


def _private(dotted):
    return any(part.startswith("_") for part in dotted.split("."))


def _public_modules():
    import gluonlite
    names = ["gluonlite"]
    for info in pkgutil.walk_packages(gluonlite.__path__, "gluonlite."):
        # `__main__` modules run a CLI when imported
        if not _private(info.name) and not info.name.endswith("__main__"):
            names.append(info.name)
    modules = []
    for name in names:
        try:
            modules.append(importlib.import_module(name))
        except Exception:  # noqa: BLE001 - an optional dependency's module (cupy, dask)
            continue
    return modules


def _members(cls):
    """(name, function) for each public method and property defined on `cls` itself."""
    for name, value in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(value, property):
            value = value.fget
        elif isinstance(value, (staticmethod, classmethod)):
            value = value.__func__
        if inspect.isfunction(value):
            yield name, value


def public_objects():
    """`{dotted name: (object, owner class or None)}` of every public name (see above)."""
    found = {}

    def add(dotted, obj, owner=None):
        key = (id(obj), owner)
        if key in seen:
            return
        seen.add(key)
        found[dotted] = (obj, owner)
        if inspect.isclass(obj) and _is_ours(obj):
            for name, member in _members(obj):
                add(dotted + "." + name, member, obj)

    seen = set()
    for namespace in api_names.namespaces():
        module = api_names.import_namespace(namespace)
        for name in api_names.public_names(namespace):
            obj = getattr(module, name, None)
            if inspect.isclass(obj) or inspect.isfunction(obj) or callable(obj):
                add("gluonlite.%s.%s" % (namespace, name), obj)
    for module in _public_modules():
        for name, obj in vars(module).items():
            if name.startswith("_") or not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            if getattr(obj, "__module__", None) == module.__name__:
                add("%s.%s" % (module.__name__, name), obj)
    return found


def _is_ours(cls):
    return (getattr(cls, "__module__", "") or "").startswith("gluonlite")


def has_docstring(obj, owner=None, own=False):
    """Whether `obj` has a docstring (a class its own; a method its own or an overridden one's)."""
    if inspect.isclass(obj):
        doc = obj.__dict__.get("__doc__")
    elif own or owner is None:
        doc = getattr(obj, "__doc__", None)
    else:
        doc = getattr(obj, "__doc__", None)
        if not (doc or "").strip():
            for base in owner.__mro__[1:]:
                other = base.__dict__.get(obj.__name__)
                if isinstance(other, property):
                    other = other.fget
                elif isinstance(other, (staticmethod, classmethod)):
                    other = other.__func__
                if other is not None and (getattr(other, "__doc__", None) or "").strip():
                    doc = other.__doc__
                    break
    return bool((doc or "").strip())


def _parameters(obj):
    """The parameter names a caller passes to `obj` (a class: its constructor), without
    ``self``/``cls`` and ``*args``/``**kwargs``."""
    target = obj.__init__ if inspect.isclass(obj) else obj
    if target is object.__init__:
        return []
    try:
        sig = inspect.signature(target)
    except (TypeError, ValueError):  # a builtin without a signature
        return []
    names = [p.name for p in sig.parameters.values()
             if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    if names and names[0] in ("self", "cls") and (inspect.isclass(obj) or "." in
                                                  getattr(obj, "__qualname__", "")):
        names = names[1:]
    return names


def _prose(doc):
    """`doc` without its example blocks (an ``Example::`` section, ``>>>`` lines): a
    parameter used by an example is not thereby described."""
    kept, in_example = [], False
    for line in doc.splitlines():
        if re.match(r"\s*Examples?:{1,2}\s*$", line):
            in_example = True
            continue
        if in_example and (not line.strip() or line[:1].isspace()):
            continue
        in_example = False
        if not line.lstrip().startswith(">>>"):
            kept.append(line)
    return "\n".join(kept)


# a block's forward methods are described by its class's ``Inputs:`` list, as Gluon's are;
# ``F`` (the nd or sym namespace) by `HybridBlock.hybrid_forward`
_FORWARDS = ("forward", "hybrid_forward")


def undescribed_parameters(obj, owner=None):
    """The parameters of callable `obj` (a method of class `owner`) its docstring does not
    describe: one is described by an entry of an ``Args:`` list (``name:`` or
    ``name (type):`` starting a line), or by its name in backticks or in bold (an ``Inputs:``
    list) in the prose. A class's constructor is described by the class's docstring or its
    ``__init__``'s, a block's ``forward``/``hybrid_forward`` by either or by its class's."""
    names = _parameters(obj)
    if not names:
        return []
    doc = inspect.getdoc(obj) or ""
    if inspect.isclass(obj) and obj.__init__ is not object.__init__:
        doc += "\n" + (inspect.getdoc(obj.__init__) or "")
    if owner is not None and getattr(obj, "__name__", "") in _FORWARDS:
        doc += "\n" + (inspect.getdoc(owner) or "")
        names = [n for n in names if n != "F"]
    text = _prose(doc)
    missing = []
    for name in names:
        n = re.escape(name)
        if not (re.search(r"`+\**%s\b[^`\n]*`+|\*\*%s\*\*" % (n, n), text)
                or re.search(r"^\s*\**%s\s*(\((?:[^()\n]|\([^()\n]*\))*\))?\s*:" % n, text,
                             re.M)):
            missing.append(name)
    return missing


def _defined_under(obj, path):
    try:
        source = inspect.getsourcefile(obj.fget if isinstance(obj, property) else obj)
    except TypeError:
        return False
    root = os.path.dirname(HERE)
    return bool(source) and os.path.relpath(source, root).startswith(path.rstrip("/"))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--list", action="store_true", help="print the names without a docstring")
    ap.add_argument("--own", action="store_true",
                    help="a method needs its own docstring, not an overridden method's")
    ap.add_argument("--fail", action="store_true", help="exit 1 if any name lacks one")
    ap.add_argument("--examples", action="store_true",
                    help="also count the docstrings without an example")
    ap.add_argument("--args", action="store_true",
                    help="also count the callables with a parameter their docstring omits")
    ap.add_argument("--under", default="",
                    help="only the names defined in files under this path (gluonlite/gluon)")
    args = ap.parse_args(argv)
    objects = public_objects()
    if args.under:
        objects = {k: v for k, v in objects.items() if _defined_under(v[0], args.under)}
    missing = sorted(name for name, (obj, owner) in objects.items()
                     if not has_docstring(obj, owner, own=args.own))
    if args.list:
        for name in missing:
            print(name)
    share = 100.0 * len(missing) / max(len(objects), 1)
    print("public names without a docstring: %d of %d (%.1f%%)"
          % (len(missing), len(objects), share))
    if args.examples:
        bare = sorted(name for name, (obj, owner) in objects.items()
                      if name not in missing and not _has_example(obj))
        if args.list:
            for name in bare:
                print("no example:", name)
        print("public names whose docstring shows no example: %d of %d"
              % (len(bare), len(objects)))
    undescribed = {}
    if args.args:
        undescribed = {name: undescribed_parameters(obj, owner)
                       for name, (obj, owner) in objects.items()
                       if name not in missing and callable(obj)}
        undescribed = {k: v for k, v in undescribed.items() if v}
        if args.list:
            for name, params in sorted(undescribed.items()):
                print("parameters not described: %s (%s)" % (name, ", ".join(params)))
        print("public callables with a parameter not described: %d of %d"
              % (len(undescribed), len(objects)))
    return 1 if args.fail and (missing or undescribed) else 0


def _has_example(obj):
    doc = inspect.getdoc(obj) or ""
    return "Example" in doc or ">>>" in doc


if __name__ == "__main__":
    sys.exit(main())
