"""Control flow: `foreach`, `while_loop` and `cond`, imperative (`nd.contrib`) and as graph
nodes (`sym.contrib`), with gradients.

Importing this package registers the `_foreach`, `_while_loop` and `_cond` operators (their
meaning: `foreach.py`, `while_loop.py`, `cond.py`, so `sym.load` can read graphs that hold
them) and their lowerings (`lowering/`: how a compiled plan runs them fast), and installs the
functions as ``nd.contrib.X`` and ``sym.contrib.X`` (the arrays and symbols never import this
package).
"""
from ..ndarray import contrib as _nd_contrib
from ..symbol import contrib as _sym_contrib
from . import cond, foreach, while_loop  # noqa: F401  (registers the loop operators)
from . import lowering  # noqa: F401  (registers their lowerings)
from . import imperative, symbolic  # noqa: F401


def _install(namespace, module):
    # the lower layer's namespace gets the functions; it never imports this package
    for name in module.__all__:
        setattr(namespace, name, getattr(module, name))
        if name not in namespace.__all__:
            namespace.__all__.append(name)


_install(_nd_contrib, imperative)
_install(_sym_contrib, symbolic)

__all__ = ["imperative", "symbolic", "foreach", "while_loop", "cond", "lowering"]
