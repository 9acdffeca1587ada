"""Walk entries of the region assignment operators (`gluonlite.ops.assign`): values against
numpy's slice assignment, gradients against finite differences."""
import numpy as np

from .common import C


def _assigned(x, region, value):
    out = x.copy()
    out[region] = value
    return out


SPECS = {
    "_slice_assign": [
        C([(3, 4), (2, 2)], {"begin": (0, 1), "end": (2, 3)},
          ref=lambda x, v: _assigned(x, np.s_[0:2, 1:3], v)),
        C([(4, 3, 2), (2, 3, 2)], {"begin": (3, None), "end": (None, None), "step": (-2, 1)},
          ref=lambda x, v: _assigned(x, np.s_[3::-2, :], v)),
    ],
    "_slice_assign_scalar": [
        C([(3, 4)], {"begin": (1, 0), "end": (3, 4), "step": (1, 2), "scalar": 2.5},
          ref=lambda x: _assigned(x, np.s_[1:3, 0:4:2], 2.5)),
    ],
}
