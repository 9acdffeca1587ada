"""The operators, each defined once (see `registry`). Importing this package registers the
built-in groups; control-flow operators register themselves from `gluonlite.control_flow`."""
from . import (amp, assign, compare, contrib_ops, conv, ctc, custom, cvimage, deformable,
               deformable_psroi,
               detection, elementwise, fused, image, indexing, legacy_layers, legacy_names,
               linalg, losses_ops, matrix, multibox, nn, normalization, optimizer_ops, proposal,
               quantization, quantized_rnn, random, reduce, reverse, rnn, roi, rotated_roi,
               samplers, shape, sorting, spatial, special, tensor, vision_ops, hawkes)  # noqa: F401  (registers them)
from . import bn_clip, bn_relu  # noqa: F401  (after nn and elementwise: they build on BatchNorm, clip)
from .sparse import dgl, operators, scatter  # noqa: F401  (storage, scatter, DGL graphs)
from . import (np_elemwise, np_reduce, np_init, np_manip, np_math,  # noqa: F401
               np_index, np_linalg, np_random)  # MXNet's NumPy dialect (registers them)
from . import np_aliases as _np_aliases
from .registry import Operator, Params, RunCtx, ShapeError, all_ops, exists, get, register

_np_aliases.install()  # the NumPy dialect's names of legacy operators

__all__ = ["Operator", "Params", "RunCtx", "ShapeError", "all_ops", "exists", "get", "register"]
