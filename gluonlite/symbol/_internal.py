"""`sym._internal`: MXNet's namespace of the operators whose names start with an underscore
(``sym._internal._plus_scalar``), the same functions as ``sym._<name>``."""
from ..ops import registry as _registry
from .register import _gen_cache

globals().update({n: _gen_cache[n] for n in _registry.names()
                  if n.startswith("_") and not n.startswith("__") and n in _gen_cache})
