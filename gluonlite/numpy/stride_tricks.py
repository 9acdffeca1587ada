"""`mx.np.stride_tricks`: MXNet 1.9.1's module of `broadcast_arrays`: `mx.np`'s own."""
from ._manipulation import broadcast_arrays

__all__ = ["broadcast_arrays"]
