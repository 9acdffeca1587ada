"""The operators, each defined once (see `registry`). Importing this package registers the
built-in groups; control-flow operators register themselves from `gluonlite.control_flow`."""
from . import (conv, elementwise, matrix, nn, normalization, random, reduce, reverse,  # noqa: F401
               rnn, spatial,
               shape)  # (registration)
from .registry import Operator, Params, RunCtx, ShapeError, all_ops, exists, get, register

__all__ = ["Operator", "Params", "RunCtx", "ShapeError", "all_ops", "exists", "get", "register"]
