"""`mx.sym.npx`: the NumPy extension's functions in the symbolic face (see
`gluonlite.numpy._faces`); `F.npx` inside `hybrid_forward` is this module."""
from . import random, image  # noqa: F401


def __getattr__(name):
    from ...numpy._faces import sym_attr
    return sym_attr("numpy_extension", name)
