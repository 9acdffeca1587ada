"""gluonlite.test_utils: MXNet 1.x's testing helpers, their tolerances by dtype, the mismatch
report, the symbol checks and the run helpers."""
import os
import re

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd, sym
from gluonlite import test_utils as tu


# ---- assert_almost_equal ----------------------------------------------------------------------
def test_mismatch_report_names_arrays_worst_index_and_both_values():
    a = np.zeros((3, 4), dtype=np.float32)
    b = a.copy()
    b[1, 2] = 0.5
    b[2, 3] = 0.1
    with pytest.raises(AssertionError) as e:
        tu.assert_almost_equal(nd.array(a), b, names=("got", "want"))
    msg = str(e.value)
    assert "got and want are not almost equal (rtol=0.0001, atol=0.001)" in msg
    assert "2 of 12 entries differ" in msg
    assert "worst at index (1, 2): got=0.0, want=0.5" in msg
    assert "next worst: (2, 3): got=0.0, want=0.1" in msg
    assert "got (shape (3, 4), float32)" in msg and "want (shape (3, 4), float32)" in msg


@pytest.mark.parametrize("dtype,rtol,atol", [(np.float16, 1e-2, 1e-1), (np.float32, 1e-4, 1e-3),
                                             (np.float64, 1e-5, 1e-20)])
def test_default_tolerances_follow_the_dtype(dtype, rtol, atol):
    b = np.array([100.0, 0.0], dtype=dtype)
    inside = np.array([100.0 * (1 + 0.5 * rtol), 0.5 * atol], dtype=np.float64)
    tu.assert_almost_equal(inside.astype(dtype), b)
    outside = np.array([100.0 * (1 + 4 * rtol) + 4 * atol, 0.0]).astype(dtype)
    with pytest.raises(AssertionError, match=rf"rtol={rtol:g}, atol={atol:g}"):
        tu.assert_almost_equal(outside, b)


def test_mixed_dtypes_take_the_looser_default():
    assert tu.get_tols(np.ones(2, np.float16), np.ones(2), None, None) == (1e-2, 1e-1)
    tu.assert_almost_equal(np.array([1.05], np.float16), np.array([1.0]))
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(np.array([1.05]), np.array([1.0]))


def test_tolerances_given_as_numbers_or_per_dtype():
    a, b = np.array([1.0, 2.0], np.float32), np.array([1.0, 2.01], np.float32)
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(a, b)
    tu.assert_almost_equal(a, b, rtol=1e-2)
    tu.assert_almost_equal(a, b, rtol={np.dtype(np.float32): 1e-2})
    with pytest.raises(AssertionError):  # a dict without the dtype falls back to the default
        tu.assert_almost_equal(a, b, rtol={np.dtype(np.float64): 1e-2})


def test_equal_nan_and_infinities():
    a = np.array([1.0, np.nan, np.inf])
    with pytest.raises(AssertionError, match=r"worst at index \(1,\): a=nan, b=nan"):
        tu.assert_almost_equal(a, a.copy())
    tu.assert_almost_equal(a, a.copy(), equal_nan=True)
    with pytest.raises(AssertionError, match=r"worst at index \(2,\): a=inf, b=-inf"):
        tu.assert_almost_equal(a, np.array([1.0, np.nan, -np.inf]), equal_nan=True)


def test_integers_and_bools_compare_exactly():
    tu.assert_almost_equal(np.array([1, 2]), nd.array([1, 2], dtype="int32"))
    with pytest.raises(AssertionError, match=r"worst at index \(1,\): a=2, b=3"):
        tu.assert_almost_equal(np.array([1, 2]), np.array([1, 3]))
    with pytest.raises(AssertionError, match=r"worst at index \(0,\): a=1, b=0"):
        tu.assert_almost_equal(np.array([True]), np.array([False]))


def test_shapes_broadcast_unless_told_not_to():
    tu.assert_almost_equal(np.ones((2, 3)), np.ones(3))
    with pytest.raises(AssertionError, match=r"x has shape \(2, 3\) but y has shape \(3,\)"):
        tu.assert_almost_equal(np.ones((2, 3)), np.ones(3), names=("x", "y"),
                               use_broadcast=False)
    with pytest.raises(AssertionError, match=r"do not broadcast to one shape"):
        tu.assert_almost_equal(np.ones((2, 3)), np.ones(2))


def test_scalars_and_assert_allclose():
    tu.assert_almost_equal(1.0, np.float64(1.0 + 1e-9))
    with pytest.raises(AssertionError, match=r"worst at index \(\): a=1.0, b=2.0"):
        tu.assert_almost_equal(1.0, 2.0)
    tu.assert_allclose(np.array([1.0, np.nan]), np.array([1.0, np.nan]))
    with pytest.raises(AssertionError):
        tu.assert_allclose(np.array([1.0]), np.array([1.0 + 1e-6]))


def test_with_err_allows_a_fraction_of_mismatches():
    a, b = np.zeros(10), np.zeros(10)
    b[0] = 1
    tu.assert_almost_equal_with_err(a, b, etol=0.2)
    with pytest.raises(AssertionError, match=r"(?s)more than etol=0.05 .*worst at index \(0,\)"):
        tu.assert_almost_equal_with_err(a, b, etol=0.05)


def test_ignore_nan_compares_the_rest():
    tu.assert_almost_equal_ignore_nan(np.array([1.0, np.nan]), np.array([1.0, 5.0]))
    with pytest.raises(AssertionError):
        tu.assert_almost_equal_ignore_nan(np.array([2.0, np.nan]), np.array([1.0, 5.0]))


# ---- almost_equal, same, effective_dtype ------------------------------------------------------
def test_almost_equal_uses_float64_defaults_whatever_the_dtype():
    a = np.array([1.0], np.float32)
    assert tu.almost_equal(a, a + np.float32(1e-6))
    assert not tu.almost_equal(a, a + np.float32(1e-4))  # inside float32's default rtol 1e-4
    assert tu.almost_equal(a, a + np.float32(1e-4), rtol=1e-3)
    assert tu.almost_equal(nd.ones((2, 3)), np.ones(3))
    assert not tu.almost_equal(np.ones((2, 3)), np.ones(3), use_broadcast=False)
    assert not tu.almost_equal(np.ones(2), np.ones(3))
    assert tu.almost_equal(np.array([np.nan]), np.array([np.nan]), equal_nan=True)


def test_same_and_effective_dtype():
    assert tu.same(np.array([1, 2]), nd.array([1, 2]))
    assert not tu.same(np.array([1, 2]), np.array([1, 3]))
    assert not tu.same(np.ones(2), np.ones(3))
    assert tu.effective_dtype(nd.ones((2,))) == np.dtype(np.float32)
    assert tu.effective_dtype(np.ones(2, np.float16)) == np.dtype(np.float16)
    assert tu.effective_dtype(1.5) == np.dtype(np.float64)


def test_tolerance_of_an_unknown_dtype_is_a_type_error():
    with pytest.raises(TypeError, match="no default tolerance for dtype int16; pass rtol/atol"):
        tu.assert_almost_equal(np.ones(2, np.int16), np.ones(2, np.int16))
    tu.assert_almost_equal(np.ones(2, np.int16), np.ones(2, np.int16), rtol=0, atol=0)


def test_assert_exception():
    tu.assert_exception(int, ValueError, "x")
    with pytest.raises(AssertionError, match="int did not raise ValueError"):
        tu.assert_exception(int, ValueError, "3")


# ---- random data ------------------------------------------------------------------------------
def test_rand_ndarray_and_shapes():
    x = tu.rand_ndarray((2, 3))
    assert x.shape == (2, 3) and x.dtype == np.float32 and x.context == tu.default_context()
    assert tu.rand_ndarray((4,), dtype="float64").dtype == np.float64
    for _ in range(20):
        s2, s3, sn = tu.rand_shape_2d(3, 4), tu.rand_shape_3d(2, 2, 2), tu.rand_shape_nd(4, 5)
        assert len(s2) == 2 and 1 <= s2[0] <= 3 and 1 <= s2[1] <= 4
        assert len(s3) == 3 and all(1 <= d <= 2 for d in s3)
        assert isinstance(sn, tuple) and len(sn) == 4 and all(1 <= d <= 5 for d in sn)
    assert any(0 in tu.rand_shape_nd(3, 1, allow_zero_size=True) for _ in range(50))
    np.random.seed(3)
    first = tu.rand_ndarray((3,)).asnumpy()
    np.random.seed(3)
    assert tu.same(first, tu.rand_ndarray((3,)))


def test_rand_ndarray_with_sparse_storage():
    x = tu.rand_ndarray((6, 8), "csr", density=0.5)
    assert x.stype == "csr" and x.shape == (6, 8)
    assert ((x.asnumpy() >= 0) & (x.asnumpy() < 1)).all()
    r = tu.rand_ndarray((6, 3), "row_sparse", density=1.0)
    assert r.stype == "row_sparse" and list(r.indices.asnumpy()) == list(range(6))


def test_rand_ndarray_passes_the_distribution_on():
    # powerlaw: row i holds twice row i-1's entries, from 2 in row 0, until density is met
    p = tu.rand_ndarray((8, 16), "csr", density=0.5, distribution="powerlaw")
    assert np.diff(p.indptr.asnumpy())[:4].tolist() == [2, 4, 8, 16]
    with pytest.raises(ValueError, match="distribution"):
        tu.rand_ndarray((4, 4), "row_sparse", density=0.5, distribution="powerlaw")


# ---- run helpers ------------------------------------------------------------------------------
def test_environment_sets_and_restores():
    os.environ.pop("GLUONLITE_T1", None)
    os.environ["GLUONLITE_T2"] = "old"
    try:
        with tu.environment("GLUONLITE_T1", "1"):
            assert os.environ["GLUONLITE_T1"] == "1"
        assert "GLUONLITE_T1" not in os.environ
        with pytest.raises(RuntimeError):
            with tu.environment({"GLUONLITE_T1": "a", "GLUONLITE_T2": None}):
                assert os.environ["GLUONLITE_T1"] == "a" and "GLUONLITE_T2" not in os.environ
                raise RuntimeError("inside")
        assert "GLUONLITE_T1" not in os.environ and os.environ["GLUONLITE_T2"] == "old"
    finally:
        os.environ.pop("GLUONLITE_T2", None)


def test_environment_bad_arguments():
    with pytest.raises(TypeError, match=r"expected \(name, value\) or one \{name: value\} dict"):
        with tu.environment("A", "1", "B"):
            pass
    with pytest.raises(TypeError, match="the value of 'A' must be a str or None, got int"):
        with tu.environment("A", 1):
            pass


def test_default_context_and_set_default_context():
    assert tu.default_context() == mx.current_context()
    with mx.cpu(1):
        assert tu.default_context() == mx.cpu(1)
    old = mx.current_context()
    try:
        tu.set_default_context(mx.cpu(2))
        assert nd.ones((1,)).context == mx.cpu(2)
    finally:
        tu.set_default_context(old)
    with pytest.raises(TypeError, match="set_default_context: ctx must be a Context, got str"):
        tu.set_default_context("cpu")


def test_discard_stderr(capfd):
    with tu.discard_stderr():
        os.write(2, b"hidden\n")
    os.write(2, b"shown\n")
    err = capfd.readouterr().err
    assert "shown" in err and "hidden" not in err


def test_retry():
    calls = []

    @tu.retry(3)
    def flaky():
        calls.append(1)
        assert len(calls) == 3

    flaky()
    assert len(calls) == 3
    with pytest.raises(ValueError, match="retry: n must be a positive integer, got 0"):
        tu.retry(0)


def test_star_import_brings_mx_and_np():
    scope = {}
    exec("from gluonlite.test_utils import *", scope)
    assert scope["mx"] is mx and scope["np"] is np
    for name in ("assert_almost_equal", "almost_equal", "same", "default_context", "environment",
                 "effective_dtype", "rand_ndarray", "check_numeric_gradient",
                 "check_symbolic_forward", "check_symbolic_backward", "assert_exception",
                 "discard_stderr", "set_default_context", "rand_shape_nd"):
        assert callable(scope[name]), name


# ---- symbol checks ----------------------------------------------------------------------------
def _fc_tanh():
    x, w, b = sym.var("x"), sym.var("w"), sym.var("b")
    return sym.tanh(sym.FullyConnected(x, w, b, num_hidden=3))


def _fc_location(rng):
    return {"x": rng.standard_normal((2, 4)), "w": rng.standard_normal((3, 4)),
            "b": rng.standard_normal(3)}


def test_check_numeric_gradient_passes_for_right_gradients():
    rng = np.random.default_rng(0)
    tu.check_numeric_gradient(_fc_tanh(), _fc_location(rng), dtype=np.float64, rtol=1e-5,
                              atol=1e-7)
    loc = _fc_location(rng)
    tu.check_numeric_gradient(_fc_tanh(), [loc["x"], loc["w"], loc["b"]], rtol=1e-2, atol=1e-3)
    tu.check_numeric_gradient(_fc_tanh(), loc, grad_nodes={"x": "add", "w": "null",
                                                           "b": "write"},
                              dtype=np.float64, rtol=1e-5, atol=1e-7)


def test_check_numeric_gradient_catches_a_wrong_gradient():
    x = sym.var("x")
    s = sym.BlockGrad(x) * x  # backward sees x, finite differences see x ** 2
    with pytest.raises(AssertionError, match="NUMERICAL_x and BACKWARD_x are not almost equal"):
        tu.check_numeric_gradient(s, {"x": np.array([1.0, 2.0])}, dtype=np.float64,
                                  rtol=1e-5, atol=1e-7)


def test_check_numeric_gradient_bad_arguments():
    x = sym.var("x")
    with pytest.raises(ValueError, match=r"location: the keys must be the symbol's arguments "
                                         r"\['x', 'y'\]; missing \['y'\], unknown \['z'\]"):
        tu.check_numeric_gradient(x + sym.var("y"), {"x": np.ones(2), "z": np.ones(2)})
    with pytest.raises(ValueError, match=r"grad_nodes \['q'\] are not arguments"):
        tu.check_numeric_gradient(x * 2, {"x": np.ones(2)}, grad_nodes=["q"])
    with pytest.raises(ValueError, match="numeric_eps=1e-06 is too small for float32"):
        tu.check_numeric_gradient(x * 2, {"x": np.ones(2)}, numeric_eps=1e-6)
    with pytest.raises(TypeError, match="dtype must be float16, float32 or float64, got 'int32'"):
        tu.check_numeric_gradient(x * 2, {"x": np.ones(2)}, dtype="int32")
    with pytest.raises(ValueError, match=r"grad_stype_dict\['x'\]: unknown storage type"):
        tu.check_numeric_gradient(x * 2, {"x": np.ones(2)}, grad_stype_dict={"x": "coo"})
    # a sparse gradient storage is accepted: the values are what is checked
    tu.check_numeric_gradient(x * x, {"x": np.ones(2)}, grad_stype_dict={"x": "row_sparse"})


def test_numeric_grad_of_an_executor():
    x = sym.var("x")
    exe = (x * x).bind(mx.cpu(), {"x": nd.zeros((3,), dtype="float64")})
    loc = {"x": np.array([1.0, -2.0, 0.5])}
    g = tu.numeric_grad(exe, loc, eps=1e-6, dtype=np.float64)["x"]
    tu.assert_almost_equal(g, 2 * loc["x"], rtol=1e-6, atol=1e-8)


def test_finite_difference_of_a_function():
    g = tu.finite_difference(lambda v: float((v ** 3).sum()), [np.array([1.0, 2.0])], eps=1e-5)
    tu.assert_almost_equal(g[0], np.array([3.0, 12.0]), rtol=1e-6, atol=1e-8)


def test_check_symbolic_forward():
    a, b = sym.var("a"), sym.var("b")
    s = sym.Group([a * b, a + b])
    va, vb = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    outs = tu.check_symbolic_forward(s, [va, vb], [va * vb, va + vb])
    assert len(outs) == 2 and outs[0].dtype == np.float32
    name0 = s.list_outputs()[0]
    tu.check_symbolic_forward(s, {"a": va, "b": vb},
                              {name0: va * vb, s.list_outputs()[1]: va + vb}, dtype="asnumpy")
    with pytest.raises(AssertionError, match=f"EXPECTED_{name0} and FORWARD_{name0} are not"):
        tu.check_symbolic_forward(s, [va, vb], [va * vb + 1, va + vb])
    with pytest.raises(ValueError, match="got 1 arrays for the symbol's 2 outputs"):
        tu.check_symbolic_forward(s, [va, vb], [va * vb])


@pytest.mark.parametrize("req", ["write", "add"])
def test_check_symbolic_backward(req):
    a, b = sym.var("a"), sym.var("b")
    va, vb, og = np.array([1.0, 2.0]), np.array([3.0, 4.0]), np.array([0.5, -1.0])
    reqs = {"a": req, "b": "write"}
    grads = tu.check_symbolic_backward(a * b, [va, vb], [og], {"a": og * vb, "b": og * va},
                                       grad_req=reqs)
    assert sorted(grads) == ["a", "b"]
    tu.assert_almost_equal(grads["b"], og * va)
    with pytest.raises(AssertionError, match="EXPECTED_a and BACKWARD_a are not"):
        tu.check_symbolic_backward(a * b, [va, vb], [og], {"a": og * vb + 1, "b": og * va},
                                   grad_req=reqs)


def test_check_symbolic_backward_null_leaves_the_buffer_alone():
    a, b = sym.var("a"), sym.var("b")
    va, vb, og = np.array([1.0, 2.0]), np.array([3.0, 4.0]), np.array([0.5, -1.0])
    # with grad_req 'null' the check is that a's buffer keeps what it held, whatever expected
    tu.check_symbolic_backward(a * b, [va, vb], [og], {"a": np.zeros(2), "b": og * va},
                               grad_req={"a": "null", "b": "write"})


def test_check_symbolic_backward_bad_expected():
    a = sym.var("a")
    with pytest.raises(ValueError, match=re.escape("expected has gradients for ['z'], which are "
                                                   "not arguments of the symbol ['a']")):
        tu.check_symbolic_backward(a * 2, [np.ones(2)], [np.ones(2)], {"z": np.ones(2)})


def test_simple_forward():
    x = sym.var("x")
    tu.assert_almost_equal(tu.simple_forward(x * 2, x=np.ones(3)), 2 * np.ones(3))


# ---- references, generator checks, symbol structure -------------------------------------------
def test_np_reduce_and_collapse_sum_like():
    a = np.arange(24.0).reshape(2, 3, 4)
    assert tu.same(tu.np_reduce(a, (0, 2), True, np.sum), a.sum(axis=(0, 2), keepdims=True))
    assert tu.same(tu.np_reduce(a, -1, False, np.max), a.max(axis=-1))
    assert tu.same(tu.np_reduce(a, None, False, np.sum), a.sum())
    tu.assert_almost_equal(tu.collapse_sum_like(a, (3, 1)), a.sum(axis=(0, 2))[:, None])
    tu.assert_almost_equal(tu.collapse_sum_like(a, (1, 3, 4)), a.sum(axis=0, keepdims=True))
    assert tu.collapse_sum_like(np.ones((0, 3)), (3,)).shape == (3,)
    with pytest.raises(ValueError, match=r"shape \(2,\) does not broadcast to \(2, 3, 4\)"):
        tu.collapse_sum_like(a, (2,))


def test_generator_checks():
    from scipy import stats
    np.random.seed(1)
    normal = lambda n: np.random.normal(size=n)  # noqa: E731
    buckets, probs = tu.gen_buckets_probs_with_ppf(stats.norm.ppf, 5)
    assert len(buckets) == 5 and probs == [0.2] * 5 and buckets[0][0] == -np.inf
    assert len(tu.verify_generator(normal, buckets, probs, nsamples=5000, nrepeat=3)) == 3
    with pytest.raises(AssertionError, match="verify_generator: 0 of 3 chi-square runs"):
        tu.verify_generator(lambda n: np.random.normal(0.5, size=n), buckets, probs,
                            nsamples=5000, nrepeat=3)
    p, observed, _ = tu.chi_square_check(lambda n: np.random.randint(0, 3, size=n), [0, 1, 2],
                                         [1 / 3] * 3, nsamples=3000)
    assert observed.sum() == 3000 and p > 1e-4
    with pytest.raises(ValueError, match="samples fall in no bucket"):
        tu.chi_square_check(normal, [(0.0, 1.0)], [1.0], nsamples=100)
    assert tu.mean_check(normal, 0, 1, nsamples=10000)
    assert not tu.mean_check(lambda n: np.random.normal(0.2, size=n), 0, 1, nsamples=10000)
    assert tu.var_check(normal, 1, nsamples=10000)
    assert not tu.var_check(lambda n: np.random.normal(0, 1.2, size=n), 1, nsamples=10000)


def test_compare_ndarray_tuple_and_symbol_structure():
    tu.compare_ndarray_tuple((nd.ones((2,)), (np.zeros(1),)), (np.ones(2), (np.zeros(1),)))
    tu.compare_ndarray_tuple(None, (np.ones(2),))
    with pytest.raises(AssertionError):
        tu.compare_ndarray_tuple((np.ones(2),), (np.zeros(2),))
    a, b = sym.var("a"), sym.var("b")
    assert tu.same_symbol_structure(sym.relu(a) + 1, sym.relu(b) + 2)
    assert not tu.same_symbol_structure(sym.relu(a), sym.tanh(a))
    assert list(tu.list_gpus()) == list(range(mx.context.num_gpus()))
