"""`mx.sym.np.random`: `mx.np.random` in the symbolic face."""
from ...ndarray.numpy import lookup


def __getattr__(name):
    return lookup("sym", "numpy.random", name)
