"""`mx.nd.gen__internal`: MXNet 1.9.1's generated module of the other operators whose names start
with an underscore (``_plus_scalar``); the same functions as `nd._internal`. Which operators
belong here: `gluonlite.ndarray.register.generated_module`."""
from . import _internal as _namespace
from .register import fn as _fn, generated_module as _generated

_functions = _generated("_internal", _namespace, _fn)
globals().update(_functions)
__all__ = sorted(_functions)
del _functions, _generated, _fn, _namespace
