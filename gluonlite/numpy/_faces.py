"""The two faces of the NumPy dialect's front end, as MXNet lays them out: `mx.nd.np` /
`mx.nd.npx` (what ``F.np`` is in an imperative `hybrid_forward`) are `mx.np` / `mx.npx`
themselves; `mx.sym.np` / `mx.sym.npx` (what ``F.np`` is while a block is traced) are the same
functions run in the symbolic face (`_dispatch.symbolic_face`), so that those given no array
at all (``F.np.zeros((2, 3))``, ``F.np.random.uniform(size=4)``) build graph nodes too.
``_internal`` gives each `_npi_` / `_np_` operator as a function by its short name
(``F.np._internal.boolean_mask_assign_scalar``)."""
import functools
import importlib
import inspect

from ..ndarray import numpy as _nd_face
from ..numpy_op_fallback import internal_function
from ..ops import registry
from ._dispatch import invoke, symbolic_face
from ._generated import make_function

__all__ = ["nd_attr", "sym_attr", "internal_attr"]

_SYM_CACHE = {}


def nd_attr(module, name):
    """Attribute `name` of `gluonlite.<module>` (the imperative face)."""
    if name.startswith("__"):
        raise AttributeError(name)
    mod = importlib.import_module(f"gluonlite.{module}")
    return getattr(mod, name)


def _symbolic(fn):
    @functools.wraps(fn)
    def run(*args, **kwargs):
        with symbolic_face():
            return fn(*args, **kwargs)
    return run


def sym_attr(module, name):
    """Attribute `name` of `gluonlite.<module>` in the symbolic face: functions wrapped to build
    nodes when given no array; classes, constants and sub-modules as they are."""
    if name.startswith("__"):
        raise AttributeError(name)
    key = (module, name)
    hit = _SYM_CACHE.get(key)
    if hit is not None:
        return hit
    obj = nd_attr(module, name)
    if inspect.isfunction(obj) or inspect.isbuiltin(obj) or isinstance(obj, functools.partial):
        obj = _symbolic(obj)
    _SYM_CACHE[key] = obj
    return obj


_INTERNAL = {}


def internal_attr(name, symbolic):
    """``_internal.<name>``: the `_npi_<name>` (or `_np_<name>`) operator as a function taking
    numpy arrays or symbols (MXNet's generated signature)."""
    if name.startswith("__"):
        raise AttributeError(name)
    fb = internal_function(name, symbolic)
    if fb is not None:
        return fb
    for op in (f"_npi_{name}", f"_np_{name}", name):
        if registry.exists(op):
            key = (op, symbolic)
            f = _INTERNAL.get(key)
            if f is None:
                f = make_function(name, op)
                f = _INTERNAL[key] = _symbolic(f) if symbolic else f
            return f
    raise AttributeError(f"_internal has no operator {name!r} (_npi_{name} / _np_{name})")


# the faces `mx.nd.np` / `mx.sym.np` (below this layer) look names up through, and the
# dispatcher `mx.numpy_op_fallback` (below this package too) runs its Custom calls with
_nd_face.FACES.update(nd=nd_attr, sym=sym_attr, internal=internal_attr, invoke=invoke)
