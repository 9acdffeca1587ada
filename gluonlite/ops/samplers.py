"""The samplers and densities of `nd.random` / `sym.random`, from one table.

Each distribution of `DISTS` is one row: its parameters (the scalar attribute names of
``_random_<d>``, the input names of ``_sample_<d>`` and ``_random_pdf_<d>``, with defaults), how
MXNet's kernel draws it (`mxnet_samplers`), and its log-density with the derivatives of the
log-density. One function per kind turns a row into registry entries:

- ``_random_<d>(params..., shape, ctx, dtype)``: scalar parameters, output of `shape`;
- ``_random_<d>_like(data, params...)``: scalar parameters, output of data's shape and dtype;
- ``_sample_<d>(param arrays..., shape, dtype)``: one draw of `shape` per parameter element, so
  the output's shape is the parameters' shape followed by `shape`;
- ``_random_pdf_<d>(sample, param arrays..., is_log)``: the density (or its log) of each
  sample; a sample's shape is its parameters' shape followed by any number of axes, and the
  gradients of the parameters are summed over those axes.

Draws come from MXNet's own random streams (the parallel one; the single one for multinomial
and shuffle), computed as MXNet's CPU kernels compute them (`mxnet_samplers`: a seeded
program gets MXNet's numbers), on the host, and are copied to the device for gpu arrays.
The samplers are not differentiable (MXNet's have no gradient); the densities are, in every
continuous argument (the sample of a discrete or uniform density gets zero, as in MXNet).
"""
from collections import namedtuple

import numpy as np
from scipy import special

from ..base import MXNetValueError
from . import attrs as A
from . import mxnet_rng, mxnet_samplers
from .registry import register, ShapeError
from .rules import fmt_shapes

# params: ((random attr name, sample/pdf input name, default), ...); draw(*params, size, dtype);
# logpdf(x, *params) -> (log-density, d/dx or None, (d/dparam, ...)); discrete: samples are
# counts (the sample of the density gets no gradient); aliases of _random_<d>.
Dist = namedtuple("Dist", "params draw logpdf discrete aliases")
Dist.__doc__ = """One distribution of `DISTS`: its parameters ((attribute, input, default), ...),
its draw ``draw(*params, size, dtype)`` (MXNet's, `mxnet_samplers`), its log-density
``logpdf(x, *params)`` with the derivatives, whether it is discrete, and the aliases of its
``_random_<d>``.

Example::

    from gluonlite.ops.samplers import DISTS
    d = DISTS["normal"]
    [name for name, _, _ in d.params], d.discrete   # (['loc', 'scale'], False)
"""


def shape_arg(shape):
    """The ``shape`` attribute of a sampler from a front-end's `shape` argument (None, an int
    or a sequence), as `nd.random` and `sym.random` pass it.

    Example::

        from gluonlite.ops.samplers import shape_arg
        shape_arg(3), shape_arg(None), shape_arg([2, 3])    # ((3,), (), (2, 3))
    """
    if shape is None:
        return ()
    return (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(shape)


def dtype_attr(dtype):
    """The ``dtype`` keyword of a sampler from a front-end's `dtype` argument: none for None
    (the operator's default), else the dtype's name.

    Example::

        from gluonlite.ops.samplers import dtype_attr
        dtype_attr(np.float64), dtype_attr(None)    # ({'dtype': 'float64'}, {})
    """
    return {} if dtype is None else {"dtype": np.dtype(dtype).name}


def _uniform_lp(x, low, high):
    w = high - low
    return -np.log(w) + 0 * x, None, (1 / w + 0 * x, -1 / w + 0 * x)


def _normal_lp(x, mu, sigma):
    z = (x - mu) / sigma
    lp = -0.5 * z * z - np.log(sigma) - 0.5 * np.log(2 * np.pi)
    return lp, -z / sigma, (z / sigma, (z * z - 1) / sigma)


def _gamma_lp(x, alpha, beta):
    # the density's beta is a rate (MXNet's sampler's beta is a scale)
    lp = alpha * np.log(beta) + (alpha - 1) * np.log(x) - beta * x - special.gammaln(alpha)
    return lp, (alpha - 1) / x - beta, (np.log(beta) + np.log(x) - special.digamma(alpha),
                                        alpha / beta - x)


def _exponential_lp(x, lam):
    return np.log(lam) - lam * x, -lam + 0 * x, (1 / lam - x,)


def _poisson_lp(x, lam):
    return x * np.log(lam) - lam - special.gammaln(x + 1), None, (x / lam - 1,)


def _nb_lp(x, k, p):
    lp = (special.gammaln(x + k) - special.gammaln(x + 1) - special.gammaln(k)
          + k * np.log(p) + x * np.log1p(-p))
    return lp, None, (special.digamma(x + k) - special.digamma(k) + np.log(p),
                      k / p - x / (1 - p))


def _gnb_lp(x, mu, alpha):
    k, p = 1 / alpha, 1 / (1 + alpha * mu)
    lp, _, (dk, dp) = _nb_lp(x, k, p)
    dp_dmu, dp_dalpha = -alpha * p * p, -mu * p * p
    return lp, None, (dp * dp_dmu, dk * (-k * k) + dp * dp_dalpha)


DISTS = {
    "uniform": Dist((("low", "low", 0.0), ("high", "high", 1.0)), mxnet_samplers.uniform,
                    _uniform_lp, False, ("uniform", "random_uniform")),
    "normal": Dist((("loc", "mu", 0.0), ("scale", "sigma", 1.0)), mxnet_samplers.normal,
                   _normal_lp, False, ("normal", "random_normal")),
    "gamma": Dist((("alpha", "alpha", 1.0), ("beta", "beta", 1.0)), mxnet_samplers.gamma,
                  _gamma_lp, False, ("random_gamma",)),
    "exponential": Dist((("lam", "lam", 1.0),), mxnet_samplers.exponential, _exponential_lp,
                        False, ("random_exponential",)),
    "poisson": Dist((("lam", "lam", 1.0),), mxnet_samplers.poisson, _poisson_lp, True,
                    ("random_poisson",)),
    "negative_binomial": Dist((("k", "k", 1), ("p", "p", 1.0)),
                              mxnet_samplers.negative_binomial, _nb_lp, True,
                              ("random_negative_binomial",)),
    "generalized_negative_binomial": Dist((("mu", "mu", 1.0), ("alpha", "alpha", 1.0)),
                                          mxnet_samplers.generalized_negative_binomial,
                                          _gnb_lp, True,
                                          ("random_generalized_negative_binomial",)),
}


# ---- host and device -------------------------------------------------------------------------
def _host(rc, x):
    return x if rc.xp is np else rc.xp.asnumpy(x)


def _device(rc, a):
    return a if rc.xp is np else rc.xp.asarray(a)


def _out_dtype(p):
    return np.dtype(p.dtype or "float32")


# What each parameter must satisfy (a bad value fails before any draw). `_random_<d>`'s scalar
# attributes: MXNet 1.9.1's own checks, except that a negative binomial's p must lie in (0, 1]
# (MXNet draws -2**31 at p = 0, and above 1 its gamma's scale turns negative). MXNet checks
# no parameter array of `_sample_<d>`; here those are held to the same rules, widened where
# MXNet's draw at the edge is the distribution's limit, which real programs meet (GluonTS's
# negative binomial draws a gamma of scale alpha * mu, 0 at a zero mean): a gamma of shape or
# scale 0 draws zeros, an exponential of rate 0 infinities, a negative binomial of k = 0 zeros.
_POSITIVE = (lambda v: v > 0, "positive")
_NON_NEGATIVE = (lambda v: v >= 0, "non-negative")
_VALID = {
    "uniform": {},
    "normal": {"scale": _POSITIVE},
    "gamma": {"alpha": _POSITIVE, "beta": _POSITIVE},
    "exponential": {"lam": _POSITIVE},
    "poisson": {"lam": _NON_NEGATIVE},
    "negative_binomial": {"k": _NON_NEGATIVE, "p": (lambda v: (v > 0) & (v <= 1), "in (0, 1]")},
    "generalized_negative_binomial": {"mu": _NON_NEGATIVE, "alpha": _NON_NEGATIVE},
}
_VALID_ARRAYS = {**_VALID,
                 "normal": {"scale": _NON_NEGATIVE},
                 "gamma": {"alpha": _NON_NEGATIVE, "beta": _NON_NEGATIVE},
                 "exponential": {"lam": _NON_NEGATIVE}}


def _draw(d, values, size, dtype):
    """Samples of distribution `d` with parameters `values` (Python numbers: the scalar
    operators' attributes, which MXNet holds in float32; or arrays of the inputs' type), of
    `size` and `dtype`, as MXNet draws them."""
    values = [np.float32(v) if isinstance(v, (int, float)) else v for v in values]
    return DISTS[d].draw(*values, size, dtype)


def _check_params(name, d, values, arrays=False):
    """Raise for a parameter out of its domain: `values` are `_random_<d>`'s numbers, or with
    `arrays` `_sample_<d>`'s arrays (named by their inputs)."""
    rules = (_VALID_ARRAYS if arrays else _VALID)[d]
    for (attr, inp, _), v in zip(DISTS[d].params, values):
        rule = rules.get(attr)
        if rule is not None and not np.all(rule[0](np.asarray(v))):
            arg = inp if arrays else attr
            a = np.asarray(v)
            got = a.ravel()[np.argmin(rule[0](a).ravel())] if a.ndim else v  # the first bad one
            raise MXNetValueError(f"{name}: {arg} must be {rule[1]}, got {got}")
    if d == "uniform" and not arrays and not values[1] >= values[0]:  # NaN too, as MXNet
        raise MXNetValueError(f"{name}: low must be less than or equal to high, got "
                              f"low={values[0]} and high={values[1]}")


# ---- _random_<d>: scalar parameters -------------------------------------------------------------
_CREATE = {"shape": A.Shape(()), "ctx": A.Str(""), "dtype": A.Dtype("float32")}


def _creation_shape(p, ins):
    return ins, [tuple(p.shape) or (1,)]


def _creation_dtype(p, ins):
    return ins, [_out_dtype(p)]


def _register_random(d, dist):
    name = f"_random_{d}"
    attrs = {a: (A.Int(default) if isinstance(default, int) else A.Float(default))
             for a, _, default in dist.params}

    def kernel(p, rc):
        values = [p[a] for a, _, _ in dist.params]
        _check_params(name, d, values)
        return _device(rc, _draw(d, values, tuple(p.shape) or (1,), _out_dtype(p)))
    kernel.__doc__ = (f"{name}({', '.join(a for a, _, _ in dist.params)}, shape, ctx, dtype): "
                      f"samples of the {d.replace('_', ' ')} distribution of the given shape.")
    register(name, aliases=dist.aliases, inputs=(), random=True,
             attrs={**attrs, **_CREATE}, shape=_creation_shape, dtype=_creation_dtype)(kernel)

    def like(p, rc, data):
        values = [p[a] for a, _, _ in dist.params]
        _check_params(f"{name}_like", d, values)
        return _device(rc, _draw(d, values, data.shape, data.dtype))
    like.__doc__ = (f"{name}_like(data, {', '.join(a for a, _, _ in dist.params)}): samples of "
                    f"the {d.replace('_', ' ')} distribution of data's shape and dtype.")
    register(f"{name}_like", inputs=("data",), random=True, attrs=dict(attrs),
             nondiff=("data",), shape=lambda p, ins: (ins, [ins[0]]))(like)


# ---- _sample_<d>: parameter arrays ---------------------------------------------------------------
def _params_shape(name, names, ins):
    known = [s for s in ins if s is not None]
    for s in known[1:]:
        if tuple(s) != tuple(known[0]):
            raise ShapeError(f"{name}: the parameter arrays {', '.join(names)} must have one "
                             f"shape, got {fmt_shapes(ins)}")
    return tuple(known[0]) if known else None


def _register_sample(d, dist):
    name = f"_sample_{d}"
    names = tuple(inp for _, inp, _ in dist.params)

    def shape(p, ins):
        s = _params_shape(name, names, ins)
        if s is None:
            return ins, [None]
        return [s] * len(ins), [s + tuple(p.shape)]

    def dtype(p, ins):
        return ins, [_out_dtype(p)]

    def kernel(p, rc, *params):
        values = [_host(rc, x) for x in params]
        _check_params(name, d, values, arrays=True)
        extra = tuple(p.shape)
        size = params[0].shape + extra
        values = [v.reshape(v.shape + (1,) * len(extra)) for v in values]
        return _device(rc, _draw(d, values, size, _out_dtype(p)))
    kernel.__doc__ = (f"{name}({', '.join(names)}, shape=(), dtype=None): for every element of "
                      f"the parameter arrays, samples of the {d.replace('_', ' ')} distribution "
                      "of `shape`; the output's shape is the parameters' shape + shape.")
    register(name, aliases=(f"sample_{d}",), inputs=names, random=True, nondiff=names,
             attrs={"shape": A.Shape(()), "dtype": A.Dtype(None)}, shape=shape,
             dtype=dtype, same_dtype=names)(kernel)


# ---- _random_pdf_<d>: densities -----------------
def _pdf_shape(name, names, n_param_axes_from_sample):
    def rule(p, ins):
        sample, params = ins[0], ins[1:]
        ps = _params_shape(name, names[1:], params)
        if sample is not None and ps is not None:
            lead = tuple(sample[:len(ps) - n_param_axes_from_sample])
            if lead != tuple(ps[:len(ps) - n_param_axes_from_sample]) or (
                    n_param_axes_from_sample and sample[-1] != ps[-1]):
                raise ShapeError(f"{name}: the sample's shape must start with the parameters' "
                                 f"shape, got sample {tuple(sample)} and parameters "
                                 f"{tuple(ps)}")
        filled = [sample] + [ps] * len(params)
        if sample is None:
            return filled, [None]
        return filled, [tuple(sample[:-1]) if n_param_axes_from_sample else tuple(sample)]
    return rule


def _pdf_rules(name, logpdf, n_params, discrete):
    """kernel and vjp of a density from its log-density rule."""
    def expand(rc, sample, params):
        x = _host(rc, sample).astype(np.float64)
        ps = [_host(rc, q).astype(np.float64) for q in params]
        return x, [q.reshape(q.shape + (1,) * (x.ndim - q.ndim)) for q in ps]

    def kernel(p, rc, sample, *params):
        x, ps = expand(rc, sample, params)
        lp = logpdf(x, *ps)[0]
        return _device(rc, (lp if p.is_log else np.exp(lp)).astype(sample.dtype))

    def vjp(p, rc, xs, ys, gys, need):
        sample, params = xs[0], xs[1:]
        x, ps = expand(rc, sample, params)
        lp, dx, dps = logpdf(x, *ps)
        g = _host(rc, gys[0]).astype(np.float64)
        scale = g if p.is_log else g * np.exp(lp)
        out = [None] * (1 + n_params)
        if need[0] and not discrete and dx is not None:
            out[0] = _device(rc, (scale * dx).astype(sample.dtype))
        elif need[0]:
            out[0] = rc.xp.zeros_like(sample)
        for j, (q, dq) in enumerate(zip(params, dps)):
            if need[j + 1]:
                s = scale * dq
                s = s.sum(axis=tuple(range(q.ndim, s.ndim))) if s.ndim > q.ndim else s
                out[j + 1] = _device(rc, s.reshape(q.shape).astype(q.dtype))
        return tuple(out)
    return kernel, vjp


def _register_pdf(d, dist):
    name = f"_random_pdf_{d}"
    names = ("sample",) + tuple(inp for _, inp, _ in dist.params)
    kernel, vjp = _pdf_rules(name, dist.logpdf, len(dist.params), dist.discrete)
    kernel.__doc__ = (f"{name}({', '.join(names)}, is_log=False): the {d.replace('_', ' ')} "
                      "density (or its log) of each sample under its parameters.")
    register(name, aliases=(f"random_pdf_{d}",), inputs=names, vjp=vjp,
             nondiff=("sample",) if dist.discrete or d == "uniform" else (),
             attrs={"is_log": A.Bool(False)}, shape=_pdf_shape(name, names, 0))(kernel)


def _dirichlet_lp(x, alpha):
    # alpha and x end with the k categories; alpha was given 1-axes before them
    a = alpha
    lp = (special.gammaln(a.sum(-1)) - special.gammaln(a).sum(-1)
          + ((a - 1) * np.log(x)).sum(-1))
    da = special.digamma(a.sum(-1, keepdims=True)) - special.digamma(a) + np.log(x)
    return lp, (a - 1) / x, (da,)


def _register_dirichlet():
    name = "_random_pdf_dirichlet"

    def kernel(p, rc, sample, alpha):
        x, a = _dirichlet_args(rc, sample, alpha)
        lp = _dirichlet_lp(x, a)[0]
        return _device(rc, (lp if p.is_log else np.exp(lp)).astype(sample.dtype))

    def vjp(p, rc, xs, ys, gys, need):
        sample, alpha = xs
        x, a = _dirichlet_args(rc, sample, alpha)
        lp, dx, (da,) = _dirichlet_lp(x, a)
        g = _host(rc, gys[0]).astype(np.float64)
        scale = (g if p.is_log else g * np.exp(lp))[..., None]
        gx = _device(rc, (scale * dx).astype(sample.dtype)) if need[0] else None
        ga = None
        if need[1]:
            s = scale * da
            s = s.sum(axis=tuple(range(alpha.ndim - 1, s.ndim - 1)))
            ga = _device(rc, s.reshape(alpha.shape).astype(alpha.dtype))
        return gx, ga
    kernel.__doc__ = ("_random_pdf_dirichlet(sample, alpha, is_log=False): the Dirichlet "
                      "density (or its log) of each sample (the last axis holds the categories)")
    register(name, aliases=("random_pdf_dirichlet",), inputs=("sample", "alpha"), vjp=vjp,
             attrs={"is_log": A.Bool(False)},
             shape=_pdf_shape(name, ("sample", "alpha"), 1))(kernel)


def _dirichlet_args(rc, sample, alpha):
    x = _host(rc, sample).astype(np.float64)
    a = _host(rc, alpha).astype(np.float64)
    extra = x.ndim - a.ndim
    return x, a.reshape(a.shape[:-1] + (1,) * extra + a.shape[-1:])


# ---- multinomial, randint, shuffle -------------
def _multinomial_n_out(p):
    return 2 if p.get_prob else 1


def _multinomial_shape(p, ins):
    d = ins[0]
    if d is None:
        return ins, [None] * _multinomial_n_out(p)
    out = tuple(d[:-1]) + tuple(p.shape) or (1,)
    return ins, [out] * _multinomial_n_out(p)


def _multinomial_dtype(p, ins):
    return ins, [np.dtype(p.dtype)] + ([ins[0]] if p.get_prob else [])


@register("_sample_multinomial", aliases=("sample_multinomial",), inputs=("data",),
          outputs=_multinomial_n_out, random=True,
          attrs={"shape": A.Shape(()), "get_prob": A.Bool(False),
                 "dtype": A.Dtype("int32")},
          shape=_multinomial_shape, dtype=_multinomial_dtype,
          vjp=lambda p, rc, xs, ys, gys, need: _multinomial_vjp(p, rc, xs, ys, gys, need))
def _multinomial(p, rc, data):
    """_sample_multinomial(data, shape=(), get_prob=False, dtype='int32'): category indices
    drawn with the probabilities on data's last axis, `shape` draws per distribution; with
    get_prob also the log-probability of each draw (whose gradient reaches data)."""
    probs = _host(rc, data).astype(np.float64)
    k = probs.shape[-1]
    flat = probs.reshape(-1, k)
    extra = tuple(p.shape)
    n = int(np.prod(extra)) if extra else 1
    # MXNet's kernel: float32 uniforms of its single stream, each placed in the float32
    # cumulative table (summed in double) by the first entry not below it
    u = mxnet_rng.SINGLE.uniform(flat.shape[0] * n, np.float32).reshape(flat.shape[0], n)
    cdf = np.cumsum(flat, axis=-1).astype(np.float32)
    idx = np.stack([np.minimum(np.searchsorted(c, r, side="left"), k - 1)
                    for c, r in zip(cdf, u)]) if flat.shape[0] else np.zeros((0, n), int)
    out_shape = probs.shape[:-1] + extra or (1,)
    res = _device(rc, idx.reshape(out_shape).astype(p.dtype))
    if not p.get_prob:
        return res
    lp = np.log(np.take_along_axis(flat, idx, axis=-1)).reshape(out_shape)
    return res, _device(rc, lp.astype(data.dtype))


def _multinomial_vjp(p, rc, xs, ys, gys, need):
    data = xs[0]
    if not p.get_prob or gys[1] is None:
        return (rc.xp.zeros_like(data),)
    probs = _host(rc, data).astype(np.float64)
    k = probs.shape[-1]
    flat = probs.reshape(-1, k)
    idx = _host(rc, ys[0]).reshape(flat.shape[0], -1).astype(np.int64)
    g = _host(rc, gys[1]).astype(np.float64).reshape(idx.shape)
    gd = np.zeros_like(flat)
    rows = np.repeat(np.arange(flat.shape[0]), idx.shape[1])
    np.add.at(gd, (rows, idx.ravel()), (g / np.take_along_axis(flat, idx, -1)).ravel())
    return (_device(rc, gd.reshape(data.shape).astype(data.dtype)),)


@register("_random_randint", aliases=("random_randint",), inputs=(), random=True,
          attrs={"low": A.Int(), "high": A.Int(), "shape": A.Shape(()), "ctx": A.Str(""),
                 "dtype": A.Dtype("int32")},
          shape=_creation_shape, dtype=lambda p, ins: (ins, [np.dtype(p.dtype or "int32")]))
def _randint(p, rc):
    """_random_randint(low, high, shape, ctx, dtype='int32'): integers drawn uniformly from
    [low, high)."""
    if p.high <= p.low:
        raise MXNetValueError(f"_random_randint: high must be greater than low, got low={p.low}"
                              f", high={p.high}")
    shape = tuple(p.shape) or (1,)
    return _device(rc, mxnet_samplers.randint(p.low, p.high, shape,
                                              np.dtype(p.dtype or "int32")))


@register("_shuffle", aliases=("shuffle",), random=True, nondiff=("data",),
          shape=lambda p, ins: (ins, [ins[0]]))
def _shuffle(p, rc, data):
    """_shuffle(data): data with its first axis randomly permuted (MXNet's permutation after a
    seed, `mxnet_samplers.shuffle_order`)."""
    perm = mxnet_samplers.shuffle_order(data.shape[0], data.ndim == 1)
    return data[_device(rc, perm)]


for _d, _dist in DISTS.items():
    _register_random(_d, _dist)
    _register_sample(_d, _dist)
    _register_pdf(_d, _dist)
_register_dirichlet()
