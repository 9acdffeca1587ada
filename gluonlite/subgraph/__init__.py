"""Subgraph partitioning: backends (`SubgraphProperty`) select parts of a graph
(`SubgraphSelector`) and replace each by one node; ``'default'`` groups the operators named
in ``op_names`` into `_default_subgraph_op` nodes that run their subgraph as a nested
compiled plan. See `partition_graph` for the pass.

Importing this package registers the ``'default'`` backend, the ``_default_subgraph_op``
operator (needed to load partitioned JSON), the ``GLUONLITE_SUBGRAPH_BACKEND`` graph pass,
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
from .env import maybe_partition
from .fusion import ElementwiseFusion, fuse_elementwise
from . import fuse
from ..executor.hooks import register_graph_pass
from ..symbol.symbol import install_symbol_methods

register_graph_pass(maybe_partition)
install_symbol_methods(partition=partition_graph)  # Symbol.optimize_for

__all__ = ["SubgraphSelector", "ContainOpSelector", "SubgraphProperty",
           "DefaultSubgraphProperty", "register_subgraph_property", "list_subgraph_properties",
           "create_subgraph_property", "set_subgraph_property_op_names",
           "remove_subgraph_property_op_names", "default_subgraph_node", "partition_graph",
           "maybe_partition", "ElementwiseFusion", "fuse_elementwise"]
