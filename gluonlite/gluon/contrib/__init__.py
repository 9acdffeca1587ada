"""`gluon.contrib`: MXNet 1.x's contributed Gluon blocks (`contrib.rnn`: LSTMPCell,
VariationalDropoutCell; `contrib.nn`: Concurrent, HybridConcurrent, Identity, SyncBatchNorm,
PixelShuffle1D/2D/3D; `contrib.cnn`: DeformableConvolution, ModulatedDeformableConvolution;
`contrib.data`: IntervalSampler; `contrib.estimator`: Estimator and its
event handlers)."""
from . import cnn, data, estimator, nn, rnn

__all__ = ["cnn", "data", "estimator", "nn", "rnn"]
