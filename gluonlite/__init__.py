"""gluonlite: a readable Gluon-style (MXNet 1.x dialect) deep-learning core on numpy.

``import gluonlite as mx`` in place of ``import mxnet as mx`` runs scripts inside the subset
described by API.md and gives the same numbers.
"""
__version__ = "0.1.0"

from .base import MXNetError  # noqa: E402
from . import cpu_memory  # noqa: E402
cpu_memory._at_import()  # before the first large array is freed (see its docstring)
from . import blas_kernel  # noqa: E402
blas_kernel._at_import()  # numpy's BLAS on a CPU it does not know: say what to set
from . import context  # noqa: E402
from .context import Context, cpu, gpu, cpu_pinned, current_context  # noqa: E402
from . import ops  # noqa: E402
from . import ndarray  # noqa: E402
from . import ndarray as nd  # noqa: E402
from . import autograd  # noqa: E402
from . import random  # noqa: E402
from . import test_utils  # noqa: E402
from . import symbol  # noqa: E402
from . import symbol as sym  # noqa: E402
from . import name, attribute  # noqa: E402  (MXNet's NameManager/Prefix and AttrScope)
from .attribute import AttrScope  # noqa: E402,F401  (mx.AttrScope, as MXNet's top level)
from . import executor  # noqa: E402
from . import control_flow  # noqa: E402  (registers _foreach, _while_loop, _cond)
from . import contrib  # noqa: E402
from . import subgraph  # noqa: E402  (registers the partitioning pass and its operator)
from .util import (is_np_shape, set_np_shape, np_shape, use_np_shape,  # noqa: E402,F401
                   is_np_array, np_array, use_np_array, use_np)


# MXNet's short names for its namespaces.
_ALIASES = {"init": "initializer", "mod": "module", "kv": "kvstore", "viz": "visualization",
            "mon": "monitor", "img": "image", "rnd": "random"}


def __getattr__(attr):
    # Upper layers (every MXNet namespace above the core: gluon, optimizer, metric, io, ...)
    # import on first use, so that `import gluonlite` stays cheap and a broken upper layer
    # cannot break the core. A new namespace module needs no entry here.
    import importlib
    module_name = _ALIASES.get(attr, attr)
    if not module_name.startswith("_"):
        try:
            mod = importlib.import_module(f".{module_name}", __name__)
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{module_name}":
                raise
        else:
            globals()[attr] = mod
            return mod
    raise AttributeError(f"module 'gluonlite' has no attribute {attr!r}")


# `mx.np` / `mx.npx`: stand-ins that refuse MXNet's NumPy interface (see gluonlite.numpy).
_ALIASES.update({"np": "numpy", "npx": "numpy_extension"})
