"""`nd._internal` / `sym._internal` with the region assignment operators (`_slice_assign`,
`_crop_assign`, ..., values as MXNet 1.9.1 gives them), MXNet's `nd.CachedOp(sym, flags)`,
and arrays of a graph freed by backward counting as constants (as in MXNet)."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, nd, sym
from gluonlite.base import MXNetError


def test_slice_assign_values():
    x = nd.array(np.arange(24).reshape(2, 3, 4))
    z = nd.array(-np.arange(8).reshape(2, 1, 4))
    y = nd._internal._slice_assign(x, z, begin=(None, 1), end=(None, 2))
    expect = np.arange(24.0).reshape(2, 3, 4)
    expect[:, 1:2] = -np.arange(8).reshape(2, 1, 4)
    assert np.array_equal(y.asnumpy(), expect)
    assert x.asnumpy()[0, 1, 1] == 5  # a new array: x is unchanged
    s = nd._internal._slice_assign_scalar(x, scalar=7, begin=(1, 0, 1), end=(2, 3, 4),
                                          step=(1, 2, 2))
    expect = np.arange(24.0).reshape(2, 3, 4)
    expect[1:2, 0:3:2, 1:4:2] = 7
    assert np.array_equal(s.asnumpy(), expect)


def test_crop_assign_in_place_with_out():
    x = nd.ones((2, 3, 4))
    nd._internal._crop_assign(x, nd.zeros((2, 1, 3)), begin=(0, 0, 0), end=(2, 1, 3), out=x)
    expect = np.ones((2, 3, 4), np.float32)
    expect[:, :1, :3] = 0
    assert np.array_equal(x.asnumpy(), expect)
    nd._internal._crop_assign_scalar(x, scalar=5, begin=(0, 0, 0), end=(2, 1, 3), out=x)
    expect[:, :1, :3] = 5
    assert np.array_equal(x.asnumpy(), expect)


def test_slice_assign_shape_error_names_operator():
    with pytest.raises(MXNetError, match=r"_slice_assign: rhs of shape \(2, 2\) does not fit "
                                         r"the region \(2, 1\)"):
        nd._internal._slice_assign(nd.zeros((3, 3)), nd.zeros((2, 2)), begin=(0, 0),
                                   end=(2, 1))


def test_slice_assign_gradient_and_symbol():
    x, v = nd.array(np.arange(6).reshape(2, 3)), nd.array([[10, 20]])
    x.attach_grad()
    v.attach_grad()
    w = nd.array([[1, 2, 3], [4, 5, 6]])
    with autograd.record():
        (nd._slice_assign(x, v, begin=(1, 0), end=(2, 2)) * w).sum().backward()
    assert np.array_equal(x.grad.asnumpy(), [[1, 2, 3], [0, 0, 6]])
    assert np.array_equal(v.grad.asnumpy(), [[4, 5]])
    s = sym._internal._slice_assign(sym.var("x"), sym.var("v"), begin=(1, 0), end=(2, 2))
    assert s.infer_shape(x=(2, 3))[0] == [(2, 3), (1, 2)]
    out = s.eval(mx.cpu(), x=x, v=v)[0]
    assert np.array_equal(out.asnumpy(), [[0, 1, 2], [10, 20, 5]])
    assert sym._internal._plus_scalar is sym._plus_scalar


def test_nd_cached_op():
    graph = sym.Convolution(kernel=(3, 3), num_filter=2, name="c") + 2
    op = nd.CachedOp(graph)
    data, weight, bias = nd.ones((1, 1, 4, 4)), nd.ones((2, 1, 3, 3)), nd.array([0, 1])
    o1 = op(data, weight, bias)
    assert isinstance(o1, nd.NDArray) and o1.shape == (1, 2, 2, 2)
    assert np.array_equal(o1.asnumpy()[0, :, 0, 0], [11, 12])
    out = nd.zeros((1, 2, 2, 2))
    assert op(data, weight, bias, out=out) is out
    assert np.array_equal(out.asnumpy(), o1.asnumpy())
    x = sym.var("x")
    two = nd.CachedOp(sym.Group([x * 2, x + 1]),
                      flags=[("static_alloc", "true"), ("forward_bulk_size", 16)])
    a, b = two(nd.array([1, 2]))
    assert np.array_equal(a.asnumpy(), [2, 4]) and np.array_equal(b.asnumpy(), [2, 3])
    with pytest.raises(ValueError, match=r"CachedOp: unknown flag\(s\) \['bogus'\]"):
        nd.CachedOp(graph, flags={"bogus": 1})
    with pytest.raises(ValueError, match="CachedOp: out has 1 arrays for 2 outputs"):
        two(nd.array([1, 2]), out=nd.zeros((2,)))


def test_arrays_of_a_freed_graph_are_constants():
    x = nd.ones((2,))
    x.attach_grad()
    with autograd.record():
        y = x * 3
    y.backward()
    with autograd.record():
        z = (y * x).sum()
    z.backward()
    assert np.array_equal(x.grad.asnumpy(), [3, 3])  # y is a constant 3 now
    with pytest.raises(MXNetError, match="freed by a previous backward"):
        y.backward()
