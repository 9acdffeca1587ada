"""The operators, each defined once (see `registry`). Importing this package registers the
built-in groups; control-flow operators register themselves from `gluonlite.control_flow`."""
from . import (elementwise, matrix, nn, random, reduce, reverse, rnn,  # noqa: F401
               shape)  # (registration)
from . import ctc, loss_ops, optimizer_ops  # noqa: F401  (registration)
from .registry import Operator, Params, RunCtx, ShapeError, all_ops, exists, get, register

__all__ = ["Operator", "Params", "RunCtx", "ShapeError", "all_ops", "exists", "get", "register"]
