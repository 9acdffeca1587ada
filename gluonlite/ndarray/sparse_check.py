"""The format rules of sparse storage, checked with a few vectorized numpy passes.

An index past the array's width, an ``indptr`` that decreases or a repeated row number makes
a sparse kernel read outside its buffers (scipy's csr kernels trust their inputs: a wrong
number in silence, or a crash). These functions say what is wrong with a set of parts, or
None; `nd.sparse`'s constructors, `nd.load` and ``check_format`` call them, and the trusted
internal builders (parts a kernel just made) skip them.

Each check costs O(nnz) numpy work and no Python loop over rows.

Example:
    >>> import numpy as np
    >>> csr_problem((2, 3), np.ones(2), np.array([0, 5]), np.array([0, 1, 2]))
    'column index 5 (entry 1, row 1) lies outside [0, 3)'
    >>> row_sparse_problem((4, 2), np.ones((2, 2)), np.array([1, 1])) is None
    False
"""
import numpy as np

__all__ = ["csr_problem", "row_sparse_problem"]


def _first(mask):
    """The first True position of a boolean array, or None."""
    hits = np.flatnonzero(mask)
    return int(hits[0]) if hits.size else None


def _sizes_of_csr(shape, data, indices, indptr):
    if len(shape) != 2:
        return f"a csr array is 2-D, got shape {tuple(shape)}"
    rows = shape[0]
    if indptr.ndim != 1 or indptr.shape[0] != rows + 1:
        return f"indptr must have {rows + 1} entries (rows + 1), has shape {indptr.shape}"
    if data.ndim != 1 or indices.ndim != 1 or indices.shape[0] != data.shape[0]:
        return (f"indices and data must be 1-D and of one length, got indices "
                f"{indices.shape} and data {data.shape}")
    nnz = indices.shape[0]
    if indptr[0] != 0 or indptr[-1] != nnz:
        return (f"indptr must start at 0 and end at nnz={nnz}, got "
                f"{int(indptr[0])}..{int(indptr[-1])}")
    return None


def csr_problem(shape, data, indices, indptr, full=True):
    """What makes csr parts invalid, or None.

    Args:
        shape: (rows, cols).
        data: the stored values, a 1-D numpy array.
        indices: the column number of each stored value, a 1-D numpy array.
        indptr: the row offsets into data (rows + 1 of them), a 1-D numpy array.
        full: also check every index (O(nnz)); else the sizes only (MXNet's
            ``check_format(full_check=False)``).

    Returns:
        str naming the first broken rule and where, or None.

    Example::

        from gluonlite.ndarray.sparse_check import csr_problem
        csr_problem((2, 3), np.ones(2), np.array([0, 5]), np.array([0, 1, 2]))
        # 'column index 5 (entry 1, row 1) lies outside [0, 3)'
        csr_problem((2, 3), np.ones(2), np.array([0, 2]), np.array([0, 1, 2]))   # None
    """
    problem = _sizes_of_csr(shape, data, indices, indptr)
    if problem or not full:
        return problem
    drop = _first(np.diff(indptr) < 0)
    if drop is not None:
        return (f"indptr must be non-decreasing, but indptr[{drop}]={int(indptr[drop])} > "
                f"indptr[{drop + 1}]={int(indptr[drop + 1])}")
    cols = shape[1]
    out = _first((indices < 0) | (indices >= cols))
    if out is not None:
        row = int(np.searchsorted(indptr, out, side="right")) - 1
        return (f"column index {int(indices[out])} (entry {out}, row {row}) lies outside "
                f"[0, {cols})")
    if indices.shape[0] > 1:
        # a step that does not increase is wrong unless a new row starts there
        bad = np.diff(indices) <= 0
        starts = indptr[1:-1]
        bad[starts[(starts > 0) & (starts < indices.shape[0])] - 1] = False
        at = _first(bad)
        if at is not None:
            row = int(np.searchsorted(indptr, at + 1, side="right")) - 1
            return (f"column indices of row {row} must be strictly increasing, got "
                    f"{int(indices[at])} then {int(indices[at + 1])} (entries {at}, {at + 1})")
    return None


def row_sparse_problem(shape, data, indices, full=True):
    """What makes row_sparse parts invalid, or None.

    Args:
        shape: the logical shape (rank >= 1).
        data: the stored rows, shape ``(len(indices),) + shape[1:]``.
        indices: their row numbers, strictly increasing.
        full: also check every index; else the sizes only.

    Returns:
        str naming the first broken rule and where, or None.

    Example::

        from gluonlite.ndarray.sparse_check import row_sparse_problem
        row_sparse_problem((4, 2), np.ones((2, 2)), np.array([1, 3]))   # None
        row_sparse_problem((4, 2), np.ones((2, 2)), np.array([1, 1]))   # 'row indices must ...'
    """
    if indices.ndim != 1 or data.ndim < 1 or indices.shape[0] != data.shape[0]:
        return (f"indices ({indices.shape}) must be 1-D with one entry per stored row "
                f"(data {data.shape})")
    if tuple(data.shape[1:]) != tuple(shape[1:]):
        return f"stored rows have shape {tuple(data.shape[1:])}, expected {tuple(shape[1:])}"
    if not full or not indices.size:
        return None
    out = _first((indices < 0) | (indices >= shape[0]))
    if out is not None:
        return f"row index {int(indices[out])} (entry {out}) lies outside [0, {shape[0]})"
    at = _first(np.diff(indices) <= 0)
    if at is not None:
        what = "repeated" if indices[at] == indices[at + 1] else "out of order"
        return (f"row indices must be strictly increasing, got {int(indices[at])} then "
                f"{int(indices[at + 1])} (entries {at}, {at + 1}: {what})")
    return None
