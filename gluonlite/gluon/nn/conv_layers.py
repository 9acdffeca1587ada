"""Convolution, transposed convolution, pooling and padding layers, with MXNet 1.x Gluon's
names, defaults, parameter names (``conv0_weight``, ``conv0_bias``) and ``__repr__``."""
from ..block import HybridBlock
from .basic_layers import Activation

__all__ = ["Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose",
           "Conv3DTranspose", "MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D",
           "AvgPool3D", "GlobalMaxPool1D", "GlobalMaxPool2D", "GlobalMaxPool3D",
           "GlobalAvgPool1D", "GlobalAvgPool2D", "GlobalAvgPool3D", "ReflectionPad2D"]

_LAYOUTS = {1: ("NCW", "NWC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _tuple(name, what, v, n):
    """An int or a tuple of `n` ints as a tuple of `n` ints."""
    if isinstance(v, int):
        return (v,) * n
    v = tuple(v)
    if len(v) != n or not all(isinstance(e, int) for e in v):
        raise ValueError(f"{name}: {what} must be an int or a tuple of {n} ints, got {v!r}")
    return v


def _check_layout(name, layout, n, transposed=False):
    allowed = _LAYOUTS[n][:1] if transposed else _LAYOUTS[n]
    if layout not in allowed:
        raise ValueError(f"{name}: layout={layout!r} is not supported; expected one of "
                         f"{list(allowed)}")


class _Conv(HybridBlock):
    """The shared body of every (transposed) convolution layer: see `Conv2D`."""

    _ndim = 2
    _op_name = "Convolution"

    def __init__(self, channels, kernel_size, strides, padding, dilation, groups, layout,
                 in_channels=0, activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer="zeros", adj=None, **kwargs):
        super().__init__(**kwargs)
        name, n = type(self).__name__, self._ndim
        transposed = self._op_name == "Deconvolution"
        _check_layout(name, layout, n, transposed)
        if not isinstance(channels, int) or channels <= 0:
            raise ValueError(f"{name}: channels must be a positive int, got {channels!r}")
        if groups <= 0 or channels % groups or (in_channels and in_channels % groups):
            raise ValueError(f"{name}: groups={groups} must divide channels={channels} and "
                             f"in_channels={in_channels}")
        kernel = _tuple(name, "kernel_size", kernel_size, n)
        if any(k <= 0 for k in kernel):
            raise ValueError(f"{name}: kernel_size={kernel} must be positive")
        with self.name_scope():
            self._channels = channels
            self._in_channels = in_channels
            self._kwargs = {
                "kernel": kernel, "stride": _tuple(name, "strides", strides, n),
                "dilate": _tuple(name, "dilation", dilation, n),
                "pad": _tuple(name, "padding", padding, n), "num_filter": channels,
                "num_group": groups, "no_bias": not use_bias, "layout": layout}
            if adj is not None:
                self._kwargs["adj"] = _tuple(name, "output_padding", adj, n)
            if transposed:
                wshape = (in_channels, channels // groups) + kernel
            elif layout == _LAYOUTS[n][1]:
                wshape = (channels,) + kernel + (in_channels // groups,)
            else:
                wshape = (channels, in_channels // groups) + kernel
            self.weight = self.params.get("weight", shape=wshape, init=weight_initializer,
                                          allow_deferred_init=True)
            if use_bias:
                self.bias = self.params.get("bias", shape=(channels,), init=bias_initializer,
                                            allow_deferred_init=True)
            else:
                self.bias = None
            if activation is not None:
                self.act = Activation(activation, prefix=activation + "_")
            else:
                self.act = None

    def _alias(self):
        return "conv"

    def hybrid_forward(self, F, x, weight, bias=None):
        op = getattr(F, self._op_name)
        if bias is None:
            out = op(x, weight, name="fwd", **self._kwargs)
        else:
            out = op(x, weight, bias, name="fwd", **self._kwargs)
        return self.act(out) if self.act is not None else out

    def __repr__(self):
        kw = self._kwargs
        n = len(kw["kernel"])
        s = f"{type(self).__name__}({{mapping}}, kernel_size={kw['kernel']}, " \
            f"stride={kw['stride']}"
        if kw["pad"] != (0,) * n:
            s += f", padding={kw['pad']}"
        if kw["dilate"] != (1,) * n:
            s += f", dilation={kw['dilate']}"
        if kw["num_group"] != 1:
            s += f", groups={kw['num_group']}"
        if self.bias is None:
            s += ", bias=False"
        if self.act:
            s += f", {self.act}"
        shape = self.weight.shape
        return s.format(mapping=f"{shape[1] if shape[1] else None} -> {shape[0]}") + ")"


class Conv1D(_Conv):
    """1-D convolution over (N, C, W) data (layout 'NCW'; 'NWC' for channels last).

    Args:
        channels: the number of output channels (a positive int).
        kernel_size: the window size, an int or a 1-tuple.
        strides: the step between windows, an int or a 1-tuple (default 1).
        padding: zeros added on both sides of each spatial axis, an int or a 1-tuple (default 0).
        dilation: the spacing between kernel entries, an int or a 1-tuple (default 1).
        groups: split input and output channels into this many groups (default 1; must
            divide channels and in_channels).
        layout: 'NCW' (default) or 'NWC' (channels last; the weight then has its input
            channels last).
        activation: an activation name ('relu', ...) applied to the output, or None (default).
        use_bias: add a learned bias per output channel (default True).
        weight_initializer: default None: the global initializer.
        bias_initializer: default 'zeros'.
        in_channels: the number of input channels (default 0: inferred on the first call).

    Inputs:
        - **x**: the input array, (N, C, W) in the default layout.
        - **weight**, **bias**: the layer's parameters, passed in by ``forward`` (`bias` is
          None without use_bias).

    Outputs:
        - **out**: (N, channels, ...) with the output's spatial sizes.

    Raises:
        ValueError: channels not a positive int, groups that do not divide the channels, a
            kernel_size that is not positive, a tuple of the wrong length, or a layout MXNet
            rejects.

    Example::

        conv = nn.Conv1D(8, 3, padding=1); conv.initialize()
        conv(nd.ones((2, 4, 10))).shape   # (2, 8, 10)
    """

    _ndim = 1

    def __init__(self, channels, kernel_size, strides=1, padding=0, dilation=1, groups=1,
                 layout="NCW", activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer="zeros", in_channels=0, **kwargs):
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout,
                         in_channels, activation, use_bias, weight_initializer,
                         bias_initializer, **kwargs)


class Conv2D(_Conv):
    """2-D convolution over (N, C, H, W) data: ``out = activation(conv(x, weight) + bias)``.

    Args:
        channels: the number of output channels (a positive int).
        kernel_size: the window size, an int or a 2-tuple.
        strides: the step between windows, an int or a 2-tuple (default 1).
        padding: zeros added on both sides of each spatial axis, an int or a 2-tuple (default 0).
        dilation: the spacing between kernel entries, an int or a 2-tuple (default 1).
        groups: split input and output channels into this many groups (default 1; must
            divide channels and in_channels).
        layout: 'NCHW' (default) or 'NHWC' (channels last; the weight then has its input
            channels last).
        activation: an activation name ('relu', ...) applied to the output, or None (default).
        use_bias: add a learned bias per output channel (default True).
        weight_initializer: default None: the global initializer.
        bias_initializer: default 'zeros'.
        in_channels: the number of input channels (default 0: inferred on the first call).

    Inputs:
        - **x**: the input array, (N, C, H, W) in the default layout.
        - **weight**, **bias**: the layer's parameters, passed in by ``forward`` (`bias` is
          None without use_bias).

    Outputs:
        - **out**: (N, channels, ...) with the output's spatial sizes.

    Raises:
        ValueError: channels not a positive int, groups that do not divide the channels, a
            kernel_size that is not positive, a tuple of the wrong length, or a layout MXNet
            rejects.

    Shape: (N, C, H, W) -> (N, channels, (H + 2p - d(k - 1) - 1) // s + 1, ...).

    Example::

        conv = nn.Conv2D(16, kernel_size=3, padding=1, activation='relu'); conv.initialize()
        conv(nd.ones((1, 3, 8, 8))).shape   # (1, 16, 8, 8)
        conv.weight.shape   # (16, 3, 3, 3)
    """

    _ndim = 2

    def __init__(self, channels, kernel_size, strides=(1, 1), padding=(0, 0), dilation=(1, 1),
                 groups=1, layout="NCHW", activation=None, use_bias=True,
                 weight_initializer=None, bias_initializer="zeros", in_channels=0, **kwargs):
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout,
                         in_channels, activation, use_bias, weight_initializer,
                         bias_initializer, **kwargs)


class Conv3D(_Conv):
    """3-D convolution over (N, C, D, H, W) data (layout 'NCDHW' or 'NDHWC').

    Args:
        channels: the number of output channels (a positive int).
        kernel_size: the window size, an int or a 3-tuple.
        strides: the step between windows, an int or a 3-tuple (default 1).
        padding: zeros added on both sides of each spatial axis, an int or a 3-tuple (default 0).
        dilation: the spacing between kernel entries, an int or a 3-tuple (default 1).
        groups: split input and output channels into this many groups (default 1; must
            divide channels and in_channels).
        layout: 'NCDHW' (default) or 'NDHWC' (channels last; the weight then has its input
            channels last).
        activation: an activation name ('relu', ...) applied to the output, or None (default).
        use_bias: add a learned bias per output channel (default True).
        weight_initializer: default None: the global initializer.
        bias_initializer: default 'zeros'.
        in_channels: the number of input channels (default 0: inferred on the first call).

    Inputs:
        - **x**: the input array, (N, C, D, H, W) in the default layout.
        - **weight**, **bias**: the layer's parameters, passed in by ``forward`` (`bias` is
          None without use_bias).

    Outputs:
        - **out**: (N, channels, ...) with the output's spatial sizes.

    Raises:
        ValueError: channels not a positive int, groups that do not divide the channels, a
            kernel_size that is not positive, a tuple of the wrong length, or a layout MXNet
            rejects.

    Example::

        conv = nn.Conv3D(4, kernel_size=(1, 3, 3)); conv.initialize()
        conv(nd.ones((1, 2, 4, 6, 6))).shape   # (1, 4, 4, 4, 4)
    """

    _ndim = 3

    def __init__(self, channels, kernel_size, strides=(1, 1, 1), padding=(0, 0, 0),
                 dilation=(1, 1, 1), groups=1, layout="NCDHW", activation=None, use_bias=True,
                 weight_initializer=None, bias_initializer="zeros", in_channels=0, **kwargs):
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout,
                         in_channels, activation, use_bias, weight_initializer,
                         bias_initializer, **kwargs)


class _ConvTranspose(_Conv):
    _op_name = "Deconvolution"

    def __init__(self, channels, kernel_size, strides, padding, output_padding, dilation,
                 groups, layout, activation, use_bias, weight_initializer, bias_initializer,
                 in_channels, **kwargs):
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout,
                         in_channels, activation, use_bias, weight_initializer,
                         bias_initializer, adj=output_padding, **kwargs)
        self.outpad = self._kwargs["adj"]


class Conv1DTranspose(_ConvTranspose):
    """1-D transposed convolution (the gradient of Conv1D with respect to its input).

    Args:
        channels: the number of output channels (a positive int).
        kernel_size: the window size, an int or a 1-tuple.
        strides: the step between windows, an int or a 1-tuple (default 1).
        padding: zeros added on both sides of each spatial axis, an int or a 1-tuple (default 0).
        output_padding: extra size added to one side of the output, an int or a 1-tuple (default 0;
            below the stride), to pick among the output sizes one input size maps to.
        dilation: the spacing between kernel entries, an int or a 1-tuple (default 1).
        groups: split input and output channels into this many groups (default 1; must
            divide channels and in_channels).
        layout: 'NCW' only (MXNet's CPU kernel has no channels-last form).
        activation: an activation name ('relu', ...) applied to the output, or None (default).
        use_bias: add a learned bias per output channel (default True).
        weight_initializer: default None: the global initializer.
        bias_initializer: default 'zeros'.
        in_channels: the number of input channels (default 0: inferred on the first call).

    Inputs:
        - **x**: the input array, (N, C, W) in the default layout.
        - **weight**, **bias**: the layer's parameters, passed in by ``forward`` (`bias` is
          None without use_bias).

    Outputs:
        - **out**: (N, channels, ...) with the output's spatial sizes.

    Raises:
        ValueError: channels not a positive int, groups that do not divide the channels, a
            kernel_size that is not positive, a tuple of the wrong length, or a layout MXNet
            rejects.

    The weight is (in_channels, channels // groups, k).

    Shape: W_out = (W - 1) * s - 2p + d(k - 1) + 1 + output_padding.

    Example::

        deconv = nn.Conv1DTranspose(4, 3, strides=2); deconv.initialize()
        deconv(nd.ones((1, 2, 5))).shape   # (1, 4, 11)
    """

    _ndim = 1

    def __init__(self, channels, kernel_size, strides=1, padding=0, output_padding=0,
                 dilation=1, groups=1, layout="NCW", activation=None, use_bias=True,
                 weight_initializer=None, bias_initializer="zeros", in_channels=0, **kwargs):
        super().__init__(channels, kernel_size, strides, padding, output_padding, dilation,
                         groups, layout, activation, use_bias, weight_initializer,
                         bias_initializer, in_channels, **kwargs)


class Conv2DTranspose(_ConvTranspose):
    """2-D transposed convolution ("deconvolution").

    Args:
        channels: the number of output channels (a positive int).
        kernel_size: the window size, an int or a 2-tuple.
        strides: the step between windows, an int or a 2-tuple (default 1).
        padding: zeros added on both sides of each spatial axis, an int or a 2-tuple (default 0).
        output_padding: extra size added to one side of the output, an int or a 2-tuple (default 0;
            below the stride), to pick among the output sizes one input size maps to.
        dilation: the spacing between kernel entries, an int or a 2-tuple (default 1).
        groups: split input and output channels into this many groups (default 1; must
            divide channels and in_channels).
        layout: 'NCHW' only (MXNet's CPU kernel has no channels-last form).
        activation: an activation name ('relu', ...) applied to the output, or None (default).
        use_bias: add a learned bias per output channel (default True).
        weight_initializer: default None: the global initializer.
        bias_initializer: default 'zeros'.
        in_channels: the number of input channels (default 0: inferred on the first call).

    Inputs:
        - **x**: the input array, (N, C, H, W) in the default layout.
        - **weight**, **bias**: the layer's parameters, passed in by ``forward`` (`bias` is
          None without use_bias).

    Outputs:
        - **out**: (N, channels, ...) with the output's spatial sizes.

    Raises:
        ValueError: channels not a positive int, groups that do not divide the channels, a
            kernel_size that is not positive, a tuple of the wrong length, or a layout MXNet
            rejects.

    Example::

        deconv = nn.Conv2DTranspose(3, 4, strides=2, padding=1); deconv.initialize()
        deconv(nd.ones((1, 2, 8, 8))).shape   # (1, 3, 16, 16): H and W doubled
    """

    _ndim = 2

    def __init__(self, channels, kernel_size, strides=(1, 1), padding=(0, 0),
                 output_padding=(0, 0), dilation=(1, 1), groups=1, layout="NCHW",
                 activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer="zeros", in_channels=0, **kwargs):
        super().__init__(channels, kernel_size, strides, padding, output_padding, dilation,
                         groups, layout, activation, use_bias, weight_initializer,
                         bias_initializer, in_channels, **kwargs)


class Conv3DTranspose(_ConvTranspose):
    """3-D transposed convolution.

    Args:
        channels: the number of output channels (a positive int).
        kernel_size: the window size, an int or a 3-tuple.
        strides: the step between windows, an int or a 3-tuple (default 1).
        padding: zeros added on both sides of each spatial axis, an int or a 3-tuple (default 0).
        output_padding: extra size added to one side of the output, an int or a 3-tuple (default 0;
            below the stride), to pick among the output sizes one input size maps to.
        dilation: the spacing between kernel entries, an int or a 3-tuple (default 1).
        groups: split input and output channels into this many groups (default 1; must
            divide channels and in_channels).
        layout: 'NCDHW' only (MXNet's CPU kernel has no channels-last form).
        activation: an activation name ('relu', ...) applied to the output, or None (default).
        use_bias: add a learned bias per output channel (default True).
        weight_initializer: default None: the global initializer.
        bias_initializer: default 'zeros'.
        in_channels: the number of input channels (default 0: inferred on the first call).

    Inputs:
        - **x**: the input array, (N, C, D, H, W) in the default layout.
        - **weight**, **bias**: the layer's parameters, passed in by ``forward`` (`bias` is
          None without use_bias).

    Outputs:
        - **out**: (N, channels, ...) with the output's spatial sizes.

    Raises:
        ValueError: channels not a positive int, groups that do not divide the channels, a
            kernel_size that is not positive, a tuple of the wrong length, or a layout MXNet
            rejects.

    Example::

        deconv = nn.Conv3DTranspose(2, (2, 2, 2), strides=2); deconv.initialize()
        deconv(nd.ones((1, 1, 3, 3, 3))).shape   # (1, 2, 6, 6, 6)
    """

    _ndim = 3

    def __init__(self, channels, kernel_size, strides=(1, 1, 1), padding=(0, 0, 0),
                 output_padding=(0, 0, 0), dilation=(1, 1, 1), groups=1, layout="NCDHW",
                 activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer="zeros", in_channels=0, **kwargs):
        super().__init__(channels, kernel_size, strides, padding, output_padding, dilation,
                         groups, layout, activation, use_bias, weight_initializer,
                         bias_initializer, in_channels, **kwargs)


# ---- pooling ---------------------------------------------------------------------------------
class _Pooling(HybridBlock):
    """The shared body of the pooling layers: see `MaxPool2D`."""

    _ndim = 2

    def __init__(self, pool_size, strides, padding, ceil_mode, global_pool, pool_type, layout,
                 count_include_pad=None, **kwargs):
        super().__init__(**kwargs)
        name, n = type(self).__name__, self._ndim
        _check_layout(name, layout, n)
        pool_size = _tuple(name, "pool_size", pool_size, n)
        if any(k <= 0 for k in pool_size):
            raise ValueError(f"{name}: pool_size={pool_size} must be positive on every axis")
        strides = pool_size if strides is None else _tuple(name, "strides", strides, n)
        self._kwargs = {
            "kernel": pool_size, "stride": strides, "pad": _tuple(name, "padding", padding, n),
            "global_pool": global_pool, "pool_type": pool_type, "layout": layout,
            "pooling_convention": "full" if ceil_mode else "valid"}
        if count_include_pad is not None:
            self._kwargs["count_include_pad"] = count_include_pad

    def _alias(self):
        return "pool"

    def hybrid_forward(self, F, x):
        return F.Pooling(x, name="fwd", **self._kwargs)

    def __repr__(self):
        kw = self._kwargs
        return (f"{type(self).__name__}(size={kw['kernel']}, stride={kw['stride']}, "
                f"padding={kw['pad']}, ceil_mode={kw['pooling_convention'] == 'full'}, "
                f"global_pool={kw['global_pool']}, pool_type={kw['pool_type']}, "
                f"layout={kw['layout']})")


def _pool_class(name, n, kind, glob):
    layout = _LAYOUTS[n][0]
    dims = {1: "(N, C, W)", 2: "(N, C, H, W)", 3: "(N, C, D, H, W)"}[n]
    if glob:
        def __init__(self, layout=layout, **kwargs):
            _Pooling.__init__(self, (1,) * n, None, 0, True, True, kind, layout, **kwargs)
        doc = (f"Global {kind} pooling over every spatial axis of {dims} data: the output keeps "
               f"size-1 spatial axes.\n\n    Args:\n        layout: {_LAYOUTS[n][0]!r} (default) "
               f"or {_LAYOUTS[n][1]!r}.\n\n    Example::\n\n        pool = nn.{name}()\n        "
               f"pool(nd.ones({(1, 2) + (4,) * n})).shape   # {(1, 2) + (1,) * n}\n    ")
    elif kind == "max":
        def __init__(self, pool_size=(2,) * n if n > 1 else 2, strides=None, padding=0,
                     layout=layout, ceil_mode=False, **kwargs):
            _Pooling.__init__(self, pool_size, strides, padding, ceil_mode, False, "max",
                              layout, **kwargs)
        doc = (f"Max pooling over windows of {dims} data.\n\n    Args:\n        pool_size: "
               f"window size (an int or a {n}-tuple).\n        strides: default pool_size.\n"
               f"        padding: padding on both sides (never a maximum).\n        layout: "
               f"{_LAYOUTS[n][0]!r} (default) or {_LAYOUTS[n][1]!r}.\n        ceil_mode: round "
               f"the output size up (MXNet's 'full' convention).\n\n    Raises:\n        "
               f"ValueError: a pool_size of 0 or a layout MXNet rejects.\n\n    Example::\n\n"
               f"        pool = nn.{name}(2)\n        pool(nd.ones({(1, 2) + (4,) * n})).shape"
               f"   # {(1, 2) + (2,) * n}\n    ")
    else:
        def __init__(self, pool_size=(2,) * n if n > 1 else 2, strides=None, padding=0,
                     ceil_mode=False, layout=layout, count_include_pad=True, **kwargs):
            _Pooling.__init__(self, pool_size, strides, padding, ceil_mode, False, "avg",
                              layout, count_include_pad, **kwargs)
        doc = (f"Average pooling over windows of {dims} data.\n\n    Args:\n        pool_size: "
               f"window size (an int or a {n}-tuple).\n        strides: the step between "
               f"windows (default None: pool_size).\n        padding: zeros added on both sides "
               f"of each spatial axis (default 0).\n        ceil_mode: round the output size up "
               f"(MXNet's 'full' convention; default False).\n        layout: "
               f"{_LAYOUTS[n][0]!r} (default) or {_LAYOUTS[n][1]!r}.\n        "
               f"count_include_pad: count the padding in each window's size (default True)."
               f"\n\n    Inputs:\n        - **x**: the input array, {dims} in the default "
               f"layout.\n\n    Outputs:\n        - **out**: the window averages, the spatial "
               f"axes shrunk.\n\n    Raises:\n        ValueError: a pool_size of 0 or a layout "
               f"MXNet rejects.\n\n    Example::\n\n        pool = nn.{name}(2)\n        "
               f"pool(nd.ones({(1, 2) + (4,) * n})).shape   # {(1, 2) + (2,) * n}\n    ")
    return type(name, (_Pooling,), {"__init__": __init__, "__doc__": doc, "_ndim": n,
                                    "__module__": __name__})


MaxPool1D = _pool_class("MaxPool1D", 1, "max", False)
MaxPool2D = _pool_class("MaxPool2D", 2, "max", False)
MaxPool3D = _pool_class("MaxPool3D", 3, "max", False)
AvgPool1D = _pool_class("AvgPool1D", 1, "avg", False)
AvgPool2D = _pool_class("AvgPool2D", 2, "avg", False)
AvgPool3D = _pool_class("AvgPool3D", 3, "avg", False)
GlobalMaxPool1D = _pool_class("GlobalMaxPool1D", 1, "max", True)
GlobalMaxPool2D = _pool_class("GlobalMaxPool2D", 2, "max", True)
GlobalMaxPool3D = _pool_class("GlobalMaxPool3D", 3, "max", True)
GlobalAvgPool1D = _pool_class("GlobalAvgPool1D", 1, "avg", True)
GlobalAvgPool2D = _pool_class("GlobalAvgPool2D", 2, "avg", True)
GlobalAvgPool3D = _pool_class("GlobalAvgPool3D", 3, "avg", True)


class ReflectionPad2D(HybridBlock):
    """Pad the last two axes of (N, C, H, W) data by reflection (the border not repeated).

    Args:
        padding: an int (every side) or MXNet's 8-tuple pad_width.

    Inputs:
        - **x**: a (N, C, H, W) array.

    Outputs:
        - **out**: (N, C, H + top + bottom, W + left + right).

    Raises:
        ValueError: a padding that is neither.

    Example::

        pad = nn.ReflectionPad2D(3)
        pad(nd.ones((1, 2, 5, 5))).shape   # (1, 2, 11, 11)
    """

    def __init__(self, padding=0, **kwargs):
        super().__init__(**kwargs)
        if isinstance(padding, int):
            padding = (0, 0, 0, 0, padding, padding, padding, padding)
        padding = tuple(padding)
        if len(padding) != 8:
            raise ValueError(f"ReflectionPad2D: padding must be an int or 8 ints (MXNet's "
                             f"pad_width), got {padding!r}")
        self._padding = padding

    def hybrid_forward(self, F, x):
        return F.pad(x, mode="reflect", pad_width=self._padding)
