"""The compiled path: graph passes, inference, plans with static memory, Executor, CachedOp.

Loading it gives `Symbol` its ``infer_shape``/``infer_type`` (and partial) and
``bind``/``simple_bind`` methods' work (`install_symbol_methods`): the symbolic layer never
imports this one.
"""
from ..symbol.symbol import install_symbol_methods
from .cached_op import CachedOp
from .executor import Executor, simple_bind
from .hooks import apply_graph_passes, register_graph_pass
from .infer import infer_graph, infer_symbol_shapes, infer_symbol_types
from .plan import Plan, compile_plan
from .rnn_params import unpack_rnn_params
from . import bn_relu  # noqa: F401  (registers its training pass)

__all__ = ["CachedOp", "Executor", "Plan", "compile_plan", "infer_graph", "register_graph_pass",
           "apply_graph_passes", "unpack_rnn_params"]

install_symbol_methods(infer_shapes=infer_symbol_shapes, infer_types=infer_symbol_types,
                       bind=Executor, simple_bind=simple_bind)

from .. import ndarray as _ndarray  # noqa: E402
from .nd_cached_op import CachedOp as _NDCachedOp  # noqa: E402

_ndarray.CachedOp = _ndarray.op.CachedOp = _NDCachedOp  # MXNet's nd.CachedOp and nd.op.CachedOp
