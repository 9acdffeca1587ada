"""float32 GELU (`gluonlite/ops/normal_cdf.py`, what `LeakyReLU(act_type='gelu')` and
`nn.GELU` compute on float32 data) against x * Phi(x) in float64, interval by interval, and at
the special values; the blocked fast path is held to it bit for bit in test_gelu_fast.py."""
import numpy as np
import pytest
from scipy.special import erf, erfc

from gluonlite import gluon, nd
from gluonlite.ops import normal_cdf


def _ulps(got, x):
    """|got - x Phi(x)| in float32 ulps of the true value (float64 reference)."""
    x64 = x.astype(np.float64)
    true = x64 * 0.5 * erfc(-x64 / np.sqrt(2))
    spacing = np.maximum(np.spacing(np.abs(true.astype(np.float32))).astype(np.float64),
                         2.0 ** -149)
    return np.abs(got.astype(np.float64) - true) / spacing


# (interval, the largest and the mean error allowed in ulps): the measured worst cases over 2
# million points per interval are 4.7, 1.8, 8.6 and 13 ulp, and the erf formula's are 2.4,
# 1.6, 102 and 650 000 (normal_cdf's docstring); the means 0.7, 0.3, 1.1 and 2.4
@pytest.mark.parametrize("lo, hi, bound, mean", [(-1, 1, 6, 1.0), (1, 30, 2.5, 0.5),
                                                 (-3, -1, 10, 1.5), (-5, -3, 15, 3.0)])
def test_within_a_few_ulps_of_float64(lo, hi, bound, mean):
    x = np.random.default_rng(3).uniform(lo, hi, 200_000).astype(np.float32)
    y = nd.LeakyReLU(nd.array(x), act_type="gelu").asnumpy()
    assert y.dtype == np.float32
    err = _ulps(y, x)
    assert err.max() <= bound
    assert err.mean() <= mean


def test_the_negative_tail_keeps_its_relative_precision():
    # 1 + erf(x / sqrt 2) cancels there: the erf formula's relative error reaches 1 near -5
    x = np.linspace(-12, -3, 50_001).astype(np.float32)
    y = normal_cdf.gelu_float32(np, x)
    x64 = x.astype(np.float64)
    true = x64 * 0.5 * erfc(-x64 / np.sqrt(2))
    np.testing.assert_allclose(y, true, rtol=1e-5, atol=0)
    erf_formula = 0.5 * x * (1 + erf(x / np.float32(np.sqrt(2))))
    assert np.abs(erf_formula / true - 1).max() > 0.1


def test_special_values():
    x = np.array([0.0, -0.0, 1e-30, -1e-30, 10, 1e30, -1e30, 3e38, np.inf, -np.inf, np.nan,
                  -20], np.float32)
    with np.errstate(invalid="ignore"):
        y = normal_cdf.gelu_float32(np, x)
    np.testing.assert_array_equal(y[:8], np.float32([0, -0.0, 5e-31, -5e-31, 10, 1e30, -0.0, 3e38]))
    assert np.signbit(y[1]) and not np.signbit(y[0]) and np.signbit(y[6])
    assert y[8] == np.inf                       # inf * Phi(inf) = inf
    assert np.isnan(y[9]) and np.isnan(y[10])   # -inf * 0, as the erf formula gives
    assert y[11] == 0


def test_writes_over_its_input_and_into_given_scratch():
    x = np.linspace(-4, 4, 999).astype(np.float32)
    want = normal_cdf.gelu_float32(np, x)
    scratch = [np.empty_like(x) for _ in range(3)]
    assert normal_cdf.gelu_float32(np, x, out=x, scratch=scratch) is x
    np.testing.assert_array_equal(x, want)


def test_gelu_block_and_float64_keep_the_erf_formula():
    x = np.random.default_rng(4).standard_normal(1000) * 3
    y = gluon.nn.GELU()(nd.array(x, dtype="float64")).asnumpy()
    np.testing.assert_allclose(y, 0.5 * x * (1 + erf(x / np.sqrt(2))), rtol=1e-15, atol=1e-300)
    y32 = gluon.nn.GELU()(nd.array(x, dtype="float32")).asnumpy()
    np.testing.assert_array_equal(y32, normal_cdf.gelu_float32(np, x.astype(np.float32)))
