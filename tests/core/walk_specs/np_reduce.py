"""Walk entries of the NumPy dialect's reductions (`gluonlite.ops.np_reduce`): NumPy's
shapes (a full reduction is 0-d), axis tuples, keepdims, against NumPy."""
import numpy as np

from .common import C, Idx, Pos


def _red(fn, **kw):
    return [C([(2, 3, 2)], {}, ref=lambda a: fn(a)),
            C([(2, 3, 2)], {"axis": (0, 2), "keepdims": True},
              ref=lambda a: fn(a, axis=(0, 2), keepdims=True)),
            C([(3, 2)], {"axis": -1}, ref=lambda a: fn(a, axis=-1), more=[[(4, 1)]])]


SPECS = {
    "_np_sum": _red(np.sum),
    "_npi_mean": _red(np.mean),
    "_np_prod": _red(np.prod) + [C([Idx([[0.5, 0.0, 2.0], [1.5, -1.0, 0.0]])], {"axis": 1},
                                   ref=lambda a: np.prod(a, axis=1))],
    "_np_max": _red(np.max),
    "_np_min": _red(np.min),
    "_npi_std": _red(np.std) + [C([(4, 3)], {"axis": 0, "ddof": 1},
                                  ref=lambda a: np.std(a, axis=0, ddof=1))],
    "_npi_var": _red(np.var) + [C([(4, 3)], {"axis": 0, "ddof": 1},
                                  ref=lambda a: np.var(a, axis=0, ddof=1))],
    "_np_all": C([Idx([[0, 1], [2, 3]])], {"axis": 1}, ref=lambda a: np.all(a, axis=1)),
    "_np_any": C([Idx([[0, 0], [2, 3]])], {"axis": 1}, ref=lambda a: np.any(a, axis=1)),
    "_npi_argmax": [C([(3, 4)], {}, ref=lambda a: np.argmax(a)),
                    C([(3, 4)], {"axis": 1, "keepdims": True},
                      ref=lambda a: np.argmax(a, axis=1)[:, None])],
    "_npi_argmin": C([(3, 4)], {"axis": 0}, ref=lambda a: np.argmin(a, axis=0)),
    "_npi_average": [C([(3, 4)], {"axis": 1, "weighted": False},
                       ref=lambda a: np.average(a, axis=1)),
                     C([(3, 4), Pos(3, 4)], {"axis": 0, "returned": True},
                       ref=lambda a, w: list(np.average(a, axis=0, weights=w, returned=True))),
                     C([(3, 4), Pos(4)], {"axis": 1},
                       ref=lambda a, w: np.average(a, axis=1, weights=w))],
}
