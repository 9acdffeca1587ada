"""`mx.np.random`: NumPy's samplers on `mx.np` arrays. Each parameter may be a number or an
array (broadcast together and to `size`); float32 draws by default; the generator is
gluonlite's one (``mx.random.seed`` / ``npx.random.seed``). normal, logistic, gumbel,
lognormal, exponential, rayleigh, weibull and pareto are differentiable in their array
parameters, as MXNet 1.9.1's are.

Example::

    mx.random.seed(0)
    mx.np.random.normal(mx.np.zeros(3), 1, size=(2, 3)).shape   # (2, 3)
"""
import numbers

import numpy as _onp

from ..base import MXNetTypeError, MXNetValueError, normalize_dtype
from ..context import current_context
from ..ndarray.ndarray import NDArray
from ..numpy_op_fallback import custom
from ..symbol.symbol import Symbol
from ._dispatch import invoke, default_float
from ._manipulation import take
from ._ufuncs import exp

__all__ = ["randint", "uniform", "normal", "lognormal", "logistic", "gumbel", "multinomial",
           "multivariate_normal", "choice", "rayleigh", "rand", "shuffle", "gamma", "beta",
           "chisquare", "exponential", "weibull", "pareto", "power", "randn"]


def _is_array(x):
    return isinstance(x, (NDArray, Symbol))


def _size(size):
    if size is None or size == ():
        return None
    return (int(size),) if isinstance(size, numbers.Integral) else tuple(int(d) for d in size)


def _dt(dtype, fname):
    return normalize_dtype(default_float() if dtype is None else dtype, f"{fname}: dtype").name


def _sample(op, fname, params, size, ctx=None, dtype=None, out=None, dtype_attr=True):
    """Call sampler `op` with `params` ((name, value) pairs): arrays as inputs, numbers as
    attributes."""
    inputs, attrs = [], {}
    for name, v in params:
        if _is_array(v):
            inputs.append(v)
            attrs[name] = None
        else:
            if not isinstance(v, numbers.Number):
                raise MXNetTypeError(f"{fname}: {name} must be a number or an mxnet.numpy."
                                     f"ndarray, got {type(v).__name__}")
            attrs[name] = float(v)
    if out is not None and size is None:
        size = out.shape
    attrs["size"] = _size(size)
    if not inputs:
        attrs["ctx"] = str(ctx or current_context())
    if dtype_attr:
        attrs["dtype"] = _dt(dtype, fname)
    return invoke(op, inputs, attrs, out=out, fname=fname)


def uniform(low=0.0, high=1.0, size=None, dtype=None, ctx=None, out=None):
    """Draws from U[low, high).

    Args:
        low: default 0.0: the lower bound, included; a number or an `mx.np.ndarray` broadcast
            against the other parameters.
        high: default 1.0: the upper bound, excluded; a number or an `mx.np.ndarray` broadcast
            against the other parameters.
        size: default None: the broadcast shape of the parameters (a single draw for numbers;
            `out`'s shape when given); else an int or a tuple of ints, the output shape.
        dtype: default None: float32 (float64 under ``npx.set_np(dtype=True)``); else a float dtype
            name or NumPy dtype.
        ctx: default None: the current context; else the `Context` of the draws (used when every
            parameter is a number).
        out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype that
            receives the draws (and is returned).

    Returns:
        An `mx.np.ndarray` of draws (a numpy symbol when a parameter is one).

    Raises:
        TypeError: a parameter that is neither a number nor an `mx.np.ndarray`.

    Example::

        x = mx.np.random.uniform(0, 1, size=(2, 3))
        x.shape  # (2, 3)
        bool(((x >= 0) & (x < 1)).all())  # True
    """
    return _sample("_npi_uniform", "random.uniform", [("low", low), ("high", high)], size, ctx,
                   dtype, out)


def normal(loc=0.0, scale=1.0, size=None, dtype=None, ctx=None, out=None):
    """Draws from N(loc, scale**2).

    Args:
        loc: default 0.0: the mean; a number or an `mx.np.ndarray` broadcast against the other
            parameters.
        scale: default 1.0: the standard deviation, >= 0; a number or an `mx.np.ndarray` broadcast
            against the other parameters.
        size: default None: the broadcast shape of the parameters (a single draw for numbers;
            `out`'s shape when given); else an int or a tuple of ints, the output shape.
        dtype: default None: float32 (float64 under ``npx.set_np(dtype=True)``); else a float dtype
            name or NumPy dtype.
        ctx: default None: the current context; else the `Context` of the draws (used when every
            parameter is a number).
        out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype that
            receives the draws (and is returned).

    Returns:
        An `mx.np.ndarray` of draws (a numpy symbol when a parameter is one).

    Raises:
        ValueError: a negative scale.

    Example::

        mx.np.random.normal(0, 1, size=(2, 3)).shape  # (2, 3)
    """
    return _sample("_npi_normal", "random.normal", [("loc", loc), ("scale", scale)], size, ctx,
                   dtype, out)


def lognormal(mean=0.0, sigma=1.0, size=None, dtype=None, ctx=None, out=None):
    """exp of draws from N(mean, sigma**2).

    Args:
        mean: default 0.0: the mean of the underlying normal; a number or an `mx.np.ndarray`
            broadcast against the other parameters.
        sigma: default 1.0: the standard deviation of the underlying normal; a number or an
            `mx.np.ndarray` broadcast against the other parameters.
        size: default None: the broadcast shape of the parameters (a single draw for numbers;
            `out`'s shape when given); else an int or a tuple of ints, the output shape.
        dtype: default None: float32 (float64 under ``npx.set_np(dtype=True)``); else a float dtype
            name or NumPy dtype.
        ctx: default None: the current context; else the `Context` of the draws (used when every
            parameter is a number).
        out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype that
            receives the draws (and is returned).

    Returns:
        An `mx.np.ndarray` of draws (a numpy symbol when a parameter is one).

    Raises:
        TypeError: a parameter that is neither a number nor an `mx.np.ndarray`.

    Example::

        x = mx.np.random.lognormal(0, 1, size=4)
        bool((x > 0).all())  # True
    """
    return exp(normal(loc=mean, scale=sigma, size=size, dtype=dtype, ctx=ctx), out=out)


def logistic(loc=0.0, scale=1.0, size=None, ctx=None, out=None):
    """Draws from the logistic distribution.

    Args:
        loc: default 0.0: the location (mean); a number or an `mx.np.ndarray` broadcast against the
            other parameters.
        scale: default 1.0: the scale, > 0; a number or an `mx.np.ndarray` broadcast against the
            other parameters.
        size: default None: the broadcast shape of the parameters (a single draw for numbers;
            `out`'s shape when given); else an int or a tuple of ints, the output shape.
        ctx: default None: the current context; else the `Context` of the draws (used when every
            parameter is a number).
        out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype that
            receives the draws (and is returned).

    Returns:
        An `mx.np.ndarray` of draws (a numpy symbol when a parameter is one).

    Raises:
        TypeError: a parameter that is neither a number nor an `mx.np.ndarray`.

    Example::

        mx.np.random.logistic(0, 1, size=(3,)).shape  # (3,)
    """
    return _sample("_npi_logistic", "random.logistic", [("loc", loc), ("scale", scale)], size,
                   ctx, None, out, dtype_attr=False)


def gumbel(loc=0.0, scale=1.0, size=None, ctx=None, out=None):
    """Draws from the Gumbel distribution.

    Args:
        loc: default 0.0: the location (mode); a number or an `mx.np.ndarray` broadcast against the
            other parameters.
        scale: default 1.0: the scale, > 0; a number or an `mx.np.ndarray` broadcast against the
            other parameters.
        size: default None: the broadcast shape of the parameters (a single draw for numbers;
            `out`'s shape when given); else an int or a tuple of ints, the output shape.
        ctx: default None: the current context; else the `Context` of the draws (used when every
            parameter is a number).
        out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype that
            receives the draws (and is returned).

    Returns:
        An `mx.np.ndarray` of draws (a numpy symbol when a parameter is one).

    Raises:
        TypeError: a parameter that is neither a number nor an `mx.np.ndarray`.

    Example::

        mx.np.random.gumbel(0, 1, size=(3,)).shape  # (3,)
    """
    return _sample("_npi_gumbel", "random.gumbel", [("loc", loc), ("scale", scale)], size, ctx,
                   None, out, dtype_attr=False)


def exponential(scale=1.0, size=None, ctx=None, out=None):
    """Draws from the exponential distribution of mean `scale`.

    Args:
        scale: default 1.0: the mean, 1 / rate; a number or an `mx.np.ndarray` broadcast against the
            other parameters.
        size: default None: the broadcast shape of the parameters (a single draw for numbers;
            `out`'s shape when given); else an int or a tuple of ints, the output shape.
        ctx: default None: the current context; else the `Context` of the draws (used when every
            parameter is a number).
        out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype that
            receives the draws (and is returned).

    Returns:
        An `mx.np.ndarray` of draws (a numpy symbol when a parameter is one).

    Raises:
        TypeError: a parameter that is neither a number nor an `mx.np.ndarray`.

    Example::

        x = mx.np.random.exponential(2.0, size=5)
        bool((x >= 0).all())  # True
    """
    return _sample("_npi_exponential", "random.exponential", [("scale", scale)], size, ctx,
                   None, out, dtype_attr=False)


def rayleigh(scale=1.0, size=None, ctx=None, out=None):
    """Draws from the Rayleigh distribution.

    Args:
        scale: default 1.0: the mode; a number or an `mx.np.ndarray` broadcast against the other
            parameters.
        size: default None: the broadcast shape of the parameters (a single draw for numbers;
            `out`'s shape when given); else an int or a tuple of ints, the output shape.
        ctx: default None: the current context; else the `Context` of the draws (used when every
            parameter is a number).
        out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype that
            receives the draws (and is returned).

    Returns:
        An `mx.np.ndarray` of draws (a numpy symbol when a parameter is one).

    Raises:
        TypeError: a parameter that is neither a number nor an `mx.np.ndarray`.

    Example::

        x = mx.np.random.rayleigh(1.0, size=5)
        bool((x >= 0).all())  # True
    """
    return _sample("_npi_rayleigh", "random.rayleigh", [("scale", scale)], size, ctx, None,
                   out, dtype_attr=False)


def weibull(a, size=None, ctx=None, out=None):
    """Draws from the Weibull distribution of shape `a`.

    Args:
        a: the shape, > 0; a number or an `mx.np.ndarray` broadcast against the other parameters.
        size: default None: the broadcast shape of the parameters (a single draw for numbers;
            `out`'s shape when given); else an int or a tuple of ints, the output shape.
        ctx: default None: the current context; else the `Context` of the draws (used when every
            parameter is a number).
        out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype that
            receives the draws (and is returned).

    Returns:
        An `mx.np.ndarray` of draws (a numpy symbol when a parameter is one).

    Raises:
        TypeError: a parameter that is neither a number nor an `mx.np.ndarray`.

    Example::

        mx.np.random.weibull(2.0, size=(2, 2)).shape  # (2, 2)
    """
    return _sample("_npi_weibull", "random.weibull", [("a", a)], size, ctx, None, out,
                   dtype_attr=False)


def pareto(a, size=None, ctx=None, out=None):
    """Draws from the Pareto II (Lomax) distribution of shape `a`.

    Args:
        a: the shape, > 0; a number or an `mx.np.ndarray` broadcast against the other parameters.
        size: default None: the broadcast shape of the parameters (a single draw for numbers;
            `out`'s shape when given); else an int or a tuple of ints, the output shape.
        ctx: default None: the current context; else the `Context` of the draws (used when every
            parameter is a number).
        out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype that
            receives the draws (and is returned).

    Returns:
        An `mx.np.ndarray` of draws (a numpy symbol when a parameter is one).

    Raises:
        TypeError: a parameter that is neither a number nor an `mx.np.ndarray`.

    Example::

        mx.np.random.pareto(3.0, size=4).shape  # (4,)
    """
    return _sample("_npi_pareto", "random.pareto", [("a", a)], size, ctx, None, out,
                   dtype_attr=False)


def power(a, size=None):
    """Draws in [0, 1] from the power distribution of exponent a - 1.

    Args:
        a: the exponent plus one, > 0; a number or an `mx.np.ndarray` broadcast against the other
            parameters.
        size: default None: the broadcast shape of the parameters (a single draw for numbers;
            `out`'s shape when given); else an int or a tuple of ints, the output shape.

    Returns:
        An `mx.np.ndarray` of draws (a numpy symbol when a parameter is one).

    Raises:
        TypeError: a parameter that is neither a number nor an `mx.np.ndarray`.

    Example::

        x = mx.np.random.power(2.0, size=4)
        bool(((x >= 0) & (x <= 1)).all())  # True
    """
    return _sample("_npi_powerd", "random.power", [("a", a)], size, None, None, None,
                   dtype_attr=False)


def gamma(shape, scale=1.0, size=None, dtype=None, ctx=None, out=None):  # noqa: A002
    """Draws from the Gamma distribution.

    Args:
        shape: the shape k, > 0; a number or an `mx.np.ndarray` broadcast against the other
            parameters.
        scale: default 1.0: the scale theta, > 0; a number or an `mx.np.ndarray` broadcast against
            the other parameters.
        size: default None: the broadcast shape of the parameters (a single draw for numbers;
            `out`'s shape when given); else an int or a tuple of ints, the output shape.
        dtype: default None: float32 (float64 under ``npx.set_np(dtype=True)``); else a float dtype
            name or NumPy dtype.
        ctx: default None: the current context; else the `Context` of the draws (used when every
            parameter is a number).
        out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype that
            receives the draws (and is returned).

    Returns:
        An `mx.np.ndarray` of draws (a numpy symbol when a parameter is one).

    Raises:
        ValueError: a negative shape.

    Example::

        mx.np.random.gamma(2.0, 1.0, size=(2, 3)).shape  # (2, 3)
    """
    return _sample("_npi_gamma", "random.gamma", [("shape", shape), ("scale", scale)], size,
                   ctx, dtype, out)


def beta(a, b, size=None, dtype=None, ctx=None):
    """Draws from the Beta distribution (through two gamma draws).

    Args:
        a: the alpha shape, > 0; a number or an `mx.np.ndarray` broadcast against the other
            parameters.
        b: the beta shape, > 0; a number or an `mx.np.ndarray` broadcast against the other
            parameters.
        size: default None: the broadcast shape of the parameters (a single draw for numbers;
            `out`'s shape when given); else an int or a tuple of ints, the output shape.
        dtype: default None: float32 (float64 under ``npx.set_np(dtype=True)``); else a float dtype
            name or NumPy dtype.
        ctx: default None: the current context; else the `Context` of the draws (used when every
            parameter is a number).

    Returns:
        An `mx.np.ndarray` of draws (a numpy symbol when a parameter is one).

    Raises:
        TypeError: a parameter that is neither a number nor an `mx.np.ndarray`.

    Example::

        x = mx.np.random.beta(2.0, 3.0, size=4)
        bool(((x >= 0) & (x <= 1)).all())  # True
    """
    x = gamma(a, 1, size=size, dtype="float64", ctx=ctx)
    y = gamma(b, 1, size=size, dtype="float64", ctx=ctx)
    return (x / (x + y)).astype(_dt(dtype, "random.beta"))


def chisquare(df, size=None, dtype=None, ctx=None):
    """Draws from the chi-square distribution of `df` degrees of freedom.

    Args:
        df: the degrees of freedom, > 0: a number or an `mx.np.ndarray`.
        size: default None: the broadcast shape of the parameters (a single draw for numbers;
            `out`'s shape when given); else an int or a tuple of ints, the output shape.
        dtype: default None: float32 (float64 under ``npx.set_np(dtype=True)``); else a float dtype
            name or NumPy dtype.
        ctx: default None: the current context; else the `Context` of the draws (used when every
            parameter is a number).

    Returns:
        An `mx.np.ndarray` of draws (a numpy symbol when a parameter is one).

    Raises:
        TypeError: a parameter that is neither a number nor an `mx.np.ndarray`.

    Example::

        mx.np.random.chisquare(3, size=(2,)).shape  # (2,)
    """
    return gamma(df / 2, 1 / 2, size=size, dtype=dtype, ctx=ctx)


def randint(low, high=None, size=None, dtype=None, ctx=None, out=None):
    """Integers drawn from [low, high) (int64 by default).

    Args:
        low (int): the lower bound, included; alone (`high` None) it is the upper bound and the
            lower one is 0.
        high: default None: see `low`; else the upper bound (an int), excluded.
        size: default None: a single draw (an array of shape (1,)); else an int or a tuple of
            ints.
        dtype: default None: int64; else an integer dtype name or NumPy dtype.
        ctx: default None: the current context; else the `Context` of the draws.
        out: default None: a new array; else an `mx.np.ndarray` of the result's shape and dtype that
            receives the draws (and is returned).

    Returns:
        An `mx.np.ndarray` of integers.

    Raises:
        ValueError: high <= low.

    Example::

        x = mx.np.random.randint(0, 10, size=(5,))
        x.dtype  # dtype('int64')
        bool(((x >= 0) & (x < 10)).all())  # True
    """
    if high is None:
        low, high = 0, low
    if high <= low:
        raise MXNetValueError(f"random.randint: low ({low}) must be smaller than high ({high})")
    return invoke("_npi_random_randint", [], {"low": int(low), "high": int(high),
                                              "shape": _size(size) or (),
                                              "dtype": normalize_dtype(dtype or "int64").name,
                                              "ctx": str(ctx or current_context())},
                  out=out, fname="random.randint")


def rand(*size, **kwargs):
    """Draws from U[0, 1) of shape `size`.

    Example::

        mx.np.random.rand(2, 3).shape  # (2, 3)
    """
    return uniform(0, 1, size=tuple(size), **kwargs)


def randn(*size, **kwargs):
    """Draws from N(0, 1) of shape `size` (keywords: loc, scale, dtype, ctx).

    Example::

        mx.np.random.randn(2, 3).shape  # (2, 3)
    """
    loc = kwargs.pop("loc", 0.0)
    scale = kwargs.pop("scale", 1.0)
    return normal(loc, scale, size=tuple(size), **kwargs)


def multinomial(n, pvals, size=None, **kwargs):
    """Counts of n draws over categories of probabilities pvals (int64).

    Args:
        n (int): the number of draws.
        pvals: the probabilities of the categories (summing to 1 at most; what they leave
            goes to the last one): a list or tuple of numbers, or a 1-D `mx.np.ndarray`.
        size: default None: one experiment; else an int or a tuple of ints, the number of
            experiments.
        **kwargs: ignored.

    Returns:
        An int64 `mx.np.ndarray` of counts: ``size + (len(pvals),)``.

    Raises:
        ValueError: pvals as a NumPy array, nested lists or an array of more than one axis
            (as in MXNet 1.9.1), negative, or summing to more than 1.

    Example::

        counts = mx.np.random.multinomial(10, [0.2, 0.8])
        int(counts.sum())  # 10
    """
    if _is_array(pvals):
        return invoke("_npi_multinomial", [pvals], {"n": int(n), "pvals": None,
                                                    "size": _size(size)},
                      fname="random.multinomial")
    if isinstance(pvals, _onp.ndarray):
        raise MXNetValueError("random.multinomial: numpy ndarray is not supported!")
    if any(isinstance(i, list) for i in pvals):
        raise MXNetValueError("random.multinomial: object too deep for desired array")
    return invoke("_npi_multinomial", [], {"n": int(n), "pvals": tuple(pvals),
                                           "size": _size(size)}, fname="random.multinomial")


def multivariate_normal(mean, cov, size=None, check_valid=None, tol=None):
    """Draws from the multivariate normal distribution: ``mean + cholesky(cov) @ z``, through
    the ``mvn_fallback`` Custom operator as in MXNet (no gradient).

    Args:
        mean: an `mx.np.ndarray` of shape (..., N), the means.
        cov: an `mx.np.ndarray` of shape (..., N, N), the covariance matrices (symmetric
            positive-definite).
        size: default None: one draw per batch entry; else an int or a tuple of ints prepended to
            the shape.
        check_valid: must stay None (not supported).
        tol: must stay None (not supported).

    Returns:
        An `mx.np.ndarray` of shape ``size + broadcast batch shape + (N,)``.

    Raises:
        NotImplementedError: check_valid or tol (as in MXNet 1.9.1).

    Example::

        x = mx.np.random.multivariate_normal(mx.np.zeros(2), mx.np.eye(2), size=5)
        x.shape  # (5, 2)
    """
    if check_valid is not None:
        raise NotImplementedError("random.multivariate_normal: parameter `check_valid` is not "
                                  "supported")
    if tol is not None:
        raise NotImplementedError("random.multivariate_normal: parameter `tol` is not "
                                  "supported")
    return custom(mean, cov, op_type="mvn_fallback", size=size)


def choice(a, size=None, replace=True, p=None, ctx=None, out=None):
    """Draws from range(a) (a an int) or from the elements of the 1-D array a, uniformly or
    with probabilities p; after ``mx.random.seed`` they are MXNet's draws.

    Args:
        a: an int (draw from ``range(a)``) or a 1-D `mx.np.ndarray` (draw its elements).
        size: default None: a single draw; else an int or a tuple of ints.
        replace (bool): default True: with replacement; False draws each element at most once.
        p: default None: uniform; else a 1-D `mx.np.ndarray` of probabilities, one per element
            (taken as they are, as MXNet takes them: not rescaled to sum to 1).
        ctx: default None: the current context; else the `Context` of the draws (an int `a` only).
        out: default None: a new array; else an `mx.np.ndarray` that receives the draws (an int `a`
            only).

    Returns:
        An `mx.np.ndarray` of `size`: int64 indices for an int `a`, else elements of `a`.

    Raises:
        ValueError: more draws than elements with replace=False, p of another length than
            the population, or an empty (or negative) population to draw from.

    Example::

        x = mx.np.random.choice(5, size=3)
        x.shape  # (3,)
        bool((x < 5).all())  # True
    """
    size = _size(size)
    weighted = p is not None
    if _is_array(a):
        ins = [a] + ([p] if weighted else [])
        idx = invoke("_npi_choice", ins, {"a": None, "size": size, "replace": bool(replace),
                                          "weighted": weighted}, fname="random.choice")
        return take(a, idx)
    ins = [p] if weighted else []
    return invoke("_npi_choice", ins, {"a": int(a), "size": size, "replace": bool(replace),
                                       "weighted": weighted,
                                       "ctx": str(ctx or current_context())},
                  out=out, fname="random.choice")


def shuffle(x):
    """Shuffle x in place along its first axis.

    Args:
        x: the `mx.np.ndarray` to shuffle; it is changed in place.

    Returns:
        None.

    Raises:
        TypeError: `x` is not an `mx.np.ndarray`.

    Example::

        x = mx.np.arange(5)
        mx.np.random.shuffle(x)
        mx.np.sort(x)  # array([0., 1., 2., 3., 4.])
    """
    res = invoke("_npi_shuffle", [x], {}, fname="random.shuffle")
    x._data[...] = res._data
