"""`npx.save` / `npx.load`: `mx.np` arrays in MXNet's binary NDArray file format."""
from ..ndarray.ndarray import NDArray
from ..ndarray.serialization import load as _load, save as _save
from ..numpy.multiarray import from_nd

__all__ = ["save", "load"]


def save(file, arr):
    """Save an `mx.np.ndarray`, a list of them or a dict name -> array to `file` (MXNet's
    format, written atomically).

    Args:
        file (str): the path to write.
        arr: an `mx.np.ndarray`, a list or tuple of them, or a dict of name -> `mx.np.ndarray`.

    Returns:
        None.

    Raises:
        TypeError: something else.

    Example::

        mx.npx.save('arrays.params', {'w': mx.np.ones(2)})
        mx.npx.load('arrays.params')['w']  # array([1., 1.])
    """
    if isinstance(arr, NDArray):
        arr = [arr]
    if isinstance(arr, dict):
        data = {k: _nd(v, f"npx.save: value of {k!r}") for k, v in arr.items()}
    elif isinstance(arr, (list, tuple)):
        data = [_nd(v, f"npx.save: element {i}") for i, v in enumerate(arr)]
    else:
        raise TypeError(f"npx.save: expected an ndarray, a list or a dict of them, got "
                        f"{type(arr).__name__}")
    _save(file, data)


def _nd(v, what):
    if not isinstance(v, NDArray):
        raise TypeError(f"{what}: expected an mxnet.numpy.ndarray, got {type(v).__name__}")
    return v.as_nd_ndarray() if hasattr(v, "as_nd_ndarray") else v


def load(file):
    """The arrays saved in `file`, as ``mx.np.ndarray`` arrays: a list, or a dict when saved
    with names.

    Args:
        file (str): the path of a file written by `save` (or MXNet's ``nd.save``).

    Returns:
        A list of `mx.np.ndarray`, or a dict name -> `mx.np.ndarray`.

    Example::

        mx.npx.save('arrays.params', [mx.np.zeros(3)])
        mx.npx.load('arrays.params')  # [array([0., 0., 0.])]
    """
    data = _load(file)
    if isinstance(data, dict):
        return {k: from_nd(v) for k, v in data.items()}
    return [from_nd(v) for v in data]
