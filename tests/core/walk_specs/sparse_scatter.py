"""Walk entries for gluonlite/ops/sparse/scatter.py (the scatter operators' dense values)."""
from .common import C, Pos

SPECS = {
    "_scatter_elemwise_div": C([(3, 4), Pos(3, 4)], ref=lambda a, b: a / b),
    "_scatter_plus_scalar": C([(2, 5)], {"scalar": 1.5}, ref=lambda x: x + 1.5),
    "_scatter_minus_scalar": C([(2, 3, 2)], {"scalar": -0.25}, ref=lambda x: x + 0.25),
}
