"""Operators compute IEEE results silently and give MXNet's values where float arithmetic
leaves its domain (fixtures/make_float_edges.py made the reference on MXNet 1.9.1):
no RuntimeWarning from an imperative call, a compiled graph or a backward pass, the
caller's numpy error setting untouched, and MXNet's rules where numpy's differ (a
remainder by 0 is 0, lgamma(-inf) is +inf, gamma's poles are NaN, (-inf) ** 0.5 is +inf)."""
import importlib.util
import os
import warnings

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd
from gluonlite.ops import float_errors

_FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures")
_spec = importlib.util.spec_from_file_location("make_float_edges",
                                               os.path.join(_FIX, "make_float_edges.py"))
make_float_edges = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_float_edges)
_REF = np.load(os.path.join(_FIX, "float_edges_mxnet.npz"))


@pytest.mark.parametrize("part", make_float_edges.PARTS)
def test_edges_are_silent_and_match_mxnet(part):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = getattr(make_float_edges, part)(mx)
    assert got
    for k, v in got.items():
        want = _REF[k]
        assert v.shape == want.shape and v.dtype == want.dtype, k
        np.testing.assert_allclose(v, want, rtol=1e-5, atol=1e-6, equal_nan=True, err_msg=k)


def test_callers_numpy_setting_is_kept_and_not_applied_to_operators():
    x = nd.array([0.0, -1.0])
    with np.errstate(all="raise"):
        y = nd.log(x).asnumpy()            # MXNet's kernels never raise: -inf and nan
        with pytest.raises(FloatingPointError):
            np.log(np.zeros(1, np.float32))   # the caller's own numpy still raises
    assert y[0] == -np.inf and np.isnan(y[1])
    before = np.geterr()
    nd.sqrt(x)
    assert np.geterr() == before


def test_setting_is_given_back_when_an_operator_raises():
    before = np.geterr()
    with pytest.raises(ValueError):
        nd.dot(nd.ones((2, 3)), nd.ones((2, 3)))
    assert np.geterr() == before
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeWarning):
            np.log(np.zeros(1, np.float32))


def test_executor_and_autograd_are_silent():
    x = mx.sym.var("x")
    y = mx.sym.log(x) / x
    data = nd.array([0.0, -1.0, 1.0])
    grad = nd.zeros(3)
    exe = y.bind(mx.cpu(), {"x": data}, args_grad={"x": grad})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = exe.forward(is_train=True)[0].asnumpy()
        exe.backward(nd.ones(3))
    assert out[0] == -np.inf and np.isnan(out[1]) and out[2] == 0   # -inf / 0 is -inf
    # d/dx log(x) / x = (1 - log x) / x**2: inf at 0, nan at -1, 1 at 1
    g = grad.asnumpy()
    assert g[0] == np.inf and np.isnan(g[1]) and g[2] == pytest.approx(1.0)


def test_mx_np_remainder_by_zero_is_zero_as_mxnet():
    a = mx.np.array([1.0, 0.0, -1.0, -np.inf])
    b = mx.np.array([0.0, 0.0, 0.0, 0.5])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = mx.np.mod(a, b).asnumpy()
    np.testing.assert_array_equal(r[:3], [0.0, 0.0, 0.0])
    assert np.isnan(r[3])


@pytest.mark.parametrize("static", [False, True])
def test_compiled_remainder_and_power_follow_mxnet(static):
    class Edges(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, a, b):
            return F.broadcast_mod(a, b), a % 0, 1 % a, a ** 0.5, F.broadcast_power(a, b)

    a = nd.array([5.0, -5.0, 0.0, -np.inf])
    b = nd.array([0.0, 3.0, 0.0, 0.5])
    want = [o.asnumpy() for o in Edges()(a, b)]
    net = Edges()
    net.hybridize(static_alloc=static, static_shape=static)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(2):
            got = [o.asnumpy() for o in net(a, b)]
            for g, w in zip(got, want):
                np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(got[0][[0, 2]], [0.0, 0.0])     # by 0: MXNet's 0
    np.testing.assert_array_equal(got[1], [0.0, 0.0, 0.0, 0.0])
    np.testing.assert_array_equal(got[2][2], 0.0)
    assert got[3][3] == np.inf and got[4][3] == np.inf            # (-inf) ** 0.5


def test_remainder_and_power_keep_numpys_values_elsewhere():
    a = nd.array([5.0, -5.0, 5.0, -5.0, 7.5])
    b = nd.array([3.0, 3.0, -3.0, -3.0, 2.0])
    np.testing.assert_array_equal(nd.broadcast_mod(a, b).asnumpy(),
                                  np.mod(a.asnumpy(), b.asnumpy()))
    x = nd.array([0.0, 0.25, 4.0, -np.inf, np.inf])
    np.testing.assert_array_equal((x ** 0.5).asnumpy(), [0.0, 0.5, 2.0, np.inf, np.inf])
    np.testing.assert_array_equal((x ** 2).asnumpy(), [0.0, 0.0625, 16.0, np.inf, np.inf])


def test_quiet_and_restore_nest():
    outer = float_errors.quiet()
    inner = float_errors.quiet()
    float_errors.restore(inner)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.log(np.zeros(1))[0] == -np.inf       # still quiet: the outer holds
    float_errors.restore(outer)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeWarning):
            np.log(np.zeros(1))


def test_norm_and_nansum_of_infinities_are_infinite_where_mxnet_gives_nan():
    # kept on purpose (docs/guide/differences.md): MXNet 1.9.1 gives NaN for all three (its
    # scaled sum of squares divides one infinity by another)
    x = nd.array([[np.inf, -np.inf, 0.0, 1.0], [-np.inf, -np.inf, -np.inf, -np.inf]])
    np.testing.assert_array_equal(nd.norm(x, axis=1).asnumpy(), [np.inf, np.inf])
    np.testing.assert_array_equal(nd.nansum(nd.array([-np.inf, np.nan, -np.inf])).asnumpy(),
                                  [-np.inf])


def test_sign_of_nan_is_zero_and_so_is_abs_gradient_there():
    x = nd.array([np.nan, -2.0, 0.0, 3.0])
    x.attach_grad()
    with mx.autograd.record():
        y = nd.abs(x)
    y.backward()
    np.testing.assert_array_equal(nd.sign(x).asnumpy(), [0.0, -1.0, 0.0, 1.0])
    np.testing.assert_array_equal(x.grad.asnumpy(), [0.0, -1.0, 0.0, 1.0])
    np.testing.assert_array_equal(mx.np.sign(mx.np.array([np.nan, -1.0])).asnumpy(), [0, -1])


def test_smooth_l1_with_a_zero_scalar_computes_as_mxnet():
    # sigma = 0: 1 / sigma**2 is inf, so every finite x is in the quadratic branch (0)
    x = nd.array([-2.0, -0.5, 0.0, 0.5, 2.0, np.inf])
    x.attach_grad()
    with mx.autograd.record():
        y = nd.smooth_l1(x, scalar=0.0)
    y.backward()
    out = y.asnumpy()
    np.testing.assert_array_equal(out[:5], np.zeros(5))
    assert np.isnan(out[5])
    np.testing.assert_array_equal(x.grad.asnumpy(), [0.0, 0.0, 0.0, 0.0, 0.0, 1.0])


def test_np_copysign_reads_the_sign_bit_of_negative_zero_and_nan():
    # kept on purpose (docs/guide/differences.md): MXNet 1.9.1 gives [2, -0.5, -0.5]
    a = mx.np.array([-2.0, 0.5, 0.5])
    b = mx.np.array([-0.0, np.nan, -np.nan])
    want = np.copysign(a.asnumpy(), b.asnumpy())
    np.testing.assert_array_equal(mx.np.copysign(a, b).asnumpy(), want)
    assert want[0] == -2.0 and want[1] == 0.5


def test_a_negative_zero_scalar_is_not_taken_for_a_positive_one():
    # -0.0 == 0.0 and both hash alike: the imperative call cache must still tell them apart
    x = nd.array([-2.0, 0.5])
    for _ in range(2):
        np.testing.assert_array_equal((x / 0.0).asnumpy(), [-np.inf, np.inf])
        np.testing.assert_array_equal((x / -0.0).asnumpy(), [np.inf, -np.inf])
        np.testing.assert_array_equal(nd.maximum(x, 0.0).asnumpy(), [0.0, 0.5])


def test_degenerate_moments_are_nan_without_numpys_warnings():
    # MXNet 1.9.1: np.var([0, 0], ddof=2) is nan, silently
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        v = mx.np.var(mx.np.zeros((2,)), ddof=2).asnumpy()
        s = mx.np.std(mx.np.zeros((3,)), ddof=3).asnumpy()
        m = mx.np.mean(mx.np.zeros((0,))).asnumpy()
        ok = mx.np.var(mx.np.array([1.0, 2.0, 4.0])).asnumpy()
    assert np.isnan(v) and np.isnan(s) and np.isnan(m)
    assert ok == pytest.approx(np.var([1.0, 2.0, 4.0]))


def test_an_in_place_update_at_the_float_edges_is_silent():
    # SGD writes the new weight over the old one (`run_update`): inf - inf there is NaN
    opt = mx.optimizer.SGD(learning_rate=0.1, wd=0.5)
    w = nd.array([np.inf, 1.0])
    g = nd.array([-np.inf, 1e38])
    state = opt.create_state(0, w)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.update(0, w, g, state)
    out = w.asnumpy()
    assert not np.isfinite(out[0]) and np.isfinite(out[1])
