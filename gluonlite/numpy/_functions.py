"""Every `mx.np` function in one namespace (what `mx.np.ndarray`'s methods and operators
call, and what `gluonlite.numpy` exports)."""
from ._creation import *  # noqa: F401,F403
from ._ufuncs import *  # noqa: F401,F403
from ._reductions import *  # noqa: F401,F403
from ._manipulation import *  # noqa: F401,F403
from ._routines import *  # noqa: F401,F403
from ._creation import __all__ as _a1
from ._ufuncs import __all__ as _a2
from ._reductions import __all__ as _a3
from ._manipulation import __all__ as _a4
from ._routines import __all__ as _a5

__all__ = sorted(set(_a1) | set(_a2) | set(_a3) | set(_a4) | set(_a5))
