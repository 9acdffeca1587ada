"""The compiled path: graph passes, inference, plans with static memory, Executor, CachedOp."""
from .cached_op import CachedOp
from .executor import Executor
from .hooks import apply_graph_passes, register_graph_pass
from .infer import infer_graph
from .plan import Plan, compile_plan
from .rnn_params import unpack_rnn_params

__all__ = ["CachedOp", "Executor", "Plan", "compile_plan", "infer_graph", "register_graph_pass",
           "apply_graph_passes", "unpack_rnn_params"]
