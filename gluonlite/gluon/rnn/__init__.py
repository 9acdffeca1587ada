"""`gluon.rnn`: recurrent cells, cells that modify or combine cells, and multi-layer recurrent
layers."""
from .rnn_cell import (RecurrentCell, HybridRecurrentCell, RNNCell, LSTMCell, GRUCell,
                       SequentialRNNCell, HybridSequentialRNNCell)
from .modifier_cells import DropoutCell, ModifierCell, ZoneoutCell, ResidualCell
from .bidirectional_cell import BidirectionalCell
from .rnn_layer import RNN, LSTM, GRU

__all__ = ["RecurrentCell", "HybridRecurrentCell", "RNNCell", "LSTMCell", "GRUCell",
           "SequentialRNNCell", "HybridSequentialRNNCell", "DropoutCell", "ModifierCell",
           "ZoneoutCell", "ResidualCell", "BidirectionalCell", "RNN", "LSTM", "GRU"]
