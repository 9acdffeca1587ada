"""`mx.sym.gen__internal`: MXNet 1.9.1's generated module of the other operators whose names start
with an underscore (``_plus_scalar``); the same functions as `sym._internal`. Which operators
belong here: `gluonlite.ndarray.register.generated_module`."""
from . import _internal as _namespace
from ..ndarray.register import generated_module as _generated
from .register import fn as _fn

_functions = _generated("_internal", _namespace, _fn)
globals().update(_functions)
__all__ = sorted(_functions)
del _functions, _generated, _fn, _namespace
