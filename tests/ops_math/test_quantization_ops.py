"""The int8 quantization operators against MXNet 1.9.1 (tests/fixtures/quantization_expected.json,
made by tests/fixtures/make_quantization.py from the calls in quantization_cases.py), and where
gluonlite deliberately differs from MXNet's kernels (gluonlite/ops/quantization.py lists those),
against the float operators on the dequantized inputs."""
import importlib.util
import json
import os
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gluonlite as mx
from gluonlite import nd, sym

FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures")
C = nd.contrib


def _load_cases():
    spec = importlib.util.spec_from_file_location(
        "quantization_cases", os.path.join(FIX, "quantization_cases.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.cases


with open(os.path.join(FIX, "quantization_expected.json"), encoding="utf-8") as _f:
    EXPECTED = json.load(_f)

# Cases where MXNet 1.9.1's kernel is wrong and gluonlite gives the right numbers instead
# (each is tested below against the float operators); every other case must match to the bit.
DIFFERS = {
    "act_relu_uint8_reinterpreted", "type_act_uint8",                    # relu of uint8 data
    "add_int8_uint8_nocalib",                                            # mixed dtypes, int32
    "bn_int8", "bn_int8_eps", "bn_int8_fix_gamma_default_eps",           # eps twice, fix_gamma
    "bn_no_calib_refused",                                               # runs uncalibrated
    "conv_1x1", "conv_2x3_dilate", "conv_3x3_pad1", "conv_3x3_stride2_pad1",  # raw int8 bias
    "conv_float32_sum", "sym_quantized_conv", "conv_int8_data_refused",
    "conv_1x1_stride2_no_bias", "conv_3x3_valid_no_bias", "conv_float32_sum_no_bias",
    "fc_no_bias_int32_wraps", "sym_mul_calib_int8",                      # wrap-around
}
SAME = sorted(set(EXPECTED) - DIFFERS)


@pytest.fixture(scope="module")
def got():
    return json.loads(json.dumps(_load_cases()(mx)))


def test_the_fixture_covers_every_operator():
    ops = {"quantize", "quantize_v2", "quantize_asym", "dequantize", "requantize", "fc", "conv",
           "pool", "flatten", "act", "concat", "add", "mul", "embedding", "bn", "calibrate"}
    assert all(any(op in k for k in SAME) for op in ops - {"conv"})
    assert set(DIFFERS) <= set(EXPECTED)


@pytest.mark.parametrize("case", SAME)
def test_matches_mxnet(got, case):
    assert got[case] == EXPECTED[case]


# ---- where gluonlite differs from MXNet's kernels ---------------------------------------------
def _r(v):
    return nd.array([v])


def _level(lo, hi, dtype):
    return max(abs(lo), abs(hi)) / {"int8": 127.5, "uint8": 255.5}[dtype]


def _int32_value(out, lo, hi):
    r = max(abs(lo.asscalar()), abs(hi.asscalar()))
    return out.asnumpy().astype(np.float64) * r / 2.0 ** 31


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("no_bias", [False, True])
def test_quantized_conv_is_the_float_convolution_of_its_levels(dtype, no_bias):
    rng = np.random.RandomState(3)
    lo_q, hi_q = (-128, 128) if dtype == "int8" else (0, 256)
    x = rng.randint(lo_q, hi_q, (2, 3, 6, 5))
    w = rng.randint(-128, 128, (4, 3, 3, 3))
    b = rng.randint(-128, 128, (4,))
    dr, wr, br = 1.5, 0.25, 2.0
    args = [nd.array(x, dtype=dtype), nd.array(w, dtype="int8")]
    if not no_bias:
        args.append(nd.array(b, dtype="int8"))
    args += [_r(-dr), _r(dr), _r(-wr), _r(wr)] + ([] if no_bias else [_r(-br), _r(br)])
    out, lo, hi = C.quantized_conv(*args, kernel=(3, 3), num_filter=4, pad=(1, 1),
                                   no_bias=no_bias)
    assert out.dtype == np.int32 and out.shape == (2, 4, 6, 5)
    xf = x * _level(-dr, dr, dtype)
    wf = w * _level(-wr, wr, "int8")
    want = nd.Convolution(nd.array(xf, dtype="float64"), nd.array(wf, dtype="float64"),
                          kernel=(3, 3), num_filter=4, pad=(1, 1), no_bias=True).asnumpy()
    if not no_bias:
        want = want + (b * _level(-br, br, "int8"))[None, :, None, None]
    got = out.asnumpy() * (_level(-dr, dr, dtype) * _level(-wr, wr, "int8"))
    # one level of the product (the bias is truncated into it) and float32's rounding
    step = _level(-dr, dr, dtype) * _level(-wr, wr, "int8")
    assert np.abs(got - want).max() <= step + 1e-6 * np.abs(want).max()
    # the range says what one int32 level is worth, as quantized_fully_connected's does
    fc = C.quantized_fully_connected(nd.array(x[:, :, 0, 0], dtype=dtype), args[1][:, :, 0, 0],
                                     _r(-dr), _r(dr), _r(-wr), _r(wr), num_hidden=4,
                                     no_bias=True)
    assert hi.asscalar() == fc[2].asscalar() and lo.asscalar() == -hi.asscalar()
    np.testing.assert_allclose(_int32_value(out, lo, hi), want, rtol=0.02,
                               atol=0.02 * np.abs(want).max())


@pytest.mark.parametrize("case", ["conv_1x1_stride2_no_bias", "conv_3x3_valid_no_bias",
                                  "conv_float32_sum_no_bias"])
def test_quantized_conv_without_bias_gives_mxnets_integers(got, case):
    # MXNet's values are right; its range for uint8 data counts the data's levels as int8's
    assert got[case][0] == EXPECTED[case][0]
    assert got[case][2][2][0] == pytest.approx(EXPECTED[case][2][2][0] * 127 / 255, rel=1e-6)


def test_relu_of_uint8_data_changes_nothing():
    x = nd.array([0, 7, 128, 255], dtype="uint8")
    out, lo, hi = C.quantized_act(x, _r(0), _r(3), act_type="relu")
    assert out.dtype == np.uint8
    np.testing.assert_array_equal(out.asnumpy(), x.asnumpy())
    assert (lo.asscalar(), hi.asscalar()) == (0, 3)
    _, outs, _ = sym.contrib.quantized_act(sym.var("d"), sym.var("lo"), sym.var("hi")).infer_type(
        d="uint8")
    assert outs[0] == np.uint8


def test_adding_int8_and_uint8_without_calibration_keeps_both_scales():
    rng = np.random.RandomState(5)
    a, b = rng.randint(-128, 128, (3, 4)), rng.randint(0, 256, (3, 4))
    out, lo, hi = C.quantized_elemwise_add(nd.array(a, dtype="int8"), nd.array(b, dtype="uint8"),
                                           _r(-2.0), _r(2.0), _r(0.0), _r(3.0))
    want = a * _level(-2, 2, "int8") + b * _level(0, 3, "uint8")
    assert out.dtype == np.int32 and hi.asscalar() == pytest.approx(5.0)
    np.testing.assert_allclose(_int32_value(out, lo, hi), want, atol=1e-6)


@pytest.mark.parametrize("fix_gamma", [True, False])
def test_quantized_batch_norm_is_the_float_batch_norm_within_a_level(fix_gamma):
    rng = np.random.RandomState(7)
    x = rng.randint(-128, 128, (2, 3, 2, 3))
    gamma, beta = rng.uniform(0.5, 2, 3), rng.uniform(-0.3, 0.3, 3)
    mean, var = rng.uniform(-0.2, 0.2, 3), rng.uniform(0.5, 2, 3)
    dr, out_r, eps = 1.0, 2.5, 1e-3
    out, lo, hi = C.quantized_batch_norm(
        nd.array(x, dtype="int8"), nd.array(gamma), nd.array(beta), nd.array(mean),
        nd.array(var), _r(-dr), _r(dr), eps=eps, fix_gamma=fix_gamma,
        min_calib_range=-out_r, max_calib_range=out_r)
    xf = x * _level(-dr, dr, "int8")
    g = np.ones(3) if fix_gamma else gamma
    c = (slice(None), None, None)
    want = (xf - mean[c]) / np.sqrt(var[c] + eps) * g[c] + beta[c]
    got = out.asnumpy() * _level(-out_r, out_r, "int8")
    assert out.dtype == np.int8 and (lo.asscalar(), hi.asscalar()) == (-out_r, out_r)
    assert np.abs(got - np.clip(want, -out_r * 128 / 127.5, out_r)).max() <= \
        0.5 * _level(-out_r, out_r, "int8") + 1e-6


def test_quantized_batch_norm_without_calibration_takes_the_range_it_reaches():
    rng = np.random.RandomState(8)
    x = rng.randint(-128, 128, (2, 3, 4))
    gamma, beta = rng.uniform(0.5, 2, 3), rng.uniform(-0.3, 0.3, 3)
    mean, var = rng.uniform(-0.2, 0.2, 3), rng.uniform(0.5, 2, 3)
    out, lo, hi = C.quantized_batch_norm(
        nd.array(x, dtype="int8"), nd.array(gamma), nd.array(beta), nd.array(mean),
        nd.array(var), _r(-2.0), _r(2.0), fix_gamma=False)
    c = (slice(None), None)
    want = (x * _level(-2, 2, "int8") - mean[c]) / np.sqrt(var[c] + 1e-3) * gamma[c] + beta[c]
    assert hi.asscalar() == pytest.approx(np.abs(want).max(), rel=1e-5)
    assert lo.asscalar() == -hi.asscalar()
    got = out.asnumpy() * _level(lo.asscalar(), hi.asscalar(), "int8")
    assert np.abs(got - want).max() <= 0.5 * _level(-hi.asscalar(), hi.asscalar(), "int8") + 1e-6
    zero, lo, hi = C.quantized_batch_norm(nd.zeros((1, 2), dtype="int8"), nd.ones(2),
                                          nd.zeros(2), nd.zeros(2), nd.ones(2), _r(-1), _r(1))
    assert zero.asnumpy().tolist() == [[0, 0]] and hi.asscalar() == 0


def test_products_saturate_instead_of_wrapping():
    x = nd.array(np.full((1, 140000), 127), dtype="int8")
    w = nd.array(np.full((1, 140000), 127), dtype="int8")
    out, _, _ = C.quantized_fully_connected(x, w, _r(-1), _r(1), _r(-1), _r(1), num_hidden=1,
                                            no_bias=True)
    assert out.asnumpy()[0, 0] == 2 ** 31 - 1
    a = nd.array([127, -127, 3], dtype="int8")
    s = sym.contrib.quantized_elemwise_mul(*[sym.var(n) for n in "ab"] +
                                           [sym.var(n) for n in ("l0", "l1", "r0", "r1")],
                                           min_calib_range=-0.01, max_calib_range=0.01)
    args = dict(a=a, b=a, l0=_r(-1), l1=_r(1), r0=_r(-1), r1=_r(1))
    out = s.bind(mx.cpu(), args).forward()[0].asnumpy()
    assert out.tolist()[:2] == [127, 127]


def test_quantized_elemwise_mul_runs_imperatively():
    a = nd.array([100, -50], dtype="int8")
    b = nd.array([20, 10], dtype="int8")
    out, lo, hi = C.quantized_elemwise_mul(a, b, _r(-1), _r(1), _r(-2), _r(2))
    assert out.dtype == np.int32 and out.asnumpy().tolist() == [2000, -500]
    level = np.float32(np.float32(1 / 127.0) * np.float32(2 / 127.0)) * np.float32(2.0 ** 31)
    assert hi.asscalar() == pytest.approx(float(level))


# ---- properties --------------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-50, 50, width=32).filter(lambda v: v == 0 or abs(v) > 1e-30),
                min_size=1, max_size=30),
       st.sampled_from(["int8", "uint8", "auto"]))
def test_quantize_then_dequantize_is_within_half_a_level(values, out_type):
    x = np.asarray(values, np.float32)
    if out_type != "int8":
        x = np.abs(x)
    lo, hi = float(x.min()), float(x.max())
    kw = dict(min_calib_range=lo, max_calib_range=hi) if out_type == "auto" else {}
    q, qlo, qhi = C.quantize_v2(nd.array(x), out_type=out_type, **kw)
    back = C.dequantize(q, qlo, qhi).asnumpy()
    dtype = np.dtype(q.dtype).name
    assert dtype == ("int8" if out_type == "int8" else "uint8")
    r = max(abs(lo), abs(hi))
    if r:
        assert np.abs(back - x).max() <= 0.5 * _level(-r, r, dtype) * (1 + 1e-5) + 1e-6 * r


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 6), st.integers(1, 5), st.integers(1, 4), st.integers(0, 2 ** 31 - 1))
def test_quantized_fully_connected_is_the_float_product(n, k, h, seed):
    rng = np.random.RandomState(seed % (2 ** 32))
    x, w = rng.randint(-128, 128, (n, k)), rng.randint(-128, 128, (h, k))
    out, lo, hi = C.quantized_fully_connected(nd.array(x, dtype="int8"), nd.array(w, dtype="int8"),
                                              _r(-1), _r(1), _r(-1), _r(1), num_hidden=h,
                                              no_bias=True)
    np.testing.assert_array_equal(out.asnumpy(), x @ w.T)


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
def test_long_integer_products_stay_exact(dtype):
    # sums past float32's 2**24 are taken in chunks: the products must still be exact
    rng = np.random.RandomState(11)
    lo, hi = (100, 128) if dtype == "int8" else (200, 256)   # sums far past 2**24
    x = rng.randint(lo, hi, (3, 5000))
    w = rng.randint(100, 128, (2, 5000))
    out, _, _ = C.quantized_fully_connected(nd.array(x, dtype=dtype), nd.array(w, dtype="int8"),
                                            _r(-1), _r(1), _r(-1), _r(1), num_hidden=2,
                                            no_bias=True)
    np.testing.assert_array_equal(out.asnumpy(), x.astype(np.int64) @ w.T)
    xc = rng.randint(lo, hi, (1, 300, 6, 6))
    wc = rng.randint(100, 128, (4, 300, 3, 3))
    out, _, _ = C.quantized_conv(nd.array(xc, dtype=dtype), nd.array(wc, dtype="int8"),
                                 _r(-1), _r(1), _r(-1), _r(1), kernel=(3, 3), num_filter=4,
                                 no_bias=True)
    want = np.einsum("cij,fcij->f", xc[0, :, :3, :3].astype(np.int64), wc)
    # the convolution rounds its int32 sum through float32, as MXNet's does
    np.testing.assert_array_equal(out.asnumpy()[0, :, 0, 0],
                                  want.astype(np.float32).astype(np.int64))


def test_requantize_follows_the_range_the_data_reaches():
    q = nd.array([2 ** 30, -2 ** 28, 0], dtype="int32")
    out, lo, hi = C.requantize(q, _r(-4), _r(4))
    assert hi.asscalar() == pytest.approx(2.0)         # 2**30 of 2**31 levels of 4
    assert out.asnumpy().tolist() == [127, -32, 0]      # -0.5 of 2.0 in 127 levels


# ---- bad input ---------------------------------------------------------------------------------
def test_bad_inputs_name_the_argument():
    f = nd.array([1.0])
    with pytest.raises(mx.base.MXNetError, match="dequantize: data must be int8 or uint8"):
        C.dequantize(f, _r(-1), _r(1))
    with pytest.raises(mx.base.MXNetError, match="requantize: data must be int32"):
        C.requantize(nd.array([1], dtype="int8"), _r(-1), _r(1))
    with pytest.raises(mx.base.MXNetError, match="quantized_fully_connected: weight must be int8"):
        C.quantized_fully_connected(nd.array([[1]], dtype="int8"), nd.array([[1.0]]),
                                    _r(-1), _r(1), _r(-1), _r(1), num_hidden=1, no_bias=True)
    with pytest.raises(mx.base.MXNetError, match="range must hold one value"):
        C.dequantize(nd.array([1], dtype="int8"), nd.array([-1, 0]), _r(1))
    with pytest.raises(mx.base.MXNetError, match="act_type must be 'relu'"):
        C.quantized_act(nd.array([1], dtype="int8"), _r(-1), _r(1), act_type="tanh")
    with pytest.raises(mx.base.MXNetError, match="pool_type must be 'max' or 'avg'"):
        C.quantized_pooling(nd.ones((1, 1, 2, 2), dtype="int8"), _r(-1), _r(1), kernel=(2, 2),
                            pool_type="sum")
    with pytest.raises(mx.base.MXNetError, match="must agree outside dim 1"):
        C.quantized_concat(nd.ones((1, 2), dtype="int8"), nd.ones((2, 2), dtype="int8"),
                           _r(-1), _r(1), _r(-1), _r(1), num_args=2, dim=1)
    with pytest.raises(mx.base.MXNetError, match="one more entry than hist"):
        C.calibrate_entropy(nd.ones(5), nd.ones(5))


@pytest.mark.parametrize("op, extra", [
    ("quantized_fully_connected", {"num_hidden": 2}),
    ("quantized_conv", {"kernel": (1, 1), "num_filter": 2})])
def test_a_zero_weight_range_gives_its_product_without_warnings(op, extra):
    # all-zero weights (a fresh zero-initialised layer) have range 0 and an infinite scale:
    # the output's range is 0, the bias has no scale to enter, and nothing warns
    fc = op == "quantized_fully_connected"
    x = nd.array(np.array([1, -2, 3]).reshape((1, 3)), dtype="int8") if fc else \
        nd.array(np.array([1, 2, 3]).reshape((1, 3, 1, 1)), dtype="uint8")
    w = nd.zeros((2, 3) if fc else (2, 3, 1, 1), dtype="int8")
    b = nd.array([5, -3], dtype="int8")
    ranges = [nd.array([v]) for v in (-1, 1, 0, 0, -1, 1)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out, lo, hi = getattr(C, op)(x, w, b, *ranges, **extra)
    # the integer product alone (MXNet's NaN bias scale gives -2**31; in a zero range every
    # value stands for 0)
    assert out.dtype == np.int32 and not out.asnumpy().any()
    assert lo.asscalar() == hi.asscalar() == 0
