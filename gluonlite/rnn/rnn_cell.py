"""MXNet 1.x's symbolic RNN cells (`mx.rnn.RNNCell` ...): one step of a recurrent network as
`sym` nodes, with weights held in an `RNNParams` so that cells can share them.

A cell made with ``prefix='lstm_'`` reads the variables ``lstm_i2h_weight``,
``lstm_i2h_bias``, ``lstm_h2h_weight``, ``lstm_h2h_bias`` and names the nodes of step t
``lstm_t{t}_...``; states start as ``lstm_begin_state_{k}``. Gates are stacked as in
`gluon.rnn`: LSTM (input, forget, candidate, output), GRU (reset, update, new).
"""
import json
import numbers

from .. import symbol as sym, ndarray as nd

__all__ = ["RNNParams", "BaseRNNCell", "RNNCell", "LSTMCell", "GRUCell", "SequentialRNNCell",
           "DropoutCell"]


class RNNParams:
    """The weight variables of one or more cells, made on first use and shared after.

    Args:
        prefix: put before every name asked for.

    Example::

        params = mx.rnn.RNNParams("enc_")
        a = mx.rnn.GRUCell(4, params=params)
        b = mx.rnn.GRUCell(4, params=params)     # a and b read the same enc_i2h_weight ...
    """

    def __init__(self, prefix=""):
        self._prefix = prefix
        self._params = {}

    def get(self, name, **kwargs):
        """The variable ``prefix + name``, made with `sym.var(**kwargs)` the first time.

        Args:
            name (str): the variable's name without the prefix.
            **kwargs: `sym.var`'s arguments (shape, init, ...), used only the first time.

        Returns:
            Symbol: the shared variable.

        Example::

            params = mx.rnn.RNNParams("enc_")
            w = params.get("i2h_weight"); w.name   # 'enc_i2h_weight'
            params.get("i2h_weight") is w          # True: made once, shared after
        """
        full = self._prefix + name
        v = self._params.get(full)
        if v is None:
            v = self._params[full] = sym.var(full, **kwargs)
        return v


def _check_hidden(cls, num_hidden):
    if isinstance(num_hidden, bool) or not isinstance(num_hidden, numbers.Integral) or \
            num_hidden < 1:
        raise ValueError(f"{cls}: num_hidden must be an int >= 1, got {num_hidden!r}")
    return int(num_hidden)


def _time_axis(layout, argname="layout"):
    if not isinstance(layout, str) or layout.count("T") != 1:
        raise ValueError(f"unroll: {argname} must name one time axis 'T' (e.g. 'NTC' or "
                         f"'TNC'), got {layout!r}")
    return layout.find("T")


def _as_steps(length, inputs, axis):
    """`inputs` as a list of `length` step Symbols (split along `axis` when one Symbol)."""
    if inputs is None:
        raise ValueError("unroll: inputs is None; pass a Symbol of the whole sequence or a "
                         "list of step Symbols")
    if isinstance(inputs, sym.Symbol):
        if len(inputs.list_outputs()) != 1:
            raise TypeError(f"unroll: inputs is a group of {len(inputs.list_outputs())} "
                            "outputs; pass one Symbol or a list of step Symbols")
        if length == 1:
            return [sym.squeeze(inputs, axis=axis)]
        return list(sym.split(inputs, axis=axis, num_outputs=length, squeeze_axis=True))
    steps = list(inputs)
    if length is not None and len(steps) != length:
        raise ValueError(f"unroll: length is {length} but inputs has {len(steps)} step(s)")
    return steps


def _merged(outputs, axis, merge):
    """Step outputs as one Symbol stacked along `axis` (merge True) or as a list."""
    if merge:
        return sym.Concat(*[sym.expand_dims(o, axis=axis) for o in outputs], dim=axis)
    return list(outputs)


class BaseRNNCell:
    """The interface of a symbolic RNN cell.

    Subclasses define `state_info` and ``__call__(inputs, states) -> (output, new_states)``
    (one step); `begin_state` and `unroll` come from here.

    Args:
        prefix: put before the names of the cell's nodes and, when `params` is None, its
            weights.
        params: an `RNNParams` to take the weights from (shared); a new one when None.

    Example::

        cell = mx.rnn.GRUCell(4)   # a BaseRNNCell subclass
        outs, states = cell.unroll(3, sym.var("x"), merge_outputs=True)
        outs.infer_shape(x=(2, 3, 5))[1]   # [(2, 3, 4)]
    """

    def __init__(self, prefix="", params=None):
        self._own_params = params is None
        self._params = RNNParams(prefix) if params is None else params
        self._prefix = prefix
        self.reset()

    def reset(self):
        """Restart the step and begin-state counters (before building another graph).

        Example::

            cell = mx.rnn.RNNCell(4)
            cell.begin_state()[0].name   # 'rnn_begin_state_0'
            cell.reset(); cell.begin_state()[0].name   # 'rnn_begin_state_0' again
        """
        self._init_counter = -1
        self._counter = -1
        for cell in getattr(self, "_cells", ()):
            cell.reset()

    def __call__(self, inputs, states):
        """One step: ``(output, new_states)`` from the step's input and the states."""
        raise NotImplementedError(f"{type(self).__name__} does not define a step")

    @property
    def params(self):
        """The cell's `RNNParams` (it counts as shared from then on).

        Example::

            params = mx.rnn.LSTMCell(4, prefix="l_").params
            sorted(params._params)   # ['l_h2h_bias', 'l_h2h_weight', 'l_i2h_bias', ...]
        """
        self._own_params = False
        return self._params

    @property
    def state_info(self):
        """Per state, a dict of `begin_state`'s keyword arguments (``shape``, ``__layout__``).

        Example::

            mx.rnn.GRUCell(4).state_info   # [{'shape': (0, 4), '__layout__': 'NC'}]
        """
        raise NotImplementedError(f"{type(self).__name__} does not define state_info")

    @property
    def state_shape(self):
        """Per state, its shape (0 for the batch size, not known before the graph is).

        Example::

            mx.rnn.LSTMCell(4).state_shape   # [(0, 4), (0, 4)]: h and c
        """
        return [info["shape"] for info in self.state_info]

    def begin_state(self, func=sym.zeros, **kwargs):
        """The first states: ``func(name=prefix + 'begin_state_K', **state_info, **kwargs)``
        per state (`sym.zeros` by default; `sym.var` makes them graph inputs).

        Example::

            h0, c0 = mx.rnn.LSTMCell(8).begin_state(func=mx.sym.var)
            h0.name, c0.name   # ('lstm_begin_state_0', 'lstm_begin_state_1')
        """
        states = []
        for info in self.state_info:
            self._init_counter += 1
            kw = dict(kwargs)
            kw.update(info or {})
            states.append(func(name=f"{self._prefix}begin_state_{self._init_counter}", **kw))
        return states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        """Run the cell over `length` steps.

        Args:
            length: the number of steps.
            inputs: one Symbol of the whole sequence (split along the 'T' of `layout`) or a
                list of `length` step Symbols.
            begin_state: the first states (default `begin_state()`).
            layout: 'NTC' or 'TNC'.
            merge_outputs: True: one Symbol stacked along the time axis; False or None: a
                list of step outputs.

        Returns:
            (outputs, states).

        Raises:
            ValueError: no inputs, a list of another length, a layout without one 'T'.

        Example::

            cell = mx.rnn.LSTMCell(4)
            outs, states = cell.unroll(3, mx.sym.var("x"), layout="TNC", merge_outputs=True)
            outs.infer_shape(x=(3, 2, 5))[1]   # [(3, 2, 4)]
        """
        self.reset()
        axis = _time_axis(layout)
        steps = _as_steps(length, inputs, axis)
        states = self.begin_state() if begin_state is None else begin_state
        outputs = []
        for x in steps:
            out, states = self(x, states)
            outputs.append(out)
        return _merged(outputs, axis, merge_outputs), states

    def _step_name(self):
        self._counter += 1
        return f"{self._prefix}t{self._counter}_"

    @property
    def _gate_names(self):
        """The suffixes of the gates stacked in ``i2h_weight`` (none: no weights)."""
        return ()

    def _get_activation(self, inputs, activation, **kwargs):
        """`activation` applied to `inputs`: an `Activation` act_type name, or a function of
        a Symbol called with `kwargs` (e.g. ``name``)."""
        if isinstance(activation, str):
            return sym.Activation(inputs, act_type=activation, **kwargs)
        return activation(inputs, **kwargs)

    def unpack_weights(self, args):
        """`args` (name -> NDArray) with this cell's stacked ``i2h``/``h2h`` weights and
        biases split per gate (``prefix + 'i2h_f_weight'`` ...), as checkpoints store them.

        Raises:
            KeyError: a weight of the cell missing from `args`.

        Example::

            cell = mx.rnn.LSTMCell(2, prefix="l_")
            args = {"l_i2h_weight": nd.ones((8, 3)), "l_i2h_bias": nd.zeros(8),
                    "l_h2h_weight": nd.ones((8, 2)), "l_h2h_bias": nd.zeros(8)}
            per_gate = cell.unpack_weights(args)
            per_gate["l_i2h_f_weight"].shape   # (2, 3): the forget gate's rows

        """
        args = dict(args)
        gates = self._gate_names
        if not gates:
            return args
        h = self._num_hidden
        for group in ("i2h", "h2h"):
            for kind in ("weight", "bias"):
                whole = args.pop(f"{self._prefix}{group}_{kind}")
                for j, gate in enumerate(gates):
                    args[f"{self._prefix}{group}{gate}_{kind}"] = whole[j * h:(j + 1) * h].copy()
        return args

    def pack_weights(self, args):
        """The inverse of `unpack_weights`: per-gate weights stacked back into ``i2h_weight``
        ... (other entries of `args` kept).

        Raises:
            KeyError: a gate's weight missing from `args`.

        Example::

            cell = mx.rnn.LSTMCell(2, prefix="l_")
            args = {"l_i2h_weight": nd.ones((8, 3)), "l_i2h_bias": nd.zeros(8),
                    "l_h2h_weight": nd.ones((8, 2)), "l_h2h_bias": nd.zeros(8)}
            per_gate = cell.unpack_weights(args)   # 'l_i2h_f_weight' ... of 2 rows each
            cell.pack_weights(per_gate)["l_i2h_weight"].shape   # (8, 3)
        """
        args = dict(args)
        gates = self._gate_names
        if not gates:
            return args
        for group in ("i2h", "h2h"):
            for kind in ("weight", "bias"):
                parts = [args.pop(f"{self._prefix}{group}{gate}_{kind}") for gate in gates]
                args[f"{self._prefix}{group}_{kind}"] = nd.concat(*parts, dim=0)
        return args


class _ProjectedCell(BaseRNNCell):
    """A cell whose step projects its input and first state (``i2h``, ``h2h``, with the
    weights ``i2h_weight`` ... of its params) and keeps `_N_STATES` states (N, num_hidden)."""

    _N_STATES = 1

    def __init__(self, num_hidden, prefix, params, **bias_kwargs):
        super().__init__(prefix=prefix, params=params)
        self._num_hidden = _check_hidden(type(self).__name__, num_hidden)
        get = self._params.get
        self._iW, self._iB = get("i2h_weight"), get("i2h_bias", **bias_kwargs)
        self._hW, self._hB = get("h2h_weight"), get("h2h_bias")

    @property
    def state_info(self):
        """The states, each (N, num_hidden) with N known once the graph is.

        Example::

            mx.rnn.RNNCell(4).state_info   # [{'shape': (0, 4), '__layout__': 'NC'}]
        """
        return [{"shape": (0, self._num_hidden), "__layout__": "NC"}
                for _ in range(self._N_STATES)]

    def _projections(self, inputs, state, n_gates, name, sep=""):
        """The input and state projections of a step, ``n_gates * num_hidden`` wide."""
        width = self._num_hidden * n_gates
        i2h = sym.FullyConnected(data=inputs, weight=self._iW, bias=self._iB, num_hidden=width,
                                 name=f"{name}{sep}i2h")
        h2h = sym.FullyConnected(data=state, weight=self._hW, bias=self._hB, num_hidden=width,
                                 name=f"{name}{sep}h2h")
        return i2h, h2h


class RNNCell(_ProjectedCell):
    """Elman cell: ``h' = activation(W_i x + b_i + W_h h + b_h)``; output and state h'.

    Args:
        num_hidden: the state size.
        activation: an `Activation` act_type ('tanh', 'relu' ...) or a function of a Symbol.
        prefix (str): put before the names of the cell's nodes and weights (default
            ``'rnn_'``).
        params (RNNParams): the weights to share with other cells (default None: the
            cell's own, made with `prefix`).

    Raises:
        ValueError: num_hidden not an int >= 1.

    Example::

        x, h0 = sym.var("x"), sym.var("h0")
        out, [h] = mx.rnn.RNNCell(4)(x, [h0])
        out.infer_shape(x=(2, 3), h0=(2, 4))[1]   # [(2, 4)]
    """

    def __init__(self, num_hidden, activation="tanh", prefix="rnn_", params=None):
        super().__init__(num_hidden, prefix, params)
        self._activation = activation

    @property
    def _gate_names(self):
        return ("",)

    def __call__(self, inputs, states):
        """One step: ``(h', [h'])``."""
        name = self._step_name()
        i2h, h2h = self._projections(inputs, states[0], 1, name)
        if isinstance(self._activation, str):
            out = sym.Activation(i2h + h2h, act_type=self._activation, name=f"{name}out")
        else:
            out = self._activation(i2h + h2h, name=f"{name}out")
        return out, [out]


class LSTMCell(_ProjectedCell):
    """LSTM cell; gates (input, forget, candidate, output) stacked in that order.

    Args:
        num_hidden: the state size.
        prefix (str): put before the names of the cell's nodes and weights (default
            ``'lstm_'``).
        params (RNNParams): the weights to share with other cells (default None: the
            cell's own, made with `prefix`).
        forget_bias: recorded in the ``i2h_bias`` variable's ``__init__`` attribute, as
            MXNet's ``LSTMBias`` initializer; the step itself adds nothing.

    Raises:
        ValueError: num_hidden not an int >= 1.

    Example::

        x, h0, c0 = sym.var("x"), sym.var("h0"), sym.var("c0")
        out, [h, c] = mx.rnn.LSTMCell(4)(x, [h0, c0])
        out.infer_shape(x=(2, 3), h0=(2, 4), c0=(2, 4))[1]   # [(2, 4)]
    """

    _N_STATES = 2   # h and c

    def __init__(self, num_hidden, prefix="lstm_", params=None, forget_bias=1.0):
        # MXNet's LSTMBias initializer description, so that a saved graph reads as MXNet's
        super().__init__(num_hidden, prefix, params,
                         init=json.dumps(["lstmbias", {"forget_bias": forget_bias}]))

    @property
    def _gate_names(self):
        return ("_i", "_f", "_c", "_o")

    def __call__(self, inputs, states):
        """One step: ``(h', [h', c'])``."""
        name = self._step_name()
        i2h, h2h = self._projections(inputs, states[0], 4, name)
        gates = sym.SliceChannel(i2h + h2h, num_outputs=4, name=f"{name}slice")
        i = sym.Activation(gates[0], act_type="sigmoid", name=f"{name}i")
        f = sym.Activation(gates[1], act_type="sigmoid", name=f"{name}f")
        g = sym.Activation(gates[2], act_type="tanh", name=f"{name}c")
        o = sym.Activation(gates[3], act_type="sigmoid", name=f"{name}o")
        c = sym._plus(f * states[1], i * g, name=f"{name}state")
        h = sym._mul(o, sym.Activation(c, act_type="tanh"), name=f"{name}out")
        return h, [h, c]


class GRUCell(_ProjectedCell):
    """GRU cell (cuDNN's form): ``n = tanh(i2h_n + r * h2h_n)``,
    ``h' = (1 - z) * n + z * h``; gates (reset, update, new) stacked in that order.

    Args:
        num_hidden: the state size.
        prefix (str): put before the names of the cell's nodes and weights (default
            ``'gru_'``).
        params (RNNParams): the weights to share with other cells (default None: the
            cell's own, made with `prefix`).

    Raises:
        ValueError: num_hidden not an int >= 1.

    Example::

        x, h0 = sym.var("x"), sym.var("h0")
        out, [h] = mx.rnn.GRUCell(4)(x, [h0])
        out.infer_shape(x=(2, 3), h0=(2, 4))[1]   # [(2, 4)]
    """

    def __init__(self, num_hidden, prefix="gru_", params=None):
        super().__init__(num_hidden, prefix, params)

    @property
    def _gate_names(self):
        return ("_r", "_z", "_o")

    def __call__(self, inputs, states):
        """One step: ``(h', [h'])``."""
        name = self._step_name()
        h = states[0]
        i2h, h2h = self._projections(inputs, h, 3, name, sep="_")
        i_r, i_z, i_n = sym.SliceChannel(i2h, num_outputs=3, name=f"{name}_i2h_slice")
        h_r, h_z, h_n = sym.SliceChannel(h2h, num_outputs=3, name=f"{name}_h2h_slice")
        r = sym.Activation(i_r + h_r, act_type="sigmoid", name=f"{name}_r_act")
        z = sym.Activation(i_z + h_z, act_type="sigmoid", name=f"{name}_z_act")
        n = sym.Activation(i_n + r * h_n, act_type="tanh", name=f"{name}_h_act")
        out = sym._plus((1. - z) * n, z * h, name=f"{name}out")
        return out, [out]


class _CellGroup(BaseRNNCell):
    """A cell made of the cells in ``self._cells``: their weights and states, in order."""

    def unpack_weights(self, args):
        """Each cell's `unpack_weights`, in turn."""
        for cell in self._cells:
            args = cell.unpack_weights(args)
        return args

    def pack_weights(self, args):
        """Each cell's `pack_weights`, in turn."""
        for cell in self._cells:
            args = cell.pack_weights(args)
        return args

    @property
    def state_info(self):
        """The cells' states, in order."""
        return [info for cell in self._cells for info in cell.state_info]

    def begin_state(self, **kwargs):
        """The cells' first states, in order (see `BaseRNNCell.begin_state`)."""
        return [s for cell in self._cells for s in cell.begin_state(**kwargs)]


class SequentialRNNCell(_CellGroup):
    """Cells stacked: each step's output feeds the next cell; the states are all the cells'
    states, in order.

    Args:
        params: an `RNNParams` the added cells take their weights from (then the cells must
            not have been given their own).

    Example::

        stack = mx.rnn.SequentialRNNCell()
        stack.add(mx.rnn.LSTMCell(8, prefix="l0_"))
        stack.add(mx.rnn.LSTMCell(8, prefix="l1_"))
        outs, states = stack.unroll(4, mx.sym.var("x"), merge_outputs=True)
    """

    def __init__(self, params=None):
        super().__init__(prefix="", params=params)
        self._shared = params is not None
        self._cells = []

    def add(self, cell):
        """Append `cell` to the stack.

        Raises:
            TypeError: `cell` is not a `BaseRNNCell`.
            ValueError: this stack has params and `cell` was given params of its own.

        Example::

            stack = mx.rnn.SequentialRNNCell()
            stack.add(mx.rnn.GRUCell(4, prefix="a_")); stack.add(mx.rnn.GRUCell(4, prefix="b_"))
            len(stack.state_info)   # 2: one state per GRU cell
        """
        if not isinstance(cell, BaseRNNCell):
            raise TypeError(f"SequentialRNNCell.add: cell must be an mx.rnn cell, got "
                            f"{type(cell).__name__}")
        if self._shared:
            if not cell._own_params:
                raise ValueError("SequentialRNNCell.add: give params to the SequentialRNNCell "
                                 "or to its cells, not both")
            cell.params._params.update(self._params._params)
        self._params._params.update(cell.params._params)
        self._cells.append(cell)

    def _split_states(self, states):
        at = 0
        for cell in self._cells:
            n = len(cell.state_info)
            yield cell, list(states[at:at + n])
            at += n

    def __call__(self, inputs, states):
        """One step through every cell: ``(last cell's output, all new states)``."""
        self._counter += 1
        new_states = []
        for cell, own in self._split_states(states):
            inputs, own = cell(inputs, own)
            new_states.extend(own)
        return inputs, new_states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        """Unroll each cell in turn over the whole sequence (see `BaseRNNCell.unroll`).

        Args:
            length (int): the number of time steps.
            inputs (Symbol or list of Symbol): the whole sequence (split along the 'T' of
                `layout`) or a list of `length` step Symbols.
            begin_state (list of Symbol): the first states (default None: `begin_state()`).
            layout (str): 'NTC' (default) or 'TNC': where the time axis is.
            merge_outputs (bool): True: one Symbol stacked along the time axis; False or None
                (default): a list of step outputs.

        Example::

            stack = mx.rnn.SequentialRNNCell()
            stack.add(mx.rnn.GRUCell(4, prefix="a_")); stack.add(mx.rnn.GRUCell(6, prefix="b_"))
            outs, states = stack.unroll(3, sym.var("x"), merge_outputs=True)
            outs.infer_shape(x=(2, 3, 5))[1]   # [(2, 3, 6)]
        """
        self.reset()
        states = self.begin_state() if begin_state is None else begin_state
        new_states = []
        last = len(self._cells) - 1
        for k, (cell, own) in enumerate(self._split_states(states)):
            inputs, own = cell.unroll(length, inputs, begin_state=own, layout=layout,
                                      merge_outputs=merge_outputs if k == last else None)
            new_states.extend(own)
        return inputs, new_states


class DropoutCell(BaseRNNCell):
    """Dropout on the step's input, no state: ``(Dropout(x, p=dropout), states)``.

    Args:
        dropout: the drop probability in [0, 1).
        prefix (str): put before the names of the cell's nodes and weights (default
            ``'dropout_'``).
        params (RNNParams): the weights to share with other cells (default None: the
            cell's own, made with `prefix`).

    Raises:
        ValueError: dropout outside [0, 1).

    Example::

        stack = mx.rnn.SequentialRNNCell()
        stack.add(mx.rnn.GRUCell(4)); stack.add(mx.rnn.DropoutCell(0.5))
    """

    def __init__(self, dropout, prefix="dropout_", params=None):
        super().__init__(prefix=prefix, params=params)
        if not isinstance(dropout, numbers.Real) or not 0 <= dropout < 1:
            raise ValueError(f"DropoutCell: dropout must be a number in [0, 1), got "
                             f"{dropout!r}")
        self._dropout = float(dropout)

    @property
    def state_info(self):
        """No states.

        Example::

            mx.rnn.DropoutCell(0.5).state_info   # []
        """

        return []

    def __call__(self, inputs, states):
        """One step: the input with dropout, the states unchanged."""
        self._counter += 1
        if self._dropout > 0:
            inputs = sym.Dropout(data=inputs, p=self._dropout,
                                 name=f"{self._prefix}t{self._counter}_fwd")
        return inputs, states
