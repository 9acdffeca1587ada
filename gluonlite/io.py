"""`gluonlite.io`: the batch containers MXNet 1.x's `Module` reads (`DataBatch`, `DataDesc`).
Gluon's own data loading is `gluon.data`."""
from collections import namedtuple

import numpy as np

__all__ = ["DataDesc", "DataBatch"]


class DataDesc(namedtuple("DataDesc", ["name", "shape"])):
    """The name and shape of one input (and its dtype and layout): a ``(name, shape)`` tuple.

    Args:
        name: the input's name in the symbol.
        shape: its shape.
        dtype: its dtype (default float32).
        layout: what each axis means (default 'NCHW'; 'N' marks the batch axis).

    Example: ``DataDesc('data', (32, 10, 2), layout='NTC')``.
    """

    def __new__(cls, name, shape, dtype=np.float32, layout="NCHW"):
        ret = super().__new__(cls, name, tuple(shape))
        ret.dtype = dtype
        ret.layout = layout
        return ret

    def __repr__(self):
        return f"DataDesc[{self.name},{self.shape},{self.dtype},{self.layout}]"

    @staticmethod
    def get_batch_axis(layout):
        """The batch axis of `layout` (0 when None, -1 when it has no 'N')."""
        return 0 if layout is None else layout.find("N")


class DataBatch:
    """One batch for `Module.forward`: lists of data and label arrays, in the module's
    `data_names` and `label_names` order.

    Args:
        data: a list of NDArrays.
        label: a list of NDArrays, or None.
        pad: examples padded at the end of the batch.
        index, bucket_key, provide_data, provide_label: kept as given.

    Raises:
        TypeError: `data` or `label` is not a list or tuple.

    Example: ``mod.forward(io.DataBatch([nd.ones((4, 10, 2))]))``.
    """

    def __init__(self, data, label=None, pad=None, index=None, bucket_key=None,
                 provide_data=None, provide_label=None):
        for what, value in (("data", data), ("label", label)):
            if value is not None and not isinstance(value, (list, tuple)):
                raise TypeError(f"DataBatch: {what} must be a list of NDArrays, got "
                                f"{type(value).__name__}")
        self.data = data
        self.label = label
        self.pad = pad
        self.index = index
        self.bucket_key = bucket_key
        self.provide_data = provide_data
        self.provide_label = provide_label

    def __str__(self):
        labels = [lb.shape for lb in self.label] if self.label else None
        return (f"{self.__class__.__name__}: data shapes: {[d.shape for d in self.data]} "
                f"label shapes: {labels}")
