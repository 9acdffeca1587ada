"""`mx.sym.np.linalg`: `mx.np.linalg` in the symbolic face."""
from ...ndarray.numpy import lookup


def __getattr__(name):
    return lookup("sym", "numpy.linalg", name)
