"""Float32 sums are the float32 nearest the exact sum, as MXNet's compensated reducer nearly
always gives them: `sum`, `mean`, `nansum`, `moments`, `mx.np`'s sum, mean, var and std, and
the sums of sparse arrays, imperatively and compiled; and `softmax_cross_entropy` in MXNet's
arithmetic, its floor of 1e-8 included (fixtures/make_wide_sums.py made the MXNet 1.9.1
reference)."""

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd
from gluonlite.ops import libm32

from fixture_makers import maker, reference

make_wide_sums = maker("make_wide_sums")
_REF = reference("wide_sums_mxnet.npz")
_GOT = {}
for _part in make_wide_sums.PARTS:
    _GOT.update(getattr(make_wide_sums, _part)(mx))

CASES = [((4000,), None), ((4000,), 0), ((500, 64), 0), ((500, 64), 1), ((64, 500), 0),
         ((7, 30, 40), (0, 2)), ((7, 30, 40), None), ((3, 3000), 1)]


def _exact(x, axis):
    """The float32 nearest the exact sum (float64 is exact enough at these sizes)."""
    return np.asarray(np.sum(x, axis=axis, dtype=np.float64)).astype(np.float32)


def _data(shape, seed):
    rng = np.random.RandomState(seed)
    # entries of both signs and of many magnitudes: numpy's own float32 sum drifts on these
    return (rng.randn(*shape) * np.exp(rng.randn(*shape) * 3)).astype(np.float32)


def _ulps(got, want):
    return np.abs(got.astype(np.float64) - want) / np.spacing(np.abs(want).astype(np.float32))


@pytest.mark.parametrize("shape, axis", CASES)
def test_sums_are_the_nearest_float32_to_the_exact_sum(shape, axis):
    x = _data(shape, 1)
    want = _exact(x, axis).reshape(-1)
    assert (nd.sum(nd.array(x), axis=axis).asnumpy().reshape(-1) == want).all()
    assert (mx.np.sum(mx.np.array(x), axis=axis).asnumpy().reshape(-1) == want).all()
    with_nan = x.copy()
    with_nan.reshape(-1)[::5] = np.nan
    got = nd.nansum(nd.array(with_nan), axis=axis).asnumpy().reshape(-1)
    assert (got == _exact(np.nan_to_num(with_nan, nan=0.0), axis).reshape(-1)).all()
    # _square_sum: the float32 squares, summed as the sums are
    got = nd._internal._square_sum(nd.array(x), axis=axis).asnumpy().reshape(-1)
    assert (got == _exact(x * x, axis).reshape(-1)).all()


def test_numpys_float32_sum_is_not_the_nearest_on_this_data():
    # what makes the test above able to fail: numpy's own float32 sums drift off it
    off = [(np.asarray(np.sum(x, axis=axis)) != _exact(x, axis)).mean()
           for x, axis in ((_data(shape, 1), axis) for shape, axis in CASES)]
    assert sum(f > 0.2 for f in off) >= len(CASES) // 2, off


@pytest.mark.parametrize("shape, axis", CASES)
def test_means_divide_the_rounded_sum_as_mxnet(shape, axis):
    x = _data(shape, 2)
    n = x.size // np.asarray(_exact(x, axis)).size
    want = (_exact(x, axis) / np.float32(n)).reshape(-1)     # a float32 division
    assert (nd.mean(nd.array(x), axis=axis).asnumpy().reshape(-1) == want).all()
    assert (mx.np.mean(mx.np.array(x), axis=axis).asnumpy().reshape(-1) == want).all()


@pytest.mark.parametrize("stype", ["csr", "row_sparse"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_sparse_sums_read_only_stored_values_and_round_once(stype, axis):
    x = _data((400, 300), 3)
    x[np.random.RandomState(4).rand(*x.shape) > 0.2] = 0
    if stype == "row_sparse":
        x[np.random.RandomState(5).rand(x.shape[0]) > 0.5] = 0
    a = nd.array(x).tostype(stype)
    got = nd.sum(a, axis=axis)
    assert got.stype == "default"
    assert (got.asnumpy().reshape(-1) == _exact(x, axis).reshape(-1)).all()


def test_compiled_sums_equal_imperative_ones():
    class Net(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.sum(x, axis=0), F.mean(x, axis=1), F.nansum(x, axis=0)

    x = nd.array(_data((500, 64), 6))
    net = Net()
    want = [y.asnumpy() for y in net(x)]
    net.hybridize(static_alloc=True)
    for _ in range(2):
        for got, w in zip(net(x), want):
            assert (got.asnumpy() == w).all()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gradients_of_sums_match_finite_differences(dtype):
    x0 = np.random.RandomState(7).randn(6, 5)
    w = np.random.RandomState(8).randn(6)

    def f(v, record=False):
        x = nd.array(v, dtype=dtype)
        if record:
            x.attach_grad()
        with mx.autograd.record():
            y = nd.sum(x, axis=1) * 2 + nd.mean(x, axis=0).sum() + nd.nansum(x * x, axis=1)
            loss = (y * nd.array(w, dtype=dtype)).sum()
        if record:
            loss.backward()
            return x.grad.asnumpy()
        return float(loss.asnumpy()[0])

    eps = 1e-3 if dtype == "float32" else 1e-6
    fd = np.zeros_like(x0)
    for i in np.ndindex(x0.shape):
        up, down = x0.copy(), x0.copy()
        up[i] += eps
        down[i] -= eps
        fd[i] = (f(up) - f(down)) / (2 * eps)
    np.testing.assert_allclose(f(x0, record=True), fd, rtol=1e-2 if dtype == "float32" else 1e-6,
                               atol=1e-2 if dtype == "float32" else 1e-6)


def test_float16_mean_is_taken_before_its_sum_is_rounded():
    # the float16 sum overflows past 65504 (inf, as MXNet's); the mean does not (MXNet's
    # gives NaN: its rounded sum, inf, over the count, which is inf in float16 too)
    x = nd.ones((100000,), dtype="float16")
    assert np.isinf(nd.sum(x).asnumpy()).all()
    assert nd.mean(x).asnumpy()[0] == 1.0


def _keys(*prefixes):
    return [k for k in _REF.files if k.startswith(prefixes)]


@pytest.mark.parametrize("key", [k for k in _keys(
    "sum_", "nansum_", "np_sum_", "csr_sum_", "rsp_sum_", "rsp_square_sum_", "mean_",
    "np_mean_", "csr_mean_", "rsp_mean_") if "_pos" in k])
def test_sums_of_one_sign_within_an_ulp_of_mxnet(key):
    # (where entries of both signs cancel, MXNet's compensated float32 sum may be off the
    # exact one, and gluonlite's is the nearest float32 to it: the tests above)
    got, want = _GOT[key], _REF[key]
    assert got.shape == want.shape and got.dtype == want.dtype
    # a mean rounds twice (its sum, then the division): 2 units at most
    assert _ulps(got, want).max() <= (2 if "mean" in key else 1), key


def test_most_sums_of_one_sign_equal_mxnets_bit_for_bit():
    keys = [k for k in _REF.files if "_pos" in k]
    equal = sum(int((_GOT[k] == _REF[k]).sum()) for k in keys)
    assert equal / sum(_REF[k].size for k in keys) >= 0.9     # numpy's float32 sums: 0.7


@pytest.mark.parametrize("key", _keys("moments_", "np_var_", "np_std_"))
def test_moments_var_and_std_equal_mxnet_bit_for_bit(key):
    got, want = _GOT[key], _REF[key]
    assert got.shape == want.shape and got.dtype == want.dtype
    assert (got == want).all(), key


def test_softmax_cross_entropy_is_mxnets_to_the_bit():
    # each row alone and batches of 64: the rows' losses floored as MXNet's kernel floors
    # them, and added in its order
    for key in [k for k in _REF.files if k.startswith(("sce_rows", "sce_batch_"))]:
        assert (_GOT[key] == _REF[key]).all(), key
    for key in [k for k in _REF.files if k.startswith("sce_grad_")]:
        assert np.abs(_GOT[key] - _REF[key]).max() <= 1e-8, key
        assert (_GOT[key] == _REF[key]).mean() >= 0.999, key
        if libm32.has_c_library("expf"):
            # its exponentials are the C library's expf (ops/libm32.py): every bit
            assert (_GOT[key] == _REF[key]).all(), key


def test_softmax_cross_entropy_floors_each_rows_probability_at_1e_8():
    x = nd.array([[0.0, 0.0], [50.0, -50.0], [-50.0, 50.0]])
    x.attach_grad()
    with mx.autograd.record():
        y = nd.softmax_cross_entropy(x, nd.array([0, 1, 1]))
    y.backward()
    floor = -np.log(np.float32(1e-8))            # 18.420681: the wrong row adds no more
    assert y.asnumpy()[0] == np.float32(np.log(np.float32(2)) + floor)
    # the gradient is softmax - onehot all the same, as MXNet's
    np.testing.assert_allclose(x.grad.asnumpy(), [[-0.5, 0.5], [1, -1], [0, 0]], atol=1e-7)


def test_softmax_cross_entropy_gradient_matches_finite_differences():
    x0 = np.random.RandomState(9).randn(5, 7)
    label = nd.array([0, 3, 6, 2, 2], dtype="float64")

    def loss(v):
        return float(nd.softmax_cross_entropy(nd.array(v, dtype="float64"), label).asnumpy()[0])

    x = nd.array(x0, dtype="float64")
    x.attach_grad()
    with mx.autograd.record():
        y = nd.softmax_cross_entropy(x, label)
    y.backward()
    fd = np.zeros_like(x0)
    for i in np.ndindex(x0.shape):
        up, down = x0.copy(), x0.copy()
        up[i] += 1e-6
        down[i] -= 1e-6
        fd[i] = (loss(up) - loss(down)) / 2e-6
    np.testing.assert_allclose(x.grad.asnumpy(), fd, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("hybridize", [False, True])
def test_fully_connected_bias_gradient_adds_rows_in_order_as_mxnet(hybridize):
    # the fixture's calls, imperatively and through a hybridized Dense; with one output
    # numpy's own sum would take a pairwise order and differ in the last bits
    rng = np.random.RandomState(50)
    for f in (1, 3, 16):
        x = nd.array(rng.randn(1024, 8).astype(np.float32))
        w = rng.randn(f, 8).astype(np.float32)
        head = (rng.rand(1024, f) * rng.choice([1.0, 100.0], (1024, f))).astype(np.float32)
        net = mx.gluon.nn.Dense(f, in_units=8)
        net.initialize()
        net.weight.set_data(nd.array(w))
        net.bias.set_data(nd.zeros(f))
        if hybridize:
            net.hybridize(static_alloc=True)
        with mx.autograd.record():
            y = net(x)
        y.backward(nd.array(head))
        got = net.bias.grad().asnumpy()
        assert (got == _REF[f"fc_bias_{f}"]).all(), f


def test_broadcast_gradients_are_summed_as_mxnets():
    # the gradient of a broadcast operand is a sum over the axes it was broadcast along:
    # MXNet's is compensated, so a sum of one-signed terms (broadcast_add's, under a positive
    # head) is nearly always its bits and within a unit; where the terms cancel
    # (broadcast_mul's) gluonlite's is the nearest float32 to the exact sum, MXNet's close
    adds = [k for k in _REF.files if k.startswith("broadcast_add_")]
    for key in adds:
        assert _ulps(_GOT[key], _REF[key]).max() <= 1, key
    equal = sum(int((_GOT[k] == _REF[k]).sum()) for k in adds)
    assert equal / sum(_REF[k].size for k in adds) >= 0.9     # numpy's own sums: 0.43
    for key in [k for k in _REF.files if k.startswith("broadcast_mul_")]:
        np.testing.assert_allclose(_GOT[key], _REF[key], rtol=1e-5, err_msg=key)
