"""`gluon.model_zoo.vision`: MXNet 1.9.1's image classification models (ResNet v1/v2 18-152,
VGG 11-19 with and without BatchNorm, AlexNet, DenseNet 121-201, SqueezeNet 1.0/1.1,
Inception v3, MobileNet v1/v2 with width multipliers) and `get_model`."""
from .alexnet import AlexNet, alexnet
from .densenet import DenseNet, densenet121, densenet161, densenet169, densenet201
from .inception import Inception3, inception_v3
from .mobilenet import (MobileNet, MobileNetV2, get_mobilenet, get_mobilenet_v2, mobilenet1_0,
                        mobilenet0_75, mobilenet0_5, mobilenet0_25, mobilenet_v2_1_0,
                        mobilenet_v2_0_75, mobilenet_v2_0_5, mobilenet_v2_0_25)
from .resnet import (ResNetV1, ResNetV2, BasicBlockV1, BasicBlockV2, BottleneckV1, BottleneckV2,
                     get_resnet, resnet18_v1, resnet34_v1, resnet50_v1, resnet101_v1,
                     resnet152_v1, resnet18_v2, resnet34_v2, resnet50_v2, resnet101_v2,
                     resnet152_v2)
from .squeezenet import SqueezeNet, get_squeezenet, squeezenet1_0, squeezenet1_1
from .vgg import (VGG, get_vgg, vgg11, vgg13, vgg16, vgg19, vgg11_bn, vgg13_bn, vgg16_bn,
                  vgg19_bn)

__all__ = ["get_model", "AlexNet", "alexnet", "DenseNet", "densenet121", "densenet161",
           "densenet169", "densenet201", "Inception3", "inception_v3", "MobileNet",
           "MobileNetV2", "get_mobilenet", "get_mobilenet_v2", "mobilenet1_0", "mobilenet0_75",
           "mobilenet0_5", "mobilenet0_25", "mobilenet_v2_1_0", "mobilenet_v2_0_75",
           "mobilenet_v2_0_5", "mobilenet_v2_0_25", "ResNetV1", "ResNetV2", "BasicBlockV1",
           "BasicBlockV2", "BottleneckV1", "BottleneckV2", "get_resnet", "resnet18_v1",
           "resnet34_v1", "resnet50_v1", "resnet101_v1", "resnet152_v1", "resnet18_v2",
           "resnet34_v2", "resnet50_v2", "resnet101_v2", "resnet152_v2", "SqueezeNet",
           "get_squeezenet", "squeezenet1_0", "squeezenet1_1", "VGG", "get_vgg", "vgg11",
           "vgg13", "vgg16", "vgg19", "vgg11_bn", "vgg13_bn", "vgg16_bn", "vgg19_bn"]

_MODELS = {
    **{f"resnet{n}_v{v}": globals()[f"resnet{n}_v{v}"] for n in (18, 34, 50, 101, 152)
       for v in (1, 2)},
    **{f"vgg{n}{bn}": globals()[f"vgg{n}{bn}"] for n in (11, 13, 16, 19) for bn in ("", "_bn")},
    "alexnet": alexnet,
    **{f"densenet{n}": globals()[f"densenet{n}"] for n in (121, 161, 169, 201)},
    "squeezenet1.0": squeezenet1_0, "squeezenet1.1": squeezenet1_1,
    "inceptionv3": inception_v3,
    "mobilenet1.0": mobilenet1_0, "mobilenet0.75": mobilenet0_75, "mobilenet0.5": mobilenet0_5,
    "mobilenet0.25": mobilenet0_25, "mobilenetv2_1.0": mobilenet_v2_1_0,
    "mobilenetv2_0.75": mobilenet_v2_0_75, "mobilenetv2_0.5": mobilenet_v2_0_5,
    "mobilenetv2_0.25": mobilenet_v2_0_25,
}


def get_model(name, **kwargs):
    """A model of the zoo by name.

    Args:
        name: one of MXNet's names ('resnet18_v1', 'vgg16_bn', 'squeezenet1.0',
            'mobilenetv2_0.5', 'inceptionv3', ...), case-insensitive.
        **kwargs: passed to the model's function (pretrained, classes, ctx, root, prefix...).

    Returns:
        The HybridBlock.

    Raises:
        ValueError: an unknown name (the message lists the known ones).

    Example::

        from gluonlite.gluon.model_zoo import vision
        net = vision.get_model('resnet18_v1', classes=10)
        net.initialize()
        net(nd.zeros((1, 3, 32, 32))).shape   # (1, 10)
    """
    key = name.lower()
    if key not in _MODELS:
        raise ValueError(f"get_model: model {name!r} is not supported; available: "
                         f"{', '.join(sorted(_MODELS))}")
    return _MODELS[key](**kwargs)
