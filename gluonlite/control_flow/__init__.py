"""Control flow: `foreach`, `while_loop` and `cond`, imperative (`nd.contrib`) and as graph
nodes (`sym.contrib`), with gradients.

Importing this package registers the `_foreach`, `_while_loop` and `_cond` operators (so
`sym.load` can read graphs that hold them).
"""
from . import operators  # noqa: F401  (registers the loop and branch operators)
from . import imperative, symbolic  # noqa: F401

__all__ = ["imperative", "symbolic", "operators"]
