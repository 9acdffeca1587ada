"""Write mxnet-1.9.1-np-api.txt: every public name (functions, classes and constants; not
sub-modules) of MXNet 1.9.1's NumPy-dialect namespaces, one ``module.name`` a line, as
``dir()`` shows them on MXNet itself (what ../shared/peer/mxnet-1.9.1-api.txt lists for the
legacy namespaces, which it leaves out).

Run it with MXNet 1.9.1's interpreter (never a dependency of gluonlite):

    /work/venvs/mx/bin/python tools/make_np_api_list.py
"""
import importlib
import os
import types

MODULES = ("numpy", "numpy.linalg", "numpy.random", "numpy_extension",
           "numpy_extension.random", "ndarray.numpy", "ndarray.numpy.linalg",
           "ndarray.numpy.random", "ndarray.numpy_extension", "ndarray.numpy_extension.random",
           "symbol.numpy", "symbol.numpy.linalg", "symbol.numpy.random",
           "symbol.numpy_extension", "symbol.numpy_extension.random")


def main():
    lines = []
    for name in MODULES:
        mod = importlib.import_module(f"mxnet.{name}")
        for attr in sorted(dir(mod)):
            if attr.startswith("_") or isinstance(getattr(mod, attr), types.ModuleType):
                continue
            lines.append(f"{name}.{attr}")
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mxnet-1.9.1-np-api.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{len(lines)} names -> {path}")


if __name__ == "__main__":
    main()
