"""Cells that change another cell's step (MXNet 1.x's modifier cells) and `DropoutCell`.

A modifier cell wraps a base cell and shares its parameters (``params`` is the base cell's);
once wrapped, the base cell refuses `begin_state` (call the modifier instead), as in MXNet.
"""
import numbers

from .rnn_cell import (HybridRecurrentCell, _format_sequence, _is_sym, _is_tensor,
                       _masked_sequence)
from ... import ndarray as nd_mod
from .bidirectional_cell import BidirectionalCell

__all__ = ["DropoutCell", "ModifierCell", "ZoneoutCell", "ResidualCell"]


class DropoutCell(HybridRecurrentCell):
    """Dropout on the input of each step; a cell without states.

    Args:
        rate: the probability of zeroing an entry (in training).
        axes: axes along which one mask is shared (``()``: an independent mask per entry).
        prefix: the prefix of the cell's name (default None: ``dropout0_`` style).
        params: a ParameterDict to share (the cell has no parameters).

    Shape: x (N, C) -> output (N, C); states [] -> [].

    Inputs:
        - **inputs**: one step's input (or the whole sequence in `unroll`).
        - **states**: the (empty) list of states, passed through.

    Outputs:
        - **output**: `inputs` with dropout applied, the same shape.
        - **states**: `states`, unchanged.

    Raises:
        TypeError: `rate` is not a number.

    Example::

        stack = gluon.rnn.SequentialRNNCell()
        stack.add(gluon.rnn.LSTMCell(8)); stack.add(gluon.rnn.DropoutCell(0.5))
        stack.initialize()
        outs, states = stack.unroll(3, nd.ones((2, 3, 4)), merge_outputs=True)
        outs.shape   # (2, 3, 8)
    """

    def __init__(self, rate, axes=(), prefix=None, params=None):
        if isinstance(rate, bool) or not isinstance(rate, numbers.Real):
            raise TypeError(f"DropoutCell: rate must be a number, got {type(rate).__name__}")
        super().__init__(prefix, params)
        self._rate = rate
        self._axes = axes

    def __repr__(self):
        return f"{self.__class__.__name__}(rate={self._rate}, axes={self._axes})"

    def state_info(self, batch_size=0):
        """A DropoutCell has no states: ``[]``.

        Args:
            batch_size: ignored (default 0).

        Returns:
            an empty list.

        Example::

            gluon.rnn.DropoutCell(0.5).state_info(batch_size=2)   # []
        """
        return []

    def _alias(self):
        return "dropout"

    def hybrid_forward(self, F, inputs, states):
        if self._rate > 0:
            inputs = F.Dropout(inputs, p=self._rate, axes=self._axes,
                               name=f"t{self._counter}_fwd")
        return inputs, states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        """Dropout on the whole sequence at once when it comes (or is wanted) as one array,
        else step by step. As in MXNet, `valid_length` is accepted and padded steps are not
        masked (the cells after this one mask them). See `RecurrentCell.unroll`.

        Args:
            length: the number of steps.
            inputs: one array/Symbol laid out as `layout`, or a list of per-step arrays.
            begin_state: the (empty) states (default None: ``[]``).
            layout: 'NTC' (default) or 'TNC'.
            merge_outputs: True -> one array; False -> a list per step; None -> the form of
                `inputs`.
            valid_length: accepted and not used for masking (see above).

        Returns:
            (outputs, states).

        Raises:
            ValueError: as `RecurrentCell.unroll`.

        Example::

            drop = gluon.rnn.DropoutCell(0.5)
            outs, states = drop.unroll(3, nd.ones((2, 3, 4)))   # identity outside training
            outs.shape, states   # ((2, 3, 4), [])
        """
        self.reset()
        inputs, _, F, _ = _format_sequence(length, inputs, layout, merge_outputs)
        if _is_tensor(inputs):
            return self.hybrid_forward(F, inputs, begin_state or [])
        return super().unroll(length, inputs, begin_state=begin_state, layout=layout,
                              merge_outputs=merge_outputs)


class ModifierCell(HybridRecurrentCell):
    """Base class of cells that wrap a `base_cell` and modify its step.

    The modifier's prefix is the base cell's prefix plus the modifier's alias, its parameters
    are the base cell's, and the base cell can no longer be used on its own.

    Args:
        base_cell: the RecurrentCell to wrap.

    Inputs:
        - **inputs**: one step's input, (N, C).
        - **states**: the base cell's states.

    Outputs:
        - **output**: the modified step output.
        - **new_states**: the (possibly modified) new states.

    Raises:
        ValueError: `base_cell` is already wrapped by another modifier.

    Example::

        class Scaled(gluon.rnn.ModifierCell):
            def hybrid_forward(self, F, inputs, states):
                out, states = self.base_cell(inputs, states)
                return out * 2, states
        cell = Scaled(gluon.rnn.RNNCell(4)); cell.initialize()
        out, _ = cell(nd.ones((1, 3)), cell.begin_state(batch_size=1))
    """

    def __init__(self, base_cell):
        if base_cell._modified:
            raise ValueError(f"{base_cell.name}: this cell is already wrapped by a modifier "
                             "cell; a cell can be modified only once")
        base_cell._modified = True
        super().__init__(prefix=base_cell.prefix + self._alias(), params=None)
        self.base_cell = base_cell

    @property
    def params(self):
        """The base cell's parameters.

        Example::

            base = gluon.rnn.GRUCell(4)
            cell = gluon.rnn.ResidualCell(base)
            cell.params is base.params   # True
        """
        return self.base_cell.params

    def state_info(self, batch_size=0):
        """The base cell's states.

        Args:
            batch_size: the batch size the shapes start with (default 0: unknown).

        Returns:
            the base cell's `state_info` list.

        Example::

            cell = gluon.rnn.ZoneoutCell(gluon.rnn.LSTMCell(8), 0.5, 0.2)
            len(cell.state_info(batch_size=2))   # 2: the LSTM's h and c
        """
        return self.base_cell.state_info(batch_size)

    def begin_state(self, func=None, **kwargs):
        """The base cell's initial states (see `RecurrentCell.begin_state`).

        Args:
            func: makes each state (default None: nd.zeros).
            **kwargs: passed to the base cell's `begin_state` (batch_size, ...).

        Returns:
            a list of the states.

        Raises:
            ValueError: this modifier is itself wrapped by another modifier.

        Example::

            cell = gluon.rnn.ResidualCell(gluon.rnn.GRUCell(4))
            [s.shape for s in cell.begin_state(batch_size=3)]   # [(3, 4)]
        """
        if self._modified:
            raise ValueError(f"{self.name}: this cell is wrapped by a modifier cell; call the "
                             "modifier cell instead")
        self.base_cell._modified = False
        try:
            return self.base_cell.begin_state(func=func or nd_mod.zeros, **kwargs)
        finally:
            self.base_cell._modified = True

    def hybrid_forward(self, F, inputs, states):
        raise NotImplementedError(f"{self.__class__.__name__} must define hybrid_forward()")

    def __repr__(self):
        return f"{self.__class__.__name__}({self.base_cell!r})"


def _bidirectional_inside(cell):
    if isinstance(cell, BidirectionalCell):
        return True
    return any(_bidirectional_inside(c) for c in cell._children.values())


def check_steppable(who, base_cell, why):
    """Raise ValueError when `base_cell` is or holds a BidirectionalCell, which `who` cannot
    step (`why` says what needs the step).

    Example::

        from gluonlite.gluon.rnn.modifier_cells import check_steppable
        bi = gluon.rnn.BidirectionalCell(gluon.rnn.GRUCell(4), gluon.rnn.GRUCell(4))
        try:
            check_steppable('MyCell', bi, 'which steps one input at a time')
        except ValueError as e:
            print(e)
    """
    if _bidirectional_inside(base_cell):
        raise ValueError(f"{who}: base_cell {base_cell.name!r} is or holds a "
                         f"BidirectionalCell, {why}; wrap the cells inside it instead")


class ZoneoutCell(ModifierCell):
    """Zoneout (Krueger et al., 2016) on a base cell: in training, each entry of the output
    and of each state keeps its previous value with probability `zoneout_outputs` /
    `zoneout_states` instead of taking the new one::

        out, new = base_cell(x, states)
        out'  = where(dropout_mask(p_out), out, previous out')   (zeros before step 0)
        new'  = where(dropout_mask(p_state), new, states)

    Outside training the masks keep everything: ZoneoutCell steps as its base cell.
    A hybridized ZoneoutCell traces step 0, whose previous output is zeros (as MXNet's).

    Args:
        base_cell: the RecurrentCell to wrap (not a BidirectionalCell).
        zoneout_outputs: the probability an output entry keeps its previous value
            (default 0.: no zoneout).
        zoneout_states: the probability a state entry keeps its previous value (default
            0.: no zoneout).

    Inputs:
        - **inputs**: one step's input, (N, C).
        - **states**: the base cell's states.

    Outputs:
        - **output**: the zoned-out output, (N, H).
        - **new_states**: the zoned-out states.

    Raises:
        ValueError: the base cell is or holds a BidirectionalCell (it cannot be stepped).

    Example::

        cell = gluon.rnn.ZoneoutCell(gluon.rnn.LSTMCell(8), 0.5, 0.2)
        cell.initialize()
        outs, states = cell.unroll(3, nd.ones((2, 3, 4)), merge_outputs=True)
        outs.shape   # (2, 3, 8)
    """

    def __init__(self, base_cell, zoneout_outputs=0., zoneout_states=0.):
        check_steppable("ZoneoutCell", base_cell, "which cannot be stepped")
        super().__init__(base_cell)
        self.zoneout_outputs = zoneout_outputs
        self.zoneout_states = zoneout_states
        self._prev_output = None

    def __repr__(self):
        return (f"{self.__class__.__name__}(p_out={self.zoneout_outputs}, "
                f"p_state={self.zoneout_states}, {self.base_cell!r})")

    def _alias(self):
        return "zoneout"

    def reset(self):
        """Forget the previous output before a new sequence.

        Example::

            cell = gluon.rnn.ZoneoutCell(gluon.rnn.GRUCell(4), 0.5); cell.initialize()
            out, states = cell(nd.ones((1, 2)), cell.begin_state(batch_size=1))
            cell.reset()   # the next step starts from a zero previous output
        """
        super().reset()
        self._prev_output = None

    def hybrid_forward(self, F, inputs, states):
        next_output, next_states = self.base_cell(inputs, states)

        def mask(p, like):
            return F.Dropout(F.ones_like(like), p=p)

        prev = self._prev_output
        # The previous output belongs to the run that made it: a graph traced after an
        # imperative step (or the other way round) starts from zeros.
        if prev is None or _is_sym(prev) != _is_sym(next_output):
            prev = F.zeros_like(next_output)
        output = (F.where(mask(self.zoneout_outputs, next_output), next_output, prev)
                  if self.zoneout_outputs != 0. else next_output)
        if self.zoneout_states != 0.:
            next_states = [F.where(mask(self.zoneout_states, new), new, old)
                           for new, old in zip(next_states, states)]
        self._prev_output = output
        return output, next_states


class ResidualCell(ModifierCell):
    """A residual connection around a base cell (Wu et al., 2016): the output is the base
    cell's output plus the step's input (their shapes must match); states are the base
    cell's.

    Args:
        base_cell: the RecurrentCell to wrap; its output size must equal its input size.

    Inputs:
        - **inputs**: one step's input, (N, C).
        - **states**: the base cell's states.

    Outputs:
        - **output**: base output + `inputs`, (N, C).
        - **new_states**: the base cell's new states.

    Example::

        cell = gluon.rnn.ResidualCell(gluon.rnn.GRUCell(50))   # input size must be 50
        cell.initialize()
        out, states = cell(nd.ones((2, 50)), cell.begin_state(batch_size=2))
        out.shape   # (2, 50)
    """

    def hybrid_forward(self, F, inputs, states):
        output, states = self.base_cell(inputs, states)
        return F.elemwise_add(output, inputs, name=f"t{self._counter}_fwd"), states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        """Unroll the base cell, then add the inputs to its outputs (padded steps of the
        inputs masked to zero when `valid_length` is given, so padding stays zero). See
        `RecurrentCell.unroll`.

        Args:
            length: the number of steps.
            inputs: one array/Symbol laid out as `layout`, or a list of per-step arrays.
            begin_state: the base cell's initial states (default: zeros).
            layout: 'NTC' (default) or 'TNC'.
            merge_outputs: True -> one stacked output; False -> a list per step; None ->
                the form the base cell's unroll returns.
            valid_length: optional (batch,) array of sequence lengths.

        Returns:
            (outputs, the base cell's final states).

        Raises:
            ValueError: as `RecurrentCell.unroll`.

        Example::

            cell = gluon.rnn.ResidualCell(gluon.rnn.RNNCell(4)); cell.initialize()
            outs, states = cell.unroll(3, nd.ones((2, 3, 4)), merge_outputs=True,
                                       valid_length=nd.array([3, 1]))
            outs.shape   # (2, 3, 4)
        """
        self.reset()
        self.base_cell._modified = False
        try:
            outputs, states = self.base_cell.unroll(length, inputs, begin_state=begin_state,
                                                    layout=layout, merge_outputs=merge_outputs,
                                                    valid_length=valid_length)
        finally:
            self.base_cell._modified = True
        if merge_outputs is None:
            merge_outputs = _is_tensor(outputs)
        inputs, F = _masked_sequence(length, inputs, layout, merge_outputs, valid_length)
        if merge_outputs:
            return F.elemwise_add(outputs, inputs), states
        return [F.elemwise_add(o, i) for o, i in zip(outputs, inputs)], states
