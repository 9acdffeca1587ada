"""`mx.io`: MXNet 1.x's data iterators (`NDArrayIter`, `CSVIter`, `MNISTIter`, `ResizeIter`,
`PrefetchingIter`) and the batch containers `Module` reads (`DataBatch`, `DataDesc`).
Gluon's own data loading is `gluon.data`; `mx.contrib.io.DataLoaderIter` joins the two."""
from .io import DataDesc, DataBatch, DataIter, ResizeIter, PrefetchingIter, NDArrayIter
from .native import (CSVIter, MNISTIter, LibSVMIter, MXDataIter, ImageRecordIter,
                     ImageRecordIter_v1, ImageRecordUInt8Iter, ImageRecordUInt8Iter_v1,
                     ImageRecordInt8Iter, ImageDetRecordIter)
# MXNet's mx.io has them (private)
from .utils import _init_data, _getdata_by_idx, _has_instance  # noqa: F401

__all__ = ["DataDesc", "DataBatch", "DataIter", "ResizeIter", "PrefetchingIter",
           "NDArrayIter", "CSVIter", "MNISTIter", "LibSVMIter", "MXDataIter",
           "ImageRecordIter", "ImageRecordIter_v1", "ImageRecordUInt8Iter",
           "ImageRecordUInt8Iter_v1", "ImageRecordInt8Iter", "ImageDetRecordIter"]
