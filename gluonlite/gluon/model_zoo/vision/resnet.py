"""ResNet v1 (He et al. 2015) and v2 (pre-activation, He et al. 2016), 18 to 152 layers, with
MXNet 1.9.1's block structure and parameter names (``resnetv10_stage1_conv0_weight``)."""
from ...block import HybridBlock
from ... import nn
from ._common import finish, pretrained_doc

__all__ = ["ResNetV1", "ResNetV2", "BasicBlockV1", "BasicBlockV2", "BottleneckV1",
           "BottleneckV2", "get_resnet"] + [f"resnet{n}_v{v}" for n in (18, 34, 50, 101, 152)
                                            for v in (1, 2)]


def _conv3x3(channels, stride, in_channels):
    return nn.Conv2D(channels, kernel_size=3, strides=stride, padding=1, use_bias=False,
                     in_channels=in_channels)


def _projection(channels, stride, in_channels, with_bn):
    """The 1x1 strided convolution that brings the shortcut to the body's shape."""
    if not with_bn:
        return nn.Conv2D(channels, 1, stride, use_bias=False, in_channels=in_channels)
    proj = nn.HybridSequential(prefix="")
    proj.add(nn.Conv2D(channels, kernel_size=1, strides=stride, use_bias=False,
                       in_channels=in_channels))
    proj.add(nn.BatchNorm())
    return proj


class BasicBlockV1(HybridBlock):
    """Two 3x3 convolutions with BatchNorm, relu after the sum with the shortcut.

    Args:
        channels: output channels.
        stride: stride of the first convolution (and of the projection).
        downsample: project the shortcut with a strided 1x1 convolution + BatchNorm.
        in_channels: input channels (0: inferred).
        **kwargs: prefix, params, as HybridBlock's.

    Inputs:
        - **x**: (N, in_channels, H, W).

    Outputs:
        - **out**: (N, channels, H / stride, W / stride).

    Example::

        from gluonlite.gluon.model_zoo import vision
        block = vision.BasicBlockV1(16, stride=2, downsample=True, in_channels=8)
        block.initialize()
        block(nd.ones((1, 8, 8, 8))).shape   # (1, 16, 4, 4)
    """

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.body = nn.HybridSequential(prefix="")
        self.body.add(_conv3x3(channels, stride, in_channels), nn.BatchNorm(),
                      nn.Activation("relu"), _conv3x3(channels, 1, channels), nn.BatchNorm())
        self.downsample = _projection(channels, stride, in_channels, True) if downsample \
            else None

    def hybrid_forward(self, F, x):
        residual = self.downsample(x) if self.downsample else x
        return F.Activation(residual + self.body(x), act_type="relu")


class BottleneckV1(HybridBlock):
    """1x1 (channels // 4, strided), 3x3, 1x1 (channels) convolutions with BatchNorm; relu
    after the sum with the shortcut.

    Args:
        channels: output channels (the bottleneck has channels // 4).
        stride: the stride of the first 1x1 convolution (and of the projection).
        downsample: project the shortcut with a strided 1x1 convolution + BatchNorm
            (default False: the identity; then in_channels must equal channels and stride
            be 1).
        in_channels: input channels (default 0: inferred).
        **kwargs: prefix, params, as HybridBlock's.

    Inputs:
        - **x**: (N, in_channels, H, W).

    Outputs:
        - **out**: (N, channels, H / stride, W / stride).

    Example::

        from gluonlite.gluon.model_zoo import vision
        block = vision.BottleneckV1(16, stride=1, downsample=True, in_channels=8)
        block.initialize()
        block(nd.ones((1, 8, 8, 8))).shape   # (1, 16, 8, 8)
    """

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.body = nn.HybridSequential(prefix="")
        self.body.add(nn.Conv2D(channels // 4, kernel_size=1, strides=stride), nn.BatchNorm(),
                      nn.Activation("relu"), _conv3x3(channels // 4, 1, channels // 4),
                      nn.BatchNorm(), nn.Activation("relu"),
                      nn.Conv2D(channels, kernel_size=1, strides=1), nn.BatchNorm())
        self.downsample = _projection(channels, stride, in_channels, True) if downsample \
            else None

    def hybrid_forward(self, F, x):
        residual = self.downsample(x) if self.downsample else x
        return F.Activation(self.body(x) + residual, act_type="relu")


class BasicBlockV2(HybridBlock):
    """Pre-activation basic block: BatchNorm, relu, 3x3 convolution, twice; the shortcut
    (projected from the first activation when downsampling) is added at the end.

    Args:
        channels: output channels.
        stride: the stride of the first 3x3 convolution (and of the projection).
        downsample: project the shortcut with a strided 1x1 convolution
            (default False: the identity; then in_channels must equal channels and stride
            be 1).
        in_channels: input channels (default 0: inferred).
        **kwargs: prefix, params, as HybridBlock's.

    Inputs:
        - **x**: (N, in_channels, H, W).

    Outputs:
        - **out**: (N, channels, H / stride, W / stride).

    Example::

        from gluonlite.gluon.model_zoo import vision
        block = vision.BasicBlockV2(8, stride=1)   # same channels: identity shortcut
        block.initialize()
        block(nd.ones((1, 8, 8, 8))).shape   # (1, 8, 8, 8)
    """

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.bn1 = nn.BatchNorm()
        self.conv1 = _conv3x3(channels, stride, in_channels)
        self.bn2 = nn.BatchNorm()
        self.conv2 = _conv3x3(channels, 1, channels)
        self.downsample = _projection(channels, stride, in_channels, False) if downsample \
            else None

    def hybrid_forward(self, F, x):
        residual = x
        x = F.Activation(self.bn1(x), act_type="relu")
        if self.downsample:
            residual = self.downsample(x)
        x = self.conv1(x)
        x = F.Activation(self.bn2(x), act_type="relu")
        return self.conv2(x) + residual


class BottleneckV2(HybridBlock):
    """Pre-activation bottleneck: (BatchNorm, relu, convolution) x 3 with 1x1, 3x3 (strided),
    1x1 kernels.

    Args:
        channels: output channels (the bottleneck has channels // 4).
        stride: the stride of the 3x3 convolution (and of the projection).
        downsample: project the shortcut with a strided 1x1 convolution
            (default False: the identity; then in_channels must equal channels and stride
            be 1).
        in_channels: input channels (default 0: inferred).
        **kwargs: prefix, params, as HybridBlock's.

    Inputs:
        - **x**: (N, in_channels, H, W).

    Outputs:
        - **out**: (N, channels, H / stride, W / stride).

    Example::

        from gluonlite.gluon.model_zoo import vision
        block = vision.BottleneckV2(16, stride=2, downsample=True, in_channels=8)
        block.initialize()
        block(nd.ones((1, 8, 8, 8))).shape   # (1, 16, 4, 4)
    """

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.bn1 = nn.BatchNorm()
        self.conv1 = nn.Conv2D(channels // 4, kernel_size=1, strides=1, use_bias=False)
        self.bn2 = nn.BatchNorm()
        self.conv2 = _conv3x3(channels // 4, stride, channels // 4)
        self.bn3 = nn.BatchNorm()
        self.conv3 = nn.Conv2D(channels, kernel_size=1, strides=1, use_bias=False)
        self.downsample = _projection(channels, stride, in_channels, False) if downsample \
            else None

    def hybrid_forward(self, F, x):
        residual = x
        x = F.Activation(self.bn1(x), act_type="relu")
        if self.downsample:
            residual = self.downsample(x)
        x = self.conv1(x)
        x = self.conv2(F.Activation(self.bn2(x), act_type="relu"))
        x = self.conv3(F.Activation(self.bn3(x), act_type="relu"))
        return x + residual


def _stage(block, layers, channels, stride, stage_index, in_channels):
    stage = nn.HybridSequential(prefix=f"stage{stage_index}_")
    with stage.name_scope():
        stage.add(block(channels, stride, channels != in_channels, in_channels=in_channels,
                        prefix=""))
        for _ in range(layers - 1):
            stage.add(block(channels, 1, False, in_channels=channels, prefix=""))
    return stage


def _check(name, layers, channels):
    if len(layers) != len(channels) - 1:
        raise ValueError(f"{name}: channels must have one more entry than layers (the stem's "
                         f"channels first); got {len(layers)} layers and {len(channels)} "
                         "channels")


class ResNetV1(HybridBlock):
    """ResNet v1: a 7x7/2 convolution stem (3x3/1 with thumbnail=True), four stages of
    residual blocks, global average pooling and a Dense classifier.

    Args:
        block: BasicBlockV1 or BottleneckV1.
        layers: blocks per stage.
        channels: the stem's channels, then each stage's.
        classes: output classes (default 1000).
        thumbnail: a small-image stem (for 32x32 inputs).
        **kwargs: prefix, params, as HybridBlock's.

    Inputs:
        - **x**: an image batch, (N, 3, H, W) (224x224, or 32x32 with thumbnail).

    Outputs:
        - **out**: (N, classes) class scores.

    Raises:
        ValueError: channels without exactly one more entry than layers.

    Example::

        from gluonlite.gluon.model_zoo import vision
        net = vision.ResNetV1(vision.BasicBlockV1, [2, 2, 2, 2], [64, 64, 128, 256, 512],
                              classes=10, thumbnail=True)   # resnet18_v1 for 32x32 images
        net.initialize()
        net(nd.zeros((1, 3, 32, 32))).shape   # (1, 10)
    """

    def __init__(self, block, layers, channels, classes=1000, thumbnail=False, **kwargs):
        super().__init__(**kwargs)
        _check("ResNetV1", layers, channels)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            if thumbnail:
                self.features.add(_conv3x3(channels[0], 1, 0))
            else:
                self.features.add(nn.Conv2D(channels[0], 7, 2, 3, use_bias=False),
                                  nn.BatchNorm(), nn.Activation("relu"), nn.MaxPool2D(3, 2, 1))
            for i, n in enumerate(layers):
                self.features.add(_stage(block, n, channels[i + 1], 1 if i == 0 else 2, i + 1,
                                         channels[i]))
            self.features.add(nn.GlobalAvgPool2D())
            self.output = nn.Dense(classes, in_units=channels[-1])

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


class ResNetV2(HybridBlock):
    """ResNet v2 (pre-activation): an input BatchNorm without scale or shift, the stem, four
    stages, BatchNorm + relu, global average pooling, Flatten and a Dense classifier.

    Args:
        block: BasicBlockV2 or BottleneckV2.
        layers: blocks per stage (a list of 4 ints).
        channels: the stem's channels, then each stage's (one more entry than layers).
        classes: output classes (default 1000).
        thumbnail: a small-image stem, a 3x3/1 convolution (for 32x32 inputs; default
            False).
        **kwargs: prefix, params, as HybridBlock's.

    Inputs:
        - **x**: an image batch, (N, 3, H, W) (224x224, or 32x32 with thumbnail).

    Outputs:
        - **out**: (N, classes) class scores.

    Raises:
        ValueError: channels without exactly one more entry than layers.

    Example::

        from gluonlite.gluon.model_zoo import vision
        net = vision.ResNetV2(vision.BasicBlockV2, [1, 1, 1, 1], [16, 16, 32, 64, 128],
                              classes=10, thumbnail=True)   # a small ResNet v2
        net.initialize()
        net(nd.zeros((1, 3, 32, 32))).shape   # (1, 10)
    """

    def __init__(self, block, layers, channels, classes=1000, thumbnail=False, **kwargs):
        super().__init__(**kwargs)
        _check("ResNetV2", layers, channels)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            self.features.add(nn.BatchNorm(scale=False, center=False))
            if thumbnail:
                self.features.add(_conv3x3(channels[0], 1, 0))
            else:
                self.features.add(nn.Conv2D(channels[0], 7, 2, 3, use_bias=False),
                                  nn.BatchNorm(), nn.Activation("relu"), nn.MaxPool2D(3, 2, 1))
            in_channels = channels[0]
            for i, n in enumerate(layers):
                self.features.add(_stage(block, n, channels[i + 1], 1 if i == 0 else 2, i + 1,
                                         in_channels))
                in_channels = channels[i + 1]
            self.features.add(nn.BatchNorm(), nn.Activation("relu"), nn.GlobalAvgPool2D(),
                              nn.Flatten())
            self.output = nn.Dense(classes, in_units=in_channels)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


_SPEC = {18: ("basic", [2, 2, 2, 2], [64, 64, 128, 256, 512]),
         34: ("basic", [3, 4, 6, 3], [64, 64, 128, 256, 512]),
         50: ("bottleneck", [3, 4, 6, 3], [64, 256, 512, 1024, 2048]),
         101: ("bottleneck", [3, 4, 23, 3], [64, 256, 512, 1024, 2048]),
         152: ("bottleneck", [3, 8, 36, 3], [64, 256, 512, 1024, 2048])}
_BLOCKS = {(1, "basic"): BasicBlockV1, (1, "bottleneck"): BottleneckV1,
           (2, "basic"): BasicBlockV2, (2, "bottleneck"): BottleneckV2}


def get_resnet(version, num_layers, pretrained=False, ctx=None, root=None, **kwargs):
    """ResNet v`version` with `num_layers` layers.

    Args:
        version: 1 or 2.
        num_layers: 18, 34, 50, 101 or 152.
        pretrained: load ``resnet<num_layers>_v<version>.params`` from `root` (default
            False: the parameters are left uninitialized; call ``initialize()``).
        ctx: the context the pretrained parameters are loaded on (default None: cpu).
        root: the pretrained folder (default None: ``$MXNET_HOME/models``).
        **kwargs: passed to the ResNetV1/ResNetV2 constructor: classes, thumbnail, prefix,
            params.

    Returns:
        the `ResNetV1` or `ResNetV2` network.

    Raises:
        ValueError: an unknown version or depth.
        FileNotFoundError: `pretrained` and the parameter file is not in `root`.

    Example::

        from gluonlite.gluon.model_zoo import vision
        net = vision.get_resnet(1, 18, classes=10)   # as vision.resnet18_v1(classes=10)
        net.initialize()
        net(nd.zeros((1, 3, 32, 32))).shape   # (1, 10)
    """
    if num_layers not in _SPEC:
        raise ValueError(f"get_resnet: num_layers={num_layers} is not supported; options: "
                         f"{sorted(_SPEC)}")
    if version not in (1, 2):
        raise ValueError(f"get_resnet: version={version} is not supported; options: 1, 2")
    kind, layers, channels = _SPEC[num_layers]
    cls = ResNetV1 if version == 1 else ResNetV2
    net = cls(_BLOCKS[(version, kind)], layers, channels, **kwargs)
    return finish(net, f"resnet{num_layers}_v{version}", pretrained, ctx, root)


def _make(n, v):
    def model(**kwargs):
        return get_resnet(v, n, **kwargs)
    model.__name__ = f"resnet{n}_v{v}"
    model.__doc__ = (f"ResNet-{n} v{v}: ``get_resnet({v}, {n}, **kwargs)``.\n\n"
                     + pretrained_doc(f"``resnet{n}_v{v}.params``", f"ResNetV{v}",
                                      "classes, thumbnail")
                     + "    Example::\n\n"
                     f"        from gluonlite.gluon.model_zoo import vision\n"
                     f"        net = vision.{model.__name__}(classes=10)   # random weights\n"
                     f"        type(net).__name__   # ResNetV{v}\n    ")
    return model


resnet18_v1, resnet34_v1, resnet50_v1, resnet101_v1, resnet152_v1 = (
    _make(n, 1) for n in (18, 34, 50, 101, 152))
resnet18_v2, resnet34_v2, resnet50_v2, resnet101_v2, resnet152_v2 = (
    _make(n, 2) for n in (18, 34, 50, 101, 152))
