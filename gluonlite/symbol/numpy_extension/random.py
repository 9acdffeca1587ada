"""`mx.sym.npx.random`: `mx.npx.random` in the symbolic face."""
from ...ndarray.numpy import lookup


def __getattr__(name):
    return lookup("sym", "numpy_extension.random", name)
