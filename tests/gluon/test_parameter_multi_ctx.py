"""Parameters on several contexts at once, and the gluon.utils helpers that feed them:
split_data / split_and_load (numpy.array_split's slicing), clip_global_norm (closed forms)."""
import warnings

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, gluon, nd
from gluonlite.gluon import nn
from gluonlite.gluon.utils import clip_global_norm, shape_is_known, split_and_load, split_data

CTXS = [mx.cpu(0), mx.cpu(1)]


def test_one_copy_per_context():
    p = gluon.Parameter("weight", shape=(4, 3))
    p.initialize(init="xavier", ctx=CTXS)
    assert p.list_ctx() == CTXS
    datas, grads = p.list_data(), p.list_grad()
    assert len(datas) == len(grads) == 2
    assert [d.context for d in datas] == CTXS and [g.context for g in grads] == CTXS
    assert p.data(mx.cpu(1)) is datas[1] and p.grad(mx.cpu(0)) is grads[0]
    np.testing.assert_array_equal(datas[0].asnumpy(), datas[1].asnumpy())
    # copies, not one buffer (the first context keeps the buffer the initializer filled)
    assert not np.shares_memory(datas[0]._data, datas[1]._data)
    datas[0][:] = 7
    assert not (datas[1].asnumpy() == 7).any()
    with pytest.raises(ValueError, match=r"not initialized on context cpu\(2\)"):
        p.data(mx.cpu(2))
    p.reset_ctx([mx.cpu(1), mx.cpu(2)])
    assert p.list_ctx() == [mx.cpu(1), mx.cpu(2)]
    np.testing.assert_array_equal(p.data(mx.cpu(2)).asnumpy(), datas[0].asnumpy())


def test_each_context_gets_its_own_gradient():
    p = gluon.Parameter("x", shape=(3,))
    p.initialize(init="ones", ctx=CTXS)
    with autograd.record():
        ys = [w * (i + 2) for i, w in enumerate(p.list_data())]
    autograd.backward(ys)
    assert (p.grad(mx.cpu(0)).asnumpy() == 2).all()
    assert (p.grad(mx.cpu(1)).asnumpy() == 3).all()
    p.zero_grad()
    assert all((g.asnumpy() == 0).all() for g in p.list_grad())


def test_block_on_two_contexts_computes_the_same():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(3, activation="tanh"), nn.Dense(1))
    net.initialize(mx.init.Uniform(0.5), ctx=CTXS)
    x = nd.array(np.random.RandomState(1).randn(4, 2))
    outs = [net(x.as_in_context(c)) for c in CTXS]  # deferred init happens on both
    assert [o.context for o in outs] == CTXS
    np.testing.assert_allclose(outs[0].asnumpy(), outs[1].asnumpy(), rtol=1e-6)
    net.hybridize()
    np.testing.assert_allclose(net(x.as_in_context(mx.cpu(1))).asnumpy(), outs[0].asnumpy(),
                               rtol=1e-6)


def test_saving_a_multi_context_parameter_saves_their_mean(tmp_path):
    net = nn.Dense(2, in_units=2, use_bias=False)
    net.initialize(mx.init.Zero(), ctx=CTXS)
    net.weight.data(mx.cpu(1))[:] = 4.0
    f = str(tmp_path / "w.params")
    net.save_parameters(f)
    assert (nd.load(f)["weight"].asnumpy() == 2.0).all()


@pytest.mark.parametrize("num_slice,axis,even", [(8, 0, True), (3, 1, True), (4, 1, False),
                                                 (15, 1, False), (1, 0, True)])
def test_split_data_matches_numpy_array_split(num_slice, axis, even):
    x = nd.array(np.random.RandomState(2).rand(16, 33, 5))
    parts = split_data(x, num_slice, axis, even_split=even)
    ref = np.array_split(x.asnumpy(), num_slice, axis=axis)
    assert len(parts) == num_slice
    for got, want in zip(parts, ref):
        np.testing.assert_array_equal(got.asnumpy(), want)


def test_split_data_uneven_refused_unless_allowed():
    with pytest.raises(ValueError, match="cannot be evenly split into 4 slices along axis 1"):
        split_data(nd.zeros((2, 33)), 4, 1)


def test_split_and_load_places_slices():
    data = np.arange(12, dtype=np.float32).reshape(6, 2)
    parts = split_and_load(data, CTXS)
    assert [p.context for p in parts] == CTXS
    np.testing.assert_array_equal(parts[1].asnumpy(), data[3:])
    one = split_and_load(nd.array(data), [mx.cpu(1)])
    assert len(one) == 1 and one[0].context == mx.cpu(1)


def test_clip_global_norm_closed_form():
    x1, x2 = nd.ones((3, 3)), nd.ones((4, 4))
    norm = clip_global_norm([x1, x2], 1.0)
    assert norm == 5.0  # sqrt(9 + 16)
    np.testing.assert_allclose(x1.asnumpy(), np.ones((3, 3)) / 5, rtol=1e-6)
    np.testing.assert_allclose(x2.asnumpy(), np.ones((4, 4)) / 5, rtol=1e-6)
    small = nd.array([0.3, 0.4])
    n = clip_global_norm([small], 1.0, check_isfinite=False)
    assert isinstance(n, nd.NDArray) and n.shape == (1,)
    np.testing.assert_allclose(n.asnumpy(), [0.5], rtol=1e-6)
    np.testing.assert_allclose(small.asnumpy(), [0.3, 0.4], rtol=1e-6)  # under the limit
    for check in (True, False):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            clip_global_norm([nd.ones((2,)), nd.array([1.0, float("nan")])], 2.0,
                             check_isfinite=check)
        assert len(w) == int(check)
    with pytest.raises(ValueError, match="non-empty"):
        clip_global_norm([], 1.0)


def test_shape_is_known():
    assert shape_is_known((2, 3)) and not shape_is_known((2, 0)) and not shape_is_known(None)
    with pytest.raises(ValueError, match="below 0"):
        shape_is_known((2, -1))
    with mx.np_shape(True):  # -1 is the unknown size, 0 a real one, () a scalar's shape
        assert shape_is_known((2, 0)) and shape_is_known(()) and not shape_is_known((2, -1))

