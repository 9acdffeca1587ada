"""`nd.random` / `sym.random` / `mx.random`: samplers checked by their moments (fixed seeds,
generous tolerances), the densities against MXNet 1.9.1 (fixtures/make_random.py), the
shapes MXNet's functions give, and the errors."""

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, nd, sym

from fixture_makers import maker, reference

make_random = maker("make_random")
_REF = reference("random_pdf_mxnet.npz")


@pytest.mark.parametrize("k", range(len(make_random.cases())))
def test_densities_and_their_gradients_match_mxnet(k):
    name, ins, is_log = make_random.cases()[k]
    out, grads = make_random.run(mx, name, ins, is_log)
    np.testing.assert_allclose(out, _REF[f"{k}_out"], rtol=1e-6, err_msg=name)
    for i, g in enumerate(grads):
        np.testing.assert_allclose(g, _REF[f"{k}_grad{i}"], rtol=1e-6, atol=1e-9,
                                   err_msg=f"{name} is_log={is_log}: gradient of input {i}")


# (function, args, mean, variance) of each distribution, closed forms
MOMENTS = [
    (nd.random.uniform, (-1.0, 3.0), 1.0, 16 / 12),
    (nd.random.normal, (2.0, 0.5), 2.0, 0.25),
    (nd.random.gamma, (3.0, 2.0), 6.0, 12.0),             # shape alpha, scale beta
    (nd.random.exponential, (2.0,), 2.0, 4.0),            # scale (mean)
    (nd.random.poisson, (4.0,), 4.0, 4.0),
    (nd.random.negative_binomial, (3, 0.4), 4.5, 11.25),  # k (1 - p) / p, .. / p**2
    (nd.random.generalized_negative_binomial, (2.0, 0.5), 2.0, 4.0),  # mu, mu + alpha mu**2
]


@pytest.mark.parametrize("f, args, mean, var", MOMENTS, ids=[m[0].__name__ for m in MOMENTS])
def test_scalar_parameters_draw_the_distribution(f, args, mean, var):
    mx.random.seed(42)
    x = f(*args, shape=(20000,))
    assert x.shape == (20000,) and x.dtype == np.float32
    x = x.asnumpy().astype(np.float64)
    assert abs(x.mean() - mean) < 4 * np.sqrt(var / x.size) + 1e-3
    assert abs(x.var() - var) < 0.1 * var


@pytest.mark.parametrize("f, args, mean, var", MOMENTS, ids=[m[0].__name__ for m in MOMENTS])
def test_array_parameters_draw_shape_samples_per_element(f, args, mean, var):
    mx.random.seed(3)
    params = [nd.array([a, a]) for a in args]
    x = f(*params, shape=(2, 5000))
    assert x.shape == (2, 2, 5000) and x.dtype == np.float32
    m = x.asnumpy().astype(np.float64).mean(axis=(1, 2))
    np.testing.assert_allclose(m, [mean, mean], atol=6 * np.sqrt(var / 10000) + 1e-3)


def test_seed_makes_draws_reproducible_and_like_functions_copy_shape_and_dtype():
    mx.random.seed(5)
    a = nd.random.normal(shape=(3,)).asnumpy()
    mx.random.seed(5)
    b = mx.random.normal(shape=(3,)).asnumpy()
    np.testing.assert_array_equal(a, b)
    like = nd.random.exponential_like(nd.zeros((2, 4), dtype="float64"), lam=2.0)
    assert like.shape == (2, 4) and like.dtype == np.float64 and (like.asnumpy() > 0).all()
    assert nd.random.uniform_like(nd.zeros((3,)), low=5, high=6).asnumpy().min() >= 5


def test_shapes_and_dtypes_as_mxnet_gives_them():
    assert nd.random.uniform().shape == (1,)
    assert nd.random.randn(2, 3).shape == (2, 3)
    assert nd.random.normal(nd.array([0.0]), nd.array([1.0])).shape == (1,)
    assert nd.random.normal(0, 1, shape=3, dtype="float64").dtype == np.float64
    r = nd.random.randint(-3, 4, shape=(1000,))
    assert r.dtype == np.int32 and r.asnumpy().min() == -3 and r.asnumpy().max() == 3
    assert nd.random.randint(0, 2, dtype="int64").dtype == np.int64
    assert nd.random.multinomial(nd.array([0.1, 0.9])).shape == (1,)
    x = nd.array(np.arange(12).reshape(6, 2))
    s = nd.random.shuffle(x).asnumpy()
    assert sorted(map(tuple, s)) == sorted(map(tuple, x.asnumpy()))


def test_multinomial_frequencies_and_log_probability_gradient():
    mx.random.seed(11)
    probs = nd.array([[0.2, 0.8], [0.6, 0.4]])
    idx = nd.random.multinomial(probs, shape=5000).asnumpy()
    np.testing.assert_allclose(idx.mean(axis=1), [0.8, 0.4], atol=0.03)
    probs.attach_grad()
    with autograd.record():
        idx, logp = nd.random.multinomial(probs, shape=3, get_prob=True)
    logp.backward()
    i = idx.asnumpy()
    np.testing.assert_allclose(logp.asnumpy(), np.log(np.take_along_axis(
        probs.asnumpy(), i, 1)), rtol=1e-6)
    want = np.zeros((2, 2))
    for r in range(2):
        for c in i[r]:
            want[r, c] += 1 / probs.asnumpy()[r, c]
    np.testing.assert_allclose(probs.grad.asnumpy(), want, rtol=1e-5)


def test_symbolic_samplers():
    s = sym.random.normal(sym.var("mu"), sym.var("sigma"), shape=(4,))
    _, out, _ = s.infer_shape(mu=(2, 3), sigma=(2, 3))
    assert out == [(2, 3, 4)]
    u = sym.random.uniform(1, 2, shape=(2, 2))
    assert u.eval()[0].shape == (2, 2)
    assert '"op": "_random_uniform"' in u.tojson()
    m = sym.random.multinomial(sym.var("p"))  # symbolic multinomial gives log-probs too
    assert len(m.list_outputs()) == 2
    assert sym.random.randint(0, 3, shape=(5,)).eval()[0].dtype == np.int32


def test_bad_parameters_raise_naming_the_operator():
    # the scalar operators refuse what MXNet 1.9.1's checks refuse: a scale of 0 too
    for scale in (-1, 0):
        with pytest.raises(ValueError, match=f"_random_normal: scale must be positive, got "
                                             f"{scale}"):
            nd.random.normal(0, scale, shape=(2,))
    with pytest.raises(ValueError, match="_random_uniform: low must be less than or equal to "
                                         "high, got low=2.0 and high=1.0"):
        nd.random.uniform(2, 1, shape=(2,))
    with pytest.raises(ValueError, match="_random_gamma: beta must be positive, got 0"):
        nd.random.gamma(1.0, 0.0, shape=(2,))
    with pytest.raises(ValueError, match="_random_normal_like: scale must be positive, got 0"):
        nd.random.normal_like(nd.ones((2,)), scale=0.0)
    # a parameter array names its input and its first bad value
    with pytest.raises(ValueError, match="_sample_normal: sigma must be non-negative, got -2"):
        nd.random.normal(nd.zeros((3,)), nd.array([1.0, -2.0, -3.0]))
    with pytest.raises(ValueError, match="_sample_gamma: beta must be non-negative, got -1"):
        nd.random.gamma(nd.ones((2,)), nd.array([0.0, -1.0]))
    with pytest.raises(ValueError, match=r"_random_negative_binomial: p must be in \(0, 1\]"):
        nd.random.negative_binomial(2, 1.5)
    with pytest.raises(ValueError, match="_sample_gamma: the parameter arrays alpha, beta "
                                         "must have one shape"):
        nd.random.gamma(nd.ones((2,)), nd.ones((3,)))
    with pytest.raises(TypeError, match="random.normal: the parameters must all be NDArrays "
                                        "or all numbers; loc is an NDArray but scale is float"):
        nd.random.normal(nd.ones((2,)), 1.0)
    with pytest.raises(ValueError, match="_random_randint: high must be greater than low"):
        nd.random.randint(3, 3)


def test_ctx_and_dtype_in_either_order_and_seed_with_ctx():
    a = nd.random.uniform(0, 1, (2,), "float64", mx.cpu())  # MXNet's order
    b = nd.random.uniform(0, 1, (2,), mx.cpu(), "float64")  # the order API.md wrote
    assert a.dtype == b.dtype == np.float64 and a.context == b.context == mx.cpu()
    mx.random.seed(3, ctx=mx.cpu())
    first = nd.random.normal(shape=(2,)).asnumpy()
    mx.random.seed(3)
    np.testing.assert_array_equal(first, nd.random.normal(shape=(2,)).asnumpy())
    out = nd.zeros((3, 2))
    nd.random.uniform(5, 6, out=out)
    assert out.asnumpy().min() >= 5


def test_uniform_draws_stay_below_high_after_the_float32_cast():
    mx.random.seed(0)
    x = nd.random.uniform(0, 1e-7, shape=(200000,)).asnumpy()
    assert x.max() < np.float32(1e-7)
    y = nd.random.uniform(nd.array([0.0]), nd.array([1e-7]), shape=(200000,)).asnumpy()
    assert y.max() < np.float32(1e-7)


def test_symbolic_randn_of_a_data_shape():
    y = sym.random.randn(data=sym.ones((2, 3)), loc=5, scale=1e-6)
    np.testing.assert_allclose(y.eval()[0].asnumpy(), np.full((2, 3), 5.0), atol=1e-4)
    assert sym.random.randn(data=sym.ones((2,)), dtype="float16").eval()[0].dtype == np.float16


@pytest.mark.parametrize("name", ["uniform", "normal", "poisson", "exponential", "gamma",
                                  "negative_binomial", "generalized_negative_binomial"])
def test_nd_and_sym_random_draw_the_same_numbers_from_one_table(name):
    """Both namespaces are made from the samplers' table: after one seed, a node of
    sym.random.<name> draws what nd.random.<name> draws, for number and array parameters,
    and the functions take MXNet's arguments (the imperative one also ctx and out)."""
    import inspect
    nd_fn, sym_fn = getattr(nd.random, name), getattr(sym.random, name)
    params = [p for p in inspect.signature(nd_fn).parameters][:-5]
    assert list(inspect.signature(sym_fn).parameters) == params + ["shape", "dtype", "kwargs"]
    assert list(inspect.signature(nd_fn).parameters)[-5:] == ["shape", "dtype", "ctx", "out",
                                                              "kwargs"]
    values = [0.5, 2.0][:len(params)] if name != "negative_binomial" else [3, 0.4]
    mx.random.seed(11)
    want = nd_fn(*values, shape=(3, 2)).asnumpy()
    mx.random.seed(11)
    got = sym_fn(*values, shape=(3, 2)).eval()[0].asnumpy()
    np.testing.assert_array_equal(got, want)
    arrays = [nd.array([v, v]) for v in values]
    mx.random.seed(12)
    want = nd_fn(*arrays, shape=3).asnumpy()
    mx.random.seed(12)
    names = [f"p{i}" for i in range(len(arrays))]
    got = sym_fn(*[sym.var(n) for n in names], shape=3).eval(
        **dict(zip(names, arrays)))[0].asnumpy()
    assert want.shape == (2, 3)
    np.testing.assert_array_equal(got, want)


def test_random_functions_bind_arguments_as_their_signature_says():
    """Positional, keyword and default arguments land where the signature puts them (MXNet's
    order: parameters, shape, dtype, ctx, out), other keywords reach the operator, and too
    many positional arguments or one given twice raise TypeError naming the function."""
    mx.random.seed(3)
    want = nd.random.normal(1.0, 2.0, (2, 3), "float64").asnumpy()
    mx.random.seed(3)
    got = nd.random.normal(scale=2.0, dtype="float64", loc=1.0, shape=(2, 3)).asnumpy()
    np.testing.assert_array_equal(got, want)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(_seeded(3, lambda: nd.random.normal(shape=(2,))),
                                  _seeded(3, lambda: nd.random.normal(0, 1, (2,))))
    out = nd.zeros((4,))
    nd.random.uniform(0, 1, None, None, None, out)
    assert out.shape == (4,) and (out.asnumpy() > 0).all()
    node = sym.random.uniform(0, 1, shape=(2,), name="draw")   # a keyword for the node
    assert node.name == "draw"
    with pytest.raises(TypeError, match=r"normal\(\) takes at most 6 positional"):
        nd.random.normal(0, 1, (2,), "float32", None, None, 7)
    with pytest.raises(TypeError, match="normal\\(\\) got multiple values for argument 'loc'"):
        nd.random.normal(0, loc=1)


def _seeded(seed, draw):
    mx.random.seed(seed)
    return draw().asnumpy()


def test_negative_seeds_give_repeatable_streams_of_their_own():
    """MXNet's mx.random.seed takes any int (its own test_random_seed draws seeds from
    [-2**31, 2**31)); a negative seed repeats its draws and is not its absolute value's."""
    draws = {}
    for s in (-123456789, 123456789, -123456789):
        mx.random.seed(s)
        draws.setdefault(s, []).append(nd.random.uniform(shape=(4,)).asnumpy())
    np.testing.assert_array_equal(*draws[-123456789])
    assert not np.array_equal(draws[-123456789][0], draws[123456789][0])
