"""softmax and log_softmax as MXNet 1.9.1's CPU build computes them
(gluonlite/ops/onednn_softmax.py): oneDNN's exp and log, its sixteen-lane row sums, the
product by the rounded reciprocal and the backward kernels, bit for bit against MXNet-made
numbers (fixtures/make_onednn_softmax.py), imperatively and through a static-alloc plan;
SoftmaxOutput through oneDNN in inference and through mshadow's kernel in training; the
float32 fused multiply-add under it against exact arithmetic; and the gradients against
finite differences."""
from fractions import Fraction

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, gluon, nd
from gluonlite.ops import libm32, onednn_softmax

from fixture_makers import maker, reference

make_onednn_softmax = maker("make_onednn_softmax")
_REF = reference("onednn_softmax_mxnet.npz")


def _equal(got, want):
    return (got == want) | (np.isnan(got) & np.isnan(want))


@pytest.mark.parametrize("part", ["exp", "softmax", "log_softmax"])
def test_softmax_is_mxnets_bit_for_bit(part):
    got = getattr(make_onednn_softmax, part)(mx)
    assert got
    for key, value in got.items():
        assert _equal(value, _REF[key]).all(), key


def test_numpy_exp_and_division_differ_from_mxnet_where_onednn_is_matched():
    # what the module is for: numpy's own float32 softmax agrees on a minority of entries
    x, _ = make_onednn_softmax._rows(3, (24, 16))
    e = np.exp(x - x.max(axis=1, keepdims=True))
    plain = e / e.sum(axis=1, keepdims=True)
    assert _equal(plain, _REF["y_24x16"]).mean() < 0.9
    assert _equal(onednn_softmax.softmax(x), _REF["y_24x16"]).all()


def test_log_is_onednns_not_the_correctly_rounded_one():
    # read off log_softmax of n zeros: its first entry is -log(n) in oneDNN's arithmetic
    n = make_onednn_softmax.LOG_SUMS.astype(np.float32)
    got = onednn_softmax.log(n)
    np.testing.assert_array_equal(-got, _REF["log_n"])
    exact = np.log(n.astype(np.float64))
    assert (got != exact.astype(np.float32)).mean() > 0.5   # what the module is for
    np.testing.assert_allclose(got, exact, rtol=1e-6, atol=2e-6)   # log(1) is -1.4e-6
    assert onednn_softmax.log(np.float32(0)) == -np.inf
    assert np.isnan(onednn_softmax.log(np.array([-1.0], np.float32))).all()


def test_log_softmax_differs_from_numpys_where_onednn_is_matched():
    x, _ = make_onednn_softmax._rows(3, (24, 16))
    z = x - x.max(axis=1, keepdims=True)
    plain = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    assert _equal(plain, _REF["ly_24x16"]).mean() < 0.5
    np.testing.assert_array_equal(onednn_softmax.log_softmax(x), _REF["ly_24x16"])


def test_softmax_output_inference_is_mxnets_and_training_is_mshadows():
    got = make_onednn_softmax.softmax_output(mx)
    for key, value in got.items():
        want = _REF[key]
        if key.startswith("infer") or libm32.has_c_library("expf"):
            assert _equal(value, want).all(), key
        else:
            # mshadow's kernel takes the C library's expf, glibc's here; the correctly
            # rounded value, taken without glibc, rounds a few entries the other way
            assert _equal(value, want).mean() > 0.99, key
            np.testing.assert_array_max_ulp(value, want, maxulp=1)


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("shape", [(24, 17), (3, 5, 40), (2, 3, 8, 24)])
def test_static_alloc_plan_gives_the_imperative_bits(shape, op):
    x, head = make_onednn_softmax._rows(7, shape)
    net = gluon.nn.HybridLambda(lambda F, a: getattr(F, op)(a))
    results = []
    for hybrid in (False, True):
        if hybrid:
            net.hybridize(static_alloc=True, static_shape=True)
        for _ in range(2):  # the plan's first call and a replay
            a = nd.array(x)
            a.attach_grad()
            with autograd.record():
                y = net(a)
            y.backward(nd.array(head))
            results.append((y.asnumpy(), a.grad.asnumpy()))
    for y, g in results[1:]:
        np.testing.assert_array_equal(y, results[0][0])
        np.testing.assert_array_equal(g, results[0][1])


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_gradient_matches_finite_differences(op):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((3, 20)).astype(np.float32)
    w = rng.standard_normal((3, 20)).astype(np.float32)
    a = nd.array(x)
    a.attach_grad()
    with autograd.record():
        y = getattr(nd, op)(a)
    y.backward(nd.array(w))

    def f(v):
        return float((getattr(nd, op)(nd.array(v)).asnumpy().astype(np.float64) * w).sum())

    num, = mx.test_utils.finite_difference(f, [x.copy()], eps=1e-2)
    np.testing.assert_allclose(a.grad.asnumpy(), num, rtol=2e-2, atol=2e-3)


def test_rows_with_infinities_and_nan_keep_onednns_special_cases():
    x = np.array([[0.0, -np.inf, 1.0], [-np.inf] * 3, [1.0, np.nan, 2.0], [2.0, 1.0, 0.5]],
                 np.float32)
    with np.errstate(all="ignore"):
        y = nd.softmax(nd.array(x)).asnumpy()
    assert y[0, 1] == 0 and y[0].sum() == pytest.approx(1, rel=1e-6)
    assert np.isnan(y[1]).all()                        # 0 * (1 / 0), as the kernel gives
    assert np.isnan(y[2, 1]) and (y[2, [0, 2]] == 0).all()
    np.testing.assert_array_equal(y[3], onednn_softmax.softmax(x[3:])[0])
    with np.errstate(all="ignore"):
        ly = nd.log_softmax(nd.array(x)).asnumpy()
    assert ly[0, 1] == -np.inf and np.isnan(ly[1]).all() and np.isnan(ly[2, 1])
    np.testing.assert_array_equal(ly[3], onednn_softmax.log_softmax(x[3:])[0])


def test_other_calls_keep_mxnets_own_kernel():
    # a temperature, float64, a length or another axis: MXNet's CPU build does not take
    # these to oneDNN, and neither does gluonlite
    x, _ = make_onednn_softmax._rows(5, (6, 17))
    onednn = onednn_softmax.softmax(x)
    plain = np.exp(x - x.max(axis=1, keepdims=True))
    plain = plain / plain.sum(axis=1, keepdims=True)
    for y in (nd.softmax(nd.array(x), temperature=1.0), nd.softmax(nd.array(x.T), axis=0).T):
        y = y.asnumpy()
        assert not _equal(y, onednn).all()
        np.testing.assert_allclose(y, plain, rtol=1e-6)


def test_row_sums_add_sixteen_lanes_in_order_then_fold_them():
    rng = np.random.default_rng(3)
    # magnitudes far apart: each order of additions gives its own float32 sum
    a = (rng.standard_normal((5, 1000)) * np.exp(rng.standard_normal((5, 1000)) * 6)
         ).astype(np.float32)
    lanes = np.zeros((5, 16), np.float32)
    for j in range(0, 1000, 16):
        block = np.zeros((5, 16), np.float32)
        block[:, :min(16, 1000 - j)] = a[:, j:j + 16]
        lanes += block
    for half in (8, 4, 2, 1):
        lanes = lanes[:, :half] + lanes[:, half:2 * half]
    np.testing.assert_array_equal(onednn_softmax.row_sums(a), lanes)
    assert not (a.sum(axis=1, keepdims=True) == lanes).all()


def _round_once(exact):
    """The float32 nearest `exact` (a Fraction), ties to even."""
    f = np.float32(float(exact))
    near = [np.nextafter(f, np.float32(-np.inf)), f, np.nextafter(f, np.float32(np.inf))]
    return min(near, key=lambda v: (abs(Fraction(float(v)) - exact),
                                    int(np.float32(v).view(np.uint32)) & 1))


def test_fma32_rounds_once_even_where_a_float64_sum_lands_halfway():
    a = c = np.float32(1 + 2.0 ** -23)
    b = np.float32(2.0 ** -24 * (1 - 2.0 ** -23))
    exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    twice = (np.float64(a) * np.float64(b) + np.float64(c)).astype(np.float32)
    assert twice != _round_once(exact)                 # the case double rounding gets wrong
    assert onednn_softmax.fma32(a, b, c) == _round_once(exact)
    # and the other side of the halfway point, and arrays of many magnitudes
    assert onednn_softmax.fma32(a, -b, -c) == _round_once(-exact)
    rng = np.random.default_rng(0)
    x, y, z = (rng.standard_normal(400).astype(np.float32) * s for s in (1, 1e-7, 1))
    got = onednn_softmax.fma32(x, y, z)
    want = [_round_once(Fraction(float(p)) * Fraction(float(q)) + Fraction(float(r)))
            for p, q, r in zip(x, y, z)]
    np.testing.assert_array_equal(got, np.array(want, np.float32))


def test_exp_rounds_each_multiply_add_once_where_a_float64_sum_lands_halfway():
    # exp of x = 1.788139770e-7, just above 3 * 2**-24 (n = 0, so r = x; found by a search
    # over every float32 from 2**-26 to 2**-8): a multiply-add's float64 sum falls exactly
    # halfway between two float32 values, on the other side of the exact sum, so rounding
    # it again goes the wrong way. It is rounded once, among many other entries.
    x = np.array([876609539], np.uint32).view(np.float32)[0]
    e, twice = onednn_softmax._POLY[4], onednn_softmax._POLY[4]
    for c in onednn_softmax._POLY[3::-1] + (np.float32(1),):
        e = _round_once(Fraction(float(e)) * Fraction(float(x)) + Fraction(float(c)))
        twice = np.float32(float(twice) * float(x) + float(c))
    assert e != twice                                   # the case double rounding gets wrong
    data = np.full(5000, x, np.float32)
    data[::3] = np.linspace(-5, 5, len(data[::3]))    # other entries around it
    got = onednn_softmax.exp(data)
    assert (got[data == x] == e).all()
    rest = data != x
    np.testing.assert_allclose(got[rest], np.exp(data[rest]), rtol=3e-7)


def test_exp_is_zero_below_the_kernels_range_and_at_its_lowest_power():
    lo = np.float32(-87.33654)
    x = np.array([-1000, lo - 1, -87.2, 0, -1e-30], np.float32)
    e = onednn_softmax.exp(x)
    assert e[0] == e[1] == 0
    assert e[2] == 0              # n - 1 = -127: the power's bits are zero
    assert e[3] == 1 and e[4] == 1


def test_a_softmax_beyond_exact_entries_keeps_numpys_exp_and_division():
    n = onednn_softmax.EXACT_ENTRIES // 64 + 1           # 64 rows: one row over the limit
    x = (np.random.default_rng(6).standard_normal((64, n)) * 3).astype(np.float32)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    plain = e / e.sum(axis=1, keepdims=True)
    np.testing.assert_array_equal(nd.softmax(nd.array(x)).asnumpy(), plain)
    assert not onednn_softmax.applies(x.size) and onednn_softmax.applies(x[:63].size)
    np.testing.assert_array_equal(nd.softmax(nd.array(x[:63])).asnumpy(),
                                  onednn_softmax.softmax(x[:63]))
    # the two differ in the last bits only (oneDNN's exp is 2 to 5 units off far below 0)
    np.testing.assert_allclose(plain[:63], onednn_softmax.softmax(x[:63]), rtol=1.5e-6,
                               atol=1e-37)


@pytest.mark.parametrize("shape", [(3, 0, 4), (0, 0), (2, 5, 0)])
def test_zero_size_data_gives_empty_outputs_and_gradients(shape):
    @mx.use_np
    def run(hybrid):
        net = gluon.nn.HybridLambda(lambda F, a: F.npx.softmax(a))
        if hybrid:
            net.hybridize()
        a = mx.np.zeros(shape)
        a.attach_grad()
        with autograd.record():
            y = net(a)
        y.backward()
        return y.shape, a.grad.shape

    for hybrid in (False, True):
        assert run(hybrid) == (shape, shape)
    for f in (onednn_softmax.softmax, onednn_softmax.log_softmax):
        assert f(np.zeros(shape, np.float32)).shape == shape
    for f in (onednn_softmax.softmax_grad, onednn_softmax.log_softmax_grad):
        assert f(np.zeros(shape, np.float32), np.zeros(shape, np.float32)).shape == shape
