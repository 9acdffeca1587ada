"""`gluon.contrib.nn`: Concurrent, HybridConcurrent, Identity, SyncBatchNorm (BatchNorm on one
process), PixelShuffle1D/2D/3D, SparseEmbedding (row_sparse weight and gradient)."""
from .basic_layers import (Concurrent, HybridConcurrent, Identity, SparseEmbedding, SyncBatchNorm,
                           PixelShuffle1D, PixelShuffle2D, PixelShuffle3D)

__all__ = ["Concurrent", "HybridConcurrent", "Identity", "SparseEmbedding", "SyncBatchNorm",
           "PixelShuffle1D", "PixelShuffle2D", "PixelShuffle3D"]
