"""`mx.nd.gen_random`: MXNet 1.9.1's generated module of the ``_random_`` operators: the
functions of `nd.random` where it has the name (its front ends, as ``nd.random.uniform``),
the operators' own functions for the rest (``pdf_normal``). Which operators belong here:
`gluonlite.ndarray.register.generated_module`."""
from . import random as _namespace
from .register import fn as _fn, generated_module as _generated

_functions = _generated("random", _namespace, _fn)
globals().update(_functions)
__all__ = sorted(_functions)
del _functions, _generated, _fn, _namespace
