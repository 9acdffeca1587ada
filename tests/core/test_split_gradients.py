"""SliceChannel's gradient when every part receives one (one concatenation) and when only
some do (the others are zeros)."""
import numpy as np
import pytest

from gluonlite import nd, autograd


@pytest.mark.parametrize("squeeze", [False, True])
def test_split_gradient_with_all_and_with_some_parts(squeeze):
    x = nd.array(np.random.RandomState(0).randn(3, 4, 2))
    x.attach_grad()
    with autograd.record():
        parts = nd.split(x, num_outputs=4, axis=1, squeeze_axis=squeeze)
        loss = sum((part * (k + 1)).sum() for k, part in enumerate(parts))
    loss.backward()
    want = np.broadcast_to(np.arange(1.0, 5.0).reshape(1, 4, 1), (3, 4, 2))
    np.testing.assert_array_equal(x.grad.asnumpy(), want)
    with autograd.record():
        loss = nd.split(x, num_outputs=4, axis=1, squeeze_axis=squeeze)[1].sum()
    loss.backward()
    want = np.zeros((3, 4, 2))
    want[:, 1] = 1
    np.testing.assert_array_equal(x.grad.asnumpy(), want)
