"""`mx.np.function_base`: MXNet 1.9.1's module of `meshgrid` (and the `broadcast_arrays` it
uses): `mx.np`'s own functions."""
from ._creation import meshgrid
from ._manipulation import broadcast_arrays  # noqa: F401  (MXNet's module imports it)

__all__ = ["meshgrid"]
