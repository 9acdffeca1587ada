"""`gluonlite.contrib`: MXNet's contrib namespace; ``contrib.nd`` and ``contrib.sym`` hold the
control-flow operators (same as ``nd.contrib`` and ``sym.contrib``)."""
from .ndarray import contrib as ndarray  # noqa: F401
from .ndarray import contrib as nd  # noqa: F401
from .symbol import contrib as symbol  # noqa: F401
from .symbol import contrib as sym  # noqa: F401
