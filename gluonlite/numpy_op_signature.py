"""`mx.numpy_op_signature`: the `mx.np` / `mx.npx` function of a ``_np_`` / ``_npx_``
registry operator (`_get_builtin_op`), and NumPy's signatures given to those functions from
`_numpy_op_doc`, as MXNet 1.9.1 does when it loads.

Example::

    from gluonlite.numpy_op_signature import _get_builtin_op
    _get_builtin_op('_np_sum') is mx.np.sum   # True
"""
import inspect

from . import _numpy_op_doc

__all__ = ["_get_builtin_op"]

_SUBMODULES = {"_np_": ("numpy", ("_random_", "_linalg_")),
               "_npx_": ("numpy_extension", ("_image_", "_random_"))}


def _get_builtin_op(op_name):
    """The `mx.np` (``_np_...``) or `mx.npx` (``_npx_...``) function of operator `op_name`
    (``_np__random_shuffle`` is ``np.random.shuffle``); None for other names.

    Raises:
        ValueError: no such function.
    """
    import importlib
    for prefix, (module, subs) in _SUBMODULES.items():
        if op_name.startswith(prefix):
            break
    else:
        return None
    rest = op_name[len(prefix):]
    mod = importlib.import_module(f"gluonlite.{module}")
    for sub in subs:
        if rest.startswith(sub):
            mod = getattr(mod, sub.strip("_"), None)
            if mod is None:
                raise ValueError(f"Cannot find submodule {sub.strip('_')} in module {module}")
            rest = rest[len(sub):]
            break
    op = getattr(mod, rest, None)
    if op is None:
        raise ValueError(f"Cannot find operator {rest} in module {mod.__name__}")
    return op


def _register_op_signatures():
    for name in dir(_numpy_op_doc):
        if not name.startswith(("_np_", "_npx_")):
            continue
        op = _get_builtin_op(name)
        if op is not None:
            op.__signature__ = inspect.signature(getattr(_numpy_op_doc, name))


_register_op_signatures()
