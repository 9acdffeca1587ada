"""`npx.random`: MXNet's extra samplers (`bernoulli`, `uniform_n`, `normal_n`) and `seed`."""
from ..base import normalize_dtype
from ..context import current_context
from ..ndarray.ndarray import NDArray
from ..random import seed as _seed
from ..symbol.symbol import Symbol
from ..numpy._dispatch import invoke, default_float

__all__ = ["bernoulli", "normal_n", "uniform_n", "seed"]


def seed(seed, ctx="all"):  # pylint: disable=redefined-outer-name
    """Seed every random draw of gluonlite (`mx.random.seed`).

    Args:
        seed (int): the seed.
        ctx: default 'all'; accepted for MXNet's signature: one generator serves every context, so
            every context is reseeded.

    Example::

        mx.npx.random.seed(42)
        a = mx.np.random.uniform(size=3)
        mx.npx.random.seed(42)
        b = mx.np.random.uniform(size=3)
        bool((a == b).all())  # True
    """
    _seed(seed, ctx)


def _is_array(x):
    return isinstance(x, (NDArray, Symbol))


def bernoulli(prob=None, logit=None, size=None, dtype=None, ctx=None, out=None):
    """0/1 draws with probability `prob` or sigmoid(`logit`) (exactly one of them; a number or
    an array).

    Args:
        prob: default None: the probability of a 1: a number or an `mx.np.ndarray`.
        logit: default None: the log-odds of a 1 (the probability is sigmoid(logit)): a number or an
            `mx.np.ndarray`.
        size: default None: the shape of the array parameter (a single draw for a number); else an
            int or a tuple of ints.
        dtype: default None: float32 (float64 under ``npx.set_np(dtype=True)``); else a dtype of the
            0/1 values.
        ctx: default None: the current context; else the `Context` of the draws (number parameters).
        out: default None: a new array; else an `mx.np.ndarray` that receives the draws (and is
            returned).

    Returns:
        An `mx.np.ndarray` of 0s and 1s.

    Raises:
        ValueError: both or neither of prob and logit.

    Example::

        x = mx.npx.random.bernoulli(prob=0.5, size=(2, 3))
        x.shape  # (2, 3)
        bool(((x == 0) | (x == 1)).all())  # True
    """
    if (prob is None) == (logit is None):
        raise ValueError("npx.random.bernoulli: either `prob` or `logit` must be specified, but "
                         "not both")
    size = None if size in (None, ()) else ((size,) if isinstance(size, int) else tuple(size))
    dt = normalize_dtype(dtype or default_float()).name
    v = prob if prob is not None else logit
    if _is_array(v):
        return invoke("_npi_bernoulli", [v], {"prob": None, "logit": None, "size": size,
                                              "dtype": dt, "is_logit": logit is not None},
                      out=out, fname="npx.random.bernoulli")
    return invoke("_npi_bernoulli", [], {"prob": None if prob is None else float(prob),
                                         "logit": None if logit is None else float(logit),
                                         "size": size, "dtype": dt,
                                         "is_logit": logit is not None,
                                         "ctx": str(ctx or current_context())},
                  out=out, fname="npx.random.bernoulli")


def _n(op, fname, a, b, names, batch_shape, dtype, ctx):
    inputs, attrs = [], {}
    for n, v in zip(names, (a, b)):
        if _is_array(v):
            inputs.append(v)
            attrs[n] = None
        else:
            attrs[n] = float(v)
    bs = None if batch_shape in (None, ()) else (
        (batch_shape,) if isinstance(batch_shape, int) else tuple(batch_shape))
    attrs.update(size=bs, dtype=normalize_dtype(dtype or default_float()).name)
    if not inputs:
        attrs["ctx"] = str(ctx or current_context())
    return invoke(op, inputs, attrs, fname=fname)


def uniform_n(low=0.0, high=1.0, batch_shape=None, dtype=None, ctx=None):
    """Draws from U[low, high) of shape batch_shape + the parameters' broadcast shape.

    Args:
        low: default 0.0: the lower bound, included: a number or an `mx.np.ndarray`.
        high: default 1.0: the upper bound, excluded: a number or an `mx.np.ndarray`.
        batch_shape: default None: no leading axes; else an int or a tuple of ints put before the
            parameters' shape.
        dtype: default None: float32 (float64 under ``npx.set_np(dtype=True)``); else a float dtype.
        ctx: default None: the current context; else the `Context` of the draws (when both
            parameters are numbers).

    Returns:
        An `mx.np.ndarray` of draws.

    Example::

        x = mx.npx.random.uniform_n(0., 1., batch_shape=(4,))
        x.shape  # (4,)
    """
    return _n("_npi_uniform_n", "npx.random.uniform_n", low, high, ("low", "high"),
              batch_shape, dtype, ctx)


def normal_n(loc=0.0, scale=1.0, batch_shape=None, dtype=None, ctx=None):
    """Draws from N(loc, scale**2) of shape batch_shape + the parameters' broadcast shape.

    Args:
        loc: default 0.0: the mean: a number or an `mx.np.ndarray`.
        scale: default 1.0: the standard deviation: a number or an `mx.np.ndarray`.
        batch_shape: default None: no leading axes; else an int or a tuple of ints put before the
            parameters' shape.
        dtype: default None: float32 (float64 under ``npx.set_np(dtype=True)``); else a float dtype.
        ctx: default None: the current context; else the `Context` of the draws (when both
            parameters are numbers).

    Returns:
        An `mx.np.ndarray` of draws.

    Example::

        x = mx.npx.random.normal_n(mx.np.zeros(2), mx.np.ones(2), batch_shape=(3,))
        x.shape  # (3, 2)
    """
    return _n("_npi_normal_n", "npx.random.normal_n", loc, scale, ("loc", "scale"),
              batch_shape, dtype, ctx)
