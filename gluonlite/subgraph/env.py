"""The environment hooks.

- ``GLUONLITE_SUBGRAPH_BACKEND=name`` partitions every graph at ``bind``/``simple_bind`` and
  at the first hybridized call (a graph pass of the executor, see
  `gluonlite.executor.hooks`).
- ``MXNET_SUBGRAPH_BACKEND=name``, MXNet's variable, is read where MXNet reads it: at
  ``bind``/``simple_bind`` only (a bind pass). ``NONE`` or empty means no backend, as on
  MXNet; a backend marked ``inference_only`` (``'MKLDNN'``, which is gluonlite's ``'FUSE'``)
  is skipped by an executor that computes gradients, as MXNet skips its own.
"""
import os

from .partition import partition_graph, partition_with
from .registry import create_subgraph_property

__all__ = ["ENV_VAR", "MXNET_ENV_VAR", "maybe_partition", "partition_at_bind"]

ENV_VAR = "GLUONLITE_SUBGRAPH_BACKEND"
MXNET_ENV_VAR = "MXNET_SUBGRAPH_BACKEND"


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


def partition_at_bind(symbol, need_grad):
    """`symbol` partitioned with the backend named by ``MXNET_SUBGRAPH_BACKEND``, as MXNet's
    executor does at ``bind``/``simple_bind``; `symbol` itself when the variable is unset,
    empty or ``NONE``, when ``GLUONLITE_SUBGRAPH_BACKEND`` has partitioned the graph already,
    or when the executor computes gradients (`need_grad`) and the backend is
    ``inference_only``.

    Args:
        symbol: the executor's graph.
        need_grad: whether the executor computes some gradient.

    Raises:
        ValueError: the variable names an unknown backend (the registered ones are listed).

    Example::

        import os
        y = sym.relu(sym.FullyConnected(sym.var('x'), num_hidden=4))
        os.environ['MXNET_SUBGRAPH_BACKEND'] = 'MKLDNN'             # gluonlite's FUSE
        fused = mx.subgraph.partition_at_bind(y, need_grad=False)   # one _sg_fuse node
        mx.subgraph.partition_at_bind(y, need_grad=True) is y       # True: inference only
        del os.environ['MXNET_SUBGRAPH_BACKEND']
    """
    backend = os.environ.get(MXNET_ENV_VAR, "").strip()
    if not backend or backend == "NONE" or os.environ.get(ENV_VAR, "").strip():
        return symbol
    try:
        prop = create_subgraph_property(backend)
        if need_grad and prop.inference_only:
            return symbol
        return partition_with(symbol, prop, backend)
    except ValueError as e:
        raise ValueError(f"{MXNET_ENV_VAR}={backend!r}: {e}") from None
