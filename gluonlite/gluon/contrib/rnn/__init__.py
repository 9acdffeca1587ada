"""`gluon.contrib.rnn`: the projected LSTM cell, variational dropout and the convolutional
RNN, LSTM and GRU cells (1-3 spatial axes)."""
from .conv_rnn_cell import (Conv1DGRUCell, Conv1DLSTMCell, Conv1DRNNCell, Conv2DGRUCell,
                            Conv2DLSTMCell, Conv2DRNNCell, Conv3DGRUCell, Conv3DLSTMCell,
                            Conv3DRNNCell)
from .rnn_cell import LSTMPCell, VariationalDropoutCell

__all__ = ["LSTMPCell", "VariationalDropoutCell",
           "Conv1DRNNCell", "Conv2DRNNCell", "Conv3DRNNCell",
           "Conv1DLSTMCell", "Conv2DLSTMCell", "Conv3DLSTMCell",
           "Conv1DGRUCell", "Conv2DGRUCell", "Conv3DGRUCell"]
