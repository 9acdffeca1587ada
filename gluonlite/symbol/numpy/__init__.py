"""`mx.sym.np`: the NumPy dialect's functions in the symbolic face (see
`gluonlite.numpy._faces`); `F.np` inside `hybrid_forward` is this module.

Example::

    x = mx.sym.var('x').as_np_ndarray()
    mx.sym.np.sum(x, axis=0)   # a numpy-dialect Symbol
"""
from ...ndarray.numpy import lookup
from . import linalg, random, _internal  # noqa: F401


def __getattr__(name):
    if name == "_Symbol":  # the numpy symbol class (defined with the dialect's front end)
        return lookup("_Symbol")
    return lookup("sym", "numpy", name)
