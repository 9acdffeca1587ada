"""`mx.np.genfromtxt`: a table of numbers from a text file, as an `mx.np` array."""
import numpy as _onp

from .multiarray import array

__all__ = ["genfromtxt"]


def genfromtxt(*args, **kwargs):
    """NumPy's genfromtxt, its result an `mx.np.ndarray` (float64 data kept as float64, as in
    MXNet 1.9.1).

    Example::

        np.savetxt('data.csv', [[1, 2], [3, 4]], delimiter=',')
        mx.np.genfromtxt('data.csv', delimiter=',').shape   # (2, 2)
    """
    return array(_onp.genfromtxt(*args, **kwargs))
