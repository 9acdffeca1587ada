"""`nd.random`: sampling functions (reproducible with `gluonlite.random.seed`)."""
import numpy as np

from ..base import normalize_dtype
from .register import _gen_cache


def _shape(shape):
    if shape is None:
        return (1,)
    return (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(shape)


def uniform(low=0.0, high=1.0, shape=None, ctx=None, dtype=None, **kwargs):
    """Samples from U[low, high). Example: ``nd.random.uniform(-1, 1, shape=(2, 3))``."""
    return _gen_cache["_random_uniform"](low=low, high=high, shape=_shape(shape), ctx=ctx,
                                         dtype=normalize_dtype(dtype or "float32").name)


def normal(loc=0.0, scale=1.0, shape=None, ctx=None, dtype=None, **kwargs):
    """Samples from N(loc, scale**2)."""
    return _gen_cache["_random_normal"](loc=loc, scale=scale, shape=_shape(shape), ctx=ctx,
                                        dtype=normalize_dtype(dtype or "float32").name)


def seed(n):
    """Same as gluonlite.random.seed."""
    from ..ops.random import seed as _seed
    _seed(n)


def randn(*shape, loc=0.0, scale=1.0, dtype=None, ctx=None, **kwargs):
    """Samples from N(loc, scale**2) of the shape given as positional sizes (numpy's
    ``randn`` spelling). Example: ``nd.random.randn(3, 2)``."""
    return normal(loc, scale, shape=shape or (1,), ctx=ctx, dtype=dtype, **kwargs)
