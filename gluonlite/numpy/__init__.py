"""`mx.np`: MXNet 1.9.1's NumPy-compatible interface.

`ndarray` is the array type (an `NDArray` with NumPy's meaning: 0-d and zero-size arrays,
NumPy's indexing, broadcasting and dtype promotion with MXNet's float32 default); every
function is the front end of one registry operator, the same registry `mx.nd` and `mx.sym`
read, so each has its gradient and a symbolic form (`mx.sym.np`, what ``F.np`` is inside a
hybridized block). `linalg` and `random` are NumPy's sub-modules; the functions MXNet takes
from official NumPy (`fallback`) compute on host copies.

Example::

    from gluonlite import np, npx
    npx.set_np()
    a = np.arange(6).reshape(2, 3)
    (a * 2).sum(axis=0)              # array([ 6., 10., 14.])
    npx.reset_np()                   # leave NumPy semantics
"""
import numpy as _onp

from .multiarray import ndarray, array, empty  # noqa: F401
from ._functions import *  # noqa: F401,F403
from . import linalg  # noqa: F401
from . import random  # noqa: F401
from . import fallback, fallback_linalg  # noqa: F401
from .fallback import *  # noqa: F401,F403
from . import interop as _interop  # noqa: F401
from ._symbol import install as _install_symbol
from . import _faces  # noqa: F401  (installs the lookups of mx.nd.np and mx.sym.np)
from .utils import *  # noqa: F401,F403
from . import function_base, stride_tricks  # noqa: F401  (MXNet's modules of two functions)

_install_symbol()

# NumPy's dtypes and constants, as MXNet 1.9.1's mx.np has them
bool_ = _onp.bool_
bool = _onp.bool_  # noqa: A001  (mx.np.bool, as MXNet's)
int8, int32, int64, uint8 = _onp.int8, _onp.int32, _onp.int64, _onp.uint8
float16, float32, float64 = _onp.float16, _onp.float32, _onp.float64
e, pi, inf, nan = _onp.e, _onp.pi, _onp.inf, _onp.nan
NAN = NaN = _onp.nan
PINF, NINF = _onp.inf, -_onp.inf
PZERO, NZERO = 0.0, -0.0
newaxis = None
finfo = _onp.finfo

# NumPy's signatures for the functions above (mx.npx, which sits above this package, gives
# its functions theirs when it loads)
from ..numpy_op_signature import register_op_signatures as _signatures  # noqa: E402

_signatures("_np_")
