"""What outside code takes from `mxnet`: module paths, imported names and attribute chains.

Scans Python sources (a library's installed package or a checkout) and lists every
``import mxnet...``, ``from mxnet... import name`` and ``mx.a.b.c`` chain (through any alias
bound to an mxnet module, and ``F.op`` inside ``hybrid_forward``). With ``--check`` it resolves
each against the ``mxnet`` that this interpreter imports and prints the ones that do not
resolve; run it once with MXNet 1.9.1's interpreter and once with gluonlite's, and the gaps are
the lines only the second prints.

usage:
  python3 compat/scan_imports.py [--check] [--json OUT] NAME=DIR [NAME=DIR ...]
  python3 compat/scan_imports.py --mxnet-modules GIT_DIR    (MXNet's module list, tag 1.9.1)

Each result line: ``kind  dotted.path  [library:count, ...]`` with kind ``module``, ``name``
(imported with from-import) or ``attr`` (an attribute chain).
"""
import argparse
import ast
import collections
import importlib
import json
import os
import subprocess
import sys


def _mxnet_modules(git_dir):
    out = subprocess.run(["git", f"--git-dir={git_dir}", "ls-tree", "-r", "--name-only",
                          "1.9.1", "python/mxnet"], capture_output=True, text=True,
                         check=True).stdout.split()
    mods = set()
    for path in out:
        if path.endswith(".py"):
            mod = path[len("python/mxnet/"):-3].replace("/", ".")
            mod = mod[:-len(".__init__")] if mod.endswith(".__init__") else mod
            if mod != "__init__":
                mods.add(mod)
    return sorted(mods)


class _Scanner(ast.NodeVisitor):
    """Collects mxnet imports and attribute chains of one file."""

    def __init__(self):
        self.bound = {}          # local name -> dotted mxnet path
        self.found = []          # (kind, dotted)
        self.in_hybrid = 0

    def visit_Import(self, node):
        for a in node.names:
            if a.name == "mxnet" or a.name.startswith("mxnet."):
                self.found.append(("module", a.name))
                if a.asname:
                    self.bound[a.asname] = a.name
                else:
                    self.bound["mxnet"] = "mxnet"

    def visit_ImportFrom(self, node):
        mod = node.module or ""
        if node.level or not (mod == "mxnet" or mod.startswith("mxnet.")):
            return
        self.found.append(("module", mod))
        for a in node.names:
            if a.name == "*":
                continue
            self.found.append(("name", f"{mod}.{a.name}"))
            self.bound[a.asname or a.name] = f"{mod}.{a.name}"

    def visit_FunctionDef(self, node):
        hybrid = node.name == "hybrid_forward" and len(node.args.args) > 1
        if hybrid:
            self.in_hybrid += 1
            self.bound_F = node.args.args[1].arg
        self.generic_visit(node)
        if hybrid:
            self.in_hybrid -= 1

    def visit_Attribute(self, node):
        parts = []
        cur = node
        while isinstance(cur, ast.Attribute):
            parts.append(cur.attr)
            cur = cur.value
        if isinstance(cur, ast.Name):
            parts.reverse()
            if cur.id in self.bound:
                self.found.append(("attr", ".".join([self.bound[cur.id]] + parts)))
                return
            if self.in_hybrid and cur.id == getattr(self, "bound_F", None):
                self.found.append(("attr", ".".join(["F"] + parts)))
                return
        self.generic_visit(node)


def scan(dirs):
    """{(kind, dotted): Counter(library)} over every .py file under each NAME=DIR."""
    seen = collections.defaultdict(collections.Counter)
    for spec in dirs:
        lib, _, root = spec.partition("=")
        for dirpath, _, files in os.walk(root):
            for fn in files:
                if not fn.endswith(".py"):
                    continue
                try:
                    src = open(os.path.join(dirpath, fn), encoding="utf-8",
                               errors="replace").read()
                    tree = ast.parse(src)
                except (SyntaxError, ValueError):
                    continue   # Python 2 files of old checkouts
                if "mxnet" not in src:
                    continue
                s = _Scanner()
                s.visit(tree)
                for item in s.found:
                    seen[item][lib] += 1
    return seen


def _resolve(dotted):
    """True when `dotted` (mxnet.a.b or F.op) resolves in this interpreter's mxnet."""
    if dotted.startswith("F."):
        return _resolve("mxnet.ndarray." + dotted[2:]) or _resolve("mxnet.symbol." + dotted[2:])
    parts = dotted.split(".")
    obj = None
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except Exception:
            continue
        rest = parts[i:]
        break
    else:
        return False
    for p in rest:
        try:
            obj = getattr(obj, p)
        except Exception:
            return False
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("--imports-out", help="with --check under MXNet 1.9.1: write the imported "
                    "modules and names that resolve there, one a line (the fixture of "
                    "tests/mxnet_import/test_downstream_imports.py)")
    ap.add_argument("--mxnet-modules")
    ap.add_argument("dirs", nargs="*")
    args = ap.parse_args()
    if args.mxnet_modules:
        print("\n".join(_mxnet_modules(args.mxnet_modules)))
        return
    seen = scan(args.dirs)
    rows = []
    for (kind, dotted), libs in sorted(seen.items(), key=lambda kv: kv[0][1]):
        ok = _resolve(dotted) if args.check else None
        rows.append({"kind": kind, "path": dotted, "libs": dict(libs), "resolves": ok})
        if not args.check or not ok:
            where = ", ".join(f"{k}:{v}" for k, v in sorted(libs.items()))
            print(f"{kind:6s} {dotted}  [{where}]")
    if args.imports_out:
        with open(args.imports_out, "w") as f:
            f.write("# `mxnet` modules and names that GluonCV 0.10.5.post0, GluonNLP 0.10.0, "
                    "GluonTS 0.16.3 (gluonts.mx),\n# Sockeye 2.3.24, d2l 1.0.3, AutoGluon "
                    "0.0.15/0.3.1 and InsightFace import, and that MXNet 1.9.1 has.\n"
                    "# Made by compat/scan_imports.py --check --imports-out (see compat/README.md)."
                    "\n")
            for r in rows:
                if r["kind"] in ("module", "name") and r["resolves"]:
                    f.write(f"{r['kind']} {r['path']}  # {' '.join(sorted(r['libs']))}\n")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
