"""`mx.np.set_printoptions`: how `mx.np` arrays print (NumPy's options; MXNet 1.9.1 takes
`precision` and `threshold` only)."""
import numpy as _onp

__all__ = ["set_printoptions"]


def set_printoptions(precision=None, threshold=None, **kwarg):
    """Set the print options `precision` and `threshold` (NumPy's).

    Args:
        precision: default None: leave it; else the int number of digits printed after the point.
        threshold: default None: leave it; else the int number of elements above which an array
            prints summarized.
        **kwarg: NumPy's other options, not supported (any raises).

    Raises:
        NotImplementedError: any other option (as in MXNet 1.9.1).

    Example::

        old = np.get_printoptions()["precision"]
        mx.np.set_printoptions(precision=3)
        repr(mx.np.array([1 / 3]))   # 'array([0.333])'
        mx.np.set_printoptions(precision=old)
    """
    if kwarg:
        raise NotImplementedError(f"set_printoptions: options {sorted(kwarg)} are not supported "
                                  "(only precision and threshold)")
    _onp.set_printoptions(precision=precision, threshold=threshold)
