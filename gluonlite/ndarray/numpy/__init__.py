"""`mx.nd.np`: the NumPy dialect's functions in the imperative face (see
`gluonlite.numpy._faces`); `F.np` inside `hybrid_forward` is this module.

Example: ``mx.nd.np.sum(x, axis=0)``.
"""
from . import linalg, random, _internal  # noqa: F401


def __getattr__(name):
    from ...numpy._faces import nd_attr
    return nd_attr("numpy", name)
