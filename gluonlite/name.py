"""MXNet's `mxnet.name`: the scopes that give graph nodes their automatic names.

`NameManager` numbers automatic names per hint (``relu0``); `Prefix` also puts a prefix
before every name. Both are defined in `gluonlite.symbol.naming`, the one naming machinery
that symbols, control flow and Gluon's name scopes share.

Example::

    import gluonlite as mx
    with mx.name.Prefix("mynet_"):
        y = mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=4, name="fc1")
    y.list_arguments()      # ['x', 'mynet_fc1_weight', 'mynet_fc1_bias']
"""
from .symbol.naming import NameManager, Prefix
from .base import classproperty, with_metaclass  # noqa: F401  (as in MXNet's module)

__all__ = ["NameManager", "Prefix"]
