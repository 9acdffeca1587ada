"""`mx.sym.npx.image`: `mx.npx.image` in the symbolic face."""


def __getattr__(name):
    from ...numpy._faces import sym_attr
    return sym_attr("numpy_extension.image", name)
