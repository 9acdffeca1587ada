"""`nd.random`: sampling functions, as MXNet 1.9.1's (reproducible with `gluonlite.random.seed`).

Each distribution takes its parameters as numbers or as NDArrays (all of one kind): numbers
draw an array of `shape` (``_random_<d>``), NDArrays draw `shape` samples for each of their
elements (``_sample_<d>``), so the output's shape is the parameters' shape followed by
`shape`. The functions are made from the samplers' table for this front end, as `sym.random`'s
are for its (`gluonlite.ops.random_functions`); the operators are in `gluonlite.ops.samplers`.

Example::

    nd.random.normal(0, 1, shape=(2, 3))                  # 2x3 draws of N(0, 1)
    nd.random.normal(nd.array([0, 10]), nd.array([1, 1]), shape=4)   # shape (2, 4)
"""
from ..context import current_context
from ..ops.random import seed as _seed
from ..ops.random_functions import NAMES, FrontEnd, random_functions
from .ndarray import NDArray  # noqa: F401  (MXNet's nd.random has it)
from .register import _gen_cache

__all__ = list(NAMES) + ["seed"]

globals().update(random_functions(FrontEnd(
    "nd", NDArray, _gen_cache.__getitem__, imperative=True,
    like=lambda op_name, public: _gen_cache[op_name], current_context=current_context)))


def seed(seed_state, ctx="all"):
    """Reseed every random draw of gluonlite (same as `gluonlite.random.seed`).

    Args:
        seed_state: the seed, an int.
        ctx: 'all' (default) or a Context. As in MXNet, seeding one device seeds its
            single stream (`mx.np.random`'s) with the seed itself, 'all' with seed * 127;
            every other draw is the same either way.

    Example::

        nd.random.seed(42)
        a = nd.random.uniform(shape=(2,))
        nd.random.seed(42)
        (nd.random.uniform(shape=(2,)) == a).asnumpy()   # [1. 1.]
    """
    _seed(seed_state, device=not (isinstance(ctx, str) and ctx == "all"))
