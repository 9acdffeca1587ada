"""Initializers: MXNet semantics and defaults."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd, gluon


def _fill(init, shape, name="x_weight"):
    a = nd.zeros(shape)
    mx.init.create(init)(mx.init.InitDesc(name), a)
    return a.asnumpy()


def test_uniform_normal_constant_zero_one():
    u = _fill(mx.init.Uniform(), (100, 50))
    assert np.abs(u).max() <= 0.07 and abs(u.std() - 0.07 / np.sqrt(3)) < 0.005
    n = _fill(mx.init.Normal(0.5), (200, 50))
    assert abs(n.std() - 0.5) < 0.02
    assert (_fill(mx.init.Constant(2.5), (3, 2)) == 2.5).all()
    assert not _fill("zeros", (3,)).any() and (_fill(mx.init.One(), (3,)) == 1).all()


def test_xavier_scale_and_vector_error():
    w = _fill(mx.init.Xavier(), (300, 100))
    bound = np.sqrt(3.0 / ((300 + 100) / 2))
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    g = _fill(mx.init.Xavier(rnd_type="gaussian", factor_type="in", magnitude=2), (400, 100))
    assert abs(g.std() - np.sqrt(2 / 100)) < 0.01
    with pytest.raises(ValueError, match="2 dimensions"):
        _fill(mx.init.Xavier(), (5,))


def test_orthogonal():
    w = _fill(mx.init.Orthogonal(scale=1.0), (6, 10))
    np.testing.assert_allclose(w @ w.T, np.eye(6), atol=1e-5)


def test_name_patterns_and_create():
    init = mx.init.Uniform()
    assert (_fill(init, (3,), "a_gamma") == 1).all()
    assert not _fill(init, (3,), "a_bias").any()
    with pytest.raises(ValueError, match="Unknown initialization pattern"):
        _fill(init, (3,), "mystery")
    again = mx.init.create(mx.init.Normal(0.3).dumps())
    assert isinstance(again, mx.init.Normal) and again.sigma == 0.3
    with pytest.raises(ValueError, match="unknown initializer"):
        mx.init.create("nope")


def test_parameter_init_precedence():
    d = gluon.nn.Dense(4, in_units=3, weight_initializer=mx.init.Constant(0.5),
                       bias_initializer=mx.init.One())
    d.initialize(mx.init.Zero())
    assert (d.weight.data().asnumpy() == 0.5).all() and (d.bias.data().asnumpy() == 1).all()
    p = gluon.Parameter("w", shape=(2, 0))
    with pytest.raises(ValueError, match="invalid shape"):
        p.initialize()


def test_lstm_bias_sets_the_forget_gate():
    cell = gluon.rnn.LSTMCell(3, input_size=2, i2h_bias_initializer=mx.init.LSTMBias(2.0))
    cell.initialize(mx.init.Uniform())
    np.testing.assert_array_equal(cell.i2h_bias.data().asnumpy(),
                                  [0, 0, 0, 2, 2, 2, 0, 0, 0, 0, 0, 0])
    assert not cell.h2h_bias.data().asnumpy().any()
    # the JSON a symbol variable stores names it, and create() reads it back
    again = mx.init.create(mx.init.LSTMBias(0.5).dumps())
    assert isinstance(again, mx.init.LSTMBias) and again.forget_bias == 0.5
    a = nd.zeros((4,))
    mx.init.Uniform()(mx.init.InitDesc("b_bias", {"__init__": again.dumps()}), a)
    np.testing.assert_array_equal(a.asnumpy(), [0, 0.5, 0, 0])
    with pytest.raises(ValueError, match=r"LSTMBias: x_weight has shape \(6,\); an LSTM bias "
                                         "stacks 4 gates"):
        _fill(mx.init.LSTMBias(), (6,))
