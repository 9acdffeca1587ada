"""Contributed samplers."""
from ...data.sampler import Sampler

__all__ = ["IntervalSampler"]


class IntervalSampler(Sampler):
    """Indices spaced by `interval`: 0, k, 2k, ..., then (with rollover) 1, k+1, ... until
    every index is visited.

    Args:
        length: the dataset length.
        interval: the step between consecutive indices.
        rollover: continue from the next offset after each pass (default True).

    Raises:
        ValueError: interval >= length.

    Example::

        list(gluon.contrib.data.IntervalSampler(6, 3))   # [0, 3, 1, 4, 2, 5]
        list(gluon.contrib.data.IntervalSampler(6, 3, rollover=False))   # [0, 3]
    """

    def __init__(self, length, interval, rollover=True):
        if interval >= length:
            raise ValueError(f"IntervalSampler: interval {interval} must be smaller than "
                             f"length {length}")
        self._length = length
        self._interval = interval
        self._rollover = rollover

    def __iter__(self):
        for start in range(self._interval if self._rollover else 1):
            yield from range(start, self._length, self._interval)

    def __len__(self):
        return self._length if self._rollover else len(range(0, self._length, self._interval))
