"""`mx.sym.gen_image`: MXNet 1.9.1's generated module of the ``_image_`` operators (``to_tensor``);
the same functions as `sym.image`. Which operators belong here:
`gluonlite.ndarray.register.generated_module`."""
from . import image as _namespace
from ..ndarray.register import generated_module as _generated
from .register import fn as _fn

_functions = _generated("image", _namespace, _fn)
globals().update(_functions)
__all__ = sorted(_functions)
del _functions, _generated, _fn, _namespace
