"""Multi-layer (optionally bidirectional) RNN, LSTM and GRU layers on the fused `RNN` operator.

Imperative or hybridized, a layer's computation is MXNet 1.9.1's graph: its parameters
packed into one vector (``_rnn_param_concat`` of every parameter flattened: all weights,
then all biases, see `gluonlite.ops.rnn`) and the `RNN` operator on it, so exports load in
either library. A compiled plan runs that ``RNN`` on the parameters themselves
(`_rnn_unpacked`, the same kernel; the graph pass `gluonlite.executor.rnn_params`), and so
does an imperative call, recorded or not (the pass's twin in the invoke path, given a vector
packed only if read, `pack_rnn_params`): no weight is copied into a vector and no gradient
is packed and copied back out. ``layer._unfuse()`` gives the same computation as a stack of
cells (the form that runs under ``foreach``).

Parameters are named as in MXNet: ``{l|r}{layer}_{i2h|h2h|h2r}_{weight|bias}``, prefixed by
the layer's prefix (``lstm0_l0_i2h_weight``).
"""
import re

from ... import ndarray as nd_mod
from ...util import is_np_array
from ...executor.rnn_params import pack_rnn_params
from ...ndarray.ndarray import NDArray
from ...ops.rnn import num_gates
from ..block import HybridBlock
from .bidirectional_cell import BidirectionalCell
from .modifier_cells import DropoutCell
from .rnn_cell import GRUCell, HybridSequentialRNNCell, LSTMCell, RNNCell

__all__ = ["RNN", "LSTM", "GRU"]

_PARAM_KEY = re.compile(r"(l|r)(\d+)_(i2h|h2h|h2r)_(weight|bias)\Z")


class _RNNLayer(HybridBlock):
    """Shared implementation of RNN, LSTM and GRU (see the module docstring)."""

    def __init__(self, hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                 i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                 h2h_bias_initializer, mode, projection_size=None, h2r_weight_initializer=None,
                 lstm_state_clip_min=None, lstm_state_clip_max=None, lstm_state_clip_nan=False,
                 dtype="float32", use_sequence_length=False, **kwargs):
        super().__init__(**kwargs)
        name = self.__class__.__name__
        if layout not in ("TNC", "NTC"):
            raise ValueError(f"{name}: layout must be 'TNC' or 'NTC', got {layout!r}")
        if int(num_layers) < 1:
            raise ValueError(f"{name}: num_layers must be >= 1, got {num_layers}")
        if projection_size and mode != "lstm":
            raise ValueError(f"{name}: projection_size needs an LSTM, got mode {mode!r}")
        self._hidden_size = hidden_size
        self._projection_size = projection_size or None
        self._num_layers = int(num_layers)
        self._layout = layout
        self._dropout = dropout
        self._dir = 2 if bidirectional else 1
        self._input_size = input_size
        self._mode = mode
        self._inits = {"i2h_weight_initializer": i2h_weight_initializer,
                       "h2h_weight_initializer": h2h_weight_initializer,
                       "i2h_bias_initializer": i2h_bias_initializer,
                       "h2h_bias_initializer": h2h_bias_initializer}
        self._clip = (lstm_state_clip_min, lstm_state_clip_max, bool(lstm_state_clip_nan))
        self._dtype = dtype
        self._use_sequence_length = bool(use_sequence_length)
        ng, ni, nh = num_gates(mode), input_size, hidden_size
        nr = self._projection_size or nh
        for i in range(self._num_layers):
            for j in "lr"[:self._dir]:
                self._register_param(f"{j}{i}_i2h_weight", (ng * nh, ni), i2h_weight_initializer,
                                     dtype)
                self._register_param(f"{j}{i}_h2h_weight", (ng * nh, nr), h2h_weight_initializer,
                                     dtype)
                self._register_param(f"{j}{i}_i2h_bias", (ng * nh,), i2h_bias_initializer, dtype)
                self._register_param(f"{j}{i}_h2h_bias", (ng * nh,), h2h_bias_initializer, dtype)
                if self._projection_size:
                    self._register_param(f"{j}{i}_h2r_weight", (nr, nh), h2r_weight_initializer,
                                         dtype)
            ni = nr * self._dir
        # the packed vector's order (MXNet's): every weight, then every bias
        gates = ("i2h", "h2h", "h2r") if self._projection_size else ("i2h", "h2h")
        self._packed_names = [
            f"{d}{i}_{g}_{t}" for t in ("weight", "bias") for i in range(self._num_layers)
            for d in "lr"[:self._dir] for g in gates if not (g == "h2r" and t == "bias")]

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

    def _collect_params_with_prefix(self, prefix=""):
        # MXNet 1.x saves a fused layer's parameters under the names of its unfused cell
        # stack ('_unfused.0.l_cell.i2h_weight'); files are interchangeable only so.
        if prefix:
            prefix += "."
        bidirectional = self._dir == 2
        ret = {}
        for key, val in self._reg_params.items():
            d, layer, g, t = _PARAM_KEY.match(key).groups()
            cell = f"{layer}.{d}_cell." if bidirectional else f"{layer}."
            ret[f"{prefix}_unfused.{cell}{g}_{t}"] = val
        for name, child in self._children.items():
            ret.update(child._collect_params_with_prefix(prefix + name))
        return ret

    def state_info(self, batch_size=0):
        """One dict per state: shape (num_layers * directions, batch, size), layout LNC.

        Example::

            layer = gluon.rnn.LSTM(8, num_layers=2, bidirectional=True)
            [s['shape'] for s in layer.state_info(batch_size=3)]   # [(4, 3, 8), (4, 3, 8)]
        """
        n = self._num_layers * self._dir
        h = self._projection_size or self._hidden_size
        info = [{"shape": (n, batch_size, h), "__layout__": "LNC", "dtype": self._dtype}]
        if self._mode == "lstm":
            info.append({"shape": (n, batch_size, self._hidden_size), "__layout__": "LNC",
                         "dtype": self._dtype})
        return info

    def begin_state(self, batch_size=0, func=nd_mod.zeros, **kwargs):
        """Initial states made by `func` (zeros by default), named ``{prefix}h0_{i}``.

        Example::

            h, c = gluon.rnn.LSTM(8).begin_state(batch_size=3)
            h.shape   # (1, 3, 8)
        """
        states = []
        for i, info in enumerate(self.state_info(batch_size)):
            info = dict(info)
            info.update(kwargs)
            info.pop("__layout__", None)
            state = func(name=f"{self._prefix}h0_{i}", **info)
            if is_np_array() and hasattr(state, "as_np_ndarray"):
                state = state.as_np_ndarray()  # as MXNet's under NumPy array semantics
            states.append(state)
        return states

    def cast(self, dtype):
        """Cast the parameters (and the default states) to `dtype`.

        Example::

            layer = gluon.rnn.GRU(4); layer.initialize()
            layer.cast('float64')
            layer(nd.ones((5, 2, 3), dtype='float64')).dtype   # <class 'numpy.float64'>
        """
        super().cast(dtype)
        self._dtype = dtype

    def _unfuse(self):
        """The same computation as a stack of cells sharing this layer's parameters: per
        layer a cell (a `BidirectionalCell` of two when bidirectional), a `DropoutCell`
        between layers when dropout is set; what runs under ``foreach``.

        Returns:
            a `HybridSequentialRNNCell`.

        Raises:
            ValueError: the layer has a projection or clips its states (no cell does).

        Example::

            layer = gluon.rnn.LSTM(8, input_size=4); layer.initialize()
            x = nd.ones((5, 2, 4))   # TNC
            outs, states = layer._unfuse().unroll(5, x, layout='TNC', merge_outputs=True)
            (outs - layer(x)).abs().max().asscalar() < 1e-5   # True
        """
        if self._projection_size:
            raise ValueError(f"{self.name}: _unfuse does not support a projection layer "
                             f"(projection_size={self._projection_size})")
        if self._clip[0] is not None or self._clip[1] is not None:
            raise ValueError(f"{self.name}: _unfuse does not support state clipping")
        kind, act = {"rnn_relu": (RNNCell, "relu"), "rnn_tanh": (RNNCell, "tanh"),
                     "lstm": (LSTMCell, None), "gru": (GRUCell, None)}[self._mode]

        def cell(prefix, input_size):
            extra = {"activation": act} if act else {}
            return kind(self._hidden_size, prefix=prefix, input_size=input_size, **extra,
                        **self._inits)

        stack = HybridSequentialRNNCell(prefix=self.prefix, params=self.params)
        with stack.name_scope():
            ni = self._input_size
            for i in range(self._num_layers):
                if self._dir == 2:
                    stack.add(BidirectionalCell(cell(f"l{i}_", ni), cell(f"r{i}_", ni)))
                else:
                    stack.add(cell(f"l{i}_", ni))
                if self._dropout > 0 and i != self._num_layers - 1:
                    stack.add(DropoutCell(self._dropout))
                ni = self._hidden_size * self._dir
        return stack

    def forward(self, inputs, states=None, sequence_length=None):
        """``layer(x)`` -> output; ``layer(x, states)`` -> (output, new states); with
        ``use_sequence_length`` also ``layer(x, states, sequence_length)``.

        Raises:
            ValueError: states of the wrong number or shape; a missing sequence_length.

        Example::

            layer = gluon.rnn.GRU(8); layer.initialize()
            x = nd.ones((5, 3, 4))   # (T, N, C)
            out, states = layer(x, layer.begin_state(batch_size=3))
            out.shape, states[0].shape   # ((5, 3, 8), (1, 3, 8))
        """
        imperative = isinstance(inputs, NDArray) and not self._active
        # Without states the layer returns the output alone: hybridized or symbolic, the
        # graph starts from zeros whose batch size the RNN's shape rule fills (and returns
        # no states); imperatively the zeros are made here and the states dropped after.
        skip = states is None
        if isinstance(inputs, NDArray):
            self._check_input(inputs)
        if skip and imperative:
            batch = inputs.shape[self._layout.find("N")]
            with inputs.context:
                states = self.begin_state(batch, dtype=inputs.dtype)
        if isinstance(states, NDArray) or (states is not None and not isinstance(
                states, (list, tuple))):
            states = [states]
        n_states = 2 if self._mode == "lstm" else 1
        if states is not None and len(states) != n_states:
            raise ValueError(f"{self.name}: {self.__class__.__name__} expects {n_states} "
                             f"state(s), got {len(states)}")
        if imperative:
            self._check_states(inputs, states)
        if self._use_sequence_length:
            if sequence_length is None:
                raise ValueError(f"{self.name}: use_sequence_length=True needs the "
                                 "sequence_length argument")
            args = [states if states is not None else [], sequence_length]
        else:
            args = [] if states is None else [list(states)]
        out = super().forward(inputs, *args)
        return out[0] if skip and imperative else out

    def _check_input(self, inputs):
        """ValueError naming the input when it is not 3-D or its feature size is not the
        layer's input size (the fused kernel would report the packed parameters instead)."""
        name = f"{self.name}: {self.__class__.__name__}"
        if inputs.ndim != 3:
            raise ValueError(f"{name} input 'inputs' must be 3-D in layout {self._layout}, got "
                             f"shape {inputs.shape}")
        known = self._input_size or self._reg_params["l0_i2h_weight"]._shape[1]
        if known and inputs.shape[2] != known:
            raise ValueError(f"{name} input 'inputs' must have {known} features (axis 2 of "
                             f"layout {self._layout}, the layer's input_size), got shape "
                             f"{inputs.shape}")

    def _check_states(self, inputs, states):
        """ValueError naming the state whose shape is not the layer's for this batch."""
        batch = inputs.shape[self._layout.find("N")]
        for s, info in zip(states, self.state_info(batch)):
            if tuple(s.shape) != info["shape"]:
                raise ValueError(f"{self.name}: invalid recurrent state shape; expected "
                                 f"{info['shape']}, got {tuple(s.shape)}")

    def hybrid_forward(self, F, inputs, states=None, sequence_length=None, **params):
        """The `RNN` operator on the packed parameters; ``(output, new states)``, or the
        output alone when called without states (`states` None or empty: zeros)."""
        if self._layout == "NTC":
            inputs = F.swapaxes(inputs, dim1=0, dim2=1)
        skip = not states
        if skip:  # zeros whose batch size the RNN's shape rule fills
            states = [F.zeros(shape=info["shape"], dtype=info["dtype"])
                      for info in self.state_info(0)]
        lo, hi, nan = self._clip
        attrs = dict(use_sequence_length=self._use_sequence_length,
                     state_size=self._hidden_size, projection_size=self._projection_size,
                     num_layers=self._num_layers, bidirectional=self._dir == 2,
                     p=self._dropout, state_outputs=True, mode=self._mode,
                     lstm_state_clip_min=lo, lstm_state_clip_max=hi, lstm_state_clip_nan=nan)
        packed = pack_rnn_params(F, [params[n] for n in self._packed_names])
        args = list(states) + ([sequence_length] if self._use_sequence_length else [])
        rnn = F.RNN(inputs, packed, *args, **attrs)
        outputs = rnn[0]
        new_states = [rnn[1], rnn[2]] if self._mode == "lstm" else [rnn[1]]
        if self._layout == "NTC":
            outputs = F.swapaxes(outputs, dim1=0, dim2=1)
        return outputs if skip else (outputs, new_states)


class RNN(_RNNLayer):
    """Multi-layer Elman RNN: ``h_t = activation(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh)``.

    Args:
        hidden_size: H.
        num_layers: stacked layers (default 1).
        activation: 'relu' (default, as MXNet) or 'tanh'.
        layout: 'TNC' (default) or 'NTC'.
        dropout: dropout on every layer's output but the last one's, in training.
        bidirectional: add a reverse direction (outputs concatenated: 2H features).
        input_size: input features (0: inferred on first use).
        i2h_weight_initializer: the initializer of the input-to-hidden weights (default
            None: the global initializer).
        h2h_weight_initializer: the initializer of the hidden-to-hidden weights (default
            None: the global initializer).
        i2h_bias_initializer: the initializer of the input-to-hidden biases (default
            'zeros').
        h2h_bias_initializer: the initializer of the hidden-to-hidden biases (default
            'zeros').
        dtype: of the parameters and the default states.

    Shape: x (T, N, C) -> (T, N, D*H); states [h (L*D, N, H)].

    Inputs:
        - **inputs**: the sequence, (T, N, C) with layout 'TNC' or (N, T, C) with 'NTC'.
        - **states**: optional initial states (a list, see `begin_state`); without them
          zeros are used and only the output is returned.
        - **sequence_length**: optional (N,) valid lengths, for a layer made with
          ``use_sequence_length=True``.

    Outputs:
        - **out**: (T, N, D*H) (or (N, T, D*H)), D = 2 when bidirectional.
        - **out_states**: the final states, shaped as `states`; returned only when states
          were given.

    Raises:
        ValueError: an unknown activation or layout, or num_layers below 1.

    Example::

        layer = gluon.rnn.RNN(8, num_layers=2); layer.initialize()
        out = layer(nd.ones((5, 3, 4)))   # (T, N, C): without states, only the output
        out.shape   # (5, 3, 8)
    """

    def __init__(self, hidden_size, num_layers=1, activation="relu", layout="TNC",
                 dropout=0, bidirectional=False, i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", input_size=0, dtype="float32", **kwargs):
        if activation not in ("relu", "tanh"):
            raise ValueError(f"RNN: activation must be 'relu' or 'tanh', got {activation!r}")
        self._activation = activation
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer,
                         i2h_bias_initializer, h2h_bias_initializer, "rnn_" + activation,
                         dtype=dtype, **kwargs)


class LSTM(_RNNLayer):
    """Multi-layer LSTM (LSTMCell equations; gates input, forget, candidate, output).

    Args:
        hidden_size: H, the number of hidden units per layer and direction.
        num_layers: stacked layers (default 1).
        layout: 'TNC' (default) or 'NTC'.
        dropout: dropout on every layer's output but the last one's, in training
            (default 0).
        bidirectional: add a reverse direction (outputs concatenated: 2H features;
            default False).
        input_size: input features (0: inferred on first use).
        i2h_weight_initializer: the initializer of the input-to-hidden weights (default
            None: the global initializer).
        h2h_weight_initializer: the initializer of the hidden-to-hidden weights (default
            None: the global initializer).
        i2h_bias_initializer: the initializer of the input-to-hidden biases (default
            'zeros').
        h2h_bias_initializer: the initializer of the hidden-to-hidden biases (default
            'zeros').
        projection_size: P, an LSTM with a projection (h2r weights (P, H)); the states and
            outputs are then P wide (default None: no projection).
        h2r_weight_initializer: for the projection weights (default None: the global
            initializer).
        state_clip_min: the lower bound the cell states are clipped to (default None: no
            clipping; give both bounds together).
        state_clip_max: the upper bound the cell states are clipped to (default None).
        state_clip_nan: a NaN cell state becomes the bound.
        dtype: of the parameters and the default states (default 'float32').

    Inputs:
        - **inputs**: the sequence, (T, N, C) with layout 'TNC' or (N, T, C) with 'NTC'.
        - **states**: optional initial states (a list, see `begin_state`); without them
          zeros are used and only the output is returned.
        - **sequence_length**: optional (N,) valid lengths, for a layer made with
          ``use_sequence_length=True``.

    Outputs:
        - **out**: (T, N, D*H) (or (N, T, D*H)), D = 2 when bidirectional.
        - **out_states**: the final states, shaped as `states`; returned only when states
          were given.

    Raises:
        ValueError: an unknown layout, or num_layers below 1.

    Shape: x (T, N, C) -> (T, N, D*H); states [h (L*D, N, H or P), c (L*D, N, H)].

    Example::

        layer = gluon.rnn.LSTM(8); layer.initialize()
        x = nd.ones((5, 3, 4))
        out, (h, c) = layer(x, layer.begin_state(batch_size=3))
        out.shape, h.shape   # ((5, 3, 8), (1, 3, 8))
    """

    def __init__(self, hidden_size, num_layers=1, layout="TNC", dropout=0,
                 bidirectional=False, input_size=0, i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", projection_size=None, h2r_weight_initializer=None,
                 state_clip_min=None, state_clip_max=None, state_clip_nan=False,
                 dtype="float32", **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer,
                         i2h_bias_initializer, h2h_bias_initializer, "lstm",
                         projection_size, h2r_weight_initializer, state_clip_min,
                         state_clip_max, state_clip_nan, dtype, **kwargs)


class GRU(_RNNLayer):
    """Multi-layer GRU (GRUCell equations; gates reset, update, new).

    Args:
        hidden_size: H, the number of hidden units per layer and direction.
        num_layers: stacked layers (default 1).
        layout: 'TNC' (default) or 'NTC'.
        dropout: dropout on every layer's output but the last one's, in training
            (default 0).
        bidirectional: add a reverse direction (outputs concatenated: 2H features;
            default False).
        input_size: input features (0: inferred on first use).
        i2h_weight_initializer: the initializer of the input-to-hidden weights (default
            None: the global initializer).
        h2h_weight_initializer: the initializer of the hidden-to-hidden weights (default
            None: the global initializer).
        i2h_bias_initializer: the initializer of the input-to-hidden biases (default
            'zeros').
        h2h_bias_initializer: the initializer of the hidden-to-hidden biases (default
            'zeros').
        dtype: of the parameters and the default states (default 'float32').

    Shape: x (T, N, C) -> (T, N, D*H); states [h (L*D, N, H)].

    Inputs:
        - **inputs**: the sequence, (T, N, C) with layout 'TNC' or (N, T, C) with 'NTC'.
        - **states**: optional initial states (a list, see `begin_state`); without them
          zeros are used and only the output is returned.
        - **sequence_length**: optional (N,) valid lengths, for a layer made with
          ``use_sequence_length=True``.

    Outputs:
        - **out**: (T, N, D*H) (or (N, T, D*H)), D = 2 when bidirectional.
        - **out_states**: the final states, shaped as `states`; returned only when states
          were given.

    Raises:
        ValueError: an unknown layout, or num_layers below 1.

    Example::

        layer = gluon.rnn.GRU(8, layout='NTC'); layer.initialize()
        layer(nd.ones((3, 5, 4))).shape   # (3, 5, 8)
    """

    def __init__(self, hidden_size, num_layers=1, layout="TNC", dropout=0,
                 bidirectional=False, input_size=0, i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", dtype="float32", **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer,
                         i2h_bias_initializer, h2h_bias_initializer, "gru", dtype=dtype,
                         **kwargs)
