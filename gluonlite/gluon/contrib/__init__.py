"""`gluon.contrib`: MXNet 1.x's contributed Gluon blocks (`contrib.rnn`: LSTMPCell,
VariationalDropoutCell)."""
from . import rnn
from . import data

__all__ = ["rnn", "data"]
