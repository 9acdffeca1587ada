"""Walk entries of the NumPy dialect's samplers (`gluonlite.ops.np_random`): shapes and
dtypes, and the reparameterization gradients of the array parameters. MXNet's samplers
draw float32 whatever the parameters' dtype, so the gradients of those without a `dtype` are
held against finite differences of a float64 replica of the same draws: each value is its
distribution's inverse CDF at one float32 uniform of MXNet's single stream after the walk's
`mx.random.seed(7)` (tests/core/test_mxnet_random_streams.py holds that stream to MXNet's)."""
import numpy as np

from .common import C, Pos


def _uniforms(shape):
    """The float32 uniforms a sampler of `shape` reads after seed(7), in float64; the streams
    are left where they were."""
    from gluonlite.ops import mxnet_rng
    state = mxnet_rng.state()
    mxnet_rng.seed(7)
    u = mxnet_rng.SINGLE.uniform(int(np.prod(shape)), np.float32).reshape(shape)
    mxnet_rng.set_state(state)
    return u.astype(np.float64)


def _fd(draw, size=None):
    """The gradient check of a sampler with array parameters: central differences of
    ``sum(draw(u, *params) * head)`` at the walk's uniforms u."""
    def grad(arrays, heads):
        def f(params):
            out = size or np.broadcast_shapes(*[p.shape for p in params])
            return float((draw(_uniforms(out), *[np.broadcast_to(p, out) for p in params])
                          * heads[0]).sum())
        res = []
        for i, x in enumerate(arrays):
            g = np.zeros_like(x)
            for k in np.ndindex(x.shape):
                ps = [p.copy() for p in arrays]
                ps[i][k] += 1e-6
                hi = f(ps)
                ps[i][k] -= 2e-6
                g[k] = (hi - f(ps)) / 2e-6
            res.append(g)
        return res
    return grad


_F64 = {"dtype": "float64"}
SPECS = {
    "_npi_uniform": [C([], {"low": 0.0, "high": 2.0, "size": (2, 3)}),
                     C([np.array([[-1.0], [-0.5]]), Pos(3)], {"size": (2, 3), **_F64})],
    "_npi_normal": [C([], {"loc": 1.0, "scale": 2.0, "size": (3,)}),
                    C([(3,), Pos(2, 3)], _F64)],
    "_npi_logistic": C([(3,), Pos(3)], {"size": (2, 3)},
                       grad=_fd(lambda u, mu, sd: mu + (np.log(u) - np.log(1 - u)) * sd,
                                (2, 3))),
    "_npi_gumbel": C([(3,)], {"scale": 1.5},
                     grad=_fd(lambda u, mu: mu - np.log(-np.log(u)) * 1.5)),
    "_npi_exponential": C([Pos(2, 2)], {}, grad=_fd(lambda u, sc: -np.log(u) * sc)),
    "_npi_rayleigh": C([Pos(3)], {"size": (2, 3)},
                       grad=_fd(lambda u, sc: sc * np.sqrt(-2 * np.log(u)), (2, 3))),
    "_npi_weibull": C([Pos(3)], {}, grad=_fd(lambda u, a: (-np.log(u)) ** (1 / a))),
    "_npi_pareto": C([Pos(3)], {}, grad=_fd(lambda u, a: np.exp(-np.log(u) / a) - 1)),
    "_npi_powerd": C([], {"a": 2.0, "size": (4,)}),
    "_npi_gamma": C([], {"shape": 2.0, "scale": 1.0, "size": (3,)}),
    "_npi_uniform_n": C([np.array([-1.0, -0.5, -0.7]), Pos(3)], {"size": (2,), **_F64}),
    "_npi_normal_n": C([(3,), Pos(3)], {"size": (2,), **_F64}),
    "_npi_bernoulli": [C([], {"prob": 0.3, "size": (4,)}),
                       C([np.array([0.2, 0.9])], {"size": (3, 2)})],
    "_npi_multinomial": C([], {"n": 5, "pvals": (0.2, 0.3, 0.5), "size": (2,)}),
    "_npi_choice": C([], {"a": 5, "size": (3,)}),
}
