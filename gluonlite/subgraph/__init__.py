"""Subgraph partitioning: backends (`SubgraphProperty`) select parts of a graph
(`SubgraphSelector`) and replace each by one node; ``'default'`` groups the operators named
in ``op_names`` into `_default_subgraph_op` nodes that run their subgraph as a nested
compiled plan. See `partition_graph` for the pass.

Importing this package registers the ``'default'`` backend (also as ``'default_v2'``), the
``_default_subgraph_op`` operator (needed to load partitioned JSON), the
``GLUONLITE_SUBGRAPH_BACKEND`` graph pass and the ``MXNET_SUBGRAPH_BACKEND`` bind pass,
libmxnet's subgraph C functions (`gluonlite.c_api`),
`Symbol.optimize_for`'s partitioner and the elementwise fusion that plans on a device run
(`fuse_elementwise`).

Example::

    from gluonlite import sym, subgraph
    x = sym.var('x')
    y = sym.tanh(sym.exp(x)) + x
    p = subgraph.partition_graph(y, 'default', op_names=['exp', 'tanh'])
"""
from .selector import SubgraphSelector, ContainOpSelector
from .property import SubgraphProperty
from .registry import (register_subgraph_property, list_subgraph_properties,
                       create_subgraph_property, set_subgraph_property_op_names,
                       remove_subgraph_property_op_names)
from .default_op import DefaultSubgraphProperty, default_subgraph_node
from .partition import partition_graph
from .env import maybe_partition, partition_at_bind
from . import c_functions  # noqa: F401 (registers libmxnet's subgraph C functions)
from .fusion import ElementwiseFusion, fuse_elementwise
from . import fuse
from . import identity  # noqa: F401 (registers the 'MKLDNN_QUANTIZE' backend)
from ..executor.hooks import register_bind_pass, register_graph_pass
from ..symbol.symbol import install_symbol_methods

register_graph_pass(maybe_partition)
register_bind_pass(partition_at_bind)
install_symbol_methods(partition=partition_graph)  # Symbol.optimize_for

__all__ = ["SubgraphSelector", "ContainOpSelector", "SubgraphProperty",
           "DefaultSubgraphProperty", "register_subgraph_property", "list_subgraph_properties",
           "create_subgraph_property", "set_subgraph_property_op_names",
           "remove_subgraph_property_op_names", "default_subgraph_node", "partition_graph",
           "maybe_partition", "partition_at_bind", "ElementwiseFusion", "fuse_elementwise"]
