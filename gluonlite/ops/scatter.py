"""Gathering and scattering rows by integer indices, the helpers of the gather operators'
gradients (`take`, `Embedding`, their loop sums and their row_sparse forms)."""
import numpy as np

__all__ = ["run_start", "scatter_add"]


def run_start(xp, i):
    """The first index when 1-D `i` is consecutive (i0, i0 + 1, ...), else None (0 for no
    index): where a gather or a scatter by `i` is a slice.

    Args:
        xp: the array module (numpy, or cupy: a device array always gives None, as the check
            would read the indices on the host).
        i: the 1-D index array; it holds integers (or integer-valued floats, as a loop
            counter may).

    Returns:
        int or None: the first index of a consecutive run, 0 for no index, else None.

    Example:
    ``run_start(np, np.array([3, 4, 5]))`` is 3; ``run_start(np, np.array([3, 5]))`` None.
    """
    n = i.size
    if not n:
        return 0
    if xp is not np:  # the check reads indices on the host: a device sync costing more
        return None   # than the general path saves
    if i[-1] - i[0] == n - 1 and (n < 3 or bool((xp.diff(i) == 1).all())):
        return int(i[0])
    return None


def scatter_add(xp, target, i, rows):
    """``target[i[k]] += rows[k]`` for every k, for 1-D integer `i` that may repeat.

    `add.at` handles repeats but is slow on rows (a loop's gradient of a gathered array is
    T rows of N*G values, an embedding's gradient one row per token): indices that do not
    repeat take one fancy-index add, a contiguous run one slice add, and repeated indices
    one fancy-index add per occurrence level (`_add_by_occurrence`), with add.at's sums.

    Args:
        xp: the array module of the arrays (numpy or cupy).
        target: the array to add into, in place (rows along its first axis).
        i: the 1-D integer row numbers, one per row of `rows`.
        rows: the values to add, of shape (len(i),) + target.shape[1:].

    Example::

        from gluonlite.ops.scatter import scatter_add
        g = np.zeros((3, 2))
        scatter_add(np, g, np.array([2, 0, 2]), np.ones((3, 2)))
        g.tolist()   # [[1.0, 1.0], [0.0, 0.0], [2.0, 2.0]]
    """
    n, start = i.size, run_start(xp, i)
    if start is not None:
        target[start:start + n] += rows
    elif xp is not np:  # one atomic scatter-add kernel; counting repeats would sync
        xp.add.at(target, i, rows)
    else:
        _add_by_occurrence(target, i, rows)


# rows of fewer values go through add.at: its cost per row is small there, and a level
# costs a few numpy calls however few rows it holds
_LEVEL_MIN_ROW = 32


def _add_by_occurrence(target, i, rows):
    """``np.add.at(target, i, rows)``, the same sums in the same order, in one fancy-index
    add per occurrence level: the first appearance of every index, then the second, and so
    on (the indices of a level are distinct, and each index's rows keep their order). Two
    to four times faster than add.at on an embedding's gradient rows."""
    n = i.size
    order = np.argsort(i, kind="stable")
    si = i[order]
    first = np.empty(n, dtype=bool)
    first[0] = True
    np.not_equal(si[1:], si[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    if starts.size == n:  # no index repeats
        target[i] += rows
        return
    if rows[0].size < _LEVEL_MIN_ROW:
        np.add.at(target, i, rows)
        return
    counts = np.diff(np.append(starts, n))
    rank = np.arange(n) - np.repeat(starts, counts)   # occurrence number, in sorted order
    by_rank = np.argsort(rank, kind="stable")
    bounds = np.searchsorted(rank[by_rank], np.arange(counts.max() + 1))
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        sel = order[by_rank[lo:hi]]
        target[i[sel]] += rows[sel]
