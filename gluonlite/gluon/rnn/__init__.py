"""`gluon.rnn`: recurrent cells and multi-layer recurrent layers."""
from .rnn_cell import (RecurrentCell, HybridRecurrentCell, RNNCell, LSTMCell, GRUCell,
                       SequentialRNNCell, HybridSequentialRNNCell)
from .rnn_layer import RNN, LSTM, GRU

__all__ = ["RecurrentCell", "HybridRecurrentCell", "RNNCell", "LSTMCell", "GRUCell",
           "SequentialRNNCell", "HybridSequentialRNNCell", "RNN", "LSTM", "GRU"]
