"""`mx.sym.npx.image`: `mx.npx.image` in the symbolic face."""
from ...ndarray.numpy import lookup


def __getattr__(name):
    return lookup("sym", "numpy_extension.image", name)
