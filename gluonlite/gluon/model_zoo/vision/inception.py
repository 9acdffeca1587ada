"""Inception v3 (Szegedy et al. 2015), with MXNet 1.9.1's block structure and parameter names
(``inception30_A1_conv0_weight``). Input (N, 3, 299, 299)."""
from ...block import HybridBlock
from ... import nn
from ...contrib.nn import HybridConcurrent
from ._common import finish

__all__ = ["Inception3", "inception_v3"]

_SETTING_NAMES = ("channels", "kernel_size", "strides", "padding")


def _basic_conv(**kwargs):
    out = nn.HybridSequential(prefix="")
    out.add(nn.Conv2D(use_bias=False, **kwargs), nn.BatchNorm(epsilon=0.001),
            nn.Activation("relu"))
    return out


def _branch(pool, *convs):
    """An optional pooling ('avg' 3x3/1, 'max' 3x3/2) then convolutions, each given as
    (channels, kernel_size, strides, padding) with None for a default."""
    out = nn.HybridSequential(prefix="")
    if pool == "avg":
        out.add(nn.AvgPool2D(pool_size=3, strides=1, padding=1))
    elif pool == "max":
        out.add(nn.MaxPool2D(pool_size=3, strides=2))
    for setting in convs:
        out.add(_basic_conv(**{k: v for k, v in zip(_SETTING_NAMES, setting) if v is not None}))
    return out


def _concurrent(prefix, *branches):
    out = HybridConcurrent(axis=1, prefix=prefix)
    with out.name_scope():
        for b in branches:
            out.add(_branch(*b))
    return out


def _block_a(pool_features, prefix):
    return _concurrent(prefix, (None, (64, 1, None, None)),
                       (None, (48, 1, None, None), (64, 5, None, 2)),
                       (None, (64, 1, None, None), (96, 3, None, 1), (96, 3, None, 1)),
                       ("avg", (pool_features, 1, None, None)))


def _block_b(prefix):
    return _concurrent(prefix, (None, (384, 3, 2, None)),
                       (None, (64, 1, None, None), (96, 3, None, 1), (96, 3, 2, None)),
                       ("max",))


def _block_c(c7, prefix):
    return _concurrent(
        prefix, (None, (192, 1, None, None)),
        (None, (c7, 1, None, None), (c7, (1, 7), None, (0, 3)), (192, (7, 1), None, (3, 0))),
        (None, (c7, 1, None, None), (c7, (7, 1), None, (3, 0)), (c7, (1, 7), None, (0, 3)),
         (c7, (7, 1), None, (3, 0)), (192, (1, 7), None, (0, 3))),
        ("avg", (192, 1, None, None)))


def _block_d(prefix):
    return _concurrent(
        prefix, (None, (192, 1, None, None), (320, 3, 2, None)),
        (None, (192, 1, None, None), (192, (1, 7), None, (0, 3)), (192, (7, 1), None, (3, 0)),
         (192, 3, 2, None)),
        ("max",))


def _split(*branches):
    out = HybridConcurrent(axis=1, prefix="")
    for b in branches:
        out.add(_branch(None, b))
    return out


def _block_e(prefix):
    out = HybridConcurrent(axis=1, prefix=prefix)
    with out.name_scope():
        out.add(_branch(None, (320, 1, None, None)))
        b3 = nn.HybridSequential(prefix="")
        out.add(b3)
        b3.add(_branch(None, (384, 1, None, None)))
        b3.add(_split((384, (1, 3), None, (0, 1)), (384, (3, 1), None, (1, 0))))
        b3d = nn.HybridSequential(prefix="")
        out.add(b3d)
        b3d.add(_branch(None, (448, 1, None, None), (384, 3, None, 1)))
        b3d.add(_split((384, (1, 3), None, (0, 1)), (384, (3, 1), None, (1, 0))))
        out.add(_branch("avg", (192, 1, None, None)))
    return out


class Inception3(HybridBlock):
    """Inception v3: a convolution stem, mixed blocks A x 3, B, C x 4, D, E x 2, 8x8 average
    pooling, Dropout(0.5), a Dense classifier. Input (N, 3, 299, 299).

    Args:
        classes: output classes (default 1000).
        **kwargs: prefix, params, as HybridBlock's.

    Inputs:
        - **x**: an image batch, (N, 3, H, W) with H = W = 299.

    Outputs:
        - **out**: (N, classes) class scores.

    Example::

        from gluonlite.gluon.model_zoo import vision
        net = vision.Inception3(classes=10)   # for (N, 3, 299, 299) inputs
        net.output.weight.shape   # (10, 0): in_units inferred on the first call
    """

    def __init__(self, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            f = self.features
            f.add(_basic_conv(channels=32, kernel_size=3, strides=2),
                  _basic_conv(channels=32, kernel_size=3),
                  _basic_conv(channels=64, kernel_size=3, padding=1),
                  nn.MaxPool2D(pool_size=3, strides=2),
                  _basic_conv(channels=80, kernel_size=1),
                  _basic_conv(channels=192, kernel_size=3),
                  nn.MaxPool2D(pool_size=3, strides=2))
            f.add(_block_a(32, "A1_"), _block_a(64, "A2_"), _block_a(64, "A3_"))
            f.add(_block_b("B_"))
            f.add(_block_c(128, "C1_"), _block_c(160, "C2_"), _block_c(160, "C3_"),
                  _block_c(192, "C4_"))
            f.add(_block_d("D_"), _block_e("E1_"), _block_e("E2_"))
            f.add(nn.AvgPool2D(pool_size=8), nn.Dropout(0.5))
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def inception_v3(pretrained=False, ctx=None, root=None, **kwargs):
    """Inception v3; `pretrained` loads ``inceptionv3.params`` from `root`.

    Args:
        pretrained: load the parameters from ``inceptionv3.params`` in `root` (default False: they
            are left uninitialized; call ``initialize()``).
        ctx: the context the pretrained parameters are loaded on (default None: cpu).
        root: the folder of the pretrained files (default None: ``$MXNET_HOME/models``).
        **kwargs: passed to the `Inception3` constructor: classes, prefix, params.

    Returns:
        the `Inception3` network.

    Raises:
        FileNotFoundError: `pretrained` and the parameter file is not in `root`.

    Example::

        from gluonlite.gluon.model_zoo import vision
        net = vision.inception_v3(classes=10)   # pretrained=True reads inceptionv3.params
        type(net).__name__   # Inception3
    """
    return finish(Inception3(**kwargs), "inceptionv3", pretrained, ctx, root)
