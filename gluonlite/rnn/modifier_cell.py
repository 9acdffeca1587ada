"""Cells that wrap other cells (`mx.rnn.ModifierCell` and its kinds: `ResidualCell`,
`ZoneoutCell`) and `BidirectionalCell`, which runs two cells in opposite directions.

A wrapper owns no weights: its `params` are the wrapped cell's, and the wrapped cell names
the nodes and begin states.
"""
import numbers

from .. import symbol as sym
from .rnn_cell import BaseRNNCell, _CellGroup, _as_steps, _merged, _time_axis

__all__ = ["ModifierCell", "ResidualCell", "ZoneoutCell", "BidirectionalCell"]


def _check_cell(who, cell):
    if not isinstance(cell, BaseRNNCell):
        raise TypeError(f"{who}: the cell must be an mx.rnn cell, got {type(cell).__name__}")
    return cell


class ModifierCell(BaseRNNCell):
    """The base of cells that change what another cell computes (`ResidualCell`,
    `ZoneoutCell`): params, states and weight (un)packing are the wrapped cell's.

    Args:
        base_cell: the cell wrapped.

    Raises:
        TypeError: `base_cell` is not an mx.rnn cell.

    Example::

        class Scaled(mx.rnn.ModifierCell):   # doubles the wrapped cell's output
            def __call__(self, inputs, states):
                out, states = self.base_cell(inputs, states)
                return out * 2, states
        outs, states = Scaled(mx.rnn.GRUCell(4)).unroll(3, sym.var("x"), merge_outputs=True)
        outs.infer_shape(x=(2, 3, 5))[1]   # [(2, 3, 4)]
    """

    def __init__(self, base_cell):
        self.base_cell = _check_cell(type(self).__name__, base_cell)
        super().__init__(prefix="", params=None)
        self._own_params = False

    def reset(self):
        """Reset this cell's counters and the wrapped cell's.

        Example::

            cell = mx.rnn.ResidualCell(mx.rnn.GRUCell(4, prefix="g_"))
            cell.begin_state(); cell.reset()
            cell.begin_state()[0].name   # 'g_begin_state_0'
        """
        super().reset()
        if hasattr(self, "base_cell"):
            self.base_cell.reset()

    @property
    def params(self):
        """The wrapped cell's `RNNParams`.

        Example::

            cell = mx.rnn.ResidualCell(mx.rnn.GRUCell(4, prefix="g_"))
            sorted(cell.params._params)   # ['g_h2h_bias', 'g_h2h_weight', 'g_i2h_bias', ...]
        """
        return self.base_cell.params

    @property
    def state_info(self):
        """The wrapped cell's states.

        Example::

            mx.rnn.ResidualCell(mx.rnn.GRUCell(4)).state_info
            # [{'shape': (0, 4), '__layout__': 'NC'}]
        """
        return self.base_cell.state_info

    def begin_state(self, func=sym.zeros, **kwargs):
        """The wrapped cell's first states (see `BaseRNNCell.begin_state`).

        Args:
            func (callable): makes each state Symbol from its name and `state_info` (default
                `sym.zeros`; `sym.var` makes them graph inputs).

        Example::

            cell = mx.rnn.ZoneoutCell(mx.rnn.LSTMCell(4), zoneout_states=0.2)
            [s.name for s in cell.begin_state(func=sym.var)]
            # ['lstm_begin_state_0', 'lstm_begin_state_1']
        """
        return self.base_cell.begin_state(func=func, **kwargs)

    def unpack_weights(self, args):
        """The wrapped cell's `unpack_weights`.

        Args:
            args (dict of str to NDArray): the parameters by name (the cell's entries are
                replaced; the others are kept).

        Example::

            cell = mx.rnn.ResidualCell(mx.rnn.LSTMCell(2, prefix="l_"))
            args = {"l_i2h_weight": nd.ones((8, 2)), "l_i2h_bias": nd.zeros(8),
                    "l_h2h_weight": nd.ones((8, 2)), "l_h2h_bias": nd.zeros(8)}
            len(cell.unpack_weights(args))   # 16: 4 gates x (i2h, h2h) x (weight, bias)
        """
        return self.base_cell.unpack_weights(args)

    def pack_weights(self, args):
        """The wrapped cell's `pack_weights`.

        Args:
            args (dict of str to NDArray): the parameters by name (the cell's entries are
                replaced; the others are kept).

        Example::

            cell = mx.rnn.ResidualCell(mx.rnn.LSTMCell(2, prefix="l_"))
            args = {"l_i2h_weight": nd.ones((8, 2)), "l_i2h_bias": nd.zeros(8),
                    "l_h2h_weight": nd.ones((8, 2)), "l_h2h_bias": nd.zeros(8)}
            cell.pack_weights(cell.unpack_weights(args))["l_i2h_weight"].shape   # (8, 2)
        """
        return self.base_cell.pack_weights(args)

    def __call__(self, inputs, states):
        raise NotImplementedError(f"{type(self).__name__} does not define a step")


class ResidualCell(ModifierCell):
    """The wrapped cell's output plus its input (so both must have the same width).

    Args:
        base_cell: the cell wrapped.

    Example::

        cell = mx.rnn.ResidualCell(mx.rnn.GRUCell(50))   # for 50-wide inputs
        out, [h] = cell(sym.var("x"), [sym.var("h")])
    """

    def __call__(self, inputs, states):
        """One step: ``(cell output + inputs, cell states)``."""
        out, states = self.base_cell(inputs, states)
        return sym.elemwise_add(out, inputs, name=f"{out.name}_plus_residual"), states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        """The wrapped cell unrolled (see `BaseRNNCell.unroll`), each output plus its input.

        Args:
            length (int): the number of time steps.
            inputs (Symbol or list of Symbol): the whole sequence (split along the 'T' of
                `layout`) or a list of `length` step Symbols.
            begin_state (list of Symbol): the first states (default None: `begin_state()`).
            layout (str): 'NTC' (default) or 'TNC': where the time axis is.
            merge_outputs (bool): True: one Symbol stacked along the time axis; False or None
                (default): a list of step outputs.

        Example::

            cell = mx.rnn.ResidualCell(mx.rnn.GRUCell(4))
            outs, states = cell.unroll(3, sym.var("x"), merge_outputs=True)
            outs.infer_shape(x=(2, 3, 4))[1]   # [(2, 3, 4)]
        """
        self.reset()
        outputs, states = self.base_cell.unroll(length, inputs, begin_state=begin_state,
                                                layout=layout, merge_outputs=merge_outputs)
        axis = _time_axis(layout)
        merged = isinstance(outputs, sym.Symbol)
        if merged:
            if not isinstance(inputs, sym.Symbol):
                inputs = _merged(list(inputs), axis, True)
            return sym.elemwise_add(outputs, inputs, name=f"{outputs.name}_plus_residual"), \
                states
        steps = _as_steps(length, inputs, axis)
        return [sym.elemwise_add(o, x, name=f"{o.name}_plus_residual")
                for o, x in zip(outputs, steps)], states


class ZoneoutCell(ModifierCell):
    """Zoneout (Krueger et al. 2016): in training, each output and state element keeps its
    previous value with probability `zoneout_outputs` / `zoneout_states` instead of taking
    the new one; in inference the new value is kept.

    Args:
        base_cell: the cell wrapped.
        zoneout_outputs: the probability of keeping the previous output, in [0, 1).
        zoneout_states: the probability of keeping the previous states, in [0, 1).

    Raises:
        ValueError: a probability outside [0, 1).
        TypeError: `base_cell` is not an mx.rnn cell.

    Example::

        cell = mx.rnn.ZoneoutCell(mx.rnn.RNNCell(100), zoneout_outputs=0.5)
        outs, states = cell.unroll(3, sym.var("x"), merge_outputs=True)
    """

    def __init__(self, base_cell, zoneout_outputs=0., zoneout_states=0.):
        for what, p in (("zoneout_outputs", zoneout_outputs),
                        ("zoneout_states", zoneout_states)):
            if not isinstance(p, numbers.Real) or not 0 <= p < 1:
                raise ValueError(f"ZoneoutCell: {what} must be a number in [0, 1), got {p!r}")
        super().__init__(base_cell)
        self.zoneout_outputs = float(zoneout_outputs)
        self.zoneout_states = float(zoneout_states)
        self.prev_output = None

    def reset(self):
        """Reset the counters and forget the previous output.

        Example::

            cell = mx.rnn.ZoneoutCell(mx.rnn.RNNCell(4), zoneout_outputs=0.5)
            cell.unroll(2, sym.var("x"))
            cell.reset(); cell.prev_output   # None
        """
        super().reset()
        self.prev_output = None

    def __call__(self, inputs, states):
        """One step of the wrapped cell with zoneout applied."""
        out, new_states = self.base_cell(inputs, states)

        def keep_new(p, like):
            # Dropout of ones is 0 where dropped (keep the old value), 1/(1-p) elsewhere
            return sym.Dropout(sym.ones_like(like), p=p)
        prev = self.prev_output if self.prev_output is not None else sym.zeros_like(out)
        if self.zoneout_outputs:
            out = sym.where(keep_new(self.zoneout_outputs, out), out, prev)
        if self.zoneout_states:
            new_states = [sym.where(keep_new(self.zoneout_states, n), n, o)
                          for n, o in zip(new_states, states)]
        self.prev_output = out
        return out, new_states


class BidirectionalCell(_CellGroup):
    """Two cells over the sequence, `l_cell` forwards and `r_cell` backwards; each step's
    output is the two outputs concatenated (left first). Only `unroll` is defined: a step
    needs the whole sequence.

    Args:
        l_cell, r_cell: the forward and backward cells.
        params: unused (the cells own their weights); kept for MXNet's signature.
        output_prefix: names the outputs ``output_prefix + 't%d'`` (or ``'out'`` merged).

    Raises:
        TypeError: a cell that is not an mx.rnn cell.

    Example::

        bi = mx.rnn.BidirectionalCell(mx.rnn.LSTMCell(8, prefix="l_"),
                                      mx.rnn.LSTMCell(8, prefix="r_"))
        outs, states = bi.unroll(5, mx.sym.var("x"), merge_outputs=True)
        outs.infer_shape(x=(2, 5, 3))[1]   # [(2, 5, 16)]
    """

    def __init__(self, l_cell, r_cell, params=None, output_prefix="bi_"):
        super().__init__(prefix="", params=params)
        self._cells = [_check_cell("BidirectionalCell", l_cell),
                       _check_cell("BidirectionalCell", r_cell)]
        self._output_prefix = output_prefix
        self._params._params.update(l_cell.params._params)
        self._params._params.update(r_cell.params._params)

    def __call__(self, inputs, states):
        raise NotImplementedError("BidirectionalCell cannot be stepped; use unroll (the "
                                  "backward cell needs the whole sequence)")

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        """Run both cells (see `BaseRNNCell.unroll`); outputs concatenated per step; the
        final states as ``[left_states, right_states]``.

        Args:
            length (int): the number of time steps.
            inputs (Symbol or list of Symbol): the whole sequence (split along the 'T' of
                `layout`) or a list of `length` step Symbols.
            begin_state (list of Symbol): the first states (default None: `begin_state()`).
            layout (str): 'NTC' (default) or 'TNC': where the time axis is.
            merge_outputs (bool): True: one Symbol stacked along the time axis; False or None
                (default): a list of step outputs.

        Example::

            bi = mx.rnn.BidirectionalCell(mx.rnn.GRUCell(3, prefix="l_"),
                                          mx.rnn.GRUCell(3, prefix="r_"))
            outs, (l_states, r_states) = bi.unroll(5, sym.var("x"), merge_outputs=True)
            outs.infer_shape(x=(2, 5, 4))[1]   # [(2, 5, 6)]
        """

        self.reset()
        axis = _time_axis(layout)
        steps = _as_steps(length, inputs, axis)
        states = self.begin_state() if begin_state is None else list(begin_state)
        l_cell, r_cell = self._cells
        n_l = len(l_cell.state_info)
        l_out, l_states = l_cell.unroll(length, steps, begin_state=states[:n_l],
                                        layout=layout, merge_outputs=False)
        r_out, r_states = r_cell.unroll(length, list(reversed(steps)),
                                        begin_state=states[n_l:], layout=layout,
                                        merge_outputs=False)
        outputs = [sym.Concat(lo, ro, dim=1, name=f"{self._output_prefix}t{i}")
                   for i, (lo, ro) in enumerate(zip(l_out, reversed(r_out)))]
        if merge_outputs:
            outputs = _merged(outputs, axis, True)
        # nested, as MXNet returns them: [left cell's states, right cell's states]
        return outputs, [l_states, r_states]
