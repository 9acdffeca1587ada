"""`gluon.contrib.rnn`: the projected LSTM cell and variational dropout."""
from .rnn_cell import LSTMPCell, VariationalDropoutCell

__all__ = ["LSTMPCell", "VariationalDropoutCell"]
