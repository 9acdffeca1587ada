"""Walk entries of MXNet's OpenCV image operators (gluonlite/ops/cvimage.py) on a float HWC
image: resizing to the same size is the identity in every mode; borders are numpy's pads."""
import numpy as np

from .common import C

HWC = (4, 5, 3)


def _pad(mode, **kw):
    return lambda x: np.pad(x, ((1, 2), (0, 3), (0, 0)), mode=mode, **kw)


SPECS = {
    "_cvimresize": [C([HWC], {"w": 5, "h": 4, "interp": i}, ref=lambda x: x) for i in range(5)]
    + [C([HWC], {"w": 8, "h": 6, "interp": 2}), C([HWC], {"w": 3, "h": 2, "interp": 3})],
    "_cvcopyMakeBorder": [
        C([HWC], {"top": 1, "bot": 2, "left": 0, "right": 3, "type": 1}, ref=_pad("edge")),
        C([HWC], {"top": 1, "bot": 2, "left": 0, "right": 3, "type": 4}, ref=_pad("reflect")),
        C([HWC], {"top": 1, "bot": 2, "left": 0, "right": 3, "value": 2.5},
          ref=_pad("constant", constant_values=2.5))],
}
