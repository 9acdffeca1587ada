"""`HybridBlock.register_op_hook`: report every operator's output (and, with `monitor_all`,
its inputs) of a hybridized block's graph to a callback, as MXNet's CachedOp monitor does.
The evaluation is shared with the executor's monitor (`gluonlite.executor.node_values`).
"""
from ..executor.node_values import report_ops

__all__ = ["report_ops"]
