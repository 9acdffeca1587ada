"""numpy's own BLAS matrix product, called with operands numpy's matmul cannot take as they
are: a matrix whose rows are windows of one longer row (`conv_shifted` reads every kernel
tap of a convolution this way, without copying the input nine times), and a product added
into its output (``beta = 1``), which numpy's ``matmul(out=...)`` overwrites instead.

The product is the library's ``cblas_?gemm`` in row-major order. numpy's wheels bundle an
OpenBLAS whose symbols carry a prefix and a suffix that depend on the build (numpy 2's
``scipy_cblas_sgemm64_``, numpy 1.x's ``cblas_sgemm64_``, 64-bit integers where the name
ends in ``64_``); `gemm` finds it in the bundled library already loaded by numpy. Where
there is none (numpy built against another BLAS, another platform's layout), `gemm` gives
None and the callers keep their numpy paths.

Example::

    from gluonlite.ops import cblas
    f = cblas.gemm(np.float32)
    a, b = np.ones((2, 3), np.float32), np.ones((3, 4), np.float32)
    c = np.ones((2, 4), np.float32)
    if f is not None:
        f(a, b, c, 2, 4, 3, beta=1.0)   # c += a @ b: every entry 4.0
"""
import ctypes
import glob
import os

import numpy as np

__all__ = ["gemm"]

# the symbol's name across OpenBLAS builds, and whether its integers are 64-bit
_NAMES = (("scipy_cblas_{}gemm64_", True), ("cblas_{}gemm64_", True),
          ("scipy_cblas_{}gemm", False), ("cblas_{}gemm", False))
_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112
_FOUND = {}          # dtype: the function or None
_LIB = {}            # "numpy": numpy's bundled OpenBLAS, or None


def _library():
    """numpy's bundled OpenBLAS, loaded (None where numpy bundles none)."""
    root = os.path.dirname(np.__file__)
    for folder in (root + ".libs", os.path.join(root, ".libs"), os.path.join(root, ".dylibs")):
        for path in sorted(glob.glob(os.path.join(folder, "*openblas*"))):
            try:
                return ctypes.CDLL(path)
            except OSError:
                continue
    return None


def _bind(lib, letter, ctype):
    for pattern, wide in _NAMES:
        fn = getattr(lib, pattern.format(letter), None)
        if fn is None:
            continue
        i = ctypes.c_int64 if wide else ctypes.c_int
        p = ctypes.c_void_p
        fn.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, i, i, i, ctype, p, i, p, i,
                       ctype, p, i]
        fn.restype = None
        return fn
    return None


def gemm(dtype):
    """numpy's BLAS product for `dtype` (float32 or float64) as a Python function, or None
    where it cannot be found (or for another dtype). Found once per dtype.

    The function is ``f(a, b, c, m, n, k, beta=0.0, trans_b=False)``: ``c[:m, :n] =
    a[:m, :k] @ b[:k, :n] + beta * c[:m, :n]`` (with `trans_b`, `b` holds the (n, k) matrix
    whose transpose is used). Each operand is a 2-D array of `dtype` whose rows are
    contiguous and may be far apart: a view of some columns of a longer matrix is read in
    place (the BLAS's leading dimension is its row stride). The product writes `c` in place.

    Args:
        dtype: a numpy dtype.

    Returns:
        The function described above, or None.

    Raises (the function, before it calls the BLAS, which is handed raw pointers):
        ValueError: an operand, named by its letter, of another dtype, not 2-D, with rows
            that are not contiguous, or smaller than the (m, k), (k, n) or (m, n) it holds.

    Example::

        from gluonlite.ops import cblas
        f = cblas.gemm(np.float64)
        rows = np.arange(12.0).reshape(2, 6)
        c = np.zeros((1, 3))
        if f is not None:
            f(np.ones((1, 2)), rows[:, 2:], c, 1, 3, 2)   # c: [[10., 12., 14.]]: columns 2-4
    """
    dt = np.dtype(dtype)
    if dt not in _FOUND:
        _FOUND[dt] = _make(dt)
    return _FOUND[dt]


def _make(dt):
    letters = {np.dtype(np.float32): ("s", ctypes.c_float),
               np.dtype(np.float64): ("d", ctypes.c_double)}
    if dt not in letters:
        return None
    if "numpy" not in _LIB:
        _LIB["numpy"] = _library()
    lib = _LIB["numpy"]
    fn = None if lib is None else _bind(lib, *letters[dt])
    if fn is None:
        return None

    def call(a, b, c, m, n, k, beta=0.0, trans_b=False):
        lda = _leading(a, "a", (m, k), dt)
        ldb = _leading(b, "b", (n, k) if trans_b else (k, n), dt)
        ldc = _leading(c, "c", (m, n), dt)
        fn(_ROW_MAJOR, _NO_TRANS, _TRANS if trans_b else _NO_TRANS, m, n, k, 1.0,
           a.ctypes.data, lda, b.ctypes.data, ldb, beta, c.ctypes.data, ldc)
    return call


def _leading(x, name, shape, dt):
    """The leading dimension (row stride in entries) of operand `x`, after checking that the
    BLAS reads and writes inside it: the BLAS is handed a raw pointer and would not."""
    if not isinstance(x, np.ndarray) or x.dtype != dt or x.ndim != 2:
        raise ValueError(f"cblas.gemm: {name} must be a 2-D {dt} array, got "
                         f"{getattr(x, 'dtype', type(x).__name__)} of {np.ndim(x)} axes")
    item = dt.itemsize
    if x.strides[1] != item or x.strides[0] % item or x.strides[0] < item * x.shape[1]:
        raise ValueError(f"cblas.gemm: {name}'s rows must be contiguous and apart, got "
                         f"strides {x.strides}")
    if x.shape[0] < shape[0] or x.shape[1] < shape[1]:
        raise ValueError(f"cblas.gemm: {name} of shape {x.shape} is smaller than the "
                         f"{shape} the product reads")
    return x.strides[0] // item
