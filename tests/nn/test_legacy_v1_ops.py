"""MXNet 1.9.1's deprecated Convolution_v1 and Pooling_v1 are the current operators under
their old names (graphs saved with them load and run)."""
import numpy as np

from gluonlite import nd, sym


def test_pooling_v1_gives_mxnet_numbers():
    x = nd.array(np.arange(16.0).reshape(1, 1, 4, 4))
    got = nd.Pooling_v1(x, kernel=(2, 2), stride=(2, 2), pool_type="max")
    assert got.asnumpy().ravel().tolist() == [5.0, 7.0, 13.0, 15.0]  # MXNet 1.9.1's output


def test_convolution_v1_is_convolution_in_a_graph_too():
    rng = np.random.RandomState(0)
    x, w, b = (nd.array(rng.randn(*s)) for s in [(2, 3, 5, 5), (4, 3, 3, 3), (4,)])
    want = nd.Convolution(x, w, b, kernel=(3, 3), num_filter=4, pad=(1, 1)).asnumpy()
    got = nd.Convolution_v1(x, w, b, kernel=(3, 3), num_filter=4, pad=(1, 1)).asnumpy()
    np.testing.assert_array_equal(got, want)
    y = sym.Convolution_v1(sym.var("x"), sym.var("w"), sym.var("b"), kernel=(3, 3),
                           num_filter=4, pad=(1, 1))
    out = y.eval(x=x, w=w, b=b)[0].asnumpy()
    np.testing.assert_allclose(out, want, rtol=1e-6)
