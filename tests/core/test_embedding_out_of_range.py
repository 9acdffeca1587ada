"""Embedding with indices outside [0, input_dim): MXNet 1.9.1 clips them, forward and
backward (the gradient of a clipped index goes to the row it read). Expected values made
with MXNet 1.9.1: ``w = arange(10).reshape(5, 2)``, indices ``[0, 5, 7, -1]``."""
import numpy as np

from gluonlite import autograd, nd


def test_out_of_range_indices_read_and_train_the_clipped_row():
    w = nd.arange(10).reshape((5, 2))
    w.attach_grad()
    with autograd.record():
        y = nd.Embedding(nd.array([0, 5, 7, -1]), w, input_dim=5, output_dim=2)
    y.backward(nd.array([[1, 2], [3, 4], [5, 6], [7, 8]]))
    np.testing.assert_array_equal(y.asnumpy(), [[0, 1], [8, 9], [8, 9], [0, 1]])
    np.testing.assert_array_equal(w.grad.asnumpy(),
                                  [[8, 10], [0, 0], [0, 0], [0, 0], [8, 10]])
