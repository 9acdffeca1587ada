"""`SubgraphProperty`: a partitioning backend: how to select subgraphs (a selector) and what
node replaces each one."""

__all__ = ["SubgraphProperty"]

_MISSING = object()


class SubgraphProperty:
    """Base class of partitioning backends; register subclasses with
    `register_subgraph_property`.

    Subclasses implement `create_subgraph_selector` (a fresh `SubgraphSelector` per seed
    node) and `create_subgraph_node` (the node that runs one subgraph). Settings such as the
    ``op_names`` of the built-in ``'default'`` backend live in `set_attr`/`get_attr`.

    Example::

        from gluonlite.subgraph import (SubgraphProperty, ContainOpSelector,
                                        default_subgraph_node, register_subgraph_property)
        class MyBackend(SubgraphProperty):
            def create_subgraph_selector(self):
                return ContainOpSelector(["exp", "tanh"])
            def create_subgraph_node(self, symbol, subgraph_id):
                return default_subgraph_node(symbol, subgraph_id, prefix="my_op")
        register_subgraph_property("my_backend", MyBackend)
        x = sym.var("x")
        y = mx.subgraph.partition_graph(sym.tanh(sym.exp(x)) + x, "my_backend")
    """

    # True for a backend whose graphs compute no gradient through its nodes' fast paths
    # (MXNet's ``inference_only``): a bind that computes gradients skips it when the
    # environment selects it (`gluonlite.subgraph.env`)
    inference_only = False

    def __init__(self):
        self._attrs = {}

    def set_attr(self, name, value):
        """Store setting `name`; returns self.

        Args:
            name: the setting's name (a str), e.g. 'op_names'.
            value: its value, returned by `get_attr(name)`.

        Returns:
            This property, so that calls can be chained.

        Example::

            prop = mx.subgraph.DefaultSubgraphProperty()
            prop.set_attr('op_names', ['exp']).get_attr('op_names')   # ['exp']
        """
        self._attrs[name] = value
        return self

    def get_attr(self, name, default=_MISSING):
        """Setting `name`, or `default`.

        Raises:
            ValueError: no such setting and no default.

        Example::

            prop = mx.subgraph.DefaultSubgraphProperty()
            prop.get_attr('op_names', [])   # []: not set, so the default
        """
        if name in self._attrs:
            return self._attrs[name]
        if default is _MISSING:
            raise ValueError(f"{type(self).__name__}: no attribute {name!r}; set it with "
                             f"set_attr({name!r}, ...) (known: {sorted(self._attrs)})")
        return default

    def pre_partition(self, symbol):
        """Called once with the whole graph before it is partitioned (MXNet 1.9's
        PrePartition): a backend may look at it here (count each node's readers) for its
        selectors to use. Default: nothing.

        Args:
            symbol: the whole `Symbol` about to be partitioned.

        Example::

            prop = mx.subgraph.DefaultSubgraphProperty()
            prop.pre_partition(sym.exp(sym.var('x')))   # nothing to prepare
        """

    def create_subgraph_selector(self):
        """A new `SubgraphSelector` (called once per seed node).

        Example::

            prop = mx.subgraph.create_subgraph_property('default', ['exp'])
            prop.create_subgraph_selector()   # a ContainOpSelector of exp
        """
        raise NotImplementedError(f"{type(self).__name__} must implement "
                                  "create_subgraph_selector()")

    def create_subgraph_node(self, symbol, subgraph_id):
        """The node that replaces one subgraph.

        Args:
            symbol: the subgraph as a Symbol; its variables stand for the subgraph's inputs
                (in ``symbol.list_inputs()`` order) and its outputs are what the rest of the
                graph reads.
            subgraph_id: 0, 1, ... in the order subgraphs are found.

        Returns:
            A `Node` with an operator and no inputs (the pass connects them, aligned with
            ``symbol.list_inputs()``); its visible outputs must match ``symbol``'s outputs.

        Example::

            prop = mx.subgraph.DefaultSubgraphProperty()
            node = prop.create_subgraph_node(sym.exp(sym.var('a')), 0)
            node.name   # '_default_subgraph_op0'
        """
        raise NotImplementedError(f"{type(self).__name__} must implement "
                                  "create_subgraph_node(symbol, subgraph_id)")
