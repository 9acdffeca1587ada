"""`gluonlite.random`: one seed for every random draw, and the sampling functions of
`nd.random` (as MXNet's `mx.random`)."""
from .context import Context  # noqa: F401  (MXNet's mx.random has it)
from .ndarray.random import seed  # noqa: F401  (seed(seed_state, ctx='all'))
from .ndarray.random import (exponential, gamma, generalized_negative_binomial,  # noqa: F401
                             multinomial, negative_binomial, normal, poisson, randint, randn,
                             shuffle, uniform)

__all__ = ["seed", "uniform", "normal", "randn", "poisson", "exponential", "gamma",
           "multinomial", "negative_binomial", "generalized_negative_binomial", "shuffle",
           "randint"]
