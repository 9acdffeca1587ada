"""NDArray handles as MXNet code uses them through ctypes: ``ctypes.cast(array,
NDArrayHandle)`` gives a handle, ``NDArray(handle)`` the array back (MXNet's monitor
callbacks and `mx.monitor` are written so)."""
import ctypes
import gc

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd, sym
from gluonlite.base import NDArrayHandle, py_str
from gluonlite.ndarray import NDArray


def test_a_handle_gives_back_the_array_sharing_its_data():
    x = nd.array([1.0, 2.0, 3.0])
    h = ctypes.cast(x, NDArrayHandle)
    assert isinstance(h, ctypes.c_void_p) and h.value == ctypes.cast(x, NDArrayHandle).value
    y = NDArray(h)
    y[:] = 5
    np.testing.assert_array_equal(x.asnumpy(), [5, 5, 5])
    ro = NDArray(h, writable=False)
    np.testing.assert_array_equal(ro.asnumpy(), [5, 5, 5])
    with pytest.raises(ValueError, match="read-only"):
        ro[:] = 1


def test_a_handle_of_nothing_is_refused():
    x = nd.ones((2,))
    key = ctypes.cast(x, NDArrayHandle).value
    del x
    gc.collect()
    with pytest.raises(ValueError, match="stands for no object"):
        NDArray(ctypes.c_void_p(key))
    s = sym.var("x")
    from gluonlite import c_api
    with pytest.raises(ValueError, match="stands for a Symbol, not an NDArray"):
        NDArray(ctypes.c_void_p(c_api.handle_of(s)))


def test_a_monitor_callback_written_as_mxnet_writes_it():
    # MXNet 1.9.1's test_operator.py::test_monitor_with_variable_input_shape's callback
    seen = {}

    def callback(name, arr):
        arr = NDArray(ctypes.cast(arr, NDArrayHandle), writable=False)
        seen[py_str(name)] = float(nd.min(arr).asscalar())

    y = sym.Convolution(sym.var("data"), kernel=(1, 1), num_filter=1, name="conv")
    exe = y.simple_bind(mx.cpu(), grad_req="null", data=(1, 2, 3, 3))
    exe.arg_dict["data"][:] = np.arange(18.0).reshape(1, 2, 3, 3) + 1
    exe.arg_dict["conv_weight"][:] = 1
    exe.arg_dict["conv_bias"][:] = 0.5
    exe.set_monitor_callback(callback, monitor_all=True)
    exe.forward()
    assert seen == {"data": 1.0, "conv_data": 1.0, "conv_weight": 1.0, "conv_bias": 0.5,
                    "conv_output": 11.5}


def test_operator_star_import_gives_mxnets_ctypes_names():
    names = {}
    exec("from gluonlite.operator import *", names)
    assert names["ctypes"] is ctypes and names["NDArrayHandle"] is ctypes.c_void_p
    assert names["NDArray"] is NDArray and names["CustomOp"] is mx.operator.CustomOp
