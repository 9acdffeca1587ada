"""`mx.error`: MXNet 1.9.1's module of structured error classes.

`MXNetError` and `register` (`gluonlite.base.register_error`, also under that name) are
gluonlite.base's own; `InternalError` is the one class MXNet defines here, a fault of the
framework rather than of the caller's input. The value and type errors MXNet registers here
are `gluonlite.base.MXNetValueError` and `MXNetTypeError`, registered in gluonlite.base.

Example::

    @mx.error.register
    class QuotaError(mx.MXNetError):
        pass
    mx.base.error_types["QuotaError"] is QuotaError   # True
    del mx.base.error_types["QuotaError"]             # restore the table
"""
from .base import MXNetError, register_error

__all__ = ["MXNetError", "register"]

register = register_error

# the last line of an InternalError's message, unless the message already has a hint
_HINT = ("gluonlite hint: this is a fault inside gluonlite, not in the calling code; "
         "please report it with the code that raised it")


@register_error
class InternalError(MXNetError):
    """A fault inside the framework, not in the caller's input (MXNet's ``InternalError``);
    its message ends with a hint asking for a bug report, unless it has one already.

    Args:
        msg (str): what went wrong.

    Example::

        err = mx.error.InternalError("plan lost output 3")
        str(err).splitlines()[0]              # 'plan lost output 3'
        isinstance(err, mx.MXNetError)        # True
    """

    def __init__(self, msg):
        if "hint:" not in msg:
            msg = f"{msg}\n{_HINT}"
        super().__init__(msg)
