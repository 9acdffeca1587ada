"""`sym.contrib`: MXNet's contrib operators as graph nodes (``_contrib_*`` in the registry,
by their short names: ``sym.contrib.box_nms``) and the symbolic control flow (`foreach`,
`while_loop`, `cond`, defined in gluonlite.control_flow)."""
from ..ops import registry as _registry
from .register import make_function as _make

_PREFIX = "_contrib_"
# named by their short names, as MXNet names the nodes (box_nms0)
globals().update({n[len(_PREFIX):]: _make(_registry.get(n), n[len(_PREFIX):])
                  for n in _registry.names() if n.startswith(_PREFIX)})


def __getattr__(name):
    # The control-flow layer sits above the compiler; import it on first use.
    from ..control_flow import symbolic
    try:
        return getattr(symbolic, name)
    except AttributeError:
        raise AttributeError(f"sym.contrib has no attribute {name!r}") from None
