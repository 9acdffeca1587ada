"""Convolutional recurrent cells (MXNet 1.x `gluon.contrib.rnn`): RNN, LSTM and GRU cells whose
input-to-hidden and hidden-to-hidden projections are convolutions over 1, 2 or 3 spatial axes.

Every cell runs two `Convolution`s per step::

    i2h = conv(x_t,     i2h_weight, i2h_bias; i2h_kernel, i2h_pad, i2h_dilate, stride 1)
    h2h = conv(h_{t-1}, h2h_weight, h2h_bias; h2h_kernel, h2h_dilate, stride 1,
               pad = h2h_dilate * (h2h_kernel - 1) / 2)   # keeps the state's spatial shape

then combines them as its gated family does, gates stacked along the channel axis. The
state's spatial shape is the i2h convolution's output shape, fixed by `input_shape` when the
cell is built; the input's channel count may be 0 there (inferred at the first call).
"""
from ...nn.activations import LeakyReLU
from ....ndarray.ndarray import NDArray
from ...rnn.rnn_cell import HybridRecurrentCell

__all__ = ["Conv1DRNNCell", "Conv2DRNNCell", "Conv3DRNNCell",
           "Conv1DLSTMCell", "Conv2DLSTMCell", "Conv3DLSTMCell",
           "Conv1DGRUCell", "Conv2DGRUCell", "Conv3DGRUCell"]

_CHANNELS_FIRST = {1: "NCW", 2: "NCHW", 3: "NCDHW"}
_CHANNELS_LAST = {1: "NWC", 2: "NHWC", 3: "NDHWC"}


def _is_int(v):
    return hasattr(v, "__index__") and not isinstance(v, bool)


class _ConvCell(HybridRecurrentCell):
    """What every convolutional cell shares: argument checks, parameter and state shapes, the
    two convolutions of a step. Subclasses set `_dims`, `_gates`, `_n_states` and `_step`."""

    _dims = 0
    _gates = 1
    _n_states = 1

    def __init__(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad,
                 i2h_dilate, h2h_dilate, i2h_weight_initializer, h2h_weight_initializer,
                 i2h_bias_initializer, h2h_bias_initializer, conv_layout, activation,
                 prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._hidden_channels = self._check_hidden(hidden_channels)
        self._conv_layout = self._check_layout(conv_layout)
        self._activation = activation
        self._i2h_kernel = self._spec("i2h_kernel", i2h_kernel, 1)
        self._i2h_pad = self._spec("i2h_pad", i2h_pad, 0)
        self._i2h_dilate = self._spec("i2h_dilate", i2h_dilate, 1)
        self._h2h_kernel = self._spec("h2h_kernel", h2h_kernel, 1)
        self._h2h_dilate = self._spec("h2h_dilate", h2h_dilate, 1)
        self._stride = (1,) * self._dims
        if any(k % 2 == 0 for k in self._h2h_kernel):
            raise ValueError(f"{self._cls}: h2h_kernel must be odd along every axis (the "
                             "recurrent convolution pads dilate * (kernel - 1) / 2 on each side "
                             f"to keep the state's shape), got {h2h_kernel!r}")
        self._h2h_pad = tuple(d * (k - 1) // 2 for d, k in zip(self._h2h_dilate,
                                                                self._h2h_kernel))
        self._input_shape = self._check_input_shape(input_shape)
        self._channel_axis = self._conv_layout.find("C")
        last = self._channel_axis != 1
        in_channels = self._input_shape[-1 if last else 0]
        spatial = self._input_shape[:-1] if last else self._input_shape[1:]
        out_size = self._i2h_out_size(spatial)
        h, g = self._hidden_channels, self._hidden_channels * self._gates
        if last:
            i2h_shape = (g,) + self._i2h_kernel + (in_channels,)
            h2h_shape = (g,) + self._h2h_kernel + (h,)
            self._state_shape = out_size + (h,)
        else:
            i2h_shape = (g, in_channels) + self._i2h_kernel
            h2h_shape = (g, h) + self._h2h_kernel
            self._state_shape = (h,) + out_size

        def param(name, shape, init):
            return self.params.get(name, shape=shape, init=init, allow_deferred_init=True)

        self.i2h_weight = param("i2h_weight", i2h_shape, i2h_weight_initializer)
        self.h2h_weight = param("h2h_weight", h2h_shape, h2h_weight_initializer)
        self.i2h_bias = param("i2h_bias", (g,), i2h_bias_initializer)
        self.h2h_bias = param("h2h_bias", (g,), h2h_bias_initializer)

    # ---- argument checks ----------------------------------------------------------------
    @property
    def _cls(self):
        return self.__class__.__name__

    def _check_hidden(self, hidden_channels):
        if not _is_int(hidden_channels) or hidden_channels < 1:
            raise ValueError(f"{self._cls}: hidden_channels must be a positive int, got "
                             f"{hidden_channels!r}")
        return int(hidden_channels)

    def _check_layout(self, layout):
        allowed = (_CHANNELS_FIRST[self._dims], _CHANNELS_LAST[self._dims])
        if layout not in allowed:
            raise ValueError(f"{self._cls}: conv_layout must be one of {allowed} for a "
                             f"{self._dims}D convolution, got {layout!r}")
        return layout

    def _spec(self, name, value, low):
        """A convolution setting as a tuple of `_dims` ints, each at least `low`."""
        n = self._dims
        if _is_int(value):
            value = (value,) * n
        if (not isinstance(value, (tuple, list)) or len(value) != n
                or not all(_is_int(v) for v in value)):
            raise ValueError(f"{self._cls}: {name} must be an int or a tuple of {n} int(s), "
                             f"one per spatial axis of a {n}D convolution, got {value!r}")
        if any(v < low for v in value):
            raise ValueError(f"{self._cls}: {name} must be at least {low} along every axis, "
                             f"got {value!r}")
        return tuple(int(v) for v in value)

    def _check_input_shape(self, input_shape):
        n = self._dims + 1
        if (not isinstance(input_shape, (tuple, list)) or len(input_shape) != n
                or not all(_is_int(v) and v >= 0 for v in input_shape)):
            raise ValueError(f"{self._cls}: input_shape must be a tuple of {n} non-negative "
                             f"ints (one step of one sample, laid out as "
                             f"{self._conv_layout[1:]!r}; 0 for the channels: inferred), got "
                             f"{input_shape!r}")
        return tuple(int(v) for v in input_shape)

    def _i2h_out_size(self, spatial):
        out = []
        for x, k, p, d in zip(spatial, self._i2h_kernel, self._i2h_pad, self._i2h_dilate):
            size = x + 2 * p - d * (k - 1) if x else 0
            if x and size < 1:
                raise ValueError(f"{self._cls}: the input convolution leaves nothing of "
                                 f"input_shape {self._input_shape} (i2h_kernel "
                                 f"{self._i2h_kernel}, i2h_pad {self._i2h_pad}, i2h_dilate "
                                 f"{self._i2h_dilate}); use a smaller kernel or more padding")
            out.append(size)
        return tuple(out)

    # ---- the cell API -----------------------------------------------------------------------
    def state_info(self, batch_size=0):
        """One ``{'shape': (batch_size,) + state shape, '__layout__': conv_layout}`` per state
        (h for RNN and GRU cells; h and c for LSTM cells).

        Args:
            batch_size: the batch size the shapes start with (default 0: unknown).

        Returns:
            a list of dicts, one per state.
        """
        return [{"shape": (batch_size,) + self._state_shape, "__layout__": self._conv_layout}
                for _ in range(self._n_states)]

    def __repr__(self):
        shape = self.i2h_weight.shape
        in_channels = shape[1 if self._channel_axis == 1 else -1]
        return (f"{self._cls}({in_channels if in_channels else None} -> {shape[0]}, "
                f"{self._activation}, {self._conv_layout})")

    def forward(self, inputs, states):
        """One step: ``(output, new_states)``.

        Raises:
            ValueError: an input that is not one step of a batch laid out as `conv_layout`, or
                that disagrees with `input_shape`; states of the wrong number or shape.
        """
        if isinstance(inputs, NDArray):
            want = self._input_shape
            if inputs.ndim != self._dims + 2 or any(
                    w and w != g for w, g in zip(want, inputs.shape[1:])):
                raise ValueError(f"{self._cls} {self.name}: inputs must have shape (batch,) + "
                                 f"{want} ({self._conv_layout}, 0: any), got "
                                 f"{tuple(inputs.shape)}; a cell runs one step (use unroll or "
                                 "foreach for a sequence)")
            if isinstance(states, (list, tuple)):
                expected = (inputs.shape[0],) + self._state_shape
                for i, s in enumerate(states):
                    if isinstance(s, NDArray) and tuple(s.shape) != expected:
                        raise ValueError(f"{self._cls} {self.name}: states[{i}] must have shape "
                                         f"{expected} (see state_info), got {tuple(s.shape)}")
        return super().forward(inputs, states)

    def reset(self):
        """Reset the step counter (node names start again at t0_) before a new sequence."""
        # Only the counters: an activation block is a child but not a cell (MXNet 1.9.1 resets
        # it too, and its unroll fails on a LeakyReLU activation for want of a reset).
        self._init_counter = -1
        self._counter = -1

    def _get_activation(self, F, inputs, activation, **kwargs):
        # A block cannot take a node name: MXNet lowers LeakyReLU to its operator (same
        # numbers); any other activation block is called as it is.
        if isinstance(activation, LeakyReLU):
            return F.LeakyReLU(inputs, act_type="leaky", slope=activation._alpha, **kwargs)
        if not isinstance(activation, str):
            return activation(inputs)
        return super()._get_activation(F, inputs, activation, **kwargs)

    def _slice_gates(self, F, x, name):
        return F.SliceChannel(x, num_outputs=self._gates, axis=self._channel_axis, name=name)

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = f"t{self._counter}_"
        common = dict(num_filter=self._hidden_channels * self._gates, stride=self._stride,
                      layout=self._conv_layout)
        i2h = F.Convolution(data=inputs, weight=i2h_weight, bias=i2h_bias,
                            kernel=self._i2h_kernel, pad=self._i2h_pad,
                            dilate=self._i2h_dilate, name=prefix + "i2h", **common)
        h2h = F.Convolution(data=states[0], weight=h2h_weight, bias=h2h_bias,
                            kernel=self._h2h_kernel, pad=self._h2h_pad,
                            dilate=self._h2h_dilate, name=prefix + "h2h", **common)
        return self._step(F, i2h, h2h, states, prefix)

    def _step(self, F, i2h, h2h, states, prefix):
        raise NotImplementedError


# ---- the three gated families ----
class _ConvRNN(_ConvCell):
    def _alias(self):
        return "conv_rnn"

    def _step(self, F, i2h, h2h, states, prefix):
        out = self._get_activation(F, F.elemwise_add(i2h, h2h, name=prefix + "plus0"),
                                   self._activation, name=prefix + "out")
        return out, [out]


class _ConvLSTM(_ConvCell):
    _gates = 4
    _n_states = 2

    def _alias(self):
        return "conv_lstm"

    def _step(self, F, i2h, h2h, states, prefix):
        gates = self._slice_gates(F, F.elemwise_add(i2h, h2h, name=prefix + "plus0"),
                                  prefix + "slice")
        in_gate = F.sigmoid(gates[0], name=prefix + "i")
        forget_gate = F.sigmoid(gates[1], name=prefix + "f")
        in_transform = self._get_activation(F, gates[2], self._activation, name=prefix + "c")
        out_gate = F.sigmoid(gates[3], name=prefix + "o")
        next_c = F.elemwise_add(forget_gate * states[1], in_gate * in_transform,
                                name=prefix + "state")
        next_h = F.elemwise_mul(out_gate, self._get_activation(F, next_c, self._activation),
                                name=prefix + "out")
        return next_h, [next_h, next_c]


class _ConvGRU(_ConvCell):
    _gates = 3

    def _alias(self):
        return "conv_gru"

    def _step(self, F, i2h, h2h, states, prefix):
        i2h_r, i2h_z, i2h_n = self._slice_gates(F, i2h, prefix + "i2h_slice")
        h2h_r, h2h_z, h2h_n = self._slice_gates(F, h2h, prefix + "h2h_slice")
        reset_gate = F.sigmoid(i2h_r + h2h_r, name=prefix + "r_act")
        update_gate = F.sigmoid(i2h_z + h2h_z, name=prefix + "z_act")
        candidate = self._get_activation(F, i2h_n + reset_gate * h2h_n, self._activation,
                                         name=prefix + "h_act")
        next_h = F.elemwise_add((1. - update_gate) * candidate, update_gate * states[0],
                                name=prefix + "out")
        return next_h, [next_h]


# ---- the three spatial ranks (their constructors carry MXNet's defaults) ----
class _Conv1D(_ConvCell):
    _dims = 1

    def __init__(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad=(0,),
                 i2h_dilate=(1,), h2h_dilate=(1,), i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", conv_layout="NCW", activation="tanh",
                 prefix=None, params=None):
        super().__init__(input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad,
                         i2h_dilate, h2h_dilate, i2h_weight_initializer, h2h_weight_initializer,
                         i2h_bias_initializer, h2h_bias_initializer, conv_layout, activation,
                         prefix, params)


class _Conv2D(_ConvCell):
    _dims = 2

    def __init__(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad=(0, 0),
                 i2h_dilate=(1, 1), h2h_dilate=(1, 1), i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", conv_layout="NCHW", activation="tanh",
                 prefix=None, params=None):
        super().__init__(input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad,
                         i2h_dilate, h2h_dilate, i2h_weight_initializer, h2h_weight_initializer,
                         i2h_bias_initializer, h2h_bias_initializer, conv_layout, activation,
                         prefix, params)


class _Conv3D(_ConvCell):
    _dims = 3

    def __init__(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel,
                 i2h_pad=(0, 0, 0), i2h_dilate=(1, 1, 1), h2h_dilate=(1, 1, 1),
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros",
                 conv_layout="NCDHW", activation="tanh", prefix=None, params=None):
        super().__init__(input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad,
                         i2h_dilate, h2h_dilate, i2h_weight_initializer, h2h_weight_initializer,
                         i2h_bias_initializer, h2h_bias_initializer, conv_layout, activation,
                         prefix, params)


# ---- the public cells ----
_EQUATIONS = {
    "RNN": """
        h_t = activation(W * x_t + b_W + R * h_{t-1} + b_R)

    (``*`` is convolution.) States: [h]; output: h_t.""",
    "LSTM": """
        i, f, c~, o = split(W * x_t + b_W + R * h_{t-1} + b_R, 4, channel axis)
        c_t = sigmoid(f) c_{t-1} + sigmoid(i) activation(c~)
        h_t = sigmoid(o) activation(c_t)

    (``*`` is convolution; Shi et al., 2015, "Convolutional LSTM Network".) States: [h, c];
    output: h_t. Gates are stacked as (input, forget, candidate, output).""",
    "GRU": """
        r = sigmoid(W_r * x_t + b_Wr + R_r * h_{t-1} + b_Rr)
        z = sigmoid(W_z * x_t + b_Wz + R_z * h_{t-1} + b_Rz)
        n = activation(W_n * x_t + b_Wn + r (R_n * h_{t-1} + b_Rn))
        h_t = (1 - z) n + z h_{t-1}

    (``*`` is convolution.) States: [h]; output: h_t. Gates are stacked as (reset, update,
    new).""",
}

_DOC = """{dims}D convolutional {kind} cell (MXNet 1.x `gluon.contrib.rnn.{name}`)::
{equations}

    Args:
        input_shape: one step of one sample, without batch and time axes, laid out as
            `conv_layout` (e.g. {example_shape} for {first}); its channel count may be 0
            (inferred from the first input).
        hidden_channels: H, the state's channel count.
        i2h_kernel: the kernel size of the input convolution (an int or {dims} ints).
        h2h_kernel: the kernel size of the recurrent convolution (an int or {dims} ints),
            odd along every axis (the state keeps its shape).
        i2h_pad: zero padding of the input convolution (default {zeros}).
        i2h_dilate: the dilation of the input convolution (default {ones}).
        h2h_dilate: the dilation of the recurrent convolution (default {ones}).
        i2h_weight_initializer: the initializer of ``i2h_weight`` (default None: the one
            given to `initialize`).
        h2h_weight_initializer: the initializer of ``h2h_weight`` (default None: the one
            given to `initialize`).
        i2h_bias_initializer: the initializer of ``i2h_bias`` (default 'zeros').
        h2h_bias_initializer: the initializer of ``h2h_bias`` (default 'zeros').
        conv_layout: {first} (default) or {last} (channels last,
            {last_note}).
        activation: 'tanh' (default), another activation name, or an `nn.LeakyReLU` block.
        prefix: the prefix of the cell's name and parameter names (default None:
            ``'{alias}N_'``).
        params: a ParameterDict whose parameters the cell shares (default None: its own).

    Inputs:
        - **inputs**: one step, ``(N, *input_shape)``.
        - **states**: {states_desc}, each ``(N, *state_shape)``.
        - **i2h_weight**, **h2h_weight**, **i2h_bias**, **h2h_bias**: the cell's
          parameters, passed in by ``forward``.

    Outputs:
        - **output**: h_t, ``(N, *state_shape)``.
        - **new_states**: the new {states_desc}.

    Parameters: ``i2h_weight`` ``({gates}H, C, *i2h_kernel)``, ``h2h_weight``
    ``({gates}H, H, *h2h_kernel)``, ``i2h_bias``, ``h2h_bias`` ``({gates}H,)``; channels last,
    the weights are ``({gates}H, *kernel, C)`` and ``({gates}H, *kernel, H)``.

    Shape: x ``(N, *input_shape)`` -> output and each state ``(N, *state_shape)`` where the
    state's spatial size is the input convolution's output size
    ``x + 2 pad - dilate (kernel - 1)`` (see `state_info`).

    Raises:
        ValueError: a setting that is not an int or {dims} ints, an even h2h_kernel, a
            layout other than {first}/{last}, an input_shape of the wrong rank, or (when
            called) an input or state whose shape disagrees with the cell's.

    Example::

        cell = gluon.contrib.rnn.{name}({example_shape}, 4, i2h_kernel=3, h2h_kernel=3)
        cell.initialize()
        outputs, states = cell.unroll(5, nd.ones((2, 5) + {example_shape}), merge_outputs=True)
"""

_EXAMPLES = {1: (8, 16), 2: (8, 16, 16), 3: (8, 4, 16, 16)}
_LAST_NOTE = {1: "a gluonlite extension: MXNet 1.9.1's Convolution rejects NWC",
              2: "which MXNet 1.9.1 runs on GPU only", 3: "which MXNet 1.9.1 runs on GPU only"}
_FAMILIES = {"RNN": (_ConvRNN, "conv_rnn", 1), "LSTM": (_ConvLSTM, "conv_lstm", 4),
             "GRU": (_ConvGRU, "conv_gru", 3)}


def _document(cls, kind, dims):
    cls.__doc__ = _DOC.format(
        dims=dims, kind=kind, name=cls.__name__, equations=_EQUATIONS[kind],
        example_shape=_EXAMPLES[dims], first=_CHANNELS_FIRST[dims], last=_CHANNELS_LAST[dims],
        zeros=(0,) * dims, ones=(1,) * dims, last_note=_LAST_NOTE[dims],
        alias=_FAMILIES[kind][1], gates=_FAMILIES[kind][2],
        states_desc="[h, c]" if kind == "LSTM" else "[h]")
    return cls


class Conv1DRNNCell(_Conv1D, _ConvRNN):
    pass


class Conv2DRNNCell(_Conv2D, _ConvRNN):
    pass


class Conv3DRNNCell(_Conv3D, _ConvRNN):
    pass


class Conv1DLSTMCell(_Conv1D, _ConvLSTM):
    pass


class Conv2DLSTMCell(_Conv2D, _ConvLSTM):
    pass


class Conv3DLSTMCell(_Conv3D, _ConvLSTM):
    pass


class Conv1DGRUCell(_Conv1D, _ConvGRU):
    pass


class Conv2DGRUCell(_Conv2D, _ConvGRU):
    pass


class Conv3DGRUCell(_Conv3D, _ConvGRU):
    pass


for _c in (Conv1DRNNCell, Conv2DRNNCell, Conv3DRNNCell, Conv1DLSTMCell, Conv2DLSTMCell,
           Conv3DLSTMCell, Conv1DGRUCell, Conv2DGRUCell, Conv3DGRUCell):
    _document(_c, _c.__name__[6:-4], int(_c.__name__[4]))
del _c
