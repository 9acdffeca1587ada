"""Walk entry of ``_contrib_group_adagrad_update`` (AdaGrad with one history value per row,
added with row_sparse gradients); its row_sparse path is checked against MXNet-made numbers
in tests/optimizer/test_sparse_updates.py."""
import numpy as np

from .common import C, Pos

LR, RG, CG, EPS = 0.1, 0.7, 0.4, 1e-5


def _group_adagrad(w, g, h):
    g = np.clip(RG * g, -CG, CG)
    h = h + (g * g).mean(axis=1, keepdims=True)
    return w - LR * g / np.sqrt(h + EPS)


SPECS = {
    "_contrib_group_adagrad_update": C([(3, 4), (3, 4), Pos(3, 1)],
                                       {"lr": LR, "rescale_grad": RG, "clip_gradient": CG},
                                       ref=_group_adagrad),
}
