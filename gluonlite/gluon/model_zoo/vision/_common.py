"""What every model function shares: loading pretrained parameters from a local file."""
from ....context import cpu
from ..model_store import get_model_file


def finish(net, name, pretrained, ctx, root):
    """`net`, with the parameters of `name` loaded from `root` when `pretrained`."""
    if pretrained:
        net.load_parameters(get_model_file(name, root=root), ctx=ctx or cpu())
    return net
