"""`mx.nd.np.linalg`: `mx.np.linalg` in the imperative face."""
from . import lookup


def __getattr__(name):
    return lookup("nd", "numpy.linalg", name)
