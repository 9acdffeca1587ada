"""Which NDArray results share memory with their input, as in MXNet 1.9.1 (checked there):
the methods `reshape`, `expand_dims/squeeze/flatten(inplace=True)` and first-axis basic
indexing give views; every `nd.*` operator call gives a new array. Also the small NDArray
behaviours MXNet's test_ndarray.py relies on: `out=` of the creation functions, the truth
value of an empty array, assigning a size-1 array to one element, `py_slice`, and
`from_numpy` of an array locked by an earlier zero-copy call."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, nd


def _base():
    return nd.arange(6)


@pytest.mark.parametrize("make", [
    lambda x: nd.reshape(x, shape=(2, 3)),
    lambda x: nd.expand_dims(x, axis=0),
    lambda x: nd.squeeze(x.reshape((1, 6))),
    lambda x: nd.Flatten(x.reshape((2, 3))),
    lambda x: nd.identity(x),
    lambda x: x.expand_dims(0),
    lambda x: x.squeeze(),
    lambda x: x.reshape((2, 3)).flatten(),
], ids=["nd.reshape", "nd.expand_dims", "nd.squeeze", "nd.Flatten", "nd.identity",
        "expand_dims", "squeeze", "flatten"])
def test_operator_results_are_new_arrays(make):
    x = _base()
    y = make(x)
    x[:] = -1
    assert np.array_equal(y.asnumpy().ravel(), np.arange(6, dtype=np.float32))


@pytest.mark.parametrize("make", [
    lambda x: x.reshape((2, 3)),
    lambda x: x.reshape(3, -1),
    lambda x: x.expand_dims(0, inplace=True),
    lambda x: x.reshape((1, 6)).squeeze(inplace=True),
    lambda x: x.reshape((2, 3)).flatten(inplace=True),
    lambda x: x[1:4],
], ids=["reshape", "reshape_codes", "expand_dims", "squeeze", "flatten", "slice"])
def test_views_share_memory(make):
    x = _base()
    y = make(x)
    x[:] = -1
    assert (y.asnumpy() == -1).all()


def test_reshape_of_an_array_with_a_gradient_is_a_view_outside_record():
    x = _base()
    x.attach_grad()
    y = x.reshape((2, 3))
    x[:] = -1
    assert (y.asnumpy() == -1).all()


def test_reshape_shapes_and_errors():
    x = nd.zeros((2, 3, 4))
    assert x.reshape((0, -1)).shape == (2, 12)
    assert x.reshape((-3, 4)).shape == (6, 4)
    assert x.reshape((-1, 0), reverse=True).shape == (6, 4)
    with pytest.raises(ValueError, match="reshape"):
        x.reshape((5, 5))


def test_reshape_is_recorded_inside_record():
    x = nd.arange(6)
    x.attach_grad()
    with autograd.record():
        y = (x.reshape((2, 3)) * nd.array([[1, 2, 3]])).sum()
    y.backward()
    assert np.array_equal(x.grad.asnumpy(), [1, 2, 3, 1, 2, 3])


@pytest.mark.parametrize("fn,fill", [(nd.zeros, 0.0), (nd.ones, 1.0),
                                     (lambda s, **k: nd.full(s, 2.5, **k), 2.5)])
def test_creation_out_fills_and_returns_it(fn, fill):
    out = nd.array([[7, 7], [7, 7]])
    res = fn((2, 2), out=out)
    assert res is out
    assert np.array_equal(out.asnumpy(), np.full((2, 2), fill, np.float32))


def test_creation_out_shape_mismatch_names_function():
    with pytest.raises(ValueError, match=r"ones: out has shape \(3,\)"):
        nd.ones((2, 2), out=nd.zeros((3,)))


def test_truth_value():
    assert not bool(nd.array([]))
    assert not bool(nd.zeros((1,)))
    assert bool(nd.ones((1, 1)))
    with pytest.raises(ValueError, match="ambiguous"):
        bool(nd.ones((2,)))


def test_assign_size_one_array_to_an_element():
    b = nd.zeros(1)
    b[0] = np.array([47.844944], dtype=np.float32)
    assert b.asnumpy()[0] == np.float32(47.844944)
    m = nd.zeros((2, 3))
    m[1, 2] = nd.array([5])
    m[0, 1] = np.array([[3.0]])
    assert np.array_equal(m.asnumpy(), [[0, 3, 0], [0, 0, 5]])
    with pytest.raises(ValueError, match="__setitem__"):
        m[0, 0] = np.array([1.0, 2.0])


def test_py_slice_is_the_builtin():
    from gluonlite.ndarray.ndarray import py_slice
    assert py_slice is slice


def test_from_numpy_twice_shares_and_writes():
    a = np.array([[1, 2], [3, 4]], dtype=np.float32)
    first = nd.from_numpy(a)
    second = nd.from_numpy(a)  # a is read-only after the first call
    second[1, 0] = 100
    assert a[1, 0] == 100 and first.asnumpy()[1, 0] == 100
    assert not a.flags.writeable
    with pytest.raises(ValueError):
        a[0, 0] = 1


def test_from_numpy_of_a_locked_view_refuses():
    base = np.zeros(4, np.float32)
    base.flags.writeable = False
    with pytest.raises(ValueError, match="from_numpy: zero_copy=True"):
        nd.from_numpy(base[:2])
    assert mx.nd.from_numpy(base[:2], zero_copy=False).shape == (2,)
