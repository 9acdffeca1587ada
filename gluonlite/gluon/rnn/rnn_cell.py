"""Recurrent cells (MXNet 1.x equations, gate order, parameter and node names).

A cell maps ``(x_t, [states]) -> (output, [new states])``. Parameters are ``i2h_weight``
(G*H, input_size), ``h2h_weight`` (G*H, H), ``i2h_bias``, ``h2h_bias`` (G*H,), with G the
number of gates; graph nodes of step t are named ``t{t}_i2h``, ``t{t}_h2h``, ...
"""
from ... import ndarray as nd_mod, symbol as sym_mod
from ...ndarray.ndarray import NDArray
from ..block import Block, HybridBlock, _is_sym
from ..nn.activations import LeakyReLU

__all__ = ["RecurrentCell", "HybridRecurrentCell", "RNNCell", "LSTMCell", "GRUCell",
           "SequentialRNNCell", "HybridSequentialRNNCell"]


def _format_sequence(length, inputs, layout, merge):
    """A sequence in the form a cell's unroll wants.

    Args:
        length: the number of steps (None: any).
        inputs: one array/Symbol laid out as `layout`, or a list of per-step (N, C)
            arrays/Symbols.
        layout: 'NTC' or 'TNC' (any layout with a 'T' and an 'N').
        merge: False -> a list of per-step arrays; True -> one array stacked along
            `layout`'s time axis; None -> `inputs` in the form given.

    Returns:
        (inputs, time axis, F (nd or sym), batch size (0 for Symbols)).

    Raises:
        ValueError: no inputs, a layout without 'T' or 'N', or a length that does not match.
    """
    if inputs is None:
        raise ValueError("unroll: inputs must be given")
    axis = layout.find("T")
    batch_axis = layout.find("N")
    if axis < 0 or batch_axis < 0:
        raise ValueError(f"unroll: layout must contain 'T' and 'N', got {layout!r}")
    batch_size = 0
    if _is_sym(inputs):
        F = sym_mod
        if merge is False:
            if len(inputs.outputs) != 1:
                raise ValueError("unroll: expected a single-output Symbol as the sequence")
            if length is None:
                raise ValueError("unroll: length must be given for a symbolic sequence")
            inputs = _split_steps(F, inputs, length, axis)
    elif isinstance(inputs, NDArray):
        F = nd_mod
        batch_size = inputs.shape[batch_axis]
        if merge is False:
            if length is not None and length != inputs.shape[axis]:
                raise ValueError(f"unroll: length is {length} but the inputs have "
                                 f"{inputs.shape[axis]} steps along axis {axis} "
                                 f"(layout {layout!r})")
            inputs = _split_steps(F, inputs, inputs.shape[axis], axis)
    else:
        if length is not None and len(inputs) != length:
            raise ValueError(f"unroll: length is {length} but {len(inputs)} inputs were given")
        if _is_sym(inputs[0]):
            F = sym_mod
        else:
            F = nd_mod
            batch_size = inputs[0].shape[0]
        if merge is True:
            inputs = F.stack(*inputs, axis=axis)
    return inputs, axis, F, batch_size


def _is_tensor(x):
    """Whether `x` is one NDArray or one Symbol (not a list of per-step arrays)."""
    return isinstance(x, NDArray) or _is_sym(x)


def _split_steps(F, data, length, time_axis):
    """`data` stacked along `time_axis` as a list of `length` per-step arrays."""
    if length == 1:
        return [F.squeeze(data, axis=time_axis)]
    return list(F.split(data, num_outputs=length, axis=time_axis, squeeze_axis=True))


def _mask_sequence_variable_length(F, data, length, valid_length, time_axis, merge):
    """Outputs zeroed past each sequence's valid length (MXNet's SequenceMask).

    Args:
        data: the outputs, stacked along `time_axis` or a list of per-step arrays.
        merge: True returns one stacked array, False a list of `length` steps.
    """
    if not _is_tensor(data):
        data = F.stack(*data, axis=time_axis)
    out = F.SequenceMask(data, sequence_length=valid_length, use_sequence_length=True,
                         axis=time_axis)
    return out if merge else _split_steps(F, out, length, time_axis)


def _masked_sequence(length, seq, layout, merge, valid_length):
    """`seq` in the form `merge` asks for (see `_format_sequence`), zero past each sequence's
    valid length when `valid_length` is given; returns (seq, F)."""
    seq, axis, F, _ = _format_sequence(length, seq, layout, merge)
    if valid_length is not None:
        seq = _mask_sequence_variable_length(F, seq, length, valid_length, axis, merge)
    return seq, F


def _last_valid_states(F, all_states, valid_length):
    """Each state at each sequence's last valid step: ``states_t[valid_length[b] - 1][b]``
    (MXNet's SequenceLast over the per-step states stacked along a new axis 0)."""
    return [F.SequenceLast(F.stack(*steps, axis=0), sequence_length=valid_length,
                           use_sequence_length=True, axis=0)
            for steps in zip(*all_states)]


def _reverse_sequences(F, steps, valid_length):
    """The per-step list `steps` in reverse time order; with `valid_length`, each sequence is
    reversed within its own length and its padding stays in place (MXNet's SequenceReverse)."""
    if valid_length is None:
        return list(reversed(steps))
    rev = F.SequenceReverse(F.stack(*steps, axis=0), sequence_length=valid_length,
                            use_sequence_length=True)
    return _split_steps(F, rev, len(steps), 0)


def _get_begin_state(cell, F, begin_state, inputs, batch_size):
    if begin_state is not None:
        return begin_state
    if F is nd_mod:
        ctx = inputs.context if isinstance(inputs, NDArray) else inputs[0].context
        with ctx:
            return cell.begin_state(func=F.zeros, batch_size=batch_size)
    return cell.begin_state(func=F.zeros, batch_size=batch_size)


def _check_unmodified(cell):
    if cell._modified:
        raise ValueError(f"{cell.name}: this cell is wrapped by a modifier cell (ZoneoutCell, "
                         "ResidualCell, ...); call the modifier cell instead of the cell it "
                         "wraps")


def _check_states(cell, states):
    """States as a list, after checking their number against the cell's state_info."""
    n = len(cell.state_info())
    if isinstance(states, (NDArray,)) or _is_sym(states):
        states = [states]
    if not isinstance(states, (list, tuple)):
        raise TypeError(f"{cell.name}: states must be a list of {n} array(s), got "
                        f"{type(states).__name__}")
    if len(states) != n:
        raise ValueError(f"{cell.name}: {cell.__class__.__name__} expects {n} state(s) "
                         f"{[i.get('__layout__', '') for i in cell.state_info()]}, got "
                         f"{len(states)}")
    return list(states)


class RecurrentCell(Block):
    """Base class of recurrent cells (see the module docstring).

    Args:
        prefix: the prefix of the cell's name and parameter names (default None: made from
            the class name, e.g. ``lstm0_``).
        params: a ParameterDict whose parameters the cell shares (default None: its own).

    Inputs:
        - **inputs**: one step's input, (N, C).
        - **states**: the list of state arrays `state_info` describes.

    Outputs:
        - **output**: the step's output, (N, H).
        - **new_states**: the list of new states, shaped as `states`.

    Example::

        cell = gluon.rnn.GRUCell(8); cell.initialize()   # a RecurrentCell
        out, states = cell(nd.ones((2, 4)), cell.begin_state(batch_size=2))   # one step
        out.shape   # (2, 8)
    """

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._modified = False
        self.reset()

    def reset(self):
        """Reset the step counter (node names start again at ``t0_``) before a new sequence.

        Example::

            cell = gluon.rnn.RNNCell(4); cell.initialize()
            outs, _ = cell.unroll(3, sym.var('x'))   # nodes named rnn0_t0_..., rnn0_t2_...
            cell.reset()   # the next sequence starts at t0_ again
        """
        self._init_counter = -1
        self._counter = -1
        for child in self._children.values():
            if isinstance(child, RecurrentCell):  # not an activation Block held as a child
                child.reset()

    def state_info(self, batch_size=0):
        """A list of dicts ``{'shape': ..., '__layout__': ...}``, one per state.

        Args:
            batch_size: the batch size the shapes start with (default 0: unknown).

        Returns:
            a list of dicts, one per state.

        Raises:
            NotImplementedError: in the base class (a cell defines it).

        Example::

            cell = gluon.rnn.LSTMCell(8)
            [s['shape'] for s in cell.state_info(batch_size=2)]   # [(2, 8), (2, 8)]
        """
        raise NotImplementedError

    def begin_state(self, batch_size=0, func=nd_mod.zeros, **kwargs):
        """Initial states made by `func` (nd.zeros by default) from `state_info`.

        Args:
            batch_size: the batch size (default 0: unknown, as for symbolic states).
            func: makes each state from ``name=``, ``shape=`` and the other keys of its
                `state_info` entry (default nd.zeros; e.g. sym.zeros, nd.random.uniform).
            **kwargs: more keyword arguments for `func` (they override the state_info
                entry's).

        Returns:
            a list of the states.

        Raises:
            ValueError: the cell is wrapped by a modifier cell (ZoneoutCell, ResidualCell,
                ...): ask the modifier for its states.

        Example::

            cell = gluon.rnn.LSTMCell(8)
            h, c = cell.begin_state(batch_size=4)   # zeros
            h.shape   # (4, 8)
        """
        _check_unmodified(self)
        states = []
        for info in self.state_info(batch_size):
            self._init_counter += 1
            info = dict(info or {})
            info.update(kwargs)
            shape = info.pop("shape")
            info.pop("__layout__", None)
            states.append(func(name=f"{self._prefix}begin_state_{self._init_counter}",
                               shape=shape, **info))
        return states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        """Run the cell over `length` steps.

        Args:
            length: the number of steps.
            inputs: one array/Symbol laid out as `layout` ('NTC' or 'TNC') or a list of
                per-step arrays.
            begin_state: initial states (default: zeros).
            layout: 'NTC' (default) or 'TNC', the layout of `inputs` and of stacked
                outputs.
            merge_outputs: True -> one stacked output; False -> a list per step; None ->
                the form of `inputs` (one stacked output when `valid_length` is given).
            valid_length: optional (batch,) array of sequence lengths (1..length). Outputs
                past a sequence's length are zeros, and the returned states are those of
                each sequence's last valid step, as in MXNet 1.x.

        Returns:
            (outputs, final states).

        Raises:
            ValueError: a layout without 'T' and 'N', a length that does not match the
                inputs, or (symbolic inputs) no length.

        Example::

            cell = gluon.rnn.LSTMCell(8); cell.initialize()
            x_ntc = nd.ones((2, 5, 4))   # batch 2, 5 steps, 4 features
            outs, states = cell.unroll(5, x_ntc, valid_length=nd.array([5, 2]),
                                       merge_outputs=True)
            outs.shape   # (2, 5, 8)
        """
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, False)
        states = _get_begin_state(self, F, begin_state, inputs, batch_size)
        outputs, all_states = [], []
        for i in range(length):
            output, states = self(inputs[i], states)
            outputs.append(output)
            if valid_length is not None:
                all_states.append(states)
        if valid_length is not None:
            states = _last_valid_states(F, all_states, valid_length)
            outputs = _mask_sequence_variable_length(F, outputs, length, valid_length, axis,
                                                     True)
        outputs, _, _, _ = _format_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def _get_activation(self, F, inputs, activation, **kwargs):
        if isinstance(activation, str):
            if activation in ("tanh", "sigmoid", "relu", "softsign"):
                return getattr(F, activation)(inputs, **kwargs)
            return F.Activation(inputs, act_type=activation, **kwargs)
        if isinstance(activation, LeakyReLU):  # its operator, named as the cell names it
            return F.LeakyReLU(inputs, act_type="leaky", slope=activation._alpha, **kwargs)
        return activation(inputs, **kwargs)

    def forward(self, inputs, states):
        """One step: ``(output, new_states)``.

        Args:
            inputs: the step's input, (N, C).
            states: the list of states (one array is taken as a list of one).

        Returns:
            (output, list of new states).

        Raises:
            ValueError: a wrong number of states (the message says how many are expected).
            TypeError: states that are neither an array nor a list.

        Example::

            cell = gluon.rnn.RNNCell(3); cell.initialize()
            out, new_states = cell(nd.ones((2, 4)), [nd.zeros((2, 3))])
            new_states[0].shape   # (2, 3)
        """
        self._counter += 1
        states = _check_states(self, states)
        return super().forward(inputs, states)


class HybridRecurrentCell(RecurrentCell, HybridBlock):
    """A recurrent cell whose step is a `hybrid_forward`.

    Args:
        prefix: the prefix of the cell's name and parameter names (default None: made from
            the class name, e.g. ``lstm0_``).
        params: a ParameterDict whose parameters the cell shares (default None: its own).

    Inputs:
        - **x**: one step's input, (N, C); further positional arguments (the states)
          follow it.

    Outputs:
        - **out**: ``(output, new_states)``, as `RecurrentCell.forward`.

    Example::

        class Accumulate(gluon.rnn.HybridRecurrentCell):
            def state_info(self, batch_size=0):
                return [{'shape': (batch_size, 2), '__layout__': 'NC'}]
            def hybrid_forward(self, F, x, states):
                total = states[0] + x
                return total, [total]
        outs, states = Accumulate().unroll(3, nd.ones((1, 3, 2)), merge_outputs=True)
        states[0].asnumpy()   # [[3. 3.]]
    """

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError


class _GatedCell(HybridRecurrentCell):
    """Shared parameter set-up of RNN/LSTM/GRU cells (`_gates` gates)."""

    _gates = 1

    def __init__(self, hidden_size, i2h_weight_initializer, h2h_weight_initializer,
                 i2h_bias_initializer, h2h_bias_initializer, input_size, prefix, params):
        super().__init__(prefix=prefix, params=params)
        self._hidden_size = hidden_size
        self._input_size = input_size
        g = self._gates * hidden_size
        self.i2h_weight = self.params.get("i2h_weight", shape=(g, input_size),
                                          init=i2h_weight_initializer, allow_deferred_init=True)
        self.h2h_weight = self.params.get("h2h_weight", shape=(g, hidden_size),
                                          init=h2h_weight_initializer, allow_deferred_init=True)
        self.i2h_bias = self.params.get("i2h_bias", shape=(g,), init=i2h_bias_initializer,
                                        allow_deferred_init=True)
        self.h2h_bias = self.params.get("h2h_bias", shape=(g,), init=h2h_bias_initializer,
                                        allow_deferred_init=True)

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size, self._hidden_size), "__layout__": "NC"}
                for _ in range(self._n_states)]

    def forward(self, inputs, states):
        """One step: ``(output, new_states)``.

        Raises:
            ValueError: inputs that are not (batch, features) or whose feature size is not
                the cell's input size (named as the input's problem, not the weight's).
        """
        if isinstance(inputs, NDArray):
            name = f"{self.name}: {self.__class__.__name__}"
            if inputs.ndim != 2:
                raise ValueError(f"{name} input 'inputs' must be 2-D (batch_size, "
                                 f"input_size), got shape {inputs.shape}; a cell runs one step "
                                 "(use unroll or foreach for a sequence)")
            known = self._input_size or self.i2h_weight._shape[1]  # 0: unknown
            if known and inputs.shape[1] != known:
                raise ValueError(f"{name} input 'inputs' must have {known} features (axis 1, "
                                 f"the cell's input size), got shape {inputs.shape}")
        return super().forward(inputs, states)

    _n_states = 1

    def _projections(self, F, inputs, h, i2h_weight, h2h_weight, i2h_bias, h2h_bias, prefix):
        """One step's input and recurrent projections (nodes ``t{t}_i2h``, ``t{t}_h2h``),
        each (N, G*H)."""
        n = self._gates * self._hidden_size
        i2h = F.FullyConnected(inputs, i2h_weight, i2h_bias, num_hidden=n, name=prefix + "i2h")
        h2h = F.FullyConnected(h, h2h_weight, h2h_bias, num_hidden=n, name=prefix + "h2h")
        return i2h, h2h

    def __repr__(self):
        shape = self.i2h_weight.shape
        return f"{self.__class__.__name__}({shape[1] if shape[1] else None} -> " \
               f"{shape[0] // self._gates})"


class RNNCell(_GatedCell):
    """Elman cell: ``h' = activation(W_ih x + b_ih + W_hh h + b_hh)``.

    Args:
        hidden_size: H, the number of hidden units.
        activation: 'tanh' (default), 'relu', ... or a callable.
        i2h_weight_initializer: the initializer of ``i2h_weight`` (default None: the
            global initializer).
        h2h_weight_initializer: the initializer of ``h2h_weight`` (default None: the
            global initializer).
        i2h_bias_initializer: the initializer of ``i2h_bias`` (default 'zeros').
        h2h_bias_initializer: the initializer of ``h2h_bias`` (default 'zeros').
        input_size: input features (0: inferred on the first call).
        prefix: the prefix of the cell's name and parameter names (default None: made from
            the class name, e.g. ``lstm0_``).
        params: a ParameterDict whose parameters the cell shares (default None: its own).

    Inputs:
        - **inputs**: one step's input, (N, C).
        - **states**: [h], h (N, H).
        - **i2h_weight**, **h2h_weight**, **i2h_bias**, **h2h_bias**: the cell's
          parameters, passed in by ``forward``.

    Outputs:
        - **output**: (N, H).
        - **new_states**: [h'], h' the output.

    Shape: x (N, C), states [h (N, H)] -> output (N, H), [h'].

    Example::

        cell = gluon.rnn.RNNCell(8, activation='relu'); cell.initialize()
        out, [h] = cell(nd.ones((2, 4)), cell.begin_state(batch_size=2))
        out.shape   # (2, 8)
    """

    def __init__(self, hidden_size, activation="tanh", i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", input_size=0, prefix=None, params=None):
        super().__init__(hidden_size, i2h_weight_initializer, h2h_weight_initializer,
                         i2h_bias_initializer, h2h_bias_initializer, input_size, prefix, params)
        self._activation = activation  # a Block activation becomes a child, as in MXNet

    def _alias(self):
        return "rnn"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = f"t{self._counter}_"
        i2h, h2h = self._projections(F, inputs, states[0], i2h_weight, h2h_weight, i2h_bias,
                                     h2h_bias, prefix)
        out = self._get_activation(F, F.elemwise_add(i2h, h2h, name=prefix + "plus0"),
                                   self._activation, name=prefix + "out")
        return out, [out]


class _TwoActivationCell(_GatedCell):
    """Shared constructor of LSTM and GRU cells: `activation` for the candidate and the
    output, `recurrent_activation` for the gates."""

    def __init__(self, hidden_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0,
                 prefix=None, params=None, activation="tanh", recurrent_activation="sigmoid"):
        super().__init__(hidden_size, i2h_weight_initializer, h2h_weight_initializer,
                         i2h_bias_initializer, h2h_bias_initializer, input_size, prefix, params)
        self._activation = activation  # Block activations become children, as in MXNet
        self._recurrent_activation = recurrent_activation


def _lstm_update(cell, F, gates, prev_c, prefix, out_name):
    """The LSTM state update from the summed (N, 4H) projections `gates` (input, forget,
    candidate, output) with `cell`'s activations: returns (h', c'), h' named
    `prefix + out_name`."""
    sl = F.SliceChannel(gates, num_outputs=4, name=prefix + "slice")
    act, ract = cell._activation, cell._recurrent_activation
    in_gate = cell._get_activation(F, sl[0], ract, name=prefix + "i")
    forget_gate = cell._get_activation(F, sl[1], ract, name=prefix + "f")
    in_transform = cell._get_activation(F, sl[2], act, name=prefix + "c")
    out_gate = cell._get_activation(F, sl[3], ract, name=prefix + "o")
    next_c = F.elemwise_add(F.elemwise_mul(forget_gate, prev_c, name=prefix + "mul0"),
                            F.elemwise_mul(in_gate, in_transform, name=prefix + "mul1"),
                            name=prefix + "state")
    next_h = F.elemwise_mul(out_gate, cell._get_activation(F, next_c, act,
                                                           name=prefix + "activation0"),
                            name=prefix + out_name)
    return next_h, next_c


class LSTMCell(_TwoActivationCell):
    """LSTM cell (gates stacked as input, forget, cell candidate, output)::

        i, f, c~, o = split(W_ih x + b_ih + W_hh h + b_hh, 4)
        c' = sigmoid(f) * c + sigmoid(i) * tanh(c~)
        h' = sigmoid(o) * tanh(c')

    Args:
        hidden_size: H, the number of hidden units.
        i2h_weight_initializer: the initializer of ``i2h_weight`` (default None: the
            global initializer).
        h2h_weight_initializer: the initializer of ``h2h_weight`` (default None: the
            global initializer).
        i2h_bias_initializer: the initializer of ``i2h_bias`` (default 'zeros').
        h2h_bias_initializer: the initializer of ``h2h_bias`` (default 'zeros').
        input_size: input features (0: inferred on the first call).
        prefix: the prefix of the cell's name and parameter names (default None: made from
            the class name, e.g. ``lstm0_``).
        params: a ParameterDict whose parameters the cell shares (default None: its own).
        activation: the activation of the candidate and the output (default 'tanh'; a
            name or a callable).
        recurrent_activation: the activation of the gates (default 'sigmoid').

    Inputs:
        - **inputs**: one step's input, (N, C).
        - **states**: [h, c], each (N, H).
        - **i2h_weight**, **h2h_weight**, **i2h_bias**, **h2h_bias**: the cell's
          parameters, passed in by ``forward``.

    Outputs:
        - **output**: (N, H).
        - **new_states**: [h', c'].

    Shape: x (N, C), states [h (N, H), c (N, H)] -> output h' (N, H), [h', c'].

    Example::

        cell = gluon.rnn.LSTMCell(8); cell.initialize()
        out, [h, c] = cell(nd.ones((2, 4)), cell.begin_state(batch_size=2))
        c.shape   # (2, 8)
    """

    _gates = 4
    _n_states = 2

    def _alias(self):
        return "lstm"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = f"t{self._counter}_"
        i2h, h2h = self._projections(F, inputs, states[0], i2h_weight, h2h_weight, i2h_bias,
                                     h2h_bias, prefix)
        next_h, next_c = _lstm_update(self, F, F.elemwise_add(i2h, h2h, name=prefix + "plus0"),
                                      states[1], prefix, "out")
        return next_h, [next_h, next_c]


class GRUCell(_TwoActivationCell):
    """GRU cell (gates stacked as reset, update, new)::

        r = sigmoid(i2h_r + h2h_r);  z = sigmoid(i2h_z + h2h_z)
        n = tanh(i2h_n + r * h2h_n)
        h' = (1 - z) * n + z * h

    Args:
        hidden_size: H, the number of hidden units.
        i2h_weight_initializer: the initializer of ``i2h_weight`` (default None: the
            global initializer).
        h2h_weight_initializer: the initializer of ``h2h_weight`` (default None: the
            global initializer).
        i2h_bias_initializer: the initializer of ``i2h_bias`` (default 'zeros').
        h2h_bias_initializer: the initializer of ``h2h_bias`` (default 'zeros').
        input_size: input features (0: inferred on the first call).
        prefix: the prefix of the cell's name and parameter names (default None: made from
            the class name, e.g. ``lstm0_``).
        params: a ParameterDict whose parameters the cell shares (default None: its own).
        activation: the activation of the new state n (default 'tanh'; a name or a
            callable).
        recurrent_activation: the activation of the gates r and z (default 'sigmoid').

    Inputs:
        - **inputs**: one step's input, (N, C).
        - **states**: [h], h (N, H).
        - **i2h_weight**, **h2h_weight**, **i2h_bias**, **h2h_bias**: the cell's
          parameters, passed in by ``forward``.

    Outputs:
        - **output**: (N, H).
        - **new_states**: [h'], h' the output.

    Shape: x (N, C), states [h (N, H)] -> output h' (N, H), [h'].

    Example::

        cell = gluon.rnn.GRUCell(8); cell.initialize()
        outs, states = cell.unroll(5, nd.ones((2, 5, 4)), merge_outputs=True)
        outs.shape   # (2, 5, 8)
    """

    _gates = 3

    def _alias(self):
        return "gru"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = f"t{self._counter}_"
        prev_h = states[0]
        i2h, h2h = self._projections(F, inputs, prev_h, i2h_weight, h2h_weight, i2h_bias,
                                     h2h_bias, prefix)
        i2h_r, i2h_z, i2h = F.SliceChannel(i2h, num_outputs=3, name=prefix + "i2h_slice")
        h2h_r, h2h_z, h2h = F.SliceChannel(h2h, num_outputs=3, name=prefix + "h2h_slice")
        ract = self._recurrent_activation
        reset_gate = self._get_activation(F, F.elemwise_add(i2h_r, h2h_r, name=prefix + "plus0"),
                                          ract, name=prefix + "r_act")
        update_gate = self._get_activation(F, F.elemwise_add(i2h_z, h2h_z,
                                                             name=prefix + "plus1"),
                                           ract, name=prefix + "z_act")
        next_h_tmp = self._get_activation(
            F, F.elemwise_add(i2h, F.elemwise_mul(reset_gate, h2h, name=prefix + "mul0"),
                              name=prefix + "plus2"), self._activation, name=prefix + "h_act")
        ones = F.ones_like(update_gate, name=prefix + "ones_like0")
        next_h = F.elemwise_add(
            F.elemwise_mul(F.elemwise_sub(ones, update_gate, name=prefix + "minus0"),
                           next_h_tmp, name=prefix + "mul1"),
            F.elemwise_mul(update_gate, prev_h, name=prefix + "mul20"), name=prefix + "out")
        return next_h, [next_h]


def _run_stack(cells, inputs, states):
    next_states, p = [], 0
    for cell in cells:
        n = len(cell.state_info())
        inputs, st = cell(inputs, states[p:p + n])
        p += n
        next_states.extend(st)
    return inputs, next_states


class SequentialRNNCell(RecurrentCell):
    """Stack cells: the output of each is the input of the next; states are concatenated.

    Args:
        prefix: the prefix of the cell's name and parameter names (default None: made from
            the class name, e.g. ``lstm0_``).
        params: a ParameterDict whose parameters the cell shares (default None: its own).

    Inputs:
        - **inputs**: one step's input, (N, C).
        - **states**: every child's states, concatenated in order.

    Outputs:
        - **output**: the last child's output.
        - **new_states**: every child's new states, concatenated.

    Example::

        stack = gluon.rnn.SequentialRNNCell()
        stack.add(gluon.rnn.LSTMCell(8)); stack.add(gluon.rnn.GRUCell(4))
        stack.initialize()
        outs, states = stack.unroll(5, nd.ones((2, 5, 3)), merge_outputs=True)
        outs.shape, len(states)   # ((2, 5, 4), 3)
    """

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def add(self, cell):
        """Append a cell.

        Args:
            cell: the RecurrentCell to add (a HybridRecurrentCell for a
                HybridSequentialRNNCell).

        Example::

            stack = gluon.rnn.SequentialRNNCell()
            stack.add(gluon.rnn.LSTMCell(8))
            len(stack)   # 1
        """
        self.register_child(cell)

    def state_info(self, batch_size=0):
        """The state descriptions of every child cell, in order.

        Args:
            batch_size: the batch size the shapes start with (default 0: unknown).

        Returns:
            a list of dicts ``{'shape': ..., '__layout__': ...}``.

        Example::

            stack = gluon.rnn.SequentialRNNCell()
            stack.add(gluon.rnn.LSTMCell(8)); stack.add(gluon.rnn.GRUCell(4))
            [s['shape'] for s in stack.state_info(2)]   # [(2, 8), (2, 8), (2, 4)]
        """
        return [i for c in self._children.values() for i in c.state_info(batch_size)]

    def begin_state(self, **kwargs):
        """Initial states of every child cell, concatenated.

        Args:
            **kwargs: passed to each child's `begin_state` (batch_size, func, ...).

        Returns:
            a list of the states.

        Raises:
            ValueError: the cell is wrapped by a modifier cell.

        Example::

            stack = gluon.rnn.SequentialRNNCell()
            stack.add(gluon.rnn.LSTMCell(8)); stack.add(gluon.rnn.GRUCell(4))
            [s.shape for s in stack.begin_state(batch_size=2)]   # [(2, 8), (2, 8), (2, 4)]
        """
        _check_unmodified(self)
        return [s for c in self._children.values() for s in c.begin_state(**kwargs)]

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        """Unroll each cell in turn over the whole sequence (see RecurrentCell.unroll).

        Args:
            length: the number of steps.
            inputs: one array/Symbol laid out as `layout`, or a list of per-step arrays.
            begin_state: every child's initial states, concatenated (default: zeros).
            layout: 'NTC' (default) or 'TNC'.
            merge_outputs: the last cell's output form: True one stacked array, False a
                list per step, None the form of `inputs`.
            valid_length: optional (batch,) array of sequence lengths, given to every
                child's unroll.

        Returns:
            (outputs, final states of every child, concatenated).

        Raises:
            ValueError: as `RecurrentCell.unroll`.

        Example::

            stack = gluon.rnn.SequentialRNNCell()
            stack.add(gluon.rnn.RNNCell(8)); stack.add(gluon.rnn.RNNCell(4))
            stack.initialize()
            outs, states = stack.unroll(3, nd.ones((2, 3, 5)), merge_outputs=False)
            len(outs), outs[0].shape   # (3, (2, 4))
        """
        self.reset()
        inputs, _, F, batch_size = _format_sequence(length, inputs, layout, None)
        begin_state = _get_begin_state(self, F, begin_state, inputs, batch_size)
        cells = list(self._children.values())
        p, next_states = 0, []
        for i, cell in enumerate(cells):
            n = len(cell.state_info())
            inputs, states = cell.unroll(length, inputs, begin_state[p:p + n], layout,
                                         None if i < len(cells) - 1 else merge_outputs,
                                         valid_length=valid_length)
            p += n
            next_states.extend(states)
        return inputs, next_states

    def forward(self, inputs, states):
        self._counter += 1
        states = _check_states(self, states)
        return _run_stack(self._children.values(), inputs, states)

    def __getitem__(self, i):
        return list(self._children.values())[i]

    def __len__(self):
        return len(self._children)


class HybridSequentialRNNCell(HybridRecurrentCell):
    """`SequentialRNNCell` whose step can be hybridized.

    Args:
        prefix: the prefix of the cell's name and parameter names (default None: made from
            the class name, e.g. ``lstm0_``).
        params: a ParameterDict whose parameters the cell shares (default None: its own).

    Inputs:
        - **inputs**: one step's input, (N, C).
        - **states**: every child's states, concatenated in order.

    Outputs:
        - **output**: the last child's output.
        - **new_states**: every child's new states, concatenated.

    Example::

        stack = gluon.rnn.HybridSequentialRNNCell()
        stack.add(gluon.rnn.LSTMCell(8)); stack.add(gluon.rnn.LSTMCell(8))
        stack.initialize(); stack.hybridize()
        out, states = stack(nd.ones((2, 4)), stack.begin_state(batch_size=2))
        out.shape   # (2, 8)
    """

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    add = SequentialRNNCell.add
    state_info = SequentialRNNCell.state_info
    begin_state = SequentialRNNCell.begin_state
    unroll = SequentialRNNCell.unroll
    __getitem__ = SequentialRNNCell.__getitem__
    __len__ = SequentialRNNCell.__len__

    _np_passthrough = True  # children get what was given

    def hybrid_forward(self, F, inputs, states):
        return _run_stack(self._children.values(), inputs, states)
