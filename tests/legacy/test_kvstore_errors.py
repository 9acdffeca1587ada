"""KVStore refusals MXNet's engine reports as MXNetError: a dense `out` for
`row_sparse_pull`, mixing int and str keys in one store, a key never initialized; and
`TestStore.is_capable` is a static method, as in MXNet 1.9.1."""
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError


def test_row_sparse_pull_refuses_a_dense_out_and_changes_nothing():
    kv = mx.kv.create("local")
    kv.init(3, mx.nd.ones((4, 2)))
    out = mx.nd.ones((4, 2)) * 2
    with pytest.raises(MXNetError, match="out must be row_sparse, got stype 'default'"):
        kv.row_sparse_pull(3, out=out, row_ids=mx.nd.array([1]))
    assert (out.asnumpy() == 2).all()
    with pytest.raises(ValueError):  # also a ValueError, as before
        kv.row_sparse_pull([3], out=[out], row_ids=[mx.nd.array([1])])


@pytest.mark.parametrize("first, other", [(3, "a"), ("a", 3)])
def test_one_kind_of_key_per_store(first, other):
    kv = mx.kv.create("device")
    kv.init(first, mx.nd.ones((2,)))
    val = mx.nd.ones((2,))
    for call in (lambda: kv.init(other, val), lambda: kv.push(other, val),
                 lambda: kv.pull(other, out=val),
                 lambda: kv.row_sparse_pull(other, out=val.tostype("row_sparse"),
                                            row_ids=mx.nd.array([1]))):
        with pytest.raises(MXNetError, match="a store takes int keys or str keys, not both"):
            call()
    kv.push(first, mx.nd.ones((2,)) * 5)
    kv.pull(first, out=val)
    assert (val.asnumpy() == 5).all()


def test_a_key_never_initialized_is_an_mxnet_error():
    kv = mx.kv.create("local")
    with pytest.raises(MXNetError, match="key 'a' has not been initialized"):
        kv.pull("a", out=mx.nd.ones((2,)))


def test_teststore_is_capable_is_static():
    kv = mx.kv.create("teststore")
    assert type(kv).is_capable("optimizer") is False
    assert kv.is_capable("OPTIMIZER") is False
    with pytest.raises(ValueError, match="unknown capability 'foo'"):
        type(kv).is_capable("foo")
