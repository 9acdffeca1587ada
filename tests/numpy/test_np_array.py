"""The mx.np array: one storage with the legacy NDArray (a view, same tape), NumPy's
broadcasting, indexing (basic views, advanced and boolean, setitem), zero-dim and zero-size
arrays, out=, ctx, conversions, and NumPy's dispatch protocols (`__array_function__`,
`__array_ufunc__`), with the errors MXNet 1.9.1 gives for mixing the dialects."""
import numpy as onp
import pytest

import gluonlite as mx
from gluonlite import np
from gluonlite.base import MXNetError


def test_np_array_is_a_view_of_the_nd_array():
    a = np.arange(6).reshape(2, 3)
    assert isinstance(a, mx.nd.NDArray) and isinstance(a, np.ndarray)
    b = a.as_nd_ndarray()
    assert type(b) is mx.nd.NDArray
    b[0, 0] = -1                 # one storage: the write shows through both
    assert a[0, 0].item() == -1
    c = b.as_np_ndarray()
    c[1, 2] = 7
    assert b.asnumpy()[1, 2] == 7


def test_conversions_keep_the_tape():
    x = np.array([1., 2., 3.])
    x.attach_grad()
    with mx.autograd.record():
        y = (x.as_nd_ndarray() * 2).as_np_ndarray()
        z = (y * y).sum()
    z.backward()
    onp.testing.assert_allclose(x.grad.asnumpy(), 8 * onp.array([1., 2., 3.]))
    assert isinstance(x.grad, np.ndarray)


def test_mixing_dialects_fails_naming_both_types():
    a, b = np.ones((2,)), mx.nd.ones((2,))
    with pytest.raises(TypeError) as e:
        a + b
    assert "mxnet.ndarray.NDArray" in str(e.value) and "mxnet.numpy.ndarray" in str(e.value)
    with pytest.raises(TypeError) as e:
        mx.nd.relu(a)
    assert "mxnet.numpy.ndarray" in str(e.value) and "NDArray" in str(e.value)
    with pytest.raises(TypeError) as e:
        np.concatenate([a, b])
    assert "concatenate" in str(e.value)


def test_broadcasting_and_promotion():
    a = np.ones((2, 1, 3), dtype="int32")
    b = np.arange(4, dtype="float16").reshape(4, 1)
    c = a + b
    assert c.shape == (2, 4, 3) and c.dtype == onp.float16
    assert (np.array([1, 2], dtype="int32") / np.array([2, 2], dtype="int32")).dtype \
        == onp.float32
    r = np.array([1, 2], dtype="int8") * 2.5   # MXNet 1.9.1 keeps the integer dtype
    assert r.dtype == onp.int8 and r.tolist() == [2, 4]
    assert (np.array([True], dtype=bool) + np.array([1], dtype="int64")).dtype == onp.int64


def test_zero_dim_and_zero_size():
    s = np.array(3.0)
    assert s.shape == () and s.ndim == 0 and s.item() == 3.0 and float(s) == 3.0
    assert np.ones((2, 3)).sum().shape == ()
    z = np.zeros((0, 3))
    assert z.sum(axis=0).shape == (3,) and z.size == 0
    assert np.concatenate([z, np.ones((2, 3))]).shape == (2, 3)
    assert np.ones((2, 3))[1, 2].shape == ()


def test_basic_indexing_gives_views():
    a = np.arange(12).reshape(3, 4)
    row = a[1]
    row[0] = 100
    assert a[1, 0].item() == 100
    assert a[:, 1:3].shape == (3, 2)
    assert a[None, ..., -1].shape == (1, 3)


def test_advanced_and_boolean_indexing():
    base = onp.arange(24, dtype=onp.float32).reshape(2, 3, 4)
    a = np.array(base)
    idx = [0, 2]
    onp.testing.assert_array_equal(a[:, idx].asnumpy(), base[:, idx])
    onp.testing.assert_array_equal(a[np.array([1, 0]), :, np.array([3, 1])].asnumpy(),
                                   base[onp.array([1, 0]), :, onp.array([3, 1])])
    m = a > 10
    onp.testing.assert_array_equal(a[m].asnumpy(), base[base > 10])
    a[m] = 0
    b = base.copy()
    b[b > 10] = 0
    onp.testing.assert_array_equal(a.asnumpy(), b)
    a[:, [0, 2], 1] = np.array([5., 6.])
    b[:, [0, 2], 1] = onp.array([5., 6.])
    onp.testing.assert_array_equal(a.asnumpy(), b)


def test_a_tuple_inside_the_key_is_an_index_array():
    base = onp.arange(2 * 5 * 4 * 6).reshape(2, 5, 4, 6)
    a = np.array(base)
    key = ([1, 0], slice(3, 5), (2, 3), [3, 4])
    as_lists = ([1, 0], slice(3, 5), [2, 3], [3, 4])
    onp.testing.assert_array_equal(a[key].asnumpy(), base[as_lists])
    onp.testing.assert_array_equal(a[1, (2, 0)].asnumpy(), base[1, [2, 0]])
    onp.testing.assert_array_equal(a[range(1, 2), :, range(0, 3)].asnumpy(),
                                   base[[1], :, [0, 1, 2]])
    a[key] = -1
    base[as_lists] = -1
    onp.testing.assert_array_equal(a.asnumpy(), base)


def test_indexing_is_recorded():
    x = np.array([[1., 2., 3.], [4., 5., 6.]])
    x.attach_grad()
    with mx.autograd.record():
        y = (x[:, [0, 2]] * 2).sum() + x[x > 4].sum()
    y.backward()
    onp.testing.assert_allclose(x.grad.asnumpy(), [[2, 0, 2], [2, 1, 3]])


def test_out_argument():
    x = np.array([1., 2.])
    c = np.empty((2,))
    r = np.add(x, x, out=c)
    assert r is c
    onp.testing.assert_array_equal(c.asnumpy(), [2., 4.])
    with pytest.raises(MXNetError):  # MXNet: incompatible attr (the out dtype)
        np.sin(x, out=np.empty((2,), dtype="int32"))
    with pytest.raises(TypeError):
        np.isnan(x, out=np.empty((2,)))  # not a bool array


def test_ctx_and_conversions():
    a = np.zeros((2,), ctx=mx.cpu(0))
    assert a.ctx == mx.cpu(0) and a.context == mx.cpu(0)
    assert a.as_in_ctx(mx.cpu(0)).ctx == mx.cpu(0)
    src = onp.array([1.5, 2.5])          # a NumPy array keeps its dtype
    assert np.array(src).dtype == onp.float64
    assert np.array([1, 2]).dtype == onp.float32   # a list: MXNet's float32 default
    assert np.array([1, 2]).astype("int32").tolist() == [1, 2]
    assert isinstance(a.asnumpy(), onp.ndarray)


def test_numpy_dispatch_protocols():
    a = np.array([[1., 2.], [3., 4.]])
    s = onp.sum(a)                     # __array_function__: mx.np.sum
    assert isinstance(s, np.ndarray) and s.item() == 10
    u = onp.add(a, a)                  # __array_ufunc__: mx.np.add
    assert isinstance(u, np.ndarray)
    m = onp.median(a)                  # no mx.np counterpart: NumPy on a host copy
    assert float(m) == 2.5
    with mx.autograd.record():         # MXNet refuses falling back under autograd
        with pytest.raises(ValueError):
            onp.median(a)


def test_fallback_dtypes_mxnet_refuses():
    with pytest.raises(ValueError, match="int8 is not supported"):
        np.positive(np.array([1, 2], dtype="int8"))


def test_fallback_linalg_is_numpys_own_on_mx_arrays():
    a = np.array([[2., 1.], [1., 3.]])
    assert sorted(np.fallback_linalg.__all__) == ["cond", "lstsq", "matrix_power",
                                                  "matrix_rank", "multi_dot", "qr"]
    for name in np.fallback_linalg.__all__:
        assert getattr(np.linalg, name) is getattr(np.fallback_linalg, name)
    p = np.linalg.matrix_power(a, 3)
    assert isinstance(p, np.ndarray)
    onp.testing.assert_allclose(p.asnumpy(), onp.linalg.matrix_power(a.asnumpy(), 3))
    onp.testing.assert_allclose(float(np.linalg.cond(a)), onp.linalg.cond(a.asnumpy()),
                                rtol=1e-6)


def test_missing_functions_raise_as_mxnet():
    with pytest.raises(AttributeError):
        np.tri  # noqa: B018  (MXNet 1.9.1's mx.np has no tri)
    with pytest.raises(NotImplementedError):
        np.add(np.ones(2), np.ones(2), where=False)
    with pytest.raises(AttributeError, match="deg2rad"):
        np.deg2rad(np.ones(2))     # MXNet 1.9.1's operator is missing
    assert np.deg2rad(180.0) == onp.pi


def test_legacy_mode_refuses_np_arrays_in_nd_ops(legacy):
    with pytest.raises(TypeError):
        mx.nd.ones((2,)) + np.ones((2,))


def test_arange_refuses_a_missing_start_before_a_stop():
    # MXNet 1.9.1 raises MXNetError ("Invalid Parameter format for start") for arange(None, 5)
    with pytest.raises(MXNetError, match="start"):
        np.arange(None, 5)
