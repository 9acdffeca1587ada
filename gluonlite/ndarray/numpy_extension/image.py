"""`mx.nd.npx.image`: `mx.npx.image` in the imperative face."""


def __getattr__(name):
    from ...numpy._faces import nd_attr
    return nd_attr("numpy_extension.image", name)
