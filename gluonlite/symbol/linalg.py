"""`sym.linalg`: the linear-algebra operators (``_linalg_*`` in the registry) as graph nodes,
by their short names: ``sym.linalg.gemm2(a, b, transpose_b=True)``.

Generated from the same registry as `nd.linalg` (see `gluonlite.ops.linalg`).
"""
from ..ops.linalg import NAMES as _NAMES
from .register import fn as _fn

__all__ = list(_NAMES)

globals().update({n: _fn(f"_linalg_{n}") for n in _NAMES})
