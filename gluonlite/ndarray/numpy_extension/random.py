"""`mx.nd.npx.random`: `mx.npx.random` in the imperative face."""
from ..numpy import lookup


def __getattr__(name):
    return lookup("nd", "numpy_extension.random", name)
