"""`mx.sym.np.linalg`: `mx.np.linalg` in the symbolic face."""


def __getattr__(name):
    from ...numpy._faces import sym_attr
    return sym_attr("numpy.linalg", name)
