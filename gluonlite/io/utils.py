"""`mx.io.utils`: the helpers `NDArrayIter` reads its inputs with (MXNet 1.9.1's
``io/utils.py``): `_init_data` puts the inputs into a sorted list of (name, array),
`_getdata_by_idx` reorders their samples, `_has_instance` and `_slice_along_batch_axis`.
Private, as they are in MXNet; kept at MXNet's path for code that imports them from there."""
from collections import OrderedDict

import numpy as np

from ..ndarray import NDArray, array, sparse


def _init_data(data, allow_empty, default_name):
    """Normalise iterator inputs to a sorted list of (name, NDArray)."""
    if data is None:
        if not allow_empty:
            raise ValueError("NDArrayIter: data must be given")
        data = []
    if isinstance(data, (np.ndarray, NDArray)):
        data = [data]
    if isinstance(data, list):
        if not allow_empty and not data:
            raise ValueError("NDArrayIter: data must not be an empty list")
        if len(data) == 1:
            data = OrderedDict([(default_name, data[0])])
        else:
            data = OrderedDict([(f"_{i}_{default_name}", d) for i, d in enumerate(data)])
    if not isinstance(data, dict):
        raise TypeError(f"NDArrayIter: inputs must be an NDArray, a numpy.ndarray, a list of "
                        f"them or a dict with them as values, got {type(data).__name__}")
    out = []
    for k, v in data.items():
        if type(v).__name__ == "RowSparseNDArray":
            raise NotImplementedError(f"NDArrayIter: {k} is row_sparse; MXNet's NDArrayIter "
                                      f"takes dense and csr arrays only")
        if not isinstance(v, NDArray):
            try:
                v = array(v)
            except Exception as e:  # noqa: BLE001 (reported with the input's name)
                raise TypeError(f"NDArrayIter: invalid type {type(v).__name__} for {k}; "
                                f"expected NDArray or numpy.ndarray") from e
        out.append((k, v))
    return sorted(out, key=lambda kv: kv[0])


def _has_instance(data, dtype):
    """Whether an array of `data` (the (name, array) pairs of `_init_data`) is a `dtype`."""
    return any(isinstance(arr, dtype) for _, arr in data)


def _is_csr(v):
    return getattr(v, "stype", "default") == "csr"


def _getdata_by_idx(data, idx, axis=0):
    """`data` (the (name, array) pairs of `_init_data`) with each array's samples along `axis`
    in the order `idx`; a csr array (whose samples are its rows) stays csr."""
    out = []
    for k, v in data:
        if _is_csr(v):
            out.append((k, sparse.array(v.asscipy()[idx], ctx=v.context)))
        else:
            out.append((k, array(np.take(v.asnumpy(), idx, axis=axis), ctx=v.context,
                                 dtype=v.dtype)))
    return out


def _slice_along_batch_axis(data, s, batch_axis):
    """The samples ``s.start`` to ``s.stop`` (a slice) of array `data` along `batch_axis`."""
    return data.slice_axis(axis=batch_axis, begin=s.start, end=s.stop)
