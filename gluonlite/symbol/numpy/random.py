"""`mx.sym.np.random`: `mx.np.random` in the symbolic face."""


def __getattr__(name):
    from ...numpy._faces import sym_attr
    return sym_attr("numpy.random", name)
