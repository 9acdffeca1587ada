"""Smaller NDArray behaviours of MXNet 1.9.1 (checked there) that its test_ndarray.py uses:
contiguous basic indexing gives views, `_basic_indexing_slice_is_contiguous`, MXNet's pickled
form ``{'handle': bytes}``, MXNetError for a truncated buffer, `moveaxis` with several axes,
a numpy vector as a shape attribute and a numpy type as a dtype choice."""
import itertools
import pickle

import numpy as np
import pytest

from gluonlite import autograd, nd
from gluonlite.base import MXNetError
from gluonlite.ndarray import NDArray

_SLICES = [slice(None), slice(2), slice(1, 4), slice(None, None, 2), slice(0, 1),
           slice(None, None, -1), slice(3, None, -2), slice(5, 2)]


def test_slice_is_contiguous_agrees_with_numpy():
    x = np.zeros((6, 7, 8))
    for key in itertools.product(_SLICES, repeat=3):
        assert NDArray._basic_indexing_slice_is_contiguous(key, x.shape) == \
            x[key].flags.c_contiguous, key
    with pytest.raises(ValueError, match="2 slices for a shape of 3 axes"):
        NDArray._basic_indexing_slice_is_contiguous((slice(None),) * 2, (1, 2, 3))


@pytest.mark.parametrize("key,shape", [
    ((slice(0, 1), slice(1, 4)), (1, 3, 5)),
    ((1, slice(1, 4)), (3, 5)),
    ((1, 2), (5,)),
    ((1, 2, 3), (1,)),
    ((slice(2, 3), 1, slice(None)), (1, 5)),
])
def test_contiguous_basic_index_is_a_view(key, shape):
    x = nd.array(np.arange(60).reshape(3, 4, 5))
    y = x[key]
    assert y.shape == shape
    y[:] = -1
    assert (x.asnumpy()[key] == -1).all()
    assert (x.asnumpy() == -1).sum() == int(np.prod(shape))


def test_non_contiguous_index_is_a_copy_and_recorded_index_is_not_a_view():
    x = nd.array(np.arange(60).reshape(3, 4, 5))
    y = x[:, 1:3]
    y[:] = -1
    assert (x.asnumpy() >= 0).all()
    w = nd.array(np.arange(6).reshape(2, 3))
    w.attach_grad()
    with autograd.record():
        z = w[1, 1:3] * 2
    z.backward()
    assert np.array_equal(w.grad.asnumpy(), [[0, 0, 0], [0, 2, 2]])


def test_pickle_state_is_mxnets():
    x = nd.array([[1, 2], [3, 4]], dtype="int32")
    state = x.__getstate__()
    # the bytes MXNet 1.9.1's __getstate__ gives for this array
    assert bytes(state["handle"]) == (
        b"\xc9\xfa\x93\xf9" + b"\x00" * 4 + b"\x02\x00\x00\x00" + b"\x02" + b"\x00" * 7 +
        b"\x02" + b"\x00" * 7 + b"\x01\x00\x00\x00" + b"\x00" * 4 + b"\x04\x00\x00\x00" +
        np.array([1, 2, 3, 4], "<i4").tobytes())
    back = pickle.loads(pickle.dumps(x))
    assert back.dtype == np.int32 and np.array_equal(back.asnumpy(), [[1, 2], [3, 4]])


def test_setstate_of_an_array_saved_on_a_gpu_loads_on_cpu():
    gpu_state = bytearray(b"\xc9\xfa\x93\xf9" + b"\x00" * 4 + b"\x01\x00\x00\x00" +
                          b"\x01" + b"\x00" * 7 + b"\x02\x00\x00\x00" + b"\x00" * 8 +
                          np.array([7.5], "<f4").tobytes())
    a = nd.zeros((3,))
    a.__setstate__({"handle": gpu_state})
    assert a.shape == (1,) and a.asnumpy()[0] == 7.5 and a.context.device_type == "cpu"
    with pytest.raises(ValueError, match="NDArray.__setstate__"):
        a.__setstate__({"handle": gpu_state[:-2]})
    with pytest.raises(ValueError, match="4 bytes left after the array"):
        a.__setstate__({"handle": gpu_state + b"\x00" * 4})


def test_truncated_buffer_is_an_mxnet_error(tmp_path):
    f = str(tmp_path / "a.params")
    nd.save(f, {"a": nd.ones((2, 3)), "b": nd.zeros((4,))})
    with open(f, "rb") as fh:
        buf = fh.read()
    with pytest.raises(MXNetError, match="load_frombuffer: not a valid MXNet NDArray file"):
        nd.load_frombuffer(buf[:-10])
    with pytest.raises(ValueError):
        nd.load_frombuffer(buf[:-10])


@pytest.mark.parametrize("source,destination,expected", [
    (0, 2, (1, 2, 4, 3)),
    ([0, 1], [2, 3], (2, 3, 4, 1)),
    ([3, 0], [1, 0], (4, 3, 1, 2)),
    ([0, 1, 2], [2, 3, 0], (2, 3, 4, 1)),
    (range(4), range(4), (4, 1, 2, 3)),
])
def test_moveaxis_several_axes(source, destination, expected):
    x = np.arange(24).reshape(4, 1, 2, 3)
    out = nd.moveaxis(nd.array(x), source, destination)
    assert out.shape == expected
    assert np.array_equal(out.asnumpy(), np.moveaxis(x, source, destination))


@pytest.mark.parametrize("source,destination,match", [
    ([0, 1], [2], "same number of axes"),
    ([0, 0], [1, 2], "repeats an axis"),
    (4, 0, "source axis 4 is out of range"),
])
def test_moveaxis_errors(source, destination, match):
    with pytest.raises(ValueError, match=match):
        nd.moveaxis(nd.zeros((4, 1, 2, 3)), source, destination)


def test_numpy_vector_shape_and_numpy_type_dtype_attributes():
    x = nd.array([[1], [2]])
    assert nd.broadcast_to(x, shape=np.array([2, 3])).shape == (2, 3)
    assert x.broadcast_to(np.array([2, 4])).shape == (2, 4)
    k = nd.topk(nd.array([[3, 1, 2]]), k=2, dtype=np.float64)
    assert k.dtype == np.float64 and np.array_equal(k.asnumpy(), [[0, 2]])
    assert nd.topk(nd.array([[3, 1, 2]]), k=1, dtype=np.dtype("int32")).dtype == np.int32
    with pytest.raises(ValueError, match="topk: argument dtype"):
        nd.topk(nd.array([[3, 1, 2]]), k=1, dtype=np.complex64)


def test_a_tuple_inside_a_tuple_key_is_an_index_array():
    a = np.arange(4 * 6 * 5 * 5).reshape(4, 6, 5, 5)
    x = nd.array(a)
    key = ([1, 2], slice(3, 5), (2, 3), [3, 4])
    assert np.array_equal(x[key].asnumpy(), a[key])
    x[key] = -1
    b = a.astype(np.float32)
    b[key] = -1
    assert np.array_equal(x.asnumpy(), b)


def test_assignment_inside_record_is_an_mxnet_error_with_mxnets_words():
    x = nd.zeros((2, 3))
    y = nd.ones((3,))
    y.attach_grad()
    with autograd.record():
        with pytest.raises(MXNetError, match=r"Inplace operations \(\+=, -=, x\[:\]=, etc\) "
                                             "are not supported when recording with"):
            x[0] = y * 2
        z = y * 2
        with pytest.raises(MXNetError, match="NDArray.__setitem__: in-place assignment"):
            z[:] = 0


def test_broadcast_like_with_empty_axes_is_refused():
    lhs, rhs = nd.ones((1, 2, 1, 3)), nd.ones((5, 6, 7, 8))
    with pytest.raises(MXNetError, match="broadcast_like: lhs_axes .* must not be empty"):
        nd.broadcast_like(lhs, rhs, lhs_axes=(), rhs_axes=())
    assert nd.broadcast_like(lhs, rhs, lhs_axes=(0, 2), rhs_axes=(1, 3)).shape == (6, 2, 8, 3)
    # one of the two left out: every axis, as in MXNet 1.9.1
    assert nd.broadcast_like(nd.ones((1, 2)), nd.ones((5, 2)), lhs_axes=(0,)).shape == (5, 2)


def test_the_broadcast_methods_add_leading_axes_as_mxnets_do():
    # MXNet 1.9.1's NDArray.broadcast_to/broadcast_like give the array leading axes of length 1
    # first (GluonTS's Box-Cox transform broadcasts a (3, 4, 5) mask like (1, 3, 4, 5)
    # samples); the operator nd.broadcast_to still needs equal ndim, as MXNet's does
    x = nd.array(np.arange(6.0).reshape(2, 3))
    y = x.broadcast_to((4, 2, 3))
    np.testing.assert_array_equal(y.asnumpy(), np.broadcast_to(x.asnumpy(), (4, 2, 3)))
    assert x.broadcast_like(nd.zeros((1, 2, 3))).shape == (1, 2, 3)
    assert nd.arange(3).broadcast_like(nd.zeros((2, 5, 3))).shape == (2, 5, 3)
    with pytest.raises(MXNetError, match="broadcast_to"):
        nd.broadcast_to(x, shape=(4, 2, 3))
    for bad, why in [((3,), "fewer axes"), ((2, 3, 1), r"\(1, 2, 3\)"), ((2, 0), "length 1")]:
        with pytest.raises(ValueError, match=why):
            x.broadcast_to(bad)
    # the gradient of the padded broadcast sums over the new axes
    w = nd.array([1.0, 2.0])
    w.attach_grad()
    with autograd.record():
        z = (w.broadcast_to((3, 2)) * nd.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).sum()
    z.backward()
    np.testing.assert_array_equal(w.grad.asnumpy(), [9.0, 12.0])
