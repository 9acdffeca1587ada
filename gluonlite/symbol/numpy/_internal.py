"""`mx.sym.np._internal`: each `_npi_` / `_np_` operator as a function by its short name
(``_internal.boolean_mask_assign_scalar(a, mask, value=1.0)``)."""
from ...ndarray.numpy import lookup


def __getattr__(name):
    return lookup("internal", name, True)
