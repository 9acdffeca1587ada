"""`mx.contrib.autograd`: MXNet's legacy autograd interface (one switch for training and
recording; gradients into buffers given by `mark_variables`)."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, nd
from gluonlite.contrib import autograd as cag


def test_reached_as_mx_contrib_autograd():
    assert mx.contrib.autograd is cag
    assert "grad_and_loss" in cag.__all__


def test_set_is_training_switches_recording_and_training_together():
    prev = cag.set_is_training(True)
    try:
        assert autograd.is_recording() and autograd.is_training()
        assert cag.set_is_training(False) is True
        assert not autograd.is_recording() and not autograd.is_training()
    finally:
        cag.set_is_training(prev)
    assert prev is False


def test_sections_nest_and_restore():
    x = nd.ones((20, 20))
    with cag.train_section():
        assert (nd.Dropout(x, p=0.5).asnumpy() != 1).any()
        with cag.test_section():
            assert (nd.Dropout(x, p=0.5).asnumpy() == 1).all()
            assert not autograd.is_recording()
        assert autograd.is_recording()
    assert not autograd.is_recording() and not autograd.is_training()


def test_grad_and_loss_argnum_and_values():
    a = nd.array([[1.0, 2.0], [3.0, 4.0]])
    b = nd.array([[0.5, -1.0], [2.0, 0.0]])
    grads, out = cag.grad_and_loss(lambda x, y, k: x * y + k * x, argnum=[0, 1])(a, b, 3.0)
    np.testing.assert_allclose(out.asnumpy(), a.asnumpy() * b.asnumpy() + 3 * a.asnumpy())
    np.testing.assert_allclose(grads[0].asnumpy(), b.asnumpy() + 3)
    np.testing.assert_allclose(grads[1].asnumpy(), a.asnumpy())
    g, = cag.grad(lambda x: nd.exp(x))(a)
    np.testing.assert_allclose(g.asnumpy(), np.exp(a.asnumpy()), rtol=1e-6)


def test_grad_and_loss_refuses_a_non_array_argument():
    with pytest.raises(TypeError, match="grad_and_loss: differentiated argument 0"):
        cag.grad_and_loss(lambda x: x)(3.0)


def test_backward_with_a_none_out_grad_and_add_req():
    x = nd.ones((3, 5))
    dx = nd.zeros_like(x)
    cag.mark_variables([x], [dx])
    with cag.train_section():
        a, b, c = nd.split(x, axis=0, num_outputs=3, squeeze_axis=True)
        cag.backward([a, b, c], [None, nd.array([1, 2, 3, 4, 5]), nd.array([5, 4, 3, 2, 1])])
    np.testing.assert_array_equal(dx.asnumpy(), [[1] * 5, [1, 2, 3, 4, 5], [5, 4, 3, 2, 1]])

    y0 = nd.ones((2,))
    dy = nd.zeros((2,))
    cag.mark_variables([y0], [dy], grad_reqs="add")
    with cag.train_section():
        z = y0 * 3
    cag.backward([z], retain_graph=True)
    cag.compute_gradient([z])
    np.testing.assert_array_equal(dy.asnumpy(), [6, 6])


def test_backward_argument_errors():
    x = nd.ones((2,))
    with pytest.raises(TypeError, match="outputs must be a list or tuple"):
        cag.backward(x)
    with pytest.raises(ValueError, match="1 outputs but 2 out_grads"):
        cag.backward([x], [None, None])
