"""`nd.add`/`subtract`/.../`greater`... with arrays and numbers on either side (one table,
`gluonlite.ndarray.ufuncs`), `nd.moveaxis`, `nd.concatenate`; values as MXNet 1.9.1 gives."""
import numpy as np
import pytest

from gluonlite import nd
from gluonlite.ndarray import ufuncs


@pytest.mark.parametrize("name,lhs,rhs,want", [
    ("subtract", 3, [1, 2], [2, 1]),
    ("subtract", [1, 2], 3, [-2, -1]),
    ("divide", 1, [1, 4], [1, 0.25]),
    ("power", 2, [1, 3], [2, 8]),
    ("modulo", [5, 7], 3, [2, 1]),
    ("greater", 3, [1, 5], [1, 0]),
    ("lesser", [1, 5], 3, [1, 0]),
    ("greater_equal", 3, [3, 5], [1, 0]),
    ("lesser_equal", [3, 5], [3, 4], [1, 0]),
    ("equal", [1, 2], [[1], [2]], [[1, 0], [0, 1]]),
    ("not_equal", 2, [1, 2], [1, 0]),
    ("multiply", [[1], [2]], [3, 4], [[3, 4], [6, 8]]),
])
def test_ufunc_with_arrays_and_numbers(name, lhs, rhs, want):
    a = nd.array(lhs) if isinstance(lhs, list) else lhs
    b = nd.array(rhs) if isinstance(rhs, list) else rhs
    got = getattr(nd, name)(a, b)
    np.testing.assert_allclose(got.asnumpy(), want)
    assert got.dtype == np.float32


def test_two_numbers_give_a_number():
    assert nd.add(1, 2) == 3 and nd.greater(1, 2) == 0 and nd.true_divide(1, 4) == 0.25


def test_every_ufunc_with_registered_operators_is_provided():
    for name, ops in ufuncs.UFUNCS.items():
        from gluonlite.ops import registry
        if all(registry.exists(o) for o in ops[:3]):
            assert callable(getattr(nd, name)), name


def test_moveaxis_and_concatenate():
    x = nd.array(np.arange(24).reshape(2, 3, 4))
    np.testing.assert_array_equal(nd.moveaxis(x, 0, -1).asnumpy(),
                                  np.moveaxis(np.arange(24).reshape(2, 3, 4), 0, -1))
    with pytest.raises(ValueError, match="moveaxis: source axis 3 is out of range"):
        nd.moveaxis(x, 3, 0)
    c = nd.concatenate([nd.ones((1, 2)), nd.zeros((1, 2))])
    np.testing.assert_array_equal(c.asnumpy(), [[1, 1], [0, 0]])
    one = nd.ones((2,))
    assert nd.concatenate([one]) is not one and nd.concatenate([one], always_copy=False) is one
    np.testing.assert_array_equal(nd.concatenate([nd.ones((2, 1)), nd.zeros((2, 1))],
                                                 axis=1).asnumpy(), [[1, 0], [1, 0]])


def test_mxnet_indexing_helpers():
    key, prepend = nd.indexing_key_expand_implicit_axes(np.s_[:2, None, 0, ...], (3, 4, 5))
    assert key == (slice(None, 2), None, 0, slice(None)) and prepend == -1
    assert nd.indexing_key_expand_implicit_axes(0, (3, 4)) == ((0, slice(None)), -1)
    with pytest.raises(IndexError, match="more than one ellipsis"):
        nd.indexing_key_expand_implicit_axes((Ellipsis, Ellipsis), (3,))
    assert [nd.get_indexing_dispatch_code(k) for k in ((0, [1, 2]), (0, slice(1)), (0, ()))] \
        == [1, 0, 2]
    with pytest.raises(ValueError, match="does not support slicing with key 1.5"):
        nd.get_indexing_dispatch_code((1.5,))
    assert nd.get_oshape_of_gather_nd_op((3, 4, 5), (2, 6)) == (6, 5)
