"""The `mx.np.linalg` functions MXNet 1.9.1 takes from official NumPy itself (its
``fallback_linalg`` module): ``cond``, ``lstsq``, ``matrix_power``, ``matrix_rank``,
``multi_dot`` and ``qr``. Called with `mx.np` arrays, NumPy's dispatch protocol hands them to
`mx.np.ndarray.__array_function__`, which computes on host copies and gives `mx.np` arrays
back; `mx.np.linalg` exports them under the same names.

Example::

    mx.np.linalg.matrix_rank(mx.np.eye(3))   # 3
"""
import numpy as _onp

__all__ = ["cond", "lstsq", "matrix_power", "matrix_rank", "multi_dot", "qr"]

cond = _onp.linalg.cond
lstsq = _onp.linalg.lstsq
matrix_power = _onp.linalg.matrix_power
matrix_rank = _onp.linalg.matrix_rank
multi_dot = _onp.linalg.multi_dot
qr = _onp.linalg.qr
