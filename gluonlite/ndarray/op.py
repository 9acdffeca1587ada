"""`mx.nd.op`: MXNet 1.9.1's module of `nd`'s operator functions: those of `gen_op`, and
`CachedOp` (which gluonlite.executor, a layer above, installs here as on `nd`)."""
from .gen_op import *  # noqa: F401,F403
from .gen_op import __all__ as _functions

__all__ = ["CachedOp"] + _functions  # noqa: F405  (CachedOp: installed by gluonlite.executor)
