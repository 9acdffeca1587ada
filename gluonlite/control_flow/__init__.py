"""Control flow: `foreach`, `while_loop` and `cond`, imperative (`nd.contrib`) and as graph
nodes (`sym.contrib`), with gradients.

Importing this package registers the `_foreach`, `_while_loop` and `_cond` operators (their
meaning: `foreach.py`, `while_loop.py`, `cond.py`, so `sym.load` can read graphs that hold
them) and their lowerings (`lowering/`: how a compiled plan runs them fast).
"""
from . import cond, foreach, while_loop  # noqa: F401  (registers the loop operators)
from . import lowering  # noqa: F401  (registers their lowerings)
from . import imperative, symbolic  # noqa: F401

__all__ = ["imperative", "symbolic", "foreach", "while_loop", "cond", "lowering"]
