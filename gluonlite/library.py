"""`mx.library`: loading compiled operator libraries, which gluonlite cannot do.

MXNet 1.9.1's ``mx.library.load(path)`` loads a shared library of C++ operators (Sockeye's
intgemm plugin is one). gluonlite's operators are Python on numpy, with no C ABI to load into:
`load` raises, naming the file, so the caller sees why instead of a missing operator later.

Example::

    open("libintgemm.so", "wb").close()
    try:
        mx.library.load("libintgemm.so")
    except NotImplementedError as e:
        print(e)        # library.load('libintgemm.so'): gluonlite cannot load ...
"""
import os

from .base import MXNetError

__all__ = ["load"]


def load(path, verbose=True):
    """Load a compiled MXNet operator library. Not supported.

    Args:
        path (str): the shared library's path.
        verbose (bool): MXNet's switch for listing what was loaded.

    Raises:
        MXNetError: `path` does not exist (as MXNet raises).
        NotImplementedError: always otherwise: gluonlite has no C++ operator interface.

    Example::

        try:
            mx.library.load("no_such_lib.so")
        except mx.base.MXNetError as e:
            print(e)            # library.load: load path no_such_lib.so does not exist
    """
    if not os.path.exists(path):
        raise MXNetError(f"library.load: load path {path} does not exist")
    raise NotImplementedError(
        f"library.load({path!r}): gluonlite cannot load compiled MXNet operator libraries "
        "(its operators are Python on numpy, with no C++ interface); MXNet 1.9.1 can")
