"""`mx.executor_manager`: MXNet's module of the batch-splitting helper for data parallelism.

MXNet 1.9.1 keeps ``_split_input_slice`` here (InsightFace's training scripts import it);
gluonlite's Module uses the same rule from `gluonlite.module.executor_group`.

Example::

    from mxnet.executor_manager import _split_input_slice
    _split_input_slice(5, [1, 1])      # [slice(0, 2), slice(2, 5)]
"""
from .module.executor_group import split_input_slice as _split_input_slice  # noqa: F401

__all__ = []
