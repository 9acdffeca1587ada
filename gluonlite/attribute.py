"""MXNet's `mxnet.attribute`: `AttrScope`, string attributes given to every graph node made
inside a ``with`` block (defined in `gluonlite.symbol.naming`).

``AttrScope._subgraph_names`` counts the subgraph names that loops and branches register
(``foreach0``, ``my_cond_then1``), as in MXNet.

Example::

    import gluonlite as mx
    with mx.attribute.AttrScope(group="4", data="great"):
        y = mx.sym.var("y")
    y.attr("group")          # '4'
"""
from .symbol.naming import AttrScope
from .base import classproperty, with_metaclass  # noqa: F401  (as in MXNet's module)

__all__ = ["AttrScope"]
