"""`mx.sym.op`: MXNet 1.9.1's module of `sym`'s operator functions, those of `gen_op`."""
from .gen_op import *  # noqa: F401,F403
from .gen_op import __all__ as _functions

__all__ = list(_functions)
