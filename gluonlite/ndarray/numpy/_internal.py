"""`mx.nd.np._internal`: each `_npi_` / `_np_` operator as a function by its short name
(``_internal.boolean_mask_assign_scalar(a, mask, value=1.0)``)."""


def __getattr__(name):
    from ...numpy._faces import internal_attr
    return internal_attr(name, False)
