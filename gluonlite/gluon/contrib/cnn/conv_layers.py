"""Deformable convolution layers: a regular convolution learns per-position sampling offsets
(and, for the modulated v2, per-position masks) for the deformable convolution operator.

Parameter names, shapes and defaults are MXNet 1.x Gluon's (``offset_weight``,
``offset_bias``, ``deformable_conv_weight``, ``deformable_conv_bias``), so parameter files
of either framework load in the other. The operators are ``F.contrib.DeformableConvolution``
and ``F.contrib.ModulatedDeformableConvolution``.
"""
from ...block import HybridBlock
from ...nn.activations import Activation

__all__ = ["DeformableConvolution", "ModulatedDeformableConvolution"]


def _pair(name, what, v):
    if isinstance(v, int):
        return (v, v)
    v = tuple(v)
    if len(v) != 2 or not all(isinstance(e, int) for e in v):
        raise ValueError(f"{name}: {what} must be an int or a tuple of 2 ints, got {v!r}")
    return v


class _DeformableBase(HybridBlock):
    """What both layers share: the offset convolution, the main weight and the activation."""

    _offsets_per_tap = 2     # (dy, dx) per kernel tap; the modulated layer adds a mask
    _main_first = False
    _prefix_alias = "deformable_conv"

    def __init__(self, channels, kernel_size=(1, 1), strides=(1, 1), padding=(0, 0),
                 dilation=(1, 1), groups=1, num_deformable_group=1, layout="NCHW",
                 use_bias=True, in_channels=0, activation=None, weight_initializer=None,
                 bias_initializer="zeros", offset_weight_initializer="zeros",
                 offset_bias_initializer="zeros", offset_use_bias=True, op_name=None, adj=None,
                 prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        name = type(self).__name__
        if layout not in ("NCHW", "NHWC"):
            raise ValueError(f"{name}: layout={layout!r} is not supported; expected 'NCHW' "
                             "or 'NHWC'")
        if not isinstance(channels, int) or channels <= 0:
            raise ValueError(f"{name}: channels must be a positive int, got {channels!r}")
        kernel = _pair(name, "kernel_size", kernel_size)
        common = {"kernel": kernel, "stride": _pair(name, "strides", strides),
                  "dilate": _pair(name, "dilation", dilation),
                  "pad": _pair(name, "padding", padding), "num_group": groups,
                  "layout": layout}
        if adj is not None:
            common["adj"] = _pair(name, "adj", adj)
        taps = kernel[0] * kernel[1] * num_deformable_group
        self._offset_split = 2 * taps
        offset_channels = self._offsets_per_tap * taps
        self._kwargs_offset = dict(common, num_filter=offset_channels,
                                   no_bias=not offset_use_bias)
        self._kwargs_deformable_conv = dict(common, num_filter=channels,
                                            num_deformable_group=num_deformable_group,
                                            no_bias=not use_bias)
        self._channels, self._in_channels = channels, in_channels
        per_group = in_channels // groups
        with self.name_scope():
            # MXNet registers the offset parameters first for v1 and last for v2; the order
            # is kept so that collect_params() lists them as MXNet does
            if not self._main_first:
                self._offset_params(offset_channels, per_group, kernel, offset_use_bias,
                                    offset_weight_initializer, offset_bias_initializer)
            self.deformable_conv_weight = self.params.get(
                "deformable_conv_weight", shape=(channels, per_group) + kernel,
                init=weight_initializer, allow_deferred_init=True)
            self.deformable_conv_bias = self.params.get(
                "deformable_conv_bias", shape=(channels,), init=bias_initializer,
                allow_deferred_init=True) if use_bias else None
            if self._main_first:
                self._offset_params(offset_channels, per_group, kernel, offset_use_bias,
                                    offset_weight_initializer, offset_bias_initializer)
            self.act = (Activation(activation, prefix=activation + "_")
                        if activation is not None else None)

    def _offset_params(self, channels, per_group, kernel, use_bias, weight_init, bias_init):
        self.offset_weight = self.params.get(
            "offset_weight", shape=(channels, per_group) + kernel, init=weight_init,
            allow_deferred_init=True)
        self.offset_bias = self.params.get(
            "offset_bias", shape=(channels,), init=bias_init,
            allow_deferred_init=True) if use_bias else None

    def _alias(self):
        return self._prefix_alias

    def _offsets(self, F, x, offset_weight, offset_bias):
        args = (x, offset_weight) if offset_bias is None else (x, offset_weight, offset_bias)
        return F.Convolution(*args, cudnn_off=True, **self._kwargs_offset)

    def _finish(self, out):
        return self.act(out) if self.act is not None else out

    def __repr__(self):
        kw = self._kwargs_deformable_conv
        s = f"{type(self).__name__}({{mapping}}, kernel_size={kw['kernel']}, " \
            f"stride={kw['stride']}"
        if kw["pad"] != (0, 0):
            s += f", padding={kw['pad']}"
        if kw["dilate"] != (1, 1):
            s += f", dilation={kw['dilate']}"
        if kw["num_group"] != 1:
            s += f", groups={kw['num_group']}"
        if self.deformable_conv_bias is None:
            s += ", bias=False"
        if self.act:
            s += f", {self.act}"
        shape = self.deformable_conv_weight.shape
        return s.format(mapping=f"{shape[1] if shape[1] else None} -> {shape[0]}") + ")"


class DeformableConvolution(_DeformableBase):
    """2-D deformable convolution (v1, Dai et al. 2017).

    A convolution with ``2 * kh * kw * num_deformable_group`` output channels computes the
    sampling offsets; the deformable convolution samples the input at the kernel taps moved by
    them (bilinearly) and applies ``deformable_conv_weight``.

    Args:
        channels (int): output channels (a positive int).
        kernel_size: the window size, an int or a pair (default (1, 1)).
        strides: the step between windows, an int or a pair (default (1, 1)).
        padding: zeros added on both sides, an int or a pair (default (0, 0)).
        dilation: the spacing between kernel taps, an int or a pair (default (1, 1)).
        groups (int): convolution groups (default 1).
        num_deformable_group (int): groups of channels sharing one offset field (default 1).
        layout (str): 'NCHW' (default) or 'NHWC'.
        use_bias (bool): add ``deformable_conv_bias`` (default True).
        in_channels (int): input channels (0: inferred on the first call).
        activation (str): an activation applied after, or None (default).
        weight_initializer: the initializer of ``deformable_conv_weight`` (default None:
            the global initializer).
        bias_initializer: the initializer of ``deformable_conv_bias`` (default 'zeros').
        offset_weight_initializer: the initializer of the offset convolution's weight
            (default 'zeros': the layer starts as a regular convolution).
        offset_bias_initializer: the initializer of the offset convolution's bias (default
            'zeros').
        offset_use_bias (bool): the offset convolution has a bias (default True).
        op_name: accepted for MXNet compatibility (its operator name); unused.
        adj: an int or a pair passed to both operators as ``adj`` (default None: not
            passed); MXNet accepts it, a convolution does not use it.
        prefix: the prefix of the layer's name and parameter names (default None:
            ``deformable_conv0_`` style).
        params: a ParameterDict whose parameters the layer shares (default None: its own).

    Inputs:
        - **x**: the input, (N, C, H, W) (or NHWC).
        - **offset_weight**, **deformable_conv_weight**, **offset_bias**,
          **deformable_conv_bias**: the layer's parameters, passed in by ``forward`` (a
          bias is None when its use_bias is off).

    Outputs:
        - **out**: (N, channels, H_out, W_out), sized as a regular convolution's.

    Raises:
        ValueError: a layout other than NCHW/NHWC, channels not a positive int, or a
            size that is neither an int nor a pair.

    Example::

        conv = gluon.contrib.cnn.DeformableConvolution(16, kernel_size=3, padding=1)
        conv.initialize()
        conv(nd.ones((1, 3, 8, 8))).shape   # (1, 16, 8, 8)
    """

    def hybrid_forward(self, F, x, offset_weight, deformable_conv_weight, offset_bias=None,
                       deformable_conv_bias=None):
        offset = self._offsets(F, x, offset_weight, offset_bias)
        extra = {} if deformable_conv_bias is None else {"bias": deformable_conv_bias}
        out = F.contrib.DeformableConvolution(data=x, offset=offset,
                                              weight=deformable_conv_weight, name="fwd",
                                              **extra, **self._kwargs_deformable_conv)
        return self._finish(out)


class ModulatedDeformableConvolution(_DeformableBase):
    """2-D modulated deformable convolution (v2, Zhu et al. 2018).

    As `DeformableConvolution`, with ``3 * kh * kw * num_deformable_group`` offset channels:
    the first two thirds are the offsets, the last third ``2 * sigmoid(.)`` weighs each
    sampled tap (a mask in (0, 2), 1 when the offset convolution outputs zero).

    Args:
        channels (int): output channels (a positive int).
        kernel_size: the window size, an int or a pair (default (1, 1)).
        strides: the step between windows, an int or a pair (default (1, 1)).
        padding: zeros added on both sides, an int or a pair (default (0, 0)).
        dilation: the spacing between kernel taps, an int or a pair (default (1, 1)).
        groups (int): convolution groups (default 1).
        num_deformable_group (int): groups of channels sharing one offset field (default 1).
        layout (str): 'NCHW' (default) or 'NHWC'.
        use_bias (bool): add ``deformable_conv_bias`` (default True).
        in_channels (int): input channels (0: inferred on the first call).
        activation (str): an activation applied after, or None (default).
        weight_initializer: the initializer of ``deformable_conv_weight`` (default None:
            the global initializer).
        bias_initializer: the initializer of ``deformable_conv_bias`` (default 'zeros').
        offset_weight_initializer: the initializer of the offset convolution's weight
            (default 'zeros': the layer starts as a regular convolution).
        offset_bias_initializer: the initializer of the offset convolution's bias (default
            'zeros').
        offset_use_bias (bool): the offset convolution has a bias (default True).
        op_name: accepted for MXNet compatibility (its operator name); unused.
        adj: an int or a pair passed to both operators as ``adj`` (default None: not
            passed); MXNet accepts it, a convolution does not use it.
        prefix: the prefix of the layer's name and parameter names (default None:
            ``modulated_deformable_conv0_`` style).
        params: a ParameterDict whose parameters the layer shares (default None: its own).

    Inputs:
        - **x**: the input, (N, C, H, W) (or NHWC).
        - **offset_weight**, **deformable_conv_weight**, **offset_bias**,
          **deformable_conv_bias**: the layer's parameters, passed in by ``forward`` (a
          bias is None when its use_bias is off).

    Outputs:
        - **out**: (N, channels, H_out, W_out), sized as a regular convolution's.

    Raises:
        ValueError: a layout other than NCHW/NHWC, channels not a positive int, or a
            size that is neither an int nor a pair.

    Example::

        conv = gluon.contrib.cnn.ModulatedDeformableConvolution(16, kernel_size=3, padding=1)
        conv.initialize()
        conv(nd.ones((1, 3, 8, 8))).shape   # (1, 16, 8, 8)
    """

    _offsets_per_tap = 3
    _main_first = True
    _prefix_alias = "modulated_deformable_conv"

    def hybrid_forward(self, F, x, offset_weight, deformable_conv_weight, offset_bias=None,
                       deformable_conv_bias=None):
        raw = self._offsets(F, x, offset_weight, offset_bias)
        offset = F.slice_axis(raw, axis=1, begin=0, end=self._offset_split)
        mask = F.sigmoid(F.slice_axis(raw, axis=1, begin=self._offset_split, end=None)) * 2
        extra = {} if deformable_conv_bias is None else {"bias": deformable_conv_bias}
        out = F.contrib.ModulatedDeformableConvolution(
            data=x, offset=offset, mask=mask, weight=deformable_conv_weight, name="fwd",
            **extra, **self._kwargs_deformable_conv)
        return self._finish(out)
