"""Registry-walk entries of the linear-algebra operators (`gluonlite.ops.linalg`): numpy
references, batched cases, and inputs each operator is defined for (symmetric positive
definite, triangular, well conditioned)."""
import numpy as np

from .common import C, Pos

_R = np.random.RandomState(25)


def _spd(*batch, n=3):
    a = _R.uniform(-1, 1, batch + (n, n))
    return a @ a.swapaxes(-1, -2) + n * np.eye(n)


def _lower(*batch, n=3):
    return np.tril(_R.uniform(-1, 1, batch + (n, n)), -1) + np.eye(n) * _R.uniform(1.5, 2.5, n)


def _sym_distinct(n=3):
    q, _ = np.linalg.qr(_R.normal(size=(n, n)))
    return q @ np.diag(np.arange(1.0, n + 1) * 1.5 - 3.2) @ q.T


def _t(x):
    return np.swapaxes(x, -1, -2)


def _syevd_ref(a):
    lam, v = np.linalg.eigh(a)
    u = _t(v)
    k = np.argmax(np.abs(u), axis=-1)[..., None]
    return u * np.where(np.take_along_axis(u, k, -1) < 0, -1, 1), lam


def _lq_ref(a):
    q, r = np.linalg.qr(_t(a))
    return _t(q), _t(r)


_G = np.random.RandomState(3).uniform(-1, 1, (2, 3, 4))

SPECS = {
    "_linalg_gemm": [
        C([(2, 3), (3, 4), (2, 4)], {"alpha": 1.5, "beta": -0.5},
          ref=lambda a, b, c: 1.5 * a @ b - 0.5 * c),
        C([(2, 3, 2), (2, 4, 3), (2, 2, 4)], {"transpose_a": True, "transpose_b": True},
          ref=lambda a, b, c: _t(a) @ _t(b) + c),
        C([(3, 2, 4), (3, 2, 4), (4, 2, 4)], {"transpose_a": True, "axis": -3},
          ref=lambda a, b, c: np.moveaxis(_t(np.moveaxis(a, 0, 1)) @ np.moveaxis(b, 0, 1), 0, 1)
          + c)],
    "_linalg_gemm2": [
        C([(2, 3), (3, 4)], {"alpha": 2.0}, ref=lambda a, b: 2 * a @ b),
        C([(2, 2, 3), (2, 4, 3)], {"transpose_b": True}, ref=lambda a, b: a @ _t(b),
          more=[[(1, 3, 5, 3), (1, 3, 2, 3)]]),
        C([(3, 2, 4), (3, 2, 5)], {"transpose_a": True, "axis": 0},
          ref=lambda a, b: np.moveaxis(_t(np.moveaxis(a, 0, 1)) @ np.moveaxis(b, 0, 1), 1, 0))],
    "_linalg_potrf": [C([_spd()], ref=np.linalg.cholesky),
                      C([_spd(2)], ref=np.linalg.cholesky),
                      C([_spd()], {"lower": False}, ref=lambda a: np.linalg.cholesky(a).T)],
    "_linalg_potri": [C([_lower()], ref=lambda a: np.linalg.inv(a @ a.T)),
                      C([_lower(2)], ref=lambda a: np.linalg.inv(a @ _t(a))),
                      C([_lower().T], {"lower": False}, ref=lambda u: np.linalg.inv(u.T @ u))],
    "_linalg_trmm": [
        C([_lower(), (3, 2)], {"alpha": 2.0}, ref=lambda a, b: 2 * np.tril(a) @ b),
        C([_lower(2), (2, 4, 3)], {"rightside": True, "transpose": True, "lower": False},
          ref=lambda a, b: b @ np.triu(a).swapaxes(-1, -2))],
    "_linalg_trsm": [
        C([_lower(), (3, 2)], {"alpha": 0.5}, ref=lambda a, b: np.linalg.solve(a, 0.5 * b)),
        C([_lower(2), (2, 4, 3)], {"rightside": True, "transpose": True},
          ref=lambda a, b: b @ np.linalg.inv(_t(a))),
        C([_t(_lower()), (3, 2)], {"lower": False, "transpose": True},
          ref=lambda a, b: np.linalg.solve(a.T, b))],
    "_linalg_syrk": [C([(2, 3)], {"alpha": 0.5}, ref=lambda a: 0.5 * a @ a.T),
                     C([(2, 2, 3)], {"transpose": True}, ref=lambda a: _t(a) @ a)],
    "_linalg_gelqf": [C([(2, 3)], ref=_lq_ref), C([(2, 3, 3)], ref=_lq_ref)],
    "_linalg_syevd": [C([_sym_distinct()], ref=_syevd_ref),
                      C([np.stack([_sym_distinct(), _sym_distinct()])], ref=_syevd_ref)],
    "_linalg_inverse": [C([_spd()], ref=np.linalg.inv), C([_spd(2)], ref=np.linalg.inv)],
    "_linalg_det": [C([_spd()], ref=lambda a: np.linalg.det(a).reshape(1)),
                    C([_G[..., :3] + 2 * np.eye(3)], ref=np.linalg.det)],
    "_linalg_slogdet": [C([-_spd()], ref=lambda a: [np.linalg.slogdet(a)[0].reshape(1),
                                                    np.linalg.slogdet(a)[1].reshape(1)]),
                        C([_G[..., :3] + 2 * np.eye(3)],
                          ref=lambda a: list(np.linalg.slogdet(a)))],
    "_linalg_sumlogdiag": [C([Pos(3, 3)], ref=lambda a: np.log(np.diag(a)).sum().reshape(1)),
                           C([Pos(2, 3, 3)],
                             ref=lambda a: np.log(np.diagonal(a, 0, 1, 2)).sum(-1))],
    "_linalg_extractdiag": [C([(3, 3)], ref=np.diag),
                            C([(2, 4, 4)], {"offset": -1},
                              ref=lambda a: np.diagonal(a, -1, 1, 2))],
    "_linalg_makediag": [C([(3,)], ref=np.diag),
                         C([(2, 2)], {"offset": 1},
                           ref=lambda a: np.stack([np.diag(v, 1) for v in a]))],
    "_linalg_extracttrian": [
        C([(3, 3)], ref=lambda a: a[np.tril_indices(3)]),
        C([(2, 3, 3)], {"lower": False}, ref=lambda a: _t(a)[:, np.tril_indices(3)[0],
                                                            np.tril_indices(3)[1]]),
        C([(4, 4)], {"offset": 1}, ref=lambda a: a.T[np.tril_indices(4, -1)]),
        C([(4, 4)], {"offset": -2}, ref=lambda a: a[np.tril_indices(4, -2)])],
    "_linalg_maketrian": [
        C([(6,)], ref=lambda v: _fill(v, np.tril_indices(3))),
        C([(2, 3)], {"offset": 1}, ref=lambda v: np.stack([_fill(r, np.tril_indices(3, -1)).T
                                                           for r in v])),
        C([(3,)], {"lower": False, "offset": -1}, ref=lambda v: _fill(v, np.tril_indices(3, -1)))],
}


def _fill(v, idx):
    n = idx[0].max() + 1 if idx[0].max() >= idx[1].max() else idx[1].max() + 1
    out = np.zeros((n, n))
    out[idx] = v
    return out
