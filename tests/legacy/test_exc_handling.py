"""Where an operator's fault surfaces. MXNet's engine runs asynchronously, so a fault found
inside a kernel (a negative scale for random.normal) is raised when a result is read
(asnumpy, wait_to_read, waitall). gluonlite runs eagerly and raises the same MXNetError at the
call that fails, naming the operator (DESIGN.md: fail early); nothing is left pending, so
a later wait or read does not raise again."""
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError


def test_an_imperative_fault_is_an_mxnet_error_at_the_call():
    with pytest.raises(MXNetError, match="_random_normal: scale must be positive"):
        mx.nd.random.normal(0, -1, (2, 2))
    mx.nd.waitall()  # nothing pending: MXNet's test_multiple_waitalls holds this too
    assert mx.nd.dot(mx.nd.ones((2, 2)), mx.nd.ones((2, 2))).asnumpy().sum() == 8


def test_a_symbolic_fault_surfaces_at_forward():
    out = mx.sym.dot(mx.sym.var("x"), mx.sym.random.normal(0, -1, (2, 2)))
    exe = out.bind(mx.cpu(), {"x": mx.nd.ones((2, 2))})
    with pytest.raises(MXNetError, match="scale must be positive"):
        exe.forward()


def test_a_gluon_fault_is_an_mxnet_error():
    net = mx.gluon.nn.Dense(4, in_units=3)
    net.initialize()
    with pytest.raises(MXNetError):
        net(mx.nd.random.normal(10, -10, (2, 3)))
