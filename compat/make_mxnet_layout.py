"""Write gluonlite/ops/mxnet_layout.py from an installed MXNet 1.9.1: its module paths and the
public names of its operator namespaces.

usage (with MXNet's interpreter):  /work/venvs/mx/bin/python compat/make_mxnet_layout.py
"""
import os
import sys

import mxnet

assert mxnet.__version__ == "1.9.1", mxnet.__version__
root = os.path.dirname(mxnet.__file__)
modules = set()
for dirpath, _, files in os.walk(root):
    for fn in files:
        if fn.endswith(".py"):
            rel = os.path.relpath(os.path.join(dirpath, fn), root)[:-3].replace(os.sep, ".")
            rel = rel[:-len(".__init__")] if rel.endswith(".__init__") else rel
            if rel != "__init__":
                modules.add(rel)

namespaces = {"ndarray": mxnet.nd, "ndarray.contrib": mxnet.nd.contrib,
              "ndarray.linalg": mxnet.nd.linalg, "ndarray.image": mxnet.nd.image,
              "ndarray.random": mxnet.nd.random, "ndarray.sparse": mxnet.nd.sparse,
              "symbol": mxnet.sym, "symbol.contrib": mxnet.sym.contrib,
              "symbol.linalg": mxnet.sym.linalg, "symbol.image": mxnet.sym.image,
              "symbol.random": mxnet.sym.random, "symbol.sparse": mxnet.sym.sparse}
out = [
    '"""MXNet 1.9.1\'s layout: its module paths and the public names of its operator namespaces.',
    "",
    "gluonlite reads it to tell a name MXNet has and gluonlite lacks from a typo (the messages",
    "of `gluonlite.mxnet_alias` and of the nd/sym namespaces say which). Generated from MXNet",
    "1.9.1 itself by ``compat/make_mxnet_layout.py``; do not edit by hand.",
    '"""',
    "",
    "#: Every module of MXNet 1.9.1's python/mxnet tree, relative to ``mxnet``.",
    "MXNET_1_9_1_MODULES = frozenset((",
]
out += [f'    "{m}",' for m in sorted(modules)]


def name_sets(title, variable, sets):
    """Lines of a dict `variable` of frozensets of names, one set per namespace, wrapped at
    100 columns."""
    lines = ["", f"#: {title}", f"{variable} = {{"]
    for ns, names in sets.items():
        lines.append(f'    "{ns}": frozenset((')
        line = "       "
        for n in sorted(names):
            item = f' "{n}",'
            if len(line) + len(item) > 99:
                lines.append(line)
                line = "       "
            line += item
        lines += [line, "    )),"]
    return lines + ["}"]


out.append("))")
out += name_sets("Public names of MXNet 1.9.1's operator namespaces, relative to ``mxnet``.",
                 "MXNET_1_9_1_NAMES",
                 {ns: [n for n in dir(mod) if not n.startswith("_")]
                  for ns, mod in namespaces.items()})
# the class modules' own functions (``mxnet.ndarray.ndarray.maximum``, ...), which gluonlite
# keeps in the package namespaces, not beside its NDArray and Symbol classes
out += name_sets("The ``__all__`` of MXNet 1.9.1's NDArray and Symbol modules, relative to "
                 "``mxnet``.", "MXNET_1_9_1_CLASS_MODULES",
                 {"ndarray.ndarray": set(mxnet.ndarray.ndarray.__all__),
                  "symbol.symbol": set(mxnet.symbol.symbol.__all__)})
dest = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gluonlite", "ops",
                    "mxnet_layout.py")
with open(dest, "w") as f:
    f.write("\n".join(out) + "\n")
print(f"{dest}: {len(modules)} modules, "
      f"{sum(len(dir(m)) for m in namespaces.values())} names", file=sys.stderr)
