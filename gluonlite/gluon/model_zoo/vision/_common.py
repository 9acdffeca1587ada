"""What every model function shares: loading pretrained parameters from a local file."""
from ....context import cpu
from ..model_store import get_model_file


def pretrained_doc(file_desc, cls, kwargs_desc, fixed=""):
    """The Args/Returns/Raises sections of a model function's docstring (the generated ones
    share them): `file_desc` names the parameter file, `cls` the network class,
    `kwargs_desc` its constructor arguments, `fixed` what the function sets itself."""
    fixed = f" ({fixed} is set here)" if fixed else ""
    return (f"    Args:\n        pretrained: load the parameters from {file_desc} in `root`\n"
            f"            (default False: they are left uninitialized; call ``initialize()``)."
            f"\n        ctx: the context the pretrained parameters are loaded on (default "
            f"None: cpu).\n        root: the folder of the pretrained files (default None:\n"
            f"            ``$MXNET_HOME/models``).\n        **kwargs: passed to the `{cls}` "
            f"constructor: {kwargs_desc}, prefix,\n            params{fixed}.\n\n"
            f"    Returns:\n        the `{cls}` network.\n\n    Raises:\n"
            f"        FileNotFoundError: `pretrained` and the parameter file is not in "
            f"`root`.\n\n")


def finish(net, name, pretrained, ctx, root):
    """`net`, with the parameters of `name` loaded from `root` when `pretrained`."""
    if pretrained:
        net.load_parameters(get_model_file(name, root=root), ctx=ctx or cpu())
    return net
