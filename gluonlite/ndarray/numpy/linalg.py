"""`mx.nd.np.linalg`: `mx.np.linalg` in the imperative face."""


def __getattr__(name):
    from ...numpy._faces import nd_attr
    return nd_attr("numpy.linalg", name)
