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
    T rows of N*G values); indices that do not repeat, the usual case, take one fancy-index
    add, and a contiguous run one slice add.

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
    elif xp.unique(i).size == n:
        target[i] += rows
    else:
        xp.add.at(target, i, rows)
