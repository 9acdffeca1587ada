"""`nd.random`: sampling functions, as MXNet 1.9.1's (reproducible with `gluonlite.random.seed`).

Each distribution takes its parameters as numbers or as NDArrays (all of one kind): numbers
draw an array of `shape` (``_random_<d>``), NDArrays draw `shape` samples for each of their
elements (``_sample_<d>``), so the output's shape is the parameters' shape followed by
`shape`. The operators are in `gluonlite.ops.samplers`.

Example::

    nd.random.normal(0, 1, shape=(2, 3))                  # 2x3 draws of N(0, 1)
    nd.random.normal(nd.array([0, 10]), nd.array([1, 1]), shape=4)   # shape (2, 4)
"""
import numbers

from ..context import Context, current_context
from ..ops.samplers import DISTS as _DISTS, dtype_attr as _dtype_attr, shape_arg as _shape
from .ndarray import NDArray  # noqa: F401  (MXNet's nd.random has it)
from .register import _gen_cache

__all__ = ["uniform", "normal", "randn", "poisson", "exponential", "gamma", "multinomial",
           "negative_binomial", "generalized_negative_binomial", "shuffle", "randint",
           "uniform_like", "normal_like", "poisson_like", "exponential_like", "gamma_like",
           "negative_binomial_like", "generalized_negative_binomial_like", "seed"]


def _ctx_dtype(ctx, dtype):
    """MXNet's order is (shape, dtype, ctx); gluonlite's API page wrote (shape, ctx, dtype):
    a Context given where the dtype goes is taken as the ctx, so both spellings work."""
    if isinstance(dtype, Context) and not isinstance(ctx, Context):
        return dtype, ctx
    return ctx, dtype


def _random_helper(dist, params, shape, dtype, ctx, out, kwargs):
    """Draw from `dist` with scalar params (``_random_<d>``) or NDArray params
    (``_sample_<d>``).

    Raises:
        TypeError: parameters that mix NDArrays and numbers, or are neither.
    """
    ctx, dtype = _ctx_dtype(ctx, dtype)
    names = [a for a, _, _ in _DISTS[dist].params] if dist in _DISTS else ["low", "high"]
    if isinstance(params[0], NDArray):
        for n, v in zip(names[1:], params[1:]):
            if not isinstance(v, NDArray):
                raise TypeError(f"random.{dist}: the parameters must all be NDArrays or all "
                                f"numbers; {names[0]} is an NDArray but {n} is "
                                f"{type(v).__name__}")
        return _gen_cache[f"_sample_{dist}"](*params, shape=_shape(shape), out=out,
                                             **_dtype_attr(dtype), **kwargs)
    for n, v in zip(names, params):
        if not isinstance(v, numbers.Real):
            raise TypeError(f"random.{dist}: the parameters must all be NDArrays or all "
                            f"numbers; {n} is {type(v).__name__}")
    if shape is None:
        shape = out.shape if out is not None else (1,)
    attrs = dict(zip(names, params))
    return _gen_cache[f"_random_{dist}"](shape=_shape(shape), ctx=ctx or current_context(),
                                         out=out, **attrs, **_dtype_attr(dtype), **kwargs)


def uniform(low=0, high=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from U[low, high) (numbers or NDArrays, see the module docstring).

    Example: ``nd.random.uniform(-1, 1, shape=(2, 3))``.
    """
    return _random_helper("uniform", [low, high], shape, dtype, ctx, out, kwargs)


def normal(loc=0, scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from N(loc, scale**2). Example: ``nd.random.normal(0, 2, shape=(4,))``."""
    return _random_helper("normal", [loc, scale], shape, dtype, ctx, out, kwargs)


def randn(*shape, loc=0, scale=1, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from N(loc, scale**2) of shape `shape` (given as separate integers).

    Example: ``nd.random.randn(2, 3)``.
    """
    return _random_helper("normal", [loc, scale], shape or None, dtype, ctx, out, kwargs)


def poisson(lam=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from Poisson(lam) (as floats). Example: ``nd.random.poisson(4, shape=(3,))``."""
    return _random_helper("poisson", [lam], shape, dtype, ctx, out, kwargs)


def exponential(scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from the exponential distribution of mean `scale` (rate 1/scale).

    Example: ``nd.random.exponential(2.0, shape=(3,))``.
    """
    return _random_helper("exponential", [1.0 / scale], shape, dtype, ctx, out, kwargs)


def gamma(alpha=1, beta=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from Gamma(alpha shape, beta scale). Example: ``nd.random.gamma(2, 0.5, 3)``."""
    return _random_helper("gamma", [alpha, beta], shape, dtype, ctx, out, kwargs)


def negative_binomial(k=1, p=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples of the number of failures before `k` successes of probability `p`.

    Example: ``nd.random.negative_binomial(3, 0.4, shape=(2,))``.
    """
    return _random_helper("negative_binomial", [k, p], shape, dtype, ctx, out, kwargs)


def generalized_negative_binomial(mu=1, alpha=1, shape=None, dtype=None, ctx=None, out=None,
                                  **kwargs):
    """Samples of the negative binomial of mean `mu` and dispersion `alpha`.

    Example: ``nd.random.generalized_negative_binomial(2.0, 0.3, shape=(2,))``.
    """
    return _random_helper("generalized_negative_binomial", [mu, alpha], shape, dtype, ctx,
                          out, kwargs)


def multinomial(data, shape=None, get_prob=False, out=None, dtype="int32", **kwargs):
    """Category indices drawn with the probabilities on data's last axis.

    Args:
        data: probabilities, shape (..., k).
        shape: draws per distribution (output shape data.shape[:-1] + shape).
        get_prob: also return the log-probability of each draw (differentiable in data).
        dtype: dtype of the indices.

    Returns:
        NDArray of indices, or [indices, log-probabilities] with get_prob.

    Example: ``nd.random.multinomial(nd.array([[0.1, 0.9]]), shape=3)``.
    """
    return _gen_cache["_sample_multinomial"](data, shape=_shape(shape), get_prob=get_prob,
                                             out=out, dtype=dtype, **kwargs)


def shuffle(data, **kwargs):
    """data with its first axis randomly permuted. Example: ``nd.random.shuffle(x)``."""
    return _gen_cache["_shuffle"](data, **kwargs)


def randint(low, high, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Integers drawn uniformly from [low, high) (int32 by default).

    Example: ``nd.random.randint(0, 10, shape=(2, 2))``.
    """
    ctx, dtype = _ctx_dtype(ctx, dtype)
    if shape is None:
        shape = out.shape if out is not None else (1,)
    return _gen_cache["_random_randint"](low=low, high=high, shape=_shape(shape),
                                         ctx=ctx or current_context(), out=out,
                                         **_dtype_attr(dtype), **kwargs)


def _make_like(dist):
    names = [a for a, _, _ in _DISTS[dist].params]

    def like(data=None, *args, out=None, name=None, **kwargs):
        return _gen_cache[f"_random_{dist}_like"](data, *args, out=out, **kwargs)
    like.__name__ = like.__qualname__ = f"{dist}_like"
    like.__doc__ = (f"{dist}_like(data, {', '.join(names)}): samples of the "
                    f"{dist.replace('_', ' ')} distribution with data's shape and dtype.\n\n"
                    f"Example: ``nd.random.{dist}_like(x)``.")
    return like


uniform_like = _make_like("uniform")
normal_like = _make_like("normal")
poisson_like = _make_like("poisson")
exponential_like = _make_like("exponential")
gamma_like = _make_like("gamma")
negative_binomial_like = _make_like("negative_binomial")
generalized_negative_binomial_like = _make_like("generalized_negative_binomial")


def seed(seed_state, ctx="all"):
    """Reseed every random draw of gluonlite (same as `gluonlite.random.seed`; one generator
    serves every context, so `ctx` is accepted for MXNet's signature)."""
    from ..ops.random import seed as _seed
    _seed(seed_state)
