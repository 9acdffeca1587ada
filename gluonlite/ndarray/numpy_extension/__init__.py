"""`mx.nd.npx`: the NumPy extension's functions in the imperative face (see
`gluonlite.numpy._faces`); `F.npx` inside `hybrid_forward` is this module."""
from ..numpy import lookup
from . import random, image  # noqa: F401


def __getattr__(name):
    return lookup("nd", "numpy_extension", name)
