"""`gluonlite.module` (also `mx.mod`): MXNet 1.x's symbolic `Module`, the subset that binds,
initializes and runs a Symbol (see `module.Module`)."""
from .module import Module

__all__ = ["Module"]
