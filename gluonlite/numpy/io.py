"""`mx.np.genfromtxt`: a table of numbers from a text file, as an `mx.np` array."""
import numpy as _onp

from .multiarray import array

__all__ = ["genfromtxt"]


def genfromtxt(*args, **kwargs):
    """NumPy's genfromtxt, its result an `mx.np.ndarray` (float64 data kept as float64, as in
    MXNet 1.9.1).

    Example: ``np.genfromtxt('data.csv', delimiter=',')``.
    """
    return array(_onp.genfromtxt(*args, **kwargs))
