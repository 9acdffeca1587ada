"""`mx.rnn.FusedRNNCell`: a whole multi-layer (bidirectional) RNN as one `RNN` operator node
with one packed ``parameters`` variable; `unfuse` gives the same network as a stack of step
cells, and `unpack_weights` / `pack_weights` convert between the two weight forms.
"""
import numbers

from .. import initializer, symbol as sym, ndarray as nd
from .modifier_cell import BidirectionalCell
from .rnn_cell import (BaseRNNCell, DropoutCell, GRUCell, LSTMCell, RNNCell,
                       SequentialRNNCell, _as_steps, _merged, _time_axis)

__all__ = ["FusedRNNCell"]

_GATES = {"rnn_relu": ("",), "rnn_tanh": ("",), "lstm": ("_i", "_f", "_c", "_o"),
          "gru": ("_r", "_z", "_o")}


class FusedRNNCell(BaseRNNCell):
    """A stack of `num_layers` recurrent layers computed by the `RNN` operator.

    Args:
        num_hidden: the state size.
        num_layers: the number of layers.
        mode: 'rnn_relu', 'rnn_tanh', 'lstm' or 'gru'.
        bidirectional: each layer runs both ways (outputs 2 * num_hidden wide).
        dropout: dropout between layers, in [0, 1).
        get_next_state: `unroll` returns the final states (else an empty list).
        forget_bias: an LSTM's forget-gate bias at initialization.
        prefix: names ``prefix + 'parameters'`` and the node (default ``mode + '_'``).
        params: an `RNNParams` to take the parameter variable from.

    Raises:
        ValueError: an unknown mode, num_hidden or num_layers below 1, dropout outside [0, 1).

    Example::

        cell = mx.rnn.FusedRNNCell(16, num_layers=2, mode="lstm", prefix="lstm_")
        outs, _ = cell.unroll(10, mx.sym.var("data"), layout="NTC", merge_outputs=True)
        outs.infer_shape(data=(2, 10, 3))[1]   # [(2, 10, 16)]
    """

    def __init__(self, num_hidden, num_layers=1, mode="lstm", bidirectional=False,
                 dropout=0., get_next_state=False, forget_bias=1.0, prefix=None,
                 params=None):
        if mode not in _GATES:
            raise ValueError(f"FusedRNNCell: mode must be one of {sorted(_GATES)}, got "
                             f"{mode!r}")
        for what, v in (("num_hidden", num_hidden), ("num_layers", num_layers)):
            if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 1:
                raise ValueError(f"FusedRNNCell: {what} must be an int >= 1, got {v!r}")
        if not isinstance(dropout, numbers.Real) or not 0 <= dropout < 1:
            raise ValueError(f"FusedRNNCell: dropout must be a number in [0, 1), got "
                             f"{dropout!r}")
        prefix = f"{mode}_" if prefix is None else prefix
        super().__init__(prefix=prefix, params=params)
        self._num_hidden, self._num_layers = int(num_hidden), int(num_layers)
        self._mode, self._bidirectional = mode, bool(bidirectional)
        self._dropout, self._get_next_state = float(dropout), bool(get_next_state)
        self._directions = ["l", "r"] if self._bidirectional else ["l"]
        init = initializer.FusedRNN(None, self._num_hidden, self._num_layers, mode,
                                    self._bidirectional, forget_bias)
        self._parameter = self._params.get("parameters", init=init)

    @property
    def state_info(self):
        """h (and, for an LSTM, c), each (layers * directions, N, num_hidden).

        Example::

            mx.rnn.FusedRNNCell(4, num_layers=2, mode="gru").state_info
            # [{'shape': (2, 0, 4), '__layout__': 'LNC'}]
        """
        n = 2 if self._mode == "lstm" else 1
        shape = (len(self._directions) * self._num_layers, 0, self._num_hidden)
        return [{"shape": shape, "__layout__": "LNC"} for _ in range(n)]

    @property
    def _gate_names(self):
        return _GATES[self._mode]

    def __call__(self, inputs, states):
        raise NotImplementedError("FusedRNNCell cannot be stepped; use unroll, or unfuse() "
                                  "for a cell that can")

    # ---- the packed parameter vector --------------------------------------------------------
    def _pieces(self, num_input):
        """[(name, shape)] of the packed vector's pieces, in order: per layer and direction
        the i2h then h2h weights, gate by gate; then the biases in the same order."""
        h, d = self._num_hidden, len(self._directions)
        weights, biases = [], []
        for layer in range(self._num_layers):
            ni = num_input if layer == 0 else d * h
            for direction in self._directions:
                for group, width in (("i2h", ni), ("h2h", h)):
                    for gate in self._gate_names:
                        stem = f"{self._prefix}{direction}{layer}_{group}{gate}"
                        weights.append((f"{stem}_weight", (h, width)))
                        biases.append((f"{stem}_bias", (h,)))
        return weights + biases

    def _num_input(self, size):
        h, d, g, n = self._num_hidden, len(self._directions), len(self._gate_names), \
            self._num_layers
        rest = (n - 1) * d * g * h * (d * h + h) + n * d * 2 * g * h + d * g * h * h
        first = size - rest
        if first <= 0 or first % (d * g * h):
            raise ValueError(f"FusedRNNCell: a parameter vector of {size} values does not fit "
                             f"{n} {self._mode} layer(s) of {h} units")
        return first // (d * g * h)

    def unpack_weights(self, args):
        """`args` with ``prefix + 'parameters'`` replaced by one array per layer, direction,
        group and gate, named ``prefix + 'l0_i2h_i_weight'`` ... (as the unfused cells'
        per-gate names).

        Raises:
            KeyError: the parameter vector is missing from `args`.
            ValueError: its size fits no input size.

        Example::

            cell = mx.rnn.FusedRNNCell(4, mode="lstm", prefix="l_")   # 176 values for 5 inputs
            per_gate = cell.unpack_weights({"l_parameters": nd.zeros(176)})
            per_gate["l_l0_i2h_i_weight"].shape   # (4, 5)
        """
        args = dict(args)
        flat = args.pop(self._parameter.name).reshape((-1,))
        at = 0
        for name, shape in self._pieces(self._num_input(flat.size)):
            n = shape[0] * (shape[1] if len(shape) > 1 else 1)
            args[name] = flat[at:at + n].reshape(shape).copy()
            at += n
        return args

    def pack_weights(self, args):
        """The inverse of `unpack_weights`: the per-gate arrays packed into
        ``prefix + 'parameters'``.

        Raises:
            KeyError: a piece missing from `args`.

        Example::

            cell = mx.rnn.FusedRNNCell(4, mode="lstm", prefix="l_")
            per_gate = cell.unpack_weights({"l_parameters": nd.zeros(176)})
            cell.pack_weights(per_gate)["l_parameters"].shape   # (176,)
        """
        args = dict(args)
        num_input = args[f"{self._prefix}l0_i2h{self._gate_names[0]}_weight"].shape[1]
        parts = [args.pop(name).reshape((-1,)) for name, _ in self._pieces(num_input)]
        args[self._parameter.name] = nd.concat(*parts, dim=0)
        return args

    # ---- graphs -------------------------------------------------------------------------------
    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        """One `RNN` node over the sequence (see `BaseRNNCell.unroll`); the states returned
        are the final ones only with get_next_state=True.

        Args:
            length (int): the number of time steps.
            inputs (Symbol or list of Symbol): the whole sequence (split along the 'T' of
                `layout`) or a list of `length` step Symbols.
            begin_state (list of Symbol): the first states (default None: `begin_state()`).
            layout (str): 'NTC' (default) or 'TNC': where the time axis is.
            merge_outputs (bool): True: one Symbol stacked along the time axis; False or None
                (default): a list of step outputs.

        Example::

            cell = mx.rnn.FusedRNNCell(4, mode="lstm", get_next_state=True)
            outs, (h, c) = cell.unroll(3, sym.var("x"), merge_outputs=True)
            outs.infer_shape(x=(2, 3, 5))[1]   # [(2, 3, 4)]
        """
        self.reset()
        axis = _time_axis(layout)
        if not isinstance(inputs, sym.Symbol):
            inputs = _merged(_as_steps(length, inputs, axis), axis, True)
        if axis == 1:
            inputs = sym.swapaxes(inputs, dim1=0, dim2=1)
        states = self.begin_state() if begin_state is None else list(begin_state)
        kw = {"state": states[0]}
        if self._mode == "lstm":
            kw["state_cell"] = states[1]
        rnn = sym.RNN(data=inputs, parameters=self._parameter, state_size=self._num_hidden,
                      num_layers=self._num_layers, bidirectional=self._bidirectional,
                      p=self._dropout, state_outputs=self._get_next_state, mode=self._mode,
                      name=f"{self._prefix}rnn", **kw)
        if not self._get_next_state:
            outputs, states = rnn, []
        elif self._mode == "lstm":
            outputs, states = rnn[0], [rnn[1], rnn[2]]
        else:
            outputs, states = rnn[0], [rnn[1]]
        if axis == 1:
            outputs = sym.swapaxes(outputs, dim1=0, dim2=1)
        if not merge_outputs:
            outputs = _as_steps(length, outputs, axis)
        return outputs, states

    def unfuse(self):
        """The same network as a `SequentialRNNCell` of step cells (`BidirectionalCell`s when
        bidirectional, `DropoutCell`s between layers), named ``prefix + 'l0_'`` ... so that
        `unpack_weights`' arrays (after the cells' `pack_weights`) fit it.

        Example::

            stack = mx.rnn.FusedRNNCell(8, num_layers=2).unfuse()   # two LSTMCells
            outs, states = stack.unroll(3, sym.var("x"), merge_outputs=True)

        """
        make = {"rnn_relu": lambda p: RNNCell(self._num_hidden, activation="relu", prefix=p),
                "rnn_tanh": lambda p: RNNCell(self._num_hidden, activation="tanh", prefix=p),
                "lstm": lambda p: LSTMCell(self._num_hidden, prefix=p),
                "gru": lambda p: GRUCell(self._num_hidden, prefix=p)}[self._mode]
        stack = SequentialRNNCell()
        for i in range(self._num_layers):
            if self._bidirectional:
                stack.add(BidirectionalCell(make(f"{self._prefix}l{i}_"),
                                            make(f"{self._prefix}r{i}_"),
                                            output_prefix=f"{self._prefix}bi_l{i}_"))
            else:
                stack.add(make(f"{self._prefix}l{i}_"))
            if self._dropout > 0 and i != self._num_layers - 1:
                stack.add(DropoutCell(self._dropout, prefix=f"{self._prefix}_dropout{i}_"))
        return stack
