"""`gluon.contrib`: MXNet 1.x's contributed Gluon blocks (`contrib.rnn`: LSTMPCell,
VariationalDropoutCell; `contrib.nn`: Concurrent, HybridConcurrent, Identity, SyncBatchNorm,
PixelShuffle1D/2D/3D; `contrib.data`: IntervalSampler; `contrib.estimator`: Estimator and its
event handlers)."""
from . import data, estimator, nn, rnn

__all__ = ["data", "estimator", "nn", "rnn"]
