"""NDArray semantics (MXNet 1.x): creation, attributes, methods, operators, indexing."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, nd

A = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32)


def same(x, want, dtype=None):
    """x is an NDArray equal to numpy `want` in shape, values and (given) dtype."""
    assert isinstance(x, nd.NDArray)
    want = np.asarray(want)
    assert x.shape == want.shape, (x.shape, want.shape)
    np.testing.assert_allclose(x.asnumpy(), want, rtol=1e-6, atol=1e-6)
    if dtype is not None:
        assert x.dtype == np.dtype(dtype).type


# ---- creation ----------------------------------------------------------------------------
def test_array_defaults_to_float32_and_keeps_an_ndarray_dtype():
    same(nd.array([1, 2, 3]), [1, 2, 3], np.float32)
    same(nd.array(np.arange(3)), [0, 1, 2], np.float32)      # numpy int64 source -> float32
    same(nd.array([1, 2], dtype="int64"), [1, 2], np.int64)
    same(nd.array(nd.array([1, 2], dtype="int32")), [1, 2], np.int32)
    same(nd.array(3.5), 3.5, np.float32)                      # 0-d, as MXNet's nd.array
    assert nd.array(3.5).shape == ()


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int32", "int64"])
def test_creation_functions_in_every_dtype(dtype):
    same(nd.zeros((2, 3), dtype=dtype), np.zeros((2, 3)), dtype)
    same(nd.ones(3, dtype=dtype), np.ones(3), dtype)
    same(nd.full((2, 2), 7, dtype=dtype), np.full((2, 2), 7), dtype)
    assert nd.empty((2, 1), dtype=dtype).shape == (2, 1)
    same(nd.arange(0, 5, dtype=dtype), np.arange(5), dtype)
    x = nd.ones((2, 3), dtype=dtype)
    same(nd.zeros_like(x), np.zeros((2, 3)), dtype)
    same(nd.ones_like(x), np.ones((2, 3)), dtype)
    same(x.astype("float32") + 1, np.full((2, 3), 2.0), np.float32)


def test_creation_defaults():
    same(nd.zeros((2, 3)), np.zeros((2, 3)), np.float32)
    same(nd.arange(1, 5, 0.5), np.arange(1, 5, 0.5), np.float32)
    same(nd.arange(3, repeat=2), [0, 0, 1, 1, 2, 2])
    x = nd.random.uniform(-1, 1, shape=(3, 4))
    assert x.shape == (3, 4) and x.dtype == np.float32
    assert -1 <= x.asnumpy().min() and x.asnumpy().max() < 1
    assert nd.random.normal(0, 1, shape=(2,), dtype="float64").dtype == np.float64
    nd.waitall()


# ---- attributes and methods ----------------------------------------------------------------
def test_attributes():
    x = nd.array(A)
    assert (x.shape, x.size, x.ndim, x.dtype) == ((2, 3), 6, 2, np.float32)
    assert x.context == mx.cpu(0) and x.ctx == mx.cpu(0)
    assert x.grad is None
    same(x.T, A.T)
    x.attach_grad()
    same(x.grad, np.zeros((2, 3)))


def test_asscalar_only_on_size_one():
    assert nd.array([5]).asscalar() == 5.0
    assert isinstance(nd.array([5], dtype="int32").asscalar(), np.int32)
    with pytest.raises(ValueError, match=r"asscalar: the array must have exactly one element, "
                                         r"got shape \(2, 3\)"):
        nd.array(A).asscalar()


def test_shape_methods():
    x = nd.array(A)
    same(x.reshape((3, 2)), A.reshape(3, 2))
    same(x.reshape(3, 2), A.reshape(3, 2))
    same(x.reshape(shape=(0, -1)), A)
    same(x.reshape((-1,)), A.ravel())
    same(x.expand_dims(0), A[None])
    same(x.expand_dims(axis=2), A[:, :, None])
    same(nd.ones((1, 3, 1)).squeeze(), np.ones(3))
    same(nd.ones((1, 3, 1)).squeeze(axis=0), np.ones((3, 1)))
    same(nd.ones((1, 1)).squeeze(), np.ones(1))
    same(x.take(nd.array([1, 0])), A[[1, 0]])
    same(x.take(nd.array([0, 2]), axis=1), A[:, [0, 2]])
    same(x.slice_axis(1, 0, 2), A[:, 0:2])           # positional attributes, as in MXNet
    same(x.slice_axis(axis=1, begin=-2, end=None), A[:, -2:])
    same(nd.array([[1, 2, 3]]).broadcast_to((3, 3)), np.broadcast_to(A[:1], (3, 3)))
    same(x.transpose(), A.T)
    same(nd.ones((2, 3, 4)).transpose((1, 0, 2)), np.ones((3, 2, 4)))
    same(nd.ones((2, 3, 4)).flatten(), np.ones((2, 12)))


def test_reductions_and_math_methods():
    x = nd.array(A)
    for m in ("sum", "mean", "max", "min", "prod"):
        same(getattr(x, m)(), [getattr(np, m)(A)])           # full reduction has shape (1,)
        same(getattr(x, m)(0), getattr(np, m)(A, axis=0))    # positional axis
        same(getattr(x, m)(axis=1, keepdims=True), getattr(np, m)(A, axis=1, keepdims=True))
    same(x.sum(axis=1, exclude=True), A.sum(axis=0))
    same(nd.array(A, dtype="int32").mean(), [3], np.int32)  # MXNet keeps the integer dtype
    for m, f in (("abs", np.abs), ("exp", np.exp), ("log", np.log), ("sqrt", np.sqrt),
                 ("square", np.square), ("tanh", np.tanh), ("relu", lambda a: np.maximum(a, 0)),
                 ("sigmoid", lambda a: 1 / (1 + np.exp(-a)))):
        same(getattr(x - 3 if m in ("abs", "relu") else x, m)(), f(A - 3 if m in ("abs", "relu")
                                                                      else A))
    same(x.clip(1.5, 2.5), np.clip(A, 1.5, 2.5))
    same(nd.array(A, dtype="int32").clip(2, 4), np.clip(A, 2, 4), np.int32)


def test_copies_and_conversions():
    x = nd.array(A)
    y = x.copy()
    y[:] = 0
    same(x, A)
    z = nd.zeros((2, 3))
    assert x.copyto(z) is z
    same(z, A)
    assert x.copyto(mx.cpu(1)).context == mx.cpu(1)
    assert x.as_in_context(mx.cpu(0)) is x
    same(nd.array([[1.7, -2.7]]).astype(np.int64), [[1, -2]], np.int64)
    assert x.astype("float32", copy=False) is x
    same(x.astype("float16"), A, np.float16)
    d = x.detach()
    same(d, A)
    assert x.wait_to_read() is None
    a = x.asnumpy()
    assert isinstance(a, np.ndarray) and a.dtype == np.float32


# ---- operators -------------------------------------------------------------------------------
def test_arithmetic_with_scalars_and_arrays():
    x, b = nd.array(A), nd.array([10, 20, 30])
    same(x + b, A + [10, 20, 30])
    same(x - b, A - [10, 20, 30])
    same(x * b, A * [10, 20, 30])
    same(x / b, A / [10, 20, 30])
    same(x + nd.array([[10], [20]]), A + [[10], [20]])
    for got, want in ((x + 1, A + 1), (1 + x, 1 + A), (x - 1, A - 1), (1 - x, 1 - A),
                      (x * 2, A * 2), (2 * x, 2 * A), (x / 2, A / 2), (2 / x, 2 / A),
                      (x ** 2, A ** 2), (2 ** x, 2 ** A), (-x, -A), (abs(-x), A),
                      (x % 4, A % 4), (nd.array([-5, 5]) % 3, [1, 2])):
        same(got, want, np.float32)


def test_integer_arithmetic_keeps_the_dtype():
    x = nd.array(A, dtype="int32")
    same(x / 2, (A / 2).astype(np.int32), np.int32)        # truncating, as MXNet
    same(x * 1.5, A.astype(np.int32), np.int32)           # scalar cast to int first
    same(x % 4, A % 4, np.int32)
    same(2 / x, (2 / A).astype(np.int32), np.int32)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int32", "int64"])
def test_comparisons_return_zero_one_in_the_operands_dtype(dtype):
    x, y = nd.array(A, dtype=dtype), nd.array([3, 2, 1], dtype=dtype)
    for got, want in ((x < 3, A < 3), (x <= 3, A <= 3), (x > 3, A > 3), (x >= 3, A >= 3),
                      (x == 3, A == 3), (x != 3, A != 3), (3 < x, 3 < A), (x < y, A < [3, 2, 1]),
                      (x == y, A == [3, 2, 1])):
        same(got, want.astype(np.float64), dtype)


def test_inplace_operators_write_into_the_array():
    x = nd.array(A)
    alias = x
    x += 1
    x *= nd.array([1, 2, 3])
    x -= 1
    x /= 2
    assert alias is x
    same(x, ((A + 1) * [1, 2, 3] - 1) / 2)


def test_functions():
    a, b = nd.ones((2, 3)), nd.zeros((2, 2))
    same(nd.concat(a, b), np.ones((2, 5)) * [1, 1, 1, 0, 0])
    same(nd.concat(a, nd.zeros((1, 3)), dim=0), np.vstack([np.ones((2, 3)), np.zeros((1, 3))]))
    same(nd.stack(a, a * 2, axis=1), np.stack([np.ones((2, 3)), 2 * np.ones((2, 3))], 1))
    parts = nd.split(nd.array(A), 3)
    assert len(parts) == 3
    same(parts[2], A[:, 2:])
    same(nd.SliceChannel(nd.array(A), num_outputs=2, axis=0, squeeze_axis=True)[1], A[1])
    same(nd.dot(nd.array(A), nd.array(A.T)), A @ A.T)
    same(nd.batch_dot(nd.ones((2, 3, 4)), nd.ones((2, 4, 5))), np.full((2, 3, 5), 4.0))
    same(nd.FullyConnected(nd.array(A), nd.ones((4, 3)), nd.ones(4), 4), A @ np.ones((3, 4)) + 1)
    same(nd.maximum(nd.array([1, 5]), 3), [3, 5])
    same(nd.minimum(2, nd.array([1, 5])), [1, 2])
    same(nd.maximum(nd.array([1, 5]), nd.array([3, 2])), [3, 5])
    same(nd.where(nd.array([1, 0]), nd.ones((2, 2)), nd.zeros((2, 2))), [[1, 1], [0, 0]])
    same(nd.Activation(nd.array([-1, 0, 1]), "relu"), [0, 0, 1])
    same(nd.identity(nd.array([1, 2])), [1, 2])
    same(nd.SequenceMask(nd.ones((3, 2)), nd.array([1, 3]), use_sequence_length=True),
         [[1, 1], [0, 1], [0, 1]])


# ---- indexing -------------------------------------------------------------------------------
@pytest.mark.parametrize("key", [1, -1, (1, 2), (slice(None), 1), (slice(None), slice(1, None)),
                                 slice(0, 1), slice(None, None, -1),
                                 (slice(None), slice(None, None, 2)),
                                 (Ellipsis, 1), (None, 0), (0, None)])
def test_basic_indexing_matches_numpy_with_no_0d_results(key):
    want = A[key]
    same(nd.array(A)[key], want if want.ndim else want.reshape(1))


def test_integer_index_of_a_vector_and_array_indices():
    same(nd.array([1, 2, 3])[1], [2])
    same(nd.array(A)[nd.array([1])], A[[1]])
    same(nd.array(A)[[1, 0]], A[[1, 0]])
    with pytest.raises(IndexError, match="index 5 is out of range for axis 0 of size 3"):
        nd.array([1, 2, 3])[5]


def test_first_axis_indexing_is_a_view_like_mxnet():
    x = nd.array(A)
    x[0][:] = 100
    x[1:2][:] = -1
    same(x, [[100] * 3, [-1] * 3])
    y = nd.array(A)
    y[:, 1][:] = 0          # not on the first axis: a copy, y unchanged
    same(y, A)


@pytest.mark.parametrize("key,value", [
    (slice(None), 5), (slice(None), nd.array([7, 8, 9])), (1, nd.array([7, 8, 9])),
    ((0, 1), 10), ((slice(None), slice(1, None)), 0), (slice(None), np.ones((2, 3))),
    (slice(None), [1, 2, 3])])
def test_slice_assignment_broadcasts_like_numpy(key, value):
    x, want = nd.array(A), A.copy()
    x[key] = value
    want[key] = value.asnumpy() if isinstance(value, nd.NDArray) else value
    same(x, want)


def test_slice_assignment_shape_mismatch_is_a_value_error():
    x = nd.array(A)
    with pytest.raises(ValueError, match=r"cannot assign a value of shape \(3, 2\)"):
        x[:] = nd.ones((3, 2))


def test_iteration_len_and_conversions():
    x = nd.array([1, 2, 3])
    assert len(x) == 3
    assert [v.asscalar() for v in x] == [1, 2, 3]
    assert float(nd.array([2.5])) == 2.5
    with pytest.raises(ValueError, match="ambiguous"):
        bool(x)


def test_logical_not_in_nd_and_sym_keeps_the_dtype_and_has_no_gradient():
    x = nd.array([0, 2, -1.5])
    np.testing.assert_array_equal(nd.logical_not(x).asnumpy(), [1, 0, 0])
    got = mx.sym.logical_not(mx.sym.var("x")).eval(x=nd.array([3, 0], dtype="int32"))[0]
    assert got.dtype == np.int32 and got.asnumpy().tolist() == [0, 1]
    x.attach_grad()
    with autograd.record():
        y = (nd.logical_not(x) + x).sum()
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [1, 1, 1])


def test_norm_matches_mxnet_at_a_zero_row_and_refuses_other_orders():
    x = nd.array([[3, -4], [0, 0]])
    x.attach_grad()
    with mx.autograd.record():
        y = nd.norm(x, axis=1)
    y.backward()
    np.testing.assert_array_equal(y.asnumpy(), [5, 0])
    np.testing.assert_allclose(x.grad.asnumpy()[0], [0.6, -0.8], rtol=1e-6)
    assert np.isnan(x.grad.asnumpy()[1]).all()  # x / |x| at a zero norm, as MXNet gives it
    assert x.norm().shape == (1,) and x.norm().asscalar() == 5
    assert nd.norm(nd.array([1, 2], dtype="int32")).dtype == np.int32
    with pytest.raises(ValueError, match=r"norm: argument ord=3: expected 1 .* or 2"):
        nd.norm(x, ord=3)


def test_matmul_is_dot_for_2d_and_batch_dot_for_3d():
    B = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    same(nd.array(A) @ nd.array(A.T), A @ A.T)
    same(nd.array(B) @ nd.array(B.transpose(0, 2, 1)), B @ B.transpose(0, 2, 1))
    with pytest.raises(ValueError, match=r"NDArray @: operands must both be 2-D \(dot\) or both "
                                         r"3-D \(batch_dot\), got shapes \(2, 3\) and \(3,\)"):
        nd.array(A) @ nd.ones((3,))


def test_assigning_a_recorded_value_inside_record_is_refused():
    x = nd.ones((3,))
    x.attach_grad()
    target = nd.zeros((2, 3))
    with autograd.record():
        y = x * 2
        with pytest.raises(ValueError, match=r"NDArray.__setitem__: the value is part of a "
                                             "recorded graph"):
            target[0] = y
    target[0] = y  # outside record() the value is plain data
    same(target, [[2, 2, 2], [0, 0, 0]])
