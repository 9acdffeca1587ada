"""`sym.random`: sampling nodes, as MXNet 1.9.1's `mx.sym.random`.

Parameters given as numbers make a ``_random_<d>`` node drawing `shape`; parameters given as
Symbols make a ``_sample_<d>`` node drawing `shape` samples per parameter element (see
`gluonlite.ndarray.random` and `gluonlite.ops.samplers`).

Example::

    z = sym.random.normal(0, 1, shape=(2, 3))
    s = sym.random.normal(sym.var("mu"), sym.var("sigma"), shape=4)
"""
import numbers

import numpy as np

from ..ops.samplers import DISTS as _DISTS, dtype_attr as _dtype_attr, shape_arg as _shape
from ..ops.registry import get as _get
from .register import fn as _fn, make_function as _make
from .symbol import Symbol

__all__ = ["uniform", "normal", "randn", "poisson", "exponential", "gamma", "multinomial",
           "negative_binomial", "generalized_negative_binomial", "shuffle", "randint",
           "uniform_like", "normal_like", "poisson_like", "exponential_like", "gamma_like",
           "negative_binomial_like", "generalized_negative_binomial_like"]


def _random_helper(dist, params, shape, dtype, kwargs):
    """A ``_sample_<dist>`` node for Symbol parameters, a ``_random_<dist>`` one for numbers.

    Raises:
        TypeError: parameters that mix Symbols and numbers, or are neither.
    """
    names = [a for a, _, _ in _DISTS[dist].params]
    if isinstance(params[0], Symbol):
        for n, v in zip(names[1:], params[1:]):
            if not isinstance(v, Symbol):
                raise TypeError(f"random.{dist}: the parameters must all be Symbols or all "
                                f"numbers; {names[0]} is a Symbol but {n} is "
                                f"{type(v).__name__}")
        return _fn(f"_sample_{dist}")(*params, shape=_shape(shape), **_dtype_attr(dtype),
                                      **kwargs)
    for n, v in zip(names, params):
        if not isinstance(v, numbers.Real):
            raise TypeError(f"random.{dist}: the parameters must all be Symbols or all "
                            f"numbers; {n} is {type(v).__name__}")
    return _fn(f"_random_{dist}")(shape=_shape(shape if shape is not None else (1,)),
                                  **dict(zip(names, params)), **_dtype_attr(dtype), **kwargs)


def uniform(low=0, high=1, shape=None, dtype=None, **kwargs):
    """A node sampling U[low, high)."""
    return _random_helper("uniform", [low, high], shape, dtype, kwargs)


def normal(loc=0, scale=1, shape=None, dtype=None, **kwargs):
    """A node sampling N(loc, scale**2)."""
    return _random_helper("normal", [loc, scale], shape, dtype, kwargs)


def randn(*shape, loc=0, scale=1, dtype=None, **kwargs):
    """A node sampling N(loc, scale**2) of shape `shape` (separate integers); given a `data`
    Symbol instead of a shape, of data's shape (as MXNet's own tests call it)."""
    data = kwargs.pop("data", None)
    if data is not None and not shape and isinstance(data, Symbol):
        if dtype is not None:
            data = _fn("Cast")(data, dtype=np.dtype(dtype).name)
        return normal_like(data, loc=loc, scale=scale, **kwargs)
    return _random_helper("normal", [loc, scale], shape or None, dtype, kwargs)


def poisson(lam=1, shape=None, dtype=None, **kwargs):
    """A node sampling Poisson(lam)."""
    return _random_helper("poisson", [lam], shape, dtype, kwargs)


def exponential(scale=1, shape=None, dtype=None, **kwargs):
    """A node sampling the exponential distribution of mean `scale`."""
    return _random_helper("exponential", [1.0 / scale], shape, dtype, kwargs)


def gamma(alpha=1, beta=1, shape=None, dtype=None, **kwargs):
    """A node sampling Gamma(alpha shape, beta scale)."""
    return _random_helper("gamma", [alpha, beta], shape, dtype, kwargs)


def negative_binomial(k=1, p=1, shape=None, dtype=None, **kwargs):
    """A node sampling the failures before `k` successes of probability `p`."""
    return _random_helper("negative_binomial", [k, p], shape, dtype, kwargs)


def generalized_negative_binomial(mu=1, alpha=1, shape=None, dtype=None, **kwargs):
    """A node sampling the negative binomial of mean `mu` and dispersion `alpha`."""
    return _random_helper("generalized_negative_binomial", [mu, alpha], shape, dtype, kwargs)


def multinomial(data, shape=None, get_prob=True, dtype="int32", **kwargs):
    """A node drawing category indices with the probabilities on data's last axis (MXNet's
    symbolic version returns the log-probabilities too by default: get_prob=True)."""
    return _fn("_sample_multinomial")(data, shape=_shape(shape), get_prob=get_prob,
                                      dtype=dtype, **kwargs)


def shuffle(data, **kwargs):
    """A node permuting data's first axis randomly."""
    return _fn("_shuffle")(data, **kwargs)


def randint(low, high, shape=None, dtype=None, **kwargs):
    """A node drawing integers uniformly from [low, high)."""
    return _fn("_random_randint")(low=low, high=high,
                                  shape=_shape(shape if shape is not None else (1,)),
                                  **_dtype_attr(dtype), **kwargs)


def _make_like(dist):
    make = _make(_get(f"_random_{dist}_like"), f"{dist}_like")  # nodes named normal_like0

    def like(data=None, *args, **kwargs):
        return make(data, *args, **kwargs)
    like.__name__ = like.__qualname__ = f"{dist}_like"
    like.__doc__ = f"A node sampling {dist.replace('_', ' ')} values of data's shape."
    return like


uniform_like = _make_like("uniform")
normal_like = _make_like("normal")
poisson_like = _make_like("poisson")
exponential_like = _make_like("exponential")
gamma_like = _make_like("gamma")
negative_binomial_like = _make_like("negative_binomial")
generalized_negative_binomial_like = _make_like("generalized_negative_binomial")
