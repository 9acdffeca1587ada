"""`mx.nd.npx`: the NumPy extension's functions in the imperative face (see
`gluonlite.numpy._faces`); `F.npx` inside `hybrid_forward` is this module."""
from . import random, image  # noqa: F401


def __getattr__(name):
    from ...numpy._faces import nd_attr
    return nd_attr("numpy_extension", name)
