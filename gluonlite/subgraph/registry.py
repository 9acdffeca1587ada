"""The registry of partitioning backends (`SubgraphProperty` classes) by name, and the
operator-name sets that tests and the environment hook give a backend."""
from .property import SubgraphProperty
from .selector import _resolve_op_names

__all__ = ["register_subgraph_property", "list_subgraph_properties", "create_subgraph_property",
           "set_subgraph_property_op_names", "remove_subgraph_property_op_names"]

_PROPERTIES = {}
_OP_NAMES = {}


def register_subgraph_property(name, cls):
    """Register the backend `cls` (a `SubgraphProperty` subclass) as `name`; returns `cls`.

    Registering the same class twice under one name is harmless.

    Raises:
        TypeError: `name` is not a string or `cls` is not a SubgraphProperty subclass.
        ValueError: `name` is already taken by another class.

    Example::

        from gluonlite.subgraph import DefaultSubgraphProperty
        class MyBackend(DefaultSubgraphProperty):   # the default rules under a new name
            pass
        mx.subgraph.register_subgraph_property('my_backend2', MyBackend)
        'my_backend2' in mx.subgraph.list_subgraph_properties()   # True
    """
    if not isinstance(name, str) or not name:
        raise TypeError(f"register_subgraph_property: name must be a non-empty string, got "
                        f"{name!r}")
    if not (isinstance(cls, type) and issubclass(cls, SubgraphProperty)):
        raise TypeError(f"register_subgraph_property({name!r}): cls must be a subclass of "
                        f"SubgraphProperty, got {cls!r}")
    old = _PROPERTIES.get(name)
    if old is not None and old is not cls:
        raise ValueError(f"register_subgraph_property: backend {name!r} is already registered "
                         f"as {old.__qualname__}")
    _PROPERTIES[name] = cls
    return cls


def list_subgraph_properties():
    """The registered backend names, sorted.

    Example::

        mx.subgraph.list_subgraph_properties()   # ['FUSE', 'MKLDNN', 'default', ...]
    """
    return sorted(_PROPERTIES)


def create_subgraph_property(name, op_names=None):
    """A new instance of backend `name`, with ``op_names`` set from `op_names` or, when None,
    from `set_subgraph_property_op_names`.

    Raises:
        ValueError: an unknown backend (the message lists the registered ones).

    Example::

        prop = mx.subgraph.create_subgraph_property('default', ['exp', 'tanh'])
        prop.get_attr('op_names')   # ['exp', 'tanh']
    """
    if not isinstance(name, str):
        raise TypeError(f"subgraph backend name must be a string, got {type(name).__name__}")
    cls = _PROPERTIES.get(name)
    if cls is None:
        raise ValueError(f"unknown subgraph backend {name!r}; registered backends: "
                         f"{', '.join(list_subgraph_properties()) or 'none'}")
    prop = cls()
    if op_names is None:
        op_names = _OP_NAMES.get(name)
    if op_names is not None:
        _resolve_op_names(op_names, f"partition_graph(backend={name!r})")
        prop.set_attr("op_names", list(op_names))
    return prop


def set_subgraph_property_op_names(name, op_names):
    """Give backend `name` the operator names to group whenever it partitions without explicit
    `op_names` (e.g. through ``GLUONLITE_SUBGRAPH_BACKEND``).

    Raises:
        ValueError: an unknown backend or operator name; TypeError: a bare string.

    Example::

        mx.subgraph.set_subgraph_property_op_names('default', ['exp', 'tanh'])
        mx.subgraph.create_subgraph_property('default').get_attr('op_names')   # ['exp', 'tanh']
        mx.subgraph.remove_subgraph_property_op_names('default')
    """
    if name not in _PROPERTIES:
        raise ValueError(f"unknown subgraph backend {name!r}; registered backends: "
                         f"{', '.join(list_subgraph_properties()) or 'none'}")
    _resolve_op_names(op_names, f"set_subgraph_property_op_names({name!r})")
    _OP_NAMES[name] = list(op_names)


def remove_subgraph_property_op_names(name):
    """Forget the operator names given to backend `name` (no-op when none were given).

    Example::

        mx.subgraph.set_subgraph_property_op_names('default', ['exp'])
        mx.subgraph.remove_subgraph_property_op_names('default')
        mx.subgraph.create_subgraph_property('default').get_attr('op_names', None)   # None
    """
    _OP_NAMES.pop(name, None)
