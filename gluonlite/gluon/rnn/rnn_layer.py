"""Multi-layer (optionally bidirectional) RNN, LSTM and GRU layers.

Each layer direction runs `F.contrib.foreach` over time, so a hybridized layer holds one
loop node per layer and direction, whatever the sequence length. The input projection
(``i2h``) of a whole sequence is one matrix product before the loop; the loop body does the
recurrent part with the equations of the matching cell (`RNNCell`, `LSTMCell`, `GRUCell`).

Parameters are named as in MXNet: ``{l|r}{layer}_{i2h|h2h}_{weight|bias}``, prefixed by the
layer's prefix (``lstm0_l0_i2h_weight``).
"""
from ... import ndarray as nd_mod
from ...ndarray.ndarray import NDArray
from ..block import HybridBlock

__all__ = ["RNN", "LSTM", "GRU"]


def _reverse_time(F, x):
    return F.slice(x, begin=(None,), end=(None,), step=(-1,))


def _act(F, x, name):
    if name in ("tanh", "sigmoid", "relu", "softsign"):
        return getattr(F, name)(x)
    return F.Activation(x, act_type=name)


class _RNNLayer(HybridBlock):
    """Shared implementation of RNN, LSTM and GRU (see the module docstring)."""

    _gates = 1
    _n_states = 1

    def __init__(self, hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                 i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                 h2h_bias_initializer, mode, dtype="float32", **kwargs):
        super().__init__(**kwargs)
        if layout not in ("TNC", "NTC"):
            raise ValueError(f"{self.__class__.__name__}: layout must be 'TNC' or 'NTC', got "
                             f"{layout!r}")
        if int(num_layers) < 1:
            raise ValueError(f"{self.__class__.__name__}: num_layers must be >= 1, got "
                             f"{num_layers}")
        self._hidden_size = hidden_size
        self._num_layers = int(num_layers)
        self._layout = layout
        self._dropout = dropout
        self._dir = 2 if bidirectional else 1
        self._input_size = input_size
        self._mode = mode
        self._skip_states = False
        ng, ni, nh = self._gates, input_size, hidden_size
        for i in range(self._num_layers):
            for j in "lr"[:self._dir]:
                self._register_param(f"{j}{i}_i2h_weight", (ng * nh, ni), i2h_weight_initializer,
                                     dtype)
                self._register_param(f"{j}{i}_h2h_weight", (ng * nh, nh), h2h_weight_initializer,
                                     dtype)
                self._register_param(f"{j}{i}_i2h_bias", (ng * nh,), i2h_bias_initializer, dtype)
                self._register_param(f"{j}{i}_h2h_bias", (ng * nh,), h2h_bias_initializer, dtype)
            ni = nh * self._dir

    def _register_param(self, name, shape, init, dtype):
        p = self.params.get(name, shape=shape, init=init, allow_deferred_init=True, dtype=dtype)
        setattr(self, name, p)

    def __repr__(self):
        shape = self._reg_params["l0_i2h_weight"].shape
        s = f"{self.__class__.__name__}({shape[1] if shape[1] else None} -> " \
            f"{self._hidden_size}, {self._layout}"
        if self._num_layers != 1:
            s += f", num_layers={self._num_layers}"
        if self._dropout:
            s += f", dropout={self._dropout}"
        if self._dir == 2:
            s += ", bidirectional"
        return s + ")"

    def state_info(self, batch_size=0):
        """One dict per state: shape (num_layers * directions, batch, hidden), layout LNC."""
        return [{"shape": (self._num_layers * self._dir, batch_size, self._hidden_size),
                 "__layout__": "LNC"} for _ in range(self._n_states)]

    def begin_state(self, batch_size=0, func=nd_mod.zeros, **kwargs):
        """Initial states made by `func` (zeros by default)."""
        states = []
        for i, info in enumerate(self.state_info(batch_size)):
            info = dict(info)
            info.update(kwargs)
            shape = info.pop("shape")
            info.pop("__layout__", None)
            states.append(func(name=f"{self._prefix}h0_{i}", shape=shape, **info))
        return states

    def _trace_key(self):
        return (self._skip_states,)

    def forward(self, inputs, states=None):
        """``layer(x)`` -> output; ``layer(x, states)`` -> (output, new states).

        Raises:
            ValueError: states of the wrong number or shape.
        """
        skip = states is None
        object.__setattr__(self, "_skip_states", skip)
        if skip and isinstance(inputs, NDArray):
            batch = inputs.shape[self._layout.find("N")]
            with inputs.context:
                states = self.begin_state(batch, dtype=inputs.dtype)
        if isinstance(states, NDArray) or (states is not None and not isinstance(
                states, (list, tuple))):
            states = [states]
        if states is not None and len(states) != self._n_states:
            raise ValueError(f"{self.name}: {self.__class__.__name__} expects "
                             f"{self._n_states} state(s), got {len(states)}")
        if states is None:
            return super().forward(inputs)
        return super().forward(inputs, list(states))

    def hybrid_forward(self, F, inputs, states=None, **params):
        if self._layout == "NTC":
            inputs = F.swapaxes(inputs, dim1=0, dim2=1)
        L, D, H = self._num_layers, self._dir, self._hidden_size
        if states is None:
            first = F.squeeze(F.slice_axis(inputs, axis=0, begin=0, end=1), axis=0)
            zero = F.broadcast_to(F.zeros_like(F.sum(first, axis=1, keepdims=True)),
                                  shape=(0, H))
            per_state = [[zero] * (L * D) for _ in range(self._n_states)]
        else:
            if F is nd_mod:
                batch = inputs.shape[1]
                for s, info in zip(states, self.state_info(batch)):
                    if tuple(s.shape) != info["shape"]:
                        raise ValueError(f"{self.name}: invalid recurrent state shape; "
                                         f"expected {info['shape']}, got {tuple(s.shape)}")
            per_state = [list(F.split(s, num_outputs=L * D, axis=0, squeeze_axis=True))
                         if L * D > 1 else [F.squeeze(s, axis=0)] for s in states]
        x = inputs
        finals = [[] for _ in range(self._n_states)]
        for layer in range(L):
            outs = []
            for d in range(D):
                k = layer * D + d
                pre = f"{'lr'[d]}{layer}_"
                seq = x if d == 0 else _reverse_time(F, x)
                out, fin = self._one_direction(
                    F, seq, [st[k] for st in per_state],
                    params[pre + "i2h_weight"], params[pre + "i2h_bias"],
                    params[pre + "h2h_weight"], params[pre + "h2h_bias"])
                outs.append(out if d == 0 else _reverse_time(F, out))
                for i, f in enumerate(fin):
                    finals[i].append(f)
            x = outs[0] if D == 1 else F.concat(*outs, dim=2)
            if self._dropout and layer < L - 1:
                x = F.Dropout(x, p=self._dropout)
        if self._layout == "NTC":
            x = F.swapaxes(x, dim1=0, dim2=1)
        if self._skip_states:
            return x
        return x, [F.stack(*f, axis=0) for f in finals]

    def _one_direction(self, F, seq, init_states, i2h_w, i2h_b, h2h_w, h2h_b):
        """foreach over time: returns (outputs (T, N, H), final states)."""
        G = self._gates * self._hidden_size
        i2h = F.FullyConnected(seq, i2h_w, i2h_b, num_hidden=G, flatten=False)
        step = self._step

        def body(x_t, states):
            h2h = F.FullyConnected(states[0], h2h_w, h2h_b, num_hidden=G)
            out, new_states = step(F, x_t, h2h, states)
            return out, new_states

        out, fin = F.contrib.foreach(body, i2h, list(init_states))
        return out, list(fin) if isinstance(fin, (list, tuple)) else [fin]


class RNN(_RNNLayer):
    """Multi-layer Elman RNN: ``h_t = activation(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh)``.

    Args:
        hidden_size: H.
        num_layers: stacked layers (default 1).
        activation: 'relu' (default, as MXNet) or 'tanh'.
        layout: 'TNC' (default) or 'NTC'.
        dropout: dropout between layers.
        bidirectional: add a reverse direction (outputs concatenated: 2H features).
        input_size: input features (0: inferred).

    Shape: x (T, N, C) -> (T, N, D*H); states [h (L*D, N, H)].
    Example: ``out = gluon.rnn.RNN(8, num_layers=2)(nd.ones((5, 3, 4)))``.
    """

    def __init__(self, hidden_size, num_layers=1, activation="relu", layout="TNC",
                 dropout=0, bidirectional=False, i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", input_size=0, **kwargs):
        if activation not in ("relu", "tanh"):
            raise ValueError(f"RNN: activation must be 'relu' or 'tanh', got {activation!r}")
        self._activation = activation
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer,
                         i2h_bias_initializer, h2h_bias_initializer, "rnn_" + activation,
                         **kwargs)

    def _step(self, F, i2h, h2h, states):
        h = _act(F, i2h + h2h, self._activation)
        return h, [h]


class _GatedLayer(_RNNLayer):
    """The public constructor of LSTM and GRU (their mode is the class's `_mode_name`)."""

    _mode_name = None

    def __init__(self, hidden_size, num_layers=1, layout="TNC", dropout=0,
                 bidirectional=False, input_size=0, i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer,
                         i2h_bias_initializer, h2h_bias_initializer, self._mode_name, **kwargs)


class LSTM(_GatedLayer):
    """Multi-layer LSTM (LSTMCell equations; gates input, forget, candidate, output).

    Shape: x (T, N, C) -> (T, N, D*H); states [h, c], each (L*D, N, H).
    """

    _gates = 4
    _n_states = 2
    _mode_name = "lstm"

    def _step(self, F, i2h, h2h, states):
        g = F.SliceChannel(i2h + h2h, num_outputs=4)
        c = F.sigmoid(g[1]) * states[1] + F.sigmoid(g[0]) * F.tanh(g[2])
        h = F.sigmoid(g[3]) * F.tanh(c)
        return h, [h, c]


class GRU(_GatedLayer):
    """Multi-layer GRU (GRUCell equations; gates reset, update, new).

    Shape: x (T, N, C) -> (T, N, D*H); states [h (L*D, N, H)].
    """

    _gates = 3
    _mode_name = "gru"

    def _step(self, F, i2h, h2h, states):
        i_r, i_z, i_n = F.SliceChannel(i2h, num_outputs=3)
        h_r, h_z, h_n = F.SliceChannel(h2h, num_outputs=3)
        r = F.sigmoid(i_r + h_r)
        z = F.sigmoid(i_z + h_z)
        n = F.tanh(i_n + r * h_n)
        h = (1 - z) * n + z * states[0]
        return h, [h]
