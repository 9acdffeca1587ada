"""The operators, each defined once (see `registry`). Importing this package registers the
built-in groups; control-flow operators register themselves from `gluonlite.control_flow`."""
from . import (amp, assign, compare, contrib_ops, conv, ctc, custom, cvimage, deformable,
               detection, elementwise, fused, image, indexing, legacy_layers, legacy_names,
               linalg, losses_ops, matrix, multibox, nn, normalization, optimizer_ops, proposal,
               random, reduce, reverse, rnn, roi, samplers, shape, sorting,
               spatial, special, tensor, vision_ops)  # noqa: F401  (registers them)
from .sparse import operators  # noqa: F401  (registers the storage operators)
from .registry import Operator, Params, RunCtx, ShapeError, all_ops, exists, get, register

__all__ = ["Operator", "Params", "RunCtx", "ShapeError", "all_ops", "exists", "get", "register"]
