"""`mx.nd.np.random`: `mx.np.random` in the imperative face."""


def __getattr__(name):
    from ...numpy._faces import nd_attr
    return nd_attr("numpy.random", name)
