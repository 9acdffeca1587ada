"""MobileNet v1 (Howard et al. 2017) and v2 (Sandler et al. 2018) with width multipliers,
with MXNet 1.9.1's parameter names (``mobilenet0_conv0_weight``,
``mobilenetv20_features_linearbottleneck0_conv0_weight``)."""
from ...block import HybridBlock
from ... import nn
from ._common import finish, pretrained_doc

__all__ = ["MobileNet", "MobileNetV2", "get_mobilenet", "get_mobilenet_v2", "mobilenet1_0",
           "mobilenet0_75", "mobilenet0_5", "mobilenet0_25", "mobilenet_v2_1_0",
           "mobilenet_v2_0_75", "mobilenet_v2_0_5", "mobilenet_v2_0_25"]


class RELU6(HybridBlock):
    """min(max(x, 0), 6).

    Args:
        prefix: the prefix of the block's name (default None: ``relu60_`` style).
        params: a ParameterDict to share (the block has no parameters).

    Inputs:
        - **x**: an array of any shape.

    Outputs:
        - **out**: `x` clipped to [0, 6], the same shape.

    Example::

        from gluonlite.gluon.model_zoo.vision.mobilenet import RELU6
        RELU6()(nd.array([-1, 3, 8])).asnumpy()   # [0. 3. 6.]
    """

    def hybrid_forward(self, F, x):
        return F.clip(x, 0, 6, name="relu6")


def _conv(out, channels=1, kernel=1, stride=1, pad=0, num_group=1, active=True, relu6=False):
    out.add(nn.Conv2D(channels, kernel, stride, pad, groups=num_group, use_bias=False))
    out.add(nn.BatchNorm(scale=True))
    if active:
        out.add(RELU6() if relu6 else nn.Activation("relu"))


def _conv_dw(out, dw_channels, channels, stride, relu6=False):
    _conv(out, channels=dw_channels, kernel=3, stride=stride, pad=1, num_group=dw_channels,
          relu6=relu6)
    _conv(out, channels=channels, relu6=relu6)


class LinearBottleneck(HybridBlock):
    """MobileNet v2's inverted residual: 1x1 expansion by t, 3x3 depthwise (strided), 1x1
    linear projection; the input is added when stride is 1 and the channels match.

    Args:
        in_channels: the input's channels.
        channels: the output's channels.
        t: the expansion factor (the inner layers have in_channels * t channels).
        stride: the stride of the depthwise convolution.
        **kwargs: prefix, params, as HybridBlock's.

    Inputs:
        - **x**: (N, in_channels, H, W).

    Outputs:
        - **out**: (N, channels, H / stride, W / stride).

    Example::

        from gluonlite.gluon.model_zoo.vision.mobilenet import LinearBottleneck
        block = LinearBottleneck(in_channels=8, channels=8, t=6, stride=1)   # with the shortcut
        block.initialize()
        block(nd.ones((1, 8, 5, 5))).shape   # (1, 8, 5, 5)
    """

    def __init__(self, in_channels, channels, t, stride, **kwargs):
        super().__init__(**kwargs)
        self.use_shortcut = stride == 1 and in_channels == channels
        with self.name_scope():
            self.out = nn.HybridSequential()
            _conv(self.out, in_channels * t, relu6=True)
            _conv(self.out, in_channels * t, kernel=3, stride=stride, pad=1,
                  num_group=in_channels * t, relu6=True)
            _conv(self.out, channels, active=False, relu6=True)

    def hybrid_forward(self, F, x):
        out = self.out(x)
        return F.elemwise_add(out, x) if self.use_shortcut else out


class MobileNet(HybridBlock):
    """MobileNet v1: depthwise-separable convolutions, global average pooling, a Dense
    classifier.

    Args:
        multiplier: the width multiplier (channels scaled by it; default 1.0).
        classes: output classes (default 1000).
        **kwargs: prefix, params, as HybridBlock's.

    Inputs:
        - **x**: an image batch, (N, 3, H, W) (224x224 for the pretrained ones).

    Outputs:
        - **out**: (N, classes) class scores.

    Example::

        from gluonlite.gluon.model_zoo import vision
        net = vision.MobileNet(0.25, classes=10); net.initialize()
        net(nd.zeros((1, 3, 32, 32))).shape   # (1, 10)
    """

    def __init__(self, multiplier=1.0, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            with self.features.name_scope():
                _conv(self.features, channels=int(32 * multiplier), kernel=3, pad=1, stride=2)
                dw = [int(x * multiplier) for x in [32, 64] + [128] * 2 + [256] * 2 +
                      [512] * 6 + [1024]]
                ch = [int(x * multiplier) for x in [64] + [128] * 2 + [256] * 2 + [512] * 6 +
                      [1024] * 2]
                strides = [1, 2] * 3 + [1] * 5 + [2, 1]
                for d, c, s in zip(dw, ch, strides):
                    _conv_dw(self.features, dw_channels=d, channels=c, stride=s)
                self.features.add(nn.GlobalAvgPool2D(), nn.Flatten())
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


class MobileNetV2(HybridBlock):
    """MobileNet v2: a 3x3/2 stem, 17 inverted residual blocks, a 1x1 convolution to 1280
    channels, global average pooling and a 1x1 convolution classifier.

    Args:
        multiplier: the width multiplier (default 1.0).
        classes: output classes (default 1000).
        **kwargs: prefix, params, as HybridBlock's.

    Inputs:
        - **x**: an image batch, (N, 3, H, W) (224x224 for the pretrained ones).

    Outputs:
        - **out**: (N, classes) class scores.

    Example::

        from gluonlite.gluon.model_zoo import vision
        net = vision.MobileNetV2(0.5, classes=10); net.initialize()
        net(nd.zeros((1, 3, 32, 32))).shape   # (1, 10)
    """

    def __init__(self, multiplier=1.0, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="features_")
            with self.features.name_scope():
                _conv(self.features, int(32 * multiplier), kernel=3, stride=2, pad=1,
                      relu6=True)
                ins = [int(x * multiplier) for x in [32] + [16] + [24] * 2 + [32] * 3 +
                       [64] * 4 + [96] * 3 + [160] * 3]
                outs = [int(x * multiplier) for x in [16] + [24] * 2 + [32] * 3 + [64] * 4 +
                        [96] * 3 + [160] * 3 + [320]]
                ts = [1] + [6] * 16
                strides = [1, 2] * 2 + [1, 1, 2] + [1] * 6 + [2] + [1] * 3
                for i, c, t, s in zip(ins, outs, ts, strides):
                    self.features.add(LinearBottleneck(in_channels=i, channels=c, t=t,
                                                       stride=s))
                last = int(1280 * multiplier) if multiplier > 1.0 else 1280
                _conv(self.features, last, relu6=True)
                self.features.add(nn.GlobalAvgPool2D())
            self.output = nn.HybridSequential(prefix="output_")
            with self.output.name_scope():
                self.output.add(nn.Conv2D(classes, 1, use_bias=False, prefix="pred_"),
                                nn.Flatten())

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def _suffix(multiplier):
    s = f"{multiplier:.2f}"
    return s[:-1] if s in ("1.00", "0.50") else s


def get_mobilenet(multiplier, pretrained=False, ctx=None, root=None, **kwargs):
    """MobileNet v1 with width `multiplier`; `pretrained` loads ``mobilenet<m>.params``
    ('mobilenet1.0', 'mobilenet0.75', ...) from `root`.

    Args:
        multiplier: the width multiplier (1.0, 0.75, 0.5, 0.25 for the pretrained
            files).
        pretrained: load the parameters from ``mobilenet<multiplier>.params`` in `root`
            (default False: they are left uninitialized; call ``initialize()``).
        ctx: the context the pretrained parameters are loaded on (default None: cpu).
        root: the folder of the pretrained files (default None: ``$MXNET_HOME/models``).
        **kwargs: passed to the `MobileNet` constructor: classes, prefix, params.

    Returns:
        the `MobileNet` network.

    Raises:
        FileNotFoundError: `pretrained` and the parameter file is not in `root`.

    Example::

        from gluonlite.gluon.model_zoo import vision
        net = vision.get_mobilenet(0.5, classes=10)   # pretrained=True: mobilenet0.5.params
        type(net).__name__   # MobileNet
    """
    return finish(MobileNet(multiplier, **kwargs), f"mobilenet{_suffix(multiplier)}",
                  pretrained, ctx, root)


def get_mobilenet_v2(multiplier, pretrained=False, ctx=None, root=None, **kwargs):
    """MobileNet v2 with width `multiplier`; `pretrained` loads ``mobilenetv2_<m>.params``
    from `root`.

    Args:
        multiplier: the width multiplier (1.0, 0.75, 0.5, 0.25 for the pretrained
            files).
        pretrained: load the parameters from ``mobilenetv2_<multiplier>.params`` in `root`
            (default False: they are left uninitialized; call ``initialize()``).
        ctx: the context the pretrained parameters are loaded on (default None: cpu).
        root: the folder of the pretrained files (default None: ``$MXNET_HOME/models``).
        **kwargs: passed to the `MobileNetV2` constructor: classes, prefix, params.

    Returns:
        the `MobileNetV2` network.

    Raises:
        FileNotFoundError: `pretrained` and the parameter file is not in `root`.

    Example::

        from gluonlite.gluon.model_zoo import vision
        net = vision.get_mobilenet_v2(0.25, classes=10)
        type(net).__name__   # MobileNetV2
    """
    return finish(MobileNetV2(multiplier, **kwargs), f"mobilenetv2_{_suffix(multiplier)}",
                  pretrained, ctx, root)


def _make(m, v2):
    def model(**kwargs):
        return (get_mobilenet_v2 if v2 else get_mobilenet)(m, **kwargs)
    tag = str(m).replace(".", "_")
    model.__name__ = f"mobilenet_v2_{tag}" if v2 else f"mobilenet{tag}"
    model.__doc__ = (f"MobileNet {'v2' if v2 else 'v1'} x{m}: ``get_mobilenet"
                     f"{'_v2' if v2 else ''}({m}, **kwargs)``.\n\n"
                     + pretrained_doc(f"``mobilenet{'v2_' if v2 else ''}{_suffix(m)}.params``",
                                      "MobileNetV2" if v2 else "MobileNet", "classes",
                                      "the multiplier")
                     + "    Example::\n\n"
                     f"        from gluonlite.gluon.model_zoo import vision\n"
                     f"        net = vision.{model.__name__}(classes=10); net.initialize()\n"
                     f"        net(nd.zeros((1, 3, 32, 32))).shape   # (1, 10)\n    ")
    return model


mobilenet1_0, mobilenet0_75, mobilenet0_5, mobilenet0_25 = (
    _make(m, False) for m in (1.0, 0.75, 0.5, 0.25))
mobilenet_v2_1_0, mobilenet_v2_0_75, mobilenet_v2_0_5, mobilenet_v2_0_25 = (
    _make(m, True) for m in (1.0, 0.75, 0.5, 0.25))
