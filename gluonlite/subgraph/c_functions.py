"""libmxnet's subgraph C functions, which MXNet's own tests and scripts call through
``mxnet.base._LIB`` (see `gluonlite.c_api`), over this package's registry and partitioner.

MXNet keeps two operator-name tables, one read by its executor's environment variable
(``MXSetSubgraphPropertyOpNames``) and one by ``optimize_for`` and ``hybridize(backend=)``
(the ``V2`` functions). gluonlite has one (`set_subgraph_property_op_names`), read by all
three, so each pair of functions sets and clears the same names.

Example::

    import ctypes
    from gluonlite.base import _LIB, check_call, c_str, c_str_array, mx_uint
    check_call(_LIB.MXSetSubgraphPropertyOpNamesV2(c_str('default'), mx_uint(1),
                                                   c_str_array(['exp'])))
    p = sym.tanh(sym.exp(sym.var('x'))).optimize_for('default')   # exp in a subgraph
    check_call(_LIB.MXRemoveSubgraphPropertyOpNamesV2(c_str('default')))
"""
from .. import c_api
from ..symbol.symbol import Symbol
from .partition import partition_graph
from .registry import remove_subgraph_property_op_names, set_subgraph_property_op_names

__all__ = ["MXBuildSubgraphByOpNames", "MXSetSubgraphPropertyOpNames",
           "MXRemoveSubgraphPropertyOpNames", "MXSetSubgraphPropertyOpNamesV2",
           "MXRemoveSubgraphPropertyOpNamesV2"]


@c_api.register
def MXBuildSubgraphByOpNames(sym_handle, prop_name, num_ops, op_names, out):
    """Partition the graph `sym_handle` (a Symbol's ``handle``) with backend `prop_name`,
    grouping the `num_ops` operators `op_names`; the partitioned Symbol's handle goes into
    `out` (``ctypes.byref(SymbolHandle())``, read back with ``Symbol(out)``). Returns 0.

    Args:
        sym_handle: the graph, ``symbol.handle``.
        prop_name: the backend's name (`c_str`).
        num_ops: how many operator names (``mx_uint``).
        op_names: the operator names (`c_str_array`).
        out: ``ctypes.byref`` of a ``SymbolHandle`` to receive the partitioned graph.

    Raises:
        TypeError: `sym_handle` is not a Symbol's handle, or an argument is not the C type
            expected.
        ValueError: an unknown backend or operator name.

    Example::

        import ctypes
        from gluonlite.base import _LIB, SymbolHandle, c_str, c_str_array, mx_uint
        out = SymbolHandle()
        _LIB.MXBuildSubgraphByOpNames(sym.exp(sym.var('x')).handle, c_str('default'),
                                      mx_uint(1), c_str_array(['exp']), ctypes.byref(out))
        p = sym.Symbol(out)
    """
    if not isinstance(sym_handle, Symbol):
        raise TypeError(f"MXBuildSubgraphByOpNames: sym_handle must be a Symbol's handle "
                        f"(symbol.handle), got {type(sym_handle).__name__}")
    backend = c_api.text(prop_name, "MXBuildSubgraphByOpNames: prop_name")
    names = c_api.texts(num_ops, op_names, "MXBuildSubgraphByOpNames: op_names")
    c_api.new_handle(partition_graph(sym_handle, backend, op_names=names), out)
    return 0


def _setter(name, reads):
    """libmxnet's C function `name`: `set_subgraph_property_op_names` from C arguments."""
    def set_op_names(prop_name, num_ops, op_names):
        set_subgraph_property_op_names(c_api.text(prop_name, f"{name}: prop_name"),
                                       c_api.texts(num_ops, op_names, f"{name}: op_names"))
        return 0
    set_op_names.__name__ = set_op_names.__qualname__ = name
    set_op_names.__doc__ = f"""`set_subgraph_property_op_names` from C arguments (the names
    {reads} with). Returns 0.

    Args:
        prop_name: the backend's name (`c_str`).
        num_ops: how many operator names (``mx_uint``).
        op_names: the operator names (`c_str_array`).

    Raises:
        ValueError: an unknown backend or operator name.

    Example::

        from gluonlite.base import _LIB, c_str, c_str_array, mx_uint
        _LIB.{name}(c_str('default'), mx_uint(1), c_str_array(['exp']))
        _LIB.{name.replace("Set", "Remove")}(c_str('default'))
    """
    return c_api.register(set_op_names)


def _remover(name):
    """libmxnet's C function `name`: `remove_subgraph_property_op_names` from a C argument."""
    def remove_op_names(prop_name):
        remove_subgraph_property_op_names(c_api.text(prop_name, f"{name}: prop_name"))
        return 0
    remove_op_names.__name__ = remove_op_names.__qualname__ = name
    remove_op_names.__doc__ = f"""`remove_subgraph_property_op_names` from a C argument.
    Returns 0.

    Args:
        prop_name: the backend's name (`c_str`).

    Example::

        from gluonlite.base import _LIB, c_str
        _LIB.{name}(c_str('default'))    # 0
    """
    return c_api.register(remove_op_names)


# MXNet's executor reads the first pair's names, optimize_for and hybridize the V2 pair's;
# here both pairs set the one table (see the module docstring)
MXSetSubgraphPropertyOpNames = _setter("MXSetSubgraphPropertyOpNames",
                                       "``MXNET_SUBGRAPH_BACKEND`` partitions")
MXSetSubgraphPropertyOpNamesV2 = _setter("MXSetSubgraphPropertyOpNamesV2",
                                         "``optimize_for`` and ``hybridize(backend=...)`` "
                                         "partition")
MXRemoveSubgraphPropertyOpNames = _remover("MXRemoveSubgraphPropertyOpNames")
MXRemoveSubgraphPropertyOpNamesV2 = _remover("MXRemoveSubgraphPropertyOpNamesV2")
