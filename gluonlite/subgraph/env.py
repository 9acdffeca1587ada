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

        import os
        x = sym.var('x'); y = sym.tanh(sym.exp(x))
        os.environ['GLUONLITE_SUBGRAPH_BACKEND'] = 'default'
        mx.subgraph.set_subgraph_property_op_names('default', ['exp'])
        p = mx.subgraph.maybe_partition(y)   # exp is now a _default_subgraph_op node
        del os.environ['GLUONLITE_SUBGRAPH_BACKEND']
        mx.subgraph.remove_subgraph_property_op_names('default')
    """
    backend = os.environ.get(ENV_VAR, "").strip()
    if not backend:
        return symbol
    try:
        return partition_graph(symbol, backend)
    except ValueError as e:
        raise ValueError(f"{ENV_VAR}={backend!r}: {e}") from None
