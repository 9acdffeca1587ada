"""Walk entry of ``_sparse_adagrad_update`` (MXNet's ``nd.sparse.adagrad_update``), the update
operator added with sparse gradients; on dense inputs it is AdaGrad's dense rule. Its
row_sparse path is checked against MXNet-made numbers in
tests/optimizer/test_sparse_updates.py."""
import numpy as np

from .common import C, Pos

S = (2, 3)
LR, RG, CG, EPS = 0.1, 0.7, 0.4, 1e-7


def _adagrad(w, g, h):
    g = np.clip(RG * g, -CG, CG)
    h = h + g * g
    return w - LR * g / np.sqrt(h + EPS)


SPECS = {
    "_sparse_adagrad_update": C([S, S, Pos(*S)],
                                {"lr": LR, "rescale_grad": RG, "clip_gradient": CG},
                                ref=_adagrad),
}
