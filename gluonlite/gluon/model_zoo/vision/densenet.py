"""DenseNet 121/161/169/201 (Huang et al. 2016), with MXNet 1.9.1's parameter names
(``densenet0_stage1_conv0_weight``)."""
from ...block import HybridBlock
from ... import nn
from ...contrib.nn import HybridConcurrent, Identity
from ._common import finish, pretrained_doc

__all__ = ["DenseNet", "densenet121", "densenet161", "densenet169", "densenet201"]


def _dense_layer(growth_rate, bn_size, dropout):
    """BN-relu-1x1 conv-BN-relu-3x3 conv, its output concatenated to its input."""
    new = nn.HybridSequential(prefix="")
    new.add(nn.BatchNorm(), nn.Activation("relu"),
            nn.Conv2D(bn_size * growth_rate, kernel_size=1, use_bias=False),
            nn.BatchNorm(), nn.Activation("relu"),
            nn.Conv2D(growth_rate, kernel_size=3, padding=1, use_bias=False))
    if dropout:
        new.add(nn.Dropout(dropout))
    out = HybridConcurrent(axis=1, prefix="")
    out.add(Identity())
    out.add(new)
    return out


def _dense_block(num_layers, bn_size, growth_rate, dropout, stage_index):
    out = nn.HybridSequential(prefix=f"stage{stage_index}_")
    with out.name_scope():
        for _ in range(num_layers):
            out.add(_dense_layer(growth_rate, bn_size, dropout))
    return out


def _transition(channels):
    out = nn.HybridSequential(prefix="")
    out.add(nn.BatchNorm(), nn.Activation("relu"),
            nn.Conv2D(channels, kernel_size=1, use_bias=False),
            nn.AvgPool2D(pool_size=2, strides=2))
    return out


class DenseNet(HybridBlock):
    """DenseNet: a 7x7/2 convolution stem with max pooling, dense blocks joined by transitions
    (1x1 convolution halving the channels, 2x2 average pooling), BN + relu, 7x7 average
    pooling, Flatten, a Dense classifier. Input (N, 3, 224, 224).

    Args:
        num_init_features: the stem's channels.
        growth_rate: channels each dense layer adds.
        block_config: dense layers per block.
        bn_size: bottleneck width factor (default 4).
        dropout: dropout rate after each dense layer (default 0).
        classes: output classes (default 1000).
        **kwargs: prefix, params, as HybridBlock's.

    Inputs:
        - **x**: an image batch, (N, 3, H, W) with H = W = 224.

    Outputs:
        - **out**: (N, classes) class scores.

    Example::

        from gluonlite.gluon.model_zoo import vision
        net = vision.DenseNet(8, 4, [2, 2], classes=10)   # a small one: 2 dense blocks
        net.initialize()
        net(nd.zeros((1, 3, 64, 64))).shape   # (1, 10)
    """

    def __init__(self, num_init_features, growth_rate, block_config, bn_size=4, dropout=0,
                 classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            self.features.add(nn.Conv2D(num_init_features, kernel_size=7, strides=2,
                                        padding=3, use_bias=False),
                              nn.BatchNorm(), nn.Activation("relu"),
                              nn.MaxPool2D(pool_size=3, strides=2, padding=1))
            channels = num_init_features
            for i, n in enumerate(block_config):
                self.features.add(_dense_block(n, bn_size, growth_rate, dropout, i + 1))
                channels += n * growth_rate
                if i != len(block_config) - 1:
                    channels //= 2
                    self.features.add(_transition(channels))
            self.features.add(nn.BatchNorm(), nn.Activation("relu"), nn.AvgPool2D(pool_size=7),
                              nn.Flatten())
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


_SPEC = {121: (64, 32, [6, 12, 24, 16]), 161: (96, 48, [6, 12, 36, 24]),
         169: (64, 32, [6, 12, 32, 32]), 201: (64, 32, [6, 12, 48, 32])}


def get_densenet(num_layers, pretrained=False, ctx=None, root=None, **kwargs):
    """DenseNet-`num_layers` (121, 161, 169, 201); `pretrained` loads
    ``densenet<n>.params`` from `root`.

    Args:
        num_layers: 121, 161, 169 or 201.
        pretrained: load the parameters from ``densenet<num_layers>.params`` in `root`
            (default False: they are left uninitialized; call ``initialize()``).
        ctx: the context the pretrained parameters are loaded on (default None: cpu).
        root: the folder of the pretrained files (default None: ``$MXNET_HOME/models``).
        **kwargs: passed to the `DenseNet` constructor: classes, bn_size, dropout, prefix, params.

    Returns:
        the `DenseNet` network.

    Raises:
        ValueError: an unknown depth.
        FileNotFoundError: `pretrained` and the parameter file is not in `root`.

    Example::

        from gluonlite.gluon.model_zoo import vision
        from gluonlite.gluon.model_zoo.vision.densenet import get_densenet
        net = get_densenet(121, classes=10)   # as vision.densenet121(classes=10)
        type(net).__name__   # DenseNet
    """
    if num_layers not in _SPEC:
        raise ValueError(f"get_densenet: num_layers={num_layers} is not supported; options: "
                         f"{sorted(_SPEC)}")
    return finish(DenseNet(*_SPEC[num_layers], **kwargs), f"densenet{num_layers}", pretrained,
                  ctx, root)


def _make(n):
    def model(**kwargs):
        return get_densenet(n, **kwargs)
    model.__name__ = f"densenet{n}"
    model.__doc__ = (f"DenseNet-{n}: ``get_densenet({n}, **kwargs)``.\n\n"
                     + pretrained_doc(f"``densenet{n}.params``", "DenseNet",
                                      "classes, bn_size, dropout")
                     + "    Example::\n\n"
                     f"        from gluonlite.gluon.model_zoo import vision\n"
                     f"        net = vision.densenet{n}(classes=10)   # random weights\n"
                     f"        type(net).__name__   # DenseNet\n    ")
    return model


densenet121, densenet161, densenet169, densenet201 = (_make(n) for n in (121, 161, 169, 201))
