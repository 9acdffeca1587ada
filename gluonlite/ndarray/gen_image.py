"""`mx.nd.gen_image`: MXNet 1.9.1's generated module of the ``_image_`` operators (``to_tensor``);
the same functions as `nd.image`. Which operators belong here:
`gluonlite.ndarray.register.generated_module`."""
from . import image as _namespace
from .register import fn as _fn, generated_module as _generated

_functions = _generated("image", _namespace, _fn)
globals().update(_functions)
__all__ = sorted(_functions)
del _functions, _generated, _fn, _namespace
