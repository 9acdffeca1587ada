"""`mx.sym.gen_op`: MXNet 1.9.1's generated module of the operators without a prefix
(``Convolution``, ``relu``); the same functions as `sym`. Which operators belong here:
`gluonlite.ndarray.register.generated_module`."""
from .. import symbol as _namespace
from ..ndarray.register import generated_module as _generated
from .register import fn as _fn

_functions = _generated("op", _namespace, _fn)
globals().update(_functions)
__all__ = sorted(_functions)
del _functions, _generated, _fn, _namespace
