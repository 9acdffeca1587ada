"""The operators, each defined once (see `registry`). Importing this package registers the
built-in groups; control-flow operators register themselves from `gluonlite.control_flow`."""
from . import (compare, contrib_ops, custom, elementwise, indexing, linalg,  # noqa: F401
               losses_ops, matrix, nn, normalization, random, reduce, reverse, rnn, samplers,
               shape, sorting, special, tensor, vision_ops)  # (registration)
from .registry import Operator, Params, RunCtx, ShapeError, all_ops, exists, get, register

__all__ = ["Operator", "Params", "RunCtx", "ShapeError", "all_ops", "exists", "get", "register"]
