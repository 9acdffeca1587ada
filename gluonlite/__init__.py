"""gluonlite: a readable Gluon-style (MXNet 1.x dialect) deep-learning core on numpy.

``import gluonlite as mx`` in place of ``import mxnet as mx`` runs scripts inside the subset
described by API.md and gives the same numbers.
"""
__version__ = "0.1.0"

from .base import MXNetError  # noqa: E402
from . import context  # noqa: E402
from .context import Context, cpu, gpu, current_context  # noqa: E402
from . import ops  # noqa: E402
from . import ndarray  # noqa: E402
from . import ndarray as nd  # noqa: E402
from . import autograd  # noqa: E402
from . import random  # noqa: E402
from . import test_utils  # noqa: E402
from . import symbol  # noqa: E402
from . import symbol as sym  # noqa: E402
from . import name, attribute  # noqa: E402  (MXNet's NameManager/Prefix and AttrScope)
from . import executor  # noqa: E402
from . import control_flow  # noqa: E402  (registers _foreach, _while_loop, _cond)
from . import contrib  # noqa: E402
from . import subgraph  # noqa: E402  (registers the partitioning pass and its operator)


def __getattr__(attr):
    # Upper layers import lazily so that `import gluonlite` stays cheap and a broken upper
    # layer cannot break the core.
    import importlib
    aliases = {"sym": "symbol", "init": "initializer"}
    if attr in ("gluon", "initializer", "init", "optimizer", "bench", "rnn"):
        mod = importlib.import_module(f".{aliases.get(attr, attr)}", __name__)
        globals()[attr] = mod
        return mod
    raise AttributeError(f"module 'gluonlite' has no attribute {attr!r}")
