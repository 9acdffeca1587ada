"""Samplers of MXNet's NumPy dialect (`mx.np.random`): each parameter is a number (an
attribute) or an array (an input), broadcast together and to ``size``; the draws are MXNet's,
computed from its streams as its kernels compute them (`mxnet_samplers`, and `mxnet_discrete`
for choice and multinomial), so a seeded program gets MXNet's numbers; ``mx.random.seed`` and
``npx.random.seed`` seed them. Location-scale samplers are
differentiable in their array parameters (the reparameterization: the gradient of a draw with
respect to loc is 1 and to scale the standardized draw), as MXNet 1.9.1's are; so are
exponential, rayleigh, weibull and pareto."""
import numpy as np

from ..base import MXNetValueError
from . import attrs as A
from . import mxnet_discrete, mxnet_samplers
from .registry import register, ShapeError
from .rules import broadcast_shapes, unbroadcast
from ..util import is_np_default_dtype


def _default_float():
    return "float64" if is_np_default_dtype() else "float32"


def _out_shape(name, p, param_shapes):
    b = ()
    for s in param_shapes:
        b = broadcast_shapes(name, b, s)
    if p.get("size") is None:
        return b
    size = tuple(p.size)
    if broadcast_shapes(name, b, size) != size:
        raise ShapeError(f"{name}: parameters of shape {b} do not broadcast to size {size}")
    return size


def _host(x):
    return x.get() if hasattr(x, "get") else x


class _Family:
    """One sampler: its parameter names (each an attribute or an input), MXNet's sampler
    that draws from them (`mxnet_samplers`), and the gradient of a draw with respect to each
    parameter."""

    def __init__(self, name, params, grads=None, check=None, extra=None, *, mxnet):
        self.name, self.params, self.grads = name, params, grads
        self.check, self.extra, self.mxnet = check, extra or {}, mxnet

    def inputs(self, p):
        names = ["input1", "input2"]
        return [names[i] for i, k in enumerate(self.params) if p[k] is None]


def _values(fam, p, xs):
    it = iter(xs)
    vals = []
    for k in fam.params:
        vals.append(np.asarray(_host(next(it)), np.float64) if p[k] is None
                    else np.asarray(p[k], np.float64))
    return vals


def _mxnet_draw(fam, p, xs, out, dtype):
    """`fam`'s MXNet draw: its kernel holds number parameters in float32, or in the type of
    the array parameter beside them."""
    arrays = [np.asarray(_host(x)) for x in xs]
    it = iter(arrays)
    ptype = arrays[0].dtype if arrays else np.dtype(np.float32)
    vals = [next(it) if p[k] is None else ptype.type(p[k]) for k in fam.params]
    return fam.mxnet(*vals, out, dtype)


def _register(fam):
    name = fam.name

    def shape(p, ins):
        if any(s is None for s in ins):
            return ins, [None]
        it = iter(ins)
        shapes = [tuple(next(it)) if p[k] is None else () for k in fam.params]
        return ins, [_out_shape(name, p, shapes)]

    def kernel(p, rc, *xs):
        vals = _values(fam, p, xs)
        if fam.check is not None:
            fam.check(name, *vals)
        out = _out_shape(name, p, [v.shape for v in vals])
        dtype = np.dtype(p.get("dtype") or _default_float())
        return rc.xp.asarray(_mxnet_draw(fam, p, xs, out, dtype))

    def vjp(p, rc, xs, ys, gys, need):
        vals = _values(fam, p, xs)
        out = ys[0].shape
        y = np.asarray(_host(ys[0]), np.float64)
        g = np.asarray(_host(gys[0]), np.float64)
        grads = fam.grads(y, *[np.broadcast_to(v, out) for v in vals])
        res, k = [], 0
        for i, key in enumerate(fam.params):
            if p[key] is None:
                res.append(rc.xp.asarray(unbroadcast(g * grads[i], xs[k].shape)
                                         .astype(xs[k].dtype)))
                k += 1
        return tuple(res)

    attrs = {k: A.OptionalFloat() for k in fam.params}
    attrs.update({"size": A.Attr(_opt_shape, None, "shape"), "ctx": A.Str("")})
    attrs.update(fam.extra)
    kernel.__doc__ = (f"{name}({', '.join(fam.params)}, size=None, ctx): NumPy's sampler; each "
                      "parameter a number (attribute) or an array (input).")
    register(name, inputs=fam.inputs, signature=("input1", "input2")[:len(fam.params)],
             attrs=attrs, shape=shape, random=True, same_dtype=(),
             dtype=lambda p, ins: (ins, [np.dtype(p.get("dtype") or _default_float())]),
             vjp=vjp if fam.grads is not None else None,
             nondiff=() if fam.grads is not None else ("input1", "input2"))(kernel)


def _opt_shape(v):
    v = A._literal(v) if isinstance(v, str) else v
    if v is None:
        return None
    return (int(v),) if isinstance(v, (int, np.integer)) else tuple(int(d) for d in v)


def _positive(what):
    def check(name, *vals):
        v = vals[-1]
        if np.any(v < 0):
            raise MXNetValueError(f"{name}: {what} must be non-negative")
    return check


def _strictly_positive(*whats):
    """Each of the parameters `whats` (the last ones) must be > 0 (MXNet refuses 0 too)."""
    def check(name, *vals):
        for what, v in zip(whats, vals[len(vals) - len(whats):]):
            if np.any(v <= 0):
                raise MXNetValueError(f"{name}: {what} must be positive")
    return check


_DT = {"dtype": A.Dtype(None)}

_register(_Family("_npi_uniform", ("low", "high"),
                  lambda y, lo, hi: ((hi - y) / np.where(hi == lo, 1, hi - lo),
                                     (y - lo) / np.where(hi == lo, 1, hi - lo)), extra=_DT,
                  mxnet=mxnet_samplers.np_uniform))
_register(_Family("_npi_normal", ("loc", "scale"),
                  lambda y, mu, sd: (np.ones_like(y), (y - mu) / np.where(sd == 0, 1, sd)),
                  check=_positive("scale"), extra=_DT, mxnet=mxnet_samplers.np_normal))
_register(_Family("_npi_logistic", ("loc", "scale"),
                  lambda y, mu, sd: (np.ones_like(y), (y - mu) / np.where(sd == 0, 1, sd)),
                  check=_positive("scale"),
                  mxnet=mxnet_samplers.np_from_uniform("logistic")))
_register(_Family("_npi_gumbel", ("loc", "scale"),
                  lambda y, mu, sd: (np.ones_like(y), (y - mu) / np.where(sd == 0, 1, sd)),
                  check=_positive("scale"),
                  mxnet=mxnet_samplers.np_from_uniform("gumbel")))
_register(_Family("_npi_exponential", ("scale",),
                  lambda y, sc: (y / np.where(sc == 0, 1, sc),), check=_positive("scale"),
                  mxnet=mxnet_samplers.np_from_uniform("exponential")))
_register(_Family("_npi_rayleigh", ("scale",),
                  lambda y, sc: (y / np.where(sc == 0, 1, sc),), check=_positive("scale"),
                  mxnet=mxnet_samplers.np_from_uniform("rayleigh")))
_register(_Family("_npi_weibull", ("a",),
                  lambda y, a: (-y * np.log(np.where(y > 0, y, 1)) / a,),
                  check=_strictly_positive("a"),
                  mxnet=mxnet_samplers.np_from_uniform("weibull")))
_register(_Family("_npi_pareto", ("a",),
                  lambda y, a: (-(y + 1) * np.log(y + 1) / a,), check=_strictly_positive("a"),
                  mxnet=mxnet_samplers.np_from_uniform("pareto")))
_register(_Family("_npi_powerd", ("a",),
                  check=_strictly_positive("a"),
                  mxnet=mxnet_samplers.np_from_uniform("powerd")))
_register(_Family("_npi_gamma", ("shape", "scale"),
                  check=_strictly_positive("shape", "scale"),
                  extra=_DT, mxnet=mxnet_samplers.np_gamma))


def _batch_n(name, base):
    """The ``_n`` samplers: size is a batch shape put before the parameters' shape."""
    def draw_shape(p, param_shapes):
        b = ()
        for s in param_shapes:
            b = broadcast_shapes(name, b, s)
        return tuple(p.size or ()) + b
    return draw_shape


def _register_n(name, params, grads, mxnet):
    fam = _Family(name, params, grads, extra=_DT, mxnet=mxnet)

    def shape(p, ins):
        if any(s is None for s in ins):
            return ins, [None]
        it = iter(ins)
        shapes = [tuple(next(it)) if p[k] is None else () for k in params]
        return ins, [_batch_n(name, None)(p, shapes)]

    def kernel(p, rc, *xs):
        vals = _values(fam, p, xs)
        out = _batch_n(name, None)(p, [v.shape for v in vals])
        dtype = np.dtype(p.dtype or _default_float())
        return rc.xp.asarray(_mxnet_draw(fam, p, xs, out, dtype))

    def vjp(p, rc, xs, ys, gys, need):
        vals = _values(fam, p, xs)
        out = ys[0].shape
        y = np.asarray(_host(ys[0]), np.float64)
        g = np.asarray(_host(gys[0]), np.float64)
        gr = grads(y, *[np.broadcast_to(v, out) for v in vals])
        res, k = [], 0
        for i, key in enumerate(params):
            if p[key] is None:
                res.append(rc.xp.asarray(unbroadcast(g * gr[i], xs[k].shape).astype(
                    xs[k].dtype)))
                k += 1
        return tuple(res)

    attrs = {k: A.OptionalFloat() for k in params}
    attrs.update({"size": A.Attr(_opt_shape, None, "shape"), "ctx": A.Str(""), **_DT})
    kernel.__doc__ = (f"{name}({', '.join(params)}, size, ctx, dtype): draws of shape "
                      "size + the parameters' broadcast shape.")
    register(name, inputs=fam.inputs, signature=("input1", "input2"), attrs=attrs,
             shape=shape, random=True, same_dtype=(),
             dtype=lambda p, ins: (ins, [np.dtype(p.dtype or _default_float())]),
             vjp=vjp)(kernel)


_register_n("_npi_uniform_n", ("low", "high"),
            lambda y, lo, hi: ((hi - y) / np.where(hi == lo, 1, hi - lo),
                               (y - lo) / np.where(hi == lo, 1, hi - lo)),
            mxnet=mxnet_samplers.np_uniform)
_register_n("_npi_normal_n", ("loc", "scale"),
            lambda y, mu, sd: (np.ones_like(y), (y - mu) / np.where(sd == 0, 1, sd)),
            mxnet=mxnet_samplers.np_normal)


def _bern_inputs(p):
    return ["input1"] if p.prob is None and p.logit is None else []


@register("_npi_bernoulli", inputs=_bern_inputs, signature=("input1",),
          attrs={"prob": A.OptionalFloat(), "logit": A.OptionalFloat(),
                 "size": A.Attr(_opt_shape, None, "shape"), "ctx": A.Str(""),
                 "dtype": A.Dtype(None), "is_logit": A.Bool(False)},
          random=True, nondiff=("input1",), same_dtype=(),
          shape=lambda p, ins: (ins, [None if any(s is None for s in ins) else _out_shape(
              "_npi_bernoulli", p, [tuple(s) for s in ins])]),
          dtype=lambda p, ins: (ins, [np.dtype(p.dtype or _default_float())]))
def _np_bernoulli(p, rc, *xs):
    """_npi_bernoulli(input1=None, prob=None, logit=None, size, ctx, dtype, is_logit): 0/1
    draws with probability prob (or sigmoid(logit)), a number or an array.

    Raises:
        ValueError: a probability outside [0, 1].
    """
    if xs:
        v = np.asarray(_host(xs[0]))
        logit = bool(p.is_logit)
    else:
        logit = p.logit is not None
        v = np.float32(p.logit if logit else p.prob)
    if not logit and (np.any(v < 0) or np.any(v > 1)):
        raise MXNetValueError("_npi_bernoulli: prob must be in the range [0, 1]")
    out = _out_shape("_npi_bernoulli", p, [np.shape(v)])
    draws = mxnet_samplers.np_bernoulli(v, logit, out)
    return rc.xp.asarray(draws.astype(p.dtype or _default_float()))


def _multinomial_inputs(p):
    return ["a"] if p.pvals is None else []


@register("_npi_multinomial", inputs=_multinomial_inputs, signature=("a",),
          attrs={"n": A.Int(), "pvals": A.Attr(lambda v: None if v is None else tuple(
              float(e) for e in (A._literal(v) if isinstance(v, str) else v)), None),
                 "size": A.Attr(_opt_shape, None, "shape")},
          random=True, nondiff=("a",),
          shape=lambda p, ins: (ins, [tuple(p.size or ()) + (
              len(p.pvals) if p.pvals is not None else (ins[0][-1] if ins[0] is not None
                                                        else None),)]),
          dtype=lambda p, ins: (ins, [np.dtype(np.int64)]))
def _np_multinomial(p, rc, *xs):
    """_npi_multinomial(a=None, n, pvals, size=None): counts of n draws over the categories
    of probabilities pvals (int64, shape size + (k,)), MXNet's (`mxnet_discrete`).

    Raises:
        ValueError: pvals as an array of more than one axis, a negative or NaN probability,
            or probabilities summing to more than 1.
    """
    if xs:
        pv = np.asarray(_host(xs[0]))
        if pv.ndim != 1:
            raise MXNetValueError(f"_npi_multinomial: pvals must be 1-D, got shape {pv.shape} "
                                  "(object too deep for desired array)")
        pv = pv if pv.dtype.kind == "f" else pv.astype(np.float64)
    else:
        pv = np.asarray(p.pvals, np.float64)
    if not np.all(pv >= 0) or pv.astype(np.float64).sum() > 1 + 1e-5:  # NaN fails too
        raise MXNetValueError("_npi_multinomial: pvals must be non-negative and sum to 1 at "
                              "most")
    counts = mxnet_discrete.multinomial_counts(p.n, pv, tuple(p.size or ()), not xs)
    return rc.xp.asarray(counts)


def _choice_inputs(p):
    names = []
    if p.a is None:
        names.append("input1")
    if p.weighted:
        names.append("input2")
    return names


@register("_npi_choice", inputs=_choice_inputs, signature=("input1", "input2"),
          attrs={"a": A.OptionalInt(), "size": A.Attr(_opt_shape, None, "shape"),
                 "ctx": A.Str(""), "replace": A.Bool(True), "weighted": A.Bool(False)},
          random=True, nondiff=("input1", "input2"), same_dtype=(),
          shape=lambda p, ins: (ins, [tuple(p.size or ())]),
          dtype=lambda p, ins: (ins, [np.dtype(np.int64)]))
def _np_choice(p, rc, *xs):
    """_npi_choice(input1=None, input2=None, a, size, ctx, replace=True, weighted=False):
    indices drawn from range(a) (a, or the number of elements of array input1, as MXNet's
    kernel counts them), with probabilities input2 when weighted (the front end takes the
    elements)."""
    it = iter(xs)
    n = p.a if p.a is not None else int(next(it).size)
    weights = np.asarray(_host(next(it))) if p.weighted else None
    if weights is not None and weights.size != n:
        raise MXNetValueError(f"_npi_choice: p holds {weights.size} probabilities for a "
                              f"population of {n}")
    size = tuple(p.size or ())
    draws = int(np.prod(size, dtype=np.int64))
    if n < 0 or (n == 0 and draws > 0):
        raise MXNetValueError(f"_npi_choice: a must be at least 1 to draw from (0 only for no "
                              f"draws), got {n}")
    idx = mxnet_discrete.choice_indices(n, size, p.replace, None if weights is None
                                        else weights.ravel())
    return rc.xp.asarray(idx)
