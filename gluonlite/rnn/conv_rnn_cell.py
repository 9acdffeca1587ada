"""Convolutional recurrent cells (`mx.rnn.ConvRNNCell`, `ConvLSTMCell`, `ConvGRUCell`): the
step cells with their two projections made by `Convolution` instead of `FullyConnected`, so
inputs and states are feature maps (Shi et al. 2015, "Convolutional LSTM Network").

The state keeps the shape of the input-to-state convolution's output; the state-to-state
convolution is padded to keep it (its kernel must be odd).
"""
from .. import symbol as sym
from .rnn_cell import BaseRNNCell

__all__ = ["BaseConvRNNCell", "ConvRNNCell", "ConvLSTMCell", "ConvGRUCell"]


def _pair(who, what, value):
    value = tuple(value) if isinstance(value, (tuple, list)) else (value, value)
    if len(value) != 2 or not all(isinstance(v, int) and v >= 0 for v in value):
        raise ValueError(f"{who}: {what} must be two ints >= 0, got {value!r}")
    return value


def _leaky(inputs, **kwargs):
    return sym.LeakyReLU(inputs, act_type="leaky", slope=0.2, **kwargs)


class BaseConvRNNCell(BaseRNNCell):
    """The common part of the convolutional cells: parameters, state shape, the two
    convolutions of a step.

    Args:
        input_shape: the shape of one step's input, batch first (e.g. (N, C, H, W)).
        num_hidden: the state's channels.
        h2h_kernel (tuple of int): the state-to-state convolution's kernel (odd sizes; it
            is padded so the state keeps its size).
        h2h_dilate (tuple of int): the state-to-state convolution's dilation.
        i2h_kernel (tuple of int): the input-to-state convolution's kernel.
        i2h_stride (tuple of int): its stride.
        i2h_pad (tuple of int): its padding.
        i2h_dilate (tuple of int): its dilation.
        i2h_weight_initializer: the initializer of the input-to-state weight (None: the
            module's initializer).
        h2h_weight_initializer: the initializer of the state-to-state weight (None: the
            module's).
        i2h_bias_initializer: the initializer of the input-to-state bias.
        h2h_bias_initializer: the initializer of the state-to-state bias.
        activation: an `Activation` act_type or a function of a Symbol.
        prefix (str): put before the names of the cell's nodes and weights (default ``''``).
        params (RNNParams): the weights to share (default None: the cell's own).
        conv_layout: 'NCHW' (or another layout `Convolution` takes).

    Raises:
        ValueError: an even h2h kernel, or a kernel/stride/pad that is not two ints.

    Example::

        cell = mx.rnn.ConvGRUCell(input_shape=(1, 3, 16, 10), num_hidden=10)
        isinstance(cell, mx.rnn.BaseConvRNNCell)   # True
        outs, _ = cell.unroll(3, sym.var("x"), merge_outputs=True)
        outs.infer_shape(x=(1, 3, 3, 16, 10))[1]   # [(1, 3, 10, 16, 10)]
    """

    def __init__(self, input_shape, num_hidden, h2h_kernel, h2h_dilate, i2h_kernel,
                 i2h_stride, i2h_pad, i2h_dilate, i2h_weight_initializer,
                 h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                 activation, prefix="", params=None, conv_layout="NCHW"):
        super().__init__(prefix=prefix, params=params)
        who = type(self).__name__
        self._h2h_kernel = _pair(who, "h2h_kernel", h2h_kernel)
        if self._h2h_kernel[0] % 2 != 1 or self._h2h_kernel[1] % 2 != 1:
            raise ValueError(f"{who}: h2h_kernel must be odd (the state keeps its size), got "
                             f"{h2h_kernel!r}")
        self._h2h_dilate = _pair(who, "h2h_dilate", h2h_dilate)
        self._h2h_pad = tuple(d * (k - 1) // 2 for d, k in zip(self._h2h_dilate,
                                                                self._h2h_kernel))
        self._i2h_kernel = _pair(who, "i2h_kernel", i2h_kernel)
        self._i2h_stride = _pair(who, "i2h_stride", i2h_stride)
        self._i2h_pad = _pair(who, "i2h_pad", i2h_pad)
        self._i2h_dilate = _pair(who, "i2h_dilate", i2h_dilate)
        self._num_hidden = num_hidden
        self._input_shape = tuple(input_shape)
        self._conv_layout = conv_layout
        self._activation = activation
        probe = sym.Convolution(data=sym.var("data"), num_filter=num_hidden,
                                kernel=self._i2h_kernel, stride=self._i2h_stride,
                                pad=self._i2h_pad, dilate=self._i2h_dilate, layout=conv_layout,
                                no_bias=True)
        out = probe.infer_shape(data=self._input_shape)[1][0]
        self._state_shape = (0,) + tuple(out[1:])
        get = self._params.get
        self._iW = get("i2h_weight", init=i2h_weight_initializer)
        self._hW = get("h2h_weight", init=h2h_weight_initializer)
        self._iB = get("i2h_bias", init=i2h_bias_initializer)
        self._hB = get("h2h_bias", init=h2h_bias_initializer)

    @property
    def _num_gates(self):
        return len(self._gate_names)

    @property
    def state_info(self):
        """The states, each of the input-to-state convolution's output shape.

        Example::

            mx.rnn.ConvGRUCell(input_shape=(1, 3, 16, 10), num_hidden=10).state_info
            # [{'shape': (0, 10, 16, 10), '__layout__': 'NCHW'}]
        """
        return [{"shape": self._state_shape, "__layout__": self._conv_layout}
                for _ in range(self._N_STATES)]

    _N_STATES = 1

    def _conv_forward(self, inputs, states, name):
        width = self._num_hidden * self._num_gates
        i2h = sym.Convolution(name=f"{name}i2h", data=inputs, num_filter=width,
                              kernel=self._i2h_kernel, stride=self._i2h_stride,
                              pad=self._i2h_pad, dilate=self._i2h_dilate, weight=self._iW,
                              bias=self._iB, layout=self._conv_layout)
        h2h = sym.Convolution(name=f"{name}h2h", data=states[0], num_filter=width,
                              kernel=self._h2h_kernel, dilate=self._h2h_dilate,
                              pad=self._h2h_pad, stride=(1, 1), weight=self._hW, bias=self._hB,
                              layout=self._conv_layout)
        return i2h, h2h


_DEFAULTS = dict(h2h_kernel=(3, 3), h2h_dilate=(1, 1), i2h_kernel=(3, 3), i2h_stride=(1, 1),
                 i2h_pad=(1, 1), i2h_dilate=(1, 1), i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", activation=_leaky, params=None,
                 conv_layout="NCHW")


def _conv_init(cls, default_prefix):
    """An ``__init__`` taking MXNet's keyword defaults for a conv cell."""
    def __init__(self, input_shape, num_hidden, prefix=default_prefix, **kwargs):
        unknown = set(kwargs) - set(_DEFAULTS)
        if unknown:
            raise TypeError(f"{cls.__name__}: unexpected argument(s) {sorted(unknown)}")
        kw = {**_DEFAULTS, **kwargs}
        BaseConvRNNCell.__init__(self, input_shape, num_hidden, prefix=prefix, **kw)
    __init__.__doc__ = f"See `{cls.__name__}` (default prefix {default_prefix!r})."
    cls.__init__ = __init__
    return cls


class ConvRNNCell(BaseConvRNNCell):
    """Convolutional Elman cell: ``h' = activation(conv_i(x) + conv_h(h))``.

    Args:
        input_shape (tuple of int): the shape of one step's input, batch first (e.g.
            (N, C, H, W)).
        num_hidden (int): the state's channels.
        prefix (str): put before the names of the cell's nodes and weights (default
            ``'ConvRNN_'``).
        **kwargs: the other settings of `BaseConvRNNCell` (h2h_kernel, i2h_kernel, ...);
            defaults: 3x3 kernels, i2h pad (1, 1), zero biases, activation leaky ReLU with
            slope 0.2.

    Example::

        cell = mx.rnn.ConvRNNCell(input_shape=(1, 3, 16, 10), num_hidden=10)
        outs, _ = cell.unroll(3, mx.sym.var("x"))   # a list of 3 step outputs

    """

    @property
    def _gate_names(self):
        return ("",)

    def __call__(self, inputs, states):
        """One step: ``(h', [h'])``."""
        name = self._step_name()
        i2h, h2h = self._conv_forward(inputs, states, name)
        out = self._get_activation(i2h + h2h, self._activation, name=f"{name}out")
        return out, [out]


class ConvLSTMCell(BaseConvRNNCell):
    """Convolutional LSTM cell; gates (input, forget, candidate, output) along the channel
    axis; the candidate and the output use `activation`.

    Args:
        input_shape (tuple of int): the shape of one step's input, batch first (e.g.
            (N, C, H, W)).
        num_hidden (int): the channels of the hidden and the cell states.
        prefix (str): put before the names of the cell's nodes and weights (default
            ``'ConvLSTM_'``).
        **kwargs: the other settings of `BaseConvRNNCell`, with `ConvRNNCell`'s defaults.

    Example::

        cell = mx.rnn.ConvLSTMCell(input_shape=(1, 3, 16, 10), num_hidden=10)
        out, [h, c] = cell(sym.var("x"), cell.begin_state())
        out.infer_shape(x=(1, 3, 16, 10))[1]   # [(1, 10, 16, 10)]
    """

    _N_STATES = 2

    @property
    def _gate_names(self):
        return ("_i", "_f", "_c", "_o")

    def __call__(self, inputs, states):
        """One step: ``(h', [h', c'])``."""
        name = self._step_name()
        i2h, h2h = self._conv_forward(inputs, states, name)
        g = sym.SliceChannel(i2h + h2h, num_outputs=4, axis=self._conv_layout.find("C"),
                             name=f"{name}slice")
        i = sym.Activation(g[0], act_type="sigmoid", name=f"{name}i")
        f = sym.Activation(g[1], act_type="sigmoid", name=f"{name}f")
        c_in = self._get_activation(g[2], self._activation, name=f"{name}c")
        o = sym.Activation(g[3], act_type="sigmoid", name=f"{name}o")
        c = sym._plus(f * states[1], i * c_in, name=f"{name}state")
        h = sym._mul(o, self._get_activation(c, self._activation), name=f"{name}out")
        return h, [h, c]


class ConvGRUCell(BaseConvRNNCell):
    """Convolutional GRU cell; gates (reset, update, new) along the channel axis.

    Args:
        input_shape (tuple of int): the shape of one step's input, batch first (e.g.
            (N, C, H, W)).
        num_hidden (int): the state's channels.
        prefix (str): put before the names of the cell's nodes and weights (default
            ``'ConvGRU_'``).
        **kwargs: the other settings of `BaseConvRNNCell`, with `ConvRNNCell`'s defaults.

    Example::

        cell = mx.rnn.ConvGRUCell(input_shape=(1, 3, 16, 10), num_hidden=10)
        out, [h] = cell(sym.var("x"), cell.begin_state())
    """

    @property
    def _gate_names(self):
        return ("_r", "_z", "_o")

    def __call__(self, inputs, states):
        """One step: ``(h', [h'])``."""
        name = self._step_name()
        i2h, h2h = self._conv_forward(inputs, states, name)
        i_r, i_z, i_n = sym.SliceChannel(i2h, num_outputs=3, name=f"{name}_i2h_slice")
        h_r, h_z, h_n = sym.SliceChannel(h2h, num_outputs=3, name=f"{name}_h2h_slice")
        r = sym.Activation(i_r + h_r, act_type="sigmoid", name=f"{name}_r_act")
        z = sym.Activation(i_z + h_z, act_type="sigmoid", name=f"{name}_z_act")
        n = self._get_activation(i_n + r * h_n, self._activation, name=f"{name}_h_act")
        out = sym._plus((1. - z) * n, z * states[0], name=f"{name}out")
        return out, [out]


_conv_init(ConvRNNCell, "ConvRNN_")
_conv_init(ConvLSTMCell, "ConvLSTM_")
_conv_init(ConvGRUCell, "ConvGRU_")
