"""`mx.nd.gen_sparse`: MXNet 1.9.1's generated module of the operators MXNet also registers with a
``_sparse_`` prefix (``dot``, ``retain``); the same functions as `nd.sparse`. Which operators
belong here: `gluonlite.ndarray.register.generated_module`."""
from . import sparse as _namespace
from .register import fn as _fn, generated_module as _generated

_functions = _generated("sparse", _namespace, _fn)
globals().update(_functions)
__all__ = sorted(_functions)
del _functions, _generated, _fn, _namespace
