"""`mx.sym.gen_contrib`: MXNet 1.9.1's generated module of the ``_contrib_`` operators, by their
short names (``box_nms``); the same functions as `sym.contrib`. Which operators belong here:
`gluonlite.ndarray.register.generated_module`."""
from . import contrib as _namespace
from ..ndarray.register import generated_module as _generated
from .register import fn as _fn

_functions = _generated("contrib", _namespace, _fn)
globals().update(_functions)
__all__ = sorted(_functions)
del _functions, _generated, _fn, _namespace
