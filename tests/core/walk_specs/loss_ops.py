"""Walk entries of the loss-marking operators (`gluonlite.ops.loss_ops`): their gradients
ignore the incoming one, so `grad_ref` gives them in closed form."""
import numpy as np

from .common import C, Idx

SPECS = {
    "make_loss": C([(2, 3)], ref=lambda x: x, grad_ref=lambda x: [np.ones_like(x)]),
    "MakeLoss": [
        C([(2, 3)], {"grad_scale": 2.0, "normalization": "batch"}, ref=lambda x: x,
          grad_ref=lambda x: [np.full_like(x, 2.0 / 2)]),
        C([Idx([[0.5, -1.0, 2.0], [0.1, 0.3, -0.2]])],
          {"normalization": "valid", "valid_thresh": 0.2}, ref=lambda x: x,
          grad_ref=lambda x: [np.full_like(x, 1.0 / 3)]),
        C([(2, 3)], {"grad_scale": 0.5}, ref=lambda x: x,
          grad_ref=lambda x: [np.full_like(x, 0.5)]),
    ],
}
