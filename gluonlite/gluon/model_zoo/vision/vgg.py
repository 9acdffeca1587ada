"""VGG 11/13/16/19 (Simonyan and Zisserman 2014), with or without BatchNorm, with MXNet
1.9.1's parameter names (``vgg0_conv0_weight``, ``vgg0_dense2_weight``)."""
from ....initializer import Xavier
from ...block import HybridBlock
from ... import nn
from ._common import finish, pretrained_doc

__all__ = ["VGG", "get_vgg", "vgg11", "vgg13", "vgg16", "vgg19", "vgg11_bn", "vgg13_bn",
           "vgg16_bn", "vgg19_bn"]


class VGG(HybridBlock):
    """VGG: stages of 3x3 convolutions (+ BatchNorm) + relu, each closed by a 2x2 max pooling;
    then two Dense(4096, relu) + Dropout(0.5) and a Dense classifier.

    Args:
        layers: convolutions per stage.
        filters: channels per stage.
        classes: output classes (default 1000).
        batch_norm: BatchNorm after each convolution (default False).
        **kwargs: prefix, params, as HybridBlock's.

    Inputs:
        - **x**: an image batch, (N, 3, H, W) with H = W = 224 (the Dense layers infer
          their input size from the first batch).

    Outputs:
        - **out**: (N, classes) class scores.

    Raises:
        ValueError: layers and filters of different lengths.

    Example::

        from gluonlite.gluon.model_zoo import vision
        net = vision.VGG([1, 1, 2, 2, 2], [8, 16, 32, 32, 32], classes=10)   # a narrow VGG-11
        net.initialize()
        net(nd.zeros((1, 3, 32, 32))).shape   # (1, 10)
    """

    def __init__(self, layers, filters, classes=1000, batch_norm=False, **kwargs):
        super().__init__(**kwargs)
        if len(layers) != len(filters):
            raise ValueError(f"VGG: layers ({len(layers)}) and filters ({len(filters)}) must "
                             "have one entry per stage each")
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            for n, f in zip(layers, filters):
                for _ in range(n):
                    self.features.add(nn.Conv2D(
                        f, kernel_size=3, padding=1, bias_initializer="zeros",
                        weight_initializer=Xavier(rnd_type="gaussian", factor_type="out",
                                                  magnitude=2)))
                    if batch_norm:
                        self.features.add(nn.BatchNorm())
                    self.features.add(nn.Activation("relu"))
                self.features.add(nn.MaxPool2D(strides=2))
            for _ in range(2):
                self.features.add(nn.Dense(4096, activation="relu", weight_initializer="normal",
                                           bias_initializer="zeros"))
                self.features.add(nn.Dropout(rate=0.5))
            self.output = nn.Dense(classes, weight_initializer="normal",
                                   bias_initializer="zeros")

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


_SPEC = {11: ([1, 1, 2, 2, 2], [64, 128, 256, 512, 512]),
         13: ([2, 2, 2, 2, 2], [64, 128, 256, 512, 512]),
         16: ([2, 2, 3, 3, 3], [64, 128, 256, 512, 512]),
         19: ([2, 2, 4, 4, 4], [64, 128, 256, 512, 512])}


def get_vgg(num_layers, pretrained=False, ctx=None, root=None, **kwargs):
    """VGG with `num_layers` (11, 13, 16, 19) layers; ``batch_norm=True`` adds BatchNorm.

    Args:
        num_layers: 11, 13, 16 or 19.
        pretrained: load ``vgg<n>[_bn].params`` from `root` (default False: the parameters
            are left uninitialized; call ``initialize()``).
        ctx: the context the pretrained parameters are loaded on (default None: cpu).
        root: the folder of the pretrained files (default None: ``$MXNET_HOME/models``).
        **kwargs: passed to the `VGG` constructor: classes, batch_norm, prefix, params.

    Returns:
        the `VGG` network.

    Raises:
        ValueError: an unknown depth.
        FileNotFoundError: `pretrained` and the parameter file is not in `root`.

    Example::

        from gluonlite.gluon.model_zoo import vision
        net = vision.get_vgg(11, classes=10, batch_norm=True)   # as vision.vgg11_bn(classes=10)
        type(net).__name__   # VGG
    """
    if num_layers not in _SPEC:
        raise ValueError(f"get_vgg: num_layers={num_layers} is not supported; options: "
                         f"{sorted(_SPEC)}")
    net = VGG(*_SPEC[num_layers], **kwargs)
    name = f"vgg{num_layers}" + ("_bn" if kwargs.get("batch_norm") else "")
    return finish(net, name, pretrained, ctx, root)


def _make(n, bn):
    def model(**kwargs):
        if bn:
            kwargs["batch_norm"] = True
        return get_vgg(n, **kwargs)
    model.__name__ = f"vgg{n}" + ("_bn" if bn else "")
    model.__doc__ = (f"VGG-{n}{' with BatchNorm' if bn else ''}: ``get_vgg({n}"
                     f"{', batch_norm=True' if bn else ''}, **kwargs)``.\n\n"
                     + pretrained_doc(f"``{model.__name__}.params``", "VGG",
                                      "classes" + ("" if bn else ", batch_norm"),
                                      "batch_norm=True" if bn else "")
                     + f"    Example::\n\n"
                     f"        from gluonlite.gluon.model_zoo import vision\n"
                     f"        net = vision.{model.__name__}(classes=10)   # random weights\n"
                     f"        type(net).__name__   # VGG\n    ")
    return model


vgg11, vgg13, vgg16, vgg19 = (_make(n, False) for n in (11, 13, 16, 19))
vgg11_bn, vgg13_bn, vgg16_bn, vgg19_bn = (_make(n, True) for n in (11, 13, 16, 19))
