"""`mx.numpy_op_signature`: the `mx.np` / `mx.npx` function of a ``_np_`` / ``_npx_``
registry operator (`_get_builtin_op`), and NumPy's signatures given to those functions from
`_numpy_op_doc`, as MXNet 1.9.1 does when it loads.

Example::

    from gluonlite.numpy_op_signature import _get_builtin_op
    _get_builtin_op('_np_sum') is mx.np.sum   # True
"""
import inspect

from . import _numpy_op_doc

__all__ = ["_get_builtin_op", "register_op_signatures"]

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


def register_op_signatures(prefix):
    """Give the functions of `prefix`'s module NumPy's signatures from `_numpy_op_doc`:
    ``'_np_'`` for `mx.np` (which calls this when it loads), ``'_npx_'`` for `mx.npx` (the
    same); each dialect module signs its own, so neither imports the other.

    Args:
        prefix: ``'_np_'`` or ``'_npx_'``.

    Raises:
        ValueError: a documented function the module does not have.

    Example::

        import inspect
        from gluonlite.numpy_op_signature import register_op_signatures
        register_op_signatures('_np_')   # done by mx.np itself; again changes nothing
        str(inspect.signature(mx.np.sum)).startswith('(a, axis=None')   # True
    """
    for name in dir(_numpy_op_doc):
        if name.startswith(prefix):
            op = _get_builtin_op(name)
            if op is not None:
                op.__signature__ = inspect.signature(getattr(_numpy_op_doc, name))
