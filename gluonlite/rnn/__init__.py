"""`mx.rnn`: MXNet 1.x's symbolic RNN cells, built on `gluonlite.sym`.

A cell called on a step's input Symbol and its state Symbols returns the step's output and
new states; `unroll` runs it over a sequence, `begin_state` makes the first states, and
`RNNParams` lets cells share their weight variables (``i2h_weight``, ``h2h_bias`` ...).
The step arithmetic (gate order, GRU's reset applied to the projected state) is that of
`gluon.rnn`'s cells, so both give the same numbers for the same weights.

Example::

    import gluonlite as mx
    cell = mx.rnn.LSTMCell(8, prefix="lstm_")
    outputs, states = cell.unroll(5, mx.sym.var("data"), layout="TNC", merge_outputs=True)
    outputs.list_arguments()
    # ['data', 'lstm_i2h_weight', 'lstm_i2h_bias', 'lstm_h2h_weight', 'lstm_h2h_bias']
"""
from .rnn_cell import (RNNParams, BaseRNNCell, RNNCell, LSTMCell, GRUCell, SequentialRNNCell,
                       DropoutCell)

__all__ = ["RNNParams", "BaseRNNCell", "RNNCell", "LSTMCell", "GRUCell", "SequentialRNNCell",
           "DropoutCell"]
