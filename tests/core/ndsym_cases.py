"""Cases shared by `tests/fixtures/make_ndsym.py` (which runs them on MXNet 1.9.1 and writes
the results to `tests/fixtures/ndsym/expected.json`) and the gluonlite tests that compare
against those results. Each case is a function of the module under test (``mxnet`` or
``gluonlite``), returning an NDArray; an exception is an expected result too."""
import numpy as np


def _x(mx):
    return mx.nd.array(np.arange(60).reshape(3, 4, 5))


def _m(mx):
    return mx.nd.array(np.arange(12).reshape(3, 4))


# ---- __getitem__ ------------------------------------------------------------------------
GETITEM = {
    "int": lambda mx: _x(mx)[1],
    "negative_int": lambda mx: _x(mx)[-1],
    "ints": lambda mx: _x(mx)[1, 2],
    "int_every_axis": lambda mx: _x(mx)[1, 2, 3],
    "slice": lambda mx: _x(mx)[1:3],
    "reversed": lambda mx: _x(mx)[::-1],
    "step_2": lambda mx: _x(mx)[:, 0:4:2],
    "negative_step": lambda mx: _x(mx)[:, 3:0:-2],
    "none": lambda mx: _x(mx)[None, 1],
    "ellipsis": lambda mx: _x(mx)[..., 1],
    "int_ellipsis_none": lambda mx: _x(mx)[1, ..., None],
    "slices_none_reversed": lambda mx: _x(mx)[1:, None, ::-1],
    "int_none_int": lambda mx: _x(mx)[0, None, 0],
    "list": lambda mx: _x(mx)[[0, 2]],
    "nested_list": lambda mx: _x(mx)[[[0, 1], [1, 2]]],
    "ndarray": lambda mx: _x(mx)[mx.nd.array([0, 2])],
    "int32_ndarray": lambda mx: _x(mx)[mx.nd.array([2, 0], dtype="int32")],
    "float_ndarray_truncated": lambda mx: _m(mx)[mx.nd.array([0.7, 1.2])],
    "negative_list": lambda mx: _m(mx)[[-1]],
    "negative_ndarray": lambda mx: _m(mx)[mx.nd.array([-1])],
    "numpy_int_array": lambda mx: _x(mx)[np.array([0, 2])],
    "numpy_bool_array_as_ints": lambda mx: _x(mx)[np.array([True, False, True])],
    "list_of_bools_as_ints": lambda mx: _x(mx)[[True, False, True]],
    "tuple_of_lists": lambda mx: _x(mx)[[0, 1], [1, 2]],
    "slice_list_int": lambda mx: _x(mx)[:, [0, 2], 1],
    "int_list": lambda mx: _x(mx)[1, [0, 2]],
    "lists_split_by_slice": lambda mx: _x(mx)[[0, 1], :, [1, 2]],
    "tuple_of_ndarrays": lambda mx: _x(mx)[mx.nd.array([0, 1]), mx.nd.array([1, 2])],
    "ndarray_and_int": lambda mx: _m(mx)[mx.nd.array([1]), 2],
    "int32_data_lists": lambda mx: mx.nd.array(np.arange(12).reshape(3, 4),
                                              dtype="int32")[[1, 2], [0, 0]],
    "out_of_range_int": lambda mx: _x(mx)[5],
    "out_of_range_list": lambda mx: _m(mx)[[0, 5]],
    "out_of_range_in_tuple": lambda mx: _m(mx)[[0, 5], [0, 1]],
    "float_key": lambda mx: _x(mx)[1.0],
    "bool_ndarray": lambda mx: _x(mx)[mx.nd.array([1, 0, 1], dtype="bool")],
}


# ---- __setitem__ (each returns the array after the assignment) --------------------------
def _assigned(key, value):
    def case(mx):
        y = _m(mx)
        k = key(mx) if callable(key) else key
        y[k] = value(mx) if callable(value) else value
        return y
    return case


SETITEM = {
    "list_scalar": _assigned([0, 2], 5),
    "tuple_of_lists": _assigned(([0, 2], [1, 3]), lambda mx: mx.nd.array([7, 8])),
    "broadcast_column": _assigned((slice(None), [0, 2]),
                                  lambda mx: mx.nd.array([[1], [2], [3]])),
    "negative_step": _assigned((slice(None, None, -1), 1), lambda mx: mx.nd.array([1, 2, 3])),
    "float64_value": _assigned(1, lambda mx: mx.nd.array([1, 2, 3, 4], dtype="float64")),
    "numpy_value": _assigned(slice(1, None), np.array([1, 2, 3, 4])),
    "none": _assigned((None, 1), 3),
    "ellipsis": _assigned((Ellipsis, 1), 3),
    "ndarray_rows": _assigned(lambda mx: mx.nd.array([0, 1]),
                              lambda mx: mx.nd.array([[9] * 4, [8] * 4])),
    "int_int": _assigned((1, 2), 100),
    "repeated_rows_last_wins": _assigned([0, 0], lambda mx: mx.nd.array([[1] * 4, [2] * 4])),
    "shape_mismatch": _assigned(slice(None), lambda mx: mx.nd.ones((2, 4))),
}


# ---- gradients through indexing (each returns the gradient of the indexed array) --------
def _grad(index, scale):
    def case(mx):
        a = _m(mx)
        a.attach_grad()
        with mx.autograd.record():
            b = index(mx, a) * scale
        b.backward()
        return a.grad
    return case


GRADIENT = {
    "repeated_pairs": _grad(lambda mx, a: a[[0, 0, 2], [1, 1, 3]], 2),
    "negative_step_slice": _grad(lambda mx, a: a[1:, ::-2], 3),
    "none_and_list": _grad(lambda mx, a: a[:, None, [1, 2]], 1),
    "repeated_rows": _grad(lambda mx, a: a[mx.nd.array([2, 2])], 1),
    "int_then_slice": _grad(lambda mx, a: a[1][1:3], 5),
}


# ---- dtypes: arithmetic between arrays and with scalars ---------------------------------
def _a(mx, dtype, values=(1, 2, 3)):
    return mx.nd.array(list(values), dtype=dtype)


DTYPES = {
    "int32_plus_1.5": lambda mx: _a(mx, "int32") + 1.5,
    "int32_times_2.5": lambda mx: _a(mx, "int32") * 2.5,
    "int32_div_2": lambda mx: _a(mx, "int32") / 2,
    "1_div_int32": lambda mx: 1 / _a(mx, "int32"),
    "int32_pow_0.5": lambda mx: _a(mx, "int32") ** 0.5,
    "int32_pow_-1": lambda mx: _a(mx, "int32") ** -1,
    "2_pow_int32": lambda mx: 2 ** _a(mx, "int32"),
    "int32_mod_2": lambda mx: _a(mx, "int32") % 2,
    "int32_eq_2": lambda mx: _a(mx, "int32") == 2,
    "int32_gt_1.5": lambda mx: _a(mx, "int32") > 1.5,
    "int32_times_True": lambda mx: _a(mx, "int32") * True,
    "int32_maximum_1.5": lambda mx: mx.nd.maximum(_a(mx, "int32"), 1.5),
    "int8_plus_1": lambda mx: _a(mx, "int8", (127, 2, -3)) + 1,
    "uint8_minus_5": lambda mx: _a(mx, "uint8") - 5,
    "uint8_minus_300": lambda mx: _a(mx, "uint8", (250, 2, 3)) - 300,
    "neg_uint8": lambda mx: -_a(mx, "uint8"),
    "float16_times_2.5": lambda mx: _a(mx, "float16") * 2.5,
    "bool_plus_1": lambda mx: _a(mx, "bool", (1, 0, 1)) + 1,
    "bool_times_2.5": lambda mx: _a(mx, "bool", (1, 0, 1)) * 2.5,
    "bool_eq_1": lambda mx: _a(mx, "bool", (1, 0, 1)) == 1,
    "1_minus_bool": lambda mx: 1 - _a(mx, "bool", (1, 0, 1)),
    "neg_bool": lambda mx: -_a(mx, "bool", (1, 0, 1)),
    "sqrt_int32": lambda mx: mx.nd.sqrt(_a(mx, "int32", (1, 5, 9))),
    "exp_int32": lambda mx: mx.nd.exp(_a(mx, "int32")),
    "log_uint8": lambda mx: mx.nd.log(_a(mx, "uint8", (200, 1, 3))),
    "sigmoid_int32": lambda mx: mx.nd.sigmoid(_a(mx, "int32", (7, -7, 3))),
    "cos_int8": lambda mx: mx.nd.cos(_a(mx, "int8", (0, 3, -1))),
    "int32_sum": lambda mx: _a(mx, "int32").sum(),
    "int32_mean": lambda mx: _a(mx, "int32").mean(),
    "float32_to_bool": lambda mx: _a(mx, "float32").astype("bool"),
    "uint8_plus_int32": lambda mx: _a(mx, "uint8") + _a(mx, "int32"),
    "float32_plus_float64": lambda mx: _a(mx, "float32") + _a(mx, "float64"),
    "float32_plus_float16": lambda mx: _a(mx, "float32") + _a(mx, "float16"),
    "int32_plus_int64": lambda mx: _a(mx, "int32") + _a(mx, "int64"),
    "float32_eq_float64": lambda mx: _a(mx, "float32") == _a(mx, "float64"),
    "elemwise_add_float32_float64": lambda mx: mx.nd.elemwise_add(_a(mx, "float32"),
                                                                  _a(mx, "float64")),
    "array_of_int_list": lambda mx: mx.nd.array([1, 2]),
    "array_of_int64_numpy": lambda mx: mx.nd.array(np.array([1, 2])),
    "array_of_bool_numpy": lambda mx: mx.nd.array(np.array([True, False])),
    "array_of_ndarray_keeps_dtype": lambda mx: mx.nd.array(_a(mx, "int8")),
    "zeros_default": lambda mx: mx.nd.zeros((2,)),
    "arange_default": lambda mx: mx.nd.arange(3),
}


def describe(f, mx):
    """The result of case `f` on module `mx` as plain data: {'dtype', 'shape', 'values'} or
    {'error': the exception class's name}."""
    try:
        a = f(mx).asnumpy()  # (MXNet reports some errors only when the values are read)
    except Exception as e:  # noqa: BLE001 - the error is the result being recorded
        return {"error": type(e).__name__}
    return {"dtype": np.dtype(a.dtype).name, "shape": list(a.shape),
            "values": a.astype(np.float64).ravel().tolist()}


# ---- mx.viz.print_summary ---------------------------------------------------------------
def summary_net(mx):
    """A small graph whose parameter counts MXNet's print_summary and gluonlite's agree on
    (FullyConnected, BatchNorm, a layer with two inputs)."""
    x = mx.sym.var("data")
    fc1 = mx.sym.FullyConnected(x, num_hidden=4, name="fc1")
    act = mx.sym.Activation(fc1, act_type="relu", name="relu1")
    bn = mx.sym.BatchNorm(act, name="bn")
    fc2 = mx.sym.FullyConnected(bn, num_hidden=4, name="fc2", no_bias=True)
    return mx.sym.elemwise_add(fc2, act, name="sum")


SUMMARIES = {"with_shape": {"shape": {"data": (2, 3)}},
             "narrow": {"shape": {"data": (2, 3)}, "line_length": 80}}
