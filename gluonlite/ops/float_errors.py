"""Operators compute IEEE results silently, as MXNet's do.

MXNet's kernels are C++: ``log(0)`` is ``-inf``, ``0 / 0`` is NaN and an overflowing ``exp``
is ``inf``, with nothing printed. numpy computes the same values but warns (or, under
``np.seterr(all='raise')``, raises) on each, so a model that runs cleanly on MXNet would
print RuntimeWarnings here, and fail under ``python -W error`` or a test suite that turns
warnings into errors. The runners of operators (an imperative call, a compiled plan's
forward and backward, autograd's backward walk) therefore hold numpy's floating-point error
handling at "ignore" while operators run, and give the caller's setting back afterwards.

numpy's own `np.errstate` costs 1-3 us a use, as much as a quarter of a small imperative
call; `quiet` and `restore` set the same state through numpy's thread-local error object
(numpy 1.x) or its context variable (numpy 2.x) in a fraction of that, and fall back to
`np.errstate` on a numpy that has neither.

Example::

    from gluonlite.ops import float_errors
    token = float_errors.quiet()
    try:
        np.log(np.zeros(1))           # -inf, no RuntimeWarning
    finally:
        float_errors.restore(token)
"""
import numpy as np

__all__ = ["quiet", "restore"]


def _context_variable():
    """numpy 2's (context variable, quiet error object), or None on numpy 1."""
    try:
        from numpy._core.umath import _extobj_contextvar, _make_extobj
    except ImportError:
        return None
    return _extobj_contextvar, _make_extobj(all="ignore")


def _error_object():
    """numpy 1's (geterrobj, seterrobj), or None on numpy 2."""
    umath = getattr(getattr(np, "core", None), "umath", None)
    get, put = getattr(umath, "geterrobj", None), getattr(umath, "seterrobj", None)
    return (get, put) if get is not None and put is not None else None


_CV = _context_variable()
_EO = None if _CV is not None else _error_object()

if _CV is not None:
    _var, _quiet_obj = _CV

    def quiet():
        return _var.set(_quiet_obj)

    def restore(token):
        _var.reset(token)

elif _EO is not None:
    _get, _put = _EO
    _IGNORE_ALL = 0   # the mask with divide, over, under and invalid all at 'ignore'

    def quiet():
        old = _get()
        _put([old[0], _IGNORE_ALL, old[2]])
        return old

    def restore(token):
        _put(token)

else:  # a numpy with neither: its public (slower) context manager
    def quiet():
        state = np.errstate(all="ignore")
        state.__enter__()
        return state

    def restore(token):
        token.__exit__(None, None, None)

quiet.__doc__ = """Ignore floating-point errors in numpy until `restore` (see the module's page).

    Returns:
        The token that `restore` takes to give back the previous setting.

    Example::

        from gluonlite.ops.float_errors import quiet, restore
        token = quiet(); np.sqrt(np.float32(-1)); restore(token)   # nan, silently
    """
restore.__doc__ = """Give back the floating-point error setting that `quiet` replaced.

    Args:
        token: what the matching `quiet` returned (tokens are given back innermost first).

    Example::

        from gluonlite.ops.float_errors import quiet, restore
        token = quiet(); np.sqrt(np.float32(-1)); restore(token)   # nan, silently
    """
