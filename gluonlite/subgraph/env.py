"""The environment hook: ``GLUONLITE_SUBGRAPH_BACKEND=name`` partitions every graph at
``bind``/``simple_bind`` and at the first hybridized call (registered as a graph pass of the
executor, see `gluonlite.executor.hooks`)."""
import os

from .partition import partition_graph

__all__ = ["ENV_VAR", "maybe_partition"]

ENV_VAR = "GLUONLITE_SUBGRAPH_BACKEND"


def maybe_partition(symbol):
    """`symbol` partitioned with the backend named by ``GLUONLITE_SUBGRAPH_BACKEND`` (using the
    operator names given by `set_subgraph_property_op_names`), or `symbol` itself when the
    variable is unset or empty.

    Raises:
        ValueError: the variable names an unknown backend (the registered ones are listed).

    Example::

        os.environ['GLUONLITE_SUBGRAPH_BACKEND'] = 'default'
        set_subgraph_property_op_names('default', ['exp'])
        exe = y.simple_bind(x=(2, 3))      # runs the partitioned graph
    """
    backend = os.environ.get(ENV_VAR, "").strip()
    if not backend:
        return symbol
    try:
        return partition_graph(symbol, backend)
    except ValueError as e:
        raise ValueError(f"{ENV_VAR}={backend!r}: {e}") from None
