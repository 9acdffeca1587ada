"""Control flow: `foreach`, `while_loop` and `cond`, imperative (`nd.contrib`) and as graph
nodes (`sym.contrib`), with gradients.

Importing this package registers the `_foreach`, `_while_loop` and `_cond` operators (so
`sym.load` can read graphs that hold them) and installs the functions as ``nd.contrib.X`` and
``sym.contrib.X`` (the arrays and symbols never import this package).
"""
from ..ndarray import contrib as _nd_contrib
from ..symbol import contrib as _sym_contrib
from . import operators  # noqa: F401  (registers the loop and branch operators)
from . import imperative, symbolic  # noqa: F401


def _install(namespace, module):
    # the lower layer's namespace gets the functions; it never imports this package
    for name in module.__all__:
        setattr(namespace, name, getattr(module, name))
        if name not in namespace.__all__:
            namespace.__all__.append(name)


_install(_nd_contrib, imperative)
_install(_sym_contrib, symbolic)

__all__ = ["imperative", "symbolic", "operators"]
