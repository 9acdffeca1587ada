"""`mx.engine`: the engine's bulk-execution setting.

MXNet's threaded engine can bundle up to `size` consecutive operators into one engine task.
gluonlite runs every operator eagerly and in order, so there is nothing to bundle: the size is
kept (per thread, as MXNet keeps it) and returned as MXNet returns it, and results are the same
whatever it is.

Example::

    with mx.engine.bulk(10):
        x = mx.nd.ones((10,))
        for _ in range(100):
            x += 1
"""
import threading

__all__ = ["set_bulk_size", "bulk"]

_state = threading.local()


def set_bulk_size(size):
    """Set the largest number of operators bundled into one engine task (a no-op here).

    Args:
        size: int >= 0; 0 turns bulking off (the starting value).

    Returns:
        int: the previous size.

    Raises:
        TypeError: `size` is not an integer.
        ValueError: `size` is negative.

    Example::

        prev = mx.engine.set_bulk_size(16)
        mx.engine.set_bulk_size(prev)
    """
    if isinstance(size, bool) or not hasattr(size, "__index__"):
        raise TypeError(f"engine.set_bulk_size: size must be an integer, got "
                        f"{type(size).__name__}")
    size = int(size)
    if size < 0:
        raise ValueError(f"engine.set_bulk_size: size must be >= 0, got {size}")
    prev = getattr(_state, "size", 0)
    _state.size = size
    return prev


class _BulkScope:
    """Sets the bulk size for a `with` block and restores the previous one after it."""

    def __init__(self, size):
        self._size = size
        self._old_size = None

    def __enter__(self):
        self._old_size = set_bulk_size(self._size)
        return self

    def __exit__(self, ptype, value, trace):
        set_bulk_size(self._old_size)


def bulk(size):
    """A `with` scope in which the bulk size is `size` (see `set_bulk_size`).

    Args:
        size: int >= 0.

    Returns:
        A context manager; the previous size comes back when it exits.

    Example::

        with mx.engine.bulk(10):
            y = x * 2 + 1
    """
    return _BulkScope(size)
