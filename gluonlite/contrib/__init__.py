"""`gluonlite.contrib`: MXNet's contrib namespace; ``contrib.nd`` and ``contrib.sym`` hold the
control-flow operators (same as ``nd.contrib`` and ``sym.contrib``).

Example::

    data = nd.array([[1.0], [2.0], [3.0]])
    body = lambda x, states: (x + states[0], [x + states[0]])
    outs, states = mx.contrib.nd.foreach(body, data, [nd.zeros((1,))])
    outs.asnumpy().ravel().tolist()   # [1.0, 3.0, 6.0]: running sums
"""
from ..ndarray import contrib as ndarray  # noqa: F401
from ..ndarray import contrib as nd  # noqa: F401
from ..symbol import contrib as symbol  # noqa: F401
from ..symbol import contrib as sym  # noqa: F401
import sys as _sys

# MXNet 1.9.1 has contrib/ndarray.py and contrib/symbol.py; code imports them as modules
# (`from mxnet.contrib import symbol`, `import mxnet.contrib.ndarray`): they are the
# operator namespaces nd.contrib and sym.contrib themselves.
_sys.modules.setdefault(__name__ + ".ndarray", ndarray)
_sys.modules.setdefault(__name__ + ".symbol", symbol)


# MXNet's contrib/__init__ also binds its quantization module as `quant`
_ALIASES = {"quant": "quantization"}


def __getattr__(attr):
    # contrib.io (and any later contrib namespace module) imports on first use
    import importlib
    try:
        mod = importlib.import_module(f".{_ALIASES.get(attr, attr)}", __name__)
    except ModuleNotFoundError as e:
        if e.name != f"{__name__}.{attr}":
            raise
        raise AttributeError(f"module 'gluonlite.contrib' has no attribute {attr!r}") from None
    globals()[attr] = mod
    return mod
