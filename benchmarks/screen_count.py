"""How much source a reader opens to follow an operator's forward and gradient, in screens.

Issues 18 and 27 ask that finding `_foreach`'s forward and gradient take fewer screens. This
counts it the same way at any commit, from the source alone (`ast`, no import):

- Entry: an operator's own definition, found through its registry entry (the tree is
  imported in a subprocess; a commit's from ``git archive``): the functions that are its
  kernel and its gradient (with their fast paths and storage rules unless ``--meaning``),
  and every function they hold in their closures (a kernel made by a helper, the lambda
  given to it), located with ``inspect.getsourcefile``/``getsourcelines``; and its
  registration, the module-level statement of the kernel's file whose call takes the
  operator's name as its first argument. A lowered path (``_foreach:lowered``) enters the
  same way through its entry in the lowering registry (``lowering_of``: the ``decide``,
  ``kernel``, ``vjp`` and ``runtime`` it holds; a class, as ``runtime``, counts as a class
  reached) and its ``register_lowering`` statement. At a commit whose registry cannot be
  read so (said on stderr), an operator enters at the module-level statements of its
  folder that name it in a string. Shape and dtype inference is left out (names ending in
  ``_shape``, ``_dtype`` or ``_shape_back``, or starting with ``infer_``): the forward and
  the gradient only.
- Walk: from each function reached, every name it refers to (calls, callbacks) that is a
  function or class of the scope (resolved through the module's own definitions and its
  imports), and every attribute it calls or reads that is a method or property of a
  class of the scope (all of that name: a hook and its overrides alike; not the names of
  dict, list and set methods, ``d.values()``), transitively. A class reached counts its
  head (class line to its first method) and ``__init__``.
- Count: the lines of every definition reached (docstring and comments included: what a
  reader reads; a line inside two definitions, a function nested in one reached, once),
  in screens of 50 lines (total lines / 50, rounded up), and the files they are in.

Paths (the files directly in each folder; a subfolder is a folder of its own):

- ``_foreach``, ``_while_loop``, ``_cond``: the meaning, from the operator's registration
  in ``gluonlite/control_flow`` (since issue 27 one file per loop; before it the
  registration reached the lowered path too, which is then what this counts), less the
  loops' machinery (``body.py``: inference through the bodies, compiling their plans,
  registering a loop operator, as ``registry.py`` is the operators').
- ``_foreach:lowered`` (``_while_loop:lowered``, ``_cond:lowered``): the lowering, from its
  registration in ``gluonlite/control_flow/lowering``, through that folder, the rest of
  ``gluonlite/control_flow`` and ``gluonlite/executor`` less the executor's front ends,
  which call plans and are never called by a loop (``executor.py``, ``cached_op.py``,
  ``hooks.py``).
- An operator of ``gluonlite/ops``: that package less its machinery (``registry.py``,
  ``fast.py``, ``attrs.py``).

With ``--meaning`` the count is of the operator's meaning alone: its fast paths are left
out (the entry's fast paths and storage rule; the ``fast=``, ``storage=`` and ``grad_out=``
arguments of its registration, and the statements that attach fast paths after it,
``fast_paths(...)`` and the ``_*_fast(...)`` helpers of older commits).

Usage::

    python benchmarks/screen_count.py                    # the working tree
    python benchmarks/screen_count.py --meaning          # without the fast paths
    python benchmarks/screen_count.py --rev adab738      # a commit (read with git show)
    python benchmarks/screen_count.py --rev adab738 --rev HEAD --list
"""
import argparse
import ast
import json
import math
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

SCREEN = 50
_BUILTIN_METHODS = frozenset(n for t in (dict, list, set) for n in dir(t))
# the array module's functions and an array's attributes (``xp.empty``, ``x.shape``): what a
# kernel means by those names, never a method of the scope that happens to share one
_ARRAY_NAMES = frozenset(dir(np)) | frozenset(dir(np.ndarray))
_SKIP = re.compile(r"(_shape|_dtype|_shape_back)$|^infer_")
_CF, _LOWERING = "gluonlite/control_flow", "gluonlite/control_flow/lowering"
_LOWERED = ((_LOWERING,), (_LOWERING, _CF, "gluonlite/executor"), ())
# operator -> (entry folders, scope folders, files of the scope left out as machinery)
_TARGETS = {
    **{op: ((_CF,), (_CF,), ("gluonlite/control_flow/body.py",))
       for op in ("_foreach", "_while_loop", "_cond")},
    **{f"{op}:lowered": _LOWERED for op in ("_foreach", "_while_loop", "_cond")},
    "FullyConnected": (("gluonlite/ops",),) * 2 + ((),),
    "tanh": (("gluonlite/ops",),) * 2 + ((),),
}
_MACHINERY = {"gluonlite/ops/registry.py", "gluonlite/ops/fast.py", "gluonlite/ops/attrs.py",
              # MXNet's table of where each name lives, not a definition of any
              "gluonlite/ops/mxnet_layout.py", "gluonlite/ops/missing_names.py",
              "gluonlite/executor/executor.py", "gluonlite/executor/cached_op.py",
              "gluonlite/executor/hooks.py"}


def _sources(rev, folders, machinery=()):
    """{path: source} of the .py files directly in `folders`, at `rev` (None: on disk)."""
    out = {}
    for folder in folders:
        if rev is None:
            if not os.path.isdir(folder):
                continue
            names = sorted(f"{folder}/{n}" for n in os.listdir(folder) if n.endswith(".py"))
            for path in names:
                with open(path) as f:
                    out[path] = f.read()
        else:
            listing = subprocess.run(["git", "ls-tree", "--name-only", f"{rev}:{folder}"],
                                     capture_output=True, text=True).stdout  # none: no folder
            for name in listing.split():
                if name.endswith(".py"):
                    path = f"{folder}/{name}"
                    out[path] = subprocess.run(["git", "show", f"{rev}:{path}"], check=True,
                                               capture_output=True, text=True).stdout
    return {p: s for p, s in out.items() if p not in _MACHINERY and p not in machinery}


class _Module:
    """A parsed file: its top-level definitions, imported names and statements."""

    def __init__(self, path, source):
        self.path, self.tree = path, ast.parse(source)
        self.package = path.rsplit("/", 1)[0]
        self.defs = {}     # name -> ast node (function or class)
        self.imports = {}  # local name -> (module path, name)
        for node in self.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                self.defs[node.name] = node
        for node in ast.walk(self.tree):  # an import inside a function counts too
            if isinstance(node, ast.ImportFrom) and node.level:
                base = self.package.split("/")
                base = base[:len(base) - (node.level - 1)]
                mod = "/".join(base + (node.module.split(".") if node.module else []))
                for alias in node.names:
                    self.imports[alias.asname or alias.name] = (mod + ".py", alias.name)



# Run in a subprocess on the tree (argv: tree root, operators joined by commas, "1" for
# --meaning): prints {operator: [[path, first line, last line, qualified name, code's first
# line, argument names]] of the functions its registry entry holds (an ``op:lowered``'s: its
# lowering's), and of those in their closures, in the tree's files (a class: code's first
# line and argument names None); or the error that stopped it}.
_RESOLVER = r"""
import functools, inspect, json, os, sys
root, names, meaning = os.path.realpath(sys.argv[1]), sys.argv[2].split(","), sys.argv[3] == "1"
sys.path.insert(0, root)
from gluonlite.ops import registry
import gluonlite  # every operator registered (the loops' too)
def place(obj):
    # [file relative to root, first line, last line] of a function or class defined under
    # root; None for a builtin or code outside the project
    try:
        path = os.path.realpath(inspect.getsourcefile(obj))
        lines, first = inspect.getsourcelines(obj)
    except (OSError, TypeError):
        return None
    if not path.startswith(root + os.sep):
        return None
    return [os.path.relpath(path, root), first, first + len(lines) - 1]
def functions(*roots):
    seen, found = set(), []
    def visit(obj, depth=0):
        if obj is None or id(obj) in seen or depth > 12 or isinstance(obj, (str, bytes, int,
                                                                          float)):
            return
        seen.add(id(obj))
        if isinstance(obj, functools.partial):
            visit(obj.func, depth + 1)
            return
        if inspect.isfunction(obj):
            where = place(obj)
            if where:
                code = obj.__code__
                found.append(where + [obj.__qualname__, code.co_firstlineno,
                                      list(code.co_varnames[:code.co_argcount])])
            for cell in obj.__closure__ or ():
                try:
                    visit(cell.cell_contents, depth + 1)
                except ValueError:  # an empty cell
                    pass
        elif inspect.isclass(obj):  # a lowering's runtime: counted as a class reached
            where = place(obj)
            if where:
                found.append(where + [obj.__qualname__, None, None])
        elif isinstance(obj, (tuple, list)):
            for x in obj:
                visit(x, depth + 1)
        elif isinstance(obj, dict):
            for x in obj.values():
                visit(x, depth + 1)
        elif type(obj).__module__.startswith("gluonlite."):  # a rule object: Fast, storage
            for k in getattr(type(obj), "__slots__", ()) or vars(obj):
                visit(getattr(obj, k, None), depth + 1)
    for obj in roots:
        visit(obj)
    return found
def entry(op):
    if meaning:
        return functions(op.kernel, op.vjp)
    return functions(op.kernel, op.vjp, op.fast, getattr(op, "storage", None))
def lowered(name):
    from gluonlite.executor.lowering import lowering_of
    low = lowering_of(name)
    if low is None:
        raise LookupError(f"{name} has no registered lowering")
    return functions(low.kernel, low.vjp, low.decide, low.runtime)  # the kernel's file first
out = {}
for name in names:
    try:
        base, _, kind = name.partition(":")
        out[name] = lowered(base) if kind == "lowered" else entry(registry.get(name))
    except Exception as e:  # an older registry: the caller falls back to the names
        out[name] = f"{type(e).__name__}: {e}"
print(json.dumps(out))
"""

# {(commit or None, meaning): {operator: the resolver's list, or why there is none}}
_RESOLVED = {}


def resolve_entries(rev, ops, meaning):
    """Read the registry entries of `ops` at `rev` (None: the working tree) in one
    subprocess, for `count` to start from (see the module docstring).

    Args:
        rev: a commit, or None for the working tree (the current directory's).
        ops: operator names, ``op:lowered`` for a loop's lowering.
        meaning: leave the fast paths and storage rules out.
    """
    if not ops:
        return
    key = (rev, meaning)
    with tempfile.TemporaryDirectory() as tmp:
        root = os.getcwd()
        if rev is not None:
            archive = subprocess.run(["git", "archive", rev, "gluonlite"], capture_output=True)
            if archive.returncode != 0:
                why = f"git archive failed: {archive.stderr.decode().strip()[-300:]}"
                _RESOLVED.setdefault(key, {}).update({op: why for op in ops})
                return
            subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
            root = tmp
        done = subprocess.run([sys.executable, "-c", _RESOLVER, root, ",".join(ops),
                               "1" if meaning else "0"], capture_output=True, text=True,
                              cwd=root, env=dict(os.environ, PYTHONPATH=root))
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or ["no output"])[-1]
        _RESOLVED.setdefault(key, {}).update({op: why for op in ops})
    else:
        _RESOLVED.setdefault(key, {}).update(json.loads(done.stdout))


def _entry_functions(rev, op, meaning):
    """The resolver's list for `op` at `rev`, or None with the reason on stderr when the
    tree's registry cannot be read so."""
    if op not in _RESOLVED.get((rev, meaning), {}):
        resolve_entries(rev, [op], meaning)
    found = _RESOLVED[(rev, meaning)][op]
    if isinstance(found, str):
        print(f"{op} at {rev or 'the working tree'}: entry by name (its registry entry could "
              f"not be read: {found})", file=sys.stderr)
        return None
    return found


def _function_node(mod, first_code_line, args):
    """The function or lambda nodes of `mod` whose code starts at `first_code_line` and takes
    `args` (a decorated function's code starts at its first decorator)."""
    found = []
    for n in ast.walk(mod.tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            start = min([n.lineno] + [d.lineno for d in n.decorator_list])
        elif isinstance(n, ast.Lambda):
            start = n.lineno
        else:
            continue
        a = n.args
        if start == first_code_line and [x.arg for x in a.posonlyargs + a.args] == args:
            found.append(n)
    return found


def _registration(mod, op):
    """The module-level statements of `mod` with a call whose first argument is `op`."""
    return [stmt for stmt in mod.tree.body
            if not isinstance(stmt, (ast.FunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom))
            and any(isinstance(c, ast.Call) and c.args and isinstance(c.args[0], ast.Constant)
                    and c.args[0].value == op for c in ast.walk(stmt))]

def _class_head(node):
    """Lines of a class from its `class` line to its first method (docstring, slots)."""
    first = next((n for n in node.body if isinstance(n, (ast.FunctionDef,))), None)
    end = (first.lineno - 1) if first is not None else node.end_lineno
    return node.lineno, end


_FAST_NAMES = re.compile(r"^(fast_paths|_\w+_fast)$")
_FAST_KEYWORDS = ("fast", "storage", "grad_out")


def _meaning_only(stmt):
    """`stmt` without what attaches fast paths (None: the whole statement does)."""
    calls = [n for n in ast.walk(stmt) if isinstance(n, ast.Call)]
    if any(isinstance(c.func, ast.Name) and _FAST_NAMES.match(c.func.id) for c in calls):
        return None
    for c in calls:
        c.keywords = [k for k in c.keywords if k.arg not in _FAST_KEYWORDS]
    return stmt


def count(rev, op, meaning=False):
    """(definitions reached [(path, name, first line, last line)], files) for `op`; with
    `meaning`, its fast paths left out."""
    entry, scope, machinery = _TARGETS[op]
    target, op = op, op.split(":")[0]
    sources = _sources(rev, scope, machinery)
    mods = {p: _Module(p, s) for p, s in sources.items()}
    methods = {}  # attribute name -> [(path, qualified name, node)]
    for m in mods.values():
        for cls in (n for n in m.defs.values() if isinstance(n, ast.ClassDef)):
            for f in cls.body:
                if isinstance(f, ast.FunctionDef) and not f.name.startswith("__"):
                    methods.setdefault(f.name, []).append((m.path, f"{cls.name}.{f.name}", f))

    def resolve(mod, name):
        seen = set()
        while (mod.path, name) not in seen:
            seen.add((mod.path, name))
            if name in mod.defs:
                return mod, mod.defs[name]
            if name not in mod.imports or mod.imports[name][0] not in mods:
                return None
            path, name = mod.imports[name]
            mod = mods[path]
        return None

    reached, todo = {}, []

    def add(path, qual, lines, node):
        if (path, qual) not in reached:
            reached[(path, qual)] = lines
            if node is not None:
                todo.append((mods[path], node))

    def reach_name(mod, name):
        if _SKIP.search(name):
            return
        found = resolve(mod, name)
        if found is None:
            return
        m, node = found
        if isinstance(node, ast.ClassDef):
            add(m.path, node.name, _class_head(node), None)
            init = next((f for f in node.body if isinstance(f, ast.FunctionDef)
                         and f.name == "__init__"), None)
            if init is not None:
                add(m.path, f"{node.name}.__init__", (init.lineno, init.end_lineno), init)
        else:
            add(m.path, node.name, (node.lineno, node.end_lineno), node)

    def walk(mod, node):
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                reach_name(mod, n.id)
            elif isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) and \
                    n.attr not in _BUILTIN_METHODS and n.attr not in _ARRAY_NAMES:
                for path, qual, f in methods.get(n.attr, ()):
                    add(path, qual, (f.lineno, f.end_lineno), f)

    def add_statement(m, stmt):
        if meaning and _meaning_only(stmt) is None:
            return
        add(m.path, f"<statement line {stmt.lineno}>", (stmt.lineno, stmt.end_lineno), None)
        walk(m, stmt)

    functions = _entry_functions(rev, target, meaning)
    if functions is not None:
        for path, first, last, qual, code_line, args in functions:
            if path not in mods:  # machinery, or outside the scope
                continue
            if code_line is None:  # a class
                reach_name(mods[path], qual)
                continue
            for node in _function_node(mods[path], code_line, args):
                if isinstance(node, ast.Lambda):
                    qual = f"<lambda line {node.lineno}>"
                add(path, qual, (first, last), node)
        kernel_file = next((f[0] for f in functions if f[0] in mods), None)
        for stmt in _registration(mods[kernel_file], op) if kernel_file else ():
            add_statement(mods[kernel_file], stmt)
    else:
        for m in mods.values():
            if m.package not in entry:
                continue
            for stmt in m.tree.body:
                if isinstance(stmt, (ast.FunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)):
                    continue
                if any(isinstance(n, ast.Constant) and n.value == op for n in ast.walk(stmt)):
                    add_statement(m, stmt)
    while todo:
        walk(*todo.pop())
    defs = sorted((p, q, a, b) for (p, q), (a, b) in reached.items())
    return defs, sorted({p for p, *_ in defs})


def line_count(defs):
    """Lines of `defs` ([(path, name, first, last)]), a line inside several counted once."""
    lines = set()
    for p, _, a, b in defs:
        lines.update((p, k) for k in range(a, b + 1))
    return len(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rev", action="append", help="a commit (default: the working tree)")
    ap.add_argument("--op", action="append", choices=sorted(_TARGETS),
                    help="default: _foreach, _foreach:lowered, FullyConnected, tanh")
    ap.add_argument("--list", action="store_true", help="list the definitions reached")
    ap.add_argument("--meaning", action="store_true",
                    help="leave the operators' fast paths out (see the module docstring)")
    a = ap.parse_args(argv)
    revs = a.rev or [None]
    ops = a.op or ["_foreach", "_foreach:lowered", "FullyConnected", "tanh"]
    for rev in revs:
        resolve_entries(rev, ops, a.meaning)
    print("| operator | commit | definitions | lines | screens of 50 | files |")
    print("|---|---|---:|---:|---:|---:|")
    for op in ops:
        for rev in revs:
            defs, files = count(rev, op, a.meaning)
            lines = line_count(defs)
            print(f"| {op} | {rev or 'working tree'} | {len(defs)} | {lines} | "
                  f"{math.ceil(lines / SCREEN)} | {len(files)} |")
            if a.list:
                for p, q, x, y in defs:
                    print(f"    {p}:{x}-{y} {q} ({y - x + 1})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
