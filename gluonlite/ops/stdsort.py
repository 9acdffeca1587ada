"""libstdc++'s ``std::sort`` and ``std::partial_sort`` on index lists, step for step: the
order MXNet 1.9.1's CPU topk, sort and argsort give (their kernel sorts each row's indices
with one of the two and a ``>`` or ``<`` comparison of the values).

A stable sort gives the same order wherever a row's values are distinct. It does not where
they tie (introsort and heap selection move equal values around) or hold NaN (every
comparison with NaN is false, so NaN stays wherever the algorithm happens to leave it). The
ordering operators run these reference algorithms on such rows only (`needs_std`), so
MXNet programs get MXNet's indices there too.
"""
import numpy as np

__all__ = ["std_sort", "std_partial_sort", "needs_std", "STD_MAX"]

STD_MAX = 1 << 16  # longest row run through the reference algorithms (a Python loop)
_THRESHOLD = 16    # libstdc++'s _S_threshold: ranges this short finish by insertion sort


def _comp(key, descending):
    """The comparison of two indices: by value, greater first or smaller first."""
    if descending:
        return lambda i, j: key[i] > key[j]
    return lambda i, j: key[i] < key[j]


def _insertion(a, lo, hi, comp):
    for i in range(lo + 1, hi):
        v = a[i]
        if comp(v, a[lo]):
            a[lo + 1:i + 1] = a[lo:i]
            a[lo] = v
        else:
            _linear_insert(a, i, comp, lo)


def _linear_insert(a, i, comp, lo):
    """__unguarded_linear_insert (kept from running below lo, where C would read outside the
    range)."""
    v = a[i]
    j = i - 1
    while j >= lo and comp(v, a[j]):
        a[j + 1] = a[j]
        j -= 1
    a[j + 1] = v


def _median_to_first(a, result, x, y, z, comp):
    if comp(a[x], a[y]):
        if comp(a[y], a[z]):
            pick = y
        elif comp(a[x], a[z]):
            pick = z
        else:
            pick = x
    elif comp(a[x], a[z]):
        pick = x
    elif comp(a[y], a[z]):
        pick = z
    else:
        pick = y
    a[result], a[pick] = a[pick], a[result]


def _partition(a, first, last, pivot, comp):
    """__unguarded_partition around a[pivot] (bounded where C relies on sentinels)."""
    p = a[pivot]
    while True:
        while first < last and comp(a[first], p):
            first += 1
        last -= 1
        while last > first and comp(p, a[last]):
            last -= 1
        if not first < last:
            return first
        a[first], a[last] = a[last], a[first]
        first += 1


def _adjust_heap(a, first, hole, length, value, comp):
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if comp(a[first + child], a[first + child - 1]):
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and comp(a[first + parent], value):
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value


def _heap_select(a, first, middle, last, comp):
    n = middle - first
    if n > 1:
        for parent in range((n - 2) // 2, -1, -1):
            _adjust_heap(a, first, parent, n, a[first + parent], comp)
    for i in range(middle, last):
        if comp(a[i], a[first]):  # __pop_heap(first, middle, i)
            v = a[i]
            a[i] = a[first]
            _adjust_heap(a, first, 0, n, v, comp)


def _sort_heap(a, first, last, comp):
    while last - first > 1:
        last -= 1
        v = a[last]
        a[last] = a[first]
        _adjust_heap(a, first, 0, last - first, v, comp)


def _introsort(a, lo, hi, depth, comp):
    while hi - lo > _THRESHOLD:
        if depth == 0:
            _heap_select(a, lo, hi, hi, comp)
            _sort_heap(a, lo, hi, comp)
            return
        depth -= 1
        mid = lo + (hi - lo) // 2
        _median_to_first(a, lo, lo + 1, mid, hi - 1, comp)
        cut = _partition(a, lo + 1, hi, lo, comp)
        _introsort(a, cut, hi, depth, comp)
        hi = cut


def std_sort(values, descending):
    """The index order std::sort gives indices 0..n-1 compared by `values` (a sequence of
    numbers; ``>`` when descending, else ``<``).

    Args:
        values: the sort keys, a sequence of numbers.
        descending: sort by ``>`` instead of ``<``.

    Returns:
        list of int: the indices in std::sort's order (ties and NaN placed as it places
        them).

    Example::

        from gluonlite.ops.stdsort import std_sort
        std_sort([1.0, float('nan'), 3.0, 2.0], True)   # [2, 0, 1, 3]
    """
    key = [float(v) for v in values]
    comp = _comp(key, descending)
    a = list(range(len(key)))
    n = len(a)
    if n > 1:
        _introsort(a, 0, n, 2 * (n.bit_length() - 1), comp)
        if n > _THRESHOLD:
            _insertion(a, 0, _THRESHOLD, comp)
            for i in range(_THRESHOLD, n):
                _linear_insert(a, i, comp, 0)
        else:
            _insertion(a, 0, n, comp)
    return a


def std_partial_sort(values, k, descending):
    """The index order std::partial_sort(first, first + k, last) gives indices 0..n-1
    compared by `values`: its first k entries are the ones topk reports.

    Args:
        values: the sort keys, a sequence of numbers.
        k: how many leading entries are sorted (the rest stay in the heap's order).
        descending: compare by ``>`` instead of ``<``.

    Returns:
        list of int: all n indices, the first k in std::partial_sort's order.

    Example::

        from gluonlite.ops.stdsort import std_partial_sort
        std_partial_sort(np.array([3.0, 1.0, 2.0]), 1, False)  # [1, 0, 2]: index 1 first
    """
    key = [float(v) for v in values]
    comp = _comp(key, descending)
    a = list(range(len(key)))
    _heap_select(a, 0, k, len(a), comp)
    _sort_heap(a, 0, k, comp)
    return a


def needs_std(rows, order, k, values_only):
    """Which rows (R, n) a stable `order` (R, n) may not give as MXNet does: rows holding
    NaN, and, unless only the sorted values are wanted, rows with equal values among their
    first k + 1 (which tie for a place MXNet's algorithm decides).

    Args:
        rows: the values, a numpy array (R, n).
        order: a stable sort's order of each row, (R, n).
        k: how many leading entries are reported.
        values_only: only the sorted values are wanted (ties then do not matter).

    Returns:
        numpy.ndarray: bool (R,), True for the rows to sort as std::sort does (never for
        rows longer than STD_MAX).

    Example::

        from gluonlite.ops.stdsort import needs_std
        rows = np.array([[1.0, 1.0, 2.0], [3.0, 2.0, 1.0]])
        needs_std(rows, np.argsort(rows, kind="stable"), 1, False)
        # array([ True, False]): row 0 has a tie among its first two
    """
    odd = np.isnan(rows).any(axis=1) if rows.dtype.kind == "f" else np.zeros(len(rows), bool)
    if not values_only:
        head = np.take_along_axis(rows, order[:, :k + 1], axis=1)
        odd |= (head[:, 1:] == head[:, :-1]).any(axis=1)
    return odd & (rows.shape[1] <= STD_MAX)
