"""Registry-walk entries of the samplers and densities (`gluonlite.ops.samplers`).

Samplers cannot be walked for values (the walk reseeds before every call, so their shapes,
dtypes and zero gradients are checked, as for `_random_normal`); `tests/ops_math/
test_random_ops.py` checks their moments. The densities are walked against scipy.stats, with
gradients against finite differences."""
import numpy as np
from scipy import special, stats

from .common import C, Idx, Pos

B23 = (2, 3)
_P = np.array([0.3, 0.6])  # probabilities of the negative binomial
_COUNTS = Idx([[0.0, 2.0, 5.0], [1.0, 3.0, 0.0]])


def _extra(q, x):
    return q.reshape(q.shape + (1,) * (x.ndim - q.ndim))


def _nb_pmf(x, k, p):
    return np.exp(special.gammaln(x + k) - special.gammaln(x + 1) - special.gammaln(k)
                  + k * np.log(p) + x * np.log1p(-p))


def _dirichlet(x, a):
    a = a[:, None, :]
    return np.exp(special.gammaln(a.sum(-1)) - special.gammaln(a).sum(-1)
                  + ((a - 1) * np.log(x)).sum(-1))


SPECS = {
    "_random_uniform_like": C([B23], {"low": -1, "high": 2}),
    "_random_normal_like": C([B23], {"loc": 1, "scale": 2}),
    "_random_gamma": C([], {"alpha": 2, "beta": 0.5, "shape": B23}),
    "_random_gamma_like": C([B23], {"alpha": 2}),
    "_random_exponential": C([], {"lam": 2, "shape": B23}),
    "_random_exponential_like": C([B23]),
    "_random_poisson": C([], {"lam": 3, "shape": B23}),
    "_random_poisson_like": C([B23], {"lam": 3}),
    "_random_negative_binomial": C([], {"k": 3, "p": 0.4, "shape": B23}),
    "_random_negative_binomial_like": C([B23], {"k": 3, "p": 0.4}),
    "_random_generalized_negative_binomial": C([], {"mu": 2, "alpha": 0.3, "shape": B23}),
    "_random_generalized_negative_binomial_like": C([B23], {"mu": 2, "alpha": 0.3}),
    "_random_randint": C([], {"low": -2, "high": 5, "shape": B23}),
    "_shuffle": C([(4, 3)], more=[[(5,)]]),
    "_sample_uniform": C([Idx([0.0, 1.0]), Idx([1.0, 3.0])], {"shape": (3,)}),
    "_sample_normal": C([(2,), Pos(2)], {"shape": (2, 2)}, more=[[B23, Pos(*B23)]]),
    "_sample_gamma": C([Pos(2), Pos(2)], {"shape": (3,)}),
    "_sample_exponential": C([Pos(2, 2)], {"shape": (3,), "dtype": "float64"}),
    "_sample_poisson": C([Pos(3)], {"shape": (2,)}),
    "_sample_negative_binomial": C([Idx([1.0, 4.0]), _P], {"shape": (3,)}),
    "_sample_generalized_negative_binomial": C([Pos(2), Pos(2)], {"shape": (3,)}),
    "_sample_multinomial": [
        C([np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])], {"shape": (4,)}),
        C([np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])], {"shape": (4,), "get_prob": True}),
        C([np.array([0.3, 0.7])], {"get_prob": True})],
    "_random_pdf_uniform": C([Pos(*B23), Idx([-1.0, 0.0]), Idx([2.0, 3.0])],
                             ref=lambda x, lo, hi: 1 / _extra(hi - lo, x) + 0 * x),
    "_random_pdf_normal": [
        C([B23, (2,), Pos(2)], ref=lambda x, m, s: stats.norm.pdf(x, _extra(m, x), _extra(s, x))),
        C([B23, (2,), Pos(2)], {"is_log": True},
          ref=lambda x, m, s: stats.norm.logpdf(x, _extra(m, x), _extra(s, x)))],
    "_random_pdf_gamma": C([Pos(*B23), Pos(2), Pos(2)],
                           ref=lambda x, a, b: stats.gamma.pdf(x, _extra(a, x),
                                                               scale=1 / _extra(b, x))),
    "_random_pdf_exponential": C([Pos(2, 3, 2), Pos(2)], {"is_log": True},
                                 ref=lambda x, lam: stats.expon.logpdf(x,
                                                                       scale=1 / _extra(lam, x))),
    "_random_pdf_poisson": C([_COUNTS, Pos(2)],
                             ref=lambda x, lam: stats.poisson.pmf(x, _extra(lam, x))),
    "_random_pdf_negative_binomial": C([_COUNTS, Pos(2), _P],
                                       ref=lambda x, k, p: _nb_pmf(x, _extra(k, x), _extra(p, x))),
    "_random_pdf_generalized_negative_binomial": C(
        [_COUNTS, Pos(2), Pos(2)],
        ref=lambda x, mu, a: _nb_pmf(x, 1 / _extra(a, x), 1 / (1 + _extra(a * mu, x)))),
    "_random_pdf_dirichlet": C([Pos(2, 2, 3), Pos(2, 3)], ref=_dirichlet),
}
