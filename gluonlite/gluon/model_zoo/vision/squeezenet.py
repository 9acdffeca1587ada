"""SqueezeNet 1.0 and 1.1 (Iandola et al. 2016), with MXNet 1.9.1's parameter names."""
from ...block import HybridBlock
from ... import nn
from ...contrib.nn import HybridConcurrent
from ._common import finish

__all__ = ["SqueezeNet", "get_squeezenet", "squeezenet1_0", "squeezenet1_1"]


def _conv_relu(channels, kernel, padding=0):
    out = nn.HybridSequential(prefix="")
    out.add(nn.Conv2D(channels, kernel, padding=padding), nn.Activation("relu"))
    return out


def _fire(squeeze, expand1x1, expand3x3):
    """A fire module: a 1x1 squeeze, then 1x1 and 3x3 expansions concatenated."""
    out = nn.HybridSequential(prefix="")
    out.add(_conv_relu(squeeze, 1))
    paths = HybridConcurrent(axis=1, prefix="")
    paths.add(_conv_relu(expand1x1, 1))
    paths.add(_conv_relu(expand3x3, 3, 1))
    out.add(paths)
    return out


class SqueezeNet(HybridBlock):
    """SqueezeNet: a convolution stem, fire modules with max pooling between, Dropout(0.5), a
    1x1 convolution to `classes`, relu, 13x13 average pooling, Flatten. Input
    (N, 3, 224, 224).

    Args:
        version: '1.0' or '1.1'.
        classes: output classes (default 1000).
        **kwargs: prefix, params, as HybridBlock's.

    Inputs:
        - **x**: an image batch, (N, 3, H, W) with H = W = 224.

    Outputs:
        - **out**: (N, classes) class scores.

    Raises:
        ValueError: an unknown version.

    Example::

        from gluonlite.gluon.model_zoo import vision
        net = vision.SqueezeNet('1.1', classes=10); net.initialize()
        net(nd.zeros((1, 3, 224, 224))).shape   # (1, 10)
    """

    def __init__(self, version, classes=1000, **kwargs):
        super().__init__(**kwargs)
        if version not in ("1.0", "1.1"):
            raise ValueError(f"SqueezeNet: version={version!r} is not supported; options: "
                             "'1.0', '1.1'")
        pool = lambda: nn.MaxPool2D(pool_size=3, strides=2, ceil_mode=True)  # noqa: E731
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            f = self.features
            if version == "1.0":
                f.add(nn.Conv2D(96, kernel_size=7, strides=2), nn.Activation("relu"), pool())
                f.add(_fire(16, 64, 64), _fire(16, 64, 64), _fire(32, 128, 128), pool())
                f.add(_fire(32, 128, 128), _fire(48, 192, 192), _fire(48, 192, 192),
                      _fire(64, 256, 256), pool(), _fire(64, 256, 256))
            else:
                f.add(nn.Conv2D(64, kernel_size=3, strides=2), nn.Activation("relu"), pool())
                f.add(_fire(16, 64, 64), _fire(16, 64, 64), pool())
                f.add(_fire(32, 128, 128), _fire(32, 128, 128), pool())
                f.add(_fire(48, 192, 192), _fire(48, 192, 192), _fire(64, 256, 256),
                      _fire(64, 256, 256))
            f.add(nn.Dropout(0.5))
            self.output = nn.HybridSequential(prefix="")
            self.output.add(nn.Conv2D(classes, kernel_size=1), nn.Activation("relu"),
                            nn.AvgPool2D(13), nn.Flatten())

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def get_squeezenet(version, pretrained=False, ctx=None, root=None, **kwargs):
    """SqueezeNet `version` ('1.0' or '1.1'); `pretrained` loads ``squeezenet<version>.params``
    from `root`.

    Args:
        version: '1.0' or '1.1'.
        pretrained: load the parameters from ``squeezenet<version>.params`` in `root`
            (default False: they are left uninitialized; call ``initialize()``).
        ctx: the context the pretrained parameters are loaded on (default None: cpu).
        root: the folder of the pretrained files (default None: ``$MXNET_HOME/models``).
        **kwargs: passed to the `SqueezeNet` constructor: classes, prefix, params.

    Returns:
        the `SqueezeNet` network.

    Raises:
        ValueError: a version other than '1.0' and '1.1'.
        FileNotFoundError: `pretrained` and the parameter file is not in `root`.

    Example::

        from gluonlite.gluon.model_zoo import vision
        net = vision.get_squeezenet('1.1', classes=10)   # pretrained=True: squeezenet1.1.params
        type(net).__name__   # SqueezeNet
    """
    return finish(SqueezeNet(version, **kwargs), f"squeezenet{version}", pretrained, ctx, root)


def squeezenet1_0(**kwargs):
    """SqueezeNet 1.0: ``get_squeezenet('1.0', **kwargs)``.

    Args:
        pretrained: load the parameters from ``squeezenet1.0.params`` in `root` (default
            False: they are left uninitialized; call ``initialize()``).
        ctx: the context the pretrained parameters are loaded on (default None: cpu).
        root: the folder of the pretrained files (default None: ``$MXNET_HOME/models``).
        **kwargs: passed to the `SqueezeNet` constructor: classes, prefix, params (the
            version is set here).

    Returns:
        the `SqueezeNet` network.

    Raises:
        FileNotFoundError: `pretrained` and the parameter file is not in `root`.

    Example::

        from gluonlite.gluon.model_zoo import vision
        net = vision.squeezenet1_0(classes=10)   # random weights
        type(net).__name__   # SqueezeNet
    """
    return get_squeezenet("1.0", **kwargs)


def squeezenet1_1(**kwargs):
    """SqueezeNet 1.1: ``get_squeezenet('1.1', **kwargs)``.

    Args:
        pretrained: load the parameters from ``squeezenet1.1.params`` in `root` (default
            False: they are left uninitialized; call ``initialize()``).
        ctx: the context the pretrained parameters are loaded on (default None: cpu).
        root: the folder of the pretrained files (default None: ``$MXNET_HOME/models``).
        **kwargs: passed to the `SqueezeNet` constructor: classes, prefix, params (the
            version is set here).

    Returns:
        the `SqueezeNet` network.

    Raises:
        FileNotFoundError: `pretrained` and the parameter file is not in `root`.

    Example::

        from gluonlite.gluon.model_zoo import vision
        net = vision.squeezenet1_1(classes=10)   # random weights
        type(net).__name__   # SqueezeNet
    """
    return get_squeezenet("1.1", **kwargs)
