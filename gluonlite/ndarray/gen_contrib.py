"""`mx.nd.gen_contrib`: MXNet 1.9.1's generated module of the ``_contrib_`` operators, by their
short names (``box_nms``); the same functions as `nd.contrib`. Which operators belong here:
`gluonlite.ndarray.register.generated_module`."""
from . import contrib as _namespace
from .register import fn as _fn, generated_module as _generated

_functions = _generated("contrib", _namespace, _fn)
globals().update(_functions)
__all__ = sorted(_functions)
del _functions, _generated, _fn, _namespace
