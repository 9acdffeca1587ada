"""`nd.linalg`: the linear-algebra operators (``_linalg_*`` in the registry), by their short
names: ``nd.linalg.gemm2(a, b, transpose_b=True)``, ``nd.linalg.potrf(a)``, ...

Every function is generated from the registry (see `gluonlite.ops.linalg` for what each
computes), so ``nd.linalg.gemm2`` is ``nd.linalg_gemm2`` is ``nd._linalg_gemm2``.
"""
from ..ops.linalg import NAMES as _NAMES
from .register import _gen_cache

__all__ = list(_NAMES)

globals().update({n: _gen_cache[f"_linalg_{n}"] for n in _NAMES})
