"""`mx.sym.npx`: the NumPy extension's functions in the symbolic face (see
`gluonlite.numpy._faces`); `F.npx` inside `hybrid_forward` is this module."""
from ...ndarray.numpy import lookup
from . import random, image  # noqa: F401


def __getattr__(name):
    return lookup("sym", "numpy_extension", name)
