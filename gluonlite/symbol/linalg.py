"""`sym.linalg`: the linear-algebra operators (``_linalg_*`` in the registry) as graph nodes,
by their short names: ``sym.linalg.gemm2(a, b, transpose_b=True)``.

Generated from the same registry as `nd.linalg` (see `gluonlite.ops.linalg`).
"""
from ..ops.linalg import NAMES as _NAMES
from ..ops.registry import get as _get
from .register import make_function as _make

__all__ = list(_NAMES)

# named by their short names, as MXNet names the nodes (gemm20)
globals().update({n: _make(_get(f"_linalg_{n}"), n) for n in _NAMES})
