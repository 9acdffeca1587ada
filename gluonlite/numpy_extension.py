"""`mx.npx`: MXNet's NumPy-interface extensions, which gluonlite does not implement.

Importing works; using any name raises NotImplementedError (see `gluonlite.numpy`), except
the switches that only report or turn off NumPy semantics (`is_np_array`, `is_np_shape`,
`reset_np`), which `gluonlite.util` provides and which are re-exported here.

Example::

    from gluonlite import npx
    npx.is_np_array()                # False
    npx.set_np()                     # NotImplementedError
"""
from .util import (is_np_array, is_np_shape, reset_np, set_np, use_np,  # noqa: F401
                   use_np_array, use_np_shape, np_array, np_shape, set_np_shape)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise NotImplementedError(
        f"mx.npx.{name}: gluonlite does not implement MXNet's NumPy-compatible interface "
        "(mx.np / mx.npx); it implements the legacy mx.nd / mx.sym dialect only")
