"""`gluonlite.random`: one seed for every random draw, and the sampling functions."""
from .ops.random import seed  # noqa: F401
from .ndarray.random import normal, uniform  # noqa: F401

__all__ = ["seed", "normal", "uniform"]
