"""Walk entries for gluonlite/ops/sparse/operators.py (the dense values of storage operators)."""
import numpy as np

from .common import C, Idx, Pos


def _adagrad(w, g, h, lr=0.1, rg=0.7, cg=0.4, eps=1e-7):
    g = np.clip(rg * g, -cg, cg)
    return w - lr * g / np.sqrt(h + g * g + eps)


def _retain(x, idx):
    out = np.zeros_like(x)
    rows = idx.astype(np.int64)
    out[rows] = x[rows]
    return out


SPECS = {
    "cast_storage": [C([(3, 4)], {"stype": "default"}, ref=lambda x: x),
                     C([(3, 4)], {"stype": "csr"}, ref=lambda x: x),
                     C([(2, 3, 2)], {"stype": "row_sparse"}, ref=lambda x: x)],
    "_sparse_adagrad_update": C([(2, 3), (2, 3), Pos(2, 3)],
                                {"lr": 0.1, "rescale_grad": 0.7, "clip_gradient": 0.4},
                                ref=_adagrad),
    "_contrib_getnnz": [C([Idx([[1, 0, 2], [0, 0, 3]])], ref=lambda x: np.array(
                            [np.count_nonzero(x)], np.int64)),
                        C([Idx([[1, 0, 2], [0, 0, 3]])], {"axis": 1},
                          ref=lambda x: np.count_nonzero(x, axis=1).astype(np.int64))],
    "_sparse_retain": [C([(4, 3), Idx([0, 2])], ref=_retain),
                       C([(5, 2, 2), Idx([4])], ref=_retain)],
}
