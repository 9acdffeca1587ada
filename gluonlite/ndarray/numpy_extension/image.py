"""`mx.nd.npx.image`: `mx.npx.image` in the imperative face."""
from ..numpy import lookup


def __getattr__(name):
    return lookup("nd", "numpy_extension.image", name)
