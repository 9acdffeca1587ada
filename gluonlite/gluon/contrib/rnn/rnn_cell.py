"""MXNet 1.x's contrib recurrent cells: `LSTMPCell` (an LSTM whose output is projected to a
smaller size) and `VariationalDropoutCell` (one dropout mask per sequence), and
`dynamic_unroll`, which runs a cell over a sequence as one `foreach` loop."""
from ...rnn.modifier_cells import ModifierCell, check_steppable
from ...rnn.rnn_cell import (HybridRecurrentCell, _format_sequence, _get_begin_state,
                             _is_sym, _is_tensor, _lstm_update, _masked_sequence)

__all__ = ["LSTMPCell", "VariationalDropoutCell"]


class VariationalDropoutCell(ModifierCell):
    """Variational dropout (Gal and Ghahramani, 2016) on a base cell: the same dropout mask
    at every step of a sequence, one for the inputs, one for the first state (h) and one for
    the outputs (not shared with each other).

    The masks are drawn at the first step and kept until `reset()` (which `unroll` calls);
    stepping the cell by hand, call `reset()` between sequences. Without state dropout,
    `unroll` applies the input and output masks to the whole sequence at once (dropout
    shared along the time axis).

    Args:
        base_cell: the cell to wrap.
        drop_inputs: the dropout rate of the inputs (default 0.: none).
        drop_states: the dropout rate of the first state, h (default 0.: none).
        drop_outputs: the dropout rate of the outputs (default 0.: none).

    Inputs:
        - **inputs**: one step's input, (N, C).
        - **states**: the base cell's states.

    Outputs:
        - **output**: the base cell's output, with output dropout.
        - **new_states**: the base cell's new states.

    Raises:
        ValueError: state dropout on a cell that is or holds a BidirectionalCell.

    Example::

        cell = gluon.contrib.rnn.VariationalDropoutCell(gluon.rnn.LSTMCell(8), drop_inputs=0.2)
        cell.initialize()
        outs, states = cell.unroll(4, nd.ones((2, 4, 3)), merge_outputs=True)
        outs.shape   # (2, 4, 8)
    """

    def __init__(self, base_cell, drop_inputs=0., drop_states=0., drop_outputs=0.):
        if drop_states:
            check_steppable("VariationalDropoutCell", base_cell,
                            "which has no step for state dropout")
        super().__init__(base_cell)
        self.drop_inputs = drop_inputs
        self.drop_states = drop_states
        self.drop_outputs = drop_outputs
        self._clear_masks()

    def _alias(self):
        return "vardrop"

    def _clear_masks(self):
        self.drop_inputs_mask = None
        self.drop_states_mask = None
        self.drop_outputs_mask = None

    def reset(self):
        """Forget the masks: the next step draws new ones.

        Example::

            cell = gluon.contrib.rnn.VariationalDropoutCell(gluon.rnn.GRUCell(4), drop_states=0.5)
            cell.initialize()
            with autograd.train_mode():
                out, states = cell(nd.ones((2, 3)), cell.begin_state(batch_size=2))   # draws masks
            cell.reset()   # the next sequence draws new masks
        """
        super().reset()
        self._clear_masks()

    def __repr__(self):
        return (f"{self.__class__.__name__}(p_out = {self.drop_outputs}, "
                f"p_state = {self.drop_states})")

    @staticmethod
    def _mask(F, mask, p, like):
        # A mask made by another kind of run (a traced graph's Symbol in an imperative step,
        # or the other way round) cannot be reused: draw a new one.
        if mask is None or _is_sym(mask) != _is_sym(like):
            mask = F.Dropout(F.ones_like(like), p=p)
        return mask

    def hybrid_forward(self, F, inputs, states):
        if self.drop_states:
            self.drop_states_mask = self._mask(F, self.drop_states_mask, self.drop_states,
                                               states[0])
            states = [states[0] * self.drop_states_mask] + list(states[1:])
        if self.drop_inputs:
            self.drop_inputs_mask = self._mask(F, self.drop_inputs_mask, self.drop_inputs,
                                               inputs)
            inputs = inputs * self.drop_inputs_mask
        output, next_states = self.base_cell(inputs, states)
        if self.drop_outputs:
            self.drop_outputs_mask = self._mask(F, self.drop_outputs_mask, self.drop_outputs,
                                                output)
            output = output * self.drop_outputs_mask
        return output, next_states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        """See `RecurrentCell.unroll`. Without state dropout the base cell is unrolled on the
        whole sequence, between dropout on the inputs and on the outputs whose masks are
        shared along the time axis.

        Args:
            length: the number of steps.
            inputs: one array/Symbol laid out as `layout`, or a list of per-step arrays.
            begin_state: the base cell's initial states (default None: zeros).
            layout: 'NTC' (default) or 'TNC'.
            merge_outputs: True -> one stacked output; False -> a list per step; None ->
                the form of `inputs`.
            valid_length: optional (batch,) array of sequence lengths; outputs past a
                sequence's length are zeros.

        Returns:
            (outputs, the base cell's final states).

        Raises:
            ValueError: as `RecurrentCell.unroll`.

        Example::

            cell = gluon.contrib.rnn.VariationalDropoutCell(gluon.rnn.GRUCell(4), drop_outputs=0.3)
            cell.initialize()
            with autograd.record():   # training: one output mask shared by every step
                outs, states = cell.unroll(5, nd.ones((2, 5, 3)), merge_outputs=True)
            outs.shape   # (2, 5, 4)
        """
        if self.drop_states:
            return super().unroll(length, inputs, begin_state, layout, merge_outputs,
                                  valid_length=valid_length)
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, True)
        states = _get_begin_state(self, F, begin_state, inputs, batch_size)
        if self.drop_inputs:
            inputs = F.Dropout(inputs, p=self.drop_inputs, axes=(axis,))
        outputs, states = self.base_cell.unroll(length, inputs, states, layout,
                                                merge_outputs=True, valid_length=valid_length)
        if self.drop_outputs:
            outputs = F.Dropout(outputs, p=self.drop_outputs, axes=(axis,))
        if merge_outputs is None:
            merge_outputs = _is_tensor(outputs)
        outputs, _ = _masked_sequence(length, outputs, layout, merge_outputs, valid_length)
        return outputs, states


class LSTMPCell(HybridRecurrentCell):
    """LSTM with a recurrent projection (LSTMP, Sak et al., 2014)::

        i, f, g, o = split(W_ih x + b_ih + W_rh r + b_rh, 4)   (r: the previous output)
        c' = sigmoid(f) * c + sigmoid(i) * tanh(g)
        h  = sigmoid(o) * tanh(c')
        r' = W_hr h                                              (no bias)

    Parameters: ``i2h_weight`` (4H, C), ``h2h_weight`` (4H, P), ``h2r_weight`` (P, H),
    ``i2h_bias``, ``h2h_bias`` (4H,).

    Args:
        hidden_size: H, the cell state's size.
        projection_size: P, the output's size.
        i2h_weight_initializer: the initializer of ``i2h_weight`` (default None: the
            global initializer).
        h2h_weight_initializer: the initializer of ``h2h_weight`` (default None: the
            global initializer).
        h2r_weight_initializer: the initializer of ``h2r_weight`` (default None: the
            global initializer).
        i2h_bias_initializer: the initializer of ``i2h_bias`` (default 'zeros').
        h2h_bias_initializer: the initializer of ``h2h_bias`` (default 'zeros').
        input_size: C (0: inferred).
        prefix: the prefix of the cell's name and parameter names (default None:
            ``lstmp0_`` style).
        params: a ParameterDict whose parameters the cell shares (default None: its own).

    Inputs:
        - **inputs**: one step's input, (N, C).
        - **states**: [r (N, P), c (N, H)].
        - **i2h_weight**, **h2h_weight**, **h2r_weight**, **i2h_bias**, **h2h_bias**: the
          cell's parameters, passed in by ``forward``.

    Outputs:
        - **output**: r', (N, P).
        - **new_states**: [r', c'].

    Shape: x (N, C), states [r (N, P), c (N, H)] -> output r' (N, P), [r', c'].

    Example::

        cell = gluon.contrib.rnn.LSTMPCell(16, projection_size=8); cell.initialize()
        out, (r, c) = cell(nd.ones((2, 4)), cell.begin_state(batch_size=2))
        out.shape, c.shape   # ((2, 8), (2, 16))
    """

    def __init__(self, hidden_size, projection_size, i2h_weight_initializer=None,
                 h2h_weight_initializer=None, h2r_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0,
                 prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._hidden_size = hidden_size
        self._input_size = input_size
        self._projection_size = projection_size
        self._activation, self._recurrent_activation = "tanh", "sigmoid"
        g = 4 * hidden_size

        def param(name, shape, init):
            return self.params.get(name, shape=shape, init=init, allow_deferred_init=True)

        self.i2h_weight = param("i2h_weight", (g, input_size), i2h_weight_initializer)
        self.h2h_weight = param("h2h_weight", (g, projection_size), h2h_weight_initializer)
        self.h2r_weight = param("h2r_weight", (projection_size, hidden_size),
                                h2r_weight_initializer)
        self.i2h_bias = param("i2h_bias", (g,), i2h_bias_initializer)
        self.h2h_bias = param("h2h_bias", (g,), h2h_bias_initializer)

    def state_info(self, batch_size=0):
        """[r (N, P), c (N, H)], layout NC.

        Args:
            batch_size: N (default 0: unknown).

        Returns:
            a list of two dicts ``{'shape': ..., '__layout__': 'NC'}``.

        Example::

            cell = gluon.contrib.rnn.LSTMPCell(16, projection_size=8)
            [s['shape'] for s in cell.state_info(batch_size=2)]   # [(2, 8), (2, 16)]
        """
        return [{"shape": (batch_size, self._projection_size), "__layout__": "NC"},
                {"shape": (batch_size, self._hidden_size), "__layout__": "NC"}]

    def _alias(self):
        return "lstmp"

    def __repr__(self):
        shape = self.i2h_weight.shape
        return (f"{self.__class__.__name__}({shape[1] if shape[1] else None} -> {shape[0]} -> "
                f"{self._projection_size})")

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, h2r_weight, i2h_bias,
                       h2h_bias):
        prefix = f"t{self._counter}_"
        n = 4 * self._hidden_size
        i2h = F.FullyConnected(inputs, i2h_weight, i2h_bias, num_hidden=n, name=prefix + "i2h")
        h2h = F.FullyConnected(states[0], h2h_weight, h2h_bias, num_hidden=n,
                               name=prefix + "h2h")
        hidden, next_c = _lstm_update(self, F, F.elemwise_add(i2h, h2h, name=prefix + "plus0"),
                                      states[1], prefix, "hidden")
        next_r = F.FullyConnected(hidden, h2r_weight, num_hidden=self._projection_size,
                                  no_bias=True, name=prefix + "out")
        return next_r, [next_r, next_c]


def dynamic_unroll(cell, inputs, begin_state, drop_inputs=0, drop_outputs=0, layout="TNC",
                   valid_length=None):
    """Run `cell` over every step of `inputs` with `contrib.foreach`: one loop operator
    (one graph node holding the cell as its body when hybridized), where `cell.unroll` makes
    one set of nodes per step. MXNet 1.9.1's `gluon.contrib.rnn.rnn_cell.dynamic_unroll`.

    Args:
        cell: a recurrent cell (`gluon.rnn.RNNCell`, `LSTMCell`, `GRUCell`, a modifier
            cell, ...); called as ``cell(x_t, states) -> (out_t, new_states)``.
        inputs: one NDArray or Symbol laid out as `layout`, or a list of per-step (N, C)
            arrays (stacked first).
        begin_state: the list of initial states; None: the cell's zero states.
        drop_inputs: the dropout rate of the inputs (default 0: none); the mask is drawn
            once per sequence and shared by its steps, in either layout.
        drop_outputs: the dropout rate of the outputs (default 0: none), with a mask shared
            by the steps as for `drop_inputs`.
        layout: 'TNC' (the loop's own layout: no transpose) or 'NTC'.
        valid_length: None, or the (N,) lengths of the sequences (each <= the number of
            steps). A sequence's states stop changing after its last valid step, and its
            outputs past it are 0.

    Returns:
        (outputs laid out as `layout`, the list of final states).

    Raises:
        ValueError: a layout without 'T' and 'N', or no inputs.

    Example:
        >>> cell = gluon.rnn.LSTMCell(5); cell.initialize()            # doctest: +SKIP
        >>> x = nd.random.normal(shape=(3, 2, 4))                      # doctest: +SKIP
        >>> h = [nd.zeros((2, 5)), nd.zeros((2, 5))]                   # doctest: +SKIP
        >>> out, states = dynamic_unroll(cell, x, h, valid_length=nd.array([2, 3]))
        >>> out.shape, out[2, 0].sum().asscalar()                      # doctest: +SKIP
        ((3, 2, 5), 0.0)
    """
    inputs, axis, F, batch_size = _format_sequence(None, inputs, layout, True)
    states = list(_get_begin_state(cell, F, begin_state, inputs, batch_size))
    swap = list(range(len(layout)))
    swap[0], swap[axis] = axis, 0  # exchanging two axes is its own inverse
    if axis != 0:
        inputs = F.transpose(inputs, axes=swap)
    # time is axis 0 from here on: a dropout mask with that axis shared is one per sequence
    # (MXNet 1.9.1 shares it along its layout's time axis index, the batch axis for 'NTC')
    if drop_inputs:
        inputs = F.Dropout(inputs, p=drop_inputs, axes=(0,))
    n = len(states)
    if valid_length is None:
        body = cell
    else:
        def body(x, loop_states):
            old, step = loop_states[:n], loop_states[n]
            out, new = cell(x, list(old))
            going = F.broadcast_greater(valid_length, step)  # (N,): still inside
            kept = [F.where(going, s_new, s_old) for s_new, s_old in zip(new, old)]
            return out, kept + [step + 1]
        # the step counter, (1,) in valid_length's dtype (MXNet's float32 zeros fail to
        # compare with lengths of any other dtype)
        states.append(F.slice_axis(F.zeros_like(valid_length), axis=0, begin=0, end=1))
    outputs, states = F.contrib.foreach(body, inputs, states)
    if drop_outputs:
        outputs = F.Dropout(outputs, p=drop_outputs, axes=(0,))
    if valid_length is not None:
        outputs = F.SequenceMask(outputs, sequence_length=valid_length,
                                 use_sequence_length=True, axis=0)
        states = states[:n]
    if axis != 0:
        outputs = F.transpose(outputs, axes=swap)
    return outputs, list(states)
