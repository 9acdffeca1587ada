"""`BidirectionalCell`: one cell unrolled forward in time and another backward, their outputs
joined feature-wise (MXNet 1.x semantics and node names)."""
from .rnn_cell import (HybridRecurrentCell, SequentialRNNCell, _format_sequence,
                       _get_begin_state, _is_tensor, _mask_sequence_variable_length,
                       _reverse_sequences)

__all__ = ["BidirectionalCell"]


class BidirectionalCell(HybridRecurrentCell):
    """Run `l_cell` over the sequence and `r_cell` over it reversed, and concatenate their
    outputs at each step (l first); the states are l_cell's followed by r_cell's.

    With `valid_length`, r_cell reads each sequence reversed within its own length (padding
    stays at the end), and outputs past a sequence's length are zeros. A BidirectionalCell
    has no single step: use `unroll`.

    Args:
        l_cell: the cell run forward in time.
        r_cell: the cell run backward in time.
        output_prefix: the prefix of the output nodes (``bi_t0``, ... or ``bi_out``).

    Shape: inputs (N, T, C) ('NTC') -> outputs (N, T, Hl + Hr).

    Example::

        bi = gluon.rnn.BidirectionalCell(gluon.rnn.LSTMCell(8, prefix='l0_'),
                                         gluon.rnn.LSTMCell(8, prefix='r0_'))
        bi.initialize()
        out, states = bi.unroll(5, nd.ones((2, 5, 4)), merge_outputs=True)
        out.shape   # (2, 5, 16)
    """

    def __init__(self, l_cell, r_cell, output_prefix="bi_"):
        super().__init__(prefix="", params=None)
        self.register_child(l_cell, "l_cell")
        self.register_child(r_cell, "r_cell")
        self._output_prefix = output_prefix

    def __call__(self, inputs, states):
        raise TypeError(f"{self.name or 'BidirectionalCell'}: a BidirectionalCell cannot be "
                        "stepped (its backward cell needs the whole sequence); call "
                        "unroll() instead")

    def __repr__(self):
        return (f"{self.__class__.__name__}(forward={self._children['l_cell']!r}, "
                f"backward={self._children['r_cell']!r})")

    # l_cell's states followed by r_cell's
    state_info = SequentialRNNCell.state_info
    begin_state = SequentialRNNCell.begin_state

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        """Unroll both directions over `length` steps (see `RecurrentCell.unroll`).

        Args:
            length: the number of steps.
            inputs: one array/Symbol laid out as `layout`, or a list of per-step arrays.
            begin_state: l_cell's initial states followed by r_cell's (default: zeros).
            layout: 'NTC' (default) or 'TNC'.
            merge_outputs: True -> one stacked output; False -> a list per step; None ->
                the form of `inputs`.
            valid_length: optional (batch,) array of sequence lengths; r_cell then reads
                each sequence reversed within its length, and outputs past it are zeros.

        Raises:
            ValueError: as `RecurrentCell.unroll`.

        Returns:
            (outputs, l_cell's final states + r_cell's final states); r_cell's final
            states are those after it has read each sequence's first step.

        Example::

            bi = gluon.rnn.BidirectionalCell(gluon.rnn.GRUCell(3), gluon.rnn.GRUCell(3))
            bi.initialize()
            outs, states = bi.unroll(4, nd.ones((2, 4, 5)), valid_length=nd.array([4, 2]))
            outs.shape, len(states)   # ((2, 4, 6), 2)
        """
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, False)
        reversed_inputs = _reverse_sequences(F, inputs, valid_length)
        states = _get_begin_state(self, F, begin_state, inputs, batch_size)
        l_cell, r_cell = self._children.values()
        n_left = len(l_cell.state_info(batch_size))
        l_outputs, l_states = l_cell.unroll(length, inputs, begin_state=states[:n_left],
                                            layout=layout, merge_outputs=merge_outputs,
                                            valid_length=valid_length)
        r_outputs, r_states = r_cell.unroll(length, reversed_inputs,
                                            begin_state=states[n_left:], layout=layout,
                                            merge_outputs=False, valid_length=valid_length)
        r_outputs = _reverse_sequences(F, r_outputs, valid_length)
        if merge_outputs is None:
            merge_outputs = _is_tensor(l_outputs)
        if merge_outputs:
            l_outputs, _, _, _ = _format_sequence(length, l_outputs, layout, True)
            outputs = F.concat(l_outputs, F.stack(*r_outputs, axis=axis), dim=2,
                               name=f"{self._output_prefix}out")
        else:
            l_outputs, _, _, _ = _format_sequence(length, l_outputs, layout, False)
            outputs = [F.concat(lo, ro, dim=1, name=f"{self._output_prefix}t{i}")
                       for i, (lo, ro) in enumerate(zip(l_outputs, r_outputs))]
        if valid_length is not None:
            outputs = _mask_sequence_variable_length(F, outputs, length, valid_length, axis,
                                                     merge_outputs)
        return outputs, l_states + r_states
