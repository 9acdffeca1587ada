"""The second OpenBLAS in the process, scipy's, kept to one thread where gluonlite calls it.

numpy's and scipy's wheels each bundle an OpenBLAS of their own, and each library keeps its
own pool of worker threads, one per core by default. gluonlite's depthwise convolution
kernels call scipy's level-1 BLAS (axpy and dot, on rows of a few thousand entries) between
numpy's matrix products. With both pools threaded, an axpy long enough to be split leaves
scipy's workers spinning after it returns, on the cores numpy's workers need for the next
product, and that product waits for the scheduler: on a 2-core machine with the libraries'
default threads, MobileNet 0.25's inference at batch 1 took 16 ms instead of 4.7 ms, and a
single 16 x 8 by 8 x 12544 product inside it 3.6 ms instead of 0.1 ms.

`serial()` runs a block with scipy's OpenBLAS at one thread, and gives it its own setting
back afterwards; level-1 calls on rows this short gain nothing from threads. It costs about
1 us a block. Where scipy uses numpy's OpenBLAS (one library, one pool), or its library or
its thread functions cannot be found, it does nothing. ``ENABLED = False`` turns it off
(benchmarks/blas_pools.py times both).

Example::

    from gluonlite.ops import blas_threads
    with blas_threads.serial():
        from scipy.linalg import blas
        blas.saxpy(np.ones(4, np.float32), np.zeros(4, np.float32))  # one thread here
"""
import contextlib
import ctypes
import glob
import os
import threading

__all__ = ["serial", "scipy_pool", "ENABLED"]

ENABLED = True
# the thread functions' exported names across OpenBLAS builds: plain, ILP64 (64_ suffix),
# and the scipy-openblas wheels' (scipy_ prefix)
_NAMES = (("openblas_get_num_threads", "openblas_set_num_threads"),
          ("openblas_get_num_threads64_", "openblas_set_num_threads64_"),
          ("scipy_openblas_get_num_threads", "scipy_openblas_set_num_threads"),
          ("scipy_openblas_get_num_threads64_", "scipy_openblas_set_num_threads64_"))
_FOUND = {}          # "pool": (get, set) of scipy's own OpenBLAS, or None
_LOCK = threading.Lock()
_DEPTH = {"n": 0, "saved": None}   # nested and concurrent blocks: the outermost restores


def scipy_pool():
    """(get_num_threads, set_num_threads) of the OpenBLAS that scipy bundles, where it is a
    library of its own beside numpy's; None otherwise. Found once.

    Returns:
        tuple of two ctypes functions, or None.

    Example::

        from gluonlite.ops import blas_threads
        pool = blas_threads.scipy_pool()
        pool[0]() if pool else None           # scipy's OpenBLAS threads, e.g. 2
    """
    if "pool" not in _FOUND:
        _FOUND["pool"] = _find()
    return _FOUND["pool"]


def _find():
    try:
        import scipy
        import scipy.linalg.blas  # noqa: F401  (loads scipy's OpenBLAS, if it bundles one)
    except ImportError:
        return None
    # the wheels' bundled libraries: scipy.libs beside the package (Linux, Windows), or a
    # folder inside it (.dylibs on macOS); loaded already, so CDLL hands back that library
    root = os.path.dirname(scipy.__file__)
    own = sorted(p for folder in (root + ".libs", os.path.join(root, ".libs"),
                                  os.path.join(root, ".dylibs"))
                 for p in glob.glob(os.path.join(folder, "*openblas*")))
    for path in own:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for get_name, set_name in _NAMES:
            get, put = getattr(lib, get_name, None), getattr(lib, set_name, None)
            if get is not None and put is not None:
                get.restype, get.argtypes = ctypes.c_int, []
                put.restype, put.argtypes = None, [ctypes.c_int]
                return get, put
    return None


@contextlib.contextmanager
def serial():
    """A block in which scipy's own OpenBLAS runs one thread (see the module docstring);
    its setting comes back when the last block open in any thread ends.

    Example::

        from gluonlite.ops import blas_threads
        with blas_threads.serial():
            pass                               # scipy's BLAS calls here run one thread
    """
    pool = scipy_pool() if ENABLED else None
    if pool is None:
        yield
        return
    get, put = pool
    with _LOCK:
        if _DEPTH["n"] == 0:
            _DEPTH["saved"] = get()
            put(1)
        _DEPTH["n"] += 1
    try:
        yield
    finally:
        with _LOCK:
            _DEPTH["n"] -= 1
            if _DEPTH["n"] == 0:
                put(_DEPTH["saved"])
