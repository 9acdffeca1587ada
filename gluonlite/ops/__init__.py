"""The operators, each defined once (see `registry`). Importing this package registers the
built-in groups; control-flow operators register themselves from `gluonlite.control_flow`."""
from . import (assign, compare, contrib_ops, conv, ctc, custom, cvimage, elementwise, fused,
               image, indexing, legacy_layers, legacy_names, linalg,
               losses_ops, matrix, nn, normalization, optimizer_ops,
               random, reduce, reverse, rnn, samplers, shape, sorting,
               spatial, special, tensor, vision_ops)  # noqa: F401  (registers them)
from . import sparse_storage  # noqa: F401  (registers them)
from .registry import Operator, Params, RunCtx, ShapeError, all_ops, exists, get, register

__all__ = ["Operator", "Params", "RunCtx", "ShapeError", "all_ops", "exists", "get", "register"]
