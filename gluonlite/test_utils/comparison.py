"""Comparing arrays in tests: exact (`same`), within tolerance (`almost_equal`), and the
asserting forms whose failure names the arrays, the worst entry's index and both values."""
import numbers

import numpy as np

from .tolerances import get_atol, get_etol, get_rtol, get_tols

__all__ = ["same", "same_array", "almost_equal", "assert_almost_equal", "assert_allclose",
           "assert_almost_equal_with_err", "assert_almost_equal_ignore_nan", "assert_exception",
           "checkShapes", "compare_ndarray_tuple", "same_symbol_structure"]


def as_numpy(x):
    """`x` as a numpy array: NDArrays are copied out, numbers and lists converted.

    Example::

        mx.test_utils.comparison.as_numpy(nd.ones((2,)))   # array([1., 1.], dtype=float32)
    """
    if hasattr(x, "asnumpy"):
        return x.asnumpy()
    return np.asarray(x)


def _with_dtype(x):
    """`x` itself when it has a dtype (so its tolerances can be looked up), else an array."""
    if isinstance(x, numbers.Number) or not hasattr(x, "dtype"):
        return np.asarray(x)
    return x


def same(a, b):
    """Whether `a` and `b` have the same shape and exactly equal entries.

    Example::

        mx.test_utils.same(np.ones(2), nd.ones((2,)))   # True
        mx.test_utils.same(np.ones(2), np.ones(3))   # False
    """
    return np.array_equal(as_numpy(a), as_numpy(b))


def same_array(array1, array2):
    """Whether two NDArrays share memory: a write through `array1` shows in `array2`.
    `array1` is changed and restored.

    Example::

        x = nd.zeros((2, 2))
        mx.test_utils.same_array(x, x[0:2])   # True: a slice of whole rows shares x's memory
        mx.test_utils.same_array(x, x.copy())   # False
    """
    array1[:] += 1
    shared = same(array1, array2)
    array1[:] -= 1
    return shared and same(array1, array2)


def checkShapes(a, b):
    """Raise AssertionError when `a` and `b` have different shapes (MXNet's name).

    Example::

        mx.test_utils.checkShapes(np.ones((2, 3)), nd.ones((2, 3)))   # None: same shapes
        try:
            mx.test_utils.checkShapes(np.ones((2, 3)), np.ones((3, 2)))
        except AssertionError as err:
            print(err)   # shapes differ: a.shape = (2, 3), b.shape = (3, 2)
    """
    if np.shape(a) != np.shape(b):
        raise AssertionError(f"shapes differ: a.shape = {np.shape(a)}, b.shape = {np.shape(b)}")


def almost_equal(a, b, rtol=None, atol=None, equal_nan=False, use_broadcast=True):
    """Whether every entry of `a` is within ``atol + rtol * |b|`` of `b` (numpy's `allclose`).

    Unlike `assert_almost_equal`, None tolerances mean float64's defaults (rtol 1e-5,
    atol 1e-20) whatever the dtypes, as in MXNet.

    Args:
        a: an NDArray, numpy array or number.
        b: the same kinds, compared with `a` (the tolerance scales with `b`); the two
            broadcast against each other unless `use_broadcast` is False, when
            different shapes are not almost equal.
        rtol: default None: the relative tolerance; None: 1e-5.
        atol: default None: the absolute tolerance; None: 1e-20.
        use_broadcast: default True: compare arrays of shapes that broadcast.
        equal_nan: NaN in the same place on both sides counts as equal.

    Example::

        mx.test_utils.almost_equal(np.array([1.0]), np.array([1.0 + 1e-9]))   # True
        mx.test_utils.almost_equal(nd.array([1.0]), nd.array([1.1]))   # False
    """
    a, b = as_numpy(a), as_numpy(b)
    if not use_broadcast and a.shape != b.shape:
        return False
    try:
        return bool(np.allclose(a, b, rtol=get_rtol(rtol), atol=get_atol(atol),
                                equal_nan=equal_nan))
    except ValueError:  # shapes that do not broadcast
        return False


def _violations(a, b, rtol, atol, equal_nan):
    """How many times its tolerance each entry's difference is (0 where equal, inf for a NaN
    on one side only); a and b are broadcast numpy arrays."""
    a64 = a.astype(np.float64) if a.dtype.kind in "biuf" else a
    b64 = b.astype(np.float64) if b.dtype.kind in "biuf" else b
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        equal = a64 == b64  # also inf == inf
        if equal_nan:
            equal |= np.isnan(a64) & np.isnan(b64)
        diff = np.abs(a64 - b64)
        ratio = diff / (atol + rtol * np.abs(b64))
    return np.where(equal, 0.0, np.where(np.isnan(ratio), np.inf, ratio))


def _entry(x):
    return repr(x.item()) if hasattr(x, "item") else repr(x)


def _summary(name, x):
    with np.printoptions(threshold=20, edgeitems=3, precision=6):
        return f"{name} (shape {x.shape}, {x.dtype}): {np.array2string(x, prefix=' ' * 4)}"


def _mismatch_report(a, b, rtol, atol, names, equal_nan, listed):
    """The message of a failed `assert_almost_equal`: the arrays' names, the tolerances, how
    many entries fail, the worst entry's index and both values, the next worst ones, and a
    summary of each array."""
    ratio = _violations(a, b, rtol, atol, equal_nan)
    bad = ratio > 1
    if ratio.ndim == 0:
        order = [()]
    else:
        flat = np.argsort(-ratio, axis=None, kind="stable")[:max(1, listed)]
        order = [tuple(int(i) for i in np.unravel_index(k, ratio.shape)) for k in flat]
    order = [i for i in order if bad[i]] or order[:1]
    worst = order[0]
    na, nb = names
    lines = [f"{na} and {nb} are not almost equal (rtol={rtol:g}, atol={atol:g}): "
             f"{int(bad.sum())} of {ratio.size} entries differ "
             f"({100.0 * bad.sum() / max(ratio.size, 1):.3g}%)",
             f"worst at index {worst}: {na}={_entry(a[worst])}, {nb}={_entry(b[worst])} "
             f"(difference {ratio[worst]:.4g} times the tolerance)"]
    rest = [f"{i}: {na}={_entry(a[i])}, {nb}={_entry(b[i])}" for i in order[1:]]
    if rest:
        lines.append("next worst: " + "; ".join(rest))
    lines += [_summary(na, a), _summary(nb, b)]
    return "\n".join(lines)


def assert_almost_equal(a, b, rtol=None, atol=None, names=("a", "b"), equal_nan=False,
                        use_broadcast=True, mismatches=(10, 10)):
    """Assert that every entry of `a` is within ``atol + rtol * |b|`` of `b`.

    Args:
        a: an NDArray, numpy array or number (the value checked).
        b: the same kinds (the reference); broadcast against `a` unless `use_broadcast`
            is False.
        rtol: the relative tolerance: a number, a {dtype: number} dict, or None: the
            larger default of the two arrays' dtypes (float16 1e-2, float32 1e-4,
            float64 1e-5, integers and bool exact).
        atol: the absolute tolerance, likewise (float16 1e-1, float32 1e-3, float64
            1e-20, integers and bool exact).
        use_broadcast: default True: compare arrays of shapes that broadcast.
        names: how the message names `a` and `b`.
        equal_nan: NaN in the same place on both sides counts as equal.
        mismatches: the message lists the worst ``mismatches[0]`` entries.

    Raises:
        AssertionError: the shapes do not match (or do not broadcast), or some entry is out of
            tolerance; the message names both arrays, gives the number of failing entries,
            the worst one's index and both its values, and a summary of each array.

    Example::

        x = nd.array([1.0, 2.0]); x.attach_grad()
        with autograd.record():
            y = (x * x).sum()
        y.backward()
        mx.test_utils.assert_almost_equal(x.grad, 2 * x, names=('grad', 'expected'))
    """
    rtol, atol = get_tols(_with_dtype(a), _with_dtype(b), rtol, atol)
    a, b = as_numpy(a), as_numpy(b)
    na, nb = names
    if not use_broadcast and a.shape != b.shape:
        raise AssertionError(f"{na} has shape {a.shape} but {nb} has shape {b.shape}")
    try:
        ab, bb = np.broadcast_arrays(a, b)
    except ValueError:
        raise AssertionError(f"{na} of shape {a.shape} and {nb} of shape {b.shape} do not "
                             "broadcast to one shape") from None
    if a.dtype == np.bool_ and b.dtype == np.bool_:
        rtol = atol = 0
        ab, bb = ab.astype(np.int8), bb.astype(np.int8)
    if np.allclose(ab, bb, rtol=rtol, atol=atol, equal_nan=equal_nan):
        return
    raise AssertionError(_mismatch_report(ab, bb, rtol, atol, names, equal_nan,
                                          int(mismatches[0])))


def assert_allclose(a, b, rtol=1e-07, atol=0, equal_nan=True):
    """`assert_almost_equal` with numpy's `assert_allclose` defaults (NaNs equal).

    Args:
        a: an NDArray, numpy array or number (the value checked).
        b: the same kinds (the reference), broadcast against `a`.
        rtol: default 1e-7: the relative tolerance.
        atol: default 0: the absolute tolerance.
        equal_nan: default True: NaNs in the same place count as equal.

    Raises:
        AssertionError: as `assert_almost_equal`.

    Example::

        a = np.array([1.0, np.nan])
        mx.test_utils.assert_allclose(a, a.copy())   # passes: NaNs count as equal
    """
    assert_almost_equal(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


def assert_almost_equal_with_err(a, b, rtol=None, atol=None, etol=None, names=("a", "b"),
                                 equal_nan=False, mismatches=(10, 10)):
    """`assert_almost_equal` that lets a fraction `etol` of the entries be out of tolerance.

    Args:
        a: an NDArray, numpy array or number (the value checked).
        b: the same kinds (the reference), broadcast against `a`.
        rtol: default None: the relative tolerance (a number or {dtype: number}); None: by the
            dtypes compared (`get_tols`).
        atol: default None: the absolute tolerance, likewise.
        etol: default None: the fraction of entries allowed out of tolerance (None: 0); 0 or less
            checks every entry as `assert_almost_equal`.
        names: default ('a', 'b'): how the message names `a` and `b`.
        equal_nan: default False: NaNs in the same place count as equal.
        mismatches: default (10, 10): the message lists the worst ``mismatches[0]`` entries.

    Raises:
        AssertionError: more than `etol` of the entries fail (the message as
            `assert_almost_equal`'s).

    Example::

        a, b = np.zeros(100), np.zeros(100)
        b[0] = 1.0   # 1% of the entries differ
        mx.test_utils.assert_almost_equal_with_err(a, b, etol=0.05)   # passes: up to 5% may differ
    """
    etol = get_etol(etol)
    if etol <= 0:
        assert_almost_equal(a, b, rtol, atol, names, equal_nan, mismatches=mismatches)
        return
    rtol, atol = get_tols(_with_dtype(a), _with_dtype(b), rtol, atol)
    a, b = np.broadcast_arrays(as_numpy(a), as_numpy(b))
    close = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if 1 - np.count_nonzero(close) / max(close.size, 1) > etol:
        raise AssertionError(f"more than etol={etol:g} of the entries are out of tolerance: " +
                             _mismatch_report(a, b, rtol, atol, names, equal_nan,
                                              int(mismatches[0])))


def assert_almost_equal_ignore_nan(a, b, rtol=None, atol=None, names=("a", "b")):
    """`assert_almost_equal` over the entries where neither array is NaN.

    Args:
        a: an NDArray, numpy array or number (the value checked).
        b: the same kinds (the reference), broadcast against `a`.
        rtol: default None: the relative tolerance (a number or {dtype: number}); None: by the
            dtypes compared (`get_tols`).
        atol: default None: the absolute tolerance, likewise.
        names: default ('a', 'b'): how the message names `a` and `b`.

    Raises:
        AssertionError: an entry that is not NaN on either side is out of tolerance.

    Example::

        a, b = np.array([1.0, np.nan]), np.array([1.0, 5.0])
        mx.test_utils.assert_almost_equal_ignore_nan(a, b)   # passes: the NaN entry is skipped
    """
    a, b = np.broadcast_arrays(as_numpy(a).copy(), as_numpy(b).copy())
    a, b = a.copy(), b.copy()
    nan = np.isnan(a) | np.isnan(b)
    a[nan] = 0
    b[nan] = 0
    assert_almost_equal(a, b, rtol, atol, names)


def assert_exception(f, exception_type, *args, **kwargs):
    """Assert that ``f(*args, **kwargs)`` raises `exception_type`.

    Raises:
        AssertionError: `f` returned without raising.

    Example::

        x = nd.ones((2,))
        mx.test_utils.assert_exception(x.reshape, ValueError, (3,))   # passes: reshape raises
    """
    try:
        f(*args, **kwargs)
    except exception_type:
        return
    name = getattr(exception_type, "__name__", exception_type)
    raise AssertionError(f"{getattr(f, '__name__', f)!s} did not raise {name}")


def compare_ndarray_tuple(t1, t2, rtol=None, atol=None):
    """`assert_almost_equal` over two nested tuples of arrays, pairwise; nothing when either is
    None.

    Args:
        t1: an array, or a (nested) tuple of arrays, or None.
        t2: the same structure as `t1`, or None.
        rtol: default None: the relative tolerance (a number or {dtype: number}); None: by the
            dtypes compared (`get_tols`).
        atol: default None: the absolute tolerance, likewise.

    Raises:
        AssertionError: a pair differs.

    Example::

        t1 = (nd.ones((2,)), (nd.zeros((3,)),))
        t2 = (np.ones(2), (np.zeros(3),))
        mx.test_utils.compare_ndarray_tuple(t1, t2)   # passes: pairwise equal
    """
    if t1 is None or t2 is None:
        return
    if isinstance(t1, tuple):
        for a, b in zip(t1, t2):
            compare_ndarray_tuple(a, b, rtol, atol)
    else:
        assert_almost_equal(t1, t2, rtol=rtol, atol=atol)


def same_symbol_structure(sym1, sym2):
    """Whether two Symbols apply the same operators in the same node order (names and
    attributes aside).

    Args:
        sym1: a Symbol.
        sym2: the Symbol compared with `sym1`.

    Returns:
        True when both graphs have the same operators in the same order.

    Example::

        a, b = sym.var('a'), sym.var('b')
        mx.test_utils.same_symbol_structure(sym.relu(a), sym.relu(b))   # True
        mx.test_utils.same_symbol_structure(sym.relu(a), sym.sigmoid(a))   # False
    """
    import json
    ops1 = [n["op"] for n in json.loads(sym1.tojson())["nodes"]]
    ops2 = [n["op"] for n in json.loads(sym2.tojson())["nodes"]]
    return ops1 == ops2
