"""Executor.reshape to a smaller shape shares the old executor's memory, as MXNet's does:
the new executor's arguments and outputs are views of the old ones' first elements."""
import numpy as np

import gluonlite as mx


def _bound():
    y = mx.sym.FullyConnected(mx.sym.Variable("x"), num_hidden=4)
    exe = y.simple_bind(mx.cpu(), x=(5, 4), grad_req="null")
    exe.arg_arrays[0][:] = 1
    exe.arg_arrays[1][:] = mx.nd.ones((4, 4))
    exe.arg_arrays[2][:] = 0
    return exe


def test_smaller_executor_writes_into_the_old_outputs():
    exe = _bound()
    new_exe = exe.reshape(x=(3, 4))
    new_exe.forward(is_train=False)
    np.testing.assert_array_equal(new_exe.outputs[0].asnumpy(), np.full((3, 4), 4.0))
    np.testing.assert_array_equal(exe.outputs[0].asnumpy()[:3], np.full((3, 4), 4.0))
    np.testing.assert_array_equal(exe.outputs[0].asnumpy()[3:], np.zeros((2, 4)))
    new_exe.arg_dict["x"][:] = 2  # the argument is shared too
    np.testing.assert_array_equal(exe.arg_dict["x"].asnumpy()[:3], np.full((3, 4), 2.0))
    np.testing.assert_array_equal(exe.arg_dict["x"].asnumpy()[3:], np.ones((2, 4)))
    assert new_exe.arg_arrays[1] is exe.arg_arrays[1]  # a weight keeps its shape: the same


def test_a_grown_executor_is_new_memory():
    exe = _bound()
    big = exe.reshape(x=(7, 4), allow_up_sizing=True)
    np.testing.assert_array_equal(big.arg_dict["x"].asnumpy(),
                                  np.r_[np.ones((5, 4)), np.zeros((2, 4))])
    big.forward()
    np.testing.assert_array_equal(big.outputs[0].asnumpy()[:5], np.full((5, 4), 4.0))
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(), np.zeros((5, 4)))
