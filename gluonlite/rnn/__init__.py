"""`mx.rnn`: MXNet 1.x's symbolic RNN cells, built on `gluonlite.sym`, and what trains them
by buckets.

A cell called on a step's input Symbol and its state Symbols returns the step's output and
new states; `unroll` runs it over a sequence, `begin_state` makes the first states, and
`RNNParams` lets cells share their weight variables (``i2h_weight``, ``h2h_bias`` ...).
The step arithmetic (gate order, GRU's reset applied to the projected state) is that of
`gluon.rnn`'s cells, so both give the same numbers for the same weights.

Files: `rnn_cell` (step cells, stacks, dropout), `modifier_cell` (residual, zoneout,
bidirectional), `fused_cell` (one `RNN` node), `conv_rnn_cell`, `io` (`encode_sentences`,
`BucketSentenceIter`), `rnn` (checkpoints).

Example::

    import gluonlite as mx
    cell = mx.rnn.LSTMCell(8, prefix="lstm_")
    outputs, states = cell.unroll(5, mx.sym.var("data"), layout="TNC", merge_outputs=True)
    outputs.list_arguments()
    # ['data', 'lstm_i2h_weight', 'lstm_i2h_bias', 'lstm_h2h_weight', 'lstm_h2h_bias']
"""
from ..io import DataBatch, DataDesc, DataIter
from ..model import load_checkpoint, save_checkpoint
from . import io
from .conv_rnn_cell import BaseConvRNNCell, ConvGRUCell, ConvLSTMCell, ConvRNNCell
from .fused_cell import FusedRNNCell
from .io import BucketSentenceIter, encode_sentences
from .modifier_cell import BidirectionalCell, ModifierCell, ResidualCell, ZoneoutCell
from .rnn import do_rnn_checkpoint, load_rnn_checkpoint, rnn_unroll, save_rnn_checkpoint
from .rnn_cell import (RNNParams, BaseRNNCell, RNNCell, LSTMCell, GRUCell, SequentialRNNCell,
                       DropoutCell)

__all__ = ["RNNParams", "BaseRNNCell", "RNNCell", "LSTMCell", "GRUCell", "SequentialRNNCell",
           "DropoutCell", "ModifierCell", "ResidualCell", "ZoneoutCell", "BidirectionalCell",
           "FusedRNNCell", "BaseConvRNNCell", "ConvRNNCell", "ConvLSTMCell", "ConvGRUCell",
           "encode_sentences", "BucketSentenceIter", "rnn_unroll", "save_rnn_checkpoint",
           "load_rnn_checkpoint", "do_rnn_checkpoint", "load_checkpoint", "save_checkpoint",
           "DataBatch", "DataDesc", "DataIter", "io"]
