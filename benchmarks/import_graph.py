"""List the import circles of the gluonlite package, read from its source (nothing is run).

Two graphs are built from every ``import`` statement in ``gluonlite/`` (those inside
functions included: a deferred import is still a dependency, only a hidden one):

- modules: one node per module; importing ``a.b.c`` also runs the package ``a.b``'s
  ``__init__``, so that package is a target too (unless it is a parent of the importer, which
  Python has always started first);
- layers: modules grouped by their top-level name under ``gluonlite`` (``gluonlite.ndarray``
  for everything in ``ndarray/``, ``gluonlite.autograd`` for ``autograd.py``): the layers of
  DESIGN.md, which import only the layers above them.

A circle is a strongly connected component of more than one node. The package's own
``__init__.py`` imports every layer to build the ``mx.`` namespace and is left out.

Usage:
    python3 benchmarks/import_graph.py             # circles of both graphs, with one path each
    python3 benchmarks/import_graph.py --import-time   # only imports outside functions
    python3 benchmarks/import_graph.py --edges X Y  # the import lines from layer X to layer Y
    python3 benchmarks/import_graph.py --deferred   # imports inside functions, and which of
                                                    # them break an import-time circle

Exit status: 0 without a circle among layers, 1 otherwise.
"""
import argparse
import ast
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gluonlite")
PKG = "gluonlite"


def module_files(root=ROOT):
    """{module name: file path} for every ``.py`` file under `root`."""
    out = {}
    for dirpath, _dirs, files in os.walk(root):
        for f in files:
            if not f.endswith(".py"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, f), root)[:-3].split(os.sep)
            if rel[-1] == "__init__":
                rel = rel[:-1]
            out[".".join([PKG] + rel)] = os.path.join(dirpath, f)
    return out


def _resolve(importer, is_pkg, node):
    """Absolute names a `node` (Import / ImportFrom) may refer to, with the line number."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    base = importer if is_pkg else importer.rpartition(".")[0]
    if node.level:
        for _ in range(node.level - 1):
            base = base.rpartition(".")[0]
        base = f"{base}.{node.module}" if node.module else base
    else:
        base = node.module or ""
    return [base] + [f"{base}.{a.name}" for a in node.names]


def _module_level(tree):
    """The import statements that run when the module is imported: those outside any
    function (inside ``if``/``try`` blocks included)."""
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        yield node
        todo.extend(ast.iter_child_nodes(node))


def import_edges(files, deferred=True):
    """[(importer, imported module, line)] between gluonlite modules, parent packages of the
    importer left out, each once; with `deferred`, the imports inside functions too."""
    edges = set()
    for mod, path in sorted(files.items()):
        is_pkg = path.endswith("__init__.py")
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        for node in (ast.walk(tree) if deferred else _module_level(tree)):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for name in _resolve(mod, is_pkg, node):
                # the module itself and each package on the way to it run on import
                parts = name.split(".")
                for i in range(2, len(parts) + 1):
                    target = ".".join(parts[:i])
                    if target not in files or target == mod:
                        continue
                    if mod.startswith(target + "."):  # a parent: already started
                        continue
                    edges.add((mod, target, node.lineno))
    return sorted(edges)


def deferred_imports(files):
    """[(importer, line, imported modules, breaks)] for every import statement inside a
    function: `breaks` is True when, written at the top of its module, it would close an
    import-time circle (one of the imported modules, at import time, already imports the
    importer), the one reason to defer an import."""
    graph = {}
    for a, b, _ in import_edges(files, deferred=False):
        graph.setdefault(a, set()).add(b)

    def reaches(src, dst):
        seen, todo = {src}, [src]
        while todo:
            for w in graph.get(todo.pop(), ()):
                if w == dst:
                    return True
                if w not in seen:
                    seen.add(w)
                    todo.append(w)
        return False

    out = []
    for mod, path in sorted(files.items()):
        is_pkg = path.endswith("__init__.py")
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        top = {id(n) for n in _module_level(tree)}
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)) or id(node) in top:
                continue
            targets = sorted({".".join(name.split(".")[:i])
                              for name in _resolve(mod, is_pkg, node)
                              for i in range(2, len(name.split(".")) + 1)
                              if ".".join(name.split(".")[:i]) in files}
                             - {mod} - {t for t in files if mod.startswith(t + ".")})
            if not targets:
                continue  # outside the package (an optional dependency)
            out.append((mod, node.lineno, targets, any(reaches(t, mod) for t in targets)))
    return out


# The NumPy dialect's front end is one layer under MXNet's several module names (mx.np,
# mx.npx, and the modules giving them NumPy's signatures, fallbacks and protocols).
_NUMPY_DIALECT = ("numpy", "numpy_extension", "numpy_op_fallback", "numpy_op_signature",
                  "numpy_dispatch_protocol")


def layer_of(mod):
    """The layer of a module: ``gluonlite.X`` for anything under ``gluonlite/X``
    (``gluonlite.numpy`` for every module of the NumPy dialect's front end)."""
    parts = mod.split(".")
    if parts[0] == "gluonlite" and len(parts) > 1 and parts[1] in _NUMPY_DIALECT:
        return "gluonlite.numpy"
    return ".".join(parts[:2])


def strongly_connected(graph):
    """Tarjan's strongly connected components of {node: set(successors)}, iteratively."""
    index, low, on_stack, stack, comps, counter = {}, {}, set(), [], [], [0]
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    comps.append(sorted(comp))
    return [c for c in comps if len(c) > 1]


def shortest_cycle(graph, comp):
    """One shortest circle through the first node of `comp`, as a list of nodes."""
    start, members = comp[0], set(comp)
    prev, frontier = {start: None}, [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph.get(v, ())):
                if w == start:
                    path = [v]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    return list(reversed(path)) + [start]
                if w in members and w not in prev:
                    prev[w] = v
                    nxt.append(w)
        frontier = nxt
    return comp


def graphs(files=None, deferred=True):
    """(module graph, layer graph, edges), without the package's own ``__init__``; with
    `deferred`, the imports inside functions count too."""
    files = files or module_files()
    edges = [e for e in import_edges(files, deferred) if e[0] != PKG]
    mods, layers = {}, {}
    for a, b, _ in edges:
        mods.setdefault(a, set()).add(b)
        la, lb = layer_of(a), layer_of(b)
        if la != lb:
            layers.setdefault(la, set()).add(lb)
    return mods, layers, edges


def circles(deferred=True):
    """{'modules': [...], 'layers': [...]}: the strongly connected components of each graph
    (`deferred`: see `graphs`)."""
    mods, layers, _ = graphs(deferred=deferred)
    return {"modules": strongly_connected(mods), "layers": strongly_connected(layers)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--edges", nargs=2, metavar=("FROM", "TO"),
                    help="print the import lines from layer FROM to layer TO (e.g. ndarray "
                         "autograd)")
    ap.add_argument("--root", default=ROOT,
                    help="the gluonlite package folder to read (default: this checkout's)")
    ap.add_argument("--import-time", action="store_true",
                    help="only the imports that run when a module is imported (not those "
                         "inside functions)")
    ap.add_argument("--deferred", action="store_true",
                    help="list the package's imports inside functions, marking those that "
                         "break an import-time circle")
    a = ap.parse_args(argv)
    if a.deferred:
        found = deferred_imports(module_files(a.root))
        for mod, line, targets, breaks in found:
            print(f"{mod}:{line} -> {', '.join(targets)}"
                  + ("  (breaks a circle)" if breaks else ""))
        print(f"## imports inside functions: {len(found)}, of which {sum(f[3] for f in found)} "
              "break an import-time circle")
        return 0
    mods, layers, edges = graphs(module_files(a.root), deferred=not a.import_time)
    if a.edges:
        src, dst = (f"{PKG}.{x}" if not x.startswith(PKG) else x for x in a.edges)
        for imp, tgt, line in edges:
            if layer_of(imp) == src and layer_of(tgt) == dst:
                print(f"{imp}:{line} -> {tgt}")
        return 0
    scope = "import-time imports" if a.import_time else "all imports, deferred ones included"
    for title, graph in (("layers", layers), ("modules", mods)):
        comps = strongly_connected(graph)
        print(f"## import circles among {title} ({scope}): {len(comps)}")
        for c in comps:
            cyc = shortest_cycle(graph, c)
            print(f"- {len(c)} {title}: " + " -> ".join(x[len(PKG) + 1:] for x in cyc)
                  + ("" if len(c) == len(cyc) - 1 else
                     f"  (and {len(c) - len(cyc) + 1} more: "
                     + ", ".join(x[len(PKG) + 1:] for x in c if x not in cyc) + ")"))
    return 1 if strongly_connected(layers) else 0


if __name__ == "__main__":
    sys.exit(main())
