"""Special functions and parametrised elementwise activations, from one table: erf, erfinv,
gamma, gammaln, hard_sigmoid, smooth_l1.

Each row: the name, its attributes, the forward ``fwd(xp, p, x)`` and the gradient
``grad(xp, p, x, y, g)`` (written with array-module functions only, so a second derivative
can record it). Every one keeps x's dtype (integer data is computed in float64 and cast
back, as MXNet does).
"""
import math

import numpy as np

from . import attrs as A
from .registry import register
from .rules import same_shape

try:
    from scipy import special as _sp
except ImportError:  # pragma: no cover - scipy is a dependency
    _sp = None

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _scipy(name):
    """scipy.special's function `name` on numpy arrays (the array module's own on others)."""
    def f(xp, x):
        if xp is np:
            return getattr(_sp, name)(x)
        try:
            import cupyx.scipy.special as cs
        except ImportError:  # an array module without scipy's functions: through the host
            return xp.asarray(getattr(_sp, name)(xp.asnumpy(x)))
        return getattr(cs, name)(x)  # pragma: no cover - GPU only
    return f


def _digamma(xp, x):
    """digamma with MXNet's value at its poles 0, -1, -2, ... and -inf: Cephes' psi returns
    the largest double there, which is +inf once rounded to float32 (scipy gives -inf at 0
    and nan below), so the gradients of gamma and gammaln there match MXNet's."""
    y = _scipy("digamma")(xp, x)
    pole = (x <= 0) & (x == xp.floor(x))
    big = np.finfo(np.float64).max if y.dtype == np.float64 else np.inf
    return xp.where(pole, xp.asarray(big, dtype=y.dtype), y)


def _gamma(xp, x):
    """gamma(x), NaN at the negative integers and -inf, and -inf at -0, as C's tgamma gives
    them (MXNet's kernel; scipy before 1.12 gives infinities at the first, and +inf at -0)."""
    y = _scipy("gamma")(xp, x)
    pole = (x < 0) & (x == xp.floor(x))
    y = xp.where(pole, xp.asarray(np.nan, dtype=y.dtype), y)
    return xp.where(x == 0, xp.copysign(xp.asarray(np.inf, dtype=y.dtype), x), y)


def _gammaln(xp, x):
    """log |gamma(x)|, +inf at -inf as C's lgamma gives it (MXNet's kernel; scipy gives
    -inf there)."""
    y = _scipy("gammaln")(xp, x)
    return xp.where(x == -np.inf, xp.asarray(np.inf, dtype=y.dtype), y)


def _hard_sigmoid(xp, p, x):
    return xp.clip(x * p.alpha + p.beta, 0, 1)


def _hard_sigmoid_grad(xp, p, x, y, g):
    lin = x * p.alpha + p.beta
    return g * ((lin > 0) * (lin < 1)) * p.alpha


def _smooth_l1_terms(p):
    """(sigma**2, 1 / sigma**2, 0.5 / sigma**2) of smooth_l1's scalar, as Python floats (so
    the data's dtype computes); at sigma = 0 the quotients are inf, as in MXNet's kernel,
    where Python would raise ZeroDivisionError."""
    s2 = float(p.scalar) * float(p.scalar)
    if s2 == 0:
        return s2, math.inf, math.inf
    return s2, 1 / s2, 0.5 / s2


def _smooth_l1(xp, p, x):
    s2, inv, half_inv = _smooth_l1_terms(p)
    ax = xp.abs(x)
    return xp.where(ax < inv, 0.5 * s2 * x * x, ax - half_inv)


def _smooth_l1_grad(xp, p, x, y, g):
    s2, inv, _ = _smooth_l1_terms(p)
    return g * xp.where(xp.abs(x) < inv, s2 * x, xp.sign(x))


# name: (attrs, fwd(xp, p, x), grad(xp, p, x, y, g), doc)
_TABLE = {
    "erf": ({}, lambda xp, p, x: _scipy("erf")(xp, x),
            lambda xp, p, x, y, g: g * _TWO_OVER_SQRT_PI * xp.exp(-x * x),
            "erf(data): the Gauss error function, elementwise."),
    "erfinv": ({}, lambda xp, p, x: _scipy("erfinv")(xp, x),
               lambda xp, p, x, y, g: g * (0.5 * math.sqrt(math.pi)) * xp.exp(y * y),
               "erfinv(data): the inverse of erf, elementwise (inf at +-1, nan beyond)."),
    "gamma": ({}, lambda xp, p, x: _gamma(xp, x),
              lambda xp, p, x, y, g: g * y * _digamma(xp, x),
              "gamma(data): the gamma function, elementwise."),
    "gammaln": ({}, lambda xp, p, x: _gammaln(xp, x),
                lambda xp, p, x, y, g: g * _digamma(xp, x),
                "gammaln(data): log |gamma(x)|, elementwise."),
    "hard_sigmoid": ({"alpha": A.Float(0.2), "beta": A.Float(0.5)}, _hard_sigmoid,
                     _hard_sigmoid_grad,
                     "hard_sigmoid(data, alpha=0.2, beta=0.5): max(0, min(1, alpha * x + "
                     "beta)), elementwise."),
    "smooth_l1": ({"scalar": A.Float(1.0)}, _smooth_l1, _smooth_l1_grad,
                  "smooth_l1(data, scalar=1): 0.5 * (scalar * x)**2 where |x| < 1/scalar**2, "
                  "else |x| - 0.5/scalar**2 (the Huber loss of Fast R-CNN), elementwise."),
}


def _row(name, attrs, fwd, grad, doc):
    def kernel(p, rc, x):
        xf = x if x.dtype.kind == "f" else x.astype(np.float64)
        return rc.xp.asarray(fwd(rc.xp, p, xf)).astype(x.dtype, copy=False)

    def vjp(p, rc, xs, ys, gys, need):
        x, y = xs[0], ys[0]
        return (grad(rc.xp, p, x, y, gys[0]).astype(x.dtype, copy=False),)

    kernel.__doc__ = doc
    register(name, attrs=attrs, vjp=vjp, shape=same_shape(name))(kernel)


for _name, _row_spec in _TABLE.items():
    _row(_name, *_row_spec)
