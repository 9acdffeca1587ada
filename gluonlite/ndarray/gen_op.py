"""`mx.nd.gen_op`: MXNet 1.9.1's generated module of the operators without a prefix
(``Convolution``, ``relu``); the same functions as `nd`. Which operators belong here:
`gluonlite.ndarray.register.generated_module`."""
from .. import ndarray as _namespace
from .register import fn as _fn, generated_module as _generated

_functions = _generated("op", _namespace, _fn)
globals().update(_functions)
__all__ = sorted(_functions)
del _functions, _generated, _fn, _namespace
