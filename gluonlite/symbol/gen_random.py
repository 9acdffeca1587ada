"""`mx.sym.gen_random`: MXNet 1.9.1's generated module of the ``_random_`` operators: the
functions of `sym.random` where it has the name (its front ends, as ``sym.random.uniform``),
the operators' own functions for the rest (``pdf_normal``). Which operators belong here:
`gluonlite.ndarray.register.generated_module`."""
from . import random as _namespace
from ..ndarray.register import generated_module as _generated
from .register import fn as _fn

_functions = _generated("random", _namespace, _fn)
globals().update(_functions)
__all__ = sorted(_functions)
del _functions, _generated, _fn, _namespace
