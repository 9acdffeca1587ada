"""Walk entries of the NumPy dialect's linear algebra (`gluonlite.ops.np_linalg`): inputs
each operator is defined (and differentiable) for, against NumPy."""
import numpy as np

from .common import C

_R = np.random.RandomState(41)


def _spd(n=3, *batch):
    a = _R.uniform(-1, 1, batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _sym_distinct(n=3):
    q, _ = np.linalg.qr(_R.normal(size=(n, n)))
    return q @ np.diag(np.arange(1.0, n + 1) * 1.3 - 2.1) @ q.T


def _wide(m=2, n=3):
    u, _ = np.linalg.qr(_R.normal(size=(m, m)))
    v, _ = np.linalg.qr(_R.normal(size=(n, n)))
    return u @ np.diag([3.0, 1.5][:m]) @ v[:m]


def _svd_ref(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    sign = np.sign(u[..., :1, :])  # the first row of u positive: one of the sign choices
    return [u * sign, s, vh * np.swapaxes(sign, -1, -2)]


def _cholesky_grad(arrays, heads):
    """MXNet's gradient of a = L L^T for a symmetric input (the input read as symmetric, not
    through its lower triangle alone, which finite differences of entries would see):
    0.5 L^-T copyltu(L^T dL) L^-1, copyltu making a symmetric matrix of a lower triangle."""
    lo = np.linalg.cholesky(arrays[0])
    m = lo.T @ heads[0]
    sym = np.tril(m) + np.tril(m, -1).T
    inv = np.linalg.inv(lo)
    return [0.5 * inv.T @ sym @ inv]


SPECS = {
    "_npi_svd": C([_wide()], rtol=1e-3),
    "_npi_cholesky": C([_spd()], ref=np.linalg.cholesky, rtol=1e-3, grad=_cholesky_grad),
    "_npi_solve": [C([_spd(), (3, 2)], ref=np.linalg.solve),
                   C([_spd(), (3,)], ref=np.linalg.solve)],
    "_npi_tensorinv": C([_spd(4).reshape(2, 2, 4)], {"ind": 2},
                        ref=lambda a: np.linalg.tensorinv(a, 2)),
    "_npi_tensorsolve": C([_spd(4).reshape(2, 2, 4), (2, 2)],
                          ref=lambda a, b: np.linalg.tensorsolve(a, b)),
    "_npi_pinv_scalar_rcond": C([_wide()], {"rcond": 1e-10},
                                ref=lambda a: np.linalg.pinv(a, 1e-10), rtol=1e-3),
    "_npi_pinv": C([_wide(), np.array(1e-10)], ref=lambda a, r: np.linalg.pinv(a, 1e-10),
                   rtol=1e-3),
    "_npi_eigvals": C([_sym_distinct()], ref=lambda a: np.linalg.eigvals(a)),
    "_npi_eig": C([_sym_distinct()]),
    "_npi_eigh": C([_sym_distinct()], rtol=1e-3),
    "_npi_eigvalsh": [C([_sym_distinct()], ref=np.linalg.eigvalsh, rtol=1e-3),
                      C([_sym_distinct()], {"UPLO": "U"},
                        ref=lambda a: np.linalg.eigvalsh(a, "U"), rtol=1e-3)],
    "_npi_norm": [C([(3, 4)], {"flag": -2}, ref=np.linalg.norm),
                  C([(3, 4)], {"flag": -1, "ord": 3.0, "axis": 1},
                    ref=lambda a: np.linalg.norm(a, 3, axis=1)),
                  C([(3, 4)], {"flag": 1, "axis": (0, 1), "keepdims": True},
                    ref=lambda a: np.linalg.norm(a, "fro", (0, 1), keepdims=True)),
                  C([_wide()], {"flag": 2, "axis": (0, 1)},
                    ref=lambda a: np.linalg.norm(a, "nuc"), rtol=1e-3),
                  C([_wide()], {"flag": 0, "ord": 2.0, "axis": (0, 1)},
                    ref=lambda a: np.linalg.norm(a, 2), rtol=1e-3)],
}
