"""`mx.sym.gen_sparse`: MXNet 1.9.1's generated module of the operators MXNet also registers with a
``_sparse_`` prefix (``dot``, ``retain``); the same functions as `sym.sparse`. Which operators
belong here: `gluonlite.ndarray.register.generated_module`."""
from . import sparse as _namespace
from ..ndarray.register import generated_module as _generated
from .register import fn as _fn

_functions = _generated("sparse", _namespace, _fn)
globals().update(_functions)
__all__ = sorted(_functions)
del _functions, _generated, _fn, _namespace
