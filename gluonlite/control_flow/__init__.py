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

_nd_contrib.register(imperative.foreach, imperative.while_loop, imperative.cond)
_sym_contrib.register(symbolic.foreach, symbolic.while_loop, symbolic.cond)

__all__ = ["imperative", "symbolic", "operators"]
