"""relu and Activation('relu') run numpy's ``maximum``/``fmax`` against a block of zeros
(`gluonlite.ops.relu_fast`): over arrays of many blocks, strided views and every length of
a vector loop's tail, the results are the plain definitions', bit for bit (NaN, -0, inf);
and so are LeakyReLU's, computed as ``max(slope*x, x)``."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import gluon, nd
from gluonlite.ops import relu_fast

SPECIALS = [np.nan, -np.nan, -0.0, 0.0, np.inf, -np.inf, 1e-45, -1e-45, -1.0, 2.0]


def _data(shape, dtype, seed=0):
    x = np.random.RandomState(seed).randn(*shape).astype(dtype)
    x.flat[::3] = np.resize(np.array(SPECIALS, dtype), x.flat[::3].size)
    return x


def _bits(a):
    a = np.asarray(a)
    return a.dtype, a.tobytes()


def _activation_relu(x):
    """MXNet's Activation relu: max(x, 0) with +0 for -0, and 0 for a float32 NaN."""
    keep = (x > 0) if x.dtype == np.float32 else ((x > 0) | np.isnan(x))
    return np.where(keep, x, np.zeros((), x.dtype)).astype(x.dtype)


def _relu(x):
    """MXNet's relu: max(x, 0) with +0 for -0; NaN stays NaN."""
    return np.where((x > 0) | np.isnan(x), x, np.zeros((), x.dtype)).astype(x.dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(7,), (33,), (3, 5, 11), (2, relu_fast.BLOCK + 5)])
def test_relu_and_activation_equal_their_definitions(dtype, shape):
    x = _data(shape, dtype)
    assert _bits(nd.relu(nd.array(x, dtype=dtype)).asnumpy()) == _bits(_relu(x))
    got = nd.Activation(nd.array(x, dtype=dtype), act_type="relu").asnumpy()
    assert _bits(got) == _bits(_activation_relu(x))


def test_strided_views_and_in_place_outputs():
    big = _data((40, 3 * relu_fast.BLOCK // 40 + 9), "float32", seed=1)
    view = big[:, 5:-4]                                   # rows contiguous, not the whole
    out = np.full(big.shape, 7.0, np.float32)
    relu_fast.max_zero(np.maximum, view, out[:, 5:-4])
    assert _bits(out[:, 5:-4]) == _bits(_relu(view))
    assert (out[:, :5] == 7.0).all() and (out[:, -4:] == 7.0).all()
    y = big.copy()
    relu_fast.max_zero(np.maximum, y, y)
    assert _bits(y) == _bits(_relu(big))
    stepped = big[:, ::2]                                 # no contiguous rows: scalar form
    assert _bits(relu_fast.max_zero(np.maximum, stepped)) == _bits(_relu(stepped))


def test_a_hybridized_conv_relu_chain_matches_the_imperative_one():
    mx.random.seed(0)
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Conv2D(8, 3, padding=1), gluon.nn.BatchNorm(), gluon.nn.Activation("relu"))
    net.initialize(mx.init.Xavier())
    x = nd.array(np.random.RandomState(2).randn(2, 3, 40, 40).astype(np.float32))
    want = net(x).asnumpy()
    net.hybridize()
    got = net(x).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert (got >= 0).all() and not np.signbit(got).any()


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("slope", [0.0, 1e-30, 0.1, 1.0, 1.5])
def test_leaky_relu_equals_its_definition(dtype, slope):
    """LeakyReLU's leaky form (``max(slope*x, x)`` for a slope in (0, 1]) picks the element
    ``where(x > 0, x, slope*x)`` picks, at 0, -0, inf and NaN included."""
    x = _data((3, 41), dtype, seed=3)
    s = np.dtype(dtype).type(slope)
    with np.errstate(invalid="ignore", over="ignore"):
        want = np.where(x > 0, x, x * s)
        got = nd.LeakyReLU(nd.array(x, dtype=dtype), act_type="leaky", slope=slope).asnumpy()
    assert _bits(got) == _bits(want)
