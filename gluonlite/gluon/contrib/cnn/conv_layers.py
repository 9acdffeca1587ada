"""Deformable convolution layers (MXNet 1.x's ``gluon.contrib.cnn``): a convolution that
predicts sampling offsets (and, in v2, masks) from the input, then the deformable convolution
that reads the input at those offsets (`nd.contrib.DeformableConvolution`,
`nd.contrib.ModulatedDeformableConvolution`)."""
from ...block import HybridBlock
from ...nn.conv_layers import _tuple
from ...nn import Activation

__all__ = ["DeformableConvolution", "ModulatedDeformableConvolution"]


class _Deformable(HybridBlock):
    """The shared body of the two layers: see `DeformableConvolution`."""

    _op_name = "DeformableConvolution"
    _offset_parts = 2  # offset channels per tap and deformable group: (dy, dx)

    def __init__(self, channels, kernel_size=(1, 1), strides=(1, 1), padding=(0, 0),
                 dilation=(1, 1), groups=1, num_deformable_group=1, layout="NCHW",
                 use_bias=True, in_channels=0, activation=None, weight_initializer=None,
                 bias_initializer="zeros", offset_weight_initializer="zeros",
                 offset_bias_initializer="zeros", offset_use_bias=True, op_name=None, adj=None,
                 prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        name = type(self).__name__
        if layout != "NCHW":
            raise ValueError(f"{name}: layout={layout!r} is not supported; MXNet's deformable "
                             "kernels compute 'NCHW' only")
        if not isinstance(channels, int) or channels <= 0:
            raise ValueError(f"{name}: channels must be a positive int, got {channels!r}")
        if adj is not None:
            raise ValueError(f"{name}: adj (output padding) belongs to transposed "
                             "convolutions; a deformable convolution takes none")
        kernel = _tuple(name, "kernel_size", kernel_size, 2)
        geometry = {"kernel": kernel, "stride": _tuple(name, "strides", strides, 2),
                    "dilate": _tuple(name, "dilation", dilation, 2),
                    "pad": _tuple(name, "padding", padding, 2), "num_group": groups,
                    "layout": layout}
        taps = kernel[0] * kernel[1] * num_deformable_group
        with self.name_scope():
            self._channels, self._in_channels = channels, in_channels
            self._split = 2 * taps  # offset channels; the rest (v2) are mask logits
            self._kwargs_offset = dict(geometry, num_filter=self._offset_parts * taps,
                                       no_bias=not offset_use_bias)
            self._kwargs_deformable_conv = dict(geometry, num_filter=channels,
                                                num_deformable_group=num_deformable_group,
                                                no_bias=not use_bias)
            wshape = (channels, in_channels // groups) + kernel
            oshape = (self._offset_parts * taps, in_channels // groups) + kernel
            self.offset_weight = self.params.get("offset_weight", shape=oshape,
                                                 init=offset_weight_initializer,
                                                 allow_deferred_init=True)
            self.offset_bias = self.params.get(
                "offset_bias", shape=(self._offset_parts * taps,), init=offset_bias_initializer,
                allow_deferred_init=True) if offset_use_bias else None
            self.deformable_conv_weight = self.params.get(
                "deformable_conv_weight", shape=wshape, init=weight_initializer,
                allow_deferred_init=True)
            self.deformable_conv_bias = self.params.get(
                "deformable_conv_bias", shape=(channels,), init=bias_initializer,
                allow_deferred_init=True) if use_bias else None
            self.act = Activation(activation, prefix=activation + "_") if activation else None

    def _offsets(self, F, x, offset_weight, offset_bias):
        args = (x, offset_weight) if offset_bias is None else (x, offset_weight, offset_bias)
        return F.Convolution(*args, cudnn_off=True, **self._kwargs_offset)

    def _deform(self, F, x, offsets, weight, bias):
        op = getattr(F.contrib, self._op_name)
        extra = {} if bias is None else {"bias": bias}
        return op(data=x, offset=offsets, weight=weight, name="fwd", **extra,
                  **self._kwargs_deformable_conv)

    def hybrid_forward(self, F, x, offset_weight, deformable_conv_weight, offset_bias=None,
                       deformable_conv_bias=None):
        out = self._deform(F, x, self._offsets(F, x, offset_weight, offset_bias),
                           deformable_conv_weight, deformable_conv_bias)
        return self.act(out) if self.act is not None else out

    def __repr__(self):
        k = self._kwargs_deformable_conv
        shape = self.deformable_conv_weight.shape
        s = (f"{type(self).__name__}({shape[1] if shape[1] else None} -> {shape[0]}, "
             f"kernel_size={k['kernel']}, stride={k['stride']}")
        if k["pad"] != (0, 0):
            s += f", padding={k['pad']}"
        if k["dilate"] != (1, 1):
            s += f", dilation={k['dilate']}"
        if k["num_group"] != 1:
            s += f", groups={k['num_group']}"
        if self.deformable_conv_bias is None:
            s += ", bias=False"
        if self.act is not None:
            s += f", {self.act}"
        return s + ")"


class DeformableConvolution(_Deformable):
    """2-D deformable convolution v1 (Dai et al., 2017): a convolution (`offset_weight`,
    `offset_bias`, zero-initialized so the layer starts as a plain convolution) predicts the
    (dy, dx) offset of every kernel tap at every output cell, and
    `nd.contrib.DeformableConvolution` reads the input there (`deformable_conv_weight`,
    `deformable_conv_bias`).

    Args:
        channels: output channels.
        kernel_size, strides, padding, dilation: an int or a pair (default 1, 1, 0, 1).
        groups: convolution groups; num_deformable_group: offset groups (split the channels).
        layout: 'NCHW' only (MXNet's kernels compute no other).
        use_bias, in_channels (0: inferred), activation, weight_initializer,
        bias_initializer, offset_weight_initializer, offset_bias_initializer,
        offset_use_bias: as Conv2D's.

    Raises:
        ValueError: another layout, a non-positive channels, or adj.

    Shape: (N, C, H, W) -> (N, channels, H_out, W_out) as Conv2D.

    Example::

        layer = gluon.contrib.cnn.DeformableConvolution(16, kernel_size=3, padding=1)
        layer.initialize()
        y = layer(nd.ones((1, 8, 10, 10)))   # (1, 16, 10, 10)
    """

    def _alias(self):
        return "deformable_conv"


class ModulatedDeformableConvolution(_Deformable):
    """2-D modulated deformable convolution v2 (Zhu et al., 2019), as GluonCV's CenterNet
    uses it: the offset convolution also predicts one mask logit per tap, the mask is
    ``2 * sigmoid(logit)`` (1 at the zero-initialized start) and
    `nd.contrib.ModulatedDeformableConvolution` weighs each sample by it.

    Args, Raises and Shape: as `DeformableConvolution`.

    Example::

        layer = gluon.contrib.cnn.ModulatedDeformableConvolution(16, 3, padding=1)
    """

    _op_name = "ModulatedDeformableConvolution"
    _offset_parts = 3  # (dy, dx, mask) per tap and deformable group

    def _alias(self):
        return "modulated_deformable_conv"

    def hybrid_forward(self, F, x, offset_weight, deformable_conv_weight, offset_bias=None,
                       deformable_conv_bias=None):
        raw = self._offsets(F, x, offset_weight, offset_bias)
        offsets = F.slice_axis(raw, axis=1, begin=0, end=self._split)
        mask = F.sigmoid(F.slice_axis(raw, axis=1, begin=self._split, end=None)) * 2
        op = F.contrib.ModulatedDeformableConvolution
        extra = {} if deformable_conv_bias is None else {"bias": deformable_conv_bias}
        out = op(data=x, offset=offsets, mask=mask, weight=deformable_conv_weight, name="fwd",
                 **extra, **self._kwargs_deformable_conv)
        return self.act(out) if self.act is not None else out
