"""`mx.nd.gen_linalg`: MXNet 1.9.1's generated module of the ``_linalg_`` operators (``gemm2``);
the same functions as `nd.linalg`. Which operators belong here:
`gluonlite.ndarray.register.generated_module`."""
from . import linalg as _namespace
from .register import fn as _fn, generated_module as _generated

_functions = _generated("linalg", _namespace, _fn)
globals().update(_functions)
__all__ = sorted(_functions)
del _functions, _generated, _fn, _namespace
