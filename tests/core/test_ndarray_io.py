"""NDArray files and zero-copy exchange: MXNet's .params layouts (V2, V1, legacy V0) made by
MXNet 1.9.1 or byte by byte (`tests/fixtures/make_ndsym.py`), `load_frombuffer`,
`from_numpy`, DLPack, and the array methods around them."""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd

_DIR = os.path.join(os.path.dirname(__file__), "..", "fixtures", "ndsym")
with open(os.path.join(_DIR, "expected.json")) as _f:
    FILES = json.load(_f)["FILES"]


def _as_plain(loaded):
    items = loaded.items() if isinstance(loaded, dict) else enumerate(loaded)
    return {str(k): v for k, v in items}


@pytest.mark.parametrize("fname", sorted(FILES))
def test_load_reads_every_mxnet_layout(fname):
    got = _as_plain(nd.load(os.path.join(_DIR, fname)))
    assert sorted(got) == sorted(FILES[fname])
    for k, want in FILES[fname].items():
        a = got[k].asnumpy()
        assert np.dtype(a.dtype).name == want["dtype"] and list(a.shape) == want["shape"]
        np.testing.assert_array_equal(a.astype(np.float64).ravel(), want["values"])


@pytest.mark.parametrize("fname", sorted(FILES))
def test_load_frombuffer_equals_load(fname):
    with open(os.path.join(_DIR, fname), "rb") as f:
        raw = f.read()
    a, b = _as_plain(nd.load_frombuffer(raw)), _as_plain(nd.load(os.path.join(_DIR, fname)))
    assert sorted(a) == sorted(b)
    for k in a:
        np.testing.assert_array_equal(a[k].asnumpy(), b[k].asnumpy())


def test_save_writes_what_mxnet_writes(tmp_path):
    with open(os.path.join(_DIR, "v2_list.params"), "rb") as f:
        mxnet_bytes = f.read()
    w = nd.array(np.arange(6, dtype=np.float32).reshape(2, 3) / 4)
    i = nd.array([5, -6], dtype="int32")
    nd.save(str(tmp_path / "x.params"), [w, i])
    assert (tmp_path / "x.params").read_bytes() == mxnet_bytes


def test_load_frombuffer_refuses_what_is_not_bytes():
    with pytest.raises(TypeError, match="load_frombuffer: buf must be bytes"):
        nd.load_frombuffer(12)
    with pytest.raises(ValueError, match="load_frombuffer: not a valid MXNet NDArray file"):
        nd.load_frombuffer(b"\x00" * 30)


def test_from_numpy_shares_memory_and_locks_the_numpy_array():
    a = np.arange(3.0)
    x = nd.from_numpy(a)
    assert x.dtype == np.float64
    x[0] = 7
    assert a[0] == 7
    assert not a.flags.writeable
    b = np.arange(4, dtype=np.int32)
    y = nd.from_numpy(b, zero_copy=False)
    y[0] = 9
    assert b[0] == 0 and b.flags.writeable
    with pytest.raises(ValueError, match="C-contiguous"):
        nd.from_numpy(np.arange(6.0).reshape(2, 3).T)
    with pytest.raises(TypeError, match="from_numpy: expected a numpy.ndarray"):
        nd.from_numpy([1, 2])


def test_dlpack_round_trip_shares_memory_and_is_consumed_once():
    x = nd.array([[1, 2, 3], [4, 5, 6]])
    y = nd.from_dlpack(x.to_dlpack_for_write())
    y[0] = 5
    np.testing.assert_array_equal(x.asnumpy(), [[5, 5, 5], [4, 5, 6]])
    capsule = nd.to_dlpack_for_read(x)
    z = nd.from_dlpack(capsule)
    del x
    np.testing.assert_array_equal(z.asnumpy(), [[5, 5, 5], [4, 5, 6]])
    with pytest.raises(ValueError, match="consumed once"):
        nd.from_dlpack(capsule)
    for dt in ("float16", "uint8", "int8", "int64", "bool"):
        a = nd.array([1, 0, 1], dtype=dt)
        b = nd.from_dlpack(a.to_dlpack_for_read())
        assert b.dtype == a.dtype and (b.asnumpy() == a.asnumpy()).all()
    assert nd.from_dlpack(np.arange(3)).dtype == np.int64
    with pytest.raises(TypeError, match="from_dlpack: expected a DLPack capsule"):
        nd.from_dlpack(3)


def test_astype_copy_false_returns_self_only_for_the_same_dtype():
    x = nd.ones((2,))
    assert x.astype("float32", copy=False) is x
    assert x.astype("float32") is not x
    assert x.astype("float16", copy=False).dtype == np.float16


def test_slice_assign_writes_in_place_and_returns_the_array():
    x = nd.array([[1, 2], [3, 4]])
    assert x.slice_assign(nd.array([[9]]), (0, 1), (1, 2), (None, None)) is x
    np.testing.assert_array_equal(x.asnumpy(), [[1, 9], [3, 4]])
    x.slice_assign_scalar(7, (0, 0), (1, 2), (None, None))
    np.testing.assert_array_equal(x.asnumpy(), [[7, 7], [3, 4]])


def test_attach_grad_makes_sparse_gradients():
    x = nd.ones((2,))
    x.attach_grad(stype="row_sparse")
    assert x.grad.stype == "row_sparse" and x.grad.shape == (2,)


def test_as_np_ndarray_is_a_view_of_the_same_memory():
    x = nd.ones((2,))
    assert x.as_nd_ndarray() is x
    v = x.as_np_ndarray()
    assert type(v).__name__ == "ndarray" and v.shape == (2,)
    v[0] = 5
    assert x.asnumpy().tolist() == [5.0, 1.0]


def test_copyto_and_as_in_context():
    x = nd.array([1, 2])
    y = nd.zeros((2,))
    assert x.copyto(y) is y and (y.asnumpy() == [1, 2]).all()
    assert x.as_in_context(mx.cpu()) is x
    z = x.copyto(mx.cpu(1))
    assert z.context == mx.cpu(1) and (z.asnumpy() == [1, 2]).all()
    with pytest.raises(ValueError, match="copyto: shape"):
        x.copyto(nd.zeros((3,)))
