"""`mx.nd.np.random`: `mx.np.random` in the imperative face."""
from . import lookup


def __getattr__(name):
    return lookup("nd", "numpy.random", name)
