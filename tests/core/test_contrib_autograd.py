"""`mx.contrib.autograd`, MXNet's first autograd interface: train/test sections, marked
variables, backward and the grad/grad_and_loss wrappers (gradients in closed form)."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, nd
from gluonlite.contrib import autograd as cag


def test_train_section_records_in_training_mode_and_restores():
    assert not autograd.is_recording()
    with cag.train_section():
        assert autograd.is_recording() and autograd.is_training()
        with cag.test_section():
            assert not autograd.is_recording() and not autograd.is_training()
        assert autograd.is_recording()
    assert not autograd.is_recording() and not autograd.is_training()


def test_marked_variables_get_gradients():
    x = nd.array([1., 2., 3.])
    dx = nd.zeros_like(x)
    cag.mark_variables([x], [dx])
    with cag.train_section():
        y = x * x + 2 * x
    cag.compute_gradient([y])
    np.testing.assert_allclose(dx.asnumpy(), 2 * np.array([1., 2., 3.]) + 2)
    with cag.train_section():
        y = x * x
    cag.backward([y], [nd.array([1., 0., 2.])])
    np.testing.assert_allclose(dx.asnumpy(), [2., 0., 12.])


def test_grad_and_loss_and_grad():
    a, b = nd.array([3., -1.]), nd.array([4., 5.])
    grads, loss = cag.grad_and_loss(lambda u, v: u * v * v, argnum=[0, 1])(a, b)
    np.testing.assert_allclose(loss.asnumpy(), [48., -25.])
    np.testing.assert_allclose(grads[0].asnumpy(), [16., 25.])
    np.testing.assert_allclose(grads[1].asnumpy(), [24., -10.])
    only = cag.grad(lambda u: nd.exp(u))(nd.array([0., 1.]))
    np.testing.assert_allclose(only[0].asnumpy(), [1., np.e], rtol=1e-6)


def test_wrong_arguments_are_named():
    with pytest.raises(TypeError, match="must be NDArrays, got float"):
        cag.grad(lambda u: u * 2)(3.0)
    with pytest.raises(TypeError, match="outputs must be a list or tuple"):
        cag.backward(nd.ones((1,)))
    with pytest.raises(ValueError, match="got 2 out_grads for 1 outputs"):
        cag.backward([nd.ones((1,))], [nd.ones((1,)), nd.ones((1,))])


def test_it_is_reachable_as_mx_contrib_autograd():
    assert mx.contrib.autograd is cag
