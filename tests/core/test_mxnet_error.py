"""MXNetError: the faults MXNet reports from its engine are caught by ``except MXNetError`` and
stay ValueError/TypeError (one class hierarchy); base's MXNet helpers."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, nd, ops
from gluonlite.base import (MXNetError, MXNetTypeError, MXNetValueError, _as_list,
                            integer_types, numeric_types, py_str, string_types)
from gluonlite.ops.registry import ShapeError


def _backward_twice():
    x = nd.ones((2,))
    x.attach_grad()
    with autograd.record():
        y = x * 2
    y.backward()
    y.backward()


@pytest.mark.parametrize("call,kind,pattern", [
    (lambda: nd.ones((2, 3)) + nd.ones((3, 2)), ValueError,
     r"broadcast_add: shapes \(2, 3\) and \(3, 2\) cannot be broadcast together"),
    (lambda: nd.ones((2, 3)).reshape((4,)), ValueError,
     r"reshape: cannot reshape \(2, 3\) into \(4,\): sizes 6 and 4 differ"),
    (lambda: nd.FullyConnected(nd.ones((2, 3)), nd.ones((4, 3)), no_bias=True,
                               num_hidden="abc"), ValueError,
     r"FullyConnected: argument num_hidden='abc'"),
    (lambda: nd.FullyConnected(nd.ones((2, 3)), nd.ones((4, 3)), no_bias=True), TypeError,
     r"FullyConnected: missing required argument 'num_hidden'"),
    (lambda: nd.softmax(nd.ones((2,)), foo=1), TypeError, r"softmax: unknown argument 'foo'"),
    (lambda: nd.elemwise_add(nd.ones((2,)), nd.ones((2,), dtype="float64")), TypeError,
     r"elemwise_add: input 'lhs' has dtype float32 but input 'rhs' has dtype float64"),
    (lambda: nd.take(nd.ones((2, 3)), nd.array([5]), mode="raise"), ValueError,
     r"take: an index is out of range \[0, 2\) with mode='raise'"),
    (lambda: nd.ones((2, 3)).copyto(nd.ones((3,))), ValueError,
     r"copyto: shape \(2, 3\) does not match the target's \(3,\)"),
    (lambda: nd.ones((2,)).backward(), ValueError,
     r"backward: the array was not computed under autograd.record\(\)"),
    (_backward_twice, ValueError, r"backward: the graph has been freed by a previous backward"),
    (lambda: ops.get("no_such_op"), ValueError, r"unknown operator 'no_such_op'"),
])
def test_engine_faults_are_mxnet_errors_and_stay_value_or_type_errors(call, kind, pattern):
    with pytest.raises(MXNetError, match=pattern) as e:
        call()
    assert isinstance(e.value, kind)
    assert isinstance(e.value, RuntimeError)  # MXNet's MXNetError is a RuntimeError


def test_one_hierarchy():
    assert mx.MXNetError is MXNetError
    assert issubclass(MXNetValueError, MXNetError) and issubclass(MXNetValueError, ValueError)
    assert issubclass(MXNetTypeError, MXNetError) and issubclass(MXNetTypeError, TypeError)
    assert issubclass(ShapeError, MXNetValueError)
    try:
        nd.ones((2,)) * nd.ones((3,))
    except MXNetError as first:
        caught = first
    with pytest.raises(ValueError) as again:
        raise caught
    assert again.value is caught


def test_user_argument_errors_stay_plain():
    # checks of Python-level arguments raise what MXNet's Python code raises, not MXNetError
    with pytest.raises(ValueError, match="asscalar") as e:
        nd.ones((2, 3)).asscalar()
    assert not isinstance(e.value, MXNetError)


def test_base_helpers():
    x = nd.ones((1,))
    assert _as_list(x) == [x]
    assert _as_list([x]) == [x]
    t = (x, x)
    assert _as_list(t) is t
    assert py_str(b"relu") == "relu" and py_str("relu") == "relu"
    assert isinstance("a", string_types) and not isinstance(b"a", string_types)
    assert isinstance(np.float32(1), numeric_types) and isinstance(3, numeric_types)
    assert isinstance(np.int64(3), integer_types) and not isinstance(3.0, integer_types)


def test_deferred_initialization_error_is_an_mxnet_error():
    from gluonlite import gluon
    net = gluon.nn.Dense(3)
    net.initialize()
    with pytest.raises(MXNetError, match=net.weight.name) as e:
        net.weight.data()
    assert isinstance(e.value, gluon.DeferredInitializationError)


def test_an_operator_without_attributes_ignores_extra_keywords_as_mxnet():
    # MXNet 1.9.1: nd.relu(x, foo=1) and broadcast_maximum(a, b, axis=1) run and ignore them
    x = nd.array([[-1.0, 2.0]])
    assert nd.relu(x, foo=1).asnumpy().tolist() == [[0.0, 2.0]]
    y = nd.broadcast_maximum(nd.array([0.0]), x, axis=1)
    assert y.asnumpy().tolist() == [[0.0, 2.0]]
    s = mx.sym.broadcast_maximum(mx.sym.var("a"), mx.sym.var("b"), axis=1)
    assert mx.sym.load_json(s.tojson()).tojson() == s.tojson()
