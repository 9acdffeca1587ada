"""`mx.npx`: MXNet's NumPy extensions: the switches of NumPy semantics (`set_np`,
`reset_np`, `is_np_array`, `is_np_shape`), the neural-network operators of the legacy
dialect with NumPy-dialect names taking and giving `mx.np` arrays (`fully_connected`,
`convolution`, `batch_norm`, `softmax`, `pick`, ... : one registry operator each, the same
definition `mx.nd.FullyConnected` runs), `reshape` with MXNet's special codes, `nonzero`,
`save`/`load`, the devices (`cpu`, `gpu`, `num_gpus`), `random` and `image`.

Example::

    from gluonlite import np, npx
    npx.set_np()
    y = npx.relu(np.array([-1., 2.]))      # array([0., 2.])
    npx.num_gpus()
    npx.reset_np()                         # leave NumPy semantics
"""
from ..base import classproperty, with_metaclass  # noqa: F401
from ..util import check_call  # noqa: F401
from ..context import Context, cpu, gpu, cpu_pinned, current_context, num_gpus  # noqa: F401
from ..context import gpu_memory_info  # noqa: F401
from ..ndarray import waitall as _waitall
from ..util import (is_np_array, is_np_shape, reset_np, set_np, get_cuda_compute_capability,  # noqa
                    is_np_default_dtype, set_np_default_dtype)
from ._op import *  # noqa: F401,F403
from ._op import __all__ as _OP_ALL
from .utils import save, load  # noqa: F401
from . import random  # noqa: F401
from . import image  # noqa: F401


def waitall():
    """Wait until every device has finished its queued work (`mx.nd.waitall`).

    Example::

        y = mx.np.ones(3) * 2
        mx.npx.waitall()  # every pending computation has finished
        y  # array([2., 2., 2.])
    """
    _waitall()


__all__ = sorted(set(_OP_ALL) | {
    "Context", "check_call", "classproperty", "cpu", "cpu_pinned", "current_context",
    "get_cuda_compute_capability", "gpu", "gpu_memory_info", "is_np_array", "is_np_shape",
    "load", "num_gpus", "reset_np", "save", "set_np", "waitall", "with_metaclass",
    "is_np_default_dtype", "set_np_default_dtype"})

from .. import numpy as _np_module  # noqa: E402,F401  (mx.np, below: its functions signed)
from .. import numpy_op_fallback as _fallback  # noqa: E402,F401  (the NumPy fallback ops)
from ..numpy_op_signature import register_op_signatures as _signatures  # noqa: E402

_signatures("_npx_")  # NumPy's signatures for the functions above
