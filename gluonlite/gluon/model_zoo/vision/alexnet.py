"""AlexNet (Krizhevsky et al. 2012), with MXNet 1.9.1's parameter names."""
from ...block import HybridBlock
from ... import nn
from ._common import finish

__all__ = ["AlexNet", "alexnet"]


class AlexNet(HybridBlock):
    """AlexNet: five convolutions (11x11/4, 5x5, 3x3 x 3) with max pooling, two Dense(4096)
    with Dropout(0.5), and a Dense classifier. Input (N, 3, 224, 224).

    Args:
        classes: output classes (default 1000).
        **kwargs: prefix, params, as HybridBlock's.

    Inputs:
        - **x**: an image batch, (N, 3, H, W) with H = W = 224.

    Outputs:
        - **out**: (N, classes) class scores.

    Example::

        from gluonlite.gluon.model_zoo import vision
        net = vision.AlexNet(classes=10)   # random weights
        net.output.weight.shape   # (10, 0): in_units inferred on the first call
    """

    def __init__(self, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            with self.features.name_scope():
                self.features.add(
                    nn.Conv2D(64, kernel_size=11, strides=4, padding=2, activation="relu"),
                    nn.MaxPool2D(pool_size=3, strides=2),
                    nn.Conv2D(192, kernel_size=5, padding=2, activation="relu"),
                    nn.MaxPool2D(pool_size=3, strides=2),
                    nn.Conv2D(384, kernel_size=3, padding=1, activation="relu"),
                    nn.Conv2D(256, kernel_size=3, padding=1, activation="relu"),
                    nn.Conv2D(256, kernel_size=3, padding=1, activation="relu"),
                    nn.MaxPool2D(pool_size=3, strides=2), nn.Flatten(),
                    nn.Dense(4096, activation="relu"), nn.Dropout(0.5),
                    nn.Dense(4096, activation="relu"), nn.Dropout(0.5))
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def alexnet(pretrained=False, ctx=None, root=None, **kwargs):
    """AlexNet; `pretrained` loads ``alexnet.params`` from `root` (default
    ``$MXNET_HOME/models``).

    Args:
        pretrained: load the parameters from ``alexnet.params`` in `root` (default False: they
            are left uninitialized; call ``initialize()``).
        ctx: the context the pretrained parameters are loaded on (default None: cpu).
        root: the folder of the pretrained files (default None: ``$MXNET_HOME/models``).
        **kwargs: passed to the `AlexNet` constructor: classes, prefix, params.

    Returns:
        the `AlexNet` network.

    Raises:
        FileNotFoundError: `pretrained` and the parameter file is not in `root`.

    Example::

        from gluonlite.gluon.model_zoo import vision
        net = vision.alexnet(classes=10)   # pretrained=True reads alexnet.params from root
        type(net).__name__   # AlexNet
    """
    return finish(AlexNet(**kwargs), "alexnet", pretrained, ctx, root)
