"""`gluonlite.ops.libm32`: float32 expf and logf equal to the C library's (glibc's, called here
through ctypes as the oracle) on inputs where glibc differs from the correctly rounded value,
near rounding midpoints, at the ends of binades and on subnormal results; the correctly
rounded value where no glibc is found. `nd.exp` and `nd.log` of float32 and float16 data
through it, imperatively and in a static-alloc plan, against MXNet-made numbers
(fixtures/make_libm32.py). (The normals drawn through it are MXNet's bit for bit:
tests/core/test_mxnet_random_streams.py.)"""
import ctypes
import ctypes.util

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import gluon, nd
from gluonlite.ops import elementwise, libm32

from fixture_makers import maker, reference

make_libm32 = maker("make_libm32")
_REF = reference("libm32_mxnet.npz")


def _oracle(name):
    if not libm32.has_c_library(name):
        return None
    f = getattr(ctypes.CDLL(ctypes.util.find_library("m")), name)
    f.restype, f.argtypes = ctypes.c_float, [ctypes.c_float]
    return f


# expf inputs whose float64 value glibc's fused multiply-adds put on the other side of a
# float32 midpoint than numpy's separate multiplies and adds
FMA_SIDED = [0xc27c65d9, 0x4202422f]


def _inputs(name):
    rng = np.random.default_rng(1)
    lo, hi = (1e-30, 1.0) if name == "logf" else (-89.0, 0.0)
    parts = [rng.uniform(lo, hi, 200000),
             1 - rng.random(20000) * 1e-3 if name == "logf" else -rng.random(20000) * 1e-3,
             # powers of two and their neighbours, subnormal results, outside the range
             2.0 ** np.arange(-40, 1), np.nextafter(2.0 ** np.arange(-40, 1), 0),
             rng.uniform(1, 50, 3000) if name == "logf" else rng.uniform(0, 80, 3000),
             rng.uniform(-103, -87, 3000) if name == "expf" else rng.random(3000) * 1e-38]
    return np.concatenate([np.asarray(p, np.float64).ravel() for p in parts]).astype(np.float32)


@pytest.mark.parametrize("name", ["logf", "expf"])
def test_equals_the_c_library_or_the_correctly_rounded_value(name):
    x = _inputs(name)
    got = getattr(libm32, name)(x)
    exact = (np.log if name == "logf" else np.exp)(x.astype(np.float64)).astype(np.float32)
    f = _oracle(name)
    want = exact if f is None else np.fromiter(map(f, x.tolist()), np.float32, x.size)
    np.testing.assert_array_equal(got, want)
    if f is not None and name == "logf":
        # what the module is for: the correctly rounded value is not glibc's everywhere
        assert (exact != want).sum() > 10


def test_keeps_shape_and_gives_float32():
    x = np.array([[0.5, 0.25], [1.0, 0.125]], np.float32)
    for f in (libm32.logf, libm32.expf):
        y = f(x)
        assert y.shape == x.shape and y.dtype == np.float32
    assert libm32.logf(np.zeros((0, 3), np.float32)).shape == (0, 3)


def _near_midpoints(name, count):
    """float32 inputs whose float64 value by glibc's arithmetic lies within libm32.ASK_UNITS
    of a float32 midpoint: the entries libm32 asks of the C library."""
    rng = np.random.default_rng(3)
    # about one input in a million: eight million draws hold several
    x = (rng.integers(0x00800000, 0x7f7fffff, 1 << 23, dtype=np.uint32).view(np.float32)
         if name == "logf" else rng.uniform(-87, 88, 1 << 23).astype(np.float32))
    y = (libm32._glibc_logf if name == "logf" else libm32._glibc_expf)(x)
    near = np.flatnonzero(libm32._near_midpoint(y, libm32.ASK_UNITS))
    assert near.size >= count, near.size
    return x[near[:count]]


@pytest.mark.parametrize("name", ["logf", "expf"])
def test_entries_near_a_midpoint_are_the_c_librarys(name):
    f = _oracle(name)
    if f is None:
        pytest.skip("no glibc here: nothing to compare the asked entries with")
    x = _near_midpoints(name, 3)
    # with glibc's fused multiply-adds the float64 value can land on either side of the
    # midpoint: these two do (found by compat/libm_check.py), and must come out as glibc's
    if name == "expf":
        x = np.concatenate([x, np.array([FMA_SIDED], np.uint32).view(np.float32).ravel()])
    filler = np.full(64, 0.5, np.float32)   # above ASK_ALL: the sifting path
    got = getattr(libm32, name)(np.concatenate([x, filler]))[:x.size]
    want = np.fromiter(map(f, x.tolist()), np.float32, x.size)
    np.testing.assert_array_equal(got, want)


def test_special_inputs_give_the_c_librarys_special_values():
    x = np.array([0.0, -0.0, -1.0, np.inf, -np.inf, np.nan, 1.0, 1e-45, 3e-39, 100.0, -100.0,
                  -87.5, -103.9, -200.0, 88.7, 88.73] + [0.5] * 20, np.float32)
    with np.errstate(all="ignore"):
        for name, exact in (("logf", np.log), ("expf", np.exp)):
            got = getattr(libm32, name)(x)
            f = _oracle(name)
            want = (exact(x.astype(np.float64)).astype(np.float32) if f is None
                    else np.fromiter(map(f, x.tolist()), np.float32, x.size))
            np.testing.assert_array_equal(got, want, err_msg=name)


@pytest.mark.parametrize("name", ["logf", "expf"])
def test_without_the_c_library_the_correctly_rounded_value(name, monkeypatch):
    # a C library whose values are not glibc's arithmetic fails the first-use check
    libm32._checked.cache_clear()
    monkeypatch.setitem(libm32._LIBM, name, lambda v: v)
    try:
        assert not libm32.has_c_library(name)
        x = _inputs(name)
        exact = (np.log if name == "logf" else np.exp)(x.astype(np.float64)).astype(np.float32)
        np.testing.assert_array_equal(getattr(libm32, name)(x), exact)
    finally:
        libm32._checked.cache_clear()


# the C library function behind each operator of the fixture (rsqrt needs none)
_BEHIND = {"exp": "expf", "log": "logf", "sigmoid": "expf"}


def test_c_library_functions_and_rsqrt_are_mxnets_bit_for_bit():
    got = make_libm32.unary(mx)
    assert set(got) == set(_REF.files)
    for key, value in got.items():
        want = _REF[key]
        assert value.dtype == want.dtype, key
        same = (value == want) | (np.isnan(value) & np.isnan(want))
        fn = _BEHIND.get(key.split("_")[0])
        if fn is None or libm32.has_c_library(fn):
            assert same.all(), key
        else:
            np.testing.assert_array_max_ulp(value, want, maxulp=2)


@pytest.mark.parametrize("name", ["exp", "log", "sigmoid"])
def test_a_static_alloc_plan_gives_the_imperative_bits(name):
    x = make_libm32.inputs()[name]
    net = gluon.nn.HybridLambda(lambda F, a: getattr(F, name)(a))
    want = getattr(nd, name)(nd.array(x)).asnumpy()
    net.hybridize(static_alloc=True, static_shape=True)
    for _ in range(2):
        np.testing.assert_array_equal(net(nd.array(x)).asnumpy(), want)


def test_activation_sigmoid_keeps_numpys_kernel():
    # MXNet's Activation is oneDNN's approximation, not the C library's expf: gluonlite keeps
    # the fast kernel the recurrent cells' loops run, apart from the sigmoid operator
    x = np.random.default_rng(6).uniform(-12, 12, (64, 33)).astype(np.float32)
    fast = np.empty_like(x)
    elementwise.sigmoid_into(np, x, fast)
    for hybrid in (False, True):
        net = gluon.nn.HybridLambda(lambda F, a: F.Activation(a, act_type="sigmoid"))
        if hybrid:
            net.hybridize(static_alloc=True, static_shape=True)
        np.testing.assert_array_equal(net(nd.array(x)).asnumpy(), fast)
    exact = nd.sigmoid(nd.array(x)).asnumpy()
    np.testing.assert_array_equal(exact, np.float32(1) / (np.float32(1) + libm32.expf(-x)))
    assert not np.array_equal(fast, exact)
